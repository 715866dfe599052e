//! Rendering check results for people (human) and programs (JSON).

use serde_json::json;
use webmcp_checker::fingerprint::collision_chance;
use webmcp_model::World;
use webmcp_profiles::{ScenarioResult, Verdict};

use crate::baseline::{Baseline, Judgement};
use crate::report::{kind_name, PropertyRecord, ScenarioRecord};

/// The first line of a scenario's human report: sizes, time, and whether it was exhaustive.
pub fn run_header(
    label: &str,
    (total, unique, depth): (usize, usize, usize),
    seconds: Option<f64>,
    incomplete: Option<&str>,
) -> String {
    format!(
        "{label}: {} states generated, {} unique, max depth {depth}{}{}\n",
        thousands(total),
        thousands(unique),
        seconds.map_or(String::new(), |t| format!(", {t:.2} s")),
        incomplete.map_or(String::new(), |why| format!(
            ", INCOMPLETE (not exhaustive: {why})"
        )),
    )
}

/// The chance at or above which a report says how likely two of its states were taken for
/// one (a search of about six million states).
const COLLISION_NOTE_FROM: f64 = 1e-6;

/// A line for a search whose states were many enough that two distinct ones may have shared a
/// fingerprint (`webmcp_checker::fingerprint::collision_chance`), and nothing for the others.
pub fn fingerprint_note(unique: usize) -> String {
    let chance = collision_chance(unique);
    if chance < COLLISION_NOTE_FROM {
        return String::new();
    }
    format!(
        "  fingerprints: the search knows its {} states by 64-bit fingerprints; the chance that \
         two of them share one, and were taken for one state, is about {chance:.1e} \
         (docs/model.md §7)\n",
        thousands(unique)
    )
}

fn thousands(n: usize) -> String {
    webmcp_profiles::limits::thousands(n as u64)
}

/// Whether the baseline lists this violation of `property` in `scenario` under `variant`.
fn is_known(baseline: Option<&Baseline>, scenario: &str, property: &str, variant: &str) -> bool {
    baseline.is_some_and(|b| b.lists(scenario, property, variant).is_some())
}

/// `shortest_paths`: whether the search guarantees every counterexample is a shortest one
/// (breadth-first, without `--reduction por`); otherwise the report does not call it so.
pub fn human(
    world: &World,
    r: &ScenarioResult,
    verbose: bool,
    timings: bool,
    baseline: Option<&Baseline>,
    shortest_paths: bool,
) -> String {
    let mut out = run_header(
        &format!("{} [{}]", r.scenario, r.variant),
        (r.total_states, r.unique_states, r.max_depth),
        timings.then_some(r.seconds),
        r.why_incomplete().as_deref(),
    );
    out.push_str(&fingerprint_note(r.unique_states));
    let mut held = 0;
    for p in &r.properties {
        let show = verbose || matches!(p.verdict, Verdict::Violated | Verdict::Witnessed);
        if !show {
            if p.verdict == Verdict::Holds {
                held += 1;
            }
            continue;
        }
        let label = match p.verdict {
            Verdict::Violated if is_known(baseline, &r.scenario, p.def.name, &r.variant) => "known",
            Verdict::Violated => "VIOLATED",
            v => v.as_str(),
        };
        out.push_str(&format!("  {:<13} {}", label, p.def.name));
        if let (Verdict::Violated, Some(path)) = (&p.verdict, &p.path) {
            let last = path
                .last()
                .and_then(|s| s.steps.last())
                .map(|s| s.id())
                .unwrap_or("-");
            let which = if shortest_paths {
                "shortest counterexample"
            } else {
                "counterexample"
            };
            out.push_str(&format!(
                " ({which}: {} actions, ending at {last})",
                path.len()
            ));
        }
        out.push('\n');
        if verbose {
            out.push_str(&format!("                {}\n", p.def.claim));
        }
        if p.verdict == Verdict::Violated && verbose {
            if let Some(path) = &p.path {
                let steps: Vec<_> = path
                    .iter()
                    .map(|s| (&s.action, s.steps.as_slice()))
                    .collect();
                for line in webmcp_traces::narrate(world, steps).lines() {
                    out.push_str(&format!("      {line}\n"));
                }
            }
        }
    }
    if !verbose {
        let unwitnessed = r
            .properties
            .iter()
            .filter(|p| p.verdict == Verdict::NotWitnessed)
            .count();
        let undecided = r
            .properties
            .iter()
            .filter(|p| p.verdict == Verdict::Incomplete)
            .count();
        out.push_str(&format!(
            "  {held} properties hold; {unwitnessed} witnesses not reachable in this scenario"
        ));
        if undecided > 0 {
            out.push_str(&format!("; {undecided} undecided (incomplete)"));
        }
        out.push('\n');
    }
    out
}

/// The JSON report of a check (what `--format json` prints).
pub fn json(
    results: &[ScenarioRecord],
    timings: bool,
    judgement: Option<&Judgement>,
) -> serde_json::Value {
    let scenarios: Vec<_> = results
        .iter()
        .map(|r| {
            let properties: Vec<_> = r
                .properties
                .iter()
                .map(|p| {
                    json!({
                        "name": p.def.name,
                        "kind": kind_name(p.def.kind),
                        "about": p.def.about,
                        "verdict": p.verdict.as_str(),
                        "counterexample": p.counterexample.as_ref().map(|path| path.iter().map(|s| json!({
                            "action": s.action,
                            "steps": s.steps.iter().map(|x| x.id()).collect::<Vec<_>>(),
                        })).collect::<Vec<_>>()),
                    })
                })
                .collect();
            let mut o = json!({
                "scenario": r.scenario,
                "variant": r.variant,
                "unique_states": r.unique_states,
                "total_states": r.total_states,
                "max_depth": r.max_depth,
                "exhaustive": r.exhaustive,
                "stopped_by": r.stopped_by.as_ref().map(|s| s.to_json()),
                "fingerprint_collision_chance": collision_chance(r.unique_states),
                "properties": properties,
            });
            if timings {
                o["seconds"] = json!(r.seconds);
            }
            if let Some(t) = &r.phases {
                o["phases"] = phases_json(t);
            }
            o
        })
        .collect();
    let mut doc = json!({ "scenarios": scenarios });
    if let Some(j) = judgement {
        doc["baseline"] = baseline_json(j);
    }
    doc
}

/// What `check --vacuity` found in one scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Vacuity {
    /// `--vacuity` was not given.
    NotAsked,
    /// The check's own search was not exhaustive (its report names why).
    CheckIncomplete,
    /// The search for the properties' witnesses was stopped by this bound.
    WitnessSearchStopped(webmcp_checker::StopReason),
    /// The properties that hold because what they judge never happens there.
    Vacuous(Vec<&'static str>),
}

impl Vacuity {
    /// For a scenario's JSON report: `vacuous` (the names, `null` if undecided) and, if
    /// undecided, `vacuity_undecided` (why); nothing if not asked.
    pub fn json(&self) -> Vec<(&'static str, serde_json::Value)> {
        match self {
            Vacuity::NotAsked => Vec::new(),
            Vacuity::CheckIncomplete => vec![
                ("vacuous", serde_json::Value::Null),
                ("vacuity_undecided", json!({"because": "check-incomplete"})),
            ],
            Vacuity::WitnessSearchStopped(stop) => vec![
                ("vacuous", serde_json::Value::Null),
                (
                    "vacuity_undecided",
                    json!({"because": "witness-search-stopped", "stopped_by": stop.to_json()}),
                ),
            ],
            Vacuity::Vacuous(names) => vec![("vacuous", json!(names))],
        }
    }

    fn is_undecided(&self) -> bool {
        matches!(
            self,
            Vacuity::CheckIncomplete | Vacuity::WitnessSearchStopped(_)
        )
    }
}

/// `check --vacuity` for one scenario, for people.
pub fn vacuity_human(vacuity: &Vacuity, verbose: bool) -> String {
    let defs = webmcp_profiles::properties();
    match vacuity {
        Vacuity::NotAsked => String::new(),
        Vacuity::CheckIncomplete => {
            "  vacuity undecided: the search above was not exhaustive\n".into()
        }
        Vacuity::WitnessSearchStopped(stop) => format!(
            "  vacuity undecided: the search for the properties' witnesses was stopped by {stop} (the verdicts above stand)\n"
        ),
        Vacuity::Vacuous(names) if names.is_empty() => {
            "  vacuity: every property that holds judged something that happens here\n".into()
        }
        Vacuity::Vacuous(names) if verbose => {
            let mut out = format!(
                "  vacuous: {} of the properties that hold judge nothing that happens here:\n",
                names.len()
            );
            for name in names {
                let witness = defs
                    .iter()
                    .find(|d| d.name == *name)
                    .map(|d| d.witness.claim())
                    .unwrap_or_default();
                out.push_str(&format!(
                    "    {name}: no run shows its witness ({witness})\n"
                ));
            }
            out
        }
        Vacuity::Vacuous(names) => format!(
            "  vacuous: {} of the properties that hold judge nothing that happens here: {}\n",
            names.len(),
            names.join(", ")
        ),
    }
}

/// After the closing summary: with `--vacuity`, how many of the properties that held did so
/// vacuously; without it, where scenario files were checked, that a hold may be vacuous.
pub fn vacuity_summary(vacuity: &[Vacuity], scenario_files: bool) -> String {
    if vacuity.iter().all(|v| *v == Vacuity::NotAsked) {
        return if scenario_files {
            "note: a property holds vacuously where what it judges never happens; `--vacuity` names them.\n".into()
        } else {
            String::new()
        };
    }
    let vacuous: usize = vacuity
        .iter()
        .map(|v| match v {
            Vacuity::Vacuous(names) => names.len(),
            _ => 0,
        })
        .sum();
    let undecided = vacuity.iter().filter(|v| v.is_undecided()).count();
    let decided = vacuity
        .iter()
        .filter(|v| matches!(v, Vacuity::Vacuous(_)))
        .count();
    let counted = format!(
        "{} of the verdicts that held did so vacuously",
        thousands(vacuous)
    );
    match (undecided, decided) {
        (0, _) => format!("vacuity: {counted} (what they judge never happens).\n"),
        (_, 0) => format!(
            "vacuity: undecided in {undecided} scenario(s), where a search was not exhaustive (the exit code does not change).\n"
        ),
        _ => format!(
            "vacuity: undecided in {undecided} scenario(s), where a search was not exhaustive (the exit code does not change); in the other {decided}, {counted}.\n"
        ),
    }
}

/// Where a timed search's time went (`check --phases`), for people: largest phase first.
pub fn phases_human(t: &webmcp_checker::PhaseTimes) -> String {
    let mut out = format!(
        "  where the time went ({:.3} s timed; {} clock reads at {} ns each subtracted, leaving {:.3} s):\n",
        t.timed.as_secs_f64(),
        thousands(t.laps as usize),
        t.lap_cost.as_nanos(),
        t.total().as_secs_f64(),
    );
    let total = t.total().as_secs_f64();
    for (phase, share) in t.shares() {
        out.push_str(&format!(
            "    {:>5.1}%  {:>8.3} s  {}\n",
            share * 100.0,
            share * total,
            phase.describe()
        ));
    }
    out
}

/// The `phases` member of a scenario in the JSON report: per phase (in the loop's order) its
/// seconds and share, with what the clock reads cost.
pub fn phases_json(t: &webmcp_checker::PhaseTimes) -> serde_json::Value {
    let phases: Vec<_> = t
        .phases
        .iter()
        .map(|(p, d)| json!({ "phase": p.name(), "seconds": d.as_secs_f64(), "share": t.share_of(*d) }))
        .collect();
    json!({
        "timed_seconds": t.timed.as_secs_f64(),
        "clock_reads": t.laps,
        "clock_read_ns": t.lap_cost.as_nanos() as u64,
        "phases": phases,
    })
}

/// The `baseline` part of the JSON report: new, known and no longer occurring findings.
pub fn baseline_json(j: &Judgement) -> serde_json::Value {
    let pairs = |v: &[(String, String)]| {
        v.iter()
            .map(|(s, p)| json!({"scenario": s, "property": p}))
            .collect::<Vec<_>>()
    };
    json!({
        "new": pairs(&j.new),
        "known": pairs(&j.known),
        "no_longer_occurring": j.stale.iter().map(|f| json!({"scenario": f.scenario, "property": f.property, "variant": f.variant})).collect::<Vec<_>>(),
    })
}

/// The closing lines of human output when a baseline was given.
pub fn baseline_summary(j: &Judgement, with_baseline: bool) -> String {
    if !with_baseline {
        return String::new();
    }
    let mut out = format!(
        "baseline: {} new violation(s), {} known, {} listed finding(s) no longer occur\n",
        j.new.len(),
        j.known.len(),
        j.stale.len()
    );
    for (s, p) in &j.new {
        out.push_str(&format!("  new: {s}: {p}\n"));
    }
    for f in &j.stale {
        out.push_str(&format!(
            "  no longer occurs (remove it from the baseline): {}: {} [{}]\n",
            f.scenario, f.property, f.variant
        ));
    }
    out
}

/// Text for an XML 1.0 attribute or element (one escaper for every JUnit report).
pub use webmcp_conformance::junit::xml_escape;

fn counterexample_text(p: &PropertyRecord) -> String {
    p.counterexample
        .as_ref()
        .map(|path| {
            path.iter()
                .enumerate()
                .map(|(i, s)| {
                    format!(
                        "{}. {} ({})",
                        i + 1,
                        s.action,
                        webmcp_traces::step_list(&s.steps)
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// JUnit XML: one testsuite per scenario, one testcase per property. A new violation is a
/// failure; an undecided property is an error (the run exits 3: a CI system that reads only
/// the report must not count it as a pass); a known finding is skipped.
pub fn junit(results: &[ScenarioRecord], timings: bool, baseline: Option<&Baseline>) -> String {
    let mut suites = String::new();
    let (mut total, mut failures, mut errors, mut skipped) = (0, 0, 0, 0);
    for r in results {
        let mut cases = String::new();
        let (mut f, mut e, mut sk) = (0, 0, 0);
        for p in &r.properties {
            let name = xml_escape(p.def.name);
            let body = match p.verdict {
                Verdict::Violated if is_known(baseline, &r.scenario, p.def.name, &r.variant) => {
                    sk += 1;
                    "<skipped message=\"known finding (listed in the baseline)\"/>".to_string()
                }
                Verdict::Violated => {
                    f += 1;
                    format!(
                        "<failure message=\"{} violated; steps: {}\">{}</failure>",
                        name,
                        xml_escape(&p.def.about.join(", ")),
                        xml_escape(&counterexample_text(p))
                    )
                }
                Verdict::Incomplete => {
                    e += 1;
                    format!(
                        "<error type=\"incomplete\" message=\"incomplete: {}\"/>",
                        xml_escape(&r.why_incomplete().unwrap_or_default())
                    )
                }
                _ => String::new(),
            };
            cases.push_str(&format!(
                "    <testcase classname=\"webmcp-check.{}\" name=\"{}\">{}</testcase>\n",
                xml_escape(&r.scenario),
                name,
                body
            ));
        }
        let time = if timings {
            format!(" time=\"{:.3}\"", r.seconds)
        } else {
            String::new()
        };
        suites.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"{}>\n{}  </testsuite>\n",
            xml_escape(&r.scenario),
            r.properties.len(),
            f,
            e,
            sk,
            time,
            cases
        ));
        total += r.properties.len();
        failures += f;
        errors += e;
        skipped += sk;
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"webmcp-check\" tests=\"{total}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">\n{suites}</testsuites>\n"
    )
}

/// A Markdown summary for a CI step summary.
pub fn markdown_summary(
    results: &[ScenarioRecord],
    j: &Judgement,
    with_baseline: bool,
    timings: bool,
) -> String {
    let mut out = String::from("## webmcp-check\n\n");
    let new = j.new.len();
    out.push_str(&if with_baseline {
        format!("**{new} new violation(s)**, {} known finding(s), {} listed finding(s) no longer occur.\n\n", j.known.len(), j.stale.len())
    } else {
        format!("**{new} violation(s)** in {} scenario(s).\n\n", results.len())
    });
    let stopped = results.iter().filter(|r| !r.exhaustive).count();
    if stopped > 0 {
        out.push_str(&format!(
            "**Incomplete**: a bound stopped the search of {stopped} scenario(s); their \
             undecided properties are neither held nor violated.\n\n"
        ));
    }
    out.push_str(if timings {
        "| scenario | variant | unique states | max depth | seconds | violated | verdict |\n|---|---|---:|---:|---:|---:|---|\n"
    } else {
        "| scenario | variant | unique states | max depth | violated | verdict |\n|---|---|---:|---:|---:|---|\n"
    });
    for r in results {
        let violated = r.violations().count();
        let verdict = match r.why_incomplete() {
            Some(why) => format!("incomplete: {why}"),
            None if violated > 0 => "violations".to_string(),
            None => "pass".to_string(),
        };
        let time = if timings {
            format!(" {:.2} |", r.seconds)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} |{} {} | {} |\n",
            r.scenario, r.variant, r.unique_states, r.max_depth, time, violated, verdict
        ));
    }
    if !j.new.is_empty() {
        out.push_str("\n### New violations\n\n");
        for (s, p) in &j.new {
            let about = results
                .iter()
                .find(|r| &r.scenario == s)
                .and_then(|r| r.properties.iter().find(|x| x.def.name == p))
                .map(|x| x.def.about.join(", "))
                .unwrap_or_default();
            out.push_str(&format!("- `{s}`: `{p}` (steps: {about})\n"));
        }
    }
    if !j.stale.is_empty() {
        out.push_str("\n### Listed findings that no longer occur\n\n");
        for f in &j.stale {
            out.push_str(&format!(
                "- `{}`: `{}` under `{}`: remove it from the baseline\n",
                f.scenario, f.property, f.variant
            ));
        }
    }
    out
}

/// A workflow command's message: GitHub reads `%`, CR and LF specially.
pub fn github_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value (`file=`, `title=`): also `:` and `,`, which end it.
pub fn github_property(s: &str) -> String {
    github_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub workflow commands: an error per new violation, a warning per stale finding or
/// incomplete property, each pointing at the file the scenario came from (`sources[i]` for
/// `results[i]`; a baseline's stale finding at its embedded scenario).
pub fn github(sources: &[&str], results: &[ScenarioRecord], j: &Judgement) -> String {
    let source_of = |scenario: &str| {
        results
            .iter()
            .zip(sources)
            .find(|(r, _)| r.scenario == scenario)
            .map_or_else(
                || format!("scenarios/{scenario}.json"),
                |(_, s)| s.to_string(),
            )
    };
    let command = |level: &str, file: &str, title: &str, message: &str| {
        format!(
            "::{level} file={},title={}::{}\n",
            github_property(file),
            github_property(title),
            github_data(message)
        )
    };
    let mut out = String::new();
    for (s, p) in &j.new {
        let r = results.iter().find(|r| &r.scenario == s);
        let prop = r.and_then(|r| r.properties.iter().find(|x| x.def.name == p));
        let steps = prop.map(|x| x.def.about.join(", ")).unwrap_or_default();
        let last = prop
            .and_then(|x| x.counterexample.as_ref())
            .and_then(|path| path.last())
            .map(|st| webmcp_traces::step_list(&st.steps))
            .unwrap_or_default();
        out.push_str(&command(
            "error",
            &source_of(s),
            &format!("webmcp-check {p}"),
            &format!(
                "scenario {s} violates {p} (about {steps}); its counterexample ends at: {last}"
            ),
        ));
    }
    for f in &j.stale {
        out.push_str(&command(
            "warning",
            &source_of(&f.scenario),
            "webmcp-check baseline",
            &format!(
                "{} no longer violates {} under {}: remove it from the known findings",
                f.scenario, f.property, f.variant
            ),
        ));
    }
    for (r, source) in results.iter().zip(sources) {
        for p in r
            .properties
            .iter()
            .filter(|p| p.verdict == Verdict::Incomplete)
        {
            out.push_str(&command(
                "warning",
                source,
                "webmcp-check incomplete",
                &format!(
                    "{} was not decided for {}: {}",
                    p.def.name,
                    r.scenario,
                    r.why_incomplete().unwrap_or_default()
                ),
            ));
        }
    }
    out
}

/// How a check ends: the exit status and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every property held (or was witnessed or not reachable) and every search was exhaustive.
    AllHeld,
    /// A property was violated (and, with a baseline, the baseline does not list it).
    Violated,
    /// Nothing new was violated, but a bound stopped some exploration.
    Incomplete,
    /// Nothing new was violated, but a trace the run was asked to write could not be: what
    /// was asked for is missing (a violation outranks it, and keeps its exit 1).
    TracesMissing,
}

impl Outcome {
    /// How the run ends; `traces_failed`: a trace could not be written (`merge` writes none).
    pub fn of(results: &[ScenarioRecord], j: &Judgement, traces_failed: bool) -> Outcome {
        // Any scenario that stopped early makes the run incomplete, even if its verdicts are
        // all decided: a bound was hit, and the run says so.
        if !j.new.is_empty() {
            Outcome::Violated
        } else if traces_failed {
            Outcome::TracesMissing
        } else if results.iter().any(|r| {
            !r.exhaustive
                || r.properties
                    .iter()
                    .any(|p| p.verdict == Verdict::Incomplete)
        }) {
            Outcome::Incomplete
        } else {
            Outcome::AllHeld
        }
    }

    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::AllHeld => 0,
            Outcome::Violated => 1,
            Outcome::TracesMissing => 2,
            Outcome::Incomplete => 3,
        }
    }
}

/// The closing lines of a human check report: what was judged, what the exit status means,
/// and where to look next. Written for someone running the checker for the first time.
pub fn closing_summary(
    results: &[ScenarioRecord],
    j: &Judgement,
    with_baseline: bool,
    trace_dir: &std::path::Path,
    traces_failed: bool,
) -> String {
    let count = |v: Verdict| -> usize {
        results
            .iter()
            .map(|r| r.properties.iter().filter(|p| p.verdict == v).count())
            .sum()
    };
    let judged: usize = results.iter().map(|r| r.properties.len()).sum();
    let violating = results
        .iter()
        .filter(|r| r.violations().next().is_some())
        .count();
    let stopped = results.iter().filter(|r| !r.exhaustive).count();
    let mut variants: Vec<&str> = results.iter().map(|r| r.variant.as_str()).collect();
    variants.dedup();
    let mut out = format!(
        "\nsummary: {} scenario(s) under {}, {} property verdicts:\n  {} held, {} violated (in {} scenario(s)), {} witnessed, {} not reachable, {} undecided\n",
        thousands(results.len()),
        variants.join(", "),
        thousands(judged),
        thousands(count(Verdict::Holds)),
        thousands(count(Verdict::Violated)),
        violating,
        thousands(count(Verdict::Witnessed)),
        thousands(count(Verdict::NotWitnessed)),
        thousands(count(Verdict::Incomplete)),
    );
    let outcome = Outcome::of(results, j, traces_failed);
    if traces_failed && outcome == Outcome::Violated {
        out.push_str("Some traces could not be written: the error above says which.\n");
    }
    out.push_str(&match outcome {
        Outcome::TracesMissing => {
            "exit 2: a trace could not be written (the error above); the verdicts above stand.\n"
                .to_string()
        }
        Outcome::AllHeld if count(Verdict::Violated) > 0 => format!(
            "exit 0: each of the {} violations is one the baseline lists, and every exploration\n\
             was exhaustive.\n",
            thousands(count(Verdict::Violated))
        ),
        Outcome::AllHeld => {
            "exit 0: every property held, and every search for a verdict was exhaustive.\n".to_string()
        }
        Outcome::Violated if with_baseline => format!(
            "exit 1: {} violation(s) that the baseline does not list.\n",
            j.new.len()
        ),
        Outcome::Violated if variants == ["seed"] => "exit 1: properties are violated. On the draft as written (variant seed) this is the expected\n\
             result: the draft has known defects, each explained in docs/findings.md, and\n\
             `--variant proposed` (every proposed fix) holds on the standard scenarios.\n"
            .to_string(),
        Outcome::Violated => "exit 1: properties are violated under this variant.\n".to_string(),
        Outcome::Incomplete => format!(
            "exit 3: incomplete. A bound stopped the exploration of {stopped} scenario(s); their undecided\n\
             properties are neither held nor violated.\n"
        ),
    });
    out.push_str(&format!(
        "next: `--verbose` shows every property's claim and each counterexample step by step;\n\
         \x20     `webmcp-check explain FILE` tells a trace written to {} as a story;\n\
         \x20     docs/findings.md groups the violations by root cause.\n",
        trace_dir.display()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vacuity_left_undecided_by_a_bound_names_the_bound_and_claims_no_count_for_it() {
        let stop = webmcp_checker::StopReason::Timeout {
            limit: std::time::Duration::from_secs(1),
        };
        let stopped = Vacuity::WitnessSearchStopped(stop.clone());
        let human = vacuity_human(&stopped, false);
        assert!(
            human.contains("witnesses was stopped by --timeout 1 s"),
            "{human}"
        );
        let json: serde_json::Map<_, _> = stopped
            .json()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        assert_eq!(json["vacuous"], serde_json::Value::Null);
        assert_eq!(json["vacuity_undecided"]["stopped_by"], stop.to_json());
        assert!(vacuity_human(&Vacuity::CheckIncomplete, false).contains("undecided"));
        let summary = vacuity_summary(
            &[stopped, Vacuity::Vacuous(vec!["execute-settles-once"])],
            true,
        );
        assert!(
            summary.starts_with("vacuity: undecided in 1 scenario(s)")
                && summary.contains("in the other 1, 1 of the verdicts"),
            "{summary}"
        );
        assert!(Vacuity::NotAsked.json().is_empty());
    }

    #[test]
    fn junit_text_stays_well_formed_xml_whatever_a_name_holds() {
        let hostile = "a\0b\u{1}c<d>&e\"f'g\u{FFFE}\n";
        let doc = format!(
            "<x a=\"{}\">{}</x>",
            xml_escape(hostile),
            xml_escape(hostile)
        );
        let parsed = roxmltree::Document::parse(&doc).expect("well-formed");
        let text = parsed.root_element().text().unwrap();
        assert!(
            text.contains("\\u{0000}") && text.contains("<d>&e\"f'g"),
            "{text}"
        );
    }

    #[test]
    fn the_fingerprint_note_is_said_from_about_six_million_states() {
        assert_eq!(fingerprint_note(0), "");
        assert_eq!(
            fingerprint_note(108_900),
            "",
            "the largest standard scenario"
        );
        assert_eq!(fingerprint_note(5_000_000), "");
        let note = fingerprint_note(7_871_625);
        assert!(note.contains("7,871,625 states"), "{note}");
        assert!(note.contains("about 1.7e-6"), "{note}");
        assert!(note.starts_with("  fingerprints: ") && note.ends_with(")\n"));
        assert_eq!(note.lines().count(), 1);
    }

    #[test]
    fn a_github_annotation_cannot_be_split_or_start_another_command() {
        let value = "x.json,title=evil::\r\n::error file=y::boom%";
        let escaped = github_property(value);
        assert!(!escaped.contains([',', ':', '\r', '\n']), "{escaped}");
        assert_eq!(escaped.matches('%').count(), 10, "{escaped}");
        let message = github_data("line1\n::error::line2 100%");
        assert_eq!(message, "line1%0A::error::line2 100%25");
    }
}
