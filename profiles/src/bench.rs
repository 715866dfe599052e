//! Measuring the checker: what `webmcp-check bench` runs and prints.
//!
//! Every measurement runs in a **child process** (the `webmcp-check` executable re-invoked with
//! the hidden [`CHILD_SUBCOMMAND`]), because the peak resident set size the kernel reports
//! (`VmHWM` in `/proc/self/status`) is process-wide and never goes down: in one process the
//! second scenario would inherit the first one's peak. The child records `VmHWM` once before
//! exploring (the idle baseline: executable, property catalogue, compiled scenario) and once
//! after, runs the exhaustive check through the public API ([`crate::check`]) and prints one
//! [`Measurement`] as JSON. The parent takes medians over repeated children ([`Row`]) and
//! renders them as Markdown or JSON.
//!
//! [`Family`] generates scenarios with a size knob (tabs, iframes, script length, concurrent
//! executions) for the scaling series; [`scaling_svg`] plots it.
//!
//! What it reads of the process and the machine (CPU time, peak memory, steal, the CPU) and
//! the medians are the engine's (`webmcp_checker::bench`); what is here is the draft
//! profile's: its scenarios and families, the child protocol, the targets and the tables.
//!
//! Nothing here judges wall time: timings are reported, never asserted.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use webmcp_model::error::ScenarioError;
use webmcp_model::{Variant, WebMcpModel, World};

use crate::driver::{
    check, properties, CheckOptions, FrontierStorage, Mode, ScenarioResult, Verdict,
};
use crate::limits::StopReason;

pub mod targets;

pub use webmcp_checker::bench::{cpu_seconds, peak_rss_kib, CpuTimes, Machine};
use webmcp_checker::bench::{median_f64, median_opt_u64, median_u};

/// The hidden subcommand that measures one run in a fresh process.
pub const CHILD_SUBCOMMAND: &str = "bench-child";

/// Whether [`CheckOptions`] has a symmetry-reduction switch the bench can turn on.
pub const SYMMETRY_AVAILABLE: bool = true;

/// The options of one measured run: exhaustive BFS, on `threads` threads.
pub fn options(threads: usize, symmetry: bool, timeout: Option<Duration>) -> CheckOptions {
    debug_assert!(!symmetry || SYMMETRY_AVAILABLE, "no symmetry option yet");
    CheckOptions {
        mode: Mode::Bfs,
        threads: threads.max(1),
        timeout,
        symmetry,
        ..CheckOptions::default()
    }
}

/// A scenario family with a size knob, generated in code for the scaling series.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// n identical tabs; the top-level document of each registers one tool. The tabs are
    /// interchangeable (the symmetric family).
    Tabs,
    /// One tab: a top-level document and n same-origin iframes, each registering its own tool.
    Iframes,
    /// One document whose script registers n tools in a row (the script budget).
    Registrations,
    /// One document registers a tool, lists it and executes it n times without awaiting
    /// (n concurrent executions; each body may fulfil or reject). The input is `reaches-body`,
    /// so the bodies run under every text (until 2 December 2026 it was `to-json-primitive`,
    /// which the current text rejects before any body runs).
    Executions,
    /// A caller and a cross-origin target iframe that exposes its tool to the caller: the
    /// caller executes it n times, each with its own AbortController that the environment
    /// may abort at any moment, and the environment may remove the target at any moment
    /// (the scenario of `docs/performance.md`'s comparison with Spin).
    CallerTarget,
}

impl Family {
    pub const ALL: [Family; 5] = [
        Family::Tabs,
        Family::Iframes,
        Family::Registrations,
        Family::Executions,
        Family::CallerTarget,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Family::Tabs => "tabs",
            Family::Iframes => "iframes",
            Family::Registrations => "registrations",
            Family::Executions => "executions",
            Family::CallerTarget => "caller-target",
        }
    }

    pub fn parse(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// What the size knob counts.
    pub fn knob(self) -> &'static str {
        match self {
            Family::Tabs => "tabs (documents in separate tabs)",
            Family::Iframes => "same-origin iframes (documents in one tab)",
            Family::Registrations => "registerTool statements in one script (script budget)",
            Family::Executions => "concurrent executeTool calls",
            Family::CallerTarget => {
                "abortable executeTool calls of a removable cross-origin target"
            }
        }
    }

    /// The scenario of size `n` (at least 1), in the scenario file format.
    pub fn scenario(self, n: usize) -> serde_json::Value {
        use serde_json::{json, Map, Value};
        let n = n.max(1);
        let register =
            |name: String| json!({"registerTool": {"name": name, "description": "a test tool"}});
        let mut scripts = Map::new();
        let (summary, tabs, environment) = match self {
            Family::Tabs => {
                let tabs: Vec<Value> = (1..=n)
                    .map(|i| {
                        scripts.insert(format!("top{i}"), json!([register("t1".into())]));
                        json!({"tab": format!("tab{i}"), "top": {"doc": format!("top{i}"), "url": "https://a.example/"}})
                    })
                    .collect();
                (
                    format!("{n} identical tabs, each registering one tool."),
                    tabs,
                    json!({}),
                )
            }
            Family::Iframes => {
                let iframes: Vec<Value> = (1..=n)
                    .map(|i| {
                        scripts.insert(format!("child{i}"), json!([register(format!("t{i}"))]));
                        json!({"nav": format!("frame{i}"), "doc": format!("child{i}"), "url": format!("https://a.example/{i}")})
                    })
                    .collect();
                (
                    format!("A top-level document and {n} same-origin iframes, each registering a tool."),
                    vec![json!({"tab": "main", "top": {"doc": "top", "url": "https://a.example/", "iframes": iframes}})],
                    json!({}),
                )
            }
            Family::Registrations => {
                let ops: Vec<Value> = (1..=n).map(|i| register(format!("t{i}"))).collect();
                scripts.insert("top".into(), Value::Array(ops));
                (
                    format!("One document registers {n} tools in a row."),
                    vec![
                        json!({"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}),
                    ],
                    json!({}),
                )
            }
            Family::Executions => {
                let mut ops = vec![
                    register("t1".into()),
                    json!({"as": "list", "getTools": {}}),
                    json!({"await": "list"}),
                ];
                ops.extend((1..=n).map(|i| {
                    json!({"as": format!("exec{i}"), "executeTool": {"from": "list", "name": "t1"}, "input": {"$js": "reaches-body"}})
                }));
                scripts.insert("top".into(), Value::Array(ops));
                (
                    format!("One document executes its tool {n} times without awaiting."),
                    vec![
                        json!({"tab": "main", "top": {"doc": "top", "url": "https://a.example/"}}),
                    ],
                    json!({"toolOutcomes": ["fulfil", "reject"]}),
                )
            }
            Family::CallerTarget => {
                scripts.insert(
                    "target".into(),
                    json!([{"registerTool": {"name": "t1", "description": "a test tool"}, "exposedTo": ["https://a.example"]}]),
                );
                let mut ops = vec![
                    json!({"awaitToolchange": true}),
                    json!({"as": "list", "getTools": {"fromOrigins": ["https://b.example"]}}),
                    json!({"await": "list"}),
                ];
                ops.extend((1..=n).map(|i| {
                    json!({"as": format!("exec{i}"), "executeTool": {"from": "list", "name": "t1"}, "input": {"$js": "reaches-body"}, "signal": format!("c{i}")})
                }));
                scripts.insert("caller".into(), Value::Array(ops));
                let aborts: Vec<Value> = (1..=n).map(|i| json!(format!("c{i}"))).collect();
                (
                    format!("A caller executes a cross-origin iframe's tool {n} times, each abortable; the iframe may be removed."),
                    vec![json!({"tab": "main", "top": {"doc": "caller", "url": "https://a.example/", "iframes": [
                        {"nav": "frame", "doc": "target", "url": "https://b.example/", "allow": "tools"}
                    ]}})],
                    json!({"abort": aborts, "removeIframe": ["frame"], "toolOutcomes": ["fulfil", "reject"]}),
                )
            }
        };
        json!({
            "name": format!("family-{}-{n}", self.name()),
            "summary": summary,
            "description": format!("Generated by webmcp-check bench --scaling: size {n} of the {} family ({}).", self.name(), self.knob()),
            "tabs": tabs,
            "scripts": scripts,
            "environment": environment,
        })
    }

    /// The compiled scenario of size `n`.
    pub fn world(self, n: usize) -> Result<World, FamilyError> {
        World::from_json(&self.scenario(n).to_string()).map_err(|source| FamilyError {
            family: self,
            size: n,
            source,
        })
    }
}

/// A generated scenario that does not compile: the family's text at that size breaks a rule
/// of the format or a bound of the model.
#[derive(Debug)]
pub struct FamilyError {
    pub family: Family,
    pub size: usize,
    pub source: ScenarioError,
}

impl std::fmt::Display for FamilyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "family {} size {}: {}",
            self.family.name(),
            self.size,
            self.source
        )
    }
}

impl std::error::Error for FamilyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// What one child process measures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Target {
    /// A standard (embedded) scenario, by name.
    Scenario(String),
    /// A generated scenario: a family at a size.
    Family(Family, usize),
}

/// One measured run, as a child process asks for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildSpec {
    pub target: Target,
    pub threads: usize,
    pub symmetry: bool,
    /// Partial-order reduction (`--reduction por`).
    pub por: bool,
    /// Dead facts forgotten once judged (`--forget-facts`).
    pub forget_facts: bool,
    /// The text and fixes (`--variant`, e.g. `seed@2026-08`); `None`: the draft as written.
    pub variant: Option<String>,
    /// How the one-thread BFS keeps its frontier (`--frontier`).
    pub frontier: FrontierStorage,
    /// Also time, for each violated property, a BFS bounded at its counterexample's depth.
    pub first_counterexamples: bool,
    /// Stop the run after this many seconds (the measurement is then not exhaustive).
    pub timeout: Option<u64>,
    /// Stop the run when the process's resident set exceeds this many MiB (the measurement
    /// is then not exhaustive): a run that outgrows the machine stops alone.
    pub memory_limit_mib: Option<u64>,
    /// Explore on timely dataflow with this many workers (`--engine timely`) instead of the
    /// local engine's `threads`.
    pub timely_workers: Option<usize>,
    /// Time the one-thread search by phase (`check --phases`).
    pub time_phases: bool,
}

impl ChildSpec {
    /// The command line arguments of the child (after the executable).
    pub fn args(&self) -> Vec<String> {
        let mut args = vec![CHILD_SUBCOMMAND.to_string()];
        match &self.target {
            Target::Scenario(name) => args.extend(["--scenario".into(), name.clone()]),
            Target::Family(f, n) => args.extend([
                "--family".into(),
                f.name().into(),
                "--size".into(),
                n.to_string(),
            ]),
        }
        args.extend(["--threads".into(), self.threads.to_string()]);
        if self.symmetry {
            args.push("--symmetry".into());
        }
        if self.por {
            args.extend(["--reduction".into(), "por".into()]);
        }
        if self.forget_facts {
            args.push("--forget-facts".into());
        }
        if let Some(v) = &self.variant {
            args.extend(["--variant".into(), v.clone()]);
        }
        if self.frontier != FrontierStorage::default() {
            args.extend(["--frontier".into(), self.frontier.name().into()]);
        }
        if self.first_counterexamples {
            args.push("--first-counterexamples".into());
        }
        if let Some(t) = self.timeout {
            args.extend(["--timeout".into(), t.to_string()]);
        }
        if let Some(m) = self.memory_limit_mib {
            args.extend(["--memory-limit".into(), m.to_string()]);
        }
        if let Some(w) = self.timely_workers {
            args.extend(["--timely-workers".into(), w.to_string()]);
        }
        if self.time_phases {
            args.push("--phases".into());
        }
        args
    }
}

/// How soon breadth-first search reaches one finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstCounterexample {
    pub property: String,
    /// Actions of the shortest counterexample.
    pub length: usize,
    /// Wall time of a one-thread BFS bounded at the counterexample's depth: an upper bound on
    /// the time the exhaustive check needs to find it.
    pub seconds: f64,
    /// Whether the bounded search found it (it must).
    pub found: bool,
}

/// One run of one scenario, measured in its own process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    pub scenario: String,
    pub threads: usize,
    pub symmetry: bool,
    pub unique_states: usize,
    pub total_states: usize,
    pub max_depth: usize,
    pub seconds: f64,
    /// CPU time of the check (user + system, every thread): less sensitive than wall time to
    /// other processes competing for the cores.
    pub cpu_seconds: Option<f64>,
    pub exhaustive: bool,
    pub violations: usize,
    /// `VmHWM` before exploring, KiB.
    pub baseline_rss_kib: Option<u64>,
    /// `VmHWM` after exploring, KiB.
    pub peak_rss_kib: Option<u64>,
    pub first_counterexamples: Vec<FirstCounterexample>,
    /// Why a run that is not exhaustive stopped ("timeout", "memory limit").
    #[serde(default)]
    pub stopped: Option<String>,
    /// On timely dataflow: what the workers sent one another.
    #[serde(default)]
    pub sent: Option<Sent>,
    /// Where the search's time went, when it was timed by phase ([`ChildSpec::time_phases`]).
    #[serde(default)]
    pub phases: Option<PhasesRecord>,
}

/// Where a search timed by phase spent its time (`webmcp_checker::phases`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhasesRecord {
    /// The timed search's whole time, clock reads included.
    pub timed_seconds: f64,
    pub clock_reads: u64,
    /// What one clock read cost; subtracted once per read.
    pub clock_read_ns: u64,
    /// Per phase, in the loop's order: what it does, and its seconds less its clock reads.
    pub phases: Vec<(String, f64)>,
}

impl PhasesRecord {
    pub fn of(t: &webmcp_checker::PhaseTimes) -> PhasesRecord {
        PhasesRecord {
            timed_seconds: t.timed.as_secs_f64(),
            clock_reads: t.laps,
            clock_read_ns: u64::try_from(t.lap_cost.as_nanos()).unwrap_or(u64::MAX),
            phases: t
                .phases
                .iter()
                .map(|(p, d)| (p.describe().to_string(), d.as_secs_f64()))
                .collect(),
        }
    }

    /// The seconds of every phase: the search's time less its clock reads.
    pub fn total_seconds(&self) -> f64 {
        self.phases.iter().map(|(_, s)| s).sum()
    }

    /// The phases, largest first, with their shares of [`PhasesRecord::total_seconds`].
    pub fn largest_first(&self) -> Vec<(&str, f64, f64)> {
        let total = self.total_seconds();
        let mut v: Vec<(&str, f64, f64)> = self
            .phases
            .iter()
            .map(|(p, s)| (p.as_str(), *s, if total > 0.0 { s / total } else { 0.0 }))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v
    }
}

/// What the workers of a timely run sent one another (to another worker, not to themselves).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sent {
    pub states: u64,
    pub bytes: u64,
}

impl Sent {
    /// Bytes on the wire per state generated in the run (a state sent to its owner is
    /// generated once; so are those kept by their own worker).
    pub fn bytes_per_generated_state(&self, total_states: usize) -> f64 {
        self.bytes as f64 / total_states.max(1) as f64
    }
}

/// Runs one measurement in this process: call it only from a fresh child process, so that
/// the peak RSS belongs to this run alone. The memory limit is the checker's own (set for
/// the whole process, so the bounded first-counterexample runs obey it too): a run that
/// outgrows it stops, named, like any other.
pub fn measure(model: WebMcpModel, spec: &ChildSpec) -> Measurement {
    properties();
    crate::limits::set_process_memory_limit(spec.memory_limit_mib);
    let baseline_rss_kib = peak_rss_kib();
    let opts = CheckOptions {
        reduction: if spec.por {
            crate::driver::Reduction::Por
        } else {
            crate::driver::Reduction::None
        },
        frontier: spec.frontier,
        forget_facts: spec.forget_facts,
        time_phases: spec.time_phases,
        ..options(
            spec.threads,
            spec.symmetry,
            spec.timeout.map(Duration::from_secs),
        )
    };
    let cpu_before = cpu_seconds();
    let (result, sent) = match spec.timely_workers {
        None => (check(model.clone(), &opts), None),
        Some(workers) => {
            let cluster = crate::driver::Cluster::local(workers);
            let (mut results, traffic) =
                crate::driver::check_distributed(vec![model.clone()], &opts, &cluster, None)
                    .expect("one process starts")
                    .expect("the only process reports");
            let sent = Sent {
                states: traffic.states,
                bytes: traffic.bytes,
            };
            (results.remove(0), Some(sent))
        }
    };
    let cpu = cpu_seconds().zip(cpu_before).map(|(a, b)| a - b);
    let peak = peak_rss_kib();
    let first_counterexamples = if spec.first_counterexamples {
        first_counterexamples(&model, &result, spec.threads, spec.symmetry)
    } else {
        Vec::new()
    };
    Measurement {
        scenario: result.scenario.clone(),
        threads: spec.threads,
        symmetry: spec.symmetry,
        unique_states: result.unique_states,
        total_states: result.total_states,
        max_depth: result.max_depth,
        seconds: result.seconds,
        cpu_seconds: cpu,
        exhaustive: result.exhaustive,
        violations: result.violations().count(),
        baseline_rss_kib,
        peak_rss_kib: peak,
        first_counterexamples,
        stopped: result.stopped_by.as_ref().map(stop_text),
        sent,
        phases: result.phases.as_ref().map(PhasesRecord::of),
    }
}

/// How the tables name a stop: "timeout", "memory limit (4096 MiB)".
fn stop_text(stop: &StopReason) -> String {
    match stop {
        StopReason::Timeout { .. } => "timeout".to_string(),
        StopReason::MemoryLimit { mib } => format!("memory limit ({mib} MiB)"),
        other => other.to_string(),
    }
}

/// For each violated property, the time a one-thread BFS bounded at the depth of its shortest
/// counterexample takes (it stops expanding there, so it does at most the work the unbounded
/// search does before its first discovery of that property, plus the rest of that layer).
fn first_counterexamples(
    model: &WebMcpModel,
    result: &ScenarioResult,
    threads: usize,
    symmetry: bool,
) -> Vec<FirstCounterexample> {
    // Paths are shortest only from our one-thread BFS.
    let shortest;
    let result = if threads <= 1 {
        result
    } else {
        shortest = check(model.clone(), &options(1, symmetry, None));
        &shortest
    };
    result
        .violations()
        .map(|p| {
            let length = p.path.as_ref().map_or(0, Vec::len);
            let bounded = check(
                model.clone(),
                &CheckOptions {
                    // Depth counts states: the violating state is at depth length + 1.
                    max_depth: Some(length + 1),
                    ..options(1, symmetry, None)
                },
            );
            let found = bounded
                .properties
                .iter()
                .any(|q| q.def.name == p.def.name && q.verdict == Verdict::Violated);
            FirstCounterexample {
                property: p.def.name.to_string(),
                length,
                seconds: bounded.seconds,
                found,
            }
        })
        .collect()
}

/// The model of a scenario under the seed variant.
pub fn model_of(world: World) -> WebMcpModel {
    WebMcpModel::new(world, Variant::parse("seed").expect("the seed variant"))
}

/// Why a measuring child gave no measurement; each keeps its cause.
#[derive(Debug)]
pub enum ChildError {
    /// The child could not be started.
    Spawn {
        command: String,
        source: std::io::Error,
    },
    /// The child ended without success.
    Failed {
        command: String,
        status: std::process::ExitStatus,
        stderr: String,
    },
    /// The child's answer is not a measurement.
    Unreadable {
        command: String,
        source: serde_json::Error,
        stdout: String,
    },
}

impl std::fmt::Display for ChildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChildError::Spawn { command, source } => write!(f, "{command}: {source}"),
            ChildError::Failed {
                command,
                status,
                stderr,
            } => write!(f, "{command} failed ({status}): {stderr}"),
            ChildError::Unreadable {
                command,
                source,
                stdout,
            } => write!(f, "{command}: unreadable answer ({source}): {stdout}"),
        }
    }
}

impl std::error::Error for ChildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ChildError::Spawn { source, .. } => Some(source),
            ChildError::Unreadable { source, .. } => Some(source),
            ChildError::Failed { .. } => None,
        }
    }
}

/// Runs `exe` (the `webmcp-check` executable) as a measuring child and reads its answer.
pub fn run_child(exe: &Path, spec: &ChildSpec) -> Result<Measurement, ChildError> {
    let command = format!("{} {}", exe.display(), spec.args().join(" "));
    let out = Command::new(exe)
        .args(spec.args())
        .output()
        .map_err(|source| ChildError::Spawn {
            command: exe.display().to_string(),
            source,
        })?;
    if !out.status.success() {
        return Err(ChildError::Failed {
            command,
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    serde_json::from_slice(&out.stdout).map_err(|source| ChildError::Unreadable {
        command,
        source,
        stdout: String::from_utf8_lossy(&out.stdout).trim().to_string(),
    })
}

/// Medians over repeated runs of one configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub scenario: String,
    pub threads: usize,
    pub symmetry: bool,
    pub runs: usize,
    pub unique_states: usize,
    pub total_states: usize,
    pub max_depth: usize,
    /// Wall time of the check, seconds.
    pub seconds: f64,
    /// CPU time of the check (all threads), seconds.
    pub cpu_seconds: Option<f64>,
    /// Unique states per second of wall time.
    pub unique_per_second: f64,
    pub baseline_rss_kib: Option<u64>,
    pub peak_rss_kib: Option<u64>,
    /// (peak RSS - baseline RSS) / unique states.
    pub bytes_per_state: Option<f64>,
    pub exhaustive: bool,
    /// Why a run stopped before it was exhaustive.
    pub stopped: Option<String>,
    pub violations: usize,
    /// Per finding, the median over runs.
    pub first_counterexamples: Vec<FirstCounterexample>,
    /// On timely dataflow: bytes sent between workers per state generated (median).
    #[serde(default)]
    pub bytes_sent_per_state: Option<f64>,
}

impl Row {
    /// The slowest finding's time to first counterexample, if the scenario has findings.
    pub fn worst_first_counterexample(&self) -> Option<&FirstCounterexample> {
        self.first_counterexamples
            .iter()
            .max_by(|a, b| a.seconds.total_cmp(&b.seconds))
    }
}

/// The medians of repeated measurements of one configuration (`runs` must not be empty).
pub fn median_row(runs: &[Measurement]) -> Row {
    assert!(!runs.is_empty(), "no runs to take a median of");
    let first = &runs[0];
    let col = |f: fn(&Measurement) -> usize| median_u(runs.iter().map(f).collect());
    let seconds = median_f64(runs.iter().map(|m| m.seconds).collect());
    let unique_states = col(|m| m.unique_states);
    let bytes: Option<Vec<f64>> = runs
        .iter()
        .map(|m| match (m.peak_rss_kib, m.baseline_rss_kib) {
            (Some(p), Some(b)) if m.unique_states > 0 => {
                Some(p.saturating_sub(b) as f64 * 1024.0 / m.unique_states as f64)
            }
            _ => None,
        })
        .collect();
    let first_counterexamples = first
        .first_counterexamples
        .iter()
        .map(|fc| {
            let times: Vec<f64> = runs
                .iter()
                .filter_map(|m| {
                    m.first_counterexamples
                        .iter()
                        .find(|x| x.property == fc.property)
                        .map(|x| x.seconds)
                })
                .collect();
            FirstCounterexample {
                seconds: median_f64(times),
                found: runs.iter().all(|m| {
                    m.first_counterexamples
                        .iter()
                        .any(|x| x.property == fc.property && x.found)
                }),
                ..fc.clone()
            }
        })
        .collect();
    Row {
        scenario: first.scenario.clone(),
        threads: first.threads,
        symmetry: first.symmetry,
        runs: runs.len(),
        unique_states,
        total_states: col(|m| m.total_states),
        max_depth: col(|m| m.max_depth),
        seconds,
        cpu_seconds: runs
            .iter()
            .map(|m| m.cpu_seconds)
            .collect::<Option<Vec<f64>>>()
            .map(median_f64),
        unique_per_second: median_f64(
            runs.iter()
                .map(|m| m.unique_states as f64 / m.seconds.max(1e-9))
                .collect(),
        ),
        baseline_rss_kib: median_opt_u64(runs.iter().map(|m| m.baseline_rss_kib).collect()),
        peak_rss_kib: median_opt_u64(runs.iter().map(|m| m.peak_rss_kib).collect()),
        bytes_per_state: bytes.filter(|b| !b.is_empty()).map(median_f64),
        exhaustive: runs.iter().all(|m| m.exhaustive),
        stopped: runs.iter().find_map(|m| m.stopped.clone()),
        violations: col(|m| m.violations),
        first_counterexamples,
        bytes_sent_per_state: runs
            .iter()
            .map(|m| m.sent.map(|s| s.bytes_per_generated_state(m.total_states)))
            .collect::<Option<Vec<f64>>>()
            .map(median_f64),
    }
}

/// Runs `spec` in `repeat` fresh children and takes the medians.
pub fn measure_repeated(exe: &Path, spec: &ChildSpec, repeat: usize) -> Result<Row, ChildError> {
    let runs = (0..repeat.max(1))
        .map(|_| run_child(exe, spec))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(median_row(&runs))
}

/// A number with thousands separators (the engine's, as its reports write numbers).
pub use crate::limits::thousands;

fn seconds_text(s: f64) -> String {
    if s < 1.0 {
        format!("{:.1} ms", s * 1000.0)
    } else {
        format!("{s:.2} s")
    }
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or("?".into(), |k| format!("{:.1}", k as f64 / 1024.0))
}

/// Below this many unique states, bytes per state is page and allocator noise.
pub const MIN_STATES_FOR_BYTES: usize = 1000;

fn bytes_text(r: &Row) -> String {
    match r.bytes_per_state {
        _ if r.unique_states < MIN_STATES_FOR_BYTES => "—".into(),
        Some(b) => thousands(b.round() as u64),
        None => "?".into(),
    }
}

fn stopped_text(r: &Row) -> String {
    match (&r.stopped, r.exhaustive) {
        (_, true) => String::new(),
        (Some(why), false) => format!(" (stopped: {why})"),
        (None, false) => " (incomplete)".into(),
    }
}

fn cpu_text(r: &Row) -> String {
    r.cpu_seconds.map_or("?".into(), seconds_text)
}

/// The per-scenario table, with a totals line and the machine it ran on.
pub fn markdown_table(rows: &[Row], machine: &Machine, command: &str) -> String {
    let mut out = String::new();
    let runs = rows.first().map_or(0, |r| r.runs);
    let threads = rows.first().map_or(1, |r| r.threads);
    let symmetry = if rows.first().is_some_and(|r| r.symmetry) {
        ", symmetry reduction on"
    } else {
        ""
    };
    let _ = writeln!(out, "Command: `{command}`  ");
    let _ = writeln!(
        out,
        "Machine: `nproc` = {}, CPU: {}, build: {}  ",
        machine.nproc, machine.cpu, machine.build
    );
    let _ = writeln!(
        out,
        "Medians of {runs} runs per scenario, each in a fresh process; exhaustive BFS, seed variant, {threads} thread(s){symmetry}."
    );
    out.push('\n');
    out.push_str("| scenario | unique states | total states | max depth | wall time | CPU time | unique states/s | peak RSS (MiB) | bytes/state | findings | first counterexample (worst) |\n");
    out.push_str("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for r in rows {
        let first = r.worst_first_counterexample().map_or("—".into(), |f| {
            format!("{} ({} actions)", seconds_text(f.seconds), f.length)
        });
        let _ = writeln!(
            out,
            "| {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.scenario,
            stopped_text(r),
            thousands(r.unique_states as u64),
            thousands(r.total_states as u64),
            r.max_depth,
            seconds_text(r.seconds),
            cpu_text(r),
            thousands(r.unique_per_second.round() as u64),
            mib(r.peak_rss_kib),
            bytes_text(r),
            r.violations,
            first
        );
    }
    let unique: usize = rows.iter().map(|r| r.unique_states).sum();
    let total: usize = rows.iter().map(|r| r.total_states).sum();
    let seconds: f64 = rows.iter().map(|r| r.seconds).sum();
    let cpu: Option<f64> = rows.iter().map(|r| r.cpu_seconds).sum();
    let peak = rows.iter().filter_map(|r| r.peak_rss_kib).max();
    let worst = rows
        .iter()
        .filter_map(|r| r.worst_first_counterexample())
        .max_by(|a, b| a.seconds.total_cmp(&b.seconds))
        .map_or("—".into(), |f| seconds_text(f.seconds));
    let _ = writeln!(
        out,
        "| **all {} scenarios** | {} | {} | | {} | {} | {} | {} (max) | | {} | {} |",
        rows.len(),
        thousands(unique as u64),
        thousands(total as u64),
        seconds_text(seconds),
        cpu.map_or("?".into(), seconds_text),
        thousands((unique as f64 / seconds.max(1e-9)).round() as u64),
        mib(peak),
        rows.iter().map(|r| r.violations).sum::<usize>(),
        worst
    );
    if let Some(b) = rows.iter().filter_map(|r| r.baseline_rss_kib).min() {
        let _ = writeln!(
            out,
            "\nIdle baseline (a child's peak RSS before it explores): {} MiB. Bytes/state = (peak RSS − baseline) / unique states, shown from {} unique states up (below that it is allocator and page granularity).",
            mib(Some(b)),
            thousands(MIN_STATES_FOR_BYTES as u64)
        );
    }
    out
}

/// The bench's JSON document.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub command: String,
    pub machine: Machine,
    pub rows: Vec<Row>,
    pub scaling: Vec<ScalingPoint>,
}

/// One point of a scaling series.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalingPoint {
    pub family: Family,
    pub size: usize,
    pub row: Row,
}

/// What the scaling series runs.
#[derive(Clone, Debug)]
pub struct ScalingConfig {
    pub families: Vec<Family>,
    /// (threads, symmetry) of each series; [`scaling_configs`] gives the standard ones.
    pub configs: Vec<(usize, bool)>,
    /// A size whose run takes longer than this is the family's last.
    pub limit_seconds: f64,
    pub max_size: usize,
    /// Every run stops after this many seconds.
    pub timeout: u64,
    /// Every run stops when its resident set exceeds this many MiB.
    pub memory_limit_mib: u64,
    pub repeat: usize,
}

/// The standard series: 1 and 2 threads without symmetry and, where the checker has it, 1
/// thread with symmetry reduction (which runs our own one-thread BFS).
pub fn scaling_configs() -> Vec<(usize, bool)> {
    let mut configs = vec![(1, false), (2, false)];
    if SYMMETRY_AVAILABLE {
        configs.push((1, true));
    }
    configs
}

/// Runs each family at sizes 1, 2, ... for each configuration, until a size takes longer
/// than `limit_seconds`, stops at a bound (time, memory), or reaches `max_size`.
pub fn run_scaling(
    exe: &Path,
    config: &ScalingConfig,
    progress: &mut dyn FnMut(&ScalingPoint),
) -> Result<Vec<ScalingPoint>, ChildError> {
    let mut points = Vec::new();
    for &family in &config.families {
        for &(threads, symmetry) in &config.configs {
            for size in 1..=config.max_size {
                let spec = ChildSpec {
                    target: Target::Family(family, size),
                    threads,
                    symmetry,
                    por: false,
                    forget_facts: false,
                    variant: None,
                    first_counterexamples: false,
                    timeout: Some(config.timeout),
                    memory_limit_mib: Some(config.memory_limit_mib),
                    frontier: FrontierStorage::default(),
                    timely_workers: None,
                    time_phases: false,
                };
                let row = measure_repeated(exe, &spec, config.repeat)?;
                let stop = !row.exhaustive || row.seconds > config.limit_seconds;
                let point = ScalingPoint { family, size, row };
                progress(&point);
                points.push(point);
                if stop {
                    break;
                }
            }
        }
    }
    Ok(points)
}

/// The scaling series as Markdown: one table per family.
pub fn scaling_markdown(points: &[ScalingPoint], machine: &Machine, command: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Command: `{command}`  ");
    let _ = writeln!(
        out,
        "Machine: `nproc` = {}, CPU: {}, build: {}",
        machine.nproc, machine.cpu, machine.build
    );
    let with_symmetry = points.iter().any(|p| p.row.symmetry);
    for family in Family::ALL {
        let rows: Vec<&ScalingPoint> = points.iter().filter(|p| p.family == family).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n**{}**: n = {}.\n", family.name(), family.knob());
        out.push_str("| n | threads |");
        if with_symmetry {
            out.push_str(" symmetry |");
        }
        out.push_str(" unique states | total states | max depth | wall time | CPU time | unique states/s | peak RSS (MiB) | bytes/state |\n|--:|--:|");
        if with_symmetry {
            out.push_str("---|");
        }
        out.push_str("--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for p in rows {
            let r = &p.row;
            let _ = write!(out, "| {} | {} |", p.size, r.threads);
            if with_symmetry {
                let reduction = points
                    .iter()
                    .find(|q| {
                        r.symmetry
                            && q.family == p.family
                            && q.size == p.size
                            && !q.row.symmetry
                            && q.row.threads == 1
                            && q.row.exhaustive
                            && r.exhaustive
                    })
                    .map_or(String::new(), |q| {
                        format!(
                            " ({:.1}× fewer)",
                            q.row.unique_states as f64 / r.unique_states.max(1) as f64
                        )
                    });
                let _ = write!(
                    out,
                    " {}{reduction} |",
                    if r.symmetry { "on" } else { "off" }
                );
            }
            let _ = writeln!(
                out,
                " {}{} | {} | {} | {} | {} | {} | {} | {} |",
                thousands(r.unique_states as u64),
                stopped_text(r),
                thousands(r.total_states as u64),
                r.max_depth,
                seconds_text(r.seconds),
                cpu_text(r),
                thousands(r.unique_per_second.round() as u64),
                mib(r.peak_rss_kib),
                bytes_text(r)
            );
        }
    }
    out
}

const COLORS: [plotters::style::RGBColor; 6] = [
    plotters::style::RGBColor(31, 119, 180),
    plotters::style::RGBColor(214, 39, 40),
    plotters::style::RGBColor(44, 160, 44),
    plotters::style::RGBColor(148, 103, 189),
    plotters::style::RGBColor(255, 127, 14),
    plotters::style::RGBColor(23, 190, 207),
];

/// Whether the scaling series has a point to plot: one search at least was exhaustive.
pub fn scaling_plottable(points: &[ScalingPoint]) -> bool {
    points.iter().any(|p| p.row.exhaustive)
}

/// The scaling plot as SVG text: unique states (left) and wall time (right) against size, one
/// colour per family; one thread solid, two threads dashed (symmetry: dotted, thinner). The
/// caller writes it (atomically: a file is never left half-drawn).
pub fn scaling_svg(points: &[ScalingPoint]) -> Result<String, PlotError> {
    let mut svg = String::new();
    draw_scaling(points, &mut svg)?;
    Ok(svg)
}

/// What plotters' SVG backend fails with.
pub type DrawingError = plotters::drawing::DrawingAreaErrorKind<std::io::Error>;

/// Why a plot (`bench --scaling --svg`, `sweep --scale --svg`) could not be drawn.
#[derive(Debug)]
pub enum PlotError {
    /// Nothing to plot: every run stopped at a bound (the text says which plot).
    Nothing(&'static str),
    /// The SVG backend failed.
    Draw(DrawingError),
}

impl std::fmt::Display for PlotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlotError::Nothing(why) => f.write_str(why),
            PlotError::Draw(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for PlotError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlotError::Nothing(_) => None,
            PlotError::Draw(e) => Some(e),
        }
    }
}

impl From<DrawingError> for PlotError {
    fn from(e: DrawingError) -> PlotError {
        PlotError::Draw(e)
    }
}

fn draw_scaling(points: &[ScalingPoint], svg: &mut String) -> Result<(), PlotError> {
    use plotters::prelude::*;
    let exhaustive: Vec<&ScalingPoint> = points.iter().filter(|p| p.row.exhaustive).collect();
    if exhaustive.is_empty() {
        return Err(PlotError::Nothing("no exhaustive scaling point to plot"));
    }
    let max_size = exhaustive.iter().map(|p| p.size).max().unwrap_or(1) as f64;
    let max_states = exhaustive
        .iter()
        .map(|p| p.row.unique_states)
        .max()
        .unwrap_or(1) as f64;
    let (min_s, max_s) = exhaustive.iter().fold((f64::MAX, 0f64), |(lo, hi), p| {
        (lo.min(p.row.seconds.max(1e-5)), hi.max(p.row.seconds))
    });
    let root = SVGBackend::with_string(svg, (1200, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(600);
    let configs: Vec<(usize, bool)> = {
        let mut c: Vec<(usize, bool)> = exhaustive
            .iter()
            .map(|p| (p.row.threads, p.row.symmetry))
            .collect();
        c.sort();
        c.dedup();
        c
    };
    let style_of = |family: Family, threads: usize, symmetry: bool| {
        let i = Family::ALL.iter().position(|f| *f == family).unwrap_or(0);
        let color = COLORS[i % COLORS.len()];
        ShapeStyle {
            color: color.to_rgba(),
            filled: false,
            stroke_width: if threads > 1 || symmetry { 1 } else { 2 },
        }
    };
    let series = |family: Family, threads: usize, symmetry: bool| -> Vec<&ScalingPoint> {
        exhaustive
            .iter()
            .copied()
            .filter(|p| {
                p.family == family && p.row.threads == threads && p.row.symmetry == symmetry
            })
            .collect()
    };
    // Left: unique states, one thread (the counts do not depend on the thread count).
    {
        let mut chart = ChartBuilder::on(&left)
            .caption("Unique states by size", ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.5f64..max_size + 0.5, (1f64..max_states * 2.0).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("size n")
            .y_desc("unique states")
            .x_labels(max_size as usize + 1)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .draw()?;
        for family in Family::ALL {
            for &(threads, symmetry) in configs.iter().filter(|(t, _)| *t == configs[0].0) {
                let pts: Vec<(f64, f64)> = series(family, threads, symmetry)
                    .iter()
                    .map(|p| (p.size as f64, p.row.unique_states.max(1) as f64))
                    .collect();
                if pts.is_empty() {
                    continue;
                }
                let style = style_of(family, 1, symmetry);
                let label = if symmetry {
                    format!("{} (symmetry)", family.name())
                } else {
                    family.name().to_string()
                };
                if symmetry {
                    chart.draw_series(DashedLineSeries::new(pts.clone(), 3, 4, style))?
                } else {
                    chart.draw_series(LineSeries::new(pts.clone(), style))?
                }
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, style.filled())))?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    // Right: wall time, every configuration.
    {
        let mut chart = ChartBuilder::on(&right)
            .caption(
                "Wall time by size (solid: 1 thread, dashed: 2)",
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(
                0.5f64..max_size + 0.5,
                (min_s / 2.0..max_s * 2.0).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_desc("size n")
            .y_desc("seconds")
            .x_labels(max_size as usize + 1)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .draw()?;
        for family in Family::ALL {
            for &(threads, symmetry) in &configs {
                let pts: Vec<(f64, f64)> = series(family, threads, symmetry)
                    .iter()
                    .map(|p| (p.size as f64, p.row.seconds.max(1e-5)))
                    .collect();
                if pts.is_empty() {
                    continue;
                }
                let style = style_of(family, threads, symmetry);
                let label = format!(
                    "{}, {threads} thread{}{}",
                    family.name(),
                    if threads == 1 { "" } else { "s" },
                    if symmetry { ", symmetry" } else { "" }
                );
                if threads > 1 || symmetry {
                    chart.draw_series(DashedLineSeries::new(
                        pts.clone(),
                        if symmetry { 2 } else { 6 },
                        4,
                        style,
                    ))?
                } else {
                    chart.draw_series(LineSeries::new(pts.clone(), style))?
                }
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 2, style.filled())))?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 11))
            .draw()?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(seconds: f64, peak: u64) -> Measurement {
        Measurement {
            scenario: "s".into(),
            threads: 1,
            symmetry: false,
            unique_states: 1000,
            total_states: 2000,
            max_depth: 7,
            seconds,
            cpu_seconds: Some(seconds),
            exhaustive: true,
            violations: 1,
            baseline_rss_kib: Some(1000),
            peak_rss_kib: Some(peak),
            first_counterexamples: vec![FirstCounterexample {
                property: "p".into(),
                length: 3,
                seconds: seconds / 10.0,
                found: true,
            }],
            stopped: None,
            sent: None,
            phases: None,
        }
    }

    #[test]
    fn a_reduction_ratio_is_shown_only_between_two_complete_searches() {
        let machine = Machine {
            nproc: 2,
            cpu: "test".into(),
            build: "release".into(),
        };
        let row = |unique, stopped: Option<&str>| {
            let mut r = median_row(&[m(1.0, 2000)]);
            r.unique_states = unique;
            r.exhaustive = stopped.is_none();
            r.stopped = stopped.map(str::to_string);
            r
        };
        let pair = |por_stopped| Pair {
            target: "t".into(),
            first: row(3000, None),
            second: row(1000, por_stopped),
        };
        let table =
            |pairs: &[Pair]| comparison_markdown(Comparison::Reduction, pairs, &machine, "cmd");
        let done = table(&[pair(None)]);
        assert!(done.contains("| 3.00x |"), "{done}");
        assert!(done.contains("states (none) | states (por)"), "{done}");
        let json = pair(None).to_json(Comparison::Frontier);
        assert_eq!(json["values"]["unique_states"], 3000);
        assert_eq!(json["bytes"]["unique_states"], 1000);
        let stopped = table(&[pair(Some("timeout"))]);
        assert!(!stopped.contains("3.00x"), "{stopped}");
        assert!(stopped.contains("(stopped: timeout)"), "{stopped}");
    }

    #[test]
    fn medians_of_odd_and_even_runs() {
        let row = median_row(&[m(3.0, 1100), m(1.0, 1300), m(2.0, 1200)]);
        assert_eq!(row.seconds, 2.0);
        assert_eq!(row.peak_rss_kib, Some(1200));
        assert_eq!(row.bytes_per_state, Some(200.0 * 1024.0 / 1000.0));
        assert_eq!(row.first_counterexamples[0].seconds, 0.2);
        assert_eq!(median_row(&[m(1.0, 1100), m(2.0, 1200)]).seconds, 1.5);
    }

    #[test]
    fn child_arguments_round_trip_the_target() {
        let spec = ChildSpec {
            target: Target::Family(Family::Tabs, 3),
            threads: 2,
            symmetry: false,
            por: true,
            forget_facts: false,
            variant: None,
            first_counterexamples: true,
            timeout: Some(60),
            memory_limit_mib: Some(4096),
            frontier: FrontierStorage::default(),
            timely_workers: None,
            time_phases: false,
        };
        assert_eq!(
            spec.args().join(" "),
            "bench-child --family tabs --size 3 --threads 2 --reduction por --first-counterexamples --timeout 60 --memory-limit 4096"
        );
    }

    #[test]
    fn every_family_compiles_at_several_sizes() {
        for f in Family::ALL {
            assert_eq!(Family::parse(f.name()), Some(f));
            for n in 1..=6 {
                let w = f.world(n).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(w.name, format!("family-{}-{n}", f.name()));
            }
        }
    }

    /// The families that execute a tool are about running bodies: under every text the
    /// model has, some state has a body (an input the text rejects would measure only the
    /// rejection, as `to-json-primitive` did under the current text).
    #[test]
    fn the_executing_families_run_tool_bodies_under_every_text() {
        use webmcp_model::variant::REVISIONS;
        for family in [Family::Executions, Family::CallerTarget] {
            for info in REVISIONS {
                let variant = Variant::parse("seed").unwrap().at(info.revision);
                let m = WebMcpModel::new(family.world(1).unwrap(), variant);
                let mut stack = vec![m.initial_state()];
                let mut seen = std::collections::HashSet::new();
                let mut actions = Vec::new();
                let mut body_runs = false;
                while let Some(s) = stack.pop() {
                    body_runs |= !s.bodies.is_empty();
                    actions.clear();
                    m.enabled_actions(&s, &mut actions);
                    for &a in &actions {
                        let t = m.apply(&s, a, &mut ());
                        if seen.insert(webmcp_checker::fingerprint::fingerprint(&t)) {
                            stack.push(t);
                        }
                    }
                }
                assert!(body_runs, "{} under {}", family.name(), info.name);
            }
        }
    }

    #[test]
    fn tabs_family_grows_as_a_product_of_independent_tabs() {
        // Each tab alone has 8 states and the tabs never interact, so n tabs have 8^n.
        for n in 1..=3 {
            let r = check(
                model_of(Family::Tabs.world(n).unwrap()),
                &options(1, false, None),
            );
            assert_eq!(r.unique_states, 8usize.pow(n as u32), "size {n}");
        }
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn peak_rss_is_readable_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(peak_rss_kib().is_some_and(|k| k > 0));
        }
    }
    #[test]
    fn a_family_error_keeps_the_scenario_error() {
        use std::error::Error;
        let scenario = World::from_json("not json").unwrap_err();
        let err = FamilyError {
            family: Family::Tabs,
            size: 3,
            source: scenario.clone(),
        };
        assert_eq!(err.to_string(), format!("family tabs size 3: {scenario}"));
        let source = err.source().and_then(|s| s.downcast_ref::<ScenarioError>());
        assert_eq!(source, Some(&scenario));
    }

    #[test]
    fn a_plot_without_an_exhaustive_point_says_so() {
        let err = scaling_svg(&[]).unwrap_err();
        assert!(matches!(err, PlotError::Nothing(_)), "{err:?}");
        assert_eq!(err.to_string(), "no exhaustive scaling point to plot");
    }
}

/// What `bench` measures two ways, side by side: each target without and with
/// partial-order reduction, or with its frontier kept as values and as bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    Reduction,
    Frontier,
    /// The local engine on `threads` threads against timely dataflow on as many workers.
    Engine,
}

impl Comparison {
    /// The names of the two ways, as the table and the JSON call them.
    pub fn labels(self) -> [&'static str; 2] {
        match self {
            Comparison::Reduction => ["none", "por"],
            Comparison::Frontier => ["values", "bytes"],
            Comparison::Engine => ["local", "timely"],
        }
    }

    /// The run of `target` the first (`false`) or second (`true`) way.
    fn spec(self, target: &Target, second: bool, run: &CompareRun) -> ChildSpec {
        ChildSpec {
            target: target.clone(),
            threads: run.threads,
            symmetry: false,
            por: self == Comparison::Reduction && second,
            forget_facts: false,
            variant: None,
            frontier: match (self, second) {
                (Comparison::Frontier, false) => FrontierStorage::Values,
                (Comparison::Frontier, true) => FrontierStorage::Bytes,
                (Comparison::Reduction | Comparison::Engine, _) => FrontierStorage::default(),
            },
            timely_workers: (self == Comparison::Engine && second).then_some(run.threads),
            first_counterexamples: false,
            timeout: run.timeout,
            memory_limit_mib: Some(run.memory_limit_mib),
            time_phases: false,
        }
    }
}

/// How each run of a comparison is made.
#[derive(Clone, Debug)]
pub struct CompareRun {
    /// Search threads (the breadth-first search on one thread, or the parallel one).
    pub threads: usize,
    /// Runs per measurement (medians).
    pub repeat: usize,
    pub timeout: Option<u64>,
    pub memory_limit_mib: u64,
}

/// One target measured both ways of a [`Comparison`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    pub target: String,
    pub first: Row,
    pub second: Row,
}

impl Pair {
    /// As JSON, each row under its way's name (`{"target", "none", "por"}` for the reduction).
    pub fn to_json(&self, comparison: Comparison) -> serde_json::Value {
        let [a, b] = comparison.labels();
        serde_json::json!({"target": self.target, a: self.first, b: self.second})
    }
}

/// Measures each target twice, the first way and then the second, each run in its own
/// process.
pub fn compare(
    exe: &Path,
    comparison: Comparison,
    targets: &[Target],
    run: &CompareRun,
    progress: &mut dyn FnMut(&Pair),
) -> Result<Vec<Pair>, ChildError> {
    let mut pairs = Vec::new();
    for target in targets {
        let spec = |second| comparison.spec(target, second, run);
        let first = measure_repeated(exe, &spec(false), run.repeat)?;
        let second = measure_repeated(exe, &spec(true), run.repeat)?;
        let pair = Pair {
            target: match target {
                Target::Scenario(name) => name.clone(),
                Target::Family(f, n) => format!("{} family, size {n}", f.name()),
            },
            first,
            second,
        };
        progress(&pair);
        pairs.push(pair);
    }
    Ok(pairs)
}

/// The comparison as a Markdown table: states, time, CPU states/s and memory, side by side.
pub fn comparison_markdown(
    comparison: Comparison,
    pairs: &[Pair],
    machine: &Machine,
    command: &str,
) -> String {
    let [a, b] = comparison.labels();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Command: `{command}`. Machine: {} CPUs ({}), {} build. {} thread(s), exhaustive BFS, seed variant; each run in a fresh process.\n",
        machine.nproc,
        machine.cpu,
        machine.build,
        pairs.first().map_or(1, |p| p.first.threads)
    );
    let engines = comparison == Comparison::Engine;
    let _ = writeln!(
        out,
        "| target | states ({a}) | states ({b}) | fewer | time ({a}) | time ({b}) | CPU states/s ({a}) | CPU states/s ({b}) | peak MiB ({a}) | peak MiB ({b}) |{}",
        if engines {
            format!(" bytes sent per state ({b}) |")
        } else {
            String::new()
        }
    );
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    out.push_str(if engines { "---:|\n" } else { "\n" });
    let per_cpu = |r: &Row| {
        r.cpu_seconds
            .filter(|c| *c > 0.0)
            .map_or("-".to_string(), |c| {
                thousands((r.unique_states as f64 / c) as u64)
            })
    };
    let mib = |r: &Row| {
        r.peak_rss_kib
            .map_or("-".to_string(), |k| thousands(k / 1024))
    };
    let states = |r: &Row| {
        let n = thousands(r.unique_states as u64);
        match &r.stopped {
            Some(why) => format!("{n} (stopped: {why})"),
            None => n,
        }
    };
    for p in pairs {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.target,
            states(&p.first),
            states(&p.second),
            // A ratio of two searches a bound stopped compares nothing.
            if p.first.exhaustive && p.second.exhaustive {
                format!(
                    "{:.2}x",
                    p.first.unique_states as f64 / p.second.unique_states.max(1) as f64
                )
            } else {
                "—".to_string()
            },
            seconds_text(p.first.seconds),
            seconds_text(p.second.seconds),
            per_cpu(&p.first),
            per_cpu(&p.second),
            mib(&p.first),
            mib(&p.second),
        );
        if engines {
            out.pop();
            let _ = writeln!(
                out,
                " {} |",
                p.second
                    .bytes_sent_per_state
                    .map_or("-".to_string(), |b| format!("{b:.0}"))
            );
        }
    }
    out
}
