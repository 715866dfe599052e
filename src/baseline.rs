//! The known-findings baseline (`docs/known-findings.json`): violations a spec repository has
//! accepted for now, so CI fails only on new ones and reports listed ones that went away.

use serde::Deserialize;
use webmcp_properties::{ScenarioResult, Verdict};

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub scenario: String,
    pub property: String,
    pub variant: String,
    pub reason: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub version: u32,
    pub findings: Vec<Finding>,
}

impl Baseline {
    pub fn load(path: &std::path::Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let b: Baseline = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{}: line {}, column {}: not a known-findings file ({})",
                path.display(),
                e.line(),
                e.column(),
                first_clause(&e.to_string())
            )
        })?;
        if b.version != 1 {
            return Err(format!(
                "{}: unsupported version {} (expected 1)",
                path.display(),
                b.version
            ));
        }
        Ok(b)
    }

    pub fn lists(&self, scenario: &str, property: &str, variant: &str) -> Option<&Finding> {
        self.findings
            .iter()
            .find(|f| f.scenario == scenario && f.property == property && f.variant == variant)
    }
}

fn first_clause(msg: &str) -> &str {
    msg.split(" at line ").next().unwrap_or(msg)
}

/// How a run compares with a baseline.
#[derive(Debug, Default)]
pub struct Judgement {
    /// Violations the baseline does not list: (scenario, property).
    pub new: Vec<(String, String)>,
    /// Violations the baseline lists.
    pub known: Vec<(String, String)>,
    /// Listed findings of a checked scenario and variant that did not occur.
    pub stale: Vec<Finding>,
}

pub fn judge(results: &[ScenarioResult], baseline: Option<&Baseline>) -> Judgement {
    let mut j = Judgement::default();
    for r in results {
        for p in r.violations() {
            let key = (r.scenario.clone(), p.def.name.to_string());
            match baseline.and_then(|b| b.lists(&r.scenario, p.def.name, &r.variant)) {
                Some(_) => j.known.push(key),
                None => j.new.push(key),
            }
        }
    }
    if let Some(b) = baseline {
        for f in &b.findings {
            let checked = results
                .iter()
                .find(|r| r.scenario == f.scenario && r.variant == f.variant);
            if let Some(r) = checked {
                let still = r.properties.iter().any(|p| {
                    p.def.name == f.property
                        && matches!(p.verdict, Verdict::Violated | Verdict::Incomplete)
                });
                if !still {
                    j.stale.push(f.clone());
                }
            }
        }
    }
    j
}
