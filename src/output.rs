//! Rendering check results for people (human) and programs (JSON).

use serde_json::json;
use webmcp_model::World;
use webmcp_properties::{Kind, ScenarioResult, Verdict};

fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn human(world: &World, r: &ScenarioResult, verbose: bool, timings: bool) -> String {
    let mut out = format!(
        "{} [{}]: {} states generated, {} unique, max depth {}{}{}\n",
        r.scenario,
        r.variant,
        thousands(r.total_states),
        thousands(r.unique_states),
        r.max_depth,
        if timings {
            format!(", {:.2} s", r.seconds)
        } else {
            String::new()
        },
        if r.exhaustive {
            ""
        } else {
            ", INCOMPLETE (a bound stopped exploration)"
        },
    );
    let mut held = 0;
    for p in &r.properties {
        let show = verbose
            || matches!(
                p.verdict,
                Verdict::Violated | Verdict::Incomplete | Verdict::Witnessed
            );
        if !show {
            if p.verdict == Verdict::Holds {
                held += 1;
            }
            continue;
        }
        let label = match p.verdict {
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
            out.push_str(&format!(
                " (shortest counterexample: {} actions, ending at {last})",
                path.len()
            ));
        }
        out.push('\n');
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
        out.push_str(&format!(
            "  {held} properties hold; {unwitnessed} witnesses not reachable in this scenario\n"
        ));
    }
    out
}

pub fn json(results: &[ScenarioResult], timings: bool) -> String {
    let scenarios: Vec<_> = results
        .iter()
        .map(|r| {
            let properties: Vec<_> = r
                .properties
                .iter()
                .map(|p| {
                    json!({
                        "name": p.def.name,
                        "kind": match p.def.kind { Kind::Always => "always", Kind::AtTermination => "at-termination", Kind::Sometimes => "sometimes" },
                        "about": p.def.about,
                        "verdict": p.verdict.as_str(),
                        "counterexample": p.path.as_ref().filter(|_| p.verdict == Verdict::Violated).map(|path| path.iter().map(|s| json!({
                            "action": format!("{:?}", s.action),
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
                "properties": properties,
            });
            if timings {
                o["seconds"] = json!(r.seconds);
            }
            o
        })
        .collect();
    serde_json::to_string_pretty(&json!({ "scenarios": scenarios })).expect("JSON values serialize")
}

/// The step IDs of a counterexample's last action: where the property broke.
fn breaking_steps(p: &webmcp_properties::PropertyResult) -> String {
    p.path
        .as_ref()
        .and_then(|path| path.last())
        .map(|last| {
            let ids = webmcp_traces::step_list(&last.steps);
            if ids.is_empty() {
                "-".to_string()
            } else {
                ids
            }
        })
        .unwrap_or_default()
}

/// docs/results.md: per scenario, the state counts and every violated property with the
/// step IDs of its shortest counterexample.
pub fn markdown_report(worlds: &[World], results: &[ScenarioResult]) -> String {
    let variant = results
        .first()
        .map(|r| r.variant.as_str())
        .unwrap_or("seed");
    let mut out = format!(
        "# Results: every standard scenario under `{variant}`\n\n\
         Generated by `cargo run --release -- report -o docs/results.md`; do not edit by hand.\n\
         Each scenario is checked exhaustively with breadth-first search on one thread, so every\n\
         counterexample below is a shortest one. Times are wall-clock on the machine that ran it.\n\n\
         | scenario | states | unique | max depth | seconds | violated properties |\n|---|---:|---:|---:|---:|---|\n"
    );
    for r in results {
        let violated: Vec<_> = r
            .violations()
            .map(|p| format!("`{}`", p.def.name))
            .collect();
        out.push_str(&format!(
            "| [{}](#{}) | {} | {} | {} | {:.2} | {} |\n",
            r.scenario,
            r.scenario,
            r.total_states,
            r.unique_states,
            r.max_depth,
            r.seconds,
            if violated.is_empty() {
                "none".to_string()
            } else {
                violated.len().to_string()
            }
        ));
    }
    for (w, r) in worlds.iter().zip(results) {
        out.push_str(&format!("\n## {}\n\n{}\n\n", r.scenario, w.description));
        out.push_str(&format!(
            "{} states, {} unique, max depth {}, {}.\n\n",
            r.total_states,
            r.unique_states,
            r.max_depth,
            if r.exhaustive {
                "exhaustive"
            } else {
                "INCOMPLETE"
            }
        ));
        let mut any = false;
        for p in r.violations() {
            if !any {
                out.push_str("| violated property | actions | steps of the breaking action |\n|---|---:|---|\n");
                any = true;
            }
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                p.def.name,
                p.path.as_ref().map_or(0, |x| x.len()),
                breaking_steps(p)
            ));
        }
        if !any {
            out.push_str("Every property holds.\n");
        }
        let witnessed: Vec<_> = r
            .properties
            .iter()
            .filter(|p| p.verdict == Verdict::Witnessed)
            .map(|p| format!("`{}`", p.def.name))
            .collect();
        if !witnessed.is_empty() {
            out.push_str(&format!("\nWitnessed: {}.\n", witnessed.join(", ")));
        }
    }
    out
}
