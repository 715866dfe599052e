//! Writing the counterexamples and witnesses of a check as `.itf.json` files.

use std::path::{Path, PathBuf};

use webmcp_model::machine::WebMcpModel;
use webmcp_properties::{ScenarioResult, Verdict};

use crate::trace::{Expect, Meta, Trace, TOOL};

/// The default `--trace-dir` of `check`.
pub const DEFAULT_TRACE_DIR: &str = "target/webmcp-traces";

/// A file name made of the scenario, variant and property: `NAME.VARIANT.PROPERTY.itf.json`,
/// with every character outside `[A-Za-z0-9._-]` replaced by `_`.
pub fn file_name(scenario: &str, variant: &str, property: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!(
        "{}.{}.{}.itf.json",
        clean(scenario),
        clean(variant),
        clean(property)
    )
}

/// Writes `text` to `path` through a temporary file, so readers never see half a trace.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes one trace per violated or witnessed property of `result` into `dir`; returns the
/// files written. A path whose actions do not replay from the initial state is skipped with a
/// warning on standard error.
pub fn write_result(
    dir: &Path,
    model: &WebMcpModel,
    source: &str,
    scenario_json: &str,
    result: &ScenarioResult,
) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    for p in &result.properties {
        let expect = match p.verdict {
            Verdict::Violated => Expect::Violated,
            Verdict::Witnessed => Expect::Witnessed,
            _ => continue,
        };
        let Some(path) = &p.path else { continue };
        if written.is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let actions: Vec<_> = path.iter().map(|s| s.action).collect();
        let meta = Meta {
            scenario: result.scenario.clone(),
            scenario_json: scenario_json.to_string(),
            source: source.to_string(),
            variant: result.variant.clone(),
            property: Some(p.def.name.to_string()),
            expect: Some(expect),
            tool: TOOL.to_string(),
        };
        let Ok(trace) = Trace::record(model, meta, &actions) else {
            // A path that does not replay from the initial state (a checker that reports
            // paths between representatives of state classes) is not a trace: say so, and
            // keep checking.
            eprintln!(
                "webmcp-check: warning: the {} path of {} does not replay from the initial state; no trace written",
                p.def.name, result.scenario
            );
            continue;
        };
        let file = dir.join(file_name(&result.scenario, &result.variant, p.def.name));
        write_atomically(&file, &trace.to_json_text())?;
        written.push(file);
    }
    Ok(written)
}
