//! The conformance table in human, JSON and Markdown form, with the analysis
//! of each divergence (`conformance/analysis.json`).

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::run::{ScenarioResult, VariantVerdict};

/// Why an implementation's observation is outside the allowed set.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Analysis {
    pub implementation: String,
    pub scenario: String,
    /// "implementation bug", "not implemented", "spec defect" or "model error".
    pub category: String,
    pub analysis: String,
}

pub struct Analyses(Vec<Analysis>);

impl Analyses {
    pub fn embedded() -> Analyses {
        Analyses(serde_json::from_str(include_str!("../analysis.json")).expect("analysis.json"))
    }
    pub fn get(&self, imp: &str, scenario: &str) -> Option<&Analysis> {
        self.0
            .iter()
            .find(|a| a.implementation == imp && a.scenario == scenario)
    }
}

fn mark(v: &VariantVerdict) -> &'static str {
    if v.allowed {
        "yes"
    } else {
        "no"
    }
}

fn verdict(r: &ScenarioResult, a: &Analyses) -> String {
    if r.timed_out {
        return "timed out".into();
    }
    if r.conforms() {
        return "conforms".into();
    }
    match a.get(&r.implementation, &r.scenario) {
        Some(x) => format!("diverges: {}", x.category),
        None => "diverges: UNEXPLAINED".into(),
    }
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
    let conform = results.iter().filter(|r| r.conforms()).count();
    let _ = writeln!(
        out,
        "\n{} scenarios, {conform} conform, {} diverge ({} unexplained), {} without a browser form",
        results.len(),
        results.len() - conform,
        results
            .iter()
            .filter(|r| !r.conforms() && a.get(&r.implementation, &r.scenario).is_none())
            .count(),
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
            v["verdict"] = json!(verdict(r, a));
            if let Some(x) = a.get(&r.implementation, &r.scenario) {
                v["analysis"] = json!({"category": x.category, "analysis": x.analysis});
            }
            v
        }).collect::<Vec<_>>(),
        "without_browser_form": skipped,
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
        "| scenario | implementation | observation | allowed by seed | allowed by proposed | verdict |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for r in results {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            r.scenario,
            r.implementation,
            cell(&observation_text(r)),
            mark(&r.seed),
            mark(&r.proposed),
            verdict(r, a)
        );
    }
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
                    .map_or("—".into(), |r| short(r, a))
            })
            .collect();
        let _ = writeln!(out, "| {name} | {} |", cells.join(" | "));
    }
    for run in runs {
        let Some(first) = run.first() else { continue };
        let conform = run.iter().filter(|r| r.conforms()).count();
        let _ = writeln!(
            out,
            "\n### {}: {} of {} observations allowed\n",
            first.implementation,
            conform,
            run.len()
        );
        let _ = writeln!(
            out,
            "| scenario | observation | allowed by seed | allowed by proposed | verdict |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|");
        for r in run {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                r.scenario,
                cell(&observation_text(r)),
                mark(&r.seed),
                mark(&r.proposed),
                verdict(r, a)
            );
        }
    }
    let _ = writeln!(out, "\n## Divergences\n");
    for run in runs {
        for r in run.iter().filter(|r| !r.conforms()) {
            let _ = writeln!(out, "### {} in {}\n", r.scenario, r.implementation);
            match a.get(&r.implementation, &r.scenario) {
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
    let _ = writeln!(out, "## Remarks on conforming rows\n");
    for run in runs {
        for r in run.iter().filter(|r| r.conforms()) {
            if let Some(x) = a.get(&r.implementation, &r.scenario) {
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
                "**{}** (API: {}):\n",
                first.implementation,
                first.api.join(", ")
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
