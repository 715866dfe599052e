//! The conformance table in human, JSON and Markdown form, with the analysis
//! of each divergence (`conformance/analysis.json`).

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::run::{ScenarioResult, VariantVerdict};
use crate::verdict::Verdict;

/// Why an implementation's observation is outside the allowed set.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Analysis {
    pub implementation: String,
    pub scenario: String,
    /// "implementation bug", "not implemented", "spec defect" or "model error".
    pub category: String,
    pub analysis: String,
    /// The Chromium major versions the analysis was written for (`["148"]`); absent: any.
    /// An implementation's behaviour changes between builds, and an analysis of one build
    /// must not explain another's divergence.
    #[serde(default)]
    pub versions: Option<Vec<String>>,
    /// The runs the analysis was written for: each verdict with the observation that got it.
    /// It explains a run only when the run's verdict and observation are one of these, so
    /// that a run that shows something else (a new divergence, or a browser where the API
    /// is missing and nothing ran) is not excused by the words written for another. Empty
    /// for the analyses of Chromium 148, written before analyses named their runs: they
    /// explain no run.
    pub explains: Vec<Explained>,
}

/// One run an analysis was written for.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Explained {
    /// The verdict's name (`diverges`, `not-implemented`, ...).
    pub verdict: String,
    pub observation: crate::observation::Observation,
}

pub struct Analyses(Vec<Analysis>);

impl Analyses {
    pub fn embedded() -> Analyses {
        Analyses(serde_json::from_str(include_str!("../analysis.json")).expect("analysis.json"))
    }
    /// The analysis of `r`'s row: one written for its implementation and build, and for
    /// what the run showed (its verdict and observation).
    pub fn get<'a>(&'a self, r: &'a ScenarioResult) -> Option<&'a Analysis> {
        self.of_build(r).find(|a| {
            a.explains
                .iter()
                .any(|e| e.verdict == r.verdict.name() && e.observation == r.observation)
        })
    }

    /// Whether an analysis was written for `r`'s scenario and build, but for another run
    /// than `r` (another verdict or observation).
    pub fn explains_another_run(&self, r: &ScenarioResult) -> bool {
        self.get(r).is_none() && self.of_build(r).any(|a| !a.explains.is_empty())
    }

    fn of_build<'a>(&'a self, r: &'a ScenarioResult) -> impl Iterator<Item = &'a Analysis> {
        self.0.iter().filter(move |a| {
            a.implementation == r.implementation
                && a.scenario == r.scenario
                && a.versions
                    .as_ref()
                    .is_none_or(|v| v.iter().any(|m| Some(m.as_str()) == r.browser_major()))
        })
    }
}

fn mark(v: &VariantVerdict) -> &'static str {
    if v.allowed {
        "yes"
    } else {
        "no"
    }
}

/// The verdict with its detail: the category of a divergence (from analysis.json), the
/// reason a run is inconclusive, the fixes a conforms-only-under-seed disagrees with.
pub fn verdict(r: &ScenarioResult, a: &Analyses) -> String {
    let name = r.verdict.name();
    let detail = match (&r.verdict, a.get(r)) {
        (Verdict::Diverges, Some(x)) => x.category.clone(),
        (Verdict::Diverges, None) if a.explains_another_run(r) => {
            "UNEXPLAINED (conformance/analysis.json explains other runs of this scenario, not this observation)".into()
        }
        (Verdict::Diverges, None) => "UNEXPLAINED".into(),
        (v @ Verdict::NotImplemented { .. }, None) if a.explains_another_run(r) => format!(
            "{} (unexplained: conformance/analysis.json explains other runs of this scenario, not this observation)",
            v.detail()
        ),
        (v, _) => v.detail(),
    };
    let api = if r.api_requested == "testing" {
        " (testing API)"
    } else {
        ""
    };
    if detail.is_empty() {
        format!("{name}{api}")
    } else {
        format!("{name}{api}: {detail}")
    }
}

/// One line per run as it finishes.
pub fn progress_line(r: &ScenarioResult) -> String {
    format!("{} {}", r.scenario, r.verdict.name())
}

/// How long the page ran and how complete the model's exploration was.
pub fn run_facts(r: &ScenarioResult) -> String {
    let model = |v: &VariantVerdict| {
        format!(
            "{} states{}",
            v.states,
            if v.complete { "" } else { ", INCOMPLETE" }
        )
    };
    let ran = r.statements.iter().filter(|s| s.ran).count();
    let time = r
        .wall_ms
        .map(|ms| format!("{:.1} s in the browser; ", ms as f64 / 1000.0))
        .unwrap_or_default();
    format!(
        "{time}API {}; {ran} of {} statements ran; model: seed {}, proposed {}",
        r.api.join(", "),
        r.statements.len(),
        model(&r.seed),
        model(&r.proposed)
    )
}

/// The statements that did not run, marked when the verdict depends on them.
pub fn skipped_statements(r: &ScenarioResult) -> Vec<String> {
    r.statements
        .iter()
        .filter(|s| !s.ran)
        .map(|s| {
            format!(
                "{}#{} {}{}",
                s.doc,
                s.index,
                s.statement,
                if s.required { " (required)" } else { "" }
            )
        })
        .collect()
}

/// "N conforms, N conforms-only-under-seed, ..." over any verdicts (both profiles), with
/// `detail`'s words after a count where it has some.
pub fn count_verdicts<'a>(
    verdicts: impl Iterator<Item = &'a Verdict> + Clone,
    detail: impl Fn(&str) -> Option<String>,
) -> String {
    Verdict::NAMES
        .iter()
        .map(|name| {
            let n = verdicts.clone().filter(|v| v.name() == *name).count();
            match detail(name) {
                Some(d) => format!("{n} {name} ({d})"),
                None => format!("{n} {name}"),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The counts of the draft profile's runs, with how many divergences no analysis explains.
pub fn counts(results: &[ScenarioResult], a: &Analyses) -> String {
    let unexplained = |name: &str| {
        results
            .iter()
            .filter(|r| r.verdict.name() == name && a.get(r).is_none())
            .count()
    };
    count_verdicts(results.iter().map(|r| &r.verdict), |name| {
        matches!(name, "diverges" | "not-implemented")
            .then(|| format!("{} unexplained", unexplained(name)))
    })
}

/// The observation, one "key = value" per line.
pub fn observation_text(r: &ScenarioResult) -> String {
    r.observation
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn human(
    version: &str,
    results: &[ScenarioResult],
    skipped: &BTreeMap<String, String>,
    a: &Analyses,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{version}");
    for r in results {
        let _ = writeln!(
            out,
            "\n{} [{}]  seed: {}  proposed: {}  -> {}",
            r.scenario,
            r.implementation,
            mark(&r.seed),
            mark(&r.proposed),
            verdict(r, a)
        );
        let _ = writeln!(out, "    ({})", run_facts(r));
        for s in skipped_statements(r) {
            let _ = writeln!(out, "    did not run: {s}");
        }
        for line in observation_text(r).lines() {
            let _ = writeln!(out, "    {line}");
        }
        if !r.seed.allowed && !r.proposed.allowed {
            for d in &r.proposed.differences {
                let _ = writeln!(
                    out,
                    "    differs (proposed): {}: observed {} / allowed {}",
                    d.key,
                    d.observed.as_deref().unwrap_or("nothing"),
                    d.allowed.as_deref().unwrap_or("nothing")
                );
            }
        }
        for n in &r.outside_draft {
            let _ = writeln!(out, "    outside the draft: {n}");
        }
    }
    for (name, why) in skipped {
        let _ = writeln!(out, "\n{name}: no browser form ({why})");
    }
    let _ = writeln!(
        out,
        "\n{} run{}: {}; {} scenarios without a browser form",
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        counts(results, a),
        skipped.len()
    );
    out
}

pub fn json(
    version: &str,
    results: &[ScenarioResult],
    skipped: &BTreeMap<String, String>,
    a: &Analyses,
) -> Value {
    json!({
        "browser": version,
        "results": results.iter().map(|r| {
            let mut v = serde_json::to_value(r).unwrap();
            v["verdict_text"] = json!(verdict(r, a));
            if let Some(x) = a.get(r) {
                v["analysis"] = json!({"category": x.category, "analysis": x.analysis});
            }
            v
        }).collect::<Vec<_>>(),
        "without_browser_form": skipped,
        "counts": Verdict::NAMES.iter().map(|name| {
            (name.to_string(), json!(results.iter().filter(|r| r.verdict.name() == *name).count()))
        }).collect::<serde_json::Map<_, _>>(),
    })
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', "<br>")
}

pub fn markdown(
    version: &str,
    results: &[ScenarioResult],
    skipped: &BTreeMap<String, String>,
    a: &Analyses,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Browser: `{version}`\n");
    let _ = writeln!(
        out,
        "| scenario | implementation | observation | allowed by seed | allowed by proposed | verdict | run |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for r in results {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.scenario,
            r.implementation,
            cell(&observation_text(r)),
            mark(&r.seed),
            mark(&r.proposed),
            cell(&verdict(r, a)),
            cell(&run_facts(r))
        );
    }
    let _ = writeln!(out, "\n{}", counts(results, a));
    if !skipped.is_empty() {
        let _ = writeln!(out, "\nWithout a browser form:\n");
        for (name, why) in skipped {
            let _ = writeln!(out, "- `{name}`: {why}");
        }
    }
    out
}

const DOC_INTRO: &str = include_str!("doc_intro.md");

fn short(r: &ScenarioResult, a: &Analyses) -> String {
    format!(
        "{} / {} / {}",
        mark(&r.seed),
        mark(&r.proposed),
        verdict(r, a)
    )
}

/// `docs/conformance.md`: the fixed text, then both implementations' tables
/// and the analysis of every divergence.
pub fn docs(
    chromium_version: &str,
    polyfill_version: &str,
    runs: &[Vec<ScenarioResult>],
    skipped: &BTreeMap<String, String>,
    a: &Analyses,
) -> String {
    let mut out = String::from(DOC_INTRO);
    let _ = writeln!(out, "\n## Results\n");
    let _ = writeln!(out, "- Chromium: `{chromium_version}`");
    let _ = writeln!(
        out,
        "- Polyfill: `@mcp-b/webmcp-polyfill@{polyfill_version}`\n"
    );
    let _ = writeln!(
        out,
        "Each cell: allowed by seed / allowed by proposed / verdict.\n"
    );
    let _ = writeln!(out, "| scenario | chromium | polyfill |");
    let _ = writeln!(out, "|---|---|---|");
    let names: Vec<&String> = runs
        .first()
        .map(|r| r.iter().map(|x| &x.scenario).collect())
        .unwrap_or_default();
    for name in names {
        let cells: Vec<String> = runs
            .iter()
            .map(|run| {
                run.iter()
                    .find(|r| &r.scenario == name)
                    .map_or("—".into(), |r| cell(&short(r, a)))
            })
            .collect();
        let _ = writeln!(out, "| {name} | {} |", cells.join(" | "));
    }
    for run in runs {
        let Some(first) = run.first() else { continue };
        let _ = writeln!(out, "\n### {}: {}\n", first.implementation, counts(run, a));
        let _ = writeln!(
            out,
            "| scenario | observation | allowed by seed | allowed by proposed | verdict | run |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|");
        for r in run {
            let mut facts = run_facts(r);
            for s in skipped_statements(r) {
                facts.push_str(&format!("\ndid not run: {s}"));
            }
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                r.scenario,
                cell(&observation_text(r)),
                mark(&r.seed),
                mark(&r.proposed),
                cell(&verdict(r, a)),
                cell(&facts)
            );
        }
    }
    let _ = writeln!(out, "\n## Which runs reach a tool body\n");
    let _ = writeln!(
        out,
        "Whether some outcome the model allows (`proposed`) invokes a tool body, or why none does, and whether each implementation's run invoked one that its observation shows (an invocation inside an iframe the run removed is not visible).\n"
    );
    let _ = writeln!(out, "| scenario | model | chromium | polyfill |");
    let _ = writeln!(out, "|---|---|---|---|");
    for r in runs.first().into_iter().flatten() {
        let model = match &r.model_reaches_body {
            Ok(()) => "yes".to_string(),
            Err(why) => format!("no: {why}"),
        };
        let cells: Vec<String> = runs
            .iter()
            .map(|run| {
                run.iter()
                    .find(|x| x.scenario == r.scenario)
                    .map_or("—", |x| {
                        if x.observation.keys().any(|k| k.contains(": invoke ")) {
                            "yes"
                        } else {
                            "no"
                        }
                    })
                    .to_string()
            })
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            r.scenario,
            cell(&model),
            cells.join(" | ")
        );
    }
    let _ = writeln!(out, "\n## Divergences\n");
    for run in runs {
        for r in run.iter().filter(|r| r.verdict == Verdict::Diverges) {
            let _ = writeln!(out, "### {} in {}\n", r.scenario, r.implementation);
            match a.get(r) {
                Some(x) => {
                    let _ = writeln!(out, "**{}.** {}\n", x.category, x.analysis);
                }
                None => {
                    let _ = writeln!(out, "**Unexplained.**\n");
                }
            }
            let _ = writeln!(
                out,
                "Closest allowed observation (proposed), where it differs:\n"
            );
            for d in &r.proposed.differences {
                let _ = writeln!(
                    out,
                    "- `{}`: observed `{}`, allowed `{}`",
                    d.key,
                    d.observed.as_deref().unwrap_or("nothing"),
                    d.allowed.as_deref().unwrap_or("nothing")
                );
            }
            out.push('\n');
        }
    }
    let _ = writeln!(out, "## Remarks on the other rows\n");
    for run in runs {
        for r in run.iter().filter(|r| r.verdict != Verdict::Diverges) {
            if let Some(x) = a.get(r) {
                let _ = writeln!(
                    out,
                    "- **{} in {}**: {}",
                    r.scenario, r.implementation, x.analysis
                );
            }
        }
    }
    out.push('\n');
    let _ = writeln!(out, "## Outside the draft (not judged)\n");
    for run in runs {
        let mut notes: Vec<String> = run
            .iter()
            .flat_map(|r| {
                r.outside_draft
                    .iter()
                    .map(move |n| format!("{}: {n}", r.scenario))
            })
            .collect();
        notes.sort();
        notes.dedup();
        if let Some(first) = run.first() {
            let _ = writeln!(
                out,
                "**{}** (API used: {}; surfaces found: {}):\n",
                first.implementation,
                first.api.join(", "),
                first.surfaces.join(", ")
            );
        }
        for n in notes {
            let _ = writeln!(out, "- {}", n.replace('|', "\\|"));
        }
        out.push('\n');
    }
    if !skipped.is_empty() {
        let _ = writeln!(out, "## Scenarios without a browser form\n");
        for (name, why) in skipped {
            let _ = writeln!(out, "- `{name}`: {why}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of `duplicate-name-race` in Chromium 156 as the analysis was written for it.
    fn analysed_run() -> serde_json::Value {
        json!({
            "api": ["document.modelContext"], "api_requested": "draft",
            "browser": "Chromium 156.0.8078.129 built on Debian GNU/Linux 12 (bookworm)",
            "implementation": "chromium", "intervened": {},
            "model_reaches_body": {"Err": "no statement executes a tool"},
            "observation": {
                "child: call childReg": "fulfilled undefined", "child: script": "finished",
                "child: toolchange": "1",
                "top: call list": "fulfilled tools [t1 @https://a.example in top]",
                "top: call reg1": "fulfilled undefined",
                "top: call reg2": "rejected InvalidStateError", "top: iframe frame": "attached",
                "top: script": "finished", "top: toolchange": "2"
            },
            "outside_draft": [],
            "proposed": {"allowed": false, "allowed_count": 2, "complete": true, "differences": [], "states": 4553},
            "seed": {"allowed": false, "allowed_count": 2, "complete": true, "differences": [], "states": 4553},
            "scenario": "duplicate-name-race",
            "statements": [], "surfaces": [], "timed_out": false,
            "verdict": {"kind": "diverges"}
        })
    }

    fn result(v: serde_json::Value) -> ScenarioResult {
        serde_json::from_value(v).unwrap()
    }

    /// An analysis excuses the run it was written for, and no other run of its scenario and
    /// build: not a divergence with another observation, not a browser without the API
    /// (which once exited 0 with nothing run, excused by the words for a divergence).
    #[test]
    fn an_analysis_explains_only_the_runs_it_was_written_for() {
        let a = Analyses::embedded();
        let written_for = result(analysed_run());
        assert!(a.get(&written_for).is_some());
        assert_eq!(crate::cli::exit_code(&[written_for], &a), 0);

        let mut other = analysed_run();
        other["observation"]["child: toolchange"] = json!("0");
        let other = result(other);
        assert!(a.get(&other).is_none());
        assert!(a.explains_another_run(&other));
        assert!(
            verdict(&other, &a).contains("UNEXPLAINED"),
            "{}",
            verdict(&other, &a)
        );
        assert_eq!(crate::cli::exit_code(&[other], &a), 1);

        let mut absent = analysed_run();
        absent["api"] = json!(["none"]);
        absent["observation"] = json!({});
        absent["verdict"] = json!({"kind": "not-implemented", "what": "the API the run asked for is not there (found: nothing)"});
        let absent = result(absent);
        assert!(a.get(&absent).is_none());
        assert!(
            verdict(&absent, &a).contains("unexplained"),
            "{}",
            verdict(&absent, &a)
        );
        assert_eq!(crate::cli::exit_code(&[absent], &a), 3);

        let mut other_build = analysed_run();
        other_build["browser"] = json!("Chromium 157.0.1.2 built on Debian");
        let other_build = result(other_build);
        assert!(a.get(&other_build).is_none());
        assert!(!a.explains_another_run(&other_build));

        // Chromium 148's analyses name no run: they explain none, and no other either.
        let mut old = analysed_run();
        old["browser"] = json!("Chromium 148.0.1.2 built on Debian");
        old["scenario"] = json!("abort-before-dispatch");
        let old = result(old);
        assert!(a.of_build(&old).next().is_some(), "a 148 analysis exists");
        assert!(a.get(&old).is_none());
        assert!(!a.explains_another_run(&old));
        assert_eq!(verdict(&old, &a), "diverges: UNEXPLAINED");
    }

    /// Every analysis of a build still in use names the runs it explains; only those of
    /// Chromium 148 name none.
    #[test]
    fn every_current_analysis_names_its_runs() {
        for x in &Analyses::embedded().0 {
            let old = x.versions.as_deref() == Some(&["148".to_string()][..]);
            assert_eq!(
                x.explains.is_empty(),
                old,
                "{} {}",
                x.implementation,
                x.scenario
            );
            for e in &x.explains {
                assert!(
                    Verdict::NAMES.contains(&e.verdict.as_str()),
                    "{}",
                    e.verdict
                );
                assert!(!e.observation.is_empty());
            }
        }
    }

    /// In JUnit, an explained run is skipped, an unexplained divergence fails, and a run
    /// that decided nothing is an error: a report read alone never looks green when the run
    /// exits 3.
    #[test]
    fn junit_counts_an_undecided_run_as_an_error() {
        let a = Analyses::embedded();
        let explained = result(analysed_run());
        let mut absent = analysed_run();
        absent["observation"] = json!({});
        absent["verdict"] = json!({"kind": "not-implemented", "what": "no API"});
        let mut inconclusive = analysed_run();
        inconclusive["verdict"] = json!({"kind": "inconclusive", "reason": "timed out"});
        let mut diverges = analysed_run();
        diverges["observation"]["top: toolchange"] = json!("9");
        let runs = [
            explained,
            result(absent),
            result(inconclusive),
            result(diverges),
        ];
        let xml = crate::junit::junit(&runs, &a);
        assert!(
            xml.contains("tests=\"4\" failures=\"1\" errors=\"2\" skipped=\"1\""),
            "{xml}"
        );
        assert_eq!(
            xml.matches("<error type=\"incomplete\"").count(),
            2,
            "{xml}"
        );
    }
}
