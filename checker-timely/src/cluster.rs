//! Who takes part in a run, and how they connect.
//!
//! One process is timely's process communication: `workers` threads exchanging in memory. Several
//! processes connect over TCP, each to every other, as timely's own cluster mode does, but the
//! connections are made here rather than by timely, for three reasons: timely prints its
//! connection attempts on standard output (where our reports go), it retries for ever when a
//! process never starts, and it does not check that the processes run the same search. Here
//! each connection starts with a handshake that carries a fingerprint of the run (the models,
//! the properties and the options); processes that disagree refuse each other, and a process
//! missing past the deadline fails the run.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Condvar, Mutex, Once};
use std::time::{Duration, Instant};

use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::Hooks;

/// The largest number of worker threads per process, and of processes.
pub const MAX_WORKERS: usize = 256;
pub const MAX_PROCESSES: usize = 1024;
/// A hostfile larger than this is refused before it is read.
const MAX_HOSTFILE_BYTES: u64 = 1 << 20;
/// The longest wait for the other processes to connect.
pub const MAX_CONNECT_WAIT: Duration = Duration::from_secs(24 * 3600);
/// The first bytes of every handshake.
const MAGIC: &[u8; 8] = b"wmcpTLY1";

/// The workers of a run: `workers` threads in each of `processes` processes, this one being
/// number `process` (from 0), reachable at `hosts[i]` (`host:port`, one per process).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    pub workers: usize,
    pub processes: usize,
    pub process: usize,
    pub hosts: Vec<String>,
    /// How long to wait for every process to connect.
    pub connect_within: Duration,
    /// The caller's fingerprint of what it runs (e.g. its command line, less the process
    /// number): processes whose tags differ refuse each other.
    pub tag: u64,
}

impl Cluster {
    /// One process with `workers` threads.
    pub fn local(workers: usize) -> Cluster {
        Cluster {
            workers,
            processes: 1,
            process: 0,
            hosts: Vec::new(),
            connect_within: Duration::from_secs(60),
            tag: 0,
        }
    }

    /// Checks the shape: at least one worker, a process index in range, one host per process.
    pub fn validate(&self) -> Result<(), ClusterError> {
        let bad = |why: String| Err(ClusterError::Usage(why));
        if self.workers == 0 || self.workers > MAX_WORKERS {
            return bad(format!(
                "--workers wants 1 to {MAX_WORKERS}, not {}",
                self.workers
            ));
        }
        if self.processes == 0 || self.processes > MAX_PROCESSES {
            return bad(format!(
                "--processes wants 1 to {MAX_PROCESSES}, not {}",
                self.processes
            ));
        }
        if self.process >= self.processes {
            return bad(format!(
                "--process {} is not one of the {} processes (they are numbered from 0)",
                self.process, self.processes
            ));
        }
        if (self.processes > 1 || !self.hosts.is_empty()) && self.hosts.len() != self.processes {
            return bad(format!(
                "the hostfile names {} processes, but --processes is {}",
                self.hosts.len(),
                self.processes
            ));
        }
        Ok(())
    }

    /// Connects to the other processes (if any) and builds timely's allocators.
    pub(crate) fn allocators(
        &self,
        run: u64,
    ) -> Result<(Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>), ClusterError> {
        self.validate()?;
        if self.processes == 1 {
            return timely::CommunicationConfig::Process(self.workers)
                .try_build()
                .map_err(ClusterError::Start);
        }
        let sockets = self.connect(run)?;
        let hooks = Hooks::default();
        let local = ProcessBuilder::new_typed_vector(
            self.workers,
            hooks.refill.clone(),
            hooks.spill.clone(),
        );
        let (builders, guard) =
            initialize_networking_from_sockets(local, sockets, self.process, self.workers, hooks)
                .map_err(|e| ClusterError::Start(format!("could not start networking: {e}")))?;
        Ok((
            builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
            Box::new(guard),
        ))
    }

    /// A socket to every other process, in process order (`None` at this one): this process
    /// connects to those before it and accepts those after it, as timely does.
    fn connect(&self, run: u64) -> Result<Vec<Option<TcpStream>>, ClusterError> {
        let deadline = Instant::now() + self.connect_within.min(MAX_CONNECT_WAIT);
        let me = self.process;
        let mut sockets: Vec<Option<TcpStream>> = (0..self.processes).map(|_| None).collect();
        for (i, host) in self.hosts.iter().enumerate().take(me) {
            let stream = loop {
                match TcpStream::connect(host) {
                    Ok(s) => break s,
                    Err(e) if Instant::now() >= deadline => {
                        return Err(ClusterError::Start(format!(
                            "process {i} at {host} did not accept a connection within {} s ({e})",
                            self.connect_within.as_secs()
                        )))
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(100)),
                }
            };
            sockets[i] = Some(self.shake(stream, run, Some(i), deadline)?);
        }
        if me + 1 < self.processes {
            let listener = TcpListener::bind(&self.hosts[me]).map_err(|e| {
                ClusterError::Start(format!("could not listen on {}: {e}", self.hosts[me]))
            })?;
            listener
                .set_nonblocking(true)
                .map_err(|e| ClusterError::Start(e.to_string()))?;
            while sockets[me + 1..].iter().any(Option::is_none) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream
                            .set_nonblocking(false)
                            .map_err(|e| ClusterError::Start(e.to_string()))?;
                        let (peer, stream) = match self.greet(stream, run, deadline) {
                            Ok(greeted) => greeted,
                            // Something that is not a process of a run (a port scan, a
                            // stray client) is dropped, and the wait goes on.
                            Err(Stranger) => continue,
                            Err(Peer(e)) => return Err(e),
                        };
                        if peer <= me || sockets[peer].is_some() {
                            return Err(ClusterError::Start(format!(
                                "a connection claimed to be process {peer}, which this one does \
                                 not accept"
                            )));
                        }
                        sockets[peer] = Some(stream);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        if Instant::now() >= deadline {
                            let missing: Vec<String> = (me + 1..self.processes)
                                .filter(|&i| sockets[i].is_none())
                                .map(|i| i.to_string())
                                .collect();
                            return Err(ClusterError::Start(format!(
                                "process(es) {} did not connect within {} s",
                                missing.join(", "),
                                self.connect_within.as_secs()
                            )));
                        }
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    Err(e) => return Err(ClusterError::Start(format!("accept failed: {e}"))),
                }
            }
        }
        Ok(sockets)
    }

    /// The connecting side's handshake: says who it is, then checks the answer.
    fn shake(
        &self,
        mut stream: TcpStream,
        run: u64,
        expect: Option<usize>,
        deadline: Instant,
    ) -> Result<TcpStream, ClusterError> {
        let io = |e: std::io::Error| ClusterError::Start(format!("handshake failed: {e}"));
        stream.set_nodelay(true).map_err(io)?;
        set_deadline(&stream, deadline).map_err(io)?;
        stream.write_all(&hello(run, self.process)).map_err(io)?;
        let peer = check_hello(read_hello(&mut stream)?, run)?;
        if expect.is_some_and(|e| e != peer) {
            return Err(ClusterError::Start(format!(
                "the process at {} says it is process {peer}",
                self.hosts[expect.unwrap_or(0)]
            )));
        }
        stream.set_read_timeout(None).map_err(io)?;
        stream.set_write_timeout(None).map_err(io)?;
        Ok(stream)
    }

    /// The accepting side's handshake: checks who connected, then says who it is.
    fn greet(
        &self,
        mut stream: TcpStream,
        run: u64,
        deadline: Instant,
    ) -> Result<(usize, TcpStream), Greeting> {
        let io = |e: std::io::Error| Peer(ClusterError::Start(format!("handshake failed: {e}")));
        stream.set_nodelay(true).map_err(io)?;
        // A peer says who it is at once; a silent connection is not one.
        set_deadline(&stream, deadline.min(Instant::now() + GREETING)).map_err(io)?;
        let mut h = [0u8; 24];
        if stream.read_exact(&mut h).is_err() || &h[..8] != MAGIC {
            return Err(Stranger);
        }
        // Answer even a peer that runs another search, so that it learns why too.
        stream.write_all(&hello(run, self.process)).map_err(io)?;
        let peer = check_hello(h, run).map_err(Peer)?;
        if peer >= self.processes {
            return Err(Peer(ClusterError::Start(format!(
                "a connection claimed to be process {peer} of {}",
                self.processes
            ))));
        }
        stream.set_read_timeout(None).map_err(io)?;
        stream.set_write_timeout(None).map_err(io)?;
        Ok((peer, stream))
    }
}

/// What a connection to this process's port turned out to be, when not a peer of the run.
enum Greeting {
    /// Not a process of any run.
    Stranger,
    /// A process of a run, with which this run cannot go on.
    Peer(ClusterError),
}
use Greeting::{Peer, Stranger};

/// How long a connecting process has to say who it is.
const GREETING: Duration = Duration::from_secs(5);

fn set_deadline(stream: &TcpStream, deadline: Instant) -> std::io::Result<()> {
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    stream.set_read_timeout(Some(left))?;
    stream.set_write_timeout(Some(left))
}

fn hello(run: u64, process: usize) -> [u8; 24] {
    let mut h = [0u8; 24];
    h[..8].copy_from_slice(MAGIC);
    h[8..16].copy_from_slice(&run.to_le_bytes());
    h[16..].copy_from_slice(&(process as u64).to_le_bytes());
    h
}

fn read_hello(stream: &mut TcpStream) -> Result<[u8; 24], ClusterError> {
    let mut h = [0u8; 24];
    stream.read_exact(&mut h).map_err(|e| {
        ClusterError::Start(format!(
            "a peer closed the connection during the handshake ({e}); it may run a \
                 different search, and then says so"
        ))
    })?;
    Ok(h)
}

/// The peer's process number, once its handshake shows the same run.
fn check_hello(h: [u8; 24], run: u64) -> Result<usize, ClusterError> {
    if &h[..8] != MAGIC {
        return Err(ClusterError::Start(
            "a peer that is not webmcp-check's timely engine connected".into(),
        ));
    }
    let theirs = u64::from_le_bytes(h[8..16].try_into().expect("8 bytes"));
    if theirs != run {
        return Err(ClusterError::Mismatch);
    }
    let peer = u64::from_le_bytes(h[16..].try_into().expect("8 bytes"));
    usize::try_from(peer)
        .map_err(|_| ClusterError::Start(format!("a peer claimed process number {peer}")))
}

/// The processes of a run, one `host:port` per line (blank lines and `#` comments ignored).
pub struct Hostfile;

impl Hostfile {
    pub fn read(path: &std::path::Path) -> Result<Vec<String>, ClusterError> {
        let bad = |why: String| ClusterError::Usage(format!("{}: {why}", path.display()));
        // Read at most one byte past the bound, whatever the file claims to be (a device
        // reports no length).
        let file = webmcp_checker::input::open(path).map_err(|e| bad(e.to_string()))?;
        let mut bytes = Vec::new();
        file.take(MAX_HOSTFILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| bad(e.to_string()))?;
        if bytes.len() as u64 > MAX_HOSTFILE_BYTES {
            return Err(bad(format!(
                "a hostfile is at most {MAX_HOSTFILE_BYTES} bytes"
            )));
        }
        let text = String::from_utf8(bytes).map_err(|_| bad("not UTF-8 text".into()))?;
        Self::parse(&text).map_err(bad)
    }

    pub fn parse(text: &str) -> Result<Vec<String>, String> {
        let mut hosts = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let not_host_port = || format!("line {}: '{}' is not host:port", n + 1, shown(line));
            let (host, port) = line.rsplit_once(':').ok_or_else(not_host_port)?;
            if !host.starts_with('[') && host.contains(':') {
                return Err(format!(
                    "line {}: '{}' is not host:port (an IPv6 address goes in brackets: [::1]:2101)",
                    n + 1,
                    shown(line)
                ));
            }
            if !is_host(host) {
                return Err(not_host_port());
            }
            match port.parse::<u16>() {
                Ok(0) => {
                    return Err(format!(
                        "line {}: port 0 is no address another process can connect to",
                        n + 1
                    ))
                }
                Ok(_) => {}
                Err(_) => {
                    return Err(format!(
                        "line {}: '{}' is not a port number (1 to 65535)",
                        n + 1,
                        shown(port)
                    ))
                }
            }
            if let Some(first) = hosts.iter().position(|h| h == line) {
                // Two processes cannot listen on one address: the run would wait for a
                // process that can never connect.
                return Err(format!(
                    "line {}: '{line}' is process {}'s address already",
                    n + 1,
                    first
                ));
            }
            if hosts.len() == MAX_PROCESSES {
                return Err(format!("more than {MAX_PROCESSES} processes"));
            }
            hosts.push(line.to_string());
        }
        if hosts.is_empty() {
            return Err("names no process".into());
        }
        Ok(hosts)
    }
}

/// Whether `host` can name a process's machine: an IPv6 address in brackets (with a numeric
/// zone, `[fe80::1%2]`, as the standard library takes it), an IPv4 address, or a name
/// (letters, digits, hyphens and underscores in dot-separated labels, a trailing dot allowed;
/// not only digits and dots: `1.2.3.4.5` is a mistyped address, not a name).
fn is_host(host: &str) -> bool {
    if host.starts_with('[') {
        return format!("{host}:1")
            .parse::<std::net::SocketAddrV6>()
            .is_ok();
    }
    if host.parse::<std::net::Ipv4Addr>().is_ok() {
        return true;
    }
    let label = |l: &str| {
        (1..=63).contains(&l.len())
            && l.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    let name = host.strip_suffix('.').unwrap_or(host);
    name.len() <= 253
        && name.split('.').all(label)
        && !name.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// A piece of a hostfile as an error shows it: escaped, and cut at 60 characters.
fn shown(text: &str) -> String {
    let escaped: String = text.escape_debug().collect();
    match escaped.char_indices().nth(60) {
        Some((at, _)) => format!("{}...", &escaped[..at]),
        None => escaped,
    }
}

/// Why a run could not be made or did not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClusterError {
    /// The options describe no possible cluster (exit 2).
    Usage(String),
    /// A model without a byte form of its states cannot be sent between workers.
    NoCodec,
    /// The processes could not be connected.
    Start(String),
    /// A peer runs a different search (other scenarios, properties or options).
    Mismatch,
    /// This process is not the first, and the run failed (the first reports the details).
    Failed(String),
}

impl std::fmt::Display for ClusterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClusterError::Usage(why) => write!(f, "{why}"),
            ClusterError::NoCodec => write!(
                f,
                "the timely engine sends states between workers as bytes, and this model has no \
                 byte form"
            ),
            ClusterError::Start(why) => write!(f, "the cluster did not start: {why}"),
            ClusterError::Mismatch => write!(
                f,
                "the cluster did not start: another process runs a different search (its \
                 scenarios, properties or options differ from this one's)"
            ),
            ClusterError::Failed(why) => write!(f, "the run failed: {why}"),
        }
    }
}

impl std::error::Error for ClusterError {}

/// How the first process learns that a run is over: every worker of this process has left
/// its result, or a thread of the run panicked.
///
/// While a run is under way a panic, in a worker or in one of timely's network threads (a
/// lost connection), is recorded rather than printed, and the panicking thread stops where it
/// is instead of unwinding: after a lost connection timely's destructors panic again while
/// unwinding, which aborts the process before it can report. The caller then reports the
/// first panic as the run's failure, in one sentence, and leaves the stopped threads to the
/// end of the process.
pub(crate) struct Watch {
    _not_send: std::marker::PhantomData<*const ()>,
}

struct WatchState {
    runs: usize,
    panic: Option<String>,
    failed: bool,
}

static WATCH: Mutex<WatchState> = Mutex::new(WatchState {
    runs: 0,
    panic: None,
    failed: false,
});
static WAKE: Condvar = Condvar::new();
static HOOK: Once = Once::new();

fn watch_state() -> std::sync::MutexGuard<'static, WatchState> {
    WATCH.lock().unwrap_or_else(|p| p.into_inner())
}

impl Watch {
    /// Starts watching a run: from now on, panics in timely's threads (named `timely:...`)
    /// are recorded; other threads' panics are untouched.
    pub(crate) fn start() -> Watch {
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                let ours = std::thread::current()
                    .name()
                    .is_some_and(|n| n.starts_with("timely:"));
                {
                    let mut w = watch_state();
                    if w.runs == 0 || !ours {
                        drop(w);
                        return previous(info);
                    }
                    let message = info
                        .payload()
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| info.payload().downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "a thread panicked".into());
                    w.panic.get_or_insert(message);
                    w.failed = true;
                }
                WAKE.notify_all();
                loop {
                    std::thread::park();
                }
            }));
        });
        let mut w = watch_state();
        w.runs += 1;
        w.panic = None;
        w.failed = false;
        Watch {
            _not_send: std::marker::PhantomData,
        }
    }

    /// A worker of this process gave up: the others stop waiting for it.
    pub(crate) fn fail() {
        watch_state().failed = true;
    }

    pub(crate) fn failed() -> bool {
        watch_state().failed
    }

    pub(crate) fn notify() {
        WAKE.notify_all();
    }

    /// Waits until `done` holds (`Ok`) or a thread of the run panicked (`Err`, its message).
    pub(crate) fn wait(&self, mut done: impl FnMut() -> bool) -> Result<(), String> {
        let mut w = watch_state();
        loop {
            if let Some(panic) = &w.panic {
                return Err(describe_panic(panic));
            }
            drop(w);
            if done() {
                return Ok(());
            }
            w = watch_state();
            w = WAKE
                .wait_timeout(w, Duration::from_millis(50))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        watch_state().runs -= 1;
    }
}

/// A panic's message as the reason a run failed.
fn describe_panic(message: &str) -> String {
    if message.starts_with("timely communication error") {
        format!("lost the connection to another process ({message})")
    } else {
        format!("a thread of the run panicked: {message}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostfiles_name_one_host_and_port_per_line() {
        let hosts = Hostfile::parse("# cluster\n127.0.0.1:2101\n\n  host-b:2102  # b\n").unwrap();
        assert_eq!(hosts, ["127.0.0.1:2101", "host-b:2102"]);
        for bad in [
            "",
            "# nothing\n",
            "host",
            ":80",
            "h:99999",
            "h:x",
            "a b:1",
            "127.0.0.1:2201:3",
            "1.2.3.4.5:80",
            "\u{feff}127.0.0.1:2101",
            "::1:2101",
            "[::g]:2101",
            "-h:1",
            "h..b:1",
        ] {
            assert!(Hostfile::parse(bad).is_err(), "{bad:?}");
        }
        let hosts = Hostfile::parse(
            "[::1]:2101\nnode-7.example:2102\n10.0.0.2:2103\nproject_node_1:2104\nlocalhost.:2105\n[fe80::1%2]:2106\n",
        )
        .unwrap();
        assert_eq!(hosts.len(), 6);
        assert!(Hostfile::parse("::1:2101\n")
            .unwrap_err()
            .contains("an IPv6 address goes in brackets"));
        assert_eq!(
            Hostfile::parse("h:0\n").unwrap_err(),
            "line 1: port 0 is no address another process can connect to"
        );
        // What the line holds is shown escaped and cut short.
        let bom = Hostfile::parse("\u{feff}127.0.0.1:2101\n").unwrap_err();
        assert_eq!(bom, "line 1: '\\u{feff}127.0.0.1:2101' is not host:port");
        let long = Hostfile::parse(&format!("{}:1\n", "x".repeat(10_000))).unwrap_err();
        assert!(long.len() < 120, "{long}");
        assert_eq!(
            Hostfile::parse("h:1\nh:2\n h:1 # again\n").unwrap_err(),
            "line 3: 'h:1' is process 0's address already"
        );
    }

    #[test]
    fn a_cluster_must_have_a_shape() {
        let mut c = Cluster::local(2);
        assert!(c.validate().is_ok());
        c.workers = 0;
        assert!(c.validate().is_err());
        c.workers = 1;
        c.processes = 2;
        assert!(c.validate().is_err(), "two processes need two hosts");
        c.hosts = vec!["127.0.0.1:1".into(), "127.0.0.1:2".into()];
        assert!(c.validate().is_ok());
        c.process = 2;
        assert!(c.validate().is_err());
    }
}
