//! Rendering check results for people (human) and programs (JSON).

use serde_json::json;
use webmcp_model::World;
use webmcp_properties::{Kind, ScenarioResult, Verdict};

fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
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
