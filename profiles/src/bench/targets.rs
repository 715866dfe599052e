//! `bench --targets`: the performance targets the checker is held to, every one measured in
//! one run, side by side, and judged met or missed; where partial-order reduction misses its
//! target, or a deadline searched with it is missed, the profile of what blocks it.
//!
//! The targets (`docs/performance.md`, "Where we stand against the targets"):
//!
//! - partial-order reduction leaves at most a tenth of the states of the executions and
//!   iframes families at their largest exhaustive sizes;
//! - four same-origin iframes each registering a tool, exhaustively, in 60 s on 2 threads;
//! - one caller and one cross-origin target, 3 abortable executions, the target removable:
//!   exhaustively in under 20 s and under 2 GB;
//! - at least 1,000,000 unique states per second of CPU time on the largest standard scenario;
//! - 2 threads at least 1.7 times as fast as one;
//! - the standard suite's verdicts the same under every search configuration.
//!
//! Every search runs in a fresh child process ([`super::run_child`]) so that its time and
//! peak memory are its own; the verdict comparison runs in this process. A target whose
//! measurement a bound stopped before it could decide (a comparison that did not finish) is
//! *undecided*, never met.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use webmcp_checker::fingerprint::fingerprint;
use webmcp_model::{WebMcpModel, World};

use super::{
    measure_repeated, median_row, model_of, options, run_child, seconds_text, stopped_text,
    thousands, ChildError, ChildSpec, CpuTimes, Family, Machine, PhasesRecord, Row, Target,
};
use crate::driver::{check, CheckOptions, Reduction};

/// 2 GB, the caller/target target's memory bound, in MiB (2 × 10⁹ bytes).
pub const TWO_GB_MIB: u64 = 1907;

/// What `bench --targets` measures, and the bar each measurement must clear.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Families at a size that partial-order reduction must cut by [`Plan::fewer_states`].
    pub reduction: Vec<(Family, usize)>,
    pub fewer_states: f64,
    /// Searches that must finish, exhaustively, within a time and a memory bound.
    pub deadlines: Vec<Deadline>,
    /// Unique states per second of CPU time on the largest standard scenario.
    pub states_per_cpu_second: f64,
    /// The search two threads must speed up by [`Plan::speedup`].
    pub parallel: (Family, usize),
    pub speedup: f64,
    /// Runs per timed measurement (medians); the comparisons of states run once.
    pub repeat: usize,
    /// The timeout of every search that has no deadline of its own, in seconds.
    pub timeout: u64,
    /// The memory bound of every search that has none of its own, in MiB.
    pub memory_limit_mib: u64,
}

/// A search that must finish exhaustively within `seconds` and `memory_limit_mib`.
#[derive(Clone, Debug)]
pub struct Deadline {
    pub family: Family,
    pub size: usize,
    pub threads: usize,
    pub por: bool,
    /// Dead facts forgotten and symmetry reduction too (`--forget-facts --symmetry`).
    pub every_reduction: bool,
    /// The text, where not the draft as written (`--variant`, e.g. `seed@2026-08`).
    pub variant: Option<&'static str>,
    pub seconds: u64,
    /// Its own memory bound, or `None` for the plan's.
    pub memory_limit_mib: Option<u64>,
}

impl Plan {
    /// The targets as `docs/performance.md` states them, at the sizes they name: the
    /// largest exhaustive size of the executions family is 5 (153 million states, 10 GiB,
    /// about ten minutes on one thread without the reduction), the iframes family's 3.
    pub fn standard(repeat: usize, timeout: u64, memory_limit_mib: u64) -> Plan {
        // With every reduction the checker has, on the text as written and on the text the
        // issue measured (its figures are of revision 2026-08).
        let caller_target = |variant| Deadline {
            family: Family::CallerTarget,
            size: 3,
            threads: 2,
            por: true,
            every_reduction: true,
            variant,
            seconds: 20,
            memory_limit_mib: Some(TWO_GB_MIB),
        };
        Plan {
            reduction: vec![(Family::Executions, 5), (Family::Iframes, 3)],
            fewer_states: 10.0,
            deadlines: vec![
                Deadline {
                    family: Family::Iframes,
                    size: 4,
                    threads: 2,
                    por: true,
                    every_reduction: false,
                    variant: None,
                    seconds: 60,
                    memory_limit_mib: None,
                },
                caller_target(None),
                caller_target(Some("seed@2026-08")),
            ],
            states_per_cpu_second: 1_000_000.0,
            parallel: (Family::Iframes, 3),
            speedup: 1.7,
            repeat,
            timeout,
            memory_limit_mib,
        }
    }
}

/// Whether a target is met.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Met,
    Missed,
    /// A bound stopped a measurement the target needs whole.
    Undecided,
}

impl Status {
    fn text(self) -> &'static str {
        match self {
            Status::Met => "met",
            Status::Missed => "**missed**",
            Status::Undecided => "undecided",
        }
    }
}

/// One target, what was measured for it, and whether it is met.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub target: String,
    pub measured: String,
    pub status: Status,
    /// The runs behind the measurement (none for the verdict comparison).
    pub runs: Vec<Row>,
    /// The share of the machine's CPU time that its hypervisor gave to other guests
    /// ([`CpuTimes::steal_share`]) while this target was measured; `None` for a target
    /// that times nothing (the verdicts) and where `/proc/stat` is not readable.
    pub steal: Option<f64>,
}

/// Why partial-order reduction expands a scenario's states fully (the profile of a missed
/// reduction target): at each such state, why each thread's step is not safe.
#[derive(Clone, Debug, Serialize)]
pub struct ReductionProfile {
    pub scenario: String,
    pub states: usize,
    /// Whether the profile stopped at its state bound before visiting every state.
    pub truncated: bool,
    /// States expanded by a persistent set (a safe step alone, or queuing steps together).
    pub reduced: usize,
    /// States expanded fully (with at least one enabled action).
    pub full: usize,
    /// Of those, the states with no thread at all: only tasks, tool bodies and the
    /// environment can move there, and those are whole tasks already.
    pub no_thread: usize,
    /// Thread-states by blocker, commonest first.
    pub blockers: Vec<(String, usize)>,
}

/// Where a scenario's search spends its time, phase by phase (the profile of a missed
/// throughput target): one more run of it, timed by phase (`check --phases`).
#[derive(Clone, Debug, Serialize)]
pub struct PhaseProfile {
    pub scenario: String,
    pub unique_states: usize,
    pub phases: PhasesRecord,
}

/// Everything `bench --targets` measured.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub outcomes: Vec<Outcome>,
    pub profiles: Vec<ReductionProfile>,
    /// Per missed throughput target: where the search's time went.
    pub phase_profiles: Vec<PhaseProfile>,
    /// The hypervisor's share of the machine's CPU time over the whole run, as
    /// [`Outcome::steal`].
    pub steal: Option<f64>,
}

impl Report {
    /// 0 every target met, 1 one missed, 3 none missed but one undecided.
    pub fn exit_status(&self) -> u8 {
        let any = |s| self.outcomes.iter().any(|o| o.status == s);
        if any(Status::Missed) {
            1
        } else if any(Status::Undecided) {
            3
        } else {
            0
        }
    }
}

/// The most states [`reduction_profile`] visits (its visited set holds fingerprints, its
/// queue whole states).
pub const PROFILE_STATE_BOUND: usize = 2_000_000;

/// Measures every target of `plan`: the searches in child processes of `exe`, the verdicts of
/// `standard` (the standard scenarios) in this one. `progress` hears of each finished target.
pub fn run(
    exe: &Path,
    plan: &Plan,
    standard: &[World],
    progress: &mut dyn FnMut(&Outcome),
) -> Result<Report, ChildError> {
    let start = CpuTimes::now();
    let mut outcomes = Vec::new();
    let mut profiles = Vec::new();
    let mut done = |o: Outcome| {
        progress(&o);
        outcomes.push(o);
    };

    for &(family, size) in &plan.reduction {
        let outcome = timed(|| reduction_target(exe, plan, family, size))?;
        if outcome.status != Status::Met {
            profiles.push(profile_below(family, size));
        }
        done(outcome);
    }
    let mut profiled: Vec<(Family, usize)> = Vec::new();
    for deadline in &plan.deadlines {
        let outcome = timed(|| deadline_target(exe, plan, deadline))?;
        // One profile per family and size (the deadlines of one share it).
        let at = (deadline.family, deadline.size);
        if deadline.por && outcome.status == Status::Missed && !profiled.contains(&at) {
            profiled.push(at);
            profiles.push(profile_below(deadline.family, deadline.size));
        }
        done(outcome);
    }
    let mut phase_profiles = Vec::new();
    let (verdicts, largest) = verdict_target(standard);
    if let Some(name) = largest {
        let outcome = timed(|| throughput_target(exe, plan, &name))?;
        if outcome.status == Status::Missed {
            phase_profiles.extend(phase_profile(exe, plan, &name)?);
        }
        done(outcome);
    }
    done(timed(|| parallel_target(exe, plan))?);
    done(verdicts);
    Ok(Report {
        outcomes,
        profiles,
        phase_profiles,
        steal: CpuTimes::steal_since(start),
    })
}

/// The outcome of `measure`, with the steal share while it ran.
fn timed(measure: impl FnOnce() -> Result<Outcome, ChildError>) -> Result<Outcome, ChildError> {
    let before = CpuTimes::now();
    let mut outcome = measure()?;
    outcome.steal = CpuTimes::steal_since(before);
    Ok(outcome)
}

fn family_spec(family: Family, size: usize, threads: usize, por: bool) -> ChildSpec {
    child_spec(Target::Family(family, size), threads, por)
}

/// An exhaustive search of `target`, without bounds (each target adds its own).
fn child_spec(target: Target, threads: usize, por: bool) -> ChildSpec {
    ChildSpec {
        target,
        threads,
        symmetry: false,
        por,
        forget_facts: false,
        variant: None,
        frontier: Default::default(),
        first_counterexamples: false,
        timeout: None,
        memory_limit_mib: None,
        timely_workers: None,
        time_phases: false,
    }
}

fn states_text(r: &Row) -> String {
    format!("{}{}", thousands(r.unique_states as u64), stopped_text(r))
}

fn peak_mib(r: &Row) -> String {
    r.peak_rss_kib
        .map_or("?".into(), |k| format!("{} MiB", thousands(k / 1024)))
}

fn reduction_target(
    exe: &Path,
    plan: &Plan,
    family: Family,
    size: usize,
) -> Result<Outcome, ChildError> {
    let spec = |por| ChildSpec {
        timeout: Some(plan.timeout),
        memory_limit_mib: Some(plan.memory_limit_mib),
        ..family_spec(family, size, 1, por)
    };
    let none = run_child(exe, &spec(false)).map(|m| median_row(&[m]))?;
    let por = run_child(exe, &spec(true)).map(|m| median_row(&[m]))?;
    let both = none.exhaustive && por.exhaustive;
    let ratio = none.unique_states as f64 / por.unique_states.max(1) as f64;
    let measured = if both {
        format!(
            "{} → {} states ({ratio:.2}×), {} → {}",
            states_text(&none),
            states_text(&por),
            seconds_text(none.seconds),
            seconds_text(por.seconds)
        )
    } else {
        format!(
            "{} without, {} with: no ratio",
            states_text(&none),
            states_text(&por)
        )
    };
    Ok(Outcome {
        target: format!(
            "≥ {}× fewer states with partial-order reduction: {} family, size {size}",
            plan.fewer_states,
            family.name()
        ),
        measured,
        status: match (both, ratio >= plan.fewer_states) {
            (false, _) => Status::Undecided,
            (true, true) => Status::Met,
            (true, false) => Status::Missed,
        },
        runs: vec![none, por],
        steal: None,
    })
}

fn deadline_target(exe: &Path, plan: &Plan, d: &Deadline) -> Result<Outcome, ChildError> {
    // The target's own memory bound, or the plan's where that is lower (--memory-limit
    // stops every run of `bench`); a stop by the plan's limit decides nothing.
    let applied_mib = d
        .memory_limit_mib
        .map_or(plan.memory_limit_mib, |own| own.min(plan.memory_limit_mib));
    let spec = ChildSpec {
        timeout: Some(d.seconds),
        memory_limit_mib: Some(applied_mib),
        symmetry: d.every_reduction,
        forget_facts: d.every_reduction,
        variant: d.variant.map(str::to_string),
        ..family_spec(d.family, d.size, d.threads, d.por)
    };
    let row = median_row(&[run_child(exe, &spec)?]);
    let status = deadline_status(&row, d, applied_mib);
    let memory_bound = match d.memory_limit_mib {
        Some(m) => format!(" and {} MiB", thousands(m)),
        None => String::new(),
    };
    Ok(Outcome {
        target: format!(
            "{} family, size {}{}, exhaustively within {} s{memory_bound} on {} thread(s){}",
            d.family.name(),
            d.size,
            match d.variant {
                Some(v) => format!(" under {v}"),
                None => String::new(),
            },
            d.seconds,
            d.threads,
            match (d.por, d.every_reduction) {
                (_, true) => ", with partial-order reduction, dead facts forgotten and symmetry",
                (true, false) => ", with the reduction",
                (false, false) => "",
            }
        ),
        measured: format!(
            "{} states, {}, peak {}",
            states_text(&row),
            seconds_text(row.seconds),
            peak_mib(&row)
        ),
        status,
        runs: vec![row],
        steal: None,
    })
}

/// Met when the search finished within the deadline's bounds; missed when one of its own
/// bounds (its time, its own memory limit) stopped it or it finished outside them; undecided
/// when something else stopped it (the plan's memory limit, `applied_mib` where it is below
/// the target's own, a thread that could not start).
fn deadline_status(row: &Row, d: &Deadline, applied_mib: u64) -> Status {
    let within_memory = d
        .memory_limit_mib
        .is_none_or(|m| row.peak_rss_kib.is_some_and(|k| k / 1024 <= m));
    if row.exhaustive {
        return if row.seconds <= d.seconds as f64 && within_memory {
            Status::Met
        } else {
            Status::Missed
        };
    }
    match row.stopped.as_deref() {
        Some("timeout") => Status::Missed,
        Some(why) if why.starts_with("memory limit") && d.memory_limit_mib == Some(applied_mib) => {
            Status::Missed
        }
        _ => Status::Undecided,
    }
}

/// The standard suite's verdicts (seed variant) under every configuration the checker offers,
/// against the one-thread unreduced search; also the largest scenario's name.
fn verdict_target(standard: &[World]) -> (Outcome, Option<String>) {
    let configurations: [(&str, CheckOptions); 4] = [
        (
            "the reduction",
            CheckOptions {
                reduction: Reduction::Por,
                ..options(1, false, None)
            },
        ),
        ("2 threads", options(2, false, None)),
        (
            "2 threads with the reduction",
            CheckOptions {
                reduction: Reduction::Por,
                ..options(2, false, None)
            },
        ),
        ("symmetry", options(1, true, None)),
    ];
    let mut differences = Vec::new();
    let mut incomplete = Vec::new();
    let mut largest: Option<(usize, String)> = None;
    for world in standard {
        let m = model_of(world.clone());
        let reference = check(m.clone(), &options(1, false, None));
        if !reference.exhaustive {
            incomplete.push(world.name.clone());
        }
        if largest
            .as_ref()
            .is_none_or(|(n, _)| reference.unique_states > *n)
        {
            largest = Some((reference.unique_states, world.name.clone()));
        }
        for (name, opts) in &configurations {
            let r = check(m.clone(), opts);
            if !r.exhaustive {
                incomplete.push(format!("{} with {name}", world.name));
            } else if r.verdicts() != reference.verdicts() {
                differences.push(format!("{} with {name}", world.name));
            }
        }
    }
    let names: Vec<&str> = configurations.iter().map(|(n, _)| *n).collect();
    let (measured, status) = if !differences.is_empty() {
        (
            format!("verdicts differ: {}", differences.join(", ")),
            Status::Missed,
        )
    } else if !incomplete.is_empty() {
        (
            format!("not exhaustive: {}", incomplete.join(", ")),
            Status::Undecided,
        )
    } else if standard.is_empty() {
        ("no scenario".to_string(), Status::Undecided)
    } else {
        (
            format!(
                "{} scenarios: every verdict the same with {} as without",
                standard.len(),
                names.join(", ")
            ),
            Status::Met,
        )
    };
    (
        Outcome {
            target: "the standard suite's verdicts unchanged by every configuration".into(),
            measured,
            status,
            runs: Vec::new(),
            steal: None,
        },
        largest.map(|(_, name)| name),
    )
}

fn throughput_target(exe: &Path, plan: &Plan, scenario: &str) -> Result<Outcome, ChildError> {
    let spec = ChildSpec {
        memory_limit_mib: Some(plan.memory_limit_mib),
        timeout: Some(plan.timeout),
        ..child_spec(Target::Scenario(scenario.to_string()), 1, false)
    };
    let row = measure_repeated(exe, &spec, plan.repeat)?;
    let per_cpu = row
        .cpu_seconds
        .filter(|c| *c > 0.0)
        .map(|c| row.unique_states as f64 / c);
    let status = match per_cpu {
        Some(_) if !row.exhaustive => Status::Undecided,
        Some(r) if r >= plan.states_per_cpu_second => Status::Met,
        Some(_) => Status::Missed,
        None => Status::Undecided,
    };
    Ok(Outcome {
        target: format!(
            "≥ {} unique states/s of CPU time on the largest standard scenario",
            thousands(plan.states_per_cpu_second as u64)
        ),
        measured: format!(
            "{scenario}: {} states in {} of CPU (median of {}): {}/s",
            states_text(&row),
            row.cpu_seconds.map_or("?".into(), seconds_text),
            row.runs,
            per_cpu.map_or("?".into(), |r| thousands(r as u64))
        ),
        status,
        runs: vec![row],
        steal: None,
    })
}

/// One more run of the throughput target's search, timed by phase.
fn phase_profile(
    exe: &Path,
    plan: &Plan,
    scenario: &str,
) -> Result<Option<PhaseProfile>, ChildError> {
    let spec = ChildSpec {
        memory_limit_mib: Some(plan.memory_limit_mib),
        timeout: Some(plan.timeout),
        time_phases: true,
        ..child_spec(Target::Scenario(scenario.to_string()), 1, false)
    };
    let run = run_child(exe, &spec)?;
    Ok(run.phases.map(|phases| PhaseProfile {
        scenario: scenario.to_string(),
        unique_states: run.unique_states,
        phases,
    }))
}

fn parallel_target(exe: &Path, plan: &Plan) -> Result<Outcome, ChildError> {
    let (family, size) = plan.parallel;
    let spec = |threads| ChildSpec {
        timeout: Some(plan.timeout),
        memory_limit_mib: Some(plan.memory_limit_mib),
        ..family_spec(family, size, threads, false)
    };
    // Alternated, so that a slower spell of the machine falls on both.
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for _ in 0..plan.repeat.max(1) {
        one.push(run_child(exe, &spec(1))?);
        two.push(run_child(exe, &spec(2))?);
    }
    let (one, two) = (median_row(&one), median_row(&two));
    let both = one.exhaustive && two.exhaustive;
    let speedup = one.seconds / two.seconds.max(f64::MIN_POSITIVE);
    Ok(Outcome {
        target: format!(
            "2 threads ≥ {}× one thread: {} family, size {size}",
            plan.speedup,
            family.name()
        ),
        measured: format!(
            "{} states: {} on one thread, {} on two (medians of {}): {speedup:.2}×{}",
            states_text(&one),
            seconds_text(one.seconds),
            seconds_text(two.seconds),
            one.runs,
            where_two_threads_lose(&one, &two)
        ),
        status: match (both, speedup >= plan.speedup) {
            (false, _) => Status::Undecided,
            (true, true) => Status::Met,
            (true, false) => Status::Missed,
        },
        runs: vec![one, two],
        steal: None,
    })
}

/// Why two threads are not twice as fast as one, from the CPU time of each search: how many
/// cores two threads kept busy (2 at best; less where a worker waited for the other, or the
/// machine ran something else), and how much CPU the same search took on two threads against
/// one (1 at best; more where the two cores slow each other down, sharing caches and memory).
/// The speedup is about the first over the second. Empty where a CPU time is unknown.
fn where_two_threads_lose(one: &Row, two: &Row) -> String {
    match (one.cpu_seconds, two.cpu_seconds) {
        (Some(cpu_one), Some(cpu_two)) if cpu_one > 0.0 && two.seconds > 0.0 => format!(
            "; two threads kept {:.2} cores busy, for {:.2}× one thread's CPU time",
            cpu_two / two.seconds,
            cpu_two / cpu_one
        ),
        _ => String::new(),
    }
}

/// The reduction's profile of `family` one size below `size` (at least 1), for a target at
/// `size` that was missed: the blockers are the same kinds, and the profile, which keeps
/// whole states in its queue, stays small (or stops at [`PROFILE_STATE_BOUND`] and says so).
fn profile_below(family: Family, size: usize) -> ReductionProfile {
    let at = size.saturating_sub(1).max(1);
    let world = family
        .world(at)
        .expect("every family compiles at every size");
    reduction_profile(&model_of(world), PROFILE_STATE_BOUND)
}

/// Explores `model` with partial-order reduction (under the catalogue's
/// [`crate::catalogue::VISIBILITY`]), breadth-first, visiting at most `max_states` states,
/// and at each state it expands fully counts why each thread's step is not safe alone
/// (`webmcp_model::reduction::Blocker`).
pub fn reduction_profile(model: &WebMcpModel, max_states: usize) -> ReductionProfile {
    let model = &model.clone().with_visibility(crate::catalogue::VISIBILITY);
    let init = model.initial_state();
    let mut seen = HashSet::from([fingerprint(&init)]);
    let mut queue = VecDeque::from([init]);
    let (mut reduced, mut full, mut no_thread) = (0, 0, 0);
    let mut why: BTreeMap<String, usize> = BTreeMap::new();
    let mut actions = Vec::new();
    let mut truncated = false;
    while let Some(s) = queue.pop_front() {
        let mut set = Vec::new();
        let successors: Vec<_> = match model.persistent_steps(&s, &mut set) {
            true => {
                reduced += 1;
                set.into_iter().map(|(_, next)| next).collect()
            }
            false => {
                actions.clear();
                model.enabled_actions(&s, &mut actions);
                if !actions.is_empty() {
                    full += 1;
                    no_thread += usize::from(s.threads.is_empty());
                    for (_, blocker) in model.blockers(&s) {
                        if let Some(b) = blocker {
                            *why.entry(b.to_string()).or_default() += 1;
                        }
                    }
                }
                actions
                    .iter()
                    .map(|&a| model.apply(&s, a, &mut ()))
                    .collect()
            }
        };
        for next in successors {
            if seen.len() >= max_states {
                truncated = true;
                break;
            }
            if seen.insert(fingerprint(&next)) {
                queue.push_back(next);
            }
        }
        if truncated {
            break;
        }
    }
    let mut blockers: Vec<(String, usize)> = why.into_iter().collect();
    blockers.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ReductionProfile {
        scenario: model.world.name.clone(),
        states: seen.len(),
        truncated,
        reduced,
        full,
        no_thread,
        blockers,
    }
}

fn steal_text(steal: Option<f64>) -> String {
    steal.map_or("—".into(), |s| format!("{:.1}%", s * 100.0))
}

/// The report as Markdown: the targets table, then the reduction's profiles.
pub fn markdown(report: &Report, machine: &Machine, command: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Command: `{command}`. Machine: {} CPUs ({}), {} build. Every search in a fresh process, exhaustive BFS, seed variant.\n",
        machine.nproc, machine.cpu, machine.build
    );
    out.push_str("| target | measured | steal | status |\n|---|---|--:|---|\n");
    for o in &report.outcomes {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            o.target,
            o.measured,
            steal_text(o.steal),
            o.status.text()
        );
    }
    let _ = writeln!(
        out,
        "\nSteal: the share of the machine's CPU time that its hypervisor gave to other guests \
         while the target was measured (`/proc/stat`; — where nothing was timed); {} over the \
         whole run. Where it is high, the times are slower than the machine.",
        steal_text(report.steal)
    );
    if !report.profiles.is_empty() {
        out.push_str(
            "\nWhy partial-order reduction keeps these states: at each state the reduced search \
             expands fully, why each thread's step is neither safe alone nor in a set of queuing \
             steps (`docs/model.md` §7), one size below the target's.\n\n",
        );
        out.push_str(
            "| scenario | states (por) | expanded by a persistent set | fully expanded | of which with no thread | why the threads there are not safe (thread-states) |\n|---|--:|--:|--:|--:|---|\n",
        );
        for p in &report.profiles {
            let why: Vec<String> = p
                .blockers
                .iter()
                .map(|(b, n)| format!("{b} {}", thousands(*n as u64)))
                .collect();
            let _ = writeln!(
                out,
                "| {} | {}{} | {} | {} | {} | {} |",
                p.scenario,
                thousands(p.states as u64),
                if p.truncated { " (bounded)" } else { "" },
                thousands(p.reduced as u64),
                thousands(p.full as u64),
                thousands(p.no_thread as u64),
                why.join("; ")
            );
        }
    }
    for p in &report.phase_profiles {
        out.push_str(&phase_profile_markdown(p));
    }
    out
}

/// Where a missed throughput target's search spent its time, largest phase first.
fn phase_profile_markdown(p: &PhaseProfile) -> String {
    let r = &p.phases;
    let total = r.total_seconds();
    let mut out = format!(
        "\nWhere the time of {}'s search goes: one more run on one thread, timed by phase \
         (`check --phases`; {} s timed, {} clock reads at {} ns each subtracted, leaving {} s, \
         {} ns per unique state).\n\n| phase | share | seconds |\n|---|--:|--:|\n",
        p.scenario,
        format_args!("{:.3}", r.timed_seconds),
        thousands(r.clock_reads),
        r.clock_read_ns,
        format_args!("{total:.3}"),
        thousands((total * 1e9 / p.unique_states.max(1) as f64) as u64),
    );
    for (phase, seconds, share) in r.largest_first() {
        let _ = writeln!(out, "| {phase} | {:.1}% | {seconds:.3} |", share * 100.0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_of_two_iframes_names_what_blocks_the_reduction() {
        let m = model_of(Family::Iframes.world(2).unwrap());
        let p = reduction_profile(&m, PROFILE_STATE_BOUND);
        // The same search as `check --reduction por` (97 states: docs/performance.md).
        let r = check(
            m.clone(),
            &CheckOptions {
                reduction: Reduction::Por,
                ..options(1, false, None)
            },
        );
        assert_eq!(p.states, r.unique_states);
        assert!(!p.truncated);
        assert!(p.full > 0 && p.reduced > 0);
        assert!(p
            .blockers
            .iter()
            .any(|(b, _)| b.starts_with("queues where something else can still queue")));
        assert!(p.blockers.windows(2).all(|w| w[0].1 >= w[1].1));
    }

    #[test]
    fn the_profile_stops_at_its_bound_and_says_so() {
        let m = model_of(Family::Iframes.world(2).unwrap());
        // 97 states in all (the test above): a bound below that stops the profile.
        let p = reduction_profile(&m, 50);
        assert!(p.truncated);
        assert_eq!(p.states, 50);
    }

    #[test]
    fn a_deadline_is_missed_only_by_its_own_bounds() {
        let run = |exhaustive: bool, seconds: f64, peak_mib: u64, stopped: Option<&str>| {
            let mut row = median_row(&[super::super::Measurement {
                scenario: "s".into(),
                threads: 2,
                symmetry: false,
                unique_states: 10,
                total_states: 10,
                max_depth: 1,
                seconds,
                cpu_seconds: None,
                exhaustive,
                violations: 0,
                baseline_rss_kib: Some(1024),
                peak_rss_kib: Some(peak_mib * 1024),
                first_counterexamples: Vec::new(),
                stopped: stopped.map(str::to_string),
                sent: None,
                phases: None,
            }]);
            row.exhaustive = exhaustive;
            row
        };
        let deadline = |memory_limit_mib| Deadline {
            family: Family::Iframes,
            size: 4,
            threads: 2,
            por: true,
            every_reduction: false,
            variant: None,
            seconds: 60,
            memory_limit_mib,
        };
        let (no_bound, bounded) = (deadline(None), deadline(Some(2000)));
        assert_eq!(
            deadline_status(&run(true, 59.0, 9000, None), &no_bound, 16384),
            Status::Met
        );
        assert_eq!(
            deadline_status(&run(true, 61.0, 10, None), &no_bound, 16384),
            Status::Missed
        );
        assert_eq!(
            deadline_status(&run(true, 5.0, 2001, None), &bounded, 2000),
            Status::Missed
        );
        let timeout = Some("timeout");
        assert_eq!(
            deadline_status(&run(false, 60.0, 10, timeout), &no_bound, 16384),
            Status::Missed
        );
        let memory = Some("memory limit (2000 MiB)");
        assert_eq!(
            deadline_status(&run(false, 9.0, 2000, memory), &bounded, 2000),
            Status::Missed
        );
        // The plan's memory limit is not the target's: it decides nothing.
        let plan_memory = Some("memory limit (1 MiB)");
        assert_eq!(
            deadline_status(&run(false, 0.1, 14, plan_memory), &no_bound, 1),
            Status::Undecided
        );
        // Nor where it is below the target's own bound and applied in its place.
        assert_eq!(
            deadline_status(&run(false, 0.1, 14, plan_memory), &bounded, 1),
            Status::Undecided
        );
        let other = Some("could not start 2 threads");
        assert_eq!(
            deadline_status(&run(false, 0.0, 14, other), &bounded, 2000),
            Status::Undecided
        );
    }

    #[test]
    fn the_speedup_is_told_as_cores_kept_busy_and_cpu_spent() {
        let row = |threads, seconds, cpu_seconds| {
            median_row(&[super::super::Measurement {
                scenario: "s".into(),
                threads,
                symmetry: false,
                unique_states: 10,
                total_states: 10,
                max_depth: 1,
                seconds,
                cpu_seconds,
                exhaustive: true,
                violations: 0,
                baseline_rss_kib: None,
                peak_rss_kib: None,
                first_counterexamples: Vec::new(),
                stopped: None,
                sent: None,
                phases: None,
            }])
        };
        // 10 s alone; on two threads 6.5 s of wall and 12.4 s of CPU: 1.91 cores, 1.24×.
        assert_eq!(
            where_two_threads_lose(&row(1, 10.2, Some(10.0)), &row(2, 6.5, Some(12.4))),
            "; two threads kept 1.91 cores busy, for 1.24× one thread's CPU time"
        );
        assert_eq!(
            where_two_threads_lose(&row(1, 10.2, None), &row(2, 6.5, Some(12.4))),
            "",
            "nothing is said without both CPU times"
        );
        assert_eq!(
            where_two_threads_lose(&row(1, 10.2, Some(0.0)), &row(2, 6.5, Some(12.4))),
            ""
        );
    }

    #[test]
    fn a_missed_target_outranks_an_undecided_one() {
        let outcome = |status| Outcome {
            target: String::new(),
            measured: String::new(),
            status,
            runs: Vec::new(),
            steal: None,
        };
        let report = |s: &[Status]| Report {
            outcomes: s.iter().map(|&st| outcome(st)).collect(),
            profiles: Vec::new(),
            phase_profiles: Vec::new(),
            steal: None,
        };
        assert_eq!(report(&[Status::Met, Status::Met]).exit_status(), 0);
        assert_eq!(report(&[Status::Met, Status::Undecided]).exit_status(), 3);
        assert_eq!(
            report(&[Status::Undecided, Status::Missed]).exit_status(),
            1
        );
    }

    #[test]
    fn the_table_shows_the_steal_of_each_target_and_of_the_run() {
        let outcome = |steal| Outcome {
            target: "t".into(),
            measured: "m".into(),
            status: Status::Met,
            runs: Vec::new(),
            steal,
        };
        let report = Report {
            outcomes: vec![outcome(Some(0.125)), outcome(None)],
            profiles: Vec::new(),
            phase_profiles: Vec::new(),
            steal: Some(0.0625),
        };
        let machine = Machine {
            nproc: 2,
            cpu: "c".into(),
            build: "release".into(),
        };
        let text = markdown(&report, &machine, "bench --targets");
        assert!(
            text.contains("Machine: 2 CPUs (c), release build."),
            "{text}"
        );
        assert!(text.contains("| t | m | 12.5% | met |"), "{text}");
        assert!(text.contains("| t | m | — | met |"), "{text}");
        assert!(text.contains("6.2% over the whole run"), "{text}");
    }

    #[test]
    fn a_missed_throughput_target_shows_where_its_time_went_largest_phase_first() {
        let report = Report {
            outcomes: Vec::new(),
            profiles: Vec::new(),
            phase_profiles: vec![PhaseProfile {
                scenario: "s".into(),
                unique_states: 1_000,
                phases: PhasesRecord {
                    timed_seconds: 0.004,
                    clock_reads: 20_000,
                    clock_read_ns: 50,
                    phases: vec![
                        ("listing enabled actions".into(), 0.0005),
                        ("building successors".into(), 0.002),
                        ("judging properties".into(), 0.0005),
                    ],
                },
            }],
            steal: None,
        };
        let machine = Machine {
            nproc: 2,
            cpu: "c".into(),
            build: "release".into(),
        };
        let text = markdown(&report, &machine, "bench --targets");
        let building = text
            .find("| building successors | 66.7% | 0.002 |")
            .expect(&text);
        let actions = text.find("| listing enabled actions | 16.7%").expect(&text);
        assert!(building < actions, "largest first: {text}");
        assert!(text.contains("20,000 clock reads at 50 ns"), "{text}");
        assert!(
            text.contains("leaving 0.003 s, 3,000 ns per unique state"),
            "{text}"
        );
    }

    #[test]
    fn the_suite_comparison_names_the_largest_scenario() {
        let small = Family::Tabs.world(1).unwrap();
        let large = Family::Tabs.world(2).unwrap();
        let (outcome, largest) = verdict_target(&[small, large]);
        assert_eq!(outcome.status, Status::Met, "{}", outcome.measured);
        assert_eq!(largest.as_deref(), Some("family-tabs-2"));
        let (none, largest) = verdict_target(&[]);
        assert_eq!(none.status, Status::Undecided);
        assert_eq!(largest, None);
    }
}
