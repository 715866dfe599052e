//! The parallel depth-first search (`threads > 1`, [`crate::Mode::Dfs`]): every worker runs
//! a depth-first search of its own, from states it takes from a shared pool, over one
//! visited set ([`crate::visited`]). A worker whose stack runs empty waits at the pool; a
//! worker that sees one waiting gives the pool the older half of its stack (the states
//! nearest the roots, with the most below them). The search is over when every worker waits
//! and the pool is empty.
//!
//! What this keeps of the one-thread depth-first search: an exhaustive search reaches the
//! same unique states and generates the same number of successors (each state is expanded
//! once, by whichever worker records it first, and what it leads to does not depend on who
//! expands it), so every verdict is the same. What differs: which state first reaches
//! another, and so the paths reported and the deepest depth a state is recorded at, change
//! from run to run. A search that decides every property stops within one state per worker
//! of it. A `max_states` bound stops within [`PUBLISH`] expansions per worker of it (and
//! their successors: each worker publishes its counts once every [`PUBLISH`] states it
//! expands). Under a depth bound, a worker that asks whether a state at the bound has a new
//! successor may not yet see one another worker is recording, and then reports the bound
//! as cutting something off: a search called incomplete that one thread might have called
//! exhaustive, never the other way round.
//!
//! Like the one-thread depth-first search it keeps no dead parts ([`Options::forget`]) and
//! no sleep sets; under symmetry reduction, or with an observer of terminal states, a
//! depth-first check runs on one thread ([`crate::Checker::run`]).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::bfs::{build_successors, has_new_successor, Built};
use crate::draft::recycle;
use crate::fingerprint::fingerprint;
use crate::limits::{Budget, StopReason};
use crate::model::Model;
use crate::options::{Options, Progress, Reduction};
use crate::path::Found;
use crate::phases::Untimed;
use crate::property::{Property, Undecided};
use crate::result::Exploration;
use crate::visited::{Visited, DEEPEST};

/// How often progress is reported and the time and memory budget asked.
const POLL: Duration = Duration::from_millis(20);
/// States a worker expands between publishing its counts (one counter every worker wrote
/// at every state would move between their caches each time).
pub(crate) const PUBLISH: usize = 256;

/// A state to expand: its fingerprint, its depth, and the parts it shares with the state it
/// was reached from ([`crate::Model::unchanged_parts`]).
struct Job<S> {
    state: S,
    fp: u64,
    depth: usize,
    unchanged: u32,
}

/// The states waiting for a worker, and the workers waiting for states.
struct Pool<S> {
    inner: Mutex<Waiting<S>>,
    wake: Condvar,
    /// Workers waiting at the pool: read without the lock, after every state, by the
    /// workers that may have states to give.
    hungry: AtomicUsize,
}

struct Waiting<S> {
    batches: Vec<Vec<Job<S>>>,
    idle: usize,
    closed: bool,
    /// Closed because every worker waited with the pool empty: nothing is left to explore.
    exhausted: bool,
}

impl<S> Pool<S> {
    fn new(first: Vec<Job<S>>) -> Self {
        Pool {
            inner: Mutex::new(Waiting {
                batches: vec![first],
                idle: 0,
                closed: false,
                exhausted: false,
            }),
            wake: Condvar::new(),
            hungry: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting<S>> {
        self.inner
            .lock()
            .expect("no worker panics holding the pool")
    }

    /// States for a worker whose stack ran empty; `None` once the pool is closed, or when
    /// this worker is the last to wait with the pool empty (it closes it).
    fn take(&self, workers: usize) -> Option<Vec<Job<S>>> {
        let mut p = self.lock();
        loop {
            if p.closed {
                return None;
            }
            if let Some(batch) = p.batches.pop() {
                return Some(batch);
            }
            p.idle += 1;
            if p.idle == workers {
                (p.closed, p.exhausted) = (true, true);
                self.wake.notify_all();
                return None;
            }
            self.hungry.fetch_add(1, Ordering::Relaxed);
            p = self
                .wake
                .wait(p)
                .expect("no worker panics holding the pool");
            self.hungry.fetch_sub(1, Ordering::Relaxed);
            p.idle -= 1;
        }
    }

    fn give(&self, batch: Vec<Job<S>>) {
        self.lock().batches.push(batch);
        self.wake.notify_one();
    }

    /// Every worker stops at its next state, or at the pool.
    fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_all();
    }
}

/// What the workers share besides the model.
struct Shared<S, A> {
    visited: Visited<S, A>,
    pool: Pool<S>,
    /// Per property: the first state a worker found to show its outcome.
    found: Mutex<Vec<Option<Found<A>>>>,
    /// How many of `found` are set: a worker whose count differs asks which.
    decided: AtomicUsize,
    total: AtomicUsize,
    max_depth: AtomicUsize,
    depth_cut: AtomicBool,
    max_states_hit: AtomicBool,
    /// Stop expanding: a bound fired, or every property is decided.
    stop: AtomicBool,
}

impl<S, A: Clone> Shared<S, A> {
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        self.pool.close();
    }

    /// The properties no worker has decided yet, and how many are decided.
    fn undecided<M: Model>(&self, props: &[Property<M>]) -> (Undecided, usize) {
        let found = self.found.lock().expect("no worker panics holding it");
        let decided = found.iter().filter(|f| f.is_some()).count();
        (Undecided::new(props, |i| found[i].is_some()), decided)
    }

    /// Properties `shown` at the state `fp`, where no worker found them before; `true` once
    /// every property is decided.
    fn record(&self, shown: &[usize], fp: u64) -> bool {
        let mut found = self.found.lock().expect("no worker panics holding it");
        for &i in shown {
            if found[i].is_none() {
                found[i] = Some(Found::State(fp));
                self.decided.fetch_add(1, Ordering::Relaxed);
            }
        }
        found.iter().all(Option::is_some)
    }
}

/// Stops the workers when the coordinator unwinds (a progress callback that panicked).
struct StopOnUnwind<'a, S, A: Clone>(&'a Shared<S, A>);

impl<S, A: Clone> Drop for StopOnUnwind<'_, S, A> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

/// One worker's counts since it last published them.
#[derive(Default)]
struct Counts {
    generated: usize,
    found: usize,
    max_depth: usize,
}

impl Counts {
    fn publish<S, A>(&mut self, sh: &Shared<S, A>) {
        sh.total.fetch_add(self.generated, Ordering::Relaxed);
        sh.visited.unique.fetch_add(self.found, Ordering::Relaxed);
        sh.max_depth.fetch_max(self.max_depth, Ordering::Relaxed);
        (self.generated, self.found) = (0, 0);
    }
}

/// One worker: depth-first from the states it takes from the pool, until the search ends.
fn work<M: Model>(
    model: &M,
    props: &[Property<M>],
    options: &Options,
    sh: &Shared<M::State, M::Action>,
    workers: usize,
) {
    let (mut undecided, mut decided) = sh.undecided(props);
    let por = options.reduction == Reduction::Por;
    let depth_bound = options.max_depth.unwrap_or(DEEPEST).min(DEEPEST);
    let mut stack: Vec<Job<M::State>> = Vec::new();
    let mut counts = Counts::default();
    let mut expanded = 0usize;
    let mut actions = Vec::new();
    let mut ample = Vec::new();
    // The buffer of one state's successors, between states (`recycle`).
    let mut spare_built: Built<'static, M> = Vec::new();
    let mut localizer = model.localizer();
    loop {
        let Some(Job {
            state: s,
            fp,
            depth,
            unchanged,
        }) = stack.pop()
        else {
            counts.publish(sh);
            match sh.pool.take(workers) {
                Some(batch) => {
                    // States from another worker (or the roots): this worker's own copies
                    // of what they share with that worker's states.
                    stack = batch;
                    if let Some(l) = &mut localizer {
                        stack.iter_mut().for_each(|j| l.localize(&mut j.state));
                    }
                    continue;
                }
                None => break,
            }
        };
        if sh.stop.load(Ordering::Relaxed) {
            break;
        }
        if sh.decided.load(Ordering::Relaxed) != decided {
            (undecided, decided) = sh.undecided(props);
        }
        actions.clear();
        model.actions(&s, &mut actions);
        let terminal = actions.is_empty();
        counts.max_depth = counts.max_depth.max(depth);
        // As in the one-thread search: a property that reads only parts `s` shares with the
        // state it was reached from has that state's outcome here. That state was judged
        // for every property still undecided now (decided ones stay decided).
        let shown: Vec<usize> = undecided
            .showing(props, model, &s, terminal, unchanged)
            .collect();
        if !shown.is_empty() {
            if sh.record(&shown, fp) {
                sh.stop();
                break;
            }
            shown.into_iter().for_each(|i| undecided.remove(i));
        }
        if terminal {
            continue;
        }
        if depth >= depth_bound {
            // Not expanded: the bound cuts something off only if a successor is new.
            if !sh.depth_cut.load(Ordering::Relaxed)
                && has_new_successor(model, &s, &actions, false, fingerprint, |k| {
                    sh.visited.contains(k)
                })
            {
                sh.depth_cut.store(true, Ordering::Relaxed);
            }
            continue;
        }
        if options
            .max_states
            .is_some_and(|n| sh.total.load(Ordering::Relaxed) + counts.generated >= n)
        {
            sh.max_states_hit.store(true, Ordering::Relaxed);
            sh.stop();
            break;
        }
        let mut built = recycle(std::mem::take(&mut spare_built));
        build_successors(
            model,
            &s,
            por,
            (&mut ample, &mut actions),
            &|n: &M::State| fingerprint(n),
            |nfp| sh.visited.prefetch(nfp),
            None,
            &mut built,
            &Untimed,
        );
        counts.generated += built.len();
        for (a, next, nfp) in built.drain(..) {
            if sh.visited.insert(nfp, fp, &a, depth + 1) {
                counts.found += 1;
                let unchanged = model.unchanged_parts(&s, &next);
                stack.push(Job {
                    state: next.keep(),
                    fp: nfp,
                    depth: depth + 1,
                    unchanged,
                });
            }
        }
        spare_built = recycle(built);
        expanded += 1;
        if expanded.is_multiple_of(PUBLISH) {
            counts.publish(sh);
        }
        if sh.pool.hungry.load(Ordering::Relaxed) > 0 && stack.len() >= 2 {
            let half = stack.len() / 2;
            sh.pool.give(stack.drain(..half).collect());
        }
    }
    counts.publish(sh);
}

pub(crate) fn explore<M: Model + Sync>(
    model: &M,
    props: &[Property<M>],
    options: &Options,
    start: Instant,
    progress: &mut dyn FnMut(Progress),
) -> Exploration<M> {
    let threads = options.threads.max(2);
    if let Some(refused) = Exploration::unless_threads_start(props.len(), threads) {
        return refused;
    }
    let mut budget = Budget::new(start, options.timeout, options.memory_limit_mib);
    let mut visited = Visited::new();
    let mut roots = Vec::new();
    let mut total = 0usize;
    for init in model.init_states() {
        total += 1;
        let fp = fingerprint(&init);
        if visited.insert_root(fp, &init) {
            roots.push(Job {
                state: init,
                fp,
                depth: 1,
                unchanged: 0,
            });
        }
    }
    let sh = Shared {
        visited,
        pool: Pool::new(roots),
        found: Mutex::new(vec![None; props.len()]),
        decided: AtomicUsize::new(0),
        total: AtomicUsize::new(total),
        max_depth: AtomicUsize::new(0),
        depth_cut: AtomicBool::new(false),
        max_states_hit: AtomicBool::new(false),
        stop: AtomicBool::new(false),
    };
    let mut stopped_by: Option<StopReason> = None;
    // As the one-thread search: nothing to decide, or no time left, and nothing is expanded.
    if props.is_empty() {
        sh.stop();
    } else if let Some(reason) = budget.exceeded() {
        stopped_by = Some(reason);
        sh.stop();
    }
    let main = std::thread::current();
    let spawn_failed = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for _ in 0..threads {
            let (sh, main) = (&sh, &main);
            let worker = move || {
                work(model, props, options, sh, threads);
                main.unpark();
            };
            match std::thread::Builder::new().spawn_scoped(scope, worker) {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // The workers that did start are let go.
                    sh.stop();
                    return Some(e.to_string());
                }
            }
        }
        // If the progress callback panics, the workers are stopped at once rather than left
        // to finish the search before the scope re-raises the panic.
        let _release = StopOnUnwind(&sh);
        // A worker ends only once the search does (or it panicked: then the others are let
        // go, and the scope re-raises its panic rather than waiting for them forever).
        while !handles.iter().any(|h| h.is_finished()) {
            progress(Progress {
                total_states: sh.total.load(Ordering::Relaxed),
                unique_states: sh.visited.unique.load(Ordering::Relaxed),
                max_depth: sh.max_depth.load(Ordering::Relaxed),
                elapsed: start.elapsed(),
            });
            if let Some(reason) = budget.exceeded() {
                stopped_by = Some(reason);
                sh.stop();
                break;
            }
            std::thread::park_timeout(POLL);
        }
        sh.stop();
        None
    });
    if let Some(reason) = spawn_failed {
        stopped_by = Some(StopReason::ThreadSpawn { threads, reason });
    }
    // A bound that fired as the last worker found the pool empty left nothing unexplored.
    if sh.pool.lock().exhausted && !matches!(stopped_by, Some(StopReason::ThreadSpawn { .. })) {
        stopped_by = None;
    }
    if stopped_by.is_none() && sh.max_states_hit.load(Ordering::Relaxed) {
        stopped_by = options.max_states.map(|n| StopReason::MaxStates { n });
    }
    if stopped_by.is_none() && sh.depth_cut.load(Ordering::Relaxed) {
        stopped_by = Some(StopReason::MaxDepth {
            n: options.max_depth.unwrap_or(DEEPEST).min(DEEPEST),
        });
    }
    let found = sh.found.into_inner().expect("no worker panics holding it");
    let all_decided = found.iter().all(Option::is_some);
    Exploration {
        total_states: sh.total.load(Ordering::Relaxed),
        unique_states: sh.visited.unique.load(Ordering::Relaxed),
        max_depth: sh.max_depth.load(Ordering::Relaxed),
        // Once every property is decided nothing a bound left out matters.
        stopped_by: stopped_by.filter(|_| !all_decided),
        discoveries: found
            .into_iter()
            .map(|f| f.map(|f| f.path(|fp| sh.visited.path_to(fp))))
            .collect(),
        phases: None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::{Job, Pool};

    fn job(fp: u64) -> Job<()> {
        Job {
            state: (),
            fp,
            depth: 1,
            unchanged: 0,
        }
    }

    fn fingerprints(batch: Option<Vec<Job<()>>>) -> Option<Vec<u64>> {
        batch.map(|b| b.iter().map(|j| j.fp).collect())
    }

    /// Waits until `n` workers wait at the pool.
    fn until_hungry(pool: &Pool<()>, n: usize) {
        while pool.hungry.load(Ordering::Relaxed) < n {
            std::thread::yield_now();
        }
    }

    #[test]
    fn a_waiting_worker_gets_what_another_gives_and_the_search_ends_when_both_wait() {
        let pool = Pool::new(vec![job(1)]);
        assert_eq!(fingerprints(pool.take(2)), Some(vec![1]), "the roots");
        std::thread::scope(|scope| {
            let other = scope.spawn(|| {
                let given = fingerprints(pool.take(2));
                (given, fingerprints(pool.take(2)))
            });
            until_hungry(&pool, 1);
            pool.give(vec![job(2), job(3)]);
            // Taken by the worker that waited, not by this one.
            while !pool.lock().batches.is_empty() {
                std::thread::yield_now();
            }
            // This worker runs out too: once both wait, nothing is left anywhere.
            assert_eq!(fingerprints(pool.take(2)), None);
            assert_eq!(other.join().unwrap(), (Some(vec![2, 3]), None));
        });
        assert!(pool.lock().exhausted, "ended by running out of work");
    }

    #[test]
    fn closing_the_pool_lets_a_waiting_worker_go_without_calling_the_search_exhausted() {
        let pool = Pool::new(Vec::new());
        assert_eq!(
            fingerprints(pool.take(3)),
            Some(vec![]),
            "the (empty) roots"
        );
        std::thread::scope(|scope| {
            let other = scope.spawn(|| fingerprints(pool.take(3)));
            until_hungry(&pool, 1);
            pool.close();
            assert_eq!(other.join().unwrap(), None);
        });
        assert_eq!(fingerprints(pool.take(3)), None, "closed stays closed");
        assert!(!pool.lock().exhausted, "stopped, not exhausted");
    }
}
