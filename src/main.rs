//! `webmcp-check`: model-check the WebMCP draft over named scenarios.

#![recursion_limit = "512"]

#[macro_use]
mod stdout;

mod alloc;
mod baseline;
mod bench_cmd;
mod catalog;
mod conformance_cmd;
mod distributed;
mod exit_codes;
mod explore_cmd;
mod findings_cmd;
mod legacy_cmd;
mod merge_cmd;
mod mutants_cmd;
mod output;
mod progress;
mod report;
mod shard;
mod spec_sync_cmd;
mod sweep_cmd;
mod sweep_scale;

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::limits::{self, MAX_THREADS};
use webmcp_profiles::{check, check_with_progress, CheckOptions, Mode, ScenarioResult};

#[derive(Parser)]
#[command(name = "webmcp-check", version, about = "Model-check the W3C WebMCP draft", long_about = None, after_help = exit_codes::TOP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the embedded scenarios, one per line: name, then summary.
    #[command(after_help = exit_codes::LIST)]
    List(ListArgs),
    /// Explore every interleaving of scenarios and judge every property.
    #[command(after_help = exit_codes::CHECK)]
    Check(CheckArgs),
    /// Check every embedded scenario and write the results as Markdown (docs/results.md).
    #[command(after_help = exit_codes::WRITE)]
    Report(ReportArgs),
    /// Which spec steps the scenario suite executes, and which it never reaches and why.
    #[command(after_help = exit_codes::COVERAGE)]
    Coverage(CoverageArgs),
    /// Measure the checker: states, time, states/s and memory per scenario (medians), or the
    /// scaling series (--scaling).
    #[command(after_help = exit_codes::BENCH)]
    Bench(bench_cmd::BenchArgs),
    /// Measure one run in this process (used by bench; prints JSON).
    #[command(hide = true, name = "bench-child")]
    BenchChild(bench_cmd::BenchChildArgs),
    /// Re-execute an ITF trace (.itf.json) and check it reproduces every state and its verdict.
    #[command(after_help = exit_codes::REPLAY)]
    Replay(ReplayArgs),
    /// Shrink an ITF trace to a shortest one that still shows the same verdict.
    #[command(after_help = exit_codes::MINIMIZE)]
    Minimize(MinimizeArgs),
    /// Tell an ITF trace as a numbered story citing the draft's steps.
    #[command(after_help = exit_codes::REPLAY)]
    Explain(ExplainArgs),
    /// Run the scenarios' browser forms in headless Chromium (or the polyfill) and judge
    /// what the pages observe against the model, under seed and proposed.
    #[command(after_help = exit_codes::CONFORMANCE)]
    Conformance(conformance_cmd::ConformanceArgs),
    /// Serve a directory of pages on two loopback origins with a recorder in every HTML
    /// document, open one page in headless Chromium and write what the pages did with the
    /// WebMCP API as a log (docs/trace-validation.md).
    #[command(after_help = exit_codes::RECORD)]
    Record(webmcp_conformance::record::Args),
    /// Regenerate traces/corpus/: one minimised trace per finding of the seed variant.
    #[command(after_help = exit_codes::WRITE)]
    Corpus(CorpusArgs),
    /// Write the findings report for spec editors (docs/findings.md): one section per defect.
    #[command(after_help = exit_codes::WRITE)]
    Findings(findings_cmd::DocArgs),
    /// Write the property catalogue for readers (docs/properties.md): each property's claim,
    /// steps, witness and where the draft violates it; and the failures a page can tell apart.
    #[command(after_help = exit_codes::WRITE)]
    Properties(findings_cmd::DocArgs),
    /// Plant one bug at a time in the proposed model and report which property catches it.
    #[command(after_help = exit_codes::MUTANTS)]
    Mutants(mutants_cmd::MutantsArgs),
    /// Judge a recorded run (a log, docs/trace-validation.md) against the model: allowed under
    /// seed, under proposed, or not, and where the model can follow it no further.
    #[command(after_help = exit_codes::VALIDATE)]
    Validate(webmcp_conformance::trace::cli::Args),
    /// Run the legacy scenarios against @mcp-b/webmcp-polyfill 2.3.2 in headless Chromium and
    /// judge each observation by the legacy model.
    #[command(after_help = exit_codes::LEGACY_CONFORMANCE)]
    LegacyConformance(webmcp_conformance::legacy::LegacyConformanceArgs),
    /// Generate every scenario within a bound (or a seeded sample) and check each one: per
    /// property, how many violate it and the smallest that does.
    #[command(after_help = sweep_cmd::EXIT)]
    Sweep(sweep_cmd::SweepArgs),
    /// Compare a revision of the draft's source (index.bs) with the step IDs the model cites:
    /// steps added, removed, renumbered, changed or split, and what cites each
    /// (docs/spec-sync.md).
    #[command(after_help = spec_sync_cmd::EXIT)]
    SpecSync(spec_sync_cmd::SpecSyncArgs),
    /// Join the JSON reports of the shards of one `check --all`, `sweep`, `mutants` or
    /// `conformance` run (`--shard I/N`) into the report of the whole run (docs/ci.md).
    #[command(after_help = merge_cmd::EXIT)]
    Merge(merge_cmd::MergeArgs),
    /// Serve a local page (127.0.0.1 only) to step through any interleaving of a scenario,
    /// choosing each action beside the spec text of its steps (docs/explorer.md).
    #[command(after_help = exit_codes::EXPLORE)]
    Explore(explore_cmd::ExploreArgs),
}

impl Command {
    /// Whether the command runs scenarios in a browser (Chromium, `browser/`).
    fn starts_a_browser(&self) -> bool {
        matches!(
            self,
            Command::Conformance(_) | Command::Record(_) | Command::LegacyConformance(_)
        )
    }
}

/// Which text is modelled: the current draft, or the legacy proposal (docs/legacy.md).
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Profile {
    Draft,
    Legacy,
}

#[derive(clap::Args)]
struct ListArgs {
    /// List the draft's scenarios, or the legacy proposal's.
    #[arg(long, value_enum, default_value_t = Profile::Draft)]
    profile: Profile,
}

#[derive(clap::Args)]
struct ReplayArgs {
    /// The trace file (.itf.json).
    #[arg(value_name = "FILE")]
    file: std::path::PathBuf,
}

#[derive(clap::Args)]
struct MinimizeArgs {
    /// The trace file (.itf.json).
    #[arg(value_name = "FILE")]
    file: std::path::PathBuf,
    /// Where to write the minimised trace.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: std::path::PathBuf,
}

#[derive(clap::Args)]
struct ExplainArgs {
    /// The trace file (.itf.json).
    #[arg(value_name = "FILE")]
    file: std::path::PathBuf,
    /// How to tell the story: plain text, Markdown, a Mermaid sequence diagram, or an HTML page.
    #[arg(long, value_enum, default_value_t = ExplainFormat::Text)]
    format: ExplainFormat,
    /// Write the story here instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExplainFormat {
    Text,
    Markdown,
    Mermaid,
    Html,
}

#[derive(clap::Args)]
struct CorpusArgs {
    /// The corpus directory.
    #[arg(long, value_name = "DIR", default_value = "traces/corpus")]
    dir: std::path::PathBuf,
    #[command(flatten)]
    memory: MemoryLimitArg,
}

/// `--memory-limit`, on every command that explores state spaces.
#[derive(clap::Args)]
pub(crate) struct MemoryLimitArg {
    /// Stop exploring when this process's resident memory exceeds MIB mebibytes (exit 3,
    /// the stop named in the output). The default is half of this machine's memory
    /// (MemTotal of /proc/meminfo, or the control group's limit if smaller; 4096 where
    /// neither can be read): memory is read every 50 ms, and half leaves room for a hash
    /// table doubling between two reads and for the rest of the machine.
    #[arg(long = "memory-limit", value_name = "MIB", default_value_t = limits::default_memory_limit_mib())]
    pub(crate) memory_limit: u64,
}

impl MemoryLimitArg {
    /// Checks the limit and makes it the limit of every exploration in this process
    /// (including those that run inside other crates: findings, corpus).
    pub(crate) fn apply(&self) -> Result<(), UsageError> {
        if self.memory_limit == 0 {
            return Err(UsageError("--memory-limit must be at least 1 (MiB)".into()));
        }
        limits::set_process_memory_limit(Some(self.memory_limit));
        Ok(())
    }

    /// The exit of a command whose checks ran elsewhere and failed with `error`: 3 with the
    /// bound named when the memory limit stopped one of them, else a usage error.
    pub(crate) fn failed(&self, error: String) -> Result<ExitCode, UsageError> {
        if limits::memory_limit_stops() == 0 {
            return Err(UsageError(error));
        }
        errln!(
            "webmcp-check: {error} (stopped by --memory-limit {} MiB)",
            self.memory_limit
        );
        Ok(ExitCode::from(3))
    }
}

/// Checks a `--threads` value: at least 1, at most [`MAX_THREADS`].
pub(crate) fn threads_arg(n: usize) -> Result<usize, UsageError> {
    if (1..=MAX_THREADS).contains(&n) {
        Ok(n)
    } else {
        Err(UsageError(format!(
            "--threads must be between 1 and {MAX_THREADS}, not {n}"
        )))
    }
}

#[derive(clap::Args)]
struct CoverageArgs {
    /// Cover the whole standard suite (the default when no --scenario is given).
    #[arg(long, conflicts_with = "scenarios")]
    all: bool,
    /// Restrict to these embedded scenarios (repeatable).
    #[arg(long = "scenario", value_name = "NAME")]
    scenarios: Vec<String>,
    /// The spec variant: seed (the text as written), proposed, or seed+FIX+...
    #[arg(long, value_name = "VARIANT", default_value = "seed")]
    variant: String,
    /// How to print the coverage.
    #[arg(long, value_enum, default_value_t = CoverageFormat::Human)]
    format: CoverageFormat,
    #[command(flatten)]
    memory: MemoryLimitArg,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CoverageFormat {
    Human,
    Json,
    Markdown,
}

#[derive(clap::Args)]
struct ReportArgs {
    /// The spec variant: seed (the text as written), proposed, or seed+FIX+...
    #[arg(long, value_name = "VARIANT", default_value = "seed")]
    variant: String,
    /// Write the report here instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<std::path::PathBuf>,
    #[command(flatten)]
    memory: MemoryLimitArg,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The draft (default) or the legacy proposal; legacy supports --format human|json,
    /// --mode bfs, --reduction, --max-states, --max-depth, --timeout and --memory-limit, and
    /// its variants are chosen[+ALTERNATIVE...].
    #[arg(long, value_enum, default_value_t = Profile::Draft)]
    profile: Profile,
    /// An embedded scenario to check (repeatable; `webmcp-check list` names them).
    #[arg(long = "scenario", value_name = "NAME", conflicts_with = "all")]
    scenarios: Vec<String>,
    /// Check every embedded scenario.
    #[arg(long)]
    all: bool,
    /// With --all: check only shard I of N, the scenarios at positions I-1, I-1+N, ... of
    /// `list`'s order. `merge` joins the shards' JSON reports (docs/ci.md).
    #[arg(long, value_name = "I/N")]
    shard: Option<shard::Shard>,
    /// A scenario file to check (repeatable).
    #[arg(long = "scenario-file", value_name = "PATH")]
    files: Vec<std::path::PathBuf>,
    /// The spec variant: seed (the text as written), proposed, seed+FIX+... or proposed-FIX-...
    /// (docs/variants.md) [default: seed; legacy: chosen]
    #[arg(long, value_name = "VARIANT")]
    variant: Option<String>,
    /// The published text of the draft the variant's fixes apply to: current (the default,
    /// spec/webmcp-algorithms.md) or an earlier revision (docs/revisions.md), e.g. pr247.
    /// The same as appending @REVISION to --variant.
    #[arg(long, value_name = "REVISION")]
    revision: Option<String>,
    /// How to explore: bfs (exhaustive, shortest counterexamples unless --reduction por),
    /// dfs (exhaustive), sim (random walks; never exhaustive).
    #[arg(long, value_enum, default_value_t = ModeArg::Bfs)]
    mode: ModeArg,
    /// The seed of --mode sim (the same seed gives the same walks) [default: 0].
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// How many random walks --mode sim takes per scenario (1 to 10^9) [default: 1000].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    runs: Option<u64>,
    /// Checker threads, 1 to 256 (bfs keeps counterexamples shortest on any number). More
    /// threads than cores only add contention, each reserves a stack, and thousands exhaust
    /// the process's thread limit; 256 is above any machine's core count.
    #[arg(long, value_name = "N", default_value_t = 1)]
    threads: usize,
    /// Stop expanding states once this many have been generated (the verdict is then
    /// incomplete, exit 3, unless nothing was left to expand). The bound is checked before each
    /// expansion, so the count may pass it by one state's successors; the searches on several
    /// threads count each worker's states in batches, so they may generate a few thousand more.
    #[arg(long, value_name = "N")]
    max_states: Option<usize>,
    /// Do not expand states at this depth; the initial state is depth 1 (the verdict is then
    /// incomplete, exit 3).
    #[arg(long, value_name = "N")]
    max_depth: Option<usize>,
    /// Stop each scenario after this many seconds (the verdict is then incomplete, exit 3).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<u64>,
    #[command(flatten)]
    memory: MemoryLimitArg,
    /// How to print the report: for people, or for programs and CI.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// A known-findings file: listed violations do not fail the run; unlisted ones do.
    #[arg(long, value_name = "FILE")]
    baseline: Option<std::path::PathBuf>,
    /// No progress display on stderr.
    #[arg(long, short)]
    quiet: bool,
    /// Show every property, not only violations and witnesses, and each counterexample step
    /// by step (human output; the JSON report always holds every property and counterexample).
    #[arg(long)]
    verbose: bool,
    /// Leave wall-clock times out of the output (for byte-identical comparisons).
    #[arg(long)]
    no_timings: bool,
    /// Symmetry reduction: explore one state per class of states that differ only by
    /// swapping interchangeable tabs (identical configuration) or, in a scenario without
    /// them, interchangeable executeTool calls of one script once it has made them all
    /// (docs/model.md §7). Breadth-first on one thread or several. Verdicts and path lengths
    /// do not change.
    #[arg(long)]
    symmetry: bool,
    /// Partial-order reduction: `por` explores an in-parallel step alone where it provably
    /// commutes with everything else that can still happen (docs/model.md §7; the legacy
    /// profile: an action alone, docs/legacy.md); `sleep`
    /// visits every state but builds no successor that the other side of a diamond of
    /// commuting actions reaches (sleep sets, one-thread bfs only); `none` explores every
    /// interleaving. Verdicts do not change; paths may get longer under `por`, so under
    /// --max-depth a counterexample may fall past the bound (undecided: exit 3).
    #[arg(long, value_enum, default_value = "none")]
    reduction: ReductionArg,
    /// Forget dead facts: judge a state where it is generated, then keep it without the
    /// facts recorded for the properties that nothing after it can tell are there (most
    /// record that a property failed), so that states differing only in them are one
    /// (docs/model.md §7, "Dead facts"). Breadth-first only. Verdicts and path lengths do
    /// not change; fewer states are stored and generated, and the deepest stored state may
    /// be shallower.
    #[arg(long)]
    forget_facts: bool,
    /// Time the search by phase (taking states from the frontier, listing actions, judging
    /// properties, building successors, fingerprinting them, the visited set, dropping
    /// states) and print where its time went after each scenario: the one-thread search
    /// only (--threads 1, --mode bfs or dfs, without --reduction sleep, --shard or
    /// --no-timings). Reading the clock costs a little at each phase; the report subtracts
    /// it and gives the timed run's whole time. Verdicts and counts do not change.
    #[arg(long)]
    phases: bool,
    /// After each exhaustive search, explore the scenario again for every property's
    /// witness (docs/properties.md) and name the properties that hold vacuously: what they
    /// judge never happens in the scenario (a script never runs, a tool is never executed).
    /// It costs a second exploration, bounded by --timeout; verdicts and the exit code do not
    /// change. Human and JSON output; not with --shard or --engine timely.
    #[arg(long)]
    vacuity: bool,
    /// How breadth-first search keeps the states it has yet to expand: `values`
    /// (fastest), `bytes` (about half the memory of a large search, about a third more time),
    /// or `auto`: values until the process's memory passes a quarter of --memory-limit, then
    /// bytes. Nothing else changes: states, counts, verdicts and paths are the same.
    #[arg(long, value_enum, default_value = "auto")]
    frontier: FrontierArg,
    /// Write every counterexample and witness here as an ITF trace (.itf.json) [default:
    /// target/webmcp-traces].
    #[arg(long, value_name = "DIR")]
    trace_dir: Option<std::path::PathBuf>,
    #[command(flatten)]
    distributed: distributed::EngineArgs,
}

impl CheckArgs {
    /// Where traces go: --trace-dir, else [`webmcp_traces::export::DEFAULT_TRACE_DIR`].
    fn trace_dir(&self) -> &std::path::Path {
        self.trace_dir.as_deref().unwrap_or(std::path::Path::new(
            webmcp_traces::export::DEFAULT_TRACE_DIR,
        ))
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Junit,
    Markdown,
    Github,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReductionArg {
    None,
    Por,
    Sleep,
}

impl ReductionArg {
    /// Its name on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ReductionArg::None => "none",
            ReductionArg::Por => "por",
            ReductionArg::Sleep => "sleep",
        }
    }

    pub(crate) fn engine(self) -> webmcp_profiles::Reduction {
        match self {
            ReductionArg::None => webmcp_profiles::Reduction::None,
            ReductionArg::Por => webmcp_profiles::Reduction::Por,
            ReductionArg::Sleep => webmcp_profiles::Reduction::Sleep,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FrontierArg {
    Auto,
    Values,
    Bytes,
}

impl FrontierArg {
    pub(crate) fn engine(self) -> webmcp_profiles::FrontierStorage {
        match self {
            FrontierArg::Auto => webmcp_profiles::FrontierStorage::Auto,
            FrontierArg::Values => webmcp_profiles::FrontierStorage::Values,
            FrontierArg::Bytes => webmcp_profiles::FrontierStorage::Bytes,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ModeArg {
    Bfs,
    Dfs,
    Sim,
}

/// Random walks per scenario of `--mode sim` when `--runs` is not given.
const DEFAULT_SIM_RUNS: u64 = 1000;

/// Two scenarios of one run with one name: traces, reports and baselines tell scenarios
/// apart by name, so the second would overwrite the first's traces and share its rows.
pub(crate) fn one_name_twice(name: &str, first: &str, second: &std::path::Path) -> UsageError {
    UsageError(format!(
        "{}: its scenario is named \"{}\", as {first}'s is: one run checks one scenario of each name (traces and reports are named after it); rename one",
        second.display(),
        name.escape_debug()
    ))
}

/// An error that ends the run with exit code 2 and one line on stderr.
pub(crate) struct UsageError(pub(crate) String);

impl From<catalog::CatalogError> for UsageError {
    fn from(e: catalog::CatalogError) -> Self {
        UsageError(e.to_string())
    }
}

impl From<webmcp_model::variant::VariantError> for UsageError {
    fn from(e: webmcp_model::variant::VariantError) -> UsageError {
        UsageError(e.to_string())
    }
}

impl From<webmcp_traces::error::TraceError> for UsageError {
    fn from(e: webmcp_traces::error::TraceError) -> UsageError {
        UsageError(e.to_string())
    }
}

impl From<webmcp_traces::minimize::MinimizeError> for UsageError {
    fn from(e: webmcp_traces::minimize::MinimizeError) -> UsageError {
        UsageError(e.to_string())
    }
}

impl From<webmcp_conformance::error::ConformanceError> for UsageError {
    fn from(e: webmcp_conformance::error::ConformanceError) -> UsageError {
        UsageError(e.to_string())
    }
}

impl From<webmcp_profiles::bench::FamilyError> for UsageError {
    fn from(e: webmcp_profiles::bench::FamilyError) -> UsageError {
        UsageError(e.to_string())
    }
}

impl From<baseline::BaselineError> for UsageError {
    fn from(e: baseline::BaselineError) -> UsageError {
        UsageError(e.to_string())
    }
}

impl From<legacy_cmd::LegacyError> for UsageError {
    fn from(e: legacy_cmd::LegacyError) -> UsageError {
        UsageError(e.to_string())
    }
}

impl From<webmcp_generator::BoundError> for UsageError {
    fn from(e: webmcp_generator::BoundError) -> UsageError {
        UsageError(e.to_string())
    }
}

/// The environment variable of the hidden test hook [`limits::refuse_threads_above`].
const REFUSE_THREADS_ENV: &str = "WEBMCP_TEST_REFUSE_THREADS_ABOVE";

/// mimalloc rather than the system allocator (`alloc.rs` says why, and how it is called).
#[global_allocator]
static ALLOCATOR: alloc::MiMalloc = alloc::MiMalloc;

/// clap's error in one line: its first line, with the arguments it lists on indented lines
/// after it ("the following required arguments were not provided: --scaling"), never the
/// usage and the help hint.
fn clap_error_line(rendered: &str) -> String {
    let mut lines = rendered.lines();
    let mut line = lines
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ")
        .to_string();
    let listed: Vec<&str> = lines
        .take_while(|l| l.starts_with("  "))
        .map(str::trim)
        .collect();
    if !listed.is_empty() {
        line = format!("{} {}", line, listed.join(", "));
    }
    line
}

fn main() -> ExitCode {
    alloc::keep_freed_memory();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return ExitCode::from(
                    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                        2
                    } else {
                        0
                    },
                );
            }
            errln!("webmcp-check: {}", clap_error_line(&e.render().to_string()));
            return ExitCode::from(2);
        }
    };
    // A browser this process starts would inherit the setting; its pages are its own.
    if !cli.command.starts_a_browser() {
        alloc::no_transparent_huge_pages();
    }
    // Hidden test hook: behave as if the OS refused any checker thread beyond this many.
    if let Some(most) = std::env::var(REFUSE_THREADS_ENV)
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        limits::refuse_threads_above(Some(most));
    }
    let result = match cli.command {
        Command::List(a) if a.profile == Profile::Legacy => {
            legacy_cmd::list().map_err(UsageError::from)
        }
        Command::List(_) => list(),
        Command::Check(args) => run_check(&args),
        Command::Report(args) => report(&args),
        Command::Coverage(args) => coverage(&args),
        Command::Bench(args) => bench_cmd::bench(&args),
        Command::BenchChild(args) => bench_cmd::bench_child(&args),
        Command::Replay(a) => traces_cmd(webmcp_traces::commands::replay_file(&a.file, &|name| {
            catalog::text(name).map(str::to_string)
        })),
        Command::Minimize(a) => {
            traces_cmd(webmcp_traces::commands::minimize_file(&a.file, &a.output))
        }
        Command::Explain(a) => traces_cmd(webmcp_traces::commands::explain_file(
            &a.file,
            match a.format {
                ExplainFormat::Text => webmcp_traces::explain::Format::Text,
                ExplainFormat::Markdown => webmcp_traces::explain::Format::Markdown,
                ExplainFormat::Mermaid => webmcp_traces::explain::Format::Mermaid,
                ExplainFormat::Html => webmcp_traces::explain::Format::Html,
            },
            a.output.as_deref(),
        )),
        Command::Corpus(a) => corpus(&a),
        Command::Mutants(a) => catalog::all()
            .map_err(UsageError::from)
            .and_then(|w| mutants_cmd::mutants(&a, w)),
        Command::Findings(a) => scenario_sources().and_then(|s| findings_cmd::findings(&a, &s)),
        Command::Properties(a) => scenario_sources().and_then(|s| findings_cmd::properties(&a, &s)),
        Command::LegacyConformance(a) => {
            legacy_cmd::worlds(a.all || a.scenarios.is_empty(), &a.scenarios, &[])
                .map_err(UsageError::from)
                .and_then(|worlds| {
                    webmcp_conformance::legacy::main(&a, worlds).map_err(UsageError::from)
                })
                .map(|(code, text)| {
                    out!("{text}");
                    ExitCode::from(code)
                })
        }
        Command::Sweep(a) => sweep_cmd::sweep(&a),
        Command::Merge(a) => merge_cmd::merge(&a),
        Command::Explore(a) => explore_cmd::explore(&a),
        Command::SpecSync(a) => spec_sync_cmd::spec_sync(&a),
        Command::Validate(a) => match webmcp_conformance::trace::cli::main(&a) {
            Ok((code, text)) => {
                out!("{text}");
                Ok(ExitCode::from(code))
            }
            Err((2, line)) => Err(UsageError(line)),
            Err((code, line)) => {
                errln!("webmcp-check: {}", one_line(&line));
                Ok(ExitCode::from(code))
            }
        },
        Command::Record(a) => webmcp_conformance::record::main(&a)
            .map(|(code, text)| {
                out!("{text}");
                ExitCode::from(code)
            })
            .map_err(UsageError::from),
        Command::Conformance(a) => conformance_cmd::conformance(&a),
    };
    match result {
        Ok(code) => code,
        Err(UsageError(msg)) => {
            errln!("webmcp-check: {}", one_line(&msg));
            ExitCode::from(2)
        }
    }
}

/// The most characters of an error line: a file or an argument can put text of any length
/// into one (a name, a path), and a line is for reading.
const ERROR_LINE_MAX: usize = 2_000;

/// An error as the one line it must be on stderr: a newline, another control character or
/// a character that reorders the line (a bidirectional override) that came from the command
/// line or a file (a path, a name) is shown escaped, and the line is cut at
/// [`ERROR_LINE_MAX`] characters.
pub(crate) fn one_line(msg: &str) -> String {
    webmcp_model::error::one_line(msg, ERROR_LINE_MAX)
}

/// A trace command's exit code: its own, or its error's (1 for a trace that does not replay,
/// 2 otherwise) after one line on stderr.
fn traces_cmd(
    r: Result<webmcp_traces::commands::Report, webmcp_traces::error::TraceError>,
) -> Result<ExitCode, UsageError> {
    Ok(match r {
        Ok((code, text)) => {
            out!("{text}");
            code
        }
        Err(e) => {
            errln!("webmcp-check: {}", one_line(&e.to_string()));
            e.exit_code()
        }
    }
    .into())
}

/// The file `-o` names, checked before the work (it can be created and written where it
/// is), or `None` for standard output.
pub(crate) fn output_file(
    path: Option<&std::path::Path>,
) -> Result<Option<webmcp_traces::export::Output>, UsageError> {
    path.map(webmcp_traces::export::Output::create)
        .transpose()
        .map_err(|e| UsageError(e.to_string()))
}

/// Writes `text` to the file checked by [`output_file`] (whole, or not at all), or to
/// standard output.
pub(crate) fn write_output(
    output: Option<webmcp_traces::export::Output>,
    text: &str,
) -> Result<(), UsageError> {
    match output {
        Some(o) => o.commit(text).map_err(|e| UsageError(e.to_string())),
        None => {
            out!("{text}");
            Ok(())
        }
    }
}

/// Every embedded scenario with its file name and text (what traces record).
fn scenario_sources() -> Result<Vec<webmcp_traces::corpus::Source>, UsageError> {
    Ok(catalog::all()?
        .into_iter()
        .map(|world| webmcp_traces::corpus::Source {
            source: format!("scenarios/{}.json", world.name),
            text: catalog::text(&world.name).unwrap_or_default().to_string(),
            world,
        })
        .collect())
}

fn corpus(args: &CorpusArgs) -> Result<ExitCode, UsageError> {
    args.memory.apply()?;
    let sources = scenario_sources()?;
    let entries = match webmcp_traces::corpus::regenerate(&args.dir, &sources) {
        Ok(entries) => entries,
        Err(e) => return args.memory.failed(e.to_string()),
    };
    for e in &entries {
        outln!(
            "{}: {} actions (checker: {}), {} bytes",
            e.file,
            e.kept,
            e.found,
            e.bytes
        );
    }
    outln!(
        "{} traces in {}",
        entries.len(),
        webmcp_traces::limits::shown_path(&args.dir)
    );
    Ok(ExitCode::SUCCESS)
}

fn list() -> Result<ExitCode, UsageError> {
    let worlds = catalog::all()?;
    let rows: Vec<(&str, &str)> = worlds
        .iter()
        .map(|w| (w.name.as_str(), w.summary.as_str()))
        .collect();
    stdout::names_and_summaries(&rows);
    Ok(ExitCode::SUCCESS)
}

/// Exit 1 when some executable step is reached by no scenario and is not unreachable by
/// construction: the suite needs a scenario for it.
fn coverage(args: &CoverageArgs) -> Result<ExitCode, UsageError> {
    use webmcp_profiles::coverage::{Coverage, Unreached};
    args.memory.apply()?;
    let variant = Variant::parse(&args.variant)?;
    let worlds = if args.scenarios.is_empty() || args.all {
        catalog::all()?
    } else {
        // A scenario named twice is covered once (its counts would be added twice).
        let mut seen = std::collections::BTreeSet::new();
        args.scenarios
            .iter()
            .filter(|n| seen.insert(n.as_str()))
            .map(|n| catalog::named(n))
            .collect::<Result<Vec<_>, _>>()?
    };
    let models: Vec<WebMcpModel> = worlds
        .into_iter()
        .map(|w| WebMcpModel::new(w, variant))
        .collect();
    let cov = Coverage::of(&models);
    match args.format {
        CoverageFormat::Human => out!("{}", cov.render_text()),
        CoverageFormat::Markdown => out!("{}", cov.render_markdown()),
        CoverageFormat::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&cov.render_json()).expect("JSON")
        ),
    }
    let mut stopped = false;
    for (name, stop) in cov.stopped() {
        errln!("webmcp-check: {name}: coverage incomplete: stopped by {stop}");
        stopped = true;
    }
    let gaps = cov
        .unreached()
        .iter()
        .any(|(_, u)| *u == Unreached::NotExercised);
    // Counts of a stopped exploration are lower bounds: a step it did not reach is undecided.
    Ok(if stopped {
        ExitCode::from(3)
    } else if gaps {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn report(args: &ReportArgs) -> Result<ExitCode, UsageError> {
    args.memory.apply()?;
    let variant = Variant::parse(&args.variant)?;
    let output = output_file(args.output.as_deref())?;
    let worlds = catalog::all()?;
    let results: Vec<ScenarioResult> = worlds
        .iter()
        .map(|w| {
            check(
                WebMcpModel::new(w.clone(), variant),
                &CheckOptions {
                    threads: 1,
                    ..CheckOptions::default()
                },
            )
        })
        .collect();
    // The document says each scenario is checked exhaustively: where a bound stopped one,
    // nothing is written (as `findings` and `properties` do), and the old document stays.
    let mut stopped = false;
    for r in &results {
        if let Some(why) = r.why_incomplete() {
            errln!("webmcp-check: {}: INCOMPLETE ({why})", r.scenario);
            stopped = true;
        }
    }
    if stopped {
        errln!("webmcp-check: nothing written: a bound stopped the checks (exit 3)");
        return Ok(ExitCode::from(3));
    }
    let text = webmcp_traces::results_doc::results_markdown(&worlds, &results);
    write_output(output, &text)?;
    Ok(ExitCode::SUCCESS)
}

fn run_check(args: &CheckArgs) -> Result<ExitCode, UsageError> {
    if args.profile == Profile::Legacy {
        if args.distributed.is_timely() {
            return Err(UsageError(
                "--engine timely checks the draft's scenarios; the legacy profile has its own search"
                    .into(),
            ));
        }
        return legacy_check(args);
    }
    let plan = plan_check(args)?;
    let empty_shard = args.shard.filter(|_| plan.worlds.is_empty());
    if let Some(shard) = empty_shard {
        shard::note_empty(shard, plan.whole_suite as u64, "scenarios");
    }
    let status = match &plan.cluster {
        Some(cluster) => distributed::run(&plan, cluster, args)?,
        None => {
            let explored = explore(&plan, args)?;
            conclude(&plan, &explored, args)
        }
    };
    if empty_shard.is_some() {
        // Nothing was decided here, on either engine: never a pass (`merge` judges the whole).
        return Ok(ExitCode::from(3));
    }
    Ok(status)
}

/// Everything after the per-scenario reports, judged against the baseline, and the exit
/// status it gives ([`output::Outcome`]).
fn conclude(plan: &CheckPlan, explored: &Explored, args: &CheckArgs) -> ExitCode {
    let records: Vec<report::ScenarioRecord> = explored
        .results
        .iter()
        .map(report::ScenarioRecord::of)
        .collect();
    let judgement = baseline::judge(&records, plan.baseline.as_ref());
    out!(
        "{}",
        render_check(plan, &records, explored, &judgement, args)
    );
    ExitCode::from(output::Outcome::of(&records, &judgement, explored.traces_failed).exit_code())
}

/// What a check shard's JSON report records about itself: its shard, its scenarios and
/// every option that changes what a verdict says.
fn check_shard_record(
    plan: &CheckPlan,
    args: &CheckArgs,
    shard: shard::Shard,
) -> shard::ShardRecord {
    let options = plan_options(plan, args);
    shard::ShardRecord {
        command: "check".into(),
        index: shard.index,
        count: shard.count,
        options,
        total: plan.whole_suite as u64,
        items: Some(plan.worlds.iter().map(|w| w.name.clone()).collect()),
    }
}

/// The options a merge of check shards compares (and re-reads: `timings`, `baseline`).
fn plan_options(plan: &CheckPlan, args: &CheckArgs) -> std::collections::BTreeMap<String, String> {
    let text = |v: Option<String>| v.unwrap_or_else(|| "none".into());
    let mode = match args.mode {
        ModeArg::Bfs => "bfs",
        ModeArg::Dfs => "dfs",
        ModeArg::Sim => "sim",
    };
    [
        ("variant", plan.variant.name()),
        ("mode", mode.to_string()),
        ("seed", text(args.seed.map(|n| n.to_string()))),
        ("runs", text(args.runs.map(|n| n.to_string()))),
        ("threads", args.threads.to_string()),
        // The engines, and timely on different numbers of workers, stop at different points
        // under --max-states (docs/distributed.md).
        (
            "engine",
            if plan.cluster.is_some() {
                "timely"
            } else {
                "local"
            }
            .to_string(),
        ),
        (
            "workers",
            text(plan.cluster.as_ref().map(|c| c.workers.to_string())),
        ),
        (
            "processes",
            text(plan.cluster.as_ref().map(|c| c.processes.to_string())),
        ),
        ("max-states", text(args.max_states.map(|n| n.to_string()))),
        ("max-depth", text(args.max_depth.map(|n| n.to_string()))),
        ("timeout", text(args.timeout.map(|n| n.to_string()))),
        ("symmetry", args.symmetry.to_string()),
        (
            "reduction",
            format!("{:?}", plan.options.reduction).to_lowercase(),
        ),
        ("forget-facts", args.forget_facts.to_string()),
        ("timings", (!args.no_timings).to_string()),
        ("baseline", plan.baseline.is_some().to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// What one `check` of the draft will do, decided before any exploration so that every
/// usage error is found before the work.
struct CheckPlan {
    variant: Variant,
    worlds: Vec<World>,
    /// Per world: where it came from (`scenarios/NAME.json` or the user's path) and its text,
    /// as the traces record them.
    sources: Vec<(String, String)>,
    options: CheckOptions,
    baseline: Option<baseline::Baseline>,
    /// `--engine timely`: the workers and processes of the run.
    cluster: Option<webmcp_profiles::driver::Cluster>,
    /// How many scenarios --all has before --shard takes its part.
    whole_suite: usize,
}

fn plan_check(args: &CheckArgs) -> Result<CheckPlan, UsageError> {
    let mut variant = Variant::parse(args.variant.as_deref().unwrap_or("seed"))?;
    if let Some(name) = &args.revision {
        if args.variant.as_deref().is_some_and(|v| v.contains('@')) {
            return Err(UsageError(
                "--revision and a variant with @REVISION both name the text: give one".into(),
            ));
        }
        variant = variant.at(webmcp_model::variant::Revision::parse(name)?);
    }
    let mut worlds: Vec<World> = Vec::new();
    if args.all {
        worlds.extend(catalog::all()?);
    }
    let whole_suite = worlds.len();
    if args.shard.is_some() && (!args.all || !args.files.is_empty()) {
        return Err(UsageError(
            "--shard splits the embedded scenarios of --all: give --all, and no --scenario or --scenario-file"
                .into(),
        ));
    }
    let mut worlds = shard::select(worlds, args.shard);
    // A scenario named twice is checked once (its counts and traces would be twice).
    for name in &args.scenarios {
        if !worlds.iter().any(|w| w.name == *name) {
            worlds.push(catalog::named(name)?);
        }
    }
    let mut sources: Vec<(String, String)> = worlds
        .iter()
        .map(|w| {
            let text = catalog::text(&w.name).unwrap_or_default();
            (format!("scenarios/{}.json", w.name), text.to_string())
        })
        .collect();
    // The worlds before this index are embedded ones, chosen by --scenario or --all.
    let embedded = worlds.len();
    for path in &args.files {
        let (world, text) = catalog::from_file(path)?;
        match worlds.iter().position(|w| w.name == world.name) {
            // Another file's.
            Some(i) if i >= embedded => return Err(one_name_twice(&world.name, &sources[i].0, path)),
            Some(_) => return Err(UsageError(format!(
                "{}: its scenario is named \"{}\", as an embedded scenario this run checks (--scenario or --all) is: one run checks one scenario of each name (traces and reports are named after it); rename it, or check the embedded one alone",
                path.display(),
                world.name.escape_debug()
            ))),
            None => {}
        }
        if let Some(embedded) = catalog::text(&world.name) {
            let same = |t: &str| serde_json::from_str::<serde_json::Value>(t).ok();
            if same(embedded) != same(&text) {
                return Err(UsageError(format!(
                    "{}: its scenario is named \"{}\", the name of an embedded scenario whose content differs: traces, reports and baselines tell scenarios apart by name; rename it",
                    path.display(),
                    world.name.escape_debug()
                )));
            }
        }
        worlds.push(world);
        sources.push((path.display().to_string(), text));
    }
    if worlds.is_empty() && args.shard.is_none() {
        return Err(UsageError(
            "nothing to check: give --all, --scenario NAME or --scenario-file PATH".into(),
        ));
    }
    threads_arg(args.threads)?;
    check_bounds(args)?;
    args.memory.apply()?;
    let sim = args.mode == ModeArg::Sim;
    if sim && args.threads > 1 {
        return Err(UsageError(
            "--mode sim takes its random walks on one thread: --threads is for --mode bfs and dfs"
                .into(),
        ));
    }
    if !sim && (args.seed.is_some() || args.runs.is_some()) {
        return Err(UsageError(
            "--seed and --runs choose random walks: they need --mode sim".into(),
        ));
    }
    if args.symmetry && args.mode != ModeArg::Bfs {
        return Err(UsageError("--symmetry works with --mode bfs only".into()));
    }
    if args.frontier != FrontierArg::Auto && args.mode != ModeArg::Bfs {
        return Err(UsageError(
            "--frontier chooses how breadth-first search keeps the states it has yet to expand: it needs --mode bfs"
                .into(),
        ));
    }
    if args.reduction == ReductionArg::Sleep
        && (args.mode != ModeArg::Bfs
            || args.threads > 1
            || args.symmetry
            || args.distributed.is_timely())
    {
        return Err(UsageError(
            "--reduction sleep runs in the one-thread breadth-first search: it needs --mode bfs and --threads 1, without --symmetry or --engine timely"
                .into(),
        ));
    }
    if args.forget_facts
        && (args.mode != ModeArg::Bfs
            || args.reduction == ReductionArg::Sleep
            || args.distributed.is_timely())
    {
        return Err(UsageError(
            "--forget-facts judges states where the breadth-first search generates them: it needs --mode bfs, without --reduction sleep or --engine timely"
                .into(),
        ));
    }
    if args.phases
        && (args.threads > 1
            || sim
            || args.reduction == ReductionArg::Sleep
            || args.distributed.is_timely()
            || args.shard.is_some()
            || args.no_timings)
    {
        return Err(UsageError(
            "--phases times the one-thread search: it needs --threads 1 and --mode bfs or dfs, without --reduction sleep, --engine timely, --shard or --no-timings"
                .into(),
        ));
    }
    if args.phases && !matches!(args.format, Format::Human | Format::Json) {
        return Err(UsageError(
            "--phases adds to the human and JSON reports: not with --format junit, markdown or github"
                .into(),
        ));
    }
    if args.vacuity
        && (!matches!(args.format, Format::Human | Format::Json)
            || args.shard.is_some()
            || args.distributed.is_timely())
    {
        return Err(UsageError(
            "--vacuity adds to the human and JSON reports of a local check: not with --format junit, markdown or github, --shard or --engine timely"
                .into(),
        ));
    }
    if args.reduction == ReductionArg::Por && sim {
        return Err(UsageError(
            "--reduction por prunes an exhaustive search: it needs --mode bfs or dfs, not random walks"
                .into(),
        ));
    }
    let baseline = match &args.baseline {
        Some(path) => Some(baseline::Baseline::load(path)?),
        None => None,
    };
    let options = CheckOptions {
        mode: match args.mode {
            ModeArg::Bfs => Mode::Bfs,
            ModeArg::Dfs => Mode::Dfs,
            ModeArg::Sim => Mode::Sim {
                seed: args.seed.unwrap_or(0),
                runs: args.runs.unwrap_or(DEFAULT_SIM_RUNS),
            },
        },
        threads: args.threads,
        max_states: args.max_states,
        max_depth: args.max_depth,
        timeout: args.timeout.map(Duration::from_secs),
        memory_limit_mib: Some(args.memory.memory_limit),
        symmetry: args.symmetry,
        reduction: args.reduction.engine(),
        frontier: args.frontier.engine(),
        forget_facts: args.forget_facts,
        time_phases: args.phases,
    };
    let cluster = args.distributed.cluster(args, &variant, &sources)?;
    webmcp_traces::export::prepare_trace_dir(args.trace_dir())
        .map_err(|e| UsageError(e.to_string()))?;
    Ok(CheckPlan {
        variant,
        worlds,
        sources,
        options,
        baseline,
        cluster,
        whole_suite,
    })
}

/// Explores every scenario of the plan in turn, printing each human report as it completes
/// (so a long `--all` shows results as they come) and writing its traces.
fn explore(plan: &CheckPlan, args: &CheckArgs) -> Result<Explored, UsageError> {
    let mut results = Vec::new();
    let mut vacuity = Vec::new();
    let mut traces = TraceTally::default();
    for (i, world) in plan.worlds.iter().enumerate() {
        let model = WebMcpModel::new(world.clone(), plan.variant);
        let for_vacuity = args.vacuity.then(|| model.clone());
        let result = if args.quiet {
            check(model, &plan.options)
        } else {
            let mut bar = progress::Bar::new(&world.name);
            let r = check_with_progress(model, &plan.options, &mut |p| bar.update(p));
            bar.finish();
            r
        };
        let vacuous = match for_vacuity {
            None => output::Vacuity::NotAsked,
            Some(model) => {
                let timeout = args.timeout.map(Duration::from_secs);
                if result.exhaustive {
                    webmcp_profiles::vacuity::vacuous_holds(&model, &result, timeout).map_or_else(
                        output::Vacuity::WitnessSearchStopped,
                        output::Vacuity::Vacuous,
                    )
                } else {
                    output::Vacuity::CheckIncomplete
                }
            }
        };
        if args.format == Format::Human {
            out!("{}", human_report(plan, args, i, &result));
            out!("{}", output::vacuity_human(&vacuous, args.verbose));
            if let Some(t) = &result.phases {
                out!("{}", output::phases_human(t));
            }
        }
        traces.write(plan, args, i, &result);
        results.push(result);
        vacuity.push(vacuous);
    }
    say_traces_written(args, traces.written);
    Ok(Explored {
        results,
        vacuity,
        traces_failed: traces.failed,
    })
}

/// What [`explore`] found: each scenario's result, what `--vacuity` found in it, and whether
/// a trace could not be written.
struct Explored {
    results: Vec<ScenarioResult>,
    vacuity: Vec<output::Vacuity>,
    traces_failed: bool,
}

/// The traces of a run's scenarios as they are written: how many, and whether one failed.
/// A failure does not stop the run: the remaining scenarios are still checked and reported,
/// and the exit status says it ([`conclude`]).
#[derive(Default)]
struct TraceTally {
    written: usize,
    failed: bool,
}

impl TraceTally {
    fn write(&mut self, plan: &CheckPlan, args: &CheckArgs, i: usize, result: &ScenarioResult) {
        match write_traces(plan, args, i, result) {
            Ok(n) => self.written += n,
            Err(e) => {
                errln!("webmcp-check: {}", e.0);
                self.failed = true;
            }
        }
    }
}

/// The human report of the plan's `i`th scenario.
fn human_report(plan: &CheckPlan, args: &CheckArgs, i: usize, result: &ScenarioResult) -> String {
    output::human(
        &plan.worlds[i],
        result,
        args.verbose,
        !args.no_timings,
        plan.baseline.as_ref(),
        plan.options.paths_are_shortest(),
    )
}

/// Writes the traces of the plan's `i`th scenario's result; how many.
fn write_traces(
    plan: &CheckPlan,
    args: &CheckArgs,
    i: usize,
    result: &ScenarioResult,
) -> Result<usize, UsageError> {
    let (source, text) = &plan.sources[i];
    let model = WebMcpModel::new(plan.worlds[i].clone(), plan.variant);
    Ok(webmcp_traces::export::write_result(args.trace_dir(), &model, source, text, result)?.len())
}

fn say_traces_written(args: &CheckArgs, n: usize) {
    if n > 0 && !args.quiet {
        errln!(
            "webmcp-check: {n} trace(s) written to {}",
            args.trace_dir().display()
        );
    }
}

/// Everything after the per-scenario reports: the whole report in a machine format, or the
/// baseline judgement and the closing summary for people.
fn render_check(
    plan: &CheckPlan,
    results: &[report::ScenarioRecord],
    explored: &Explored,
    judgement: &baseline::Judgement,
    args: &CheckArgs,
) -> String {
    let with_baseline = plan.baseline.is_some();
    match args.format {
        Format::Human if results.is_empty() => String::new(),
        Format::Human => format!(
            "{}{}{}",
            output::baseline_summary(judgement, with_baseline),
            output::closing_summary(
                results,
                judgement,
                with_baseline,
                args.trace_dir(),
                explored.traces_failed
            ),
            output::vacuity_summary(&explored.vacuity, !args.files.is_empty())
        ),
        Format::Json => {
            let mut doc = output::json(
                results,
                !args.no_timings,
                with_baseline.then_some(judgement),
            );
            for (scenario, v) in doc["scenarios"]
                .as_array_mut()
                .expect("a report lists its scenarios")
                .iter_mut()
                .zip(&explored.vacuity)
            {
                for (key, value) in v.json() {
                    scenario[key] = value;
                }
            }
            if let Some(s) = args.shard {
                doc[shard::KEY] =
                    serde_json::to_value(check_shard_record(plan, args, s)).expect("JSON");
            }
            format!("{}\n", serde_json::to_string_pretty(&doc).expect("JSON"))
        }
        Format::Junit => output::junit(results, !args.no_timings, plan.baseline.as_ref()),
        Format::Markdown => {
            output::markdown_summary(results, judgement, with_baseline, !args.no_timings)
        }
        Format::Github => {
            let sources: Vec<&str> = plan.sources.iter().map(|(s, _)| s.as_str()).collect();
            output::github(&sources, results, judgement)
        }
    }
}

/// `--max-states` and `--max-depth` of 0 would stop before the initial state is judged.
fn check_bounds(args: &CheckArgs) -> Result<(), UsageError> {
    if args.max_states == Some(0) {
        return Err(UsageError("--max-states must be at least 1".into()));
    }
    if args.max_depth == Some(0) {
        return Err(UsageError(
            "--max-depth must be at least 1 (the initial state is depth 1)".into(),
        ));
    }
    Ok(())
}

fn legacy_check(args: &CheckArgs) -> Result<ExitCode, UsageError> {
    if !matches!(args.format, Format::Human | Format::Json)
        || args.mode != ModeArg::Bfs
        || args.threads != 1
        || args.symmetry
        || args.forget_facts
        || args.phases
        || args.vacuity
        || args.frontier != FrontierArg::Auto
        || args.baseline.is_some()
        || args.revision.is_some()
        || args.shard.is_some()
        || args.seed.is_some()
        || args.runs.is_some()
        || args.trace_dir.is_some()
        || args.distributed.is_set()
    {
        return Err(UsageError(
            "--profile legacy supports --format human|json, --reduction, --max-states, --max-depth, --timeout and --memory-limit only (it writes no traces)".into(),
        ));
    }
    check_bounds(args)?;
    args.memory.apply()?;
    legacy_cmd::check(&legacy_cmd::CheckRequest {
        all: args.all,
        scenarios: &args.scenarios,
        files: &args.files,
        variant: args.variant.as_deref(),
        json: args.format == Format::Json,
        verbose: args.verbose,
        timings: !args.no_timings,
        max_states: args.max_states,
        max_depth: args.max_depth,
        timeout: args.timeout,
        memory_limit_mib: args.memory.memory_limit,
        reduction: args.reduction.engine(),
    })
    .map_err(UsageError::from)
}
