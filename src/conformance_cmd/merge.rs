//! `merge` of conformance shards: every shard's results, back in the canonical order (the
//! embedded scenarios with a browser form, in `list`'s order), rendered and judged as one
//! run. The results are read back into the command's own types and rendered by its own
//! renderers, so the merge of deterministic shards is the unsharded report byte for byte.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};
use webmcp_conformance::cli::{self, Format};
use webmcp_conformance::report::{self, Analyses};
use webmcp_conformance::run::ScenarioResult;

use crate::merge_cmd::{interleave, option, parse_shards, Loaded, MergeError, MergeFormat};
use crate::shard::{check_set, ShardRecord};

/// A shard of `conformance --shard I/N --format json` (or its `--save` file).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConformanceShard {
    shard_of: ShardRecord,
    /// The Chromium build's version line; empty when the shard ran nothing.
    browser: String,
    /// Each a [`ScenarioResult`] with its rendered verdict and analysis beside it.
    results: Vec<Map<String, Value>>,
    /// The shard's own scenarios without a form: none, for it divides those with one.
    #[allow(dead_code)]
    without_browser_form: BTreeMap<String, String>,
    /// Recounted from the results.
    #[allow(dead_code)]
    counts: BTreeMap<String, u64>,
}

/// One result of a shard, read back and checked against what this build renders for it:
/// the verdict's text and the analysis come from `conformance/analysis.json`, so a shard of
/// another build (other analyses) is refused rather than silently re-judged.
fn result(
    file: &str,
    mut v: Map<String, Value>,
    a: &Analyses,
) -> Result<ScenarioResult, MergeError> {
    let malformed = |why: String| MergeError::Malformed {
        file: file.to_string(),
        why,
    };
    let text = v.remove("verdict_text");
    let analysis = v.remove("analysis");
    let r: ScenarioResult = serde_json::from_value(Value::Object(v)).map_err(|e| {
        malformed(format!(
            "a result: {}",
            webmcp_traces::limits::one_line(&e.to_string(), 160)
        ))
    })?;
    let expected_analysis = a
        .get(&r)
        .map(|x| serde_json::json!({"category": x.category, "analysis": x.analysis}));
    if text.as_ref().and_then(Value::as_str) != Some(report::verdict(&r, a).as_str())
        || analysis != expected_analysis
    {
        return Err(MergeError::Analyses {
            file: file.to_string(),
        });
    }
    Ok(r)
}

pub fn merge(loaded: &[Loaded], format: MergeFormat) -> Result<(u8, String), MergeError> {
    let format = match format {
        MergeFormat::Json => Format::Json,
        MergeFormat::Junit => Format::Junit,
        MergeFormat::Markdown => Format::Markdown,
        MergeFormat::Github => {
            return Err(MergeError::Format {
                command: "conformance",
                formats: "json, junit or markdown",
            })
        }
    };
    let (shards, entries) = parse_shards(
        loaded,
        |s: &ConformanceShard| &s.shard_of,
        |s| s.results.len() as u64,
    )?;
    let mut shards: Vec<Option<ConformanceShard>> = shards.into_iter().map(Some).collect();
    let (ordered, items) = check_set(&entries)?;
    let first = &entries[0];
    // The whole run's items are this build's scenarios with a browser form, in order.
    let canonical: Vec<String> = super::with_browser_form()
        .map_err(|e| MergeError::Catalog(e.0))?
        .iter()
        .map(|(name, _)| name.to_string())
        .collect();
    if items != canonical {
        return Err(MergeError::Scenarios {
            file: first.0.clone(),
        });
    }
    let imp = option(&first.0, &first.1, "impl")?.to_string();
    let api = option(&first.0, &first.1, "api")?.to_string();
    let timings = option(&first.0, &first.1, "timings")? == "true";
    let analyses = Analyses::embedded();
    let mut browser: Option<(String, String)> = None;
    let mut parts = Vec::with_capacity(ordered.len());
    for i in ordered {
        let (file, record, _) = &entries[i];
        let s = shards[i].take().expect("each shard once");
        let names = record
            .items
            .as_ref()
            .ok_or(MergeError::Items { file: file.clone() })?;
        let results = s
            .results
            .into_iter()
            .map(|v| result(file, v, &analyses))
            .collect::<Result<Vec<_>, _>>()?;
        if results.len() != names.len() || results.iter().zip(names).any(|(r, n)| r.scenario != *n)
        {
            return Err(MergeError::Items { file: file.clone() });
        }
        for r in &results {
            let wrong = if r.implementation != imp {
                Some("--impl")
            } else if r.api_requested != api {
                Some("--api")
            } else if r.wall_ms.is_some() != timings {
                Some("--no-timings")
            } else {
                None
            };
            if let Some(option) = wrong {
                return Err(MergeError::Option {
                    file: file.clone(),
                    option,
                });
            }
            if r.browser != s.browser {
                return Err(MergeError::Malformed {
                    file: file.clone(),
                    why: "a result names another browser than the report".into(),
                });
            }
        }
        // A shard that ran nothing names no browser; the others name the same one.
        if !results.is_empty() {
            match &browser {
                None => browser = Some((file.clone(), s.browser.clone())),
                Some(b) if b.1 != s.browser => {
                    return Err(MergeError::Browser {
                        first: b.clone(),
                        other: (file.clone(), s.browser),
                    })
                }
                Some(_) => {}
            }
        }
        parts.push(results);
    }
    let results = interleave(parts);
    let (_, skipped) = webmcp_conformance::run::forms(crate::catalog::SCENARIOS)
        .map_err(|e| MergeError::Catalog(e.to_string()))?;
    let version = browser.map(|b| b.1).unwrap_or_default();
    let text = cli::render(format, &version, &results, &skipped, &analyses, None);
    Ok((cli::exit_code(&results, &analyses), text))
}
