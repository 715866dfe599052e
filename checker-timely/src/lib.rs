//! # webmcp-checker-timely
//!
//! Breadth-first exploration of any [`webmcp_checker::Model`] on
//! [timely dataflow](https://docs.rs/timely): the same program on one thread, on many
//! threads, or on many processes over TCP. It is a second engine beside the local searches of
//! `webmcp-checker`, for questions that outgrow one machine, and like them it knows nothing
//! of what the model describes.
//!
//! ## How the search is split
//!
//! * **Each state has an owner**: the worker its fingerprint maps to ([`owner`]). The owner
//!   alone keeps it in its shard of the visited set, with its parent pointer, and expands it.
//! * **Levels advance in lock-step.** Every worker expands the states of one depth that it
//!   owns and sends each successor to the successor's owner (timely's exchange by
//!   fingerprint); the owner records the ones that are new as its share of the next level.
//!   At the end of a level every worker broadcasts a summary (states generated, properties
//!   shown, bounds hit), and every worker combines the same summaries into the same decision:
//!   go on, or stop. The run ends at the first empty level.
//! * **Counterexamples are rebuilt across shards** once the search ends: the fingerprint of
//!   each discovery is followed back, one parent per round, by asking the owner of each
//!   state for its parent and the index of the action taken from it, and the first worker
//!   replays those actions from the initial state.
//!
//! ## What it keeps of the local searches
//!
//! It follows the rules of the engine's level-by-level parallel search exactly, so its
//! output is that search's output, whatever the number of workers and processes: the same
//! unique and total state counts and depth, and the same paths (where several states of the
//! first level that shows a property could be reported, the least fingerprint is; where a
//! state has several parents one level up, the least (parent fingerprint, action
//! fingerprint) is kept). Every path is therefore a shortest one, as on one thread.
//!
//! ## Bounds
//!
//! `max_states`, `max_depth`, `timeout` and `memory_limit_mib` hold for the whole run: the
//! states generated are summed over workers, and the memory limit is compared with the sum of
//! every process's resident set. A worker that passes a bound mid-level stops expanding; the
//! others learn of it at the end of the level, so the run stops within one level of the
//! bound. A worker or process that fails (a panic, a lost connection, a level that never
//! completes) ends the run with [`StopReason::Cluster`], never a pass.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;
use webmcp_checker::fingerprint::{fingerprint, FingerprintMap};
use webmcp_checker::limits::{process_memory_limit, resident_bytes, MEMORY_POLL};
use webmcp_checker::{
    Exploration, Model, Options, Path, Progress, Property, Reduction, StopReason,
};

mod cluster;
pub use cluster::{Cluster, ClusterError, Hostfile};

/// The worker that owns a state: bits 46–56 of its fingerprint, modulo the number of
/// workers. They are neither the low bits a worker's hash table indexes by, nor the top
/// seven it filters by, so no worker's table sees a skewed share of either.
pub fn owner(fp: u64, workers: usize) -> usize {
    (((fp >> 46) & 0x7ff) as usize) % workers
}

/// How often, in states expanded, a worker hands what it received to the visited set (so
/// duplicates are dropped early and a level's messages do not pile up) and asks the clock.
const PUMP: usize = 64;
/// The action index of an initial state's link: it has no parent.
const ROOT: u32 = u32::MAX;

/// What workers send one another.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Envelope {
    to: u32,
    message: Message,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
enum Message {
    /// A successor, for its owner to record if it is new.
    State {
        fp: u64,
        parent: u64,
        /// The fingerprint of the action (for the tie-break between parents).
        action_fp: u64,
        /// The action's position among the parent's enabled actions.
        action: u32,
        depth: u32,
        bytes: Vec<u8>,
    },
    /// A successor of a state at the depth bound: is it new (then the bound cut it off)?
    Probe { fp: u64 },
    /// What one worker did in one level, broadcast to all.
    Summary(Summary),
    /// To a state's owner: its parent and the action from it.
    Query { fp: u64 },
    /// The owner's answer: `None` for an initial state.
    Answer { fp: u64, parent: Option<(u64, u32)> },
}

impl Message {
    /// About the bytes `bincode` sends for it, for the communication volume.
    fn wire_size(&self) -> u64 {
        let body = match self {
            Message::State { bytes, .. } => 8 + 8 + 8 + 4 + 4 + 8 + bytes.len(),
            Message::Probe { .. } | Message::Query { .. } => 8,
            Message::Summary(s) => 64 + 9 * s.found.len(),
            Message::Answer { .. } => 8 + 13,
        };
        (4 + 4 + body) as u64
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Summary {
    from: u32,
    /// States of the level this worker owned.
    level: u64,
    generated: u64,
    /// New states recorded since the last summary.
    recorded: u64,
    /// A state at the depth bound had a successor not yet visited.
    depth_cut: bool,
    /// Per property: the least fingerprint among this worker's states that show it.
    found: Vec<Option<u64>>,
    stop: Option<Stop>,
    /// The process's resident set in bytes, from its first worker only (else 0).
    resident: u64,
    /// The sender's memory limit in MiB: worker 0's is the run's.
    memory_limit: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Stop {
    Timeout,
    MaxStates,
    Memory,
}

/// How a state was first reached.
struct Link {
    parent: u64,
    action_fp: u64,
    action: u32,
    depth: u32,
}

/// One worker's part of the search, written to by the dataflow as messages arrive.
///
/// A worker can be one round ahead of another: it passes a barrier and sends the next
/// round's messages while a slower worker is still leaving the same barrier. Messages of a
/// round the worker has not reached are therefore held back until it reaches it, and states
/// are kept per depth, so that one level never takes in the next one's.
#[derive(Default)]
struct Shard {
    /// The round this worker is in (its input's time).
    round: u64,
    /// Messages of the next round, received early.
    early: Vec<Message>,
    search: Search,
}

/// What a worker knows of one model's search.
#[derive(Default)]
struct Search {
    visited: FingerprintMap<Link>,
    /// Per depth, the states owned here not yet expanded: (fingerprint, bytes) records back
    /// to back.
    levels: std::collections::BTreeMap<u32, Vec<u8>>,
    recorded: u64,
    depth_cut: bool,
    /// Every message that is not a state or a probe, for the worker to read after a barrier.
    inbox: Vec<Message>,
}

impl Shard {
    fn deliver(&mut self, round: u64, message: Message) {
        if round == self.round {
            self.search.receive(message);
        } else {
            debug_assert_eq!(round, self.round + 1, "a worker is at most one round ahead");
            self.early.push(message);
        }
    }

    /// Moves to the next round: hands back this round's inbox, lets `turn` act on the
    /// search before anything of the new round is received, then takes in what came early.
    fn advance(&mut self, turn: impl FnOnce(&mut Search)) -> Vec<Message> {
        let inbox = std::mem::take(&mut self.search.inbox);
        self.round += 1;
        turn(&mut self.search);
        for m in std::mem::take(&mut self.early) {
            self.search.receive(m);
        }
        inbox
    }
}

impl Search {
    fn record_root(&mut self, fp: u64, bytes: &[u8]) {
        if let std::collections::hash_map::Entry::Vacant(e) = self.visited.entry(fp) {
            e.insert(Link {
                parent: 0,
                action_fp: 0,
                action: ROOT,
                depth: 1,
            });
            self.push_level(1, fp, bytes);
        }
    }

    fn push_level(&mut self, depth: u32, fp: u64, bytes: &[u8]) {
        self.push_level_with(depth, fp, |out| out.extend_from_slice(bytes));
    }

    /// Appends a record whose bytes `encode` writes in place.
    fn push_level_with(&mut self, depth: u32, fp: u64, encode: impl FnOnce(&mut Vec<u8>)) {
        let level = self.levels.entry(depth).or_default();
        level.extend_from_slice(&fp.to_le_bytes());
        let at = level.len();
        level.extend_from_slice(&[0; 4]);
        encode(level);
        let len = u32::try_from(level.len() - at - 4).expect("an encoded state under 4 GiB");
        level[at..at + 4].copy_from_slice(&len.to_le_bytes());
        self.recorded += 1;
    }

    /// Records a state reached at `link.depth` unless it was reached before; a state reached
    /// at the same depth keeps the least (parent, action), the rule of the local parallel
    /// search, so that paths do not depend on the order messages arrive in.
    fn record(&mut self, fp: u64, link: Link, encode: impl FnOnce(&mut Vec<u8>)) {
        match self.visited.entry(fp) {
            std::collections::hash_map::Entry::Vacant(e) => {
                let depth = link.depth;
                e.insert(link);
                self.push_level_with(depth, fp, encode);
            }
            std::collections::hash_map::Entry::Occupied(mut e) => {
                let known = e.get_mut();
                if known.depth == link.depth
                    && known.action != ROOT
                    && (link.parent, link.action_fp) < (known.parent, known.action_fp)
                {
                    *known = link;
                }
            }
        }
    }

    fn receive(&mut self, message: Message) {
        match message {
            Message::State {
                fp,
                parent,
                action_fp,
                action,
                depth,
                bytes,
            } => {
                let link = Link {
                    parent,
                    action_fp,
                    action,
                    depth,
                };
                self.record(fp, link, |out| out.extend_from_slice(&bytes));
            }
            Message::Probe { fp } => {
                if !self.visited.contains_key(&fp) {
                    self.depth_cut = true;
                }
            }
            other => self.inbox.push(other),
        }
    }
}

/// The records of a level: (fingerprint, bytes).
fn records(buf: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= buf.len() {
            return None;
        }
        let fp = u64::from_le_bytes(buf[at..at + 8].try_into().expect("8 bytes"));
        let len = u32::from_le_bytes(buf[at + 8..at + 12].try_into().expect("4 bytes")) as usize;
        let bytes = &buf[at + 12..at + 12 + len];
        at += 12 + len;
        Some((fp, bytes))
    })
}

/// What one run sent between workers, for the communication volume.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Messages to another worker (states, probes, summaries, queries and answers).
    pub messages: u64,
    /// About the bytes of those messages on the wire.
    pub bytes: u64,
    /// Of those, the states sent to their owner.
    pub states: u64,
}

impl std::ops::AddAssign for Traffic {
    fn add_assign(&mut self, o: Traffic) {
        self.messages += o.messages;
        self.bytes += o.bytes;
        self.states += o.states;
    }
}

/// A worker's end of the dataflow: where it sends, and how it waits for a level to end.
struct Net<'w> {
    worker: &'w mut Worker,
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Envelope>>>,
    probe: ProbeHandle<u64>,
    shard: Rc<RefCell<Shard>>,
    me: usize,
    peers: usize,
    /// Give up waiting at a barrier after this long.
    patience: Option<Duration>,
    traffic: Traffic,
    /// Worker 0's only.
    progress: Option<ProgressFn>,
}

impl Net<'_> {
    fn send(&mut self, to: usize, message: Message) {
        if to != self.me {
            self.traffic.messages += 1;
            self.traffic.bytes += message.wire_size();
            if matches!(message, Message::State { .. }) {
                self.traffic.states += 1;
            }
        }
        self.input.send(Envelope {
            to: to as u32,
            message,
        });
    }

    fn broadcast(&mut self, message: Message) {
        for to in 0..self.peers {
            self.send(to, message.clone());
        }
    }

    /// Lets the dataflow deliver what has arrived (states go straight into the shard).
    fn pump(&mut self) {
        self.worker.step();
    }

    /// Ends the current round: returns once every worker's messages of this round have been
    /// delivered, with the messages for this worker that are not states or probes.
    fn barrier(&mut self) -> Result<Vec<Message>, Failure> {
        self.barrier_then(|_| {})
    }

    /// [`Net::barrier`], with `turn` acting on the search between the rounds.
    fn barrier_then(&mut self, turn: impl FnOnce(&mut Search)) -> Result<Vec<Message>, Failure> {
        let next = *self.input.time() + 1;
        self.input.advance_to(next);
        let since = Instant::now();
        while self.probe.less_than(self.input.time()) {
            self.worker.step_or_park(Some(Duration::from_millis(5)));
            if cluster::Watch::failed() {
                return Err(Failure::PeerFailed);
            }
            if self.patience.is_some_and(|p| since.elapsed() > p) {
                return Err(Failure::Stalled(since.elapsed()));
            }
        }
        Ok(self.shard.borrow_mut().advance(turn))
    }
}

/// Why a worker gave up.
#[derive(Debug)]
enum Failure {
    PeerFailed,
    Stalled(Duration),
    Left(usize),
    Replay(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::PeerFailed => write!(f, "another worker of this process failed"),
            Failure::Stalled(d) => write!(
                f,
                "a level did not complete in {} s: a worker or process stopped answering",
                d.as_secs()
            ),
            Failure::Left(n) => write!(f, "{n} worker(s) left the run before it ended"),
            Failure::Replay(why) => write!(f, "a counterexample did not replay: {why}"),
        }
    }
}

/// What a run gives back on the process that holds worker 0: one exploration per model, and
/// the traffic of this process's workers.
pub struct Run<M: Model> {
    /// Per model, in order: what was explored, and the wall time of its search.
    pub explorations: Vec<(Exploration<M>, Duration)>,
    pub traffic: Traffic,
}

/// Explores every model in turn, each exhaustively up to the bounds of `options`, on the
/// workers and processes `cluster` names. Every process of the run calls this with the same
/// models, properties and options. The process of worker 0 gets `Some` (the other
/// processes `None`); a run whose cluster fails gets each model's exploration stopped by
/// [`StopReason::Cluster`].
pub fn explore<M>(
    models: Vec<M>,
    properties: Vec<Property<M>>,
    options: &Options,
    cluster: &Cluster,
) -> Result<Option<Run<M>>, ClusterError>
where
    M: Model + Send + Sync + 'static,
{
    explore_with_progress(models, properties, options, cluster, None)
}

/// Called by worker 0 at the end of every level with the index of the model being explored
/// and the run's counts so far.
pub type ProgressFn = Arc<dyn Fn(usize, Progress) + Send + Sync>;

/// [`explore`], telling `progress` (on the first process) how far each search has got.
pub fn explore_with_progress<M>(
    models: Vec<M>,
    properties: Vec<Property<M>>,
    options: &Options,
    cluster: &Cluster,
    progress: Option<ProgressFn>,
) -> Result<Option<Run<M>>, ClusterError>
where
    M: Model + Send + Sync + 'static,
{
    if models.iter().any(|m| m.codec().is_none()) {
        return Err(ClusterError::NoCodec);
    }
    let run = run_fingerprint(&models, &properties, options, cluster);
    let (builders, comms) = cluster.allocators(run)?;
    let (n_models, n_props) = (models.len(), properties.len());
    let leader = cluster.process == 0;
    let per_process = cluster.workers;
    let models = Arc::new(models);
    let properties: Arc<[Property<M>]> = properties.into();
    let options = options.clone();
    // Each worker of this process leaves its result here.
    let slots: Arc<Mutex<Vec<Option<WorkerResult<M>>>>> =
        Arc::new(Mutex::new((0..per_process).map(|_| None).collect()));
    let watch = cluster::Watch::start();
    let work = {
        let slots = Arc::clone(&slots);
        move |worker: &mut Worker| {
            let local = worker.index() % per_process;
            let progress = progress.clone().filter(|_| worker.index() == 0);
            let result = run_worker(
                worker,
                &models,
                &properties,
                &options,
                per_process,
                progress,
            );
            if result.is_err() {
                cluster::Watch::fail();
            }
            slots.lock().unwrap_or_else(|p| p.into_inner())[local] = Some(result);
            cluster::Watch::notify();
        }
    };
    let guards =
        match timely::execute::execute_from(builders, comms, timely::WorkerConfig::default(), work)
        {
            Ok(guards) => guards,
            Err(e) => return Err(ClusterError::Start(e)),
        };
    let finished = watch.wait(|| {
        slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .all(Option::is_some)
    });
    let results: Vec<WorkerResult<M>> = match finished {
        Ok(()) => slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter_mut()
            .map(|r| r.take().expect("every worker left a result"))
            .collect(),
        Err(panic) => {
            // A thread panicked: timely's teardown after a lost peer panics again in its
            // destructors, so the threads are left where they stopped, not joined.
            std::mem::forget(guards);
            return failed(leader, n_models, n_props, panic);
        }
    };
    let mut traffic = Traffic::default();
    let mut first = None;
    let mut failure = None;
    for result in results {
        match result {
            Ok((explorations, t)) => {
                traffic += t;
                first.get_or_insert(explorations);
            }
            // The cause, rather than the workers that stopped because of it.
            Err(Failure::PeerFailed) => {
                failure.get_or_insert(Failure::PeerFailed.to_string());
            }
            Err(f) => {
                if failure.as_deref() == Some(&Failure::PeerFailed.to_string()) {
                    failure = None;
                }
                failure.get_or_insert(f.to_string());
            }
        }
    }
    if let Some(why) = failure {
        std::mem::forget(guards);
        return failed(leader, n_models, n_props, why);
    }
    drop(guards);
    Ok(leader.then(|| Run {
        explorations: first.expect("a process has a worker"),
        traffic,
    }))
}

/// A run that failed: on the first process, every model's exploration stopped by the
/// failure; on the others, the failure.
fn failed<M: Model>(
    leader: bool,
    models: usize,
    properties: usize,
    why: String,
) -> Result<Option<Run<M>>, ClusterError> {
    if leader {
        Ok(Some(failed_run(models, properties, why)))
    } else {
        Err(ClusterError::Failed(why))
    }
}

/// What every process of a run must agree on: the models' initial states, the properties,
/// the options and the cluster's shape, with the caller's own tag (its command line). Not
/// the time and memory limits: each process keeps its own clock, worker 0's memory limit is
/// the run's, and a default limit is the machine's own.
fn run_fingerprint<M: Model>(
    models: &[M],
    properties: &[Property<M>],
    options: &Options,
    cluster: &Cluster,
) -> u64 {
    let inits: Vec<Vec<u64>> = models
        .iter()
        .map(|m| m.init_states().iter().map(fingerprint).collect())
        .collect();
    let props: Vec<(&str, String)> = properties
        .iter()
        .map(|p| (p.name, format!("{:?}", p.expectation)))
        .collect();
    let agreed = Options {
        timeout: None,
        memory_limit_mib: None,
        ..options.clone()
    };
    fingerprint(&(
        inits,
        props,
        format!("{agreed:?}"),
        cluster.workers,
        cluster.processes,
        &cluster.hosts,
        cluster.tag,
    ))
}

fn failed_run<M: Model>(models: usize, properties: usize, reason: String) -> Run<M> {
    Run {
        explorations: (0..models)
            .map(|_| {
                let stopped = Exploration {
                    total_states: 0,
                    unique_states: 0,
                    max_depth: 0,
                    stopped_by: Some(StopReason::Cluster {
                        reason: reason.clone(),
                    }),
                    discoveries: vec![None; properties],
                    phases: None,
                };
                (stopped, Duration::ZERO)
            })
            .collect(),
        traffic: Traffic::default(),
    }
}

/// Per property, the path to its discovery.
type Discoveries<M> = Vec<Option<Path<<M as Model>::State, <M as Model>::Action>>>;

type WorkerResult<M> = Result<(Vec<(Exploration<M>, Duration)>, Traffic), Failure>;

fn run_worker<M: Model>(
    worker: &mut Worker,
    models: &[M],
    properties: &[Property<M>],
    options: &Options,
    per_process: usize,
    progress: Option<ProgressFn>,
) -> WorkerResult<M> {
    let shard = Rc::new(RefCell::new(Shard::default()));
    let mut input = InputHandle::new();
    let probe = {
        let shard = Rc::clone(&shard);
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .container::<Vec<Envelope>>()
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Exchange::new(|e: &Envelope| u64::from(e.to)),
                    "Deliver",
                    move |_, _| {
                        move |input, _output| {
                            input.for_each(|cap, data| {
                                let round = *cap.least().expect("a message has a time");
                                let mut shard = shard.borrow_mut();
                                for e in data.drain(..) {
                                    shard.deliver(round, e.message);
                                }
                            });
                        }
                    },
                )
                .probe()
                .0
        })
    };
    let (me, peers) = (worker.index(), worker.peers());
    // A hung peer is given up on only under a time limit: without one, a level may
    // legitimately take hours.
    let patience = options
        .timeout
        .map(|t| t.saturating_add(Duration::from_secs(60)));
    let mut net = Net {
        worker,
        input,
        probe,
        shard,
        me,
        peers,
        patience,
        traffic: Traffic::default(),
        progress,
    };
    let reads_memory = me % per_process.max(1) == 0;
    let mut explorations = Vec::with_capacity(models.len());
    for (index, model) in models.iter().enumerate() {
        let start = Instant::now();
        let found = search(&mut net, index, model, properties, options, reads_memory)?;
        explorations.push((found, start.elapsed()));
    }
    Ok((explorations, net.traffic))
}

/// One model's breadth-first search, as one worker runs it.
fn search<M: Model>(
    net: &mut Net,
    index: usize,
    model: &M,
    properties: &[Property<M>],
    options: &Options,
    reads_memory: bool,
) -> Result<Exploration<M>, Failure> {
    let codec = model.codec().expect("checked before the run");
    let (me, peers) = (net.me, net.peers);
    let inits = model.init_states();
    let roots: Vec<(u64, Vec<u8>)> = inits
        .iter()
        .map(|s| (fingerprint(s), s))
        .filter(|(fp, _)| owner(*fp, peers) == me)
        .map(|(fp, s)| {
            let mut bytes = Vec::new();
            codec.encode(s, &mut bytes);
            (fp, bytes)
        })
        .collect();
    // A round of its own starts the search: the previous search's state is dropped, and
    // the roots recorded, before a faster worker's first states are taken in.
    net.barrier_then(|search| {
        *search = Search::default();
        for (fp, bytes) in &roots {
            search.record_root(*fp, bytes);
        }
    })?;
    let mut w = Expander {
        net,
        model,
        properties,
        options,
        codec,
        start: Instant::now(),
        memory_limit: options.memory_limit_mib.or_else(process_memory_limit),
        reads_memory,
        next_memory_read: std::cell::Cell::new(Instant::now()),
        found: vec![None; properties.len()],
        sent: SentBefore::new(peers),
        actions: Vec::new(),
        total: inits.len() as u64,
    };
    let mut unique = 0u64;
    let mut depth = 1usize;
    let mut max_depth = 0usize;
    let stopped = loop {
        let mine = w.expand_level(depth);
        w.net.broadcast(Message::Summary(mine));
        let all = summaries(w.net.barrier()?, peers)?;
        // Every worker combines the same summaries, so all take the same decision.
        w.total += all.iter().map(|s| s.generated).sum::<u64>();
        unique += all.iter().map(|s| s.recorded).sum::<u64>();
        let level_states: u64 = all.iter().map(|s| s.level).sum();
        if level_states > 0 {
            max_depth = depth;
        }
        if let Some(progress) = &w.net.progress {
            progress(
                index,
                Progress {
                    total_states: w.total as usize,
                    unique_states: unique as usize,
                    max_depth,
                    elapsed: w.start.elapsed(),
                },
            );
        }
        for (i, slot) in w.found.iter_mut().enumerate() {
            if slot.is_none() {
                let least = all.iter().filter_map(|s| s.found[i]).min();
                *slot = least.map(|fp| (fp, depth));
            }
        }
        // The memory limit is worker 0's, against every process's resident set.
        let resident: u64 = all.iter().map(|s| s.resident).sum();
        let over = all[0].memory_limit.is_some_and(|mib| resident > mib << 20);
        let stopped = all
            .iter()
            .find_map(|s| s.stop)
            .or(over.then_some(Stop::Memory));
        let decided = w.found.iter().all(Option::is_some);
        if stopped.is_some() || decided || level_states == 0 {
            break stopped;
        }
        depth += 1;
    };
    // The last level's new states, and whether the depth bound cut any off.
    let (recorded, depth_cut) = {
        let search = &mut w.net.shard.borrow_mut().search;
        (std::mem::take(&mut search.recorded), search.depth_cut)
    };
    w.net.broadcast(Message::Summary(Summary {
        from: me as u32,
        recorded,
        depth_cut,
        found: vec![None; properties.len()],
        ..Summary::default()
    }));
    let all = summaries(w.net.barrier()?, peers)?;
    unique += all.iter().map(|s| s.recorded).sum::<u64>();
    let depth_cut = all.iter().any(|s| s.depth_cut);
    let discoveries = rebuild_paths(w.net, model, &inits, &w.found)?;
    let all_decided = w.found.iter().all(Option::is_some);
    let mut stopped_by = stopped.map(|s| match s {
        Stop::Timeout => StopReason::Timeout {
            limit: options.timeout.unwrap_or_default(),
        },
        Stop::MaxStates => StopReason::MaxStates {
            n: options.max_states.unwrap_or_default(),
        },
        Stop::Memory => StopReason::MemoryLimit {
            mib: w.memory_limit.unwrap_or_default(),
        },
    });
    if stopped_by.is_none() && depth_cut {
        stopped_by = options.max_depth.map(|n| StopReason::MaxDepth { n });
    }
    Ok(Exploration {
        total_states: w.total as usize,
        unique_states: unique as usize,
        max_depth,
        // Once every property is decided nothing a bound left out matters.
        stopped_by: stopped_by.filter(|_| !all_decided),
        discoveries,
        phases: None,
    })
}

/// What one worker needs to expand its share of each level.
struct Expander<'n, 'w, 'm, M: Model> {
    net: &'n mut Net<'w>,
    model: &'m M,
    properties: &'m [Property<M>],
    options: &'m Options,
    codec: &'m dyn webmcp_checker::StateCodec<M::State>,
    start: Instant,
    memory_limit: Option<u64>,
    /// The first worker of each process reads the process's resident set for the level's
    /// summary (once per process, as the summaries add them up).
    reads_memory: bool,
    /// When this worker next reads the resident set within a level (every worker does, at
    /// most every [`MEMORY_POLL`], as the local searches: a worker that waits for the others
    /// reads nothing, and states that grow many large successors fill memory fast).
    next_memory_read: std::cell::Cell<Instant>,
    /// Per property, once decided: the least fingerprint that shows it, and its depth.
    found: Vec<Option<(u64, usize)>>,
    sent: SentBefore,
    actions: Vec<M::Action>,
    /// States generated by all workers up to the last level end.
    total: u64,
}

impl<M: Model> Expander<'_, '_, '_, M> {
    /// Expands this worker's states of `depth` (judging each), sending every successor to
    /// its owner; what it did, as its summary of the level.
    fn expand_level(&mut self, depth: usize) -> Summary {
        let level = self
            .net
            .shard
            .borrow_mut()
            .search
            .levels
            .remove(&(depth as u32))
            .unwrap_or_default();
        let expand = self.options.max_depth.is_none_or(|d| depth < d);
        let mut mine = Summary {
            from: self.net.me as u32,
            found: vec![None; self.properties.len()],
            memory_limit: self.memory_limit,
            ..Summary::default()
        };
        for (i, (fp, bytes)) in records(&level).enumerate() {
            if i % PUMP == PUMP - 1 {
                self.net.pump();
            }
            mine.stop = mine.stop.or_else(|| self.bound_hit(i));
            if mine.stop.is_some() {
                break;
            }
            mine.level += 1;
            self.expand_state(fp, bytes, depth, expand, &mut mine);
            if mine.stop.is_some() {
                break;
            }
        }
        drop(level);
        if mine.stop.is_none()
            && self
                .options
                .timeout
                .is_some_and(|t| self.start.elapsed() >= t)
        {
            mine.stop = Some(Stop::Timeout);
        }
        if self.reads_memory {
            mine.resident = resident_bytes().unwrap_or(0);
        }
        mine.recorded = std::mem::take(&mut self.net.shard.borrow_mut().search.recorded);
        mine
    }

    /// A bound this worker passed before expanding its `i`th state of the level, asked every
    /// [`PUMP`] states: time, or memory (the process's resident set, read at most every
    /// [`MEMORY_POLL`]); states generated are asked in [`Expander::expand_state`], once the
    /// state is known to have successors.
    fn bound_hit(&self, i: usize) -> Option<Stop> {
        if i % PUMP != PUMP - 1 {
            return None;
        }
        let now = Instant::now();
        if self.options.timeout.is_some_and(|t| now - self.start >= t) {
            return Some(Stop::Timeout);
        }
        let limit = self.memory_limit?;
        if now < self.next_memory_read.get() {
            return None;
        }
        self.next_memory_read.set(now + MEMORY_POLL);
        (resident_bytes().unwrap_or(0) > limit << 20).then_some(Stop::Memory)
    }

    /// Whether `max_states` stops the search before a state with successors is expanded: as
    /// in the local searches, the bound stops what would generate more, so a search that
    /// generates exactly `max_states` states and then finds only terminal ones is complete.
    fn max_states_hit(&self, mine: &Summary) -> bool {
        self.options
            .max_states
            .is_some_and(|m| self.total + mine.generated >= m as u64)
    }

    /// Judges one state and sends its successors to their owners (at the depth bound: asks
    /// their owners whether any is new).
    fn expand_state(
        &mut self,
        fp: u64,
        bytes: &[u8],
        depth: usize,
        expand: bool,
        mine: &mut Summary,
    ) {
        let (model, codec, peers) = (self.model, self.codec, self.net.peers);
        let s = codec.decode(bytes);
        let mut actions = std::mem::take(&mut self.actions);
        actions.clear();
        model.actions(&s, &mut actions);
        let terminal = actions.is_empty();
        for (i, p) in self.properties.iter().enumerate() {
            if self.found[i].is_none() && p.shows_at(model, &s, terminal) {
                let slot = &mut mine.found[i];
                if slot.is_none_or(|known| fp < known) {
                    *slot = Some(fp);
                }
            }
        }
        if terminal {
            self.actions = actions;
            return;
        }
        if self.max_states_hit(mine) {
            mine.stop = Some(Stop::MaxStates);
            self.actions = actions;
            return;
        }
        if !expand {
            for a in actions.drain(..) {
                if let Some(next) = model.draft(&s, a) {
                    let nfp = fingerprint(&*next);
                    self.net.send(owner(nfp, peers), Message::Probe { fp: nfp });
                }
            }
            self.actions = actions;
            return;
        }
        let mut ample = Vec::new();
        let reduced =
            self.options.reduction == Reduction::Por && model.persistent_set(&s, &mut ample);
        let next_depth = (depth + 1) as u32;
        if reduced {
            for (a, next) in ample {
                let afp = fingerprint(&a);
                let index = actions
                    .iter()
                    .position(|b| fingerprint(b) == afp)
                    .expect("every action of the persistent set is enabled");
                self.emit(fp, index as u32, &a, &next, next_depth, mine);
            }
        } else {
            // Successors leave this worker only as bytes, so none is kept as a value: each
            // is a draft, reading the state's storage without counting it (`Model::draft`).
            for (i, a) in actions.drain(..).enumerate() {
                if let Some(next) = model.draft(&s, a.clone()) {
                    self.emit(fp, i as u32, &a, &next, next_depth, mine);
                }
            }
        }
        self.actions = actions;
    }

    /// Hands the successor `next` of the state `parent`, reached by its action at `index`,
    /// to its owner: this worker records it at once, another is sent it.
    fn emit(
        &mut self,
        parent: u64,
        index: u32,
        action: &M::Action,
        next: &M::State,
        depth: u32,
        mine: &mut Summary,
    ) {
        let codec = self.codec;
        mine.generated += 1;
        let fp = fingerprint(next);
        let to = owner(fp, self.net.peers);
        let link = Link {
            parent,
            action_fp: fingerprint(action),
            action: index,
            depth,
        };
        if to == self.net.me {
            // Owned here: recorded at once, and encoded only if new.
            let search = &mut self.net.shard.borrow_mut().search;
            search.record(fp, link, |out| codec.encode(next, out));
            return;
        }
        if self.sent.sent_before(fp, depth) {
            // Its owner has it from an earlier level: this copy would change nothing.
            return;
        }
        let mut bytes = Vec::new();
        codec.encode(next, &mut bytes);
        let message = Message::State {
            fp,
            parent,
            action_fp: link.action_fp,
            action: index,
            depth,
            bytes,
        };
        self.net.send(to, message);
    }
}

/// Fingerprints this worker sent to other workers, with the depth they were sent at, in a
/// table of fixed size where a newer entry overwrites an older one. A successor sent at an
/// earlier level is recorded by its owner at that level or before, so sending it again
/// would change nothing; one sent at the same depth is sent again (its parent may be less).
struct SentBefore {
    slots: Vec<(u64, u32)>,
}

impl SentBefore {
    const SLOTS: usize = 1 << 18;

    fn new(peers: usize) -> SentBefore {
        // One worker alone sends nothing.
        let n = if peers > 1 { Self::SLOTS } else { 0 };
        SentBefore {
            slots: vec![(0, u32::MAX); n],
        }
    }

    /// Whether `fp` was sent at a depth before `depth`; else notes it as sent at `depth`.
    fn sent_before(&mut self, fp: u64, depth: u32) -> bool {
        let slot = &mut self.slots[(fp as usize) & (Self::SLOTS - 1)];
        if slot.0 == fp && slot.1 < depth {
            return true;
        }
        *slot = (fp, depth);
        false
    }
}

/// The summaries of one round, one per worker, in worker order.
fn summaries(inbox: Vec<Message>, peers: usize) -> Result<Vec<Summary>, Failure> {
    let mut all: Vec<Summary> = inbox
        .into_iter()
        .filter_map(|m| match m {
            Message::Summary(s) => Some(s),
            _ => None,
        })
        .collect();
    all.sort_by_key(|s| s.from);
    all.dedup_by_key(|s| s.from);
    if all.len() != peers {
        // A worker that left the run releases its hold on the round, which then ends without
        // its messages.
        return Err(Failure::Left(peers - all.len()));
    }
    Ok(all)
}

/// Follows each discovery back to an initial state, one parent per round: worker 0 asks the
/// owner of each state on the way, and replays the actions it learns. Every worker takes part
/// in the same rounds; only worker 0's paths are returned (the others' are `None`).
fn rebuild_paths<M: Model>(
    net: &mut Net,
    model: &M,
    inits: &[M::State],
    found: &[Option<(u64, usize)>],
) -> Result<Discoveries<M>, Failure> {
    let rounds = found
        .iter()
        .flatten()
        .map(|(_, d)| d - 1)
        .max()
        .unwrap_or(0);
    let leader = net.me == 0;
    // Per discovery: the state reached so far going back, and the action indices seen.
    let mut cursors: Vec<Option<(u64, Vec<u32>)>> = found
        .iter()
        .map(|f| f.map(|(fp, _)| (fp, Vec::new())))
        .collect();
    for _ in 0..rounds {
        if leader {
            let mut asked = std::collections::BTreeSet::new();
            for (cursor, found) in cursors.iter().zip(found) {
                if let (Some((fp, chain)), Some((_, depth))) = (cursor, found) {
                    if chain.len() + 1 < *depth && asked.insert(*fp) {
                        net.send(owner(*fp, net.peers), Message::Query { fp: *fp });
                    }
                }
            }
        }
        let queries = net.barrier()?;
        for q in queries {
            if let Message::Query { fp } = q {
                let parent = {
                    let shard = net.shard.borrow();
                    let link = shard.search.visited.get(&fp).ok_or_else(|| {
                        Failure::Replay(format!("state {fp:016x} is not in its owner's shard"))
                    })?;
                    (link.action != ROOT).then_some((link.parent, link.action))
                };
                net.send(0, Message::Answer { fp, parent });
            }
        }
        let answers = net.barrier()?;
        if leader {
            let answers: FingerprintMap<Option<(u64, u32)>> = answers
                .into_iter()
                .filter_map(|m| match m {
                    Message::Answer { fp, parent } => Some((fp, parent)),
                    _ => None,
                })
                .collect();
            for (cursor, found) in cursors.iter_mut().zip(found) {
                if let (Some((fp, chain)), Some((_, depth))) = (cursor, found) {
                    if chain.len() + 1 < *depth {
                        if let Some(Some((parent, action))) = answers.get(fp) {
                            chain.push(*action);
                            *fp = *parent;
                        }
                    }
                }
            }
        }
    }
    if !leader {
        return Ok(vec![None; found.len()]);
    }
    cursors
        .into_iter()
        .zip(found)
        .map(|(cursor, found)| match (cursor, found) {
            (Some((root, mut chain)), Some((target, depth))) => {
                if chain.len() != depth - 1 {
                    return Err(Failure::Replay(format!(
                        "the path to {target:016x} has {} steps, not {}",
                        chain.len(),
                        depth - 1
                    )));
                }
                chain.reverse();
                replay(model, inits, root, &chain, *target).map(Some)
            }
            _ => Ok(None),
        })
        .collect()
}

/// The path from the initial state `root` taking the actions at `indices`, checked to end at
/// `target`.
fn replay<M: Model>(
    model: &M,
    inits: &[M::State],
    root: u64,
    indices: &[u32],
    target: u64,
) -> Result<Path<M::State, M::Action>, Failure> {
    let init = inits
        .iter()
        .find(|s| fingerprint(*s) == root)
        .cloned()
        .ok_or_else(|| Failure::Replay(format!("{root:016x} is not an initial state")))?;
    let mut s = init.clone();
    let mut path = Vec::with_capacity(indices.len());
    let mut actions = Vec::new();
    for &i in indices {
        actions.clear();
        model.actions(&s, &mut actions);
        let a = actions
            .get(i as usize)
            .cloned()
            .ok_or_else(|| Failure::Replay(format!("no action {i} in a state on the path")))?;
        s = model
            .next_state(&s, a.clone())
            .ok_or_else(|| Failure::Replay("an action on the path leads nowhere".into()))?;
        path.push(a);
    }
    if fingerprint(&s) != target {
        return Err(Failure::Replay(format!(
            "the path ends at {:016x}, not {target:016x}",
            fingerprint(&s)
        )));
    }
    Ok(Path {
        init,
        actions: path,
    })
}
