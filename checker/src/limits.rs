//! The bounds that may stop an exploration, how a stop is named, and how memory is measured.
//!
//! Every explorer (the one-thread breadth- and depth-first search, the parallel search,
//! simulation, and any explorer a caller writes on top of the engine) asks a
//! [`Budget`] at regular checkpoints whether its time or memory is used up, and reports why it
//! stopped as a [`StopReason`]: a run that stopped early is never a pass.
//!
//! **Memory** is the resident set of the whole process (`/proc/self/statm`, or the peak from
//! `getrusage` where there is no `/proc`), read at most every [`MEMORY_POLL`]: a read costs a
//! few microseconds, so the checkpoints stay cheap. Between two reads the process can grow by
//! what it allocates in that time plus one hash-table doubling; that is why the default limit
//! ([`default_memory_limit_mib`]) is half the machine's memory and not all of it.

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The most checker or worker threads a command accepts. More threads than cores only adds
/// contention (every worker of a parallel search shares one visited set and one pool of work),
/// each thread reserves a stack, and thousands of them exhaust the process's thread limit: 256
/// is above the core count of any machine this runs on and far below those limits.
pub const MAX_THREADS: usize = 256;

/// How often the resident set is read, at most.
pub const MEMORY_POLL: Duration = Duration::from_millis(50);

/// Used as the default memory limit when the machine's memory cannot be read.
pub const FALLBACK_MEMORY_LIMIT_MIB: u64 = 4096;

/// Why an exploration stopped before it was exhaustive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// `--timeout`: the wall-clock budget of one search ran out.
    Timeout { limit: Duration },
    /// `--max-states`: this many states were generated.
    MaxStates { n: usize },
    /// `--max-depth`: states at this depth were not expanded.
    MaxDepth { n: usize },
    /// `--memory-limit`: the process's resident set exceeded this many MiB.
    MemoryLimit { mib: u64 },
    /// `--mode sim`: every random walk was taken; random walks are never exhaustive.
    Runs { n: u64 },
    /// The checker threads could not be started.
    ThreadSpawn { threads: usize, reason: String },
    /// A distributed run lost a worker or a process (`--engine timely`).
    Cluster { reason: String },
}

impl StopReason {
    /// A short, stable name for programs (the `kind` of the JSON object).
    pub fn kind(&self) -> &'static str {
        match self {
            StopReason::Timeout { .. } => "timeout",
            StopReason::MaxStates { .. } => "max-states",
            StopReason::MaxDepth { .. } => "max-depth",
            StopReason::MemoryLimit { .. } => "memory-limit",
            StopReason::Runs { .. } => "runs",
            StopReason::ThreadSpawn { .. } => "thread-spawn",
            StopReason::Cluster { .. } => "cluster",
        }
    }

    /// The stop as JSON: `{"kind": ..., <the bound>}`.
    pub fn to_json(&self) -> Value {
        match self {
            StopReason::Timeout { limit } => {
                json!({"kind": self.kind(), "seconds": limit.as_secs_f64()})
            }
            StopReason::MaxStates { n } => json!({"kind": self.kind(), "states": n}),
            StopReason::MaxDepth { n } => json!({"kind": self.kind(), "depth": n}),
            StopReason::MemoryLimit { mib } => json!({"kind": self.kind(), "mib": mib}),
            StopReason::Runs { n } => json!({"kind": self.kind(), "runs": n}),
            StopReason::ThreadSpawn { threads, reason } => {
                json!({"kind": self.kind(), "threads": threads, "reason": reason})
            }
            StopReason::Cluster { reason } => json!({"kind": self.kind(), "reason": reason}),
        }
    }

    /// Reads back what [`StopReason::to_json`] wrote; `None` for anything else.
    pub fn from_json(v: &Value) -> Option<StopReason> {
        let field = |name: &str| v.get(name).and_then(Value::as_u64);
        let only = |names: &[&str]| v.as_object().is_some_and(|o| o.len() == names.len() + 1);
        Some(match v.get("kind")?.as_str()? {
            "timeout" if only(&["seconds"]) => StopReason::Timeout {
                limit: Duration::try_from_secs_f64(v.get("seconds")?.as_f64()?).ok()?,
            },
            "max-states" if only(&["states"]) => StopReason::MaxStates {
                n: usize::try_from(field("states")?).ok()?,
            },
            "max-depth" if only(&["depth"]) => StopReason::MaxDepth {
                n: usize::try_from(field("depth")?).ok()?,
            },
            "memory-limit" if only(&["mib"]) => StopReason::MemoryLimit { mib: field("mib")? },
            "runs" if only(&["runs"]) => StopReason::Runs { n: field("runs")? },
            "thread-spawn" if only(&["threads", "reason"]) => StopReason::ThreadSpawn {
                threads: usize::try_from(field("threads")?).ok()?,
                reason: v.get("reason")?.as_str()?.to_string(),
            },
            _ => return None,
        })
    }

    /// One phrase for people: "stopped by --timeout 5 s after 1,234,567 states".
    pub fn describe(&self, total_states: usize) -> String {
        let after = thousands(total_states as u64);
        match self {
            StopReason::Runs { n } => format!(
                "random walks: all --runs {} taken, {after} states; simulation is never exhaustive",
                thousands(*n)
            ),
            StopReason::MaxDepth { .. } => {
                format!("stopped by {self}: deeper states were not explored ({after} states)")
            }
            StopReason::ThreadSpawn { .. } | StopReason::Cluster { .. } => {
                format!("stopped: {self}")
            }
            _ => format!("stopped by {self} after {after} states"),
        }
    }
}

/// Why an exploration is not exhaustive, for people: the bound that stopped it
/// ([`StopReason::describe`]), or, where a search was cut short without one, that a bound
/// stopped it. `None` when it is exhaustive.
pub fn why_incomplete(
    stopped_by: Option<&StopReason>,
    exhaustive: bool,
    total_states: usize,
) -> Option<String> {
    match stopped_by {
        Some(stop) => Some(stop.describe(total_states)),
        None if !exhaustive => Some("a bound stopped exploration".to_string()),
        None => None,
    }
}

/// The bound as the command line names it: "--timeout 5 s", "--memory-limit 512 MiB".
impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Timeout { limit } if limit.subsec_nanos() == 0 => {
                write!(f, "--timeout {} s", limit.as_secs())
            }
            StopReason::Timeout { limit } => write!(f, "--timeout {:.3} s", limit.as_secs_f64()),
            StopReason::MaxStates { n } => write!(f, "--max-states {}", thousands(*n as u64)),
            StopReason::MaxDepth { n } => write!(f, "--max-depth {n}"),
            StopReason::MemoryLimit { mib } => write!(f, "--memory-limit {mib} MiB"),
            StopReason::Runs { n } => write!(f, "--runs {n}"),
            StopReason::ThreadSpawn { threads, reason } => {
                write!(f, "could not start {threads} checker threads ({reason})")
            }
            StopReason::Cluster { reason } => write!(f, "the cluster failed ({reason})"),
        }
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// This process's resident set in bytes: `/proc/self/statm`, or where there is no `/proc`
/// the peak resident set from `getrusage` (never less than the current one).
pub fn resident_bytes() -> Option<u64> {
    statm_resident_bytes().or_else(peak_resident_bytes)
}

fn statm_resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size())
}

fn page_size() -> u64 {
    #[cfg(unix)]
    {
        // SAFETY: sysconf reads a constant of the system.
        let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if n > 0 {
            return n as u64;
        }
    }
    4096
}

fn peak_resident_bytes() -> Option<u64> {
    #[cfg(unix)]
    {
        let max = crate::bench::rusage_self()?.ru_maxrss.max(0) as u64;
        // Linux reports KiB, macOS bytes.
        Some(if cfg!(target_os = "macos") {
            max
        } else {
            max * 1024
        })
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The memory this process may use, in bytes: the machine's (`MemTotal` of `/proc/meminfo`,
/// else the physical pages `sysconf` reports), or the control group's `memory.max` when that
/// is smaller.
pub fn machine_memory_bytes() -> Option<u64> {
    let total = meminfo_total_bytes().or_else(sysconf_memory_bytes);
    match (total, cgroup_memory_max_bytes()) {
        (Some(t), Some(c)) => Some(t.min(c)),
        (t, c) => t.or(c),
    }
}

fn meminfo_total_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

fn sysconf_memory_bytes() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf reads a constant of the system.
        let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) };
        (pages > 0).then(|| pages as u64 * page_size())
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The memory limit of this process's control group, if it has one: cgroup v2 `memory.max`
/// ("max" means none) or cgroup v1 `memory.limit_in_bytes` (a huge number means none).
fn cgroup_memory_max_bytes() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let path_of = |prefix: &str| {
        groups
            .lines()
            .find_map(|l| l.split_once(prefix).map(|(_, p)| p.trim().to_string()))
            .filter(|p| p != "/")
    };
    let mut candidates = Vec::new();
    if let Some(path) = path_of("0::") {
        candidates.push(format!("/sys/fs/cgroup{path}/memory.max"));
    }
    candidates.push("/sys/fs/cgroup/memory.max".to_string());
    if let Some(path) = path_of(":memory:") {
        candidates.push(format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes"));
    }
    candidates.push("/sys/fs/cgroup/memory/memory.limit_in_bytes".to_string());
    candidates
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .filter_map(|v| v.trim().parse::<u64>().ok())
        .min()
}

/// The default `--memory-limit`: half of [`machine_memory_bytes`] in MiB, or
/// [`FALLBACK_MEMORY_LIMIT_MIB`] when it cannot be read. Half, because the resident set is
/// read only every [`MEMORY_POLL`] and a hash table that doubles needs its old and its new
/// array at once; and the machine has other work (the build, the browser, other checks).
pub fn default_memory_limit_mib() -> u64 {
    machine_memory_bytes()
        .map(|b| (b / 2 / (1024 * 1024)).max(1))
        .unwrap_or(FALLBACK_MEMORY_LIMIT_MIB)
}

/// The memory limit of every exploration in this process that sets none in its options
/// (0: none). Commands whose checks run inside other crates (findings, corpus) set it once.
static PROCESS_MEMORY_LIMIT_MIB: AtomicU64 = AtomicU64::new(0);

/// How many explorations in this process the memory limit stopped.
static MEMORY_STOPS: AtomicUsize = AtomicUsize::new(0);

/// Sets (or with `None` clears) the process-wide memory limit.
pub fn set_process_memory_limit(mib: Option<u64>) {
    PROCESS_MEMORY_LIMIT_MIB.store(mib.unwrap_or(0), Ordering::SeqCst);
}

/// The process-wide memory limit, if one is set.
pub fn process_memory_limit() -> Option<u64> {
    Some(PROCESS_MEMORY_LIMIT_MIB.load(Ordering::SeqCst)).filter(|m| *m > 0)
}

/// How many explorations of this process the memory limit has stopped so far: lets a
/// command whose checks run in another crate name the bound that failed it.
pub fn memory_limit_stops() -> usize {
    MEMORY_STOPS.load(Ordering::SeqCst)
}

/// How long a one-thread search goes at most between two looks at its budget and progress,
/// once it knows how long its states take (a single state that takes longer is waited for).
pub const CHECK_EVERY: Duration = Duration::from_millis(10);

/// The most states a one-thread search expands between two checkpoints: its clock is read
/// once per this many states where states are quick.
pub const MAX_CHECK_INTERVAL: u64 = 256;

/// When a one-thread search next reports progress and asks its [`Budget`]: at its first
/// state, then every state while states take long, and up to every [`MAX_CHECK_INTERVAL`]
/// states where that many take less than [`CHECK_EVERY`]. A fixed count would let a
/// search whose states each take 65 ms run 256 of them, 17 s, past a one-second timeout.
pub struct Checkpoints {
    left: u64,
    interval: u64,
    last: Instant,
}

impl Default for Checkpoints {
    fn default() -> Self {
        Checkpoints::new(Instant::now())
    }
}

impl Checkpoints {
    pub fn new(now: Instant) -> Checkpoints {
        Checkpoints {
            left: 0,
            interval: 1,
            last: now,
        }
    }

    /// Whether the state about to be expanded is a checkpoint.
    #[inline]
    pub fn due(&mut self) -> bool {
        if self.left > 0 {
            self.left -= 1;
            return false;
        }
        self.passed(Instant::now());
        true
    }

    /// A checkpoint at `now`: the interval doubles while the states since the last one
    /// took less than half of [`CHECK_EVERY`], and shrinks at once to what would have taken
    /// [`CHECK_EVERY`] where they took more (so states that turn slow after a quick start
    /// run past a bound by at most one interval, once).
    fn passed(&mut self, now: Instant) {
        let took = now.saturating_duration_since(self.last);
        self.interval = if took < CHECK_EVERY / 2 {
            (self.interval * 2).min(MAX_CHECK_INTERVAL)
        } else if took > CHECK_EVERY {
            let fits = self.interval as u128 * CHECK_EVERY.as_nanos() / took.as_nanos();
            (fits as u64).max(1)
        } else {
            self.interval
        };
        self.last = now;
        self.left = self.interval - 1;
    }
}

/// The time and memory budget of one exploration, asked at the explorer's checkpoints.
pub struct Budget {
    start: Instant,
    timeout: Option<Duration>,
    memory_mib: Option<u64>,
    next_memory_read: Instant,
    /// The resident set at the last read, in bytes (0 before the first).
    last_resident: u64,
}

impl Budget {
    /// A budget from `start`; `memory_mib` falls back to the process-wide limit.
    pub fn new(start: Instant, timeout: Option<Duration>, memory_mib: Option<u64>) -> Budget {
        Budget {
            start,
            timeout,
            memory_mib: memory_mib.or_else(process_memory_limit),
            next_memory_read: start,
            last_resident: 0,
        }
    }

    /// `Some` when the time is up or the process's resident set is over the limit. Cheap:
    /// one clock read, and a read of `/proc/self/statm` at most every [`MEMORY_POLL`].
    pub fn exceeded(&mut self) -> Option<StopReason> {
        if let Some(limit) = self.timeout {
            if self.start.elapsed() >= limit {
                return Some(StopReason::Timeout { limit });
            }
        }
        let mib = self.memory_mib?;
        let now = Instant::now();
        if now < self.next_memory_read {
            return None;
        }
        self.next_memory_read = now + MEMORY_POLL;
        self.last_resident = resident_bytes().unwrap_or(0);
        if self.last_resident > mib_bytes(mib) {
            MEMORY_STOPS.fetch_add(1, Ordering::SeqCst);
            return Some(StopReason::MemoryLimit { mib });
        }
        None
    }
}

impl Budget {
    /// Whether the resident set, at the last read of [`Budget::exceeded`], was over a quarter
    /// of the memory limit: the point from which a search trades time for memory (the
    /// compact frontier). Never, without a limit.
    pub fn memory_is_scarce(&self) -> bool {
        self.memory_mib
            .is_some_and(|mib| self.last_resident > mib_bytes(mib) / SCARCE_FRACTION)
    }
}

/// `mib` mebibytes in bytes; a limit beyond what 64 bits count is no limit, never a wrapped
/// small one (2^44 MiB would otherwise read as 0 bytes).
fn mib_bytes(mib: u64) -> u64 {
    mib.saturating_mul(1024 * 1024)
}

/// Memory counts as scarce above this fraction (1/N) of the limit.
pub const SCARCE_FRACTION: u64 = 4;

/// A test hook: when set, [`can_start_threads`] behaves as if the OS refused any thread
/// beyond this many (`usize::MAX`: not set).
static REFUSE_THREADS_ABOVE: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Makes [`can_start_threads`] refuse more than `most` threads, as an OS out of threads or
/// memory would (`None` lifts it). For tests: an address-space limit small enough to refuse
/// thread stacks also makes the C library abort at random, outside this code.
pub fn refuse_threads_above(most: Option<usize>) {
    REFUSE_THREADS_ABOVE.store(most.unwrap_or(usize::MAX), Ordering::SeqCst);
}

/// Whether `n` threads with the default stack can run at once: starts them, holds them all
/// until the last has started (or one was refused), then lets them go and joins them, so a
/// refusal leaves nothing behind. A search that finds the OS refusing its third thread has
/// two already running, and a process at its limits may then fail even a small allocation;
/// asking first keeps that failure clean.
pub fn can_start_threads(n: usize) -> std::io::Result<()> {
    use std::sync::{Arc, Condvar, Mutex};
    if n > REFUSE_THREADS_ABOVE.load(Ordering::SeqCst) {
        // EAGAIN, what pthread_create returns when the OS is out of threads or memory.
        return Err(std::io::Error::from_raw_os_error(libc::EAGAIN));
    }
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    let mut started = Vec::with_capacity(n);
    let mut refused = None;
    for _ in 0..n {
        let gate = Arc::clone(&gate);
        let spawned = std::thread::Builder::new().spawn(move || {
            let (open, cv) = &*gate;
            let mut open = open.lock().unwrap_or_else(|e| e.into_inner());
            while !*open {
                open = cv.wait(open).unwrap_or_else(|e| e.into_inner());
            }
        });
        match spawned {
            Ok(h) => started.push(h),
            Err(e) => {
                refused = Some(e);
                break;
            }
        }
    }
    *gate.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
    gate.1.notify_all();
    for h in started {
        let _ = h.join();
    }
    refused.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {

    /// Quick states are counted between checkpoints, up to [`MAX_CHECK_INTERVAL`]; slow
    /// ones make every state a checkpoint, so a bound is asked within one state of time.
    #[test]
    fn checkpoints_come_every_state_while_states_are_slow() {
        let t0 = Instant::now();
        let mut c = Checkpoints::new(t0);
        // 1 µs a state: 1, 2, 4, ... then 256 states between checkpoints.
        let mut now = t0;
        let mut gaps = Vec::new();
        let mut since = 0u64;
        for _ in 0..5000 {
            now += Duration::from_micros(1);
            since += 1;
            if c.left > 0 {
                c.left -= 1;
            } else {
                c.passed(now);
                gaps.push(since);
                since = 0;
            }
        }
        assert_eq!(&gaps[..4], &[1, 2, 4, 8]);
        assert!(gaps[gaps.len() - 2..]
            .iter()
            .all(|&g| g == MAX_CHECK_INTERVAL));
        // Then 65 ms a state: the interval under way runs out (at most 256 states), and
        // from the next checkpoint on every state is one.
        let mut checkpoints_at = Vec::new();
        for k in 0..600u64 {
            now += Duration::from_millis(65);
            if c.left > 0 {
                c.left -= 1;
            } else {
                c.passed(now);
                checkpoints_at.push(k);
            }
        }
        assert!(checkpoints_at[0] < MAX_CHECK_INTERVAL, "{checkpoints_at:?}");
        let first = checkpoints_at[0];
        assert_eq!(
            checkpoints_at,
            (first..600).collect::<Vec<_>>(),
            "every state after the first slow checkpoint is one"
        );
        assert_eq!(c.interval, 1);
    }

    use super::*;

    #[test]
    fn a_stop_reads_back_as_written_and_nothing_else_does() {
        for stop in [
            StopReason::Timeout {
                limit: Duration::from_secs(5),
            },
            StopReason::MaxStates { n: 1234 },
            StopReason::MaxDepth { n: 7 },
            StopReason::MemoryLimit { mib: 512 },
            StopReason::Runs { n: 1000 },
            StopReason::ThreadSpawn {
                threads: 4,
                reason: "no".into(),
            },
        ] {
            assert_eq!(StopReason::from_json(&stop.to_json()), Some(stop));
        }
        for bad in [
            json!({"kind": "timeout", "seconds": -1.0}),
            json!({"kind": "max-states", "states": "many"}),
            json!({"kind": "max-depth", "depth": 3, "extra": 1}),
            json!({"kind": "elsewhere"}),
            json!([1, 2]),
        ] {
            assert_eq!(StopReason::from_json(&bad), None, "{bad}");
        }
    }

    #[test]
    fn the_resident_set_is_readable_and_plausible() {
        let b = resident_bytes().expect("readable on Linux");
        assert!(b > 1024 * 1024 && b < 64 * 1024 * 1024 * 1024, "{b}");
        // Touching 64 MiB shows in the resident set.
        let v = std::hint::black_box(vec![1u8; 64 << 20]);
        let after = resident_bytes().unwrap();
        assert!(after >= b + (48 << 20), "{b} -> {after}");
        assert_eq!(std::hint::black_box(&v)[12345], 1);
    }

    #[test]
    fn the_default_memory_limit_is_half_the_machine() {
        let machine = machine_memory_bytes().expect("readable on Linux");
        let limit = default_memory_limit_mib();
        assert_eq!(limit, machine / 2 / (1024 * 1024));
        assert!(limit >= 64, "{limit}");
    }

    #[test]
    fn a_budget_names_the_bound_it_ran_out_of() {
        let start = Instant::now();
        let mut b = Budget::new(start, Some(Duration::ZERO), None);
        assert_eq!(
            b.exceeded(),
            Some(StopReason::Timeout {
                limit: Duration::ZERO
            })
        );
        let mut b = Budget::new(start, None, Some(1));
        assert_eq!(b.exceeded(), Some(StopReason::MemoryLimit { mib: 1 }));
        let mut b = Budget::new(start, Some(Duration::from_secs(3600)), Some(1 << 30));
        assert_eq!(b.exceeded(), None);
        // Limits whose bytes do not fit in 64 bits stop nothing (they wrapped to tiny ones).
        for mib in [1 << 44, (1 << 44) + 1, u64::MAX] {
            let mut b = Budget::new(start, None, Some(mib));
            assert_eq!(b.exceeded(), None, "{mib}");
            assert!(!b.memory_is_scarce(), "{mib}");
        }
    }

    #[test]
    fn stops_read_as_the_command_line_names_them() {
        let t = StopReason::Timeout {
            limit: Duration::from_secs(5),
        };
        assert_eq!(
            t.describe(1_234_567),
            "stopped by --timeout 5 s after 1,234,567 states"
        );
        assert_eq!(t.to_json()["kind"], "timeout");
        assert_eq!(t.to_json()["seconds"], 5.0);
        assert_eq!(
            StopReason::MemoryLimit { mib: 512 }.describe(10),
            "stopped by --memory-limit 512 MiB after 10 states"
        );
        assert_eq!(StopReason::MaxStates { n: 7 }.to_json()["states"], 7);
    }

    #[test]
    fn a_few_threads_can_start() {
        assert!(can_start_threads(4).is_ok());
    }
}
