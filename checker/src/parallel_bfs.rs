//! The parallel breadth-first search (`threads > 1`, [`crate::Mode::Bfs`]): level by level.
//!
//! Every state of one depth (a *level*) is expanded before any state of the next: the
//! workers take the level's states in chunks, and the successors that are new go into the
//! next level. The visited set is a map from fingerprint to parent, split into shards with a
//! lock each, so workers rarely wait for one another. Each worker passes every state it takes
//! to the model's [`crate::Localizer`] first, and keeps its own counts, published once a
//! chunk: memory that both workers write at every state (a reference count many states
//! share, a global counter) moves between their caches each time.
//!
//! What this keeps of the one-thread search ([`crate::bfs`]):
//! - **The same states, counts and depth.** The set of states of each level is a property of
//!   the state graph, not of the schedule, so an exhaustive search reaches the same unique
//!   states, generates the same number of successors and ends at the same depth.
//! - **Shortest counterexamples.** A state is first recorded at its BFS depth, with a parent
//!   one level up, so every path is a shortest one.
//! - **The same output on every run, whatever the thread count.** Where several states of
//!   a level show a property, the one with the least fingerprint is reported; where a state
//!   has several parents in the level above, the least (parent fingerprint, action
//!   fingerprint) is kept. The one-thread search keeps the first in queue order instead, so
//!   its path may be another shortest one.
//!
//! What differs: a search that decides every property stops at the end of that level, where
//! the one-thread search stops at once (counts then differ), and a `max_states` bound stops
//! within a chunk of where the one-thread search would.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::bfs::{build_successors, has_new_successor, Built, JudgeForgotten};
use crate::check::ClassFingerprint;
use crate::draft::recycle;
use crate::fingerprint::fingerprint;
use crate::frontier::{Chunk, ChunkFiller};
use crate::limits::{Budget, StopReason};
use crate::model::Model;
use crate::options::{FrontierStorage, Options, Progress, Reduction};
use crate::path::Found;
use crate::phases::Untimed;
use crate::property::{Property, Undecided};
use crate::result::Exploration;
use crate::visited::{Visited, DEEPEST};

/// States a worker takes from the level at a time.
const CHUNK: usize = 64;
/// How often progress is reported and the time and memory budget asked while a level runs.
const POLL: Duration = Duration::from_millis(20);

/// Per property: the state of least fingerprint among those of the first level that shows
/// its outcome, or, with dead parts forgotten ([`Options::forget`]), a successor judged
/// where a state of the level before generated it: the least depth first, then the least
/// key (a state's fingerprint, or that of the parent and action), so that the choice does
/// not depend on which worker judged what first.
struct Discoveries<A> {
    found: Mutex<Vec<Option<Discovery<A>>>>,
}

/// A discovery with its depth and key.
type Discovery<A> = (usize, u64, Found<A>);

impl<A: Clone> Discoveries<A> {
    fn offer(&self, property: usize, depth: usize, key: u64, at: impl FnOnce() -> Found<A>) {
        let mut found = self.found.lock().expect("no worker panics holding it");
        let slot = &mut found[property];
        if slot
            .as_ref()
            .is_none_or(|(d, known, _)| (depth, key) < (*d, *known))
        {
            *slot = Some((depth, key, at()));
        }
    }

    fn snapshot(&self) -> Vec<Option<Found<A>>> {
        self.snapshot_through(usize::MAX)
    }

    /// The discoveries at `depth` or shallower: after a level left unfinished, one deeper
    /// (a successor judged where it was generated) may not be the shallowest.
    fn snapshot_through(&self, depth: usize) -> Vec<Option<Found<A>>> {
        self.found
            .lock()
            .expect("no worker panics holding it")
            .iter()
            .map(|f| {
                f.as_ref()
                    .filter(|(d, _, _)| *d <= depth)
                    .map(|(_, _, at)| at.clone())
            })
            .collect()
    }
}

/// Where the workers wait for the next level: the coordinator opens it (a new
/// generation) once the level is ready, or to let them go when there is none.
struct Gate {
    generation: Mutex<u64>,
    opened: std::sync::Condvar,
}

/// Lets the workers go when the coordinator unwinds (a progress callback that panicked, as
/// `eprintln!` does on a closed standard error): without it they would wait at the gate for
/// a level that never opens, and the scope would wait for them forever.
struct ReleaseOnUnwind<'a> {
    stop: &'a AtomicBool,
    done: &'a AtomicBool,
    gate: &'a Gate,
}

impl Drop for ReleaseOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.stop.store(true, Ordering::Relaxed);
            self.done.store(true, Ordering::Release);
            self.gate.open();
        }
    }
}

impl Gate {
    /// Waits for a generation after `seen`, and returns it.
    fn wait_past(&self, seen: u64) -> u64 {
        let mut g = self.generation.lock().expect("unpoisoned");
        while *g == seen {
            g = self.opened.wait(g).expect("unpoisoned");
        }
        *g
    }

    fn open(&self) {
        *self.generation.lock().expect("unpoisoned") += 1;
        self.opened.notify_all();
    }
}

// A chunk of a level's states (`crate::frontier::Chunk`, values or bytes) is owned by
// whichever worker takes it: a state is dropped as soon as it is expanded, so a level does
// not outlive its expansion.

/// One level's states in chunks, as the workers produced them (one list per worker), with a
/// cursor per list: a worker takes chunks of its own list first and then helps with the
/// others', so that a state is mostly expanded, and freed, by the thread that allocated it.
struct Level<S> {
    lists: Vec<Vec<Mutex<Chunk<S>>>>,
    cursors: Vec<AtomicUsize>,
}

impl<S> Level<S> {
    fn new(lists: Vec<Vec<Chunk<S>>>) -> Self {
        let cursors = lists.iter().map(|_| AtomicUsize::new(0)).collect();
        let lists = lists
            .into_iter()
            .map(|l| l.into_iter().map(Mutex::new).collect())
            .collect();
        Level { lists, cursors }
    }

    fn is_empty(&self) -> bool {
        self.lists.iter().all(Vec::is_empty)
    }

    /// The next chunk for worker `me`: from its own list, else from another's.
    fn take(&self, me: usize) -> Option<Chunk<S>> {
        let n = self.lists.len();
        for k in 0..n {
            let i = (me + k) % n;
            let list = &self.lists[i];
            if self.cursors[i].load(Ordering::Relaxed) >= list.len() {
                continue;
            }
            let c = self.cursors[i].fetch_add(1, Ordering::Relaxed);
            if let Some(chunk) = list.get(c) {
                return Some(std::mem::take(&mut *chunk.lock().expect("unpoisoned")));
            }
        }
        None
    }
}

/// What the workers share besides the model: the level being expanded, what they found,
/// and the signals between them and the coordinating thread.
struct Shared<S, A> {
    visited: Visited<S, A>,
    discoveries: Discoveries<A>,
    level: std::sync::RwLock<Level<S>>,
    /// Per worker: the new states it found in this level, in chunks (the next level's list).
    produced: Vec<Mutex<Vec<Chunk<S>>>>,
    /// Properties decided on earlier levels (not judged again).
    decided: std::sync::RwLock<Vec<bool>>,
    /// Whether this level's states are expanded (not at the depth bound).
    expand: AtomicBool,
    depth: AtomicUsize,
    total: AtomicUsize,
    depth_cut: AtomicBool,
    max_states_hit: AtomicBool,
    /// Stop expanding (a bound fired); the level is left unfinished.
    stop: AtomicBool,
    /// Keep new states as bytes (`FrontierStorage`): from the start, or once memory is scarce.
    compact: AtomicBool,
    /// No more levels: the workers return.
    done: AtomicBool,
    finished: AtomicUsize,
}

/// A successor not yet recorded in the visited set because its shard was busy: what
/// [`Visited::insert`] and the next level need of it.
struct Waiting<M: Model> {
    fp: u64,
    parent: u64,
    action: M::Action,
    state: M::State,
    unchanged: u32,
}

/// One worker's share of one level: expand states, judge properties, record new states.
fn work_on_level<M: Model>(
    model: &M,
    props: &[Property<M>],
    options: &Options,
    sh: &Shared<M::State, M::Action>,
    me: usize,
    class: &(dyn Fn(&M::State) -> u64 + Sync),
    symmetry: bool,
) {
    let level = sh.level.read().expect("no worker panics holding it");
    // Properties decided on earlier levels are not judged again; within the level every
    // state that shows one is offered (the least fingerprint wins).
    let undecided = {
        let decided = sh.decided.read().expect("no worker panics holding it");
        Undecided::new(props, |i| decided[i])
    };
    let expand = sh.expand.load(Ordering::Relaxed);
    let depth = sh.depth.load(Ordering::Relaxed);
    let mut next: Vec<Chunk<M::State>> = Vec::new();
    // The level's new states as bytes once memory is scarce (read once per level).
    let codec = model.codec().filter(|_| sh.compact.load(Ordering::Relaxed));
    let mut filling = ChunkFiller::new(codec, CHUNK);
    let mut actions = Vec::new();
    // The buffer of one state's successors, between states (`recycle`).
    let mut spare_built: Built<'static, M> = Vec::new();
    let mut ample = Vec::new();
    let mut generated = 0usize;
    let mut found = 0usize;
    let mut localizer = model.localizer();
    // Successors whose shard another worker held (`Visited::try_insert`): kept, and
    // recorded when the shard is free, as they would have been at once.
    let mut waiting: Vec<Waiting<M>> = Vec::new();
    'chunks: while let Some(chunk) = level.take(me) {
        // Published once a chunk, so that max_states and progress see it.
        sh.total
            .fetch_add(std::mem::take(&mut generated), Ordering::Relaxed);
        sh.visited
            .unique
            .fetch_add(std::mem::take(&mut found), Ordering::Relaxed);
        let mut states = chunk.into_states(model.codec()).peekable();
        while let Some((mut s, fp, unchanged)) = states.next() {
            if sh.stop.load(Ordering::Relaxed) {
                break 'chunks;
            }
            // The next state of the chunk loads while this one is expanded.
            if let Some((after, _, _)) = states.peek() {
                model.prefetch(after);
            }
            if let Some(l) = &mut localizer {
                l.localize(&mut s);
            }
            let (s, fp) = (&s, &fp);
            actions.clear();
            model.actions(s, &mut actions);
            let terminal = actions.is_empty();
            // As in the one-thread search: a property that reads only parts `s` shares with
            // the state it was reached from, judged a level before, has its outcome here.
            for i in undecided.showing(props, model, s, terminal, unchanged) {
                sh.discoveries.offer(i, depth, *fp, || Found::State(*fp));
            }
            if terminal {
                continue;
            }
            if !expand {
                // Not expanded: the bound cuts something off only if a successor is new.
                if !sh.depth_cut.load(Ordering::Relaxed)
                    && has_new_successor(model, s, &actions, options.forget, class, |k| {
                        sh.visited.contains(k)
                    })
                {
                    sh.depth_cut.store(true, Ordering::Relaxed);
                }
                continue;
            }
            if options
                .max_states
                .is_some_and(|n| sh.total.load(Ordering::Relaxed) + generated >= n)
            {
                sh.max_states_hit.store(true, Ordering::Relaxed);
                sh.stop.store(true, Ordering::Relaxed);
                break 'chunks;
            }
            // As in the one-thread search.
            let mut built = recycle(std::mem::take(&mut spare_built));
            let mut judge = |a: &M::Action, next: &M::State| {
                // As at a state of the level: what `next` shares with `s` is as judged there.
                let unchanged = model.unchanged_parts(s, next);
                for i in undecided.showing(props, model, next, false, unchanged) {
                    let key = fingerprint(&(*fp, a));
                    sh.discoveries.offer(i, depth + 1, key, || {
                        Found::After(*fp, a.clone(), symmetry.then(|| class(next)))
                    });
                }
            };
            build_successors(
                model,
                s,
                options.reduction == Reduction::Por,
                (&mut ample, &mut actions),
                &class,
                |nfp| sh.visited.prefetch(nfp),
                options
                    .forget
                    .then_some(&mut judge as JudgeForgotten<'_, M>),
                &mut built,
                &Untimed,
            );
            generated += built.len();
            for (a, n, nfp) in built.drain(..) {
                match sh.visited.try_insert(nfp, *fp, &a, depth + 1) {
                    Some(false) => {}
                    Some(true) => {
                        found += 1;
                        let unchanged = model.unchanged_parts(s, &n);
                        next.extend(filling.push(n.keep(), nfp, unchanged));
                    }
                    None => {
                        let unchanged = model.unchanged_parts(s, &n);
                        waiting.push(Waiting {
                            fp: nfp,
                            parent: *fp,
                            action: a,
                            state: n.keep(),
                            unchanged,
                        });
                    }
                }
            }
            spare_built = recycle(built);
        }
        // Between chunks, the shards that were busy are asked again.
        for w in std::mem::take(&mut waiting) {
            match sh.visited.try_insert(w.fp, w.parent, &w.action, depth + 1) {
                Some(false) => {}
                Some(true) => {
                    found += 1;
                    next.extend(filling.push(w.state, w.fp, w.unchanged));
                }
                None => waiting.push(w),
            }
        }
    }
    // The level ends only once every state it reached is recorded.
    for w in waiting {
        if sh.visited.insert(w.fp, w.parent, &w.action, depth + 1) {
            found += 1;
            next.extend(filling.push(w.state, w.fp, w.unchanged));
        }
    }
    next.extend(filling.finish());
    sh.total.fetch_add(generated, Ordering::Relaxed);
    sh.visited.unique.fetch_add(found, Ordering::Relaxed);
    *sh.produced[me].lock().expect("no worker panics holding it") = next;
}

pub(crate) fn explore<M: Model + Sync>(
    model: &M,
    props: &[Property<M>],
    options: &Options,
    start: Instant,
    progress: &mut dyn FnMut(Progress),
    class_fingerprint: Option<ClassFingerprint<'_, M::State>>,
) -> Exploration<M> {
    // Under symmetry reduction a state is known by its class's fingerprint. The state
    // reached is the one expanded, and paths are made runs at the end (`realign`).
    let class = |s: &M::State| match class_fingerprint {
        Some(class) => class(s),
        None => fingerprint(s),
    };
    let threads = options.threads.max(2);
    if let Some(refused) = Exploration::unless_threads_start(props.len(), threads) {
        return refused;
    }
    let mut budget = Budget::new(start, options.timeout, options.memory_limit_mib);
    let mut visited: Visited<M::State, M::Action> = Visited::new();
    let mut first = Vec::new();
    let mut total = 0usize;
    for init in model.init_states() {
        total += 1;
        let fp = class(&init);
        if visited.insert_root(fp, &init) {
            first.push((init, fp, 0));
        }
    }
    let sh = Shared {
        visited,
        discoveries: Discoveries {
            found: Mutex::new(vec![None; props.len()]),
        },
        level: std::sync::RwLock::new(Level::new(vec![first
            .chunks(CHUNK)
            .map(|c| Chunk::Values(c.to_vec()))
            .collect()])),
        produced: (0..threads).map(|_| Mutex::new(Vec::new())).collect(),
        decided: std::sync::RwLock::new(vec![false; props.len()]),
        expand: AtomicBool::new(true),
        depth: AtomicUsize::new(1),
        total: AtomicUsize::new(total),
        depth_cut: AtomicBool::new(false),
        max_states_hit: AtomicBool::new(false),
        stop: AtomicBool::new(false),
        compact: AtomicBool::new(options.frontier == FrontierStorage::Bytes),
        done: AtomicBool::new(false),
        finished: AtomicUsize::new(0),
    };
    let mut max_depth = 0usize;
    // The levels expanded: the user's bound, and never past what a `Link` holds.
    let depth_bound = options.max_depth.unwrap_or(DEEPEST).min(DEEPEST);
    let mut stopped_by: Option<StopReason> = None;
    // The workers start a level when the gate opens, and the coordinator waits until every
    // worker that started is done with it.
    let gate = Gate {
        generation: Mutex::new(0),
        opened: std::sync::Condvar::new(),
    };
    let main = std::thread::current();
    let spawn_failed = std::thread::scope(|scope| {
        let mut started = 0;
        let mut handles = Vec::new();
        let mut failure = None;
        for me in 0..threads {
            let (sh, gate, main) = (&sh, &gate, &main);
            let worker = move || {
                let mut seen = 0;
                loop {
                    seen = gate.wait_past(seen);
                    if sh.done.load(Ordering::Acquire) {
                        return;
                    }
                    work_on_level(
                        model,
                        props,
                        options,
                        sh,
                        me,
                        &class,
                        class_fingerprint.is_some(),
                    );
                    sh.finished.fetch_add(1, Ordering::Release);
                    main.unpark();
                }
            };
            match std::thread::Builder::new().spawn_scoped(scope, worker) {
                Ok(h) => {
                    handles.push(h);
                    started += 1;
                }
                Err(e) => {
                    failure = Some(e.to_string());
                    break;
                }
            }
        }
        if failure.is_some() {
            // The workers that did start are let go.
            sh.done.store(true, Ordering::Release);
            gate.open();
            return failure;
        }
        let _release = ReleaseOnUnwind {
            stop: &sh.stop,
            done: &sh.done,
            gate: &gate,
        };
        loop {
            if let Some(reason) = budget.exceeded() {
                stopped_by = Some(reason);
            }
            let empty = sh.level.read().expect("unpoisoned").is_empty();
            if empty || stopped_by.is_some() {
                sh.done.store(true, Ordering::Release);
                gate.open();
                return None;
            }
            let depth = sh.depth.load(Ordering::Relaxed);
            max_depth = depth;
            sh.expand.store(depth < depth_bound, Ordering::Relaxed);
            sh.finished.store(0, Ordering::Relaxed);
            gate.open();
            // While the level runs: progress, and the time and memory budget.
            while sh.finished.load(Ordering::Acquire) < started {
                // A worker that ended mid-level panicked: let the others go, and the scope
                // re-raises its panic rather than waiting for it forever.
                if handles.iter().any(|h| h.is_finished()) {
                    sh.stop.store(true, Ordering::Relaxed);
                    sh.done.store(true, Ordering::Release);
                    gate.open();
                    return None;
                }
                progress(Progress {
                    total_states: sh.total.load(Ordering::Relaxed),
                    unique_states: sh.visited.unique.load(Ordering::Relaxed),
                    max_depth,
                    elapsed: start.elapsed(),
                });
                if stopped_by.is_none() {
                    if let Some(reason) = budget.exceeded() {
                        stopped_by = Some(reason);
                        sh.stop.store(true, Ordering::Relaxed);
                    }
                }
                if options.frontier == FrontierStorage::Auto && budget.memory_is_scarce() {
                    // From the next level on.
                    sh.compact.store(true, Ordering::Relaxed);
                }
                std::thread::park_timeout(POLL);
            }
            let found = sh.discoveries.snapshot();
            let lists: Vec<Vec<Chunk<M::State>>> = sh
                .produced
                .iter()
                .map(|m| std::mem::take(&mut *m.lock().expect("unpoisoned")))
                .collect();
            *sh.decided.write().expect("unpoisoned") = found.iter().map(Option::is_some).collect();
            *sh.level.write().expect("unpoisoned") = Level::new(lists);
            sh.depth.fetch_add(1, Ordering::Relaxed);
            if sh.max_states_hit.load(Ordering::Relaxed) || found.iter().all(Option::is_some) {
                sh.done.store(true, Ordering::Release);
                gate.open();
                return None;
            }
        }
    });
    if let Some(reason) = spawn_failed {
        stopped_by = Some(StopReason::ThreadSpawn { threads, reason });
    }
    // A level left unfinished judged some of its states: what it showed at its depth is
    // final, what it showed deeper is not.
    let found = if sh.stop.load(Ordering::Relaxed) {
        sh.discoveries.snapshot_through(max_depth)
    } else {
        sh.discoveries.snapshot()
    };
    let all_decided = found.iter().all(Option::is_some);
    if stopped_by.is_none() && sh.max_states_hit.load(Ordering::Relaxed) {
        stopped_by = options.max_states.map(|n| StopReason::MaxStates { n });
    }
    if stopped_by.is_none() && sh.depth_cut.load(Ordering::Relaxed) {
        stopped_by = Some(StopReason::MaxDepth { n: depth_bound });
    }
    Exploration {
        total_states: sh.total.load(Ordering::Relaxed),
        unique_states: sh.visited.unique.load(Ordering::Relaxed),
        max_depth,
        // Once every property is decided nothing a bound left out matters.
        stopped_by: stopped_by.filter(|_| !all_decided),
        discoveries: found
            .into_iter()
            .map(|f| {
                f.map(|f| {
                    let path = f.path(|fp| sh.visited.path_to(fp));
                    if class_fingerprint.is_none() {
                        return path;
                    }
                    let (classes, last) = match &f {
                        Found::State(fp) => (sh.visited.fingerprints_to(*fp), None),
                        Found::After(parent, _, last) => {
                            let mut classes = sh.visited.fingerprints_to(*parent);
                            classes.push(last.expect("recorded under symmetry"));
                            (classes, Some(&class as &dyn Fn(&M::State) -> u64))
                        }
                    };
                    let stored = |s: M::State| match options.forget {
                        true => model.forget(&s).unwrap_or(s),
                        false => s,
                    };
                    crate::path::realign(model, path, &classes, stored, class, last)
                })
            })
            .collect(),
        phases: None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use crate::{Checker, Expectation, Exploration, Model, Options, Property, Reads};

    static PRETEND_BUSY: AtomicBool = AtomicBool::new(false);
    static ASKED: AtomicUsize = AtomicUsize::new(0);

    /// While a test pretends so, two in three shards asked without waiting seem busy, so
    /// that successors wait once, twice or until the level's end.
    pub(crate) fn seems_busy() -> bool {
        PRETEND_BUSY.load(Ordering::Relaxed)
            && !ASKED.fetch_add(1, Ordering::Relaxed).is_multiple_of(3)
    }

    /// Three counters up to five, in any interleaving: 216 states, more than a chunk in a
    /// level, and many parents per state.
    #[derive(Clone)]
    struct Cube;

    impl Model for Cube {
        type State = [u8; 3];
        type Action = usize;
        fn init_states(&self) -> Vec<[u8; 3]> {
            vec![[0; 3]]
        }
        fn actions(&self, s: &[u8; 3], actions: &mut Vec<usize>) {
            actions.extend((0..3).filter(|&i| s[i] < 5));
        }
        fn next_state(&self, s: &[u8; 3], i: usize) -> Option<[u8; 3]> {
            let mut n = *s;
            n[i] += 1;
            Some(n)
        }
    }

    fn search(busy: bool) -> (Vec<Property<Cube>>, Exploration<Cube>) {
        let props = vec![
            Property {
                name: "sum-below-nine",
                expectation: Expectation::Always,
                condition: |_, s: &[u8; 3]| s.iter().sum::<u8>() < 9,
                reads: Reads::Anything,
            },
            Property {
                name: "y-short-of-five-at-the-end",
                expectation: Expectation::AtTermination,
                condition: |_, s: &[u8; 3]| s[1] < 5,
                reads: Reads::Anything,
            },
            Property {
                name: "two-fives",
                expectation: Expectation::Sometimes,
                condition: |_, s: &[u8; 3]| s[0] == 5 && s[2] == 5,
                reads: Reads::Anything,
            },
        ];
        PRETEND_BUSY.store(busy, Ordering::Relaxed);
        let found = Checker::new(
            &Cube,
            &props,
            &Options {
                threads: 2,
                ..Options::default()
            },
        )
        .run();
        PRETEND_BUSY.store(false, Ordering::Relaxed);
        (props, found)
    }

    #[test]
    fn successors_whose_shard_was_busy_are_recorded_as_if_at_once() {
        let (_, at_once) = search(false);
        let before = ASKED.load(Ordering::Relaxed);
        let (props, waited) = search(true);
        assert!(
            ASKED.load(Ordering::Relaxed) - before > 216,
            "most successors waited"
        );
        assert!(waited.exhaustive());
        assert_eq!(waited.unique_states, 216);
        assert_eq!(
            (waited.unique_states, waited.total_states, waited.max_depth),
            (
                at_once.unique_states,
                at_once.total_states,
                at_once.max_depth
            )
        );
        for (i, p) in props.iter().enumerate() {
            let path = |e: &Exploration<Cube>| {
                e.discoveries[i]
                    .as_ref()
                    .map(|p| (p.init, p.actions.clone()))
            };
            assert_eq!(path(&waited), path(&at_once), "{}", p.name);
        }
        assert!(
            waited.discoveries.iter().all(Option::is_some),
            "each property shows"
        );
    }
}
