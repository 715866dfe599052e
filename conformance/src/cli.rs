//! `webmcp-check conformance`: the command behind the CLI's thin wrapper.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::ConformanceError;
use crate::page::{Api, Impl};
use crate::report::{self, Analyses};
use crate::run::{forms, run, Config, ScenarioResult};
use crate::verdict::Verdict;
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ImplArg {
    Chromium,
    Polyfill,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
    Markdown,
    /// JUnit XML: one testcase per scenario and implementation.
    Junit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ApiArg {
    /// The draft's `document.modelContext`, and nothing else.
    Draft,
    /// Chromium's `navigator.modelContext` with the testing interface
    /// `navigator.modelContextTesting` (labelled in every verdict).
    Testing,
}

#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// Run one scenario (by name).
    #[arg(long, conflicts_with_all = ["all", "scenario_file"])]
    pub scenario: Option<String>,
    /// Run a scenario you wrote (docs/scenarios.md has the format).
    #[arg(long, value_name = "PATH", conflicts_with = "all")]
    pub scenario_file: Option<PathBuf>,
    /// Run every scenario that has a browser form (the default).
    #[arg(long)]
    pub all: bool,
    /// The Chromium binary [default: $WEBMCP_CHROMIUM, else $CHROMIUM, else /usr/bin/chromium].
    #[arg(long, value_name = "PATH")]
    pub chromium: Option<PathBuf>,
    /// Which implementation the pages exercise.
    #[arg(long = "impl", value_enum, default_value = "chromium")]
    pub imp: ImplArg,
    /// Which API the pages call. `testing` is Chromium's testing interface: its verdicts
    /// say so.
    #[arg(long, value_enum, default_value = "draft")]
    pub api: ApiArg,
    /// The polyfill's IIFE build (installed by `npm ci` in browser/js).
    #[arg(
        long,
        default_value = "browser/js/node_modules/webmcp-polyfill-5/dist/index.iife.js"
    )]
    pub polyfill: PathBuf,
    /// How to print the verdicts.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Seconds a page may take before it counts as timed out (1 to 600). A page that reports
    /// nothing at all is opened in a new browser, three in all, the last waited for twice as
    /// long: up to four times this before it is inconclusive.
    #[arg(long, value_name = "SECONDS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub page_timeout: u64,
    /// Write each browser form as a testharness.js test into DIR and exit (no browser); exit 3
    /// if the model's exploration of some scenario stopped at its bound (that test is not
    /// written).
    #[arg(long, value_name = "DIR")]
    pub emit_wpt: Option<PathBuf>,
    /// The variant the emitted tests assert: proposed (the draft with every fix of
    /// docs/variants.md), seed (the text as written), seed+FIX+... or proposed-FIX-...
    #[arg(long, value_name = "VARIANT", default_value = "proposed")]
    pub wpt_variant: String,
    /// Run both implementations and write the conformance document (docs/conformance.md).
    #[arg(long, value_name = "FILE")]
    pub write_docs: Option<PathBuf>,
    /// Also write the results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Leave out how long each page ran, so that the same observations give the same report
    /// byte for byte (for comparing runs, and merging shards).
    #[arg(long)]
    pub no_timings: bool,
    /// Run the WebMCP tests of a web-platform-tests checkout (DIR/webmcp/) instead, each with
    /// its trace recorded: testharness.js's result and the model's judgement of the trace.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["scenario", "scenario_file", "all", "emit_wpt", "write_docs", "save", "api", "wpt_variant"])]
    pub wpt_dir: Option<PathBuf>,
}

impl Args {
    fn config(&self, chromium: &Path, imp: Impl) -> Config {
        Config {
            chromium: chromium.to_path_buf(),
            imp,
            api: match self.api {
                ApiArg::Draft => Api::Draft,
                ApiArg::Testing => Api::Testing,
            },
            polyfill: Some(self.polyfill.clone()),
            page_timeout: Duration::from_secs(self.page_timeout),
        }
    }
}

/// Runs the command: Ok((exit code, what to print on standard output)) or Err(usage message,
/// exit 2). Progress goes to standard error as it happens.
///
/// Exit codes: 0 when every run conforms (or conforms only under seed), or diverges or is
/// not implemented as `conformance/analysis.json` explains; 1 when a run diverges without an
/// explanation; 3 when, short of that, a run is inconclusive (explained or not: nothing was
/// decided for it) or not implemented without an explanation.
///
/// `shard_of` is what the JSON reports (`--format json`, `--save`) record under
/// `shard_of` about the run's shard; it is the CLI's, and opaque here.
pub fn main(
    args: &Args,
    scenarios: &[(&str, &str)],
    shard_of: Option<Value>,
) -> Result<(u8, String), ConformanceError> {
    let file_text;
    let selected: Vec<(&str, &str)> = match (&args.scenario, &args.scenario_file) {
        (Some(name), _) => {
            let found = scenarios
                .iter()
                .find(|(n, _)| n == name)
                .ok_or_else(|| ConformanceError::UnknownScenario { name: name.clone() })?;
            vec![*found]
        }
        (None, Some(path)) => {
            let file = |source| ConformanceError::ScenarioFile {
                path: path.clone(),
                source,
            };
            let text = webmcp_model::scenario::read_file(path).map_err(file)?;
            let world = webmcp_model::World::from_json(&text).map_err(file)?;
            file_text = (world.name.clone(), text);
            vec![(file_text.0.as_str(), file_text.1.as_str())]
        }
        (None, None) => scenarios.to_vec(),
    };
    // A bad --wpt-variant is a usage error before any browser runs.
    let wpt_variant = webmcp_model::Variant::parse(&args.wpt_variant)?;
    let (forms, skipped) = forms(&selected)?;
    if args.scenario.is_some() || args.scenario_file.is_some() {
        if let Some((name, why)) = skipped.iter().next() {
            return Err(ConformanceError::NoBrowserForm {
                name: name.clone(),
                why: why.clone(),
            });
        }
    }
    if let Some(dir) = &args.emit_wpt {
        return emit_wpt(dir, &forms, wpt_variant, crate::judge::STATE_LIMIT);
    }
    // A file that cannot be written is said before the browser runs, not after.
    for path in [&args.save, &args.write_docs].into_iter().flatten() {
        writable(path)?;
    }
    let (version, results) =
        if forms.is_empty() && args.wpt_dir.is_none() && args.write_docs.is_none() {
            // Nothing to run (an empty shard): no browser starts, and the report names none.
            (String::new(), Vec::new())
        } else {
            let chromium = webmcp_browser::resolve_chromium(args.chromium.as_deref())?;
            if let Some(dir) = &args.wpt_dir {
                return wpt_dir(args, &chromium, dir);
            }
            if let Some(path) = &args.write_docs {
                return write_docs(args, &chromium, path, &forms, &skipped);
            }
            let version = webmcp_browser::Chromium::new(&chromium)
                .version()
                .unwrap_or_default();
            (version, run_forms(args, &chromium, &forms)?)
        };
    let analyses = Analyses::embedded();
    if let Some(path) = &args.save {
        let v = json_report(&version, &results, &skipped, &analyses, shard_of.clone());
        // Whole or not at all: a failed write leaves the report there before as it was.
        webmcp_traces::export::write_atomically(path, &serde_json::to_string_pretty(&v).unwrap())?;
    }
    let text = render(
        args.format,
        &version,
        &results,
        &skipped,
        &analyses,
        shard_of,
    );
    Ok((exit_code(&results, &analyses), text))
}

/// `--emit-wpt DIR`: exit 0 when every test is written, 3 when the model's bound kept some
/// from being written (each named, with why).
fn emit_wpt(
    dir: &Path,
    forms: &[crate::form::BrowserForm],
    variant: webmcp_model::Variant,
    limit: usize,
) -> Result<(u8, String), ConformanceError> {
    let emitted =
        crate::wpt::emit(dir, forms, variant, limit).map_err(|source| ConformanceError::Emit {
            dir: dir.to_path_buf(),
            source,
        })?;
    let mut text = format!("wrote {} tests to {}\n", emitted.tests, dir.display());
    for u in &emitted.unwritten {
        text.push_str(&format!("not written: {u}\n"));
    }
    if emitted.unwritten.is_empty() {
        Ok((0, text))
    } else {
        text.push_str("exit 3: incomplete; some tests were not written\n");
        Ok((3, text))
    }
}

/// Runs `forms` in the implementation `args` name, timed unless `--no-timings`.
fn run_forms(
    args: &Args,
    chromium: &Path,
    forms: &[crate::form::BrowserForm],
) -> Result<Vec<ScenarioResult>, ConformanceError> {
    let imp = match args.imp {
        ImplArg::Chromium => Impl::Chromium,
        ImplArg::Polyfill => Impl::Polyfill,
    };
    let config = args.config(chromium, imp);
    let human = args.format == Format::Human;
    let mut results = run(&config, forms, |r| {
        if human {
            note(format_args!("  {}", report::progress_line(r)));
        }
    })?;
    if args.no_timings {
        for r in &mut results {
            r.wall_ms = None;
        }
    }
    Ok(results)
}

/// The JSON report, with `shard_of` when the run is a shard.
pub fn json_report(
    version: &str,
    results: &[ScenarioResult],
    skipped: &BTreeMap<String, String>,
    analyses: &Analyses,
    shard_of: Option<Value>,
) -> Value {
    let mut v = report::json(version, results, skipped, analyses);
    if let Some(record) = shard_of {
        v["shard_of"] = record;
    }
    v
}

/// A run's report in `format` (`merge` renders a merged run with it too).
pub fn render(
    format: Format,
    version: &str,
    results: &[ScenarioResult],
    skipped: &BTreeMap<String, String>,
    analyses: &Analyses,
    shard_of: Option<Value>,
) -> String {
    match format {
        Format::Human => report::human(version, results, skipped, analyses),
        Format::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&json_report(
                version, results, skipped, analyses, shard_of
            ))
            .expect("JSON values serialize")
        ),
        Format::Markdown => report::markdown(version, results, skipped, analyses),
        Format::Junit => crate::junit::junit(results, analyses),
    }
}

fn write_docs(
    args: &Args,
    chromium: &Path,
    path: &Path,
    forms: &[crate::form::BrowserForm],
    skipped: &BTreeMap<String, String>,
) -> Result<(u8, String), ConformanceError> {
    // What the second half needs, before the first half's minutes in the browser.
    read_polyfill(&args.polyfill)?;
    testharness()?;
    let mut runs = Vec::new();
    for imp in [Impl::Chromium, Impl::Polyfill] {
        let config = args.config(chromium, imp);
        note(format_args!("{}:", imp.name()));
        runs.push(run(&config, forms, |r| {
            note(format_args!("  {}", report::progress_line(r)))
        })?);
    }
    let version = webmcp_browser::Chromium::new(chromium)
        .version()
        .unwrap_or_default();
    let analyses = Analyses::embedded();
    let mut text = report::docs(
        &version,
        &version_of(&args.polyfill),
        &runs,
        skipped,
        &analyses,
    );
    // The emitted web-platform tests, run with WPT's own testharness.js against the
    // polyfill, before the divergences.
    let wpt = wpt_section(args, chromium, forms)?;
    let at = text.find("\n## Divergences").unwrap_or(text.len());
    text.insert_str(at, &format!("\n{wpt}"));
    webmcp_traces::export::write_atomically(path, &text)?;
    let all: Vec<ScenarioResult> = runs.into_iter().flatten().collect();
    Ok((
        exit_code(&all, &analyses),
        format!("wrote {}\n", path.display()),
    ))
}

/// Whether a file could be written at `path`, as far as can be told without writing it: it is
/// not a directory, and its directory exists.
pub fn writable(path: &Path) -> Result<(), ConformanceError> {
    if path.is_dir() {
        return Err(ConformanceError::OutputIsDirectory {
            path: path.to_path_buf(),
        });
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(ConformanceError::NoOutputDirectory {
            path: path.to_path_buf(),
            parent: parent.to_path_buf(),
        });
    }
    // A directory that exists may still refuse a file (a read-only mount): the temporary
    // file the output is later written through is made, and removed, now, before the
    // browser runs rather than after.
    webmcp_traces::export::Output::create(path)?;
    Ok(())
}

/// The largest script a page loads from a file (the polyfill's IIFE build, testharness.js):
/// both are under 1 MiB; a device such as `/dev/zero` or a huge file is refused unread.
pub const MAX_SCRIPT_BYTES: u64 = 16 << 20;

/// A script file, at most [`MAX_SCRIPT_BYTES`] (only that many bytes and one more are read).
fn read_script(path: &Path, install: &'static str) -> Result<Vec<u8>, ConformanceError> {
    use webmcp_traces::limits::{read_limited, ReadError};
    read_limited(path, MAX_SCRIPT_BYTES).map_err(|e| match e {
        ReadError::Io(source) => ConformanceError::Script {
            path: path.to_path_buf(),
            install,
            source,
        },
        ReadError::TooLarge => ConformanceError::ScriptTooLarge {
            path: path.to_path_buf(),
            limit_mib: MAX_SCRIPT_BYTES >> 20,
        },
    })
}

/// WPT's testharness.js, as `npm ci` in browser/js installs it.
fn testharness() -> Result<String, ConformanceError> {
    let path = Path::new(crate::wpt::chromium::TESTHARNESS_PATH);
    let bytes = read_script(path, "run `npm ci` in browser/js")?;
    String::from_utf8(bytes).map_err(|_| ConformanceError::ScriptNotUtf8 {
        path: path.to_path_buf(),
    })
}

/// The polyfill's IIFE build.
pub fn read_polyfill(path: &Path) -> Result<Vec<u8>, ConformanceError> {
    read_script(path, "run `npm ci` in browser/js, or pass --polyfill")
}

/// The browser a page of `imp` runs in, and the polyfill to load into it: Chromium with its
/// own WebMCP, or without it and with the polyfill.
pub fn implementation(
    chromium: &Path,
    imp: ImplArg,
    polyfill: &Path,
) -> Result<(webmcp_browser::Chromium, Option<Vec<u8>>), ConformanceError> {
    let browser = webmcp_browser::Chromium::new(chromium);
    Ok(match imp {
        ImplArg::Chromium => (browser.with_flag("--enable-blink-features=WebMCP"), None),
        ImplArg::Polyfill => (browser, Some(read_polyfill(polyfill)?)),
    })
}

/// `--wpt-dir DIR`.
fn wpt_dir(args: &Args, chromium: &Path, dir: &Path) -> Result<(u8, String), ConformanceError> {
    let format = match args.format {
        Format::Human | Format::Json => None,
        Format::Junit => Some("junit"),
        Format::Markdown => Some("markdown"),
    };
    if let Some(format) = format {
        return Err(ConformanceError::WptDirFormat { format });
    }
    let harness = testharness()?;
    let (browser, polyfill) = implementation(chromium, args.imp, &args.polyfill)?;
    let results = crate::wpt_dir::run(
        dir,
        &browser,
        &harness,
        polyfill.as_deref(),
        Duration::from_secs(args.page_timeout),
        crate::trace::validate::DEFAULT_MAX_STATES,
    )?;
    let text = match args.format {
        Format::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&crate::wpt_dir::json(&results))
                .expect("JSON values serialize")
        ),
        _ => crate::wpt_dir::human(&results),
    };
    Ok((crate::wpt_dir::exit_code(&results), text))
}

/// The section of docs/conformance.md on the emitted tests in Chromium with the polyfill.
fn wpt_section(
    args: &Args,
    chromium: &Path,
    forms: &[crate::form::BrowserForm],
) -> Result<String, ConformanceError> {
    let harness = testharness()?;
    let iife = read_polyfill(&args.polyfill)?;
    let variant = webmcp_model::Variant::parse(&args.wpt_variant)?;
    note(format_args!("emitted web-platform tests, polyfill:"));
    let outcomes = crate::wpt::chromium::run(
        &webmcp_browser::Chromium::new(chromium),
        &harness,
        Some(&iife),
        forms,
        variant,
        Duration::from_secs(70),
    )?;
    let harness_version = version_of(Path::new(crate::wpt::chromium::TESTHARNESS_PATH));
    Ok(crate::wpt::chromium::docs_section(
        &format!("`@mcp-b/webmcp-polyfill@{}`", version_of(&args.polyfill)),
        &harness_version,
        variant,
        &outcomes,
    ))
}

/// The version of the npm package `file` belongs to (its nearest package.json).
fn version_of(file: &Path) -> String {
    crate::wpt::chromium::package_version(file).unwrap_or_else(|| "unknown".into())
}

/// The exit code of a set of runs (the policy is on [`main`]).
pub fn exit_code(results: &[ScenarioResult], analyses: &Analyses) -> u8 {
    let unexplained = |r: &&ScenarioResult| analyses.get(r).is_none();
    let diverges = results
        .iter()
        .filter(|r| r.verdict == Verdict::Diverges)
        .any(|r| unexplained(&r));
    let undecided = results.iter().any(|r| match r.verdict {
        Verdict::Inconclusive { .. } => true,
        Verdict::NotImplemented { .. } => unexplained(&r),
        _ => false,
    });
    if diverges {
        1
    } else if undecided {
        3
    } else {
        0
    }
}

/// One line on standard error; a closed or failing standard error is ignored (there is
/// nowhere left to report it), where `eprintln!` would panic.
fn note(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|_| err.write_all(b"\n"));
}

#[cfg(test)]
mod tests {
    use super::emit_wpt;

    /// `--emit-wpt` exits 0 only when it wrote every test; a test its bound kept it from
    /// writing is named, and the exit is 3 (it once wrote an impossible test and exited 0).
    #[test]
    fn emit_wpt_exits_3_when_a_test_is_not_written() {
        let path = format!(
            "{}/../scenarios/cross-origin-exposed.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(path).unwrap();
        let (forms, _) = crate::run::forms(&[("cross-origin-exposed", text.as_str())]).unwrap();
        let dir = std::env::temp_dir().join(format!("webmcp-emit-cli-{}", std::process::id()));
        let variant = webmcp_model::Variant::proposed();
        let (code, out) = emit_wpt(&dir, &forms, variant, 10).unwrap();
        assert_eq!(code, 3, "{out}");
        assert!(
            out.starts_with("wrote 0 tests to ")
                && out.contains("not written: cross-origin-exposed: the model's exploration")
                && out.ends_with("exit 3: incomplete; some tests were not written\n"),
            "{out}"
        );
        let (code, out) = emit_wpt(&dir, &forms, variant, crate::judge::STATE_LIMIT).unwrap();
        assert_eq!((code, out.lines().count()), (0, 1), "{out}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
