//! The findings report for spec editors (`docs/findings.md`): one section per defect of the
//! draft as written, grouped by root cause.
//!
//! A root cause is a proposed fix ([`webmcp_model::variant::FIXES`]). The violations it
//! explains are those of `proposed-FIX`: every other fix applied, this one taken out. Its
//! counterexample is the shortest of those, minimised, so the trace shows this defect alone.
//! The evidence is the `proposed` variant checked exhaustively on the whole suite. Seed
//! violations that no single fix explains (two fixes each remove them) are listed with the
//! pairs of fixes that do.
//!
//! The output depends only on the scenarios and the model: no timings, stable order.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use webmcp_model::machine::WebMcpModel;
use webmcp_model::variant::{Fix, FIXES};
use webmcp_model::Variant;
use webmcp_properties::driver::replay_path;
use webmcp_properties::{check, CheckOptions, ScenarioResult, Verdict};

use crate::anchors::step_url;
use crate::corpus::Source;
use crate::explain::{explain, Format};
use crate::minimize::minimize;
use crate::reader::Loaded;
use crate::trace::{Expect, Meta, Trace, TOOL};

/// A (scenario, property) pair.
type Finding = (String, &'static str);

/// Every check the report needs: `seed`, `proposed`, and `proposed-FIX` for each fix.
struct Runs {
    seed: Vec<ScenarioResult>,
    proposed: Vec<ScenarioResult>,
    without: Vec<Vec<ScenarioResult>>,
}

/// Checks `variants` x `sources` on `threads` worker threads (each check is one-threaded BFS,
/// so paths are shortest and the result does not depend on scheduling).
fn check_all(
    sources: &[Source],
    variants: &[Variant],
    threads: usize,
) -> Result<Vec<Vec<ScenarioResult>>, String> {
    let jobs: Vec<(usize, usize)> = (0..variants.len())
        .flat_map(|v| (0..sources.len()).map(move |s| (v, s)))
        .collect();
    let next = AtomicUsize::new(0);
    let done: Mutex<BTreeMap<(usize, usize), ScenarioResult>> = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(v, s)) = jobs.get(i) else { break };
                let model = WebMcpModel::new(sources[s].world.clone(), variants[v]);
                let options = CheckOptions {
                    threads: 1,
                    ..CheckOptions::default()
                };
                let result = check(model, &options);
                done.lock()
                    .expect("no worker panics")
                    .insert((v, s), result);
            });
        }
    });
    let mut done = done.into_inner().expect("no worker panics");
    let mut out = Vec::new();
    for v in 0..variants.len() {
        let mut row = Vec::new();
        for s in 0..sources.len() {
            let r = done.remove(&(v, s)).expect("every job ran");
            if !r.exhaustive || r.is_incomplete() {
                return Err(format!(
                    "{} under {}: the check was not exhaustive",
                    r.scenario, r.variant
                ));
            }
            row.push(r);
        }
        out.push(row);
    }
    Ok(out)
}

fn violations(results: &[ScenarioResult]) -> BTreeSet<Finding> {
    results
        .iter()
        .flat_map(|r| r.violations().map(|p| (r.scenario.clone(), p.def.name)))
        .collect()
}

/// The report, as Markdown.
pub fn generate(sources: &[Source], threads: usize) -> Result<String, String> {
    let mut variants = vec![Variant::SEED, Variant::proposed()];
    variants.extend(FIXES.iter().map(|f| Variant::proposed().with(f, false)));
    let mut all = check_all(sources, &variants, threads)?.into_iter();
    let runs = Runs {
        seed: all.next().expect("seed"),
        proposed: all.next().expect("proposed"),
        without: all.collect(),
    };
    let seed = violations(&runs.seed);
    let mut out = String::new();
    header(&mut out, sources, &runs, &seed);
    let mut explained = BTreeSet::new();
    for (i, fix) in FIXES.iter().enumerate() {
        let members = violations(&runs.without[i]);
        explained.extend(members.iter().cloned());
        section(
            &mut out,
            i + 1,
            fix,
            &members,
            &seed,
            &runs.without[i],
            sources,
        )?;
    }
    combined(&mut out, sources, &seed, &explained, threads)?;
    evidence(&mut out, &runs.proposed);
    Ok(out)
}

fn header(out: &mut String, sources: &[Source], runs: &Runs, seed: &BTreeSet<Finding>) {
    let scenarios: BTreeSet<&str> = seed.iter().map(|(s, _)| s.as_str()).collect();
    let properties: BTreeSet<&str> = seed.iter().map(|(_, p)| *p).collect();
    let _ = writeln!(
        out,
        "# Findings: defects of the WebMCP draft\n\n\
         Generated by `webmcp-check findings -o docs/findings.md`; do not edit by hand (a test fails\n\
         when this file is out of date). Step IDs refer to `spec/webmcp-algorithms.md` and link to\n\
         the published draft.\n\n\
         The standard suite ({} scenarios) checked exhaustively under `seed`, the draft as\n\
         written, violates {} properties in {} scenarios ({} violations). They come from {} root\n\
         causes, one per section below, each with the fix that removes it (`docs/variants.md` has\n\
         the full wording of every fix).\n\n\
         How a section is built: the violations of a defect are those of `proposed-FIX`, the\n\
         variant with every other fix applied and this one taken out, so the shortest\n\
         counterexample there (minimised) shows this defect alone. Violations also found under\n\
         `seed` are marked; the others are hidden under `seed` by an earlier failure of the same\n\
         path. The evidence at the end is the `proposed` variant: every fix applied, the whole\n\
         suite explored exhaustively, every property holding and every witness reached.\n",
        sources.len(),
        properties.len(),
        scenarios.len(),
        seed.len(),
        FIXES.len(),
    );
    let _ = writeln!(
        out,
        "| # | defect | fix | violations without the fix | of them under seed |\n|---:|---|---|---:|---:|"
    );
    for (i, fix) in FIXES.iter().enumerate() {
        let members = violations(&runs.without[i]);
        let in_seed = members.iter().filter(|m| seed.contains(m)).count();
        let _ = writeln!(
            out,
            "| {} | [{}](#{}) | `{}` | {} | {} |",
            i + 1,
            fix.title,
            anchor(i + 1, fix),
            fix.name,
            members.len(),
            in_seed
        );
    }
    out.push('\n');
}

/// GitHub's heading anchor for `## N. title`.
fn anchor(n: usize, fix: &Fix) -> String {
    let heading = format!("{n}. {}", fix.title);
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            'a'..='z' | '0'..='9' | '-' | '_' => Some(c),
            ' ' => Some('-'),
            _ => None,
        })
        .collect()
}

fn step_links(ids: &[&str]) -> String {
    ids.iter()
        .map(|id| format!("[`{id}`]({})", step_url(id)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn section(
    out: &mut String,
    n: usize,
    fix: &Fix,
    members: &BTreeSet<Finding>,
    seed: &BTreeSet<Finding>,
    results: &[ScenarioResult],
    sources: &[Source],
) -> Result<(), String> {
    let variant = Variant::proposed().with(fix, false);
    let _ = writeln!(out, "## {n}. {}\n", fix.title);
    let _ = writeln!(out, "**Steps:** {}\n", step_links(fix.steps));
    let _ = writeln!(out, "**Impact.** {}\n", fix.impact);
    let _ = writeln!(
        out,
        "**Proposed fix** (`{}`; wording in [docs/variants.md](variants.md)): {}\n",
        fix.name,
        capitalise(fix.summary)
    );
    let mut by_property: BTreeMap<&str, Vec<(&str, bool)>> = BTreeMap::new();
    for (scenario, property) in members {
        by_property
            .entry(property)
            .or_default()
            .push((scenario, seed.contains(&(scenario.clone(), property))));
    }
    let _ = writeln!(
        out,
        "**Properties violated without the fix** (`{}`):\n",
        variant.name()
    );
    let _ = writeln!(
        out,
        "| property | claim | scenarios (* also under seed) |\n|---|---|---|"
    );
    for (property, scenarios) in &by_property {
        let def = webmcp_properties::catalogue::catalogue()
            .into_iter()
            .find(|d| d.name == *property)
            .ok_or_else(|| format!("unknown property {property}"))?;
        let list: Vec<String> = scenarios
            .iter()
            .map(|(s, in_seed)| format!("{s}{}", if *in_seed { "*" } else { "" }))
            .collect();
        let _ = writeln!(
            out,
            "| `{property}` | {} | {} |",
            def.claim.replace('|', "\\|"),
            list.join(", ")
        );
    }
    out.push('\n');
    counterexample(out, fix, variant, results, sources)?;
    Ok(())
}

/// Steps as runs within one algorithm: `register-tool#1..#22, notify-tool-change#1`.
fn spans(steps: &[webmcp_model::steps::StepId]) -> String {
    let mut runs: Vec<(&str, &str, &str)> = Vec::new();
    for s in steps {
        let (alg, id) = (s.algorithm(), s.id());
        match runs.last_mut() {
            Some((a, _, last)) if *a == alg => *last = id,
            _ => runs.push((alg, id, id)),
        }
    }
    runs.iter()
        .map(|(alg, first, last)| {
            if first == last {
                first.to_string()
            } else {
                format!("{first}..{}", &last[alg.len()..])
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The shortest counterexample among a defect's violations, minimised, as a narrative and
/// a Mermaid diagram.
fn counterexample(
    out: &mut String,
    fix: &Fix,
    variant: Variant,
    results: &[ScenarioResult],
    sources: &[Source],
) -> Result<(), String> {
    let shortest = results
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r.violations().map(move |p| (i, p)))
        .filter_map(|(i, p)| p.path.as_ref().map(|path| (path.len(), i, p)))
        .min_by_key(|(len, i, p)| (*len, sources[*i].world.name.clone(), p.def.name));
    let Some((_, i, p)) = shortest else {
        let _ = writeln!(
            out,
            "No counterexample: taking `{}` out of `proposed` breaks nothing in the suite.\n",
            fix.name
        );
        return Ok(());
    };
    let src = &sources[i];
    let model = WebMcpModel::new(src.world.clone(), variant);
    let actions: Vec<_> = p
        .path
        .as_ref()
        .expect("filtered")
        .iter()
        .map(|t| t.action)
        .collect();
    let meta = Meta {
        scenario: src.world.name.clone(),
        scenario_json: src.text.clone(),
        source: src.source.clone(),
        variant: variant.name(),
        property: Some(p.def.name.to_string()),
        expect: Some(Expect::Violated),
        tool: TOOL.into(),
    };
    let trace = Trace::record(&model, meta, &actions)
        .map_err(|k| format!("internal: action {k} of a counterexample is not enabled"))?;
    let loaded = Loaded {
        trace,
        model: model.clone(),
        property: Some(p.def),
    };
    let min = minimize(&loaded)?;
    let path = replay_path(&model, min.trace.actions.clone());
    let _ = writeln!(
        out,
        "**Counterexample:** `{}` in scenario `{}`: {} actions after delta debugging (breadth-first\n\
         search found {}). Reproduce with\n\
         `webmcp-check check --scenario {} --variant {}`.\n",
        p.def.name,
        src.world.name,
        path.len(),
        actions.len(),
        src.world.name,
        variant.name()
    );
    let _ = writeln!(out, "```text");
    for (k, t) in path.iter().enumerate() {
        let w = &model.world;
        let _ = write!(
            out,
            "{:>3}. [{}] {}",
            k + 1,
            crate::actor(w, &t.action),
            crate::describe(w, &t.action)
        );
        if !t.steps.is_empty() {
            let _ = write!(out, "  ({})", spans(&t.steps));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "```\n");
    let min_loaded = Loaded {
        trace: min.trace,
        model,
        property: Some(p.def),
    };
    let _ = writeln!(
        out,
        "```mermaid\n{}```\n",
        explain(&min_loaded, Format::Mermaid)
    );
    Ok(())
}

/// Seed violations that no single fix explains: each of several fixes removes them. Lists
/// the pairs of fixes whose joint removal from `proposed` brings the violation back.
fn combined(
    out: &mut String,
    sources: &[Source],
    seed: &BTreeSet<Finding>,
    explained: &BTreeSet<Finding>,
    threads: usize,
) -> Result<(), String> {
    let rest: Vec<&Finding> = seed.difference(explained).collect();
    let _ = writeln!(out, "## Violations with more than one cause\n");
    if rest.is_empty() {
        let _ = writeln!(
            out,
            "None: every violation under `seed` comes back when a single fix is taken out of `proposed`.\n"
        );
        return Ok(());
    }
    let scenarios: BTreeSet<&str> = rest.iter().map(|(s, _)| s.as_str()).collect();
    let subset: Vec<Source> = sources
        .iter()
        .filter(|s| scenarios.contains(s.world.name.as_str()))
        .map(|s| Source {
            world: s.world.clone(),
            source: s.source.clone(),
            text: s.text.clone(),
        })
        .collect();
    let mut pairs = Vec::new();
    let mut variants = Vec::new();
    for (i, a) in FIXES.iter().enumerate() {
        for b in &FIXES[i + 1..] {
            pairs.push((a.name, b.name));
            variants.push(Variant::proposed().with(a, false).with(b, false));
        }
    }
    let results = check_all(&subset, &variants, threads)?;
    let _ = writeln!(
        out,
        "Each of these comes back only when two fixes are taken out together: either fix alone\n\
         removes it.\n\n| scenario | property | pairs of fixes |\n|---|---|---|"
    );
    for (scenario, property) in rest {
        let found: Vec<String> = results
            .iter()
            .zip(&pairs)
            .filter(|(rs, _)| {
                rs.iter().any(|r| {
                    &r.scenario == scenario && r.violations().any(|p| p.def.name == *property)
                })
            })
            .map(|(_, (a, b))| format!("`{a}` + `{b}`"))
            .collect();
        let _ = writeln!(
            out,
            "| {scenario} | `{property}` | {} |",
            if found.is_empty() {
                "(three or more)".to_string()
            } else {
                found.join(", ")
            }
        );
    }
    out.push('\n');
    Ok(())
}

fn evidence(out: &mut String, proposed: &[ScenarioResult]) {
    let states: usize = proposed.iter().map(|r| r.unique_states).sum();
    let violations = proposed
        .iter()
        .map(|r| r.violations().count())
        .sum::<usize>();
    let witnesses: BTreeSet<&str> = proposed
        .iter()
        .flat_map(|r| r.properties.iter())
        .filter(|p| p.def.kind == webmcp_properties::Kind::Sometimes)
        .map(|p| p.def.name)
        .collect();
    let unreached: Vec<&str> = witnesses
        .iter()
        .copied()
        .filter(|w| {
            !proposed.iter().any(|r| {
                r.properties
                    .iter()
                    .any(|p| p.def.name == *w && p.verdict == Verdict::Witnessed)
            })
        })
        .collect();
    let _ = writeln!(
        out,
        "## Evidence: the proposed variant on the whole suite\n\n\
         `webmcp-check check --all --variant proposed`: {} scenarios, {} unique states, every\n\
         scenario explored exhaustively (breadth-first, no bound); {} violated properties; {}.\n\n\
         A witness that a scenario cannot reach is normal (each scenario exercises a few); what\n\
         matters is that the suite as a whole reaches each one.\n\n\
         | scenario | unique states | total states | max depth | held | witnessed | witness not reachable here | violated |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|",
        proposed.len(),
        states,
        violations,
        if unreached.is_empty() {
            format!("all {} witnesses reached", witnesses.len())
        } else {
            format!("witnesses never reached: {}", unreached.join(", "))
        }
    );
    for r in proposed {
        let count = |v: Verdict| r.properties.iter().filter(|p| p.verdict == v).count();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.scenario,
            r.unique_states,
            r.total_states,
            r.max_depth,
            count(Verdict::Holds),
            count(Verdict::Witnessed),
            count(Verdict::NotWitnessed),
            count(Verdict::Violated)
        );
    }
}
