//! `webmcp-check sweep`: check every generated scenario within a bound (or a seeded sample
//! beyond it) and report, per property, how many scenarios violate it and the smallest one
//! that does. The generator is `webmcp-generator`; `docs/sweep.md` documents both.

use std::io::IsTerminal;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use webmcp_profiles::limits::{thousands, StopReason};

use serde_json::json;
use webmcp_generator::{Bound, Counts, Gen};
use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::{check, properties, CheckOptions, Kind, ScenarioResult, Verdict};

mod merge;

pub use merge::merge;

use crate::output::{github_data, github_property, xml_escape};
use crate::shard::Shard;
use crate::{Format, UsageError};

pub const EXIT: &str = "\
Exit codes:
  0  every property held in every generated scenario, every search was exhaustive (with
     --sample: in every sampled scenario, which says nothing of the bound's others)
  1  some generated scenario violates a property (under --variant seed this is expected)
  2  bad usage: a malformed --bound, --shard, --variant or flag combination (one line on stderr)
  3  incomplete: --timeout, --max-states or --memory-limit stopped some scenario's search, or
     scenarios were left unchecked (the enumeration then only counts, for at most a tenth of
     --timeout; if it has not ended by then, the size of the space is reported as unknown), and
     nothing was violated; never a pass. With --count: --timeout stopped the count (the
     numbers counted so far are lower bounds)
A --shard that holds no scenario checks nothing and exits 3 (never a pass), saying so on stderr: `merge`
decides whether the shards together are the whole sweep.
With --scale: 0 once the table is printed with one bound swept at least (the bound the limits
stopped is marked \"(stopped)\" and never counted as swept), 3 when no bound finished (nothing
measured, no plot written), 2 bad usage.

Bounds: --bound tiny|small|medium, or KEY=N,... (tabs, docs, depth, iframes, stmts, total,
tools, signals, moves, outcomes, forged, unkeyed), or PRESET,KEY=N,... to change a preset;
docs/sweep.md.";

#[derive(clap::Args)]
pub struct SweepArgs {
    /// The bound: a preset (tiny, small, medium), KEY=N pairs, or PRESET,KEY=N,...
    #[arg(long, value_name = "BOUND", default_value = "tiny")]
    bound: String,
    /// The spec variant: seed (the text as written), proposed, seed+FIX+... or proposed-FIX-...
    #[arg(long, value_name = "VARIANT", default_value = "seed")]
    variant: String,
    /// Check only shard I of N (1 <= I <= N) of the canonical enumeration (or of the distinct
    /// samples): the scenarios whose index is I-1 modulo N. The N shards are disjoint and
    /// together are the space; `merge` joins their JSON reports.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Instead of enumerating, draw N scenarios at random within the bound (for bounds too
    /// big to enumerate); duplicates up to renaming are checked once.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    sample: Option<u64>,
    /// The seed of --sample (the same seed gives the same scenarios) [default: 0].
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// With --sample: make every choice uniformly at random, instead of swarm sampling
    /// (each draw keeps a random half of the statement and move kinds; docs/sweep.md).
    #[arg(long)]
    no_swarm: bool,
    /// Only count the scenarios (raw and canonical); check nothing. --timeout bounds the count
    /// too: a count it stops is incomplete (exit 3, the numbers so far printed as lower bounds).
    #[arg(long, conflicts_with_all = ["jobs", "max_states", "reduction", "memory_limit"])]
    count: bool,
    /// Scenarios checked at once, 1 to 256 (each on one thread, breadth-first).
    #[arg(long, value_name = "N", default_value_t = 1)]
    jobs: usize,
    /// Stop the whole sweep after this many seconds: the scenario being checked and those
    /// not yet started are incomplete (exit 3 unless something was violated). The enumeration
    /// then only counts, for at most a tenth of the timeout (1 to 60 s): a space it cannot
    /// count by then has an unknown size.
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<u64>,
    /// Stop each scenario's search after this many states (that scenario is then incomplete).
    #[arg(long, value_name = "N")]
    max_states: Option<usize>,
    /// Partial-order reduction of each scenario's search (as `check --reduction`).
    #[arg(long, value_enum, default_value = "none")]
    reduction: crate::ReductionArg,
    /// Write, per violated property, its smallest scenario (NAME.json) and that scenario's
    /// counterexample, minimised (NAME.VARIANT.PROPERTY.itf.json), into this directory.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// How to print the report: for people, or for programs and CI.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Leave wall-clock times out of the output (for byte-identical comparisons).
    #[arg(long)]
    no_timings: bool,
    /// No progress display on stderr.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    memory: crate::MemoryLimitArg,
    /// Instead of one bound, sweep the ladder of growing bounds (docs/performance.md), each in
    /// its own process and stopped after --timeout seconds (default 600), until one does not
    /// finish; print scenarios, states, time and memory per bound.
    #[arg(long, conflicts_with_all = ["bound", "shard", "sample", "count", "out", "max_states"])]
    scale: bool,
    /// With --scale: also plot the table as an SVG file.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

/// Everything decided before any work, so that every usage error comes first.
struct Plan {
    bound: Bound,
    variant: Variant,
    shard: Option<Shard>,
    sample: Option<(u64, u64)>,
    sampling: webmcp_generator::Sampling,
    options: CheckOptions,
    deadline: Option<Duration>,
    jobs: usize,
}

fn plan(args: &SweepArgs) -> Result<Plan, UsageError> {
    args.memory.apply()?;
    if args.svg.is_some() && !args.scale {
        return Err(UsageError(
            "--svg plots the table of --scale: add --scale".into(),
        ));
    }
    let bound = Bound::parse(&args.bound)?;
    let variant = Variant::parse(&args.variant)?;
    let shard = args.shard;
    if args.no_swarm && args.sample.is_none() {
        return Err(UsageError(
            "--no-swarm changes how --sample draws: it needs --sample N".into(),
        ));
    }
    if args.seed.is_some() && args.sample.is_none() {
        return Err(UsageError(
            "--seed chooses a random sample: it needs --sample N".into(),
        ));
    }
    if args.count && (args.sample.is_some() || args.out.is_some()) {
        return Err(UsageError(
            "--count only counts the enumeration: it takes neither --sample nor --out".into(),
        ));
    }
    if !(1..=crate::MAX_THREADS).contains(&args.jobs) {
        return Err(UsageError(format!(
            "--jobs must be between 1 and {}, not {}",
            crate::MAX_THREADS,
            args.jobs
        )));
    }
    if args.max_states == Some(0) {
        return Err(UsageError("--max-states must be at least 1".into()));
    }
    if let Some(dir) = &args.out {
        if dir.exists() && !dir.is_dir() {
            return Err(UsageError(format!(
                "--out {}: not a directory (--out names the directory the smallest scenarios are written to)",
                dir.display()
            )));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| UsageError(format!("--out {}: {e}", dir.display())))?;
    }
    Ok(Plan {
        bound,
        variant,
        shard,
        sample: args.sample.map(|n| (n, args.seed.unwrap_or(0))),
        sampling: if args.no_swarm {
            webmcp_generator::Sampling::Uniform
        } else {
            webmcp_generator::Sampling::Swarm
        },
        options: CheckOptions {
            threads: 1,
            max_states: args.max_states,
            reduction: args.reduction.engine(),
            ..CheckOptions::default()
        },
        deadline: args.timeout.map(Duration::from_secs),
        jobs: args.jobs,
    })
}

/// What one generated scenario gave.
struct Checked {
    index: u64,
    statements: usize,
    documents: usize,
    total_states: usize,
    unique_states: usize,
    /// A bound stopped its search (or the sweep's deadline came before it started).
    incomplete: bool,
    /// The bound that stopped it, as its flag reads (`--memory-limit 300 MiB`).
    stopped_by: Option<String>,
    skipped: bool,
    /// (property index, counterexample length).
    violated: Vec<(usize, usize)>,
    witnessed: Vec<usize>,
}

/// Per property: how many scenarios violate it, witness it, and the smallest violating one.
#[derive(Default)]
struct PropertyTally {
    violating: u64,
    witnessing: u64,
    /// (statements, documents, counterexample length, index) and the scenario: smallest
    /// first, so the same scenario wins whatever order the workers finish in.
    smallest: Option<(Key, Named)>,
    /// Where --out wrote the smallest scenario, and its trace or why it wrote none (a bound
    /// stopped the search for it).
    files: Option<(String, Result<String, String>)>,
    /// The root cause of the smallest violation, as `findings` names causes.
    cause: Option<Cause>,
}

/// Why the smallest scenario violates a property, in the terms of `docs/findings.md`: the
/// proposed fixes whose removal from `proposed` (one at a time) brings the violation back.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Cause {
    /// Each of these fixes, taken out of `proposed` alone, brings it back.
    Fixes(Vec<&'static str>),
    /// `proposed` holds, but no single fix taken out brings it back: several fixes each
    /// remove it.
    Several,
    /// `proposed` violates it too: no proposed fix covers it. A new finding.
    New,
}

impl Cause {
    fn label(&self) -> String {
        match self {
            Cause::Fixes(f) => f.join(", "),
            Cause::Several => "several fixes together".into(),
            Cause::New => "NEW: no proposed fix covers it".into(),
        }
    }
}

/// The violated properties grouped by the cause of their smallest violation: each fix in
/// the order of `docs/findings.md`, then several fixes, then new findings.
fn by_cause(s: &Sweep) -> Vec<(String, Vec<&'static str>)> {
    let mut groups: Vec<(String, Vec<&'static str>)> = Vec::new();
    let mut add =
        |label: String, name: &'static str| match groups.iter_mut().find(|(l, _)| *l == label) {
            Some((_, names)) => names.push(name),
            None => groups.push((label, vec![name])),
        };
    let defs = properties();
    let causes: Vec<(usize, &Cause)> = s
        .tally
        .iter()
        .enumerate()
        .filter_map(|(p, t)| t.cause.as_ref().map(|c| (p, c)))
        .collect();
    for fix in webmcp_model::variant::FIXES {
        for (p, c) in &causes {
            if matches!(c, Cause::Fixes(f) if f.contains(&fix.name)) {
                add(fix.name.to_string(), defs[*p].name);
            }
        }
    }
    for (p, c) in &causes {
        if matches!(c, Cause::Several | Cause::New) {
            add(c.label(), defs[*p].name);
        }
    }
    groups
}

/// How long after the sweep's --timeout the root causes may still be looked for (they are
/// small checks of the smallest violating scenarios).
const CAUSE_GRACE: Duration = Duration::from_secs(1);

/// The sweep's deadline, or [`CAUSE_GRACE`] after now if that is later: the small checks
/// after the sweep get at least that long.
fn with_grace(deadline: Option<Instant>) -> Option<Instant> {
    deadline.map(|d| d.max(Instant::now() + CAUSE_GRACE))
}

/// Finds the [`Cause`] of every smallest violation (a few small checks per property). With
/// a deadline they end by it, or [`CAUSE_GRACE`] after now if that is later; a cause whose
/// checks a bound stopped is left unknown, never guessed.
fn find_causes(sweep: &mut Sweep, options: &CheckOptions, deadline: Option<Instant>) {
    let until = with_grace(deadline);
    let proposed = Variant::proposed();
    for p in 0..sweep.tally.len() {
        let Some(gen) = sweep.tally[p]
            .smallest
            .as_ref()
            .and_then(|(_, n)| n.gen.clone())
        else {
            continue;
        };
        // Some(whether `v` violates it), or None if a bound stopped the search first.
        let violates = |v: Variant| -> Option<bool> {
            let mut options = options.clone();
            if let Some(until) = until {
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return None;
                }
                options.timeout = Some(left);
            }
            let (_, r) = check_gen(v, &gen, &options);
            if r.properties[p].verdict == Verdict::Violated {
                Some(true)
            } else if !r.exhaustive || r.is_incomplete() {
                None
            } else {
                Some(false)
            }
        };
        let cause = match violates(proposed) {
            None => None,
            Some(true) => Some(Cause::New),
            Some(false) => webmcp_model::variant::FIXES
                .iter()
                .map(|f| violates(proposed.with(f, false)).map(|v| (f.name, v)))
                .collect::<Option<Vec<_>>>()
                .map(|found| {
                    let fixes: Vec<&'static str> = found
                        .into_iter()
                        .filter(|(_, v)| *v)
                        .map(|(f, _)| f)
                        .collect();
                    if fixes.is_empty() {
                        Cause::Several
                    } else {
                        Cause::Fixes(fixes)
                    }
                }),
        };
        sweep.tally[p].cause = cause;
    }
}

type Key = (usize, usize, usize, u64);

/// A generated scenario as a report names it; `gen` is absent in a report read back by
/// `merge`, which needs only the name and summary.
#[derive(Clone, Debug)]
struct Named {
    name: String,
    summary: String,
    gen: Option<Gen>,
}

impl Named {
    fn of(gen: &Gen) -> Named {
        Named {
            name: webmcp_generator::name(gen),
            summary: webmcp_generator::describe(gen),
            gen: Some(gen.clone()),
        }
    }
}

/// The whole sweep's result.
struct Sweep {
    bound: Bound,
    variant: String,
    shard: Option<Shard>,
    sample: Option<(u64, u64)>,
    /// The whole space's counts (exhaustive sweeps only).
    counts: Option<Counts>,
    /// How many scenarios this run was to check (this shard's, or the distinct samples').
    selected: u64,
    /// How many scenarios the unsharded run checks (the canonical or distinct sampled ones).
    whole: u64,
    checked: u64,
    incomplete: u64,
    skipped: u64,
    total_states: u64,
    unique_states: u64,
    seconds: f64,
    tally: Vec<PropertyTally>,
    /// The scenario with the most unique states: (unique states, index, scenario). One
    /// scenario can dominate a sweep's time and memory.
    largest: Option<(usize, u64, Named)>,
    /// The first few scenarios a bound stopped (index order), to re-run on their own, and
    /// the bound that stopped each.
    stopped: Vec<(u64, Named, String)>,
    /// Process CPU seconds and peak resident set (MiB) of the whole sweep, for --format json
    /// with timings.
    cpu_seconds: Option<f64>,
    peak_rss_mib: Option<f64>,
    /// The options a shard report records (`merge` compares them).
    options: std::collections::BTreeMap<String, String>,
}

/// How many stopped scenarios a report names.
const STOPPED_SHOWN: usize = 10;

pub fn sweep(args: &SweepArgs) -> Result<ExitCode, UsageError> {
    let plan = plan(args)?;
    if args.scale {
        if args.format != Format::Human {
            return Err(UsageError(
                "--scale prints a Markdown table: it takes no --format".into(),
            ));
        }
        return crate::sweep_scale::scale(&crate::sweep_scale::ScalePlan {
            variant: &args.variant,
            reduction: args.reduction,
            jobs: plan.jobs,
            limit_seconds: args.timeout.unwrap_or(600),
            memory_limit_mib: Some(args.memory.memory_limit),
            svg: args.svg.as_deref(),
            quiet: args.quiet,
        });
    }
    let start = Instant::now();
    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    if args.count {
        let deadline = deadline_after(start, plan.deadline);
        let (counts, finished) = count_until(&plan.bound, deadline, None);
        let shard = plan.shard.unwrap_or(Shard::WHOLE);
        let selected = shard_size(counts.canonical, shard);
        if !finished {
            return Ok(count_stopped(&plan, args.format, counts));
        }
        match args.format {
            Format::Json => outln!(
                "{}",
                serde_json::to_string_pretty(&json!({
                    "bound": plan.bound.to_string(),
                    "preset": plan.bound.preset(),
                    "raw": counts.raw,
                    "canonical": counts.canonical,
                    "shard": plan.shard.map(|s| s.to_string()),
                    "selected": selected,
                }))
                .expect("JSON")
            ),
            _ => outln!(
                "{}: {} raw scenarios, {} canonical{}",
                bound_label(&plan.bound),
                thousands(counts.raw),
                thousands(counts.canonical),
                plan.shard
                    .map(|s| format!("; shard {s}: {}", thousands(selected)))
                    .unwrap_or_default()
            ),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut sweep = Sweep::new(&plan);
    sweep.options = shard_options(&plan, args);
    run(&plan, &mut sweep, start, show_progress);
    if let (Some(shard), 0) = (sweep.shard, sweep.selected) {
        crate::shard::note_empty(shard, sweep.whole, "scenarios");
    }
    find_causes(
        &mut sweep,
        &plan.options,
        deadline_after(start, plan.deadline),
    );
    sweep.seconds = start.elapsed().as_secs_f64();
    sweep.cpu_seconds = webmcp_profiles::bench::cpu_seconds();
    sweep.peak_rss_mib = webmcp_profiles::bench::peak_rss_kib().map(|k| k as f64 / 1024.0);
    if let Some(dir) = &args.out {
        write_smallest(&mut sweep, &plan, dir, deadline_after(start, plan.deadline))?;
    }
    let timings = !args.no_timings;
    let text = match args.format {
        Format::Human => human(&sweep, timings),
        Format::Json => format!("{}\n", json_report(&sweep, timings)),
        Format::Junit => junit(&sweep, timings),
        Format::Markdown => markdown(&sweep, timings),
        Format::Github => github(&sweep),
    };
    out!("{text}");
    Ok(ExitCode::from(sweep.exit_code()))
}

/// `sweep --count` that --timeout stopped: the counts so far, as lower bounds; exit 3.
fn count_stopped(plan: &Plan, format: Format, so_far: Counts) -> ExitCode {
    let by = timeout_name(plan.deadline.unwrap_or_default());
    match format {
        Format::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "bound": plan.bound.to_string(),
                "preset": plan.bound.preset(),
                "raw": null,
                "canonical": null,
                "shard": plan.shard.map(|s| s.to_string()),
                "selected": null,
                "incomplete": true,
                "stopped_by": by,
                "counted_before_the_stop": {"raw": so_far.raw, "canonical": so_far.canonical},
                "exit": 3,
            }))
            .expect("JSON")
        ),
        _ => outln!(
            "{}: INCOMPLETE: {by} stopped the count after {} raw scenarios, {} canonical; \
             the bound holds more, how many is unknown (exit 3)",
            bound_label(&plan.bound),
            thousands(so_far.raw),
            thousands(so_far.canonical),
        ),
    }
    ExitCode::from(3)
}

/// The sweep's --timeout as a stop is named.
fn timeout_name(limit: Duration) -> String {
    StopReason::Timeout { limit }.to_string()
}

/// The instant `timeout` after `start`; none where there is no timeout, or where it lies
/// beyond what the clock can name (`--timeout` takes any number of seconds), which no run
/// reaches either.
fn deadline_after(start: Instant, timeout: Option<Duration>) -> Option<Instant> {
    timeout.and_then(|t| start.checked_add(t))
}

/// Whether `deadline` has come.
fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// Counts `bound` until `deadline` (or until `stop` is set): the counts, and whether the
/// count reached the end of the enumeration (if not, the counts are only lower bounds).
fn count_until(
    bound: &Bound,
    deadline: Option<Instant>,
    stop: Option<&std::sync::atomic::AtomicBool>,
) -> (Counts, bool) {
    let mut finished = true;
    let counts = webmcp_generator::for_each_canonical(bound, |_, _| {
        if past(deadline) || stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
            finished = false;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    // A stopped enumeration counted the scenario in hand, not yet the rest.
    (counts, finished)
}

/// The bound whose sweep under `proposed` is the findings report's evidence beyond the suite:
/// the largest preset that keeps `webmcp-check findings` (and its up-to-date test) fast.
pub const EVIDENCE_BOUND: &str = "tiny";

/// The findings report's section on the generated scenarios: every scenario of
/// [`EVIDENCE_BOUND`] checked exhaustively under `variant`, with no timings (the report is
/// compared byte for byte).
pub fn evidence(variant: Variant, jobs: usize) -> String {
    let bound = Bound::parse(EVIDENCE_BOUND).expect("the evidence bound parses");
    let plan = Plan {
        bound,
        variant,
        shard: None,
        sample: None,
        sampling: webmcp_generator::Sampling::Swarm,
        options: CheckOptions {
            threads: 1,
            ..CheckOptions::default()
        },
        deadline: None,
        jobs: jobs.max(1),
    };
    let mut sweep = Sweep::new(&plan);
    run(&plan, &mut sweep, Instant::now(), false);
    let witnesses = |reached: bool| -> String {
        let names: Vec<String> = properties()
            .iter()
            .enumerate()
            .filter(|(p, def)| {
                def.kind == Kind::Sometimes && (sweep.tally[*p].witnessing > 0) == reached
            })
            .map(|(_, def)| format!("`{}`", def.name))
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    let counts = sweep.counts.unwrap_or_default();
    let mut out = format!(
        "## Evidence beyond the suite: every generated scenario of a bound\n\n\
         `webmcp-check sweep --bound {EVIDENCE_BOUND} --variant {}` ([docs/sweep.md](sweep.md)):\n\
         the bound `{}`, {} canonical scenarios ({} before removing renamings), {} unique\n\
         states ({} generated), every scenario explored exhaustively (breadth-first, no bound).\n",
        sweep.variant,
        sweep.bound,
        thousands(counts.canonical),
        thousands(counts.raw),
        thousands(sweep.unique_states),
        thousands(sweep.total_states),
    );
    if sweep.incomplete > 0 {
        out.push_str(&format!(
            "**Incomplete**: {} scenario(s) were not explored exhaustively.\n",
            thousands(sweep.incomplete)
        ));
    } else if sweep.violated() == 0 {
        out.push_str(&format!(
            "Every property holds in every one of them.\nWitnesses reached: {}. Not reached in this bound: {}.\n",
            witnesses(true),
            witnesses(false)
        ));
    } else {
        out.push_str("**Some properties are violated:**\n\n");
        for (p, def) in properties().iter().enumerate() {
            if let Some((&(stmts, docs, len, _), gen)) = sweep.smallest(p) {
                out.push_str(&format!(
                    "- `{}` by {} scenario(s); the smallest ({stmts} statements, {docs} documents, {len} actions): `{}`\n",
                    def.name,
                    thousands(sweep.tally[p].violating),
                    gen.summary
                ));
            }
        }
    }
    out.push_str(
        "\nLarger bounds are measured in docs/sweep.md, and the test suite sweeps the `small` \
         preset under `proposed` on every run (`tests/sweep_cli.rs`).\n",
    );
    out
}

/// The options a sweep shard's report records: what decides the scenarios and the verdicts.
fn shard_options(plan: &Plan, args: &SweepArgs) -> std::collections::BTreeMap<String, String> {
    let text = |v: Option<String>| v.unwrap_or_else(|| "none".into());
    [
        ("bound", plan.bound.to_string()),
        ("variant", plan.variant.name()),
        (
            "sample",
            text(plan.sample.map(|(n, seed)| format!("{n} (seed {seed})"))),
        ),
        ("no-swarm", args.no_swarm.to_string()),
        ("max-states", text(args.max_states.map(|n| n.to_string()))),
        ("timeout", text(args.timeout.map(|n| n.to_string()))),
        (
            "reduction",
            format!("{:?}", plan.options.reduction).to_lowercase(),
        ),
        ("timings", (!args.no_timings).to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// How many of `canonical` indices shard `s` holds.
fn shard_size(canonical: u64, s: Shard) -> u64 {
    s.size_of(canonical)
}

/// `Sweep::selected` and `Sweep::whole` when --timeout stopped the enumeration (or the
/// drawing of the sample) before its end: how many scenarios there are is then unknown, and
/// the reports say so instead of a number.
const UNKNOWN: u64 = u64::MAX;

/// How long, at least and at most, the enumeration goes on counting after --timeout.
const COUNTING_GRACE: (Duration, Duration) = (Duration::from_secs(1), Duration::from_secs(60));

/// What the producer enumerated.
struct Produced {
    /// The whole space's counts (an exhaustive sweep whose enumeration reached its end).
    counts: Option<Counts>,
    /// How many scenarios the unsharded run has, or [`UNKNOWN`].
    whole: u64,
    /// How many scenarios this run was to check (this shard's), or [`UNKNOWN`].
    selected: u64,
}

/// Feeds the selected scenarios, in order, to `send`: this shard of the enumeration (which
/// is streamed, never held in memory), or of the distinct samples; `on_selected` hears how
/// many there are as soon as that is known before the end (a sample). At `deadline` it
/// stops sending; the enumeration goes on counting for at most a tenth of the timeout
/// (within [`COUNTING_GRACE`]), and if it has not ended by then the counts are unknown. A
/// drawn sample is known whole, so only its scenarios are left unsent.
fn produce(
    plan: &Plan,
    deadline: Option<Instant>,
    on_selected: impl FnOnce(u64),
    mut send: impl FnMut(u64, Gen) -> ControlFlow<()>,
) -> Produced {
    let shard = plan.shard.unwrap_or(Shard::WHOLE);
    if let Some((n, seed)) = plan.sample {
        let Some(drawn) = draw_until(plan, n, seed, deadline) else {
            return Produced {
                counts: None,
                whole: UNKNOWN,
                selected: UNKNOWN,
            };
        };
        let whole = drawn.len() as u64;
        let selected = shard_size(whole, shard);
        on_selected(selected);
        for (i, g) in drawn.into_iter().enumerate() {
            if !shard.contains(i as u64) {
                continue;
            }
            let stop = past(deadline);
            if send(i as u64, g).is_break() || stop {
                break;
            }
        }
        return Produced {
            counts: None,
            whole,
            selected,
        };
    }
    let mut finished = true;
    // Past the deadline nothing more is sent; the enumeration only counts, for at most
    // a tenth of the timeout more, so that the size of any space that quick to count is
    // still known (those never sent are then counted not started).
    let counting_until = plan
        .deadline
        .zip(deadline)
        .map(|(limit, d)| d + (limit / 10).clamp(COUNTING_GRACE.0, COUNTING_GRACE.1));
    let counts = webmcp_generator::for_each_canonical(&plan.bound, |i, g| {
        if !past(deadline) {
            if shard.contains(i) && send(i, g.clone()).is_break() {
                finished = false;
                return ControlFlow::Break(());
            }
        } else if past(counting_until) {
            finished = false;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    if finished {
        Produced {
            counts: Some(counts),
            whole: counts.canonical,
            selected: shard_size(counts.canonical, shard),
        }
    } else {
        Produced {
            counts: None,
            whole: UNKNOWN,
            selected: UNKNOWN,
        }
    }
}

/// The distinct scenarios of the sample, or `None` if `deadline` came first. The drawing
/// cannot be interrupted, so with a deadline it runs on a thread of its own that is left
/// behind (it ends with the process) when the deadline comes.
fn draw_until(plan: &Plan, n: u64, seed: u64, deadline: Option<Instant>) -> Option<Vec<Gen>> {
    let (bound, sampling) = (plan.bound, plan.sampling);
    let Some(deadline) = deadline else {
        return Some(webmcp_generator::sample(&bound, n, seed, sampling));
    };
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("sweep-sample".into())
        .spawn(move || {
            let _ = tx.send(webmcp_generator::sample(&bound, n, seed, sampling));
        })
        .ok()?;
    rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .ok()
}

fn bar_style(total_known: bool) -> indicatif::ProgressStyle {
    let template = if total_known {
        "{prefix} [{bar:30}] {pos}/{len} scenarios, {per_sec}, ETA {eta} {msg}"
    } else {
        "{prefix} {pos} scenarios, {per_sec} {msg}"
    };
    indicatif::ProgressStyle::with_template(template)
        .expect("a valid template")
        .progress_chars("=> ")
}

/// Gives the progress bar its length once the run's number of scenarios is known.
fn set_total(bar: &indicatif::ProgressBar, n: u64) {
    bar.set_length(n);
    bar.set_style(bar_style(true));
}

/// Counts an exhaustive sweep's scenarios for the progress bar, on a thread of its own (a
/// pass over the enumeration; it costs a small fraction of the checking), until `deadline`
/// or until `stop` is set: a count that does not finish leaves the bar without a total.
fn count_for_bar(
    plan: &Plan,
    bar: &indicatif::ProgressBar,
    deadline: Option<Instant>,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    let (bound, shard) = (plan.bound, plan.shard.unwrap_or(Shard::WHOLE));
    let (bar, stop) = (bar.clone(), stop.clone());
    let _ = std::thread::Builder::new()
        .name("sweep-count".into())
        .spawn(move || {
            let (counts, finished) = count_until(&bound, deadline, Some(&stop));
            if finished && !stop.load(std::sync::atomic::Ordering::Relaxed) {
                set_total(&bar, shard_size(counts.canonical, shard));
            }
        });
}

/// Checks every selected scenario on `--jobs` workers (each scenario on one thread, BFS),
/// adding each result to `sweep` as it comes, with a progress bar and ETA. --timeout stops
/// the enumeration as well as the searches.
fn run(plan: &Plan, sweep: &mut Sweep, start: Instant, show_progress: bool) {
    let deadline = deadline_after(start, plan.deadline);
    let stop_count = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let bar = show_progress.then(|| {
        let bar = indicatif::ProgressBar::no_length();
        bar.set_style(bar_style(false));
        bar.set_prefix(format!("sweep {}", plan.bound.preset().unwrap_or("")));
        if plan.sample.is_none() {
            count_for_bar(plan, &bar, deadline, &stop_count);
        }
        bar
    });
    let (work_tx, work_rx) = mpsc::sync_channel::<(u64, Gen)>(plan.jobs * 64);
    let work_rx = std::sync::Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<(Checked, Gen)>();
    std::thread::scope(|scope| {
        let producer_bar = bar.clone();
        let producer = scope.spawn(move || {
            let mut sent = 0u64;
            let produced = produce(
                plan,
                deadline,
                |n| {
                    if let Some(bar) = &producer_bar {
                        set_total(bar, n);
                    }
                },
                |i, g| {
                    sent += 1;
                    match work_tx.send((i, g)) {
                        Ok(()) => ControlFlow::Continue(()),
                        Err(_) => ControlFlow::Break(()),
                    }
                },
            );
            (produced, sent)
        });
        for _ in 0..plan.jobs.max(1) {
            let done_tx = done_tx.clone();
            let work_rx = &work_rx;
            scope.spawn(move || loop {
                let next = work_rx.lock().expect("no worker panics").recv();
                let Ok((index, gen)) = next else {
                    break;
                };
                let c = check_one(plan, index, &gen, start);
                if done_tx.send((c, gen)).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        let mut violated = std::collections::BTreeSet::new();
        for (c, gen) in done_rx {
            if let Some(bar) = &bar {
                violated.extend(c.violated.iter().map(|(p, _)| *p));
                bar.inc(1);
                if !violated.is_empty() {
                    bar.set_message(format!("{} properties violated", violated.len()));
                }
            }
            sweep.add(&c, &gen);
        }
        let (produced, sent) = producer.join().expect("the producer does not panic");
        sweep.counts = produced.counts;
        sweep.whole = produced.whole;
        sweep.selected = produced.selected;
        // A sample the deadline stopped handing out: the scenarios never sent were not
        // started either.
        if produced.selected != UNKNOWN && sent < produced.selected {
            let unsent = produced.selected - sent;
            sweep.skipped += unsent;
            sweep.incomplete += unsent;
        }
    });
    stop_count.store(true, std::sync::atomic::Ordering::Relaxed);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}

fn check_one(plan: &Plan, index: u64, gen: &Gen, start: Instant) -> Checked {
    let mut c = Checked {
        index,
        statements: gen.statements(),
        documents: gen.documents(),
        total_states: 0,
        unique_states: 0,
        incomplete: false,
        stopped_by: None,
        skipped: false,
        violated: Vec::new(),
        witnessed: Vec::new(),
    };
    let mut options = plan.options.clone();
    if let Some(limit) = plan.deadline {
        let used = start.elapsed();
        if used >= limit {
            c.incomplete = true;
            c.skipped = true;
            return c;
        }
        options.timeout = Some(limit - used);
    }
    let (_, result) = check_gen(plan.variant, gen, &options);
    c.total_states = result.total_states;
    c.unique_states = result.unique_states;
    c.incomplete = !result.exhaustive || result.is_incomplete();
    // The search's own timeout is what was left of the sweep's: name the sweep's --timeout.
    c.stopped_by = result
        .stopped_by
        .as_ref()
        .map(|r| match (r, plan.deadline) {
            (StopReason::Timeout { .. }, Some(limit)) => timeout_name(limit),
            _ => r.to_string(),
        });
    for (i, p) in result.properties.iter().enumerate() {
        match p.verdict {
            Verdict::Violated => c
                .violated
                .push((i, p.path.as_ref().map_or(0, |path| path.len()))),
            Verdict::Witnessed => c.witnessed.push(i),
            _ => {}
        }
    }
    c
}

/// Compiles a generated scenario through the ordinary path and checks it.
fn check_gen(variant: Variant, gen: &Gen, options: &CheckOptions) -> (WebMcpModel, ScenarioResult) {
    let scenario = webmcp_generator::to_scenario(gen);
    let world = World::compile(&scenario).unwrap_or_else(|e| {
        panic!(
            "generated scenario {} does not compile: {e}\n{}",
            scenario.name,
            serde_json::to_string_pretty(&scenario).unwrap_or_default()
        )
    });
    let model = WebMcpModel::new(world, variant);
    let result = check(model.clone(), options);
    (model, result)
}

impl Sweep {
    fn new(plan: &Plan) -> Sweep {
        Sweep {
            bound: plan.bound,
            variant: plan.variant.name(),
            shard: plan.shard,
            sample: plan.sample,
            counts: None,
            selected: 0,
            whole: 0,
            checked: 0,
            incomplete: 0,
            skipped: 0,
            total_states: 0,
            unique_states: 0,
            seconds: 0.0,
            tally: (0..properties().len())
                .map(|_| PropertyTally::default())
                .collect(),
            largest: None,
            stopped: Vec::new(),
            cpu_seconds: None,
            peak_rss_mib: None,
            options: Default::default(),
        }
    }

    fn add(&mut self, c: &Checked, gen: &Gen) {
        if c.skipped {
            self.skipped += 1;
        } else {
            self.checked += 1;
        }
        if c.incomplete {
            self.incomplete += 1;
        }
        self.total_states += c.total_states as u64;
        self.unique_states += c.unique_states as u64;
        let size = (c.unique_states, std::cmp::Reverse(c.index));
        // A scenario never started is no search, let alone the largest.
        if !c.skipped
            && self
                .largest
                .as_ref()
                .is_none_or(|(u, i, _)| size > (*u, std::cmp::Reverse(*i)))
        {
            self.largest = Some((c.unique_states, c.index, Named::of(gen)));
        }
        if c.incomplete && !c.skipped {
            let by = c.stopped_by.clone().unwrap_or_else(|| "a bound".into());
            self.stopped.push((c.index, Named::of(gen), by));
            self.stopped.sort_by_key(|(i, _, _)| *i);
            self.stopped.truncate(STOPPED_SHOWN);
        }
        for &(p, len) in &c.violated {
            let t = &mut self.tally[p];
            t.violating += 1;
            let key = (c.statements, c.documents, len, c.index);
            if t.smallest.as_ref().is_none_or(|(k, _)| key < *k) {
                t.smallest = Some((key, Named::of(gen)));
            }
        }
        for &p in &c.witnessed {
            self.tally[p].witnessing += 1;
        }
    }

    fn violated(&self) -> usize {
        self.tally.iter().filter(|t| t.violating > 0).count()
    }

    /// How many checked scenarios a bound stopped before their search's end (the
    /// incomplete ones that were started).
    fn stopped_searches(&self) -> u64 {
        self.incomplete.saturating_sub(self.skipped)
    }

    /// Whether some property may be undecided: a bound stopped a search, a scenario was never
    /// started, no scenario was checked at all (an empty sample, or a sweep the deadline
    /// stopped before its first), or --timeout stopped the enumeration (the scenarios never
    /// generated). None of these may read as a pass; nor may an empty shard (`merge` judges
    /// the whole).
    fn undecided(&self) -> bool {
        self.incomplete > 0 || self.checked == 0 || self.enumeration_stopped()
    }

    /// Whether --timeout stopped the enumeration (or the drawing of the sample) before its
    /// end, so that how many scenarios the run had is unknown.
    fn enumeration_stopped(&self) -> bool {
        self.selected == UNKNOWN
    }

    /// The sweep's --timeout as a stop is named (`--timeout 5 s`), or only the flag in a
    /// report that does not record it.
    fn timeout_stop(&self) -> String {
        self.options
            .get("timeout")
            .and_then(|t| t.parse::<u64>().ok())
            .map_or_else(
                || "--timeout".into(),
                |t| timeout_name(Duration::from_secs(t)),
            )
    }

    /// What a stopped enumeration left out, in one sentence; `None` if it reached its end.
    fn stop_note(&self) -> Option<String> {
        if !self.enumeration_stopped() {
            return None;
        }
        let by = self.timeout_stop();
        Some(if self.sample.is_some() {
            format!(
                "{by} came before the sample was drawn: no scenario was generated, and how many \
                 distinct scenarios it holds is unknown"
            )
        } else {
            format!(
                "{by} stopped the enumeration after {} scenario(s) of this run: those never \
                 generated are neither checked nor counted, and how many there are is unknown",
                thousands(self.checked + self.skipped)
            )
        })
    }

    /// Why no scenario was checked, for a report that says so.
    fn why_none_checked(&self) -> String {
        if self.enumeration_stopped() || self.skipped > 0 {
            format!("{} came first", self.timeout_stop())
        } else {
            "an empty sample".into()
        }
    }

    fn is_empty_shard(&self) -> bool {
        self.shard.is_some() && self.selected == 0
    }

    fn exit_code(&self) -> u8 {
        if self.violated() > 0 {
            1
        } else if self.undecided() {
            3
        } else {
            0
        }
    }

    fn smallest(&self, p: usize) -> Option<(&Key, &Named)> {
        self.tally[p].smallest.as_ref().map(|(k, g)| (k, g))
    }
}

/// Writes each violated property's smallest scenario and its counterexample into `dir`. With
/// a deadline, the searches that find the counterexamples end by it, or [`CAUSE_GRACE`] after
/// now if that is later, and minimising is left out once it has passed; a counterexample a
/// bound kept the search from reaching is not written, and the report says why.
fn write_smallest(
    sweep: &mut Sweep,
    plan: &Plan,
    dir: &Path,
    deadline: Option<Instant>,
) -> Result<(), UsageError> {
    let until = with_grace(deadline);
    let past = || until.is_some_and(|u| Instant::now() >= u);
    for p in 0..sweep.tally.len() {
        let Some(gen) = sweep.smallest(p).and_then(|(_, n)| n.gen.clone()) else {
            continue;
        };
        let scenario = webmcp_generator::to_scenario(&gen);
        let text = serde_json::to_string_pretty(&scenario).expect("a scenario serializes") + "\n";
        let scenario_file = dir.join(format!("{}.json", scenario.name));
        webmcp_traces::export::write_atomically(&scenario_file, &text)?;
        let source = scenario_file.display().to_string();
        if past() {
            let why = timeout_name(plan.deadline.unwrap_or_default());
            sweep.tally[p].files = Some((source, Err(why)));
            continue;
        }
        // The sweep's own search (one thread, its bounds and reduction) finds it again.
        let mut options = plan.options.clone();
        options.timeout = until.map(|u| u.saturating_duration_since(Instant::now()));
        let (model, mut result) = check_gen(plan.variant, &gen, &options);
        let name = properties()[p].name;
        result.properties.retain(|x| x.def.name == name);
        let found = result.properties.first_mut().and_then(|prop| {
            let actions: Vec<_> = prop.path.as_ref()?.iter().map(|t| t.action).collect();
            Some((prop, actions))
        });
        let Some((prop, actions)) = found else {
            let why = result
                .why_incomplete()
                .unwrap_or_else(|| "its search did not find it again".into());
            sweep.tally[p].files = Some((source, Err(why)));
            continue;
        };
        // Delta debugging picks, among counterexamples as long as the search's, one without
        // actions the violation does not need; past the deadline the search's is written.
        if !past() {
            let meta = webmcp_traces::trace::Meta {
                scenario: scenario.name.clone(),
                scenario_json: text.clone(),
                source: source.clone(),
                variant: plan.variant.name(),
                property: Some(name.to_string()),
                expect: Some(webmcp_traces::trace::Expect::Violated),
                tool: webmcp_traces::trace::TOOL.into(),
            };
            let min =
                webmcp_traces::minimize::minimize_counterexample(&model, prop.def, meta, &actions)?;
            prop.path = Some(webmcp_profiles::driver::replay_path(&model, min.actions));
        }
        // A trace that cannot be written (a directory at its path) is said in the report, as
        // a bound that kept one from being found is; the sweep's verdicts stand.
        let trace = match webmcp_traces::export::write_result(dir, &model, &source, &text, &result)
        {
            Ok(written) => written
                .first()
                .map(|f| f.display().to_string())
                .ok_or_else(|| "no trace file was written".to_string()),
            Err(e) => Err(format!("it could not be written: {e}")),
        };
        sweep.tally[p].files = Some((source, trace));
    }
    Ok(())
}

fn bound_label(b: &Bound) -> String {
    match b.preset() {
        Some(p) => format!("{p} ({b})"),
        None => b.to_string(),
    }
}

/// `1 statement`, `2 statements`; `many` is the plural form.
fn plural(n: usize, one: &str) -> String {
    let many = match one {
        "property" => "properties".to_string(),
        "witness" => "witnesses".to_string(),
        _ => format!("{one}s"),
    };
    format!("{n} {}", if n == 1 { one } else { &many })
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Always => "always",
        Kind::AtTermination => "at-termination",
        Kind::Sometimes => "sometimes",
    }
}

/// What was swept, in one line: the space (or the sample) and the shard.
fn space_line(s: &Sweep) -> String {
    let mut line = format!("sweep {} under {}: ", bound_label(&s.bound), s.variant);
    match (s.counts, s.sample) {
        (Some(c), _) => line.push_str(&format!(
            "{} raw scenarios, {} canonical",
            thousands(c.raw),
            thousands(c.canonical)
        )),
        (None, Some((n, seed))) => {
            line.push_str(&format!("a sample of {} draws (seed {seed})", thousands(n)))
        }
        (None, None) if s.enumeration_stopped() => {
            line.push_str("an unknown number of scenarios (the enumeration was stopped)")
        }
        (None, None) => {}
    }
    let selected = if s.enumeration_stopped() {
        "an unknown number".to_string()
    } else {
        thousands(s.selected)
    };
    if let Some(shard) = s.shard {
        line.push_str(&format!("; shard {shard}: {selected}"));
    } else if s.sample.is_some() {
        line.push_str(&format!(", {selected} distinct"));
    }
    line
}

fn human(s: &Sweep, timings: bool) -> String {
    let mut out = space_line(s) + "\n";
    out.push_str(&format!(
        "checked {} scenario(s): {} states generated, {} unique{}{}\n",
        thousands(s.checked),
        thousands(s.total_states),
        thousands(s.unique_states),
        if timings {
            format!(", {:.2} s", s.seconds)
        } else {
            String::new()
        },
        if s.incomplete > 0 {
            format!(
                ", INCOMPLETE: {} scenario(s) not exhaustively checked ({} not started){}",
                thousands(s.incomplete),
                thousands(s.skipped),
                s.stop_note().map(|n| format!("; {n}")).unwrap_or_default()
            )
        } else if let Some(note) = s.stop_note() {
            format!(", INCOMPLETE: {note}")
        } else {
            String::new()
        }
    ));
    if let Some((unique, _, gen)) = &s.largest {
        out.push_str(&format!(
            "largest search: {} ({} unique states): {}\n",
            gen.name,
            thousands(*unique as u64),
            gen.summary
        ));
    }
    for (_, gen, by) in &s.stopped {
        out.push_str(&format!("stopped by {by}: {}: {}\n", gen.name, gen.summary));
    }
    let (mut held, mut unwitnessed) = (0, 0);
    for (p, def) in properties().iter().enumerate() {
        let t = &s.tally[p];
        if t.violating > 0 {
            out.push_str(&format!(
                "  VIOLATED   {}: by {} of {} scenarios\n",
                def.name,
                thousands(t.violating),
                thousands(s.checked)
            ));
            if let Some((&(stmts, docs, len, _), gen)) = s.smallest(p) {
                out.push_str(&format!(
                    "             smallest {} ({}, {}, {}): {}\n",
                    gen.name,
                    plural(stmts, "statement"),
                    plural(docs, "document"),
                    plural(len, "action"),
                    gen.summary
                ));
            }
            if let Some(cause) = &t.cause {
                out.push_str(&format!("             root cause: {}\n", cause.label()));
            }
            match &t.files {
                Some((scenario, Ok(trace))) => {
                    out.push_str(&format!("             written: {scenario}, {trace}\n"))
                }
                Some((scenario, Err(why))) => out.push_str(&format!(
                    "             written: {scenario}; its counterexample was not ({why})\n"
                )),
                None => {}
            }
        } else if def.kind == Kind::Sometimes {
            if t.witnessing > 0 {
                out.push_str(&format!(
                    "  witnessed  {}: in {} scenarios\n",
                    def.name,
                    thousands(t.witnessing)
                ));
            } else {
                unwitnessed += 1;
            }
        } else {
            held += 1;
        }
    }
    let groups = by_cause(s);
    if !groups.is_empty() {
        out.push_str(
            "by root cause (of each property's smallest violation; docs/findings.md has a section per fix):\n",
        );
        for (cause, names) in groups {
            out.push_str(&format!("  {cause}: {}\n", names.join(", ")));
        }
    }
    if s.is_empty_shard() {
        out.push_str(
            "  no scenario was checked (an empty shard): nothing is decided; `merge` judges the whole sweep\n",
        );
    } else {
        if s.checked == 0 {
            out.push_str(&format!(
                "  no scenario was checked ({}): nothing is decided\n",
                s.why_none_checked()
            ));
        }
        // A scenario never started is incomplete but was not checked either.
        let finished = s.checked.saturating_sub(s.stopped_searches());
        if s.checked > 0 && finished == 0 {
            out.push_str(
                "  no scenario was searched to the end: no property is shown to hold, and no \
                 witness to be out of reach\n",
            );
        } else if s.checked > 0 && s.undecided() {
            out.push_str(&format!(
                "  {} held in every scenario searched to the end ({} of {} checked); {} reached \
                 by no search (some were cut short, so they may still be reachable)\n",
                plural(held, "property"),
                thousands(finished),
                thousands(s.checked),
                plural(unwitnessed, "witness")
            ));
        } else if s.checked > 0 {
            out.push_str(&format!(
                "  {} held in every scenario; {} reached by none\n",
                plural(held, "property"),
                plural(unwitnessed, "witness")
            ));
        }
    }
    out.push_str(&match s.exit_code() {
        1 if s.variant == "seed" => format!(
            "exit 1: {} properties are violated by generated scenarios. Under seed (the draft as\n\
             written) this is expected: docs/findings.md explains its defects.\n",
            s.violated()
        ),
        1 => format!(
            "exit 1: {} properties are violated by generated scenarios under {}.\n",
            s.violated(),
            s.variant
        ),
        3 => "exit 3: incomplete. A bound stopped some searches or left scenarios unchecked (or\n\
              none was checked); their properties are neither held nor violated.\n"
            .to_string(),
        // A sample's scenarios were each searched to the end; the bound's others were not.
        _ if s.sample.is_some() => format!(
            "exit 0: every property held in each of the {} sampled scenario(s). A sample\n\
             proves nothing of the bound's other scenarios.\n",
            thousands(s.checked)
        ),
        // A shard's scenarios were each searched to the end; the other shards' may not be.
        _ if s.shard.is_some() => format!(
            "exit 0: every property held in each of this shard's {} scenario(s) (of {} in the\n\
             bound). `merge` of every shard's report judges the whole sweep.\n",
            thousands(s.checked),
            thousands(s.whole)
        ),
        _ => "exit 0: every property held in every generated scenario.\n".to_string(),
    });
    out
}

fn json_report(s: &Sweep, timings: bool) -> String {
    let props: Vec<_> = properties()
        .iter()
        .enumerate()
        .map(|(p, def)| {
            let t = &s.tally[p];
            let smallest = s.smallest(p).map(|(&(stmts, docs, len, index), gen)| {
                let mut o = json!({
                    "scenario": gen.name,
                    "index": index,
                    "statements": stmts,
                    "documents": docs,
                    "counterexample_length": len,
                    "summary": gen.summary,
                });
                if let Some((scenario, trace)) = &t.files {
                    o["scenario_file"] = json!(scenario);
                    match trace {
                        Ok(trace) => o["trace_file"] = json!(trace),
                        Err(why) => {
                            o["trace_file"] = serde_json::Value::Null;
                            o["trace_not_written"] = json!(why);
                        }
                    }
                }
                o
            });
            json!({
                "name": def.name,
                "kind": kind_name(def.kind),
                "about": def.about,
                "violating": t.violating,
                "witnessing": t.witnessing,
                "smallest": smallest,
                "root_cause": t.cause.as_ref().map(|c| match c {
                    Cause::Fixes(f) => json!({"fixes": f}),
                    Cause::Several => json!("several"),
                    Cause::New => json!("new"),
                }),
            })
        })
        .collect();
    let mut doc = json!({
        "bound": s.bound.to_string(),
        "preset": s.bound.preset(),
        "variant": s.variant,
        "shard": s.shard.map(|x| x.to_string()),
        "raw": s.counts.map(|c| c.raw),
        "canonical": s.counts.map(|c| c.canonical),
        "sample": s.sample.map(|(n, seed)| json!({"draws": n, "seed": seed})),
        "selected": (!s.enumeration_stopped()).then_some(s.selected),
        "checked": s.checked,
        "incomplete": s.incomplete,
        "not_started": s.skipped,
        "total_states": s.total_states,
        "unique_states": s.unique_states,
        "largest": s.largest.as_ref().map(|(unique, index, gen)| json!({
            "scenario": gen.name,
            "index": index,
            "unique_states": unique,
            "summary": gen.summary,
        })),
        "stopped": s.stopped.iter().map(|(index, gen, by)| json!({
            "scenario": gen.name,
            "index": index,
            "stopped_by": by,
            "summary": gen.summary,
        })).collect::<Vec<_>>(),
        "violated_properties": s.violated(),
        "exit": s.exit_code(),
        "properties": props,
    });
    if let Some(note) = s.stop_note() {
        // Only in a report whose enumeration was stopped: how many scenarios it generated
        // (checked or not started), and what stopped it.
        doc["generated"] = json!(s.checked + s.skipped);
        doc["enumeration_stopped_by"] = json!(s.timeout_stop());
        doc["enumeration_stopped"] = json!(note);
    }
    if timings {
        doc["seconds"] = json!(s.seconds);
        // Process-wide: the whole sweep, all jobs.
        doc["cpu_seconds"] = json!(s.cpu_seconds);
        doc["peak_rss_mib"] = json!(s.peak_rss_mib);
    }
    if let Some(shard) = s.shard {
        let record = crate::shard::ShardRecord {
            command: "sweep".into(),
            index: shard.index,
            count: shard.count,
            options: s.options.clone(),
            total: s.whole,
            items: None,
        };
        doc[crate::shard::KEY] = serde_json::to_value(record).expect("JSON");
        if s.whole == UNKNOWN {
            doc[crate::shard::KEY]["total"] = serde_json::Value::Null;
        }
    }
    serde_json::to_string_pretty(&doc).expect("JSON values serialize")
}

fn junit(s: &Sweep, timings: bool) -> String {
    let mut cases = String::new();
    let (mut failures, mut errors) = (0, 0);
    let suite = format!("sweep {} [{}]", s.bound, s.variant);
    for (p, def) in properties().iter().enumerate() {
        let t = &s.tally[p];
        let body = if t.violating > 0 {
            failures += 1;
            let smallest = s
                .smallest(p)
                .map(|(_, g)| format!("{}: {}", g.name, g.summary))
                .unwrap_or_default();
            format!(
                "<failure message=\"{} violated by {} of {} generated scenarios\">smallest {}</failure>",
                xml_escape(def.name),
                t.violating,
                s.checked,
                xml_escape(&smallest)
            )
        } else if s.is_empty_shard() && def.kind != Kind::Sometimes {
            errors += 1;
            "<error type=\"incomplete\" message=\"not checked: this shard holds no scenario\"/>"
                .to_string()
        } else if s.undecided() && def.kind != Kind::Sometimes {
            errors += 1;
            let why = s
                .stop_note()
                .unwrap_or_else(|| "a bound stopped some searches".to_string());
            format!(
                "<error type=\"incomplete\" message=\"incomplete: {}\"/>",
                xml_escape(&why)
            )
        } else {
            String::new()
        };
        cases.push_str(&format!(
            "    <testcase classname=\"webmcp-check.sweep\" name=\"{}\">{}</testcase>\n",
            xml_escape(def.name),
            body
        ));
    }
    let time = if timings {
        format!(" time=\"{:.3}\"", s.seconds)
    } else {
        String::new()
    };
    let n = properties().len();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"webmcp-check\" tests=\"{n}\" failures=\"{failures}\" errors=\"{errors}\">\n  <testsuite name=\"{}\" tests=\"{n}\" failures=\"{failures}\" errors=\"{errors}\"{time}>\n{cases}  </testsuite>\n</testsuites>\n",
        xml_escape(&suite)
    )
}

fn markdown(s: &Sweep, timings: bool) -> String {
    let mut out = format!("## webmcp-check sweep\n\n{}.\n\n", space_line(s));
    out.push_str(&format!(
        "Checked {} scenario(s), {} states generated, {} unique{}{}.\n\n",
        thousands(s.checked),
        thousands(s.total_states),
        thousands(s.unique_states),
        if timings {
            format!(", {:.2} s", s.seconds)
        } else {
            String::new()
        },
        if s.incomplete > 0 {
            format!(
                "; **incomplete**: {} scenario(s) not exhaustively checked{}",
                thousands(s.incomplete),
                s.stop_note().map(|n| format!("; {n}")).unwrap_or_default()
            )
        } else if let Some(note) = s.stop_note() {
            format!("; **incomplete**: {note}")
        } else {
            String::new()
        }
    ));
    if s.checked == 0 {
        out.push_str(&if s.is_empty_shard() {
            "No scenario was checked (an empty shard): nothing is decided; `merge` judges the whole sweep.\n".to_string()
        } else {
            format!(
                "No scenario was checked ({}): nothing is decided.\n",
                s.why_none_checked()
            )
        });
        return out;
    }
    if s.violated() == 0 {
        out.push_str("No property is violated by any generated scenario.\n");
        return out;
    }
    out.push_str("| property | violating scenarios | smallest | statements | documents | actions | root cause |\n|---|---:|---|---:|---:|---:|---|\n");
    for (p, def) in properties().iter().enumerate() {
        let t = &s.tally[p];
        if let Some((&(stmts, docs, len, _), gen)) = s.smallest(p) {
            out.push_str(&format!(
                "| `{}` | {} | `{}`: {} | {stmts} | {docs} | {len} | {} |\n",
                def.name,
                t.violating,
                gen.name,
                gen.summary.replace('|', "\\|"),
                t.cause.as_ref().map(Cause::label).unwrap_or_default()
            ));
        }
    }
    out
}

fn github(s: &Sweep) -> String {
    let mut out = String::new();
    for (p, def) in properties().iter().enumerate() {
        let t = &s.tally[p];
        let Some((_, gen)) = s.smallest(p) else {
            continue;
        };
        // Point at the scenario file when --out wrote one; otherwise there is no file.
        let file = t.files.as_ref().map_or_else(String::new, |(f, _)| {
            format!("file={},", github_property(f))
        });
        out.push_str(&format!(
            "::error {file}title={}::{}\n",
            github_property(&format!("webmcp-check sweep {}", def.name)),
            github_data(&format!(
                "{} is violated by {} of {} generated scenarios ({}); the smallest, {}: {}",
                def.name, t.violating, s.checked, s.bound, gen.name, gen.summary
            ))
        ));
    }
    if s.undecided() {
        out.push_str(&format!(
            "::warning title={}::{}\n",
            github_property("webmcp-check sweep incomplete"),
            github_data(&format!(
                "{} generated scenario(s) were not exhaustively checked (a bound stopped them), of {} checked{}",
                s.incomplete,
                s.checked,
                s.stop_note().map(|n| format!("; {n}")).unwrap_or_default()
            ))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: SweepArgs,
    }

    fn sweep(args: &[&str]) -> Sweep {
        let cli = Cli::parse_from(std::iter::once("sweep").chain(args.iter().copied()));
        match plan(&cli.args) {
            Ok(plan) => Sweep::new(&plan),
            Err(UsageError(e)) => panic!("a valid sweep: {e}"),
        }
    }

    /// Scenarios the deadline left unstarted are incomplete, not searches a bound cut short:
    /// the scenarios that were searched to the end are still counted as such.
    #[test]
    fn scenarios_never_started_are_not_searches_cut_short() {
        let mut s = sweep(&["--bound", "tiny", "--variant", "proposed"]);
        (s.selected, s.whole) = (10, 10);
        // 5 checked, of which 1 was stopped by a bound; 5 never started.
        (s.checked, s.skipped, s.incomplete) = (5, 5, 6);
        let text = human(&s, false);
        assert!(
            text.contains("held in every scenario searched to the end (4 of 5 checked)"),
            "{text}"
        );
        assert!(
            !text.contains("no scenario was searched to the end"),
            "{text}"
        );
        assert_eq!(s.exit_code(), 3);
        // Every checked one stopped by a bound: nothing was searched to the end.
        s.incomplete = 10;
        let text = human(&s, false);
        assert!(
            text.contains("no scenario was searched to the end"),
            "{text}"
        );
    }

    /// A shard that held everywhere says it speaks for its own scenarios only.
    #[test]
    fn a_shard_that_held_speaks_for_its_scenarios_only() {
        let mut s = sweep(&["--bound", "tiny", "--variant", "proposed", "--shard", "2/4"]);
        (s.selected, s.whole, s.checked) = (3, 12, 3);
        assert_eq!(s.exit_code(), 0);
        let text = human(&s, false);
        assert!(
            text.contains(
                "exit 0: every property held in each of this shard's 3 scenario(s) (of 12"
            ),
            "{text}"
        );
        assert!(!text.contains("in every generated scenario"), "{text}");
    }
}
