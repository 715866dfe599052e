//! `webmcp-check merge`: the JSON reports of the shards of one run (`--shard I/N`) joined
//! into the report of the whole run, rendered by the command's own renderers. The reports
//! are untrusted input: each is read up to a size bound, parsed into typed records, and
//! every name is checked against this build's scenarios, properties and steps.

use std::path::PathBuf;
use std::process::ExitCode;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use webmcp_traces::limits::{one_line, read_limited, size_text, ReadError};

use crate::report::{RecordError, ScenarioJson, ScenarioRecord};
use crate::shard::{check_set, SetError, ShardEntry, ShardRecord};
use crate::{baseline, output, UsageError};
use webmcp_profiles::properties;

pub const EXIT: &str = "\
Exit codes: those of the merged command on the whole run (check: 0 every property held, 1 a
property was violated (with --baseline: one the baseline does not list), 3 incomplete; sweep
likewise; mutants: 1 the score is below --min-score, 3 a mutant is undecided; conformance: 1 an
unexplained divergence, 3 a run inconclusive or not implemented without an explanation); 2 the
files are not every shard of one run, each once (a shard missing or given twice, one file
named twice, shards of different N, commands, engines or options, items that do not add up,
check shards that are not this build's check --all), or a file is unreadable, malformed or
larger than 32 MiB, or the files are larger than 64 MiB in all (one line on stderr).";

/// The largest shard report merge reads (32 MiB; `check --all --format json` writes 1.4 MB).
/// Only `limit + 1` bytes are read, so `/dev/zero` or a pipe is refused too.
pub const MAX_REPORT_BYTES: u64 = 32 * 1024 * 1024;

/// The most bytes merge reads over all its files (64 MiB): each file is held, then parsed,
/// until the set is judged, so the limit of one file alone would let memory grow with the
/// number of files given.
pub const MAX_MERGE_BYTES: u64 = 64 * 1024 * 1024;

#[derive(clap::Args)]
pub struct MergeArgs {
    /// The shards' reports, written with `--shard I/N --format json`: every shard once, in
    /// any order.
    #[arg(value_name = "SHARD.json", required = true, num_args = 1..)]
    files: Vec<PathBuf>,
    /// How to print the whole run's report (mutants: json or markdown; conformance: json,
    /// junit or markdown).
    #[arg(long, value_enum, default_value_t = MergeFormat::Json)]
    format: MergeFormat,
    /// The known-findings file the check shards were run with (--baseline); merge judges the
    /// whole run against it and refuses shards judged against another.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write the report here instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MergeFormat {
    Json,
    Junit,
    Markdown,
    Github,
}

/// Why the files cannot be merged (exit 2).
#[derive(Debug)]
pub enum MergeError {
    Read {
        file: String,
        error: String,
    },
    TooLarge {
        file: String,
    },
    /// The files together are larger than [`MAX_MERGE_BYTES`]; `file` is the one that
    /// crossed it.
    TooLargeInAll {
        file: String,
    },
    /// One file named twice (by two paths, or a link to it).
    SameFile {
        first: String,
        other: String,
    },
    Malformed {
        file: String,
        why: String,
    },
    NotAShard {
        file: String,
    },
    UnknownCommand {
        file: String,
        command: String,
    },
    Set(SetError),
    Record {
        file: String,
        error: RecordError,
    },
    /// A sweep shard whose enumeration a bound stopped: how many scenarios the sweep has is
    /// unknown, so no set of shards is a whole. Not bad input: exit 1 when the shard found a
    /// violation, else 3.
    Unfinished {
        file: String,
        stopped_by: String,
        violated: bool,
    },
    /// The file's results are not the items its shard record names.
    Items {
        file: String,
    },
    UnknownScenario {
        file: String,
        name: String,
    },
    Option {
        file: String,
        option: &'static str,
    },
    Baseline(String),
    Format {
        command: &'static str,
        formats: &'static str,
    },
    /// Shards that ran in different browser builds: (file, its browser) each.
    Browser {
        first: (String, String),
        other: (String, String),
    },
    /// A shard's verdict texts or analyses are not what this build's analyses give.
    Analyses {
        file: String,
    },
    /// The shards' scenarios are not this build's scenarios with a browser form.
    Scenarios {
        file: String,
    },
    /// This build's embedded scenarios cannot be read (a defect of the build).
    Catalog(String),
    /// A scenario of a check shard that cannot be read back: its name and why.
    Scenario {
        file: String,
        scenario: String,
        error: RecordError,
    },
    /// A shard whose own contents contradict one another (results it does not hold, a
    /// property judged twice or not at all, counts that do not add up): why, in a sentence.
    Inconsistent {
        file: String,
        why: String,
    },
    /// Check shards that are not, together, this build's `check --all`: why, in a clause.
    NotTheSuite {
        why: String,
    },
}

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MergeError::Read { file, error } => write!(f, "{file}: cannot read: {error}"),
            MergeError::TooLarge { file } => write!(
                f,
                "{file}: larger than {}, the limit for a shard report; not read",
                size_text(MAX_REPORT_BYTES)
            ),
            MergeError::TooLargeInAll { file } => write!(
                f,
                "{file}: with the files before it, more than {} of shard reports, the limit for one merge; not read",
                size_text(MAX_MERGE_BYTES)
            ),
            MergeError::SameFile { first, other } => write!(
                f,
                "{other} is the same file as {first}: give each shard once"
            ),
            MergeError::Malformed { file, why } => {
                write!(f, "{file}: not a shard report ({why})")
            }
            MergeError::NotAShard { file } => write!(
                f,
                "{file}: not a shard report (no \"{}\"): run the command with --shard I/N --format json",
                crate::shard::KEY
            ),
            MergeError::UnknownCommand { file, command } => write!(
                f,
                "{file}: a report of '{}', which merge does not join (check, sweep, mutants, conformance)",
                one_line(command, 40)
            ),
            MergeError::Set(e) => write!(f, "{e}"),
            MergeError::Record { file, error } => write!(f, "{file}: {error}"),
            MergeError::Unfinished {
                file, stopped_by, ..
            } => write!(
                f,
                "{file}: {} stopped this shard's enumeration, so how many scenarios the sweep has is unknown and no set of shards is the whole sweep; each shard's own report stands",
                one_line(stopped_by, 80)
            ),
            MergeError::Items { file } => write!(
                f,
                "{file}: its results are not the items its shard record names"
            ),
            MergeError::UnknownScenario { file, name } => write!(
                f,
                "{file}: '{}' is not an embedded scenario of this build",
                one_line(name, 80)
            ),
            MergeError::Option { file, option } => write!(
                f,
                "{file}: its shard record lacks or garbles the option {option}"
            ),
            MergeError::Baseline(why) => write!(f, "{why}"),
            MergeError::Format { command, formats } => write!(
                f,
                "a merged {command} report renders as --format {formats} only"
            ),
            MergeError::Browser { first, other } => write!(
                f,
                "{} ran in '{}' but {} in '{}': merge the shards of one run",
                other.0,
                one_line(&other.1, 80),
                first.0,
                one_line(&first.1, 80)
            ),
            MergeError::Analyses { file } => write!(
                f,
                "{file}: its verdicts are not explained as this build's conformance/analysis.json explains them: a shard of another version"
            ),
            MergeError::Scenarios { file } => write!(
                f,
                "{file} and the other shards hold other scenarios than this build's with a browser form: shards of another version"
            ),
            MergeError::Catalog(why) => write!(f, "{why}"),
            MergeError::Scenario {
                file,
                scenario,
                error,
            } => write!(f, "{file}: scenario '{}': {error}", one_line(scenario, 80)),
            MergeError::Inconsistent { file, why } => write!(f, "{file}: {why}"),
            MergeError::NotTheSuite { why } => write!(
                f,
                "the shards are not this build's `check --all`: {why} (merge the shards of one run, with the build that ran them)"
            ),
        }
    }
}

impl From<SetError> for MergeError {
    fn from(e: SetError) -> MergeError {
        MergeError::Set(e)
    }
}

/// A shard report: its file name and text.
pub struct Loaded {
    pub file: String,
    pub text: String,
}

/// What merge reads first from every report: which command wrote it, as which shard.
#[derive(Deserialize)]
struct Envelope {
    shard_of: Option<ShardRecord>,
}

pub fn merge(args: &MergeArgs) -> Result<ExitCode, UsageError> {
    if let Some(out) = args.output.as_deref() {
        let out_id = file_id(out);
        if let Some(shard) = args
            .files
            .iter()
            .find(|f| out_id.is_some() && file_id(f) == out_id)
        {
            return Err(UsageError(format!(
                "-o {}: that is the shard {} itself; write the merged report to another file",
                out.display(),
                shard.display()
            )));
        }
    }
    let output = crate::output_file(args.output.as_deref())?;
    let (code, text) = match merge_files(args) {
        Err(e @ MergeError::Unfinished { violated, .. }) => {
            errln!("webmcp-check: {}", crate::one_line(&e.to_string()));
            return Ok(ExitCode::from(if violated { 1 } else { 3 }));
        }
        other => other.map_err(|e| UsageError(e.to_string()))?,
    };
    crate::write_output(output, &text)?;
    Ok(ExitCode::from(code))
}

fn merge_files(args: &MergeArgs) -> Result<(u8, String), MergeError> {
    same_files(&args.files)?;
    let mut budget = MAX_MERGE_BYTES;
    let mut loaded = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let l = load(path, budget)?;
        budget -= l.text.len() as u64;
        loaded.push(l);
    }
    let mut command: Option<(String, String)> = None;
    for l in &loaded {
        unfinished(l)?;
        let envelope: Envelope = parse(l)?;
        let record = envelope.shard_of.ok_or_else(|| MergeError::NotAShard {
            file: l.file.clone(),
        })?;
        match &command {
            None => command = Some((l.file.clone(), record.command)),
            Some(first) if first.1 != record.command => {
                return Err(SetError::Commands {
                    first: first.clone(),
                    other: (l.file.clone(), record.command),
                }
                .into())
            }
            Some(_) => {}
        }
    }
    match command.as_ref().map(|(_, c)| c.as_str()) {
        Some("check") => merge_check(&loaded, args),
        Some("sweep") => crate::sweep_cmd::merge(&loaded, args.format),
        Some("mutants") => crate::mutants_cmd::merge(&loaded, args.format),
        Some("conformance") => crate::conformance_cmd::merge(&loaded, args.format),
        Some(other) => Err(MergeError::UnknownCommand {
            file: loaded[0].file.clone(),
            command: other.to_string(),
        }),
        None => Err(SetError::Empty.into()),
    }
}

/// Refuses a sweep shard whose enumeration a bound stopped (its JSON says by what, and has
/// no total): it cannot be part of a whole.
fn unfinished(l: &Loaded) -> Result<(), MergeError> {
    #[derive(Deserialize)]
    struct Stopped {
        enumeration_stopped_by: Option<String>,
        violated_properties: Option<u64>,
    }
    match serde_json::from_str::<Stopped>(&l.text) {
        Ok(Stopped {
            enumeration_stopped_by: Some(stopped_by),
            violated_properties,
        }) => Err(MergeError::Unfinished {
            file: l.file.clone(),
            stopped_by,
            violated: violated_properties.is_some_and(|n| n > 0),
        }),
        _ => Ok(()),
    }
}

/// An existing file's identity (device and inode): two paths or a link to one file share it.
fn file_id(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Refuses a file named twice before any is read (the shard records would say so too, but
/// only once every file was read and parsed).
fn same_files(paths: &[PathBuf]) -> Result<(), MergeError> {
    let mut seen: std::collections::HashMap<(u64, u64), &PathBuf> = Default::default();
    for path in paths {
        // A file that cannot be read is named as such when it is read.
        let Some(id) = file_id(path) else {
            continue;
        };
        if let Some(first) = seen.insert(id, path) {
            return Err(MergeError::SameFile {
                first: first.display().to_string(),
                other: path.display().to_string(),
            });
        }
    }
    Ok(())
}

/// Reads one shard report, of at most [`MAX_REPORT_BYTES`] and at most `budget` bytes (what
/// is left of [`MAX_MERGE_BYTES`]).
fn load(path: &std::path::Path, budget: u64) -> Result<Loaded, MergeError> {
    let file = path.display().to_string();
    let bytes = read_limited(path, MAX_REPORT_BYTES.min(budget)).map_err(|e| match e {
        ReadError::Io(e) => MergeError::Read {
            file: file.clone(),
            error: e.to_string(),
        },
        ReadError::TooLarge if budget < MAX_REPORT_BYTES => {
            MergeError::TooLargeInAll { file: file.clone() }
        }
        ReadError::TooLarge => MergeError::TooLarge { file: file.clone() },
    })?;
    let text = String::from_utf8(bytes).map_err(|_| MergeError::Malformed {
        file: file.clone(),
        why: "not UTF-8 text".into(),
    })?;
    // A key given twice would be read as its last value: refused before anything reads it.
    webmcp_model::strict::json_value(&text).map_err(|e| malformed(&file, &e))?;
    Ok(Loaded { file, text })
}

/// Every shard file read as a `T`, with what `check_set` needs of each: its file, its shard
/// record, and how many items it reports.
pub fn parse_shards<T: DeserializeOwned>(
    loaded: &[Loaded],
    record: impl Fn(&T) -> &ShardRecord,
    items: impl Fn(&T) -> u64,
) -> Result<(Vec<T>, Vec<ShardEntry>), MergeError> {
    let mut shards = Vec::with_capacity(loaded.len());
    let mut entries = Vec::with_capacity(loaded.len());
    for l in loaded {
        let shard: T = parse(l)?;
        entries.push((l.file.clone(), record(&shard).clone(), items(&shard)));
        shards.push(shard);
    }
    Ok((shards, entries))
}

/// Parses a report into `T`; an error names the line and column in one short line.
pub fn parse<T: DeserializeOwned>(l: &Loaded) -> Result<T, MergeError> {
    serde_json::from_str(&l.text).map_err(|e| malformed(&l.file, &e))
}

fn malformed(file: &str, e: &serde_json::Error) -> MergeError {
    MergeError::Malformed {
        file: file.to_string(),
        why: format!(
            "line {}, column {}: {}",
            e.line(),
            e.column(),
            one_line(e.to_string().split(" at line ").next().unwrap_or(""), 160)
        ),
    }
}

/// An option a shard record must carry.
pub fn option<'a>(
    file: &str,
    record: &'a ShardRecord,
    name: &'static str,
) -> Result<&'a str, MergeError> {
    record
        .options
        .get(name)
        .map(String::as_str)
        .ok_or_else(|| MergeError::Option {
            file: file.to_string(),
            option: name,
        })
}

/// A shard of `check --all --format json`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckShard {
    shard_of: ShardRecord,
    scenarios: Vec<ScenarioJson>,
    baseline: Option<serde_json::Value>,
}

fn merge_check(loaded: &[Loaded], args: &MergeArgs) -> Result<(u8, String), MergeError> {
    let (mut shards, entries) = parse_shards(
        loaded,
        |s: &CheckShard| &s.shard_of,
        |s| s.scenarios.len() as u64,
    )?;
    // Each file's results against its own record first, so that a result left out is named
    // as such (the set's sizes are checked next, on consistent counts).
    for ((file, record, _), shard) in entries.iter().zip(&shards) {
        results_match_record(file, record, &shard.scenarios)?;
    }
    let (order, whole) = check_set(&entries)?;
    is_the_suite(&whole)?;
    let first = &entries[0];
    let timings = option(&first.0, &first.1, "timings")? == "true";
    let with_baseline = option(&first.0, &first.1, "baseline")? == "true";
    let variant = option(&first.0, &first.1, "variant")?.to_string();
    let known = match (&args.baseline, with_baseline) {
        (Some(path), true) => Some(
            baseline::Baseline::load(path).map_err(|e| MergeError::Baseline(e.to_string()))?,
        ),
        (None, false) => None,
        (Some(_), false) => {
            return Err(MergeError::Baseline(
                "--baseline: the shards were run without a baseline, so they cannot be judged against one"
                    .into(),
            ))
        }
        (None, true) => {
            return Err(MergeError::Baseline(
                "the shards were run with --baseline: give merge the same file with --baseline FILE"
                    .into(),
            ))
        }
    };
    // Per shard, in shard order: its records, checked against its shard record.
    let mut parts: Vec<Vec<ScenarioRecord>> = Vec::with_capacity(order.len());
    for &i in &order {
        let (file, record, _) = &entries[i];
        let shard = &mut shards[i];
        let items = record
            .items
            .as_ref()
            .ok_or(MergeError::Items { file: file.clone() })?;
        let scenarios = std::mem::take(&mut shard.scenarios);
        if scenarios.len() != items.len()
            || scenarios
                .iter()
                .zip(items)
                .any(|(s, name)| s.name() != name)
        {
            return Err(MergeError::Items { file: file.clone() });
        }
        if scenarios.iter().any(|s| s.seconds().is_some() != timings) {
            return Err(MergeError::Option {
                file: file.clone(),
                option: "--no-timings",
            });
        }
        let mut records = Vec::with_capacity(scenarios.len());
        for s in scenarios {
            if crate::catalog::text(s.name()).is_none() {
                return Err(MergeError::UnknownScenario {
                    file: file.clone(),
                    name: s.name().to_string(),
                });
            }
            let scenario = s.name().to_string();
            let r = s.into_record().map_err(|error| MergeError::Scenario {
                file: file.clone(),
                scenario: scenario.clone(),
                error,
            })?;
            judges_the_catalogue(file, &r)?;
            if r.variant != variant {
                return Err(MergeError::Option {
                    file: file.clone(),
                    option: "--variant",
                });
            }
            records.push(r);
        }
        // The shard's own judgement must be the one this baseline gives its results.
        let judged = known
            .as_ref()
            .map(|b| output::baseline_json(&baseline::judge(&records, Some(b))));
        if judged != shard.baseline {
            return Err(MergeError::Baseline(format!(
                "{file}: its baseline judgement differs from --baseline's: the shards were judged against another file"
            )));
        }
        parts.push(records);
    }
    let results = interleave(parts);
    let judgement = baseline::judge(&results, known.as_ref());
    let text = match args.format {
        MergeFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&output::json(
                &results,
                timings,
                with_baseline.then_some(&judgement)
            ))
            .expect("JSON")
        ),
        MergeFormat::Junit => output::junit(&results, timings, known.as_ref()),
        MergeFormat::Markdown => {
            output::markdown_summary(&results, &judgement, with_baseline, timings)
        }
        MergeFormat::Github => {
            let sources: Vec<String> = results
                .iter()
                .map(|r| format!("scenarios/{}.json", r.scenario))
                .collect();
            let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
            output::github(&sources, &results, &judgement)
        }
    };
    Ok((
        output::Outcome::of(&results, &judgement, false).exit_code(),
        text,
    ))
}

/// Check shards split the embedded scenarios of `--all` (nothing else can be sharded): the
/// whole run's scenarios, in order, are this build's, all of them. Shards whose records
/// agree with one another but name fewer (an edited total), others, or none would merge
/// into a pass of scenarios that were never checked.
fn is_the_suite(whole: &[String]) -> Result<(), MergeError> {
    let suite: Vec<String> = crate::catalog::all()
        .map_err(|e| MergeError::NotTheSuite { why: e.to_string() })?
        .into_iter()
        .map(|w| w.name)
        .collect();
    let why = if whole.len() != suite.len() {
        format!(
            "they hold {} scenario(s) in all, and it has {}",
            whole.len(),
            suite.len()
        )
    } else if let Some((at, (theirs, ours))) = whole
        .iter()
        .zip(&suite)
        .enumerate()
        .find(|(_, (a, b))| a != b)
    {
        format!(
            "scenario {} of the whole run is '{}', where it has '{ours}'",
            at + 1,
            one_line(theirs, 80)
        )
    } else {
        return Ok(());
    };
    Err(MergeError::NotTheSuite { why })
}

/// A check shard's results are for the scenarios its shard record names, one each, in its
/// order; when the counts differ, the sentence names a scenario left out or added.
fn results_match_record(
    file: &str,
    record: &ShardRecord,
    scenarios: &[ScenarioJson],
) -> Result<(), MergeError> {
    let items = record.items.as_ref().ok_or(MergeError::Items {
        file: file.to_string(),
    })?;
    if scenarios.len() == items.len() {
        return Ok(());
    }
    let holds = |name: &str| scenarios.iter().any(|s| s.name() == name);
    let detail = if let Some(left_out) = items.iter().find(|name| !holds(name)) {
        format!(": scenario '{}' has no result", one_line(left_out, 80))
    } else if let Some(added) = scenarios
        .iter()
        .find(|s| !items.iter().any(|name| name == s.name()))
    {
        format!(
            ": scenario '{}' is not one of them",
            one_line(added.name(), 80)
        )
    } else if let Some((_, twice)) = scenarios
        .iter()
        .enumerate()
        .find(|(i, s)| scenarios[..*i].iter().any(|t| t.name() == s.name()))
    {
        format!(
            ": scenario '{}' has two results",
            one_line(twice.name(), 80)
        )
    } else {
        String::new()
    };
    Err(MergeError::Inconsistent {
        file: file.to_string(),
        why: format!(
            "holds results for {} scenario(s), but its shard record names {}{detail}",
            scenarios.len(),
            items.len()
        ),
    })
}

/// A check judges every property of the catalogue in every scenario, once each, in the
/// catalogue's order (`webmcp_profiles::driver` builds each result from the whole
/// catalogue, whatever the variant, revision, mode or bound): a scenario judged on fewer
/// properties would merge into a pass that nothing decided.
fn judges_the_catalogue(file: &str, r: &ScenarioRecord) -> Result<(), MergeError> {
    let defs = properties();
    let wrong = |why: String| MergeError::Inconsistent {
        file: file.to_string(),
        why: format!("scenario '{}' {why}", one_line(&r.scenario, 80)),
    };
    for (i, p) in r.properties.iter().enumerate() {
        if r.properties[..i].iter().any(|q| q.def.name == p.def.name) {
            return Err(wrong(format!("names property '{}' twice", p.def.name)));
        }
    }
    // Every name is the catalogue's (`into_record` checked) and none twice, so the same
    // count is the same set.
    if let Some(missing) = defs
        .iter()
        .find(|d| !r.properties.iter().any(|p| p.def.name == d.name))
    {
        return Err(wrong(format!(
            "judges {} of the catalogue's {} properties: '{}' has no verdict",
            r.properties.len(),
            defs.len(),
            missing.name
        )));
    }
    if let Some((p, d)) = r
        .properties
        .iter()
        .zip(defs)
        .find(|(p, d)| p.def.name != d.name)
    {
        return Err(wrong(format!(
            "lists property '{}' where the catalogue has '{}': not the order a check writes",
            p.def.name, d.name
        )));
    }
    Ok(())
}

/// The shards' items (each shard's in canonical order, the shards in I order) back in the
/// whole run's canonical order: position p is the (p / N)-th item of shard p mod N + 1.
pub fn interleave<T>(parts: Vec<Vec<T>>) -> Vec<T> {
    let count = parts.len();
    let total = parts.iter().map(Vec::len).sum();
    let mut iters: Vec<_> = parts.into_iter().map(Vec::into_iter).collect();
    (0..total)
        .filter_map(|position| iters[position % count].next())
        .collect()
}
