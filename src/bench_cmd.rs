//! `webmcp-check bench`: measure the checker (docs/performance.md), and the hidden
//! `bench-child` that measures one run in a fresh process.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use webmcp_profiles::bench::{
    self, ChildSpec, Comparison, Family, Machine, Report, Row, ScalingConfig, Target,
};

use crate::{catalog, UsageError};
use webmcp_model::{Variant, WebMcpModel};

/// A family size for --max-size: 1 to 64.
fn largest_size(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=64).contains(&n) => Ok(n),
        _ => Err("a size from 1 to 64".into()),
    }
}

/// How many runs a measurement takes: each is a fresh process, and `--timeout` bounds each
/// one, not their sum, so the count is bounded too.
fn repeat_count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_REPEAT).contains(&n) => Ok(n),
        _ => Err(format!("a number of runs from 1 to {MAX_REPEAT}")),
    }
}

/// The most runs one measurement takes: a median of a thousand is more than a table needs.
const MAX_REPEAT: usize = 1000;

/// A number of seconds above zero, finite.
fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err("a number of seconds above 0 (e.g. 20 or 2.5)".into()),
    }
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Print the scenario file of a family at a size (NAME:N, e.g. iframes:4) and exit, to
    /// check it with `check --scenario-file` (on a cluster, with --engine timely).
    #[arg(long, value_name = "NAME:N", conflicts_with_all = ["scaling", "compare_reduction", "compare_frontier", "compare_engines", "scenarios", "repeat", "threads", "symmetry", "format", "timeout", "memory_limit", "svg", "family_sizes"])]
    print_family: Option<String>,
    /// Runs per measurement (1 to 1000), each in a fresh process; the table shows medians
    /// (default: 5, or 1 with --scaling).
    #[arg(long, value_name = "N", value_parser = repeat_count)]
    repeat: Option<usize>,
    /// Measure only these embedded scenarios (repeatable; default: all; a name given twice is
    /// measured once).
    #[arg(long = "scenario", value_name = "NAME")]
    scenarios: Vec<String>,
    /// Checker threads for the per-scenario table and the comparisons, 1 to 256.
    #[arg(long, value_name = "N", default_value_t = 1)]
    threads: usize,
    /// Per-scenario table with symmetry reduction (one-thread BFS).
    #[arg(long)]
    symmetry: bool,
    /// How to print the measurements.
    #[arg(long, value_enum, default_value_t = BenchFormat::Markdown)]
    format: BenchFormat,
    /// Run the scaling families (1 and 2 threads, and 1 thread with symmetry reduction where
    /// the checker has it) instead of the standard scenarios; those configurations are its
    /// own, so it takes neither --threads nor --symmetry.
    #[arg(long, conflicts_with_all = ["scenarios", "threads", "symmetry"])]
    scaling: bool,
    /// With --scaling: only these families (tabs, iframes, registrations, executions,
    /// caller-target).
    #[arg(long = "family", value_name = "NAME", requires = "scaling")]
    families: Vec<String>,
    /// With --scaling: a size whose run takes longer than this many seconds is the last.
    #[arg(long, default_value_t = 20.0, value_name = "SECONDS", requires = "scaling", value_parser = positive_seconds)]
    limit_seconds: f64,
    /// With --scaling: the largest size tried (at least 1).
    #[arg(long, default_value_t = 8, value_name = "N", requires = "scaling", value_parser = largest_size)]
    max_size: usize,
    /// Stop any one run after this many seconds (default: 120; 1800 with --targets).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<u64>,
    /// Stop any one run when its resident memory exceeds this many MiB (with --targets, a
    /// target's own memory bound where it is lower).
    #[arg(long, default_value_t = 4096, value_name = "MIB")]
    memory_limit: u64,
    /// With --scaling: write the plot here (SVG).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Instead of the per-scenario table, measure each target without and with partial-order
    /// reduction, side by side (--threads threads). Targets: the --scenario names and the
    /// --family-size NAME:N sizes (default: every standard scenario).
    #[arg(long, conflicts_with_all = ["scaling", "symmetry", "svg"])]
    compare_reduction: bool,
    /// Instead of the per-scenario table, measure each target with the breadth-first frontier
    /// kept as values and as bytes, side by side (--threads threads; targets as
    /// --compare-reduction).
    #[arg(long, conflicts_with_all = ["scaling", "symmetry", "svg", "compare_reduction"])]
    compare_frontier: bool,
    /// Instead of the per-scenario table, measure each target on the local engine with
    /// --threads threads and on timely dataflow with as many workers (check --engine timely),
    /// side by side, with the bytes the workers sent one another per state (targets as
    /// --compare-reduction).
    #[arg(long, conflicts_with_all = ["scaling", "symmetry", "svg", "compare_reduction", "compare_frontier"])]
    compare_engines: bool,
    /// With --compare-reduction, --compare-frontier or --compare-engines: a family at a size, as NAME:N
    /// (repeatable).
    #[arg(long = "family-size", value_name = "NAME:N")]
    family_sizes: Vec<String>,
    /// Instead of the per-scenario table, measure every performance target of
    /// docs/performance.md in this one run and judge each met or missed (exit 1 if one is
    /// missed, 3 if a bound left one undecided); --repeat runs per timed measurement (default
    /// 3), --timeout bounds each search without a deadline of its own (default 1800).
    #[arg(long, conflicts_with_all = ["scaling", "symmetry", "svg", "compare_reduction", "compare_frontier", "compare_engines", "family_sizes", "scenarios", "print_family", "threads", "families", "max_size", "limit_seconds"])]
    targets: bool,
}

/// Seconds before a run of the scaling series or a comparison is stopped, unless --timeout.
const DEFAULT_TIMEOUT: u64 = 120;
/// Seconds before a search of `--targets` without a deadline of its own is stopped, unless
/// --timeout: the unreduced executions search at size 5 takes 660–970 s on the 2-core
/// machines of docs/performance.md, and a stopped search leaves its target undecided.
const DEFAULT_TARGETS_TIMEOUT: u64 = 1800;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BenchFormat {
    Markdown,
    Json,
}

/// Measures one run in this (fresh) process and prints it as JSON.
#[derive(clap::Args)]
pub struct BenchChildArgs {
    #[arg(long, value_name = "NAME")]
    scenario: Option<String>,
    #[arg(long, value_name = "NAME", requires = "size")]
    family: Option<String>,
    #[arg(long, value_name = "N")]
    size: Option<usize>,
    #[arg(long, value_name = "N", default_value_t = 1)]
    threads: usize,
    #[arg(long)]
    symmetry: bool,
    #[arg(long, value_enum, default_value = "none")]
    reduction: crate::ReductionArg,
    #[arg(long)]
    forget_facts: bool,
    /// The text and fixes, as `check --variant` takes them (e.g. `seed@2026-08`).
    #[arg(long, value_name = "VARIANT")]
    variant: Option<String>,
    #[arg(long, value_enum, default_value = "auto")]
    frontier: crate::FrontierArg,
    #[arg(long)]
    first_counterexamples: bool,
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<u64>,
    #[arg(long, value_name = "MIB")]
    memory_limit: Option<u64>,
    /// Explore on timely dataflow with this many workers.
    #[arg(long, value_name = "W")]
    timely_workers: Option<usize>,
    /// Time the one-thread search by phase (`check --phases`).
    #[arg(long)]
    phases: bool,
}

pub fn bench_child(args: &BenchChildArgs) -> Result<ExitCode, UsageError> {
    let (target, world) = match (&args.scenario, &args.family, args.size) {
        (Some(name), None, _) => (Target::Scenario(name.clone()), catalog::named(name)?),
        (None, Some(family), Some(size)) => {
            let f = family_named(family)?;
            (Target::Family(f, size), f.world(size)?)
        }
        _ => {
            return Err(UsageError(
                "bench-child needs --scenario NAME or --family NAME --size N".into(),
            ))
        }
    };
    if args.symmetry && !bench::SYMMETRY_AVAILABLE {
        return Err(UsageError("this build has no symmetry reduction".into()));
    }
    if args.reduction == crate::ReductionArg::Sleep {
        return Err(UsageError(
            "bench-child measures --reduction none or por".into(),
        ));
    }
    if args.phases && (args.threads > 1 || args.timely_workers.is_some()) {
        return Err(UsageError(
            "--phases times the one-thread search: it needs --threads 1, not --timely-workers"
                .into(),
        ));
    }
    if args.forget_facts && args.timely_workers.is_some() {
        return Err(UsageError(
            "--forget-facts runs in the local engine's breadth-first search, not on timely".into(),
        ));
    }
    let variant = Variant::parse(args.variant.as_deref().unwrap_or("seed"))?;
    let spec = ChildSpec {
        target,
        threads: crate::threads_arg(args.threads)?,
        symmetry: args.symmetry,
        por: args.reduction == crate::ReductionArg::Por,
        forget_facts: args.forget_facts,
        variant: args.variant.clone(),
        frontier: args.frontier.engine(),
        first_counterexamples: args.first_counterexamples,
        timeout: args.timeout,
        memory_limit_mib: args.memory_limit,
        timely_workers: match args.timely_workers {
            Some(w) => Some(crate::threads_arg(w)?),
            None => None,
        },
        time_phases: args.phases,
    };
    let m = bench::measure(WebMcpModel::new(world, variant), &spec);
    outln!("{}", serde_json::to_string(&m).expect("JSON"));
    Ok(ExitCode::SUCCESS)
}

/// A family at a size, as NAME:N with N from 1 to 64.
fn family_size(text: &str) -> Result<(Family, usize), UsageError> {
    let (name, size) = text
        .split_once(':')
        .ok_or_else(|| UsageError(format!("a family at a size is NAME:N, not \"{text}\"")))?;
    let size: usize = size
        .parse()
        .ok()
        .filter(|n| (1..=64).contains(n))
        .ok_or_else(|| UsageError(format!("{text}: N is 1 to 64")))?;
    Ok((family_named(name)?, size))
}

fn family_named(name: &str) -> Result<Family, UsageError> {
    Family::parse(name).ok_or_else(|| {
        let known: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
        UsageError(format!(
            "unknown family \"{name}\" (one of {})",
            known.join(", ")
        ))
    })
}

/// `names` in the order given, each once: a name given twice is one row, as `check` checks a
/// scenario named twice once, so the totals count each scenario once.
fn once_each(names: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .iter()
        .filter(|n| seen.insert(n.as_str()))
        .cloned()
        .collect()
}

pub fn bench(args: &BenchArgs) -> Result<ExitCode, UsageError> {
    crate::threads_arg(args.threads)?;
    // As `check` refuses them: a run bounded by nothing measures nothing.
    crate::MemoryLimitArg {
        memory_limit: args.memory_limit,
    }
    .apply()?;
    if args.timeout == Some(0) {
        return Err(UsageError("--timeout must be at least 1 (seconds)".into()));
    }
    if args.symmetry && !bench::SYMMETRY_AVAILABLE {
        return Err(UsageError("this build has no symmetry reduction".into()));
    }
    if args.svg.is_some() && !args.scaling {
        return Err(UsageError(
            "--svg plots the scaling series: add --scaling".into(),
        ));
    }
    if let Some(text) = &args.print_family {
        let (family, size) = family_size(text)?;
        // Only a scenario `check --scenario-file` takes (within the model's limits).
        family.world(size)?;
        outln!(
            "{}",
            serde_json::to_string_pretty(&family.scenario(size)).expect("JSON")
        );
        return Ok(ExitCode::SUCCESS);
    }
    let exe = std::env::current_exe()
        .map_err(|e| UsageError(format!("cannot find this executable: {e}")))?;
    let machine = Machine::this();
    let command = std::iter::once("webmcp-check".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    if args.targets {
        return targets(args, &exe, &machine, &command);
    }
    if args.compare_reduction {
        return compare(Comparison::Reduction, args, &exe, &machine, &command);
    }
    if args.compare_frontier {
        return compare(Comparison::Frontier, args, &exe, &machine, &command);
    }
    if args.compare_engines {
        return compare(Comparison::Engine, args, &exe, &machine, &command);
    }
    if !args.family_sizes.is_empty() {
        return Err(UsageError(
            "--family-size names a target of --compare-reduction, --compare-frontier or --compare-engines: add one"
                .into(),
        ));
    }
    // The plot's file is checked before the series runs, not after.
    let svg_output = crate::output_file(args.svg.as_deref())?;
    let (rows, scaling) = if args.scaling {
        let families = if args.families.is_empty() {
            Family::ALL.to_vec()
        } else {
            args.families
                .iter()
                .map(|n| family_named(n))
                .collect::<Result<_, _>>()?
        };
        let config = ScalingConfig {
            families,
            configs: bench::scaling_configs(),
            limit_seconds: args.limit_seconds,
            max_size: args.max_size.max(1),
            timeout: args.timeout.unwrap_or(DEFAULT_TIMEOUT),
            memory_limit_mib: args.memory_limit,
            repeat: args.repeat.unwrap_or(1),
        };
        let points = bench::run_scaling(&exe, &config, &mut |p| {
            errln!(
                "bench: {} n={} threads={}{}: {} unique states in {:.3} s",
                p.family.name(),
                p.size,
                p.row.threads,
                if p.row.symmetry { " symmetry" } else { "" },
                p.row.unique_states,
                p.row.seconds
            )
        })
        .map_err(|e| UsageError(e.to_string()))?;
        if let (Some(path), Some(output)) = (&args.svg, svg_output) {
            if bench::scaling_plottable(&points) {
                output
                    .commit(
                        &bench::scaling_svg(&points)
                            .map_err(|e| UsageError(format!("{}: {e}", path.display())))?,
                    )
                    .map_err(|e| UsageError(e.to_string()))?;
            } else {
                // Every point stopped by a bound: the table says so, and exits 3.
                errln!(
                    "bench: {}: not written: no exhaustive point to plot",
                    path.display()
                );
            }
        }
        (Vec::new(), points)
    } else {
        let names: Vec<String> = if args.scenarios.is_empty() {
            catalog::all()?.into_iter().map(|w| w.name).collect()
        } else {
            for n in &args.scenarios {
                catalog::named(n)?;
            }
            once_each(&args.scenarios)
        };
        let repeat = args.repeat.unwrap_or(5);
        let mut rows: Vec<Row> = Vec::new();
        for name in names {
            let spec = ChildSpec {
                target: Target::Scenario(name.clone()),
                threads: args.threads,
                symmetry: args.symmetry,
                por: false,
                forget_facts: false,
                variant: None,
                frontier: Default::default(),
                first_counterexamples: true,
                timeout: Some(args.timeout.unwrap_or(DEFAULT_TIMEOUT)),
                memory_limit_mib: Some(args.memory_limit),
                timely_workers: None,
                time_phases: false,
            };
            let row = bench::measure_repeated(&exe, &spec, repeat)
                .map_err(|e| UsageError(e.to_string()))?;
            errln!(
                "bench: {name}: {} unique states, median {:.3} s over {repeat} runs",
                row.unique_states,
                row.seconds
            );
            rows.push(row);
        }
        (rows, Vec::new())
    };
    let exit = stopped_exit(
        &rows
            .iter()
            .chain(scaling.iter().map(|p| &p.row))
            .collect::<Vec<_>>(),
    );
    match args.format {
        BenchFormat::Markdown if args.scaling => {
            out!("{}", bench::scaling_markdown(&scaling, &machine, &command))
        }
        BenchFormat::Markdown => out!("{}", bench::markdown_table(&rows, &machine, &command)),
        BenchFormat::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&Report {
                command,
                machine,
                rows,
                scaling,
            })
            .expect("JSON")
        ),
    }
    Ok(exit)
}

/// Exit 3, the stops named on stderr, when a bound (--timeout, --memory-limit) stopped a
/// measured run: its row measures a search that did not finish, never a pass. Else 0.
fn stopped_exit(rows: &[&Row]) -> ExitCode {
    let stopped: Vec<String> = rows
        .iter()
        .filter(|r| !r.exhaustive)
        .map(|r| {
            format!(
                "{} ({})",
                r.scenario,
                r.stopped.as_deref().unwrap_or("not exhaustive")
            )
        })
        .collect();
    if stopped.is_empty() {
        return ExitCode::SUCCESS;
    }
    errln!(
        "bench: exit 3: incomplete, a bound stopped {} of {} measured row(s): {}",
        stopped.len(),
        rows.len(),
        stopped.join(", ")
    );
    ExitCode::from(3)
}

/// `bench --compare-reduction` (each target without and with partial-order reduction) and
/// `bench --compare-frontier` (with the frontier as values and as bytes).
fn compare(
    comparison: Comparison,
    args: &BenchArgs,
    exe: &std::path::Path,
    machine: &Machine,
    command: &str,
) -> Result<ExitCode, UsageError> {
    let mut targets = Vec::new();
    for name in once_each(&args.scenarios) {
        catalog::named(&name)?;
        targets.push(Target::Scenario(name));
    }
    for text in once_each(&args.family_sizes) {
        let (family, size) = family_size(&text)?;
        targets.push(Target::Family(family, size));
    }
    if targets.is_empty() {
        targets = catalog::all()?
            .into_iter()
            .map(|w| Target::Scenario(w.name))
            .collect();
    }
    let [a, b] = comparison.labels();
    let run = bench::CompareRun {
        threads: crate::threads_arg(args.threads)?,
        repeat: args.repeat.unwrap_or(1),
        timeout: Some(args.timeout.unwrap_or(DEFAULT_TIMEOUT)),
        memory_limit_mib: args.memory_limit,
    };
    let pairs = bench::compare(exe, comparison, &targets, &run, &mut |p| {
        errln!(
            "bench: {}: {} states ({a}), {} ({b})",
            p.target,
            p.first.unique_states,
            p.second.unique_states
        )
    })
    .map_err(|e| UsageError(e.to_string()))?;
    match args.format {
        BenchFormat::Markdown => out!(
            "{}",
            bench::comparison_markdown(comparison, &pairs, machine, command)
        ),
        BenchFormat::Json => {
            let pairs: Vec<_> = pairs.iter().map(|p| p.to_json(comparison)).collect();
            outln!("{}", serde_json::to_string_pretty(&pairs).expect("JSON"))
        }
    }
    let stopped = pairs
        .iter()
        .any(|p| !p.first.exhaustive || !p.second.exhaustive);
    Ok(if stopped {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

/// `bench --targets`: every performance target measured in one run, each judged.
fn targets(
    args: &BenchArgs,
    exe: &std::path::Path,
    machine: &Machine,
    command: &str,
) -> Result<ExitCode, UsageError> {
    let plan = bench::targets::Plan::standard(
        args.repeat.unwrap_or(3),
        args.timeout.unwrap_or(DEFAULT_TARGETS_TIMEOUT),
        args.memory_limit,
    );
    let standard = catalog::all()?;
    let report = bench::targets::run(exe, &plan, &standard, &mut |o| {
        errln!("bench: {}: {}", o.target, o.measured)
    })
    .map_err(|e| UsageError(e.to_string()))?;
    match args.format {
        BenchFormat::Markdown => out!("{}", bench::targets::markdown(&report, machine, command)),
        BenchFormat::Json => outln!("{}", serde_json::to_string_pretty(&report).expect("JSON")),
    }
    Ok(ExitCode::from(report.exit_status()))
}
