//! The JSON report of `mutants` (`--format json`), and `merge` of mutants shards: every
//! shard's fates, back in the canonical order, scored as one run.

use serde::Deserialize;
use serde_json::json;
use webmcp_model::mutation::Mutant;
use webmcp_profiles::limits::StopReason;
use webmcp_profiles::mutants::Fate;

use super::{MutantsArgs, Run, Selection};
use crate::merge_cmd::{interleave, option, parse_shards, Loaded, MergeError, MergeFormat};
use crate::report::{RecordError, MAX_TEXT_CHARS};
use crate::shard::{check_set, Shard, ShardRecord};

/// The shard record of a mutants report: the selection and the judging options.
pub fn shard_record(args: &MutantsArgs, shard: Shard, total: u64, run: &Run) -> ShardRecord {
    let text = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
    ShardRecord {
        command: "mutants".into(),
        index: shard.index,
        count: shard.count,
        options: [
            ("mutant", text(&args.mutant)),
            ("operator", text(&args.operator)),
            ("bound", args.bound.to_string()),
            ("min-score", args.min_score.to_string()),
            (
                "reduction",
                format!("{:?}", args.reduction.engine()).to_lowercase(),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect(),
        total,
        items: Some(run.fates.iter().map(|(m, _)| m.name()).collect()),
    }
}

fn fate_json(f: &Fate) -> serde_json::Value {
    match f {
        Fate::Killed { scenario, property } => {
            json!({"fate": "killed", "scenario": scenario, "property": property})
        }
        Fate::Crashed { scenario, message } => {
            json!({"fate": "crashed", "scenario": scenario, "message": message})
        }
        Fate::Exploded { scenario } => json!({"fate": "exploded", "scenario": scenario}),
        Fate::Stopped { scenario, stop } => {
            json!({"fate": "stopped", "scenario": scenario, "stop": stop.to_json()})
        }
        Fate::Equivalent => json!({"fate": "equivalent"}),
        Fate::Survived => json!({"fate": "survived"}),
    }
}

/// The JSON report: every mutant's fate and the score, and the selection the run took if it
/// did not take every mutant (`null` otherwise).
pub fn json(run: &Run, shard: Option<ShardRecord>) -> String {
    let (killed, counted, score) = run.score();
    let selection = match &run.selection {
        None => serde_json::Value::Null,
        Some(Selection::Mutant(m)) => json!({ "mutant": m }),
        Some(Selection::Operator(o)) => json!({ "operator": o }),
    };
    let mut doc = json!({
        "selection": selection,
        "bound": run.bound,
        "candidates": run.candidates,
        "min_score": run.min_score,
        "killed": killed,
        "counted": counted,
        "score": score,
        "mutants": run.fates.iter().map(|(m, f)| {
            let mut o = fate_json(f);
            o["mutant"] = json!(m.name());
            o
        }).collect::<Vec<_>>(),
    });
    if let Some(record) = shard {
        doc[crate::shard::KEY] = serde_json::to_value(record).expect("JSON");
    }
    serde_json::to_string_pretty(&doc).expect("JSON values serialize")
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MutantsShard {
    shard_of: ShardRecord,
    /// Taken from the shard record's options instead, which merge compares across shards.
    #[allow(dead_code)]
    selection: serde_json::Value,
    bound: usize,
    candidates: usize,
    min_score: f64,
    #[allow(dead_code)]
    killed: usize,
    #[allow(dead_code)]
    counted: usize,
    #[allow(dead_code)]
    score: f64,
    mutants: Vec<FateJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FateJson {
    mutant: String,
    fate: String,
    scenario: Option<String>,
    property: Option<String>,
    message: Option<String>,
    stop: Option<serde_json::Value>,
}

fn plain(file: &str, s: Option<String>, field: &'static str) -> Result<String, MergeError> {
    let bad = || MergeError::Record {
        file: file.to_string(),
        error: RecordError::BadText(field),
    };
    let s = s.ok_or_else(bad)?;
    if s.chars().count() > MAX_TEXT_CHARS || s.chars().any(char::is_control) {
        return Err(bad());
    }
    Ok(s)
}

/// A scenario a mutant was judged in: one of this build's standard scenarios, which are
/// the ones `mutants` runs.
fn scenario(file: &str, s: Option<String>) -> Result<String, MergeError> {
    let name = plain(file, s, "a scenario")?;
    if crate::catalog::text(&name).is_none() {
        return Err(MergeError::UnknownScenario {
            file: file.to_string(),
            name,
        });
    }
    Ok(name)
}

/// A property whose verdict a mutant changed: one of this build's catalogue.
fn property(file: &str, p: Option<String>) -> Result<String, MergeError> {
    let name = plain(file, p, "a property")?;
    crate::report::properties_named(&name).map_err(|error| MergeError::Record {
        file: file.to_string(),
        error,
    })?;
    Ok(name)
}

fn fate(file: &str, f: FateJson) -> Result<(Mutant, Fate), MergeError> {
    let mutant = Mutant::parse(&f.mutant).ok_or_else(|| MergeError::Malformed {
        file: file.to_string(),
        why: format!(
            "unknown mutant '{}'",
            webmcp_traces::limits::one_line(&f.mutant, 80)
        ),
    })?;
    let fate = match f.fate.as_str() {
        "killed" => Fate::Killed {
            scenario: scenario(file, f.scenario)?,
            property: property(file, f.property)?,
        },
        "crashed" => Fate::Crashed {
            scenario: scenario(file, f.scenario)?,
            // A panic message may span lines: kept as written, rendered escaped.
            message: f.message.filter(|m| m.len() <= 4 * MAX_TEXT_CHARS).ok_or(
                MergeError::Record {
                    file: file.to_string(),
                    error: RecordError::BadText("a crash message"),
                },
            )?,
        },
        "exploded" => Fate::Exploded {
            scenario: scenario(file, f.scenario)?,
        },
        "stopped" => Fate::Stopped {
            scenario: scenario(file, f.scenario)?,
            stop: f
                .stop
                .as_ref()
                .and_then(StopReason::from_json)
                .ok_or_else(|| MergeError::Record {
                    file: file.to_string(),
                    error: RecordError::UnknownStop("stop".into()),
                })?,
        },
        "equivalent" => Fate::Equivalent,
        "survived" => Fate::Survived,
        other => {
            return Err(MergeError::Malformed {
                file: file.to_string(),
                why: format!(
                    "unknown fate '{}'",
                    webmcp_traces::limits::one_line(other, 40)
                ),
            })
        }
    };
    Ok((mutant, fate))
}

pub fn merge(loaded: &[Loaded], format: MergeFormat) -> Result<(u8, String), MergeError> {
    if !matches!(format, MergeFormat::Json | MergeFormat::Markdown) {
        return Err(MergeError::Format {
            command: "mutants",
            formats: "json or markdown",
        });
    }
    let (shards, entries) = parse_shards(
        loaded,
        |s: &MutantsShard| &s.shard_of,
        |s| s.mutants.len() as u64,
    )?;
    let mut shards: Vec<Option<MutantsShard>> = shards.into_iter().map(Some).collect();
    let (ordered, _) = check_set(&entries)?;
    let first = &entries[0];
    let bound: usize =
        option(&first.0, &first.1, "bound")?
            .parse()
            .map_err(|_| MergeError::Option {
                file: first.0.clone(),
                option: "--bound",
            })?;
    let min_score: f64 = option(&first.0, &first.1, "min-score")?
        .parse()
        .map_err(|_| MergeError::Option {
            file: first.0.clone(),
            option: "--min-score",
        })?;
    let mut candidates = None;
    let mut parts = Vec::with_capacity(ordered.len());
    for i in ordered {
        let entry = &entries[i];
        let file = &entry.0;
        let s = shards[i].take().expect("each shard once");
        if s.bound != bound || s.min_score.to_string() != min_score.to_string() {
            return Err(MergeError::Option {
                file: file.clone(),
                option: "--bound or --min-score",
            });
        }
        if *candidates.get_or_insert(s.candidates) != s.candidates {
            return Err(MergeError::Malformed {
                file: file.clone(),
                why: "its mutation candidates differ from the other shards' (another version?)"
                    .into(),
            });
        }
        let items = entry
            .1
            .items
            .as_ref()
            .ok_or(MergeError::Items { file: file.clone() })?;
        let fates = s
            .mutants
            .into_iter()
            .map(|f| fate(file, f))
            .collect::<Result<Vec<_>, _>>()?;
        if fates.len() != items.len()
            || fates
                .iter()
                .zip(items)
                .any(|((m, _), name)| m.name() != *name)
        {
            return Err(MergeError::Items { file: file.clone() });
        }
        parts.push(fates);
    }
    let named = |key: &'static str| {
        option(&first.0, &first.1, key).map(|v| (v != "none").then(|| v.to_string()))
    };
    let selection = Selection::of(named("mutant")?.as_deref(), named("operator")?.as_deref());
    if selection.as_ref().is_some_and(|s| !s.is_this_builds()) {
        return Err(MergeError::Option {
            file: first.0.clone(),
            option: "--mutant or --operator",
        });
    }
    let run = Run {
        fates: interleave(parts),
        bound,
        min_score,
        candidates: candidates.unwrap_or(0),
        selection,
    };
    if run.fates.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err(MergeError::Malformed {
            file: first.0.clone(),
            why: "the shards' mutants are not in the canonical order".into(),
        });
    }
    let text = match format {
        MergeFormat::Markdown => run.markdown(),
        _ => format!("{}\n", json(&run, None)),
    };
    Ok((run.exit_code(false), text))
}
