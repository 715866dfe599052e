//! `merge` of sweep shards: the shards' counts added, each property's smallest violating
//! scenario the smallest of the shards' (with its root cause and files), the largest search
//! the largest, the first stopped scenarios the first of all; then rendered as a sweep.
//! Times are added (the work of every shard); the peak memory is the largest shard's.

use serde::Deserialize;

use super::{Cause, Key, Named, PropertyTally, Sweep, STOPPED_SHOWN};
use crate::merge_cmd::{option, parse_shards, Loaded, MergeError, MergeFormat};
use crate::report::{kind_name, RecordError, MAX_TEXT_CHARS};
use crate::shard::{check_set, ShardRecord};
use webmcp_generator::{Bound, Counts};
use webmcp_model::Variant;
use webmcp_profiles::properties;
use webmcp_traces::limits::one_line;

/// A sweep shard's JSON report (what `json_report` writes).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepShard {
    shard_of: ShardRecord,
    bound: String,
    #[allow(dead_code)]
    preset: Option<String>,
    variant: String,
    #[allow(dead_code)]
    shard: Option<String>,
    raw: Option<u64>,
    canonical: Option<u64>,
    sample: Option<SampleJson>,
    selected: u64,
    checked: u64,
    incomplete: u64,
    not_started: u64,
    total_states: u64,
    unique_states: u64,
    largest: Option<ScenarioJson>,
    stopped: Vec<ScenarioJson>,
    violated_properties: u64,
    #[allow(dead_code)]
    exit: u8,
    properties: Vec<PropertyJson>,
    seconds: Option<f64>,
    cpu_seconds: Option<f64>,
    peak_rss_mib: Option<f64>,
}

#[derive(Deserialize, PartialEq, Eq, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct SampleJson {
    draws: u64,
    seed: u64,
}

/// The largest search or a stopped scenario.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioJson {
    scenario: String,
    index: u64,
    unique_states: Option<usize>,
    stopped_by: Option<String>,
    summary: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PropertyJson {
    name: String,
    kind: String,
    about: Vec<String>,
    violating: u64,
    witnessing: u64,
    smallest: Option<SmallestJson>,
    root_cause: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SmallestJson {
    scenario: String,
    index: u64,
    statements: usize,
    documents: usize,
    counterexample_length: usize,
    summary: String,
    scenario_file: Option<String>,
    trace_file: Option<String>,
    trace_not_written: Option<String>,
}

fn text(file: &str, s: String, field: &'static str) -> Result<String, MergeError> {
    if s.is_empty() || s.chars().count() > MAX_TEXT_CHARS || s.chars().any(char::is_control) {
        return Err(MergeError::Record {
            file: file.to_string(),
            error: RecordError::BadText(field),
        });
    }
    Ok(s)
}

fn named(file: &str, name: String, summary: String) -> Result<Named, MergeError> {
    Ok(Named {
        name: text(file, name, "a scenario name")?,
        summary: text(file, summary, "a summary")?,
        gen: None,
    })
}

fn malformed(file: &str, why: impl Into<String>) -> MergeError {
    MergeError::Malformed {
        file: file.to_string(),
        why: why.into(),
    }
}

fn cause(file: &str, v: serde_json::Value) -> Result<Cause, MergeError> {
    let fix_named = |name: &serde_json::Value| {
        webmcp_model::variant::FIXES
            .iter()
            .find(|f| Some(f.name) == name.as_str())
            .map(|f| f.name)
    };
    match &v {
        serde_json::Value::String(s) if s == "several" => Ok(Cause::Several),
        serde_json::Value::String(s) if s == "new" => Ok(Cause::New),
        serde_json::Value::Object(o) if o.len() == 1 => o
            .get("fixes")
            .and_then(|f| f.as_array())
            .filter(|f| !f.is_empty())
            .and_then(|f| f.iter().map(fix_named).collect::<Option<Vec<_>>>())
            .map(Cause::Fixes)
            .ok_or_else(|| malformed(file, "a root cause names an unknown fix")),
        _ => Err(malformed(file, "an unreadable root cause")),
    }
}

pub fn merge(loaded: &[Loaded], format: MergeFormat) -> Result<(u8, String), MergeError> {
    let (shards, entries) = parse_shards(loaded, |s: &SweepShard| &s.shard_of, |s| s.selected)?;
    let mut shards: Vec<Option<SweepShard>> = shards.into_iter().map(Some).collect();
    let (ordered, _) = check_set(&entries)?;
    let first = &entries[0];
    let timings = option(&first.0, &first.1, "timings")? == "true";
    let first_shard = shards[0].as_ref().expect("not taken yet");
    let bound =
        Bound::parse(&first_shard.bound).map_err(|_| malformed(&first.0, "an unreadable bound"))?;
    let variant = Variant::parse(&first_shard.variant)
        .map_err(|_| malformed(&first.0, "an unknown variant"))?
        .name();
    let defs = properties();
    let mut whole = Sweep {
        bound,
        variant,
        shard: None,
        sample: first_shard.sample.map(|s| (s.draws, s.seed)),
        counts: match (first_shard.raw, first_shard.canonical) {
            (Some(raw), Some(canonical)) => Some(Counts { raw, canonical }),
            _ => None,
        },
        selected: 0,
        whole: first.1.total,
        checked: 0,
        incomplete: 0,
        skipped: 0,
        total_states: 0,
        unique_states: 0,
        seconds: 0.0,
        tally: (0..defs.len()).map(|_| PropertyTally::default()).collect(),
        largest: None,
        stopped: Vec::new(),
        cpu_seconds: None,
        peak_rss_mib: None,
        options: Default::default(),
    };
    for i in ordered {
        let entry = &entries[i];
        let file = &entry.0;
        let s = shards[i].take().expect("each shard once");
        let same_space = Bound::parse(&s.bound).ok() == Some(whole.bound)
            && s.raw == whole.counts.map(|c| c.raw)
            && s.canonical == whole.counts.map(|c| c.canonical)
            && s.sample.map(|x| (x.draws, x.seed)) == whole.sample
            && Variant::parse(&s.variant).map(|v| v.name()).ok().as_deref()
                == Some(whole.variant.as_str());
        if !same_space {
            return Err(malformed(
                file,
                "its bound, variant, sample or space differs from its shard record's or the other shards'",
            ));
        }
        if timings != s.seconds.is_some() {
            return Err(MergeError::Option {
                file: file.clone(),
                option: "--no-timings",
            });
        }
        add_shard(&mut whole, s, file)?;
    }
    whole.selected = whole.whole;
    let text = match format {
        MergeFormat::Json => format!("{}\n", super::json_report(&whole, timings)),
        MergeFormat::Junit => super::junit(&whole, timings),
        MergeFormat::Markdown => super::markdown(&whole, timings),
        MergeFormat::Github => super::github(&whole),
    };
    Ok((whole.exit_code(), text))
}

/// The counts a sweep's report holds agree as the sweep that wrote it makes them agree
/// (`Sweep::add` in `sweep_cmd.rs`): every scenario the shard selected is either checked or
/// not started (the deadline passed first), a scenario not started is incomplete, every
/// checked scenario a bound stopped is among the first `STOPPED_SHOWN` it names, and a
/// property is violated or witnessed by checked scenarios only, its smallest violating
/// scenario named exactly when one violates it. A shard whose counts disagree would merge
/// into a verdict on scenarios nobody checked.
fn counts_add_up(s: &SweepShard, file: &str) -> Result<(), MergeError> {
    let wrong = |why: String| MergeError::Inconsistent {
        file: file.to_string(),
        why: format!("its counts do not add up: {why}"),
    };
    if s.checked.checked_add(s.not_started) != Some(s.selected) {
        return Err(wrong(format!(
            "{} checked and {} not started are not the {} scenario(s) it selected",
            s.checked, s.not_started, s.selected
        )));
    }
    if s.not_started > s.incomplete || s.incomplete > s.selected {
        return Err(wrong(format!(
            "{} incomplete is not between its {} not started and its {} selected",
            s.incomplete, s.not_started, s.selected
        )));
    }
    let stopped = s.incomplete - s.not_started;
    if s.stopped.len() as u64 != stopped.min(STOPPED_SHOWN as u64) {
        return Err(wrong(format!(
            "it names {} stopped scenario(s), but {} checked scenario(s) are incomplete",
            s.stopped.len(),
            stopped
        )));
    }
    for p in &s.properties {
        let name = one_line(&p.name, 80);
        if p.violating > s.checked || p.witnessing > s.checked {
            return Err(wrong(format!(
                "property '{name}' is violated in {} and witnessed in {} of {} checked scenario(s)",
                p.violating, p.witnessing, s.checked
            )));
        }
        if p.smallest.is_some() != (p.violating > 0) {
            return Err(wrong(format!(
                "property '{name}' is violated in {} scenario(s) but names {} smallest violating one",
                p.violating,
                if p.smallest.is_some() { "a" } else { "no" }
            )));
        }
    }
    let violated = s.properties.iter().filter(|p| p.violating > 0).count() as u64;
    if s.violated_properties != violated {
        return Err(wrong(format!(
            "violated_properties is {}, but {violated} of its properties are violated",
            s.violated_properties
        )));
    }
    Ok(())
}

/// Adds one shard's report to the whole sweep's.
fn add_shard(whole: &mut Sweep, s: SweepShard, file: &str) -> Result<(), MergeError> {
    let overflow = || malformed(file, "a count overflows");
    let add = |a: u64, b: u64| a.checked_add(b).ok_or_else(overflow);
    counts_add_up(&s, file)?;
    whole.checked = add(whole.checked, s.checked)?;
    whole.incomplete = add(whole.incomplete, s.incomplete)?;
    whole.skipped = add(whole.skipped, s.not_started)?;
    whole.total_states = add(whole.total_states, s.total_states)?;
    whole.unique_states = add(whole.unique_states, s.unique_states)?;
    let finite = |x: Option<f64>| x.filter(|v| v.is_finite() && *v >= 0.0);
    whole.seconds += finite(s.seconds).unwrap_or(0.0);
    if let Some(cpu) = finite(s.cpu_seconds) {
        whole.cpu_seconds = Some(whole.cpu_seconds.unwrap_or(0.0) + cpu);
    }
    if let Some(rss) = finite(s.peak_rss_mib) {
        whole.peak_rss_mib = Some(whole.peak_rss_mib.map_or(rss, |m| m.max(rss)));
    }
    if let Some(l) = s.largest {
        let unique = l
            .unique_states
            .ok_or_else(|| malformed(file, "the largest search has no unique_states"))?;
        let size = (unique, std::cmp::Reverse(l.index));
        if whole
            .largest
            .as_ref()
            .is_none_or(|(u, i, _)| size > (*u, std::cmp::Reverse(*i)))
        {
            whole.largest = Some((unique, l.index, named(file, l.scenario, l.summary)?));
        }
    }
    if s.stopped.len() > STOPPED_SHOWN {
        return Err(malformed(
            file,
            "more stopped scenarios than a report names",
        ));
    }
    for st in s.stopped {
        let by = text(
            file,
            st.stopped_by.unwrap_or_else(|| "a bound".into()),
            "a stop",
        )?;
        whole
            .stopped
            .push((st.index, named(file, st.scenario, st.summary)?, by));
    }
    whole.stopped.sort_by_key(|(i, _, _)| *i);
    whole.stopped.truncate(STOPPED_SHOWN);
    let defs = properties();
    if s.properties.len() != defs.len() {
        return Err(MergeError::Record {
            file: file.to_string(),
            error: RecordError::Inconsistent(format!(
                "{} properties judged where this build's catalogue has {} (a report of another version?)",
                s.properties.len(),
                defs.len()
            )),
        });
    }
    for ((p, def), t) in s.properties.into_iter().zip(defs).zip(&mut whole.tally) {
        if p.name != def.name || p.kind != kind_name(def.kind) || p.about != def.about {
            return Err(MergeError::Record {
                file: file.to_string(),
                error: RecordError::OtherCatalogue(p.name),
            });
        }
        t.violating = add(t.violating, p.violating)?;
        t.witnessing = add(t.witnessing, p.witnessing)?;
        if let Some(sm) = p.smallest {
            let key: Key = (
                sm.statements,
                sm.documents,
                sm.counterexample_length,
                sm.index,
            );
            if t.smallest.as_ref().is_none_or(|(k, _)| key < *k) {
                t.files = match (sm.scenario_file, sm.trace_file, sm.trace_not_written) {
                    (Some(a), Some(b), None) => Some((
                        text(file, a, "a scenario file")?,
                        Ok(text(file, b, "a trace file")?),
                    )),
                    (Some(a), None, Some(why)) => Some((
                        text(file, a, "a scenario file")?,
                        Err(text(file, why, "why a trace was not written")?),
                    )),
                    _ => None,
                };
                t.cause = p.root_cause.map(|c| cause(file, c)).transpose()?;
                t.smallest = Some((key, named(file, sm.scenario, sm.summary)?));
            }
        }
    }
    Ok(())
}
