//! The one-thread search: breadth-first, which guarantees shortest counterexamples, and
//! depth-first, which keeps a smaller frontier.
//!
//! stateright 0.31's "BFS" pops each worker's pending states from the back of its queue and
//! keeps the *last* discovery of a property, so its counterexamples are not shortest (on a
//! model where 8 actions suffice it can report 15). Readers of a counterexample need the
//! shortest trace, so the one-thread breadth-first search is this one: a FIFO queue, first
//! discovery wins, parent pointers for paths. `threads > 1` runs the level-by-level
//! parallel search (`crate::parallel_bfs`), which is shortest too.
//!
//! Depth-first on one thread is this search too, with a stack instead of the queue:
//! stateright's one-thread depth-first search looks at its timeout only when its own stack
//! runs empty, which on a large model is never. Here time and memory are looked at through a
//! [`Budget`] at [`Checkpoints`] (every state while states are slow, at most every 256 where
//! they are quick), states and depth as they are reached.

use std::time::Instant;

use crate::check::{ClassFingerprint, TerminalObserver};
use crate::draft::{recycle, Draft, Parent};
use std::sync::Arc;

use crate::fingerprint::{fingerprint, FingerprintMap, FingerprintSet};
use crate::footprint::Footprint;
use crate::frontier::{Frontier, Tag};
use crate::limits::{Budget, Checkpoints, StopReason};
use crate::model::Model;
use crate::options::{FrontierStorage, Options, Progress, Reduction};
use crate::path::{Found, Parents};
use crate::phases::{Phase, Stopwatch, Timed, Untimed};
use crate::property::{Property, Undecided};
use crate::result::Exploration;

/// Which state is expanded next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// The oldest (a queue): breadth-first, shortest paths.
    Fifo,
    /// The newest (a stack): depth-first.
    Lifo,
}

/// What the caller hooks into a one-thread search.
pub(crate) struct Hooks<'a, M: Model> {
    pub(crate) progress: &'a mut dyn FnMut(Progress),
    /// Maps a state to its class's fingerprint (symmetry reduction).
    pub(crate) class: Option<ClassFingerprint<'a, M::State>>,
    /// Called on every terminal state reached; the search then runs to its end even once
    /// every property is decided.
    pub(crate) on_terminal: Option<TerminalObserver<'a, M::State>>,
}

pub(crate) fn explore<M: Model>(
    model: &M,
    props: &[Property<M>],
    options: &Options,
    order: Order,
    start: Instant,
    hooks: Hooks<'_, M>,
) -> Exploration<M> {
    // Timed or not, one search: the untimed one is compiled without a clock read.
    if options.time_phases && options.reduction != Reduction::Sleep {
        let watch = Timed::start();
        let mut found = explore_with(model, props, options, order, start, hooks, &watch);
        found.phases = Some(watch.finish());
        found
    } else {
        explore_with(model, props, options, order, start, hooks, &Untimed)
    }
}

fn explore_with<M: Model>(
    model: &M,
    props: &[Property<M>],
    options: &Options,
    order: Order,
    start: Instant,
    hooks: Hooks<'_, M>,
    watch: &impl Stopwatch,
) -> Exploration<M> {
    let Hooks {
        progress,
        class,
        mut on_terminal,
    } = hooks;
    let mut budget = Budget::new(start, options.timeout, options.memory_limit_mib);
    let mut checkpoints = Checkpoints::new(start);
    // Under symmetry reduction a state is known by its class's fingerprint, but the state
    // actually reached is the one expanded, so paths stay real. Timed as a phase of its own.
    let fingerprint = |s: &M::State| {
        let (fp, phase) = match class {
            Some(class) => (class(s), Phase::Symmetry),
            None => (fingerprint(s), Phase::Fingerprinting),
        };
        watch.lap(phase);
        fp
    };
    let mut parents: Parents<M::State, M::Action> = Parents::new();
    // Per property (by index): the first state that shows its outcome.
    let mut found: Vec<Option<Found<M::Action>>> = vec![None; props.len()];
    let mut undecided = Undecided::new(props, |_| false);
    // Dead parts forgotten (breadth-first, without sleep sets): a successor judged where it
    // is generated shows a property at its depth, which is final once no shallower state
    // is left to judge (`Tentative`).
    let forget = options.forget && order == Order::Fifo && options.reduction != Reduction::Sleep;
    let mut tentative = Tentative::new(props.len());
    // An observer of terminal states wants them all.
    let stop_when_decided = on_terminal.is_none();
    let mut queue = Frontier::new(order, model.codec(), options.frontier);
    let mut total = 0usize;
    for init in model.init_states() {
        watch.lap(Phase::Building);
        let fp = fingerprint(&init);
        total += 1;
        if parents.insert_root(fp, &init) {
            // Depth counts the states of a path, as stateright does: an initial state is 1.
            queue.push(init, fp, Tag::new(1, 0));
        }
    }
    let mut max_depth = 0usize;
    // The bound that stopped the search; a depth bound lets it go on elsewhere.
    let mut stopped_by: Option<StopReason> = None;
    let mut depth_cut = false;
    let mut actions = Vec::new();
    // The buffer of one state's successors, between states (`recycle`).
    let mut spare_built: Built<'static, M> = Vec::new();
    let mut ample = Vec::new();
    let mut sleep =
        (options.reduction == Reduction::Sleep && order == Order::Fifo && class.is_none())
            .then(SleepSets::<M>::default);
    loop {
        watch.lap(Phase::Search);
        let Some((s, fp, tag)) = queue.pop(order) else {
            break;
        };
        // Breadth-first, the state after this one is the next expanded: its memory loads
        // while this one is (depth-first, this one's successors come first).
        if order == Order::Fifo {
            if let Some(after) = queue.peek(order) {
                model.prefetch(after);
            }
        }
        watch.lap(Phase::Frontier);
        let depth = tag.depth();
        // Every state shallower than `depth` is judged: what was shown at `depth` is final.
        tentative.settle(depth, &mut found, &mut undecided);
        // A state expanded again (sleep sets' revisit rule) was judged the first time.
        let again = sleep.as_mut().is_some_and(|z| z.again.remove(&fp));
        if checkpoints.due() {
            progress(Progress {
                total_states: total,
                unique_states: parents.len(),
                max_depth,
                elapsed: start.elapsed(),
            });
            if let Some(stop) = budget.exceeded() {
                // The state just taken is not explored: the search is not exhaustive.
                stopped_by = Some(stop);
                break;
            }
            if options.frontier == FrontierStorage::Auto && budget.memory_is_scarce() {
                queue.memory_is_scarce();
            }
        }
        // The enabled actions, computed once: expansion needs them, and the at-termination
        // properties ask whether there are none.
        actions.clear();
        watch.lap(Phase::Search);
        model.actions(&s, &mut actions);
        watch.lap(Phase::Actions);
        let terminal = actions.is_empty();
        if !again {
            max_depth = max_depth.max(depth);
            if terminal {
                if let Some(observe) = on_terminal.as_mut() {
                    observe(&s);
                }
            }
            // A property that reads only parts `s` shares with the state it was reached from
            // (judged before it) has that state's outcome here.
            // (Collecting allocates only where some property shows, which is rare.)
            let shown: Vec<usize> = undecided
                .showing(props, model, &s, terminal, tag.unchanged)
                .collect();
            for i in shown {
                found[i] = Some(Found::State(fp));
                undecided.remove(i);
                tentative.superseded(i);
            }
            watch.lap(Phase::Judging);
        }
        if undecided.is_empty() && stop_when_decided {
            break;
        }
        if terminal {
            continue;
        }
        if options.max_depth.is_some_and(|d| depth >= d) {
            // Not expanded: the bound cuts something off only if a successor is new.
            let key = |next: &M::State| {
                watch.lap(Phase::Building);
                fingerprint(next)
            };
            depth_cut = depth_cut
                || has_new_successor(model, &s, &actions, forget, key, |k| parents.contains(k));
            continue;
        }
        if let Some(n) = options.max_states.filter(|n| total >= *n) {
            stopped_by = Some(StopReason::MaxStates { n });
            break;
        }
        if let Some(z) = sleep.as_mut() {
            total += z.expand(model, &s, fp, depth, &mut actions, &mut parents, &mut queue);
            continue;
        }
        // Kept successors may take over `s`'s references (`Draft::keep_from`) where the
        // frontier keeps them as values: they then live until after `s` and its drafts.
        let inherit = queue.keeps_values();
        let s = Parent::new(s);
        let mut built = recycle(std::mem::take(&mut spare_built));
        let mut judge = |a: &M::Action, next: &M::State| {
            // As at a popped state: what `next` shares with `s` has the outcome it has at `s`.
            let unchanged = model.unchanged_parts(&s, next);
            for i in undecided.showing(props, model, next, false, unchanged) {
                tentative.offer(i, depth + 1, || Found::After(fp, a.clone(), None));
            }
        };
        watch.lap(Phase::Search);
        build_successors(
            model,
            &s,
            options.reduction == Reduction::Por,
            (&mut ample, &mut actions),
            &fingerprint,
            |nfp| parents.prefetch(nfp),
            forget.then_some(&mut judge as JudgeForgotten<'_, M>),
            &mut built,
            watch,
        );
        total += built.len();
        // Only the new successors are kept; the others are dropped as drafts.
        for (a, next, nfp) in built.drain(..) {
            let new = parents.insert(nfp, fp, &a);
            watch.lap(Phase::Visited);
            if new {
                let unchanged = model.unchanged_parts(&s, &next);
                watch.lap(Phase::Judging);
                let kept = if inherit {
                    // SAFETY: `next` was built from `s`, and the frontier keeps it as a
                    // value until a later turn of this loop, after `s` and every draft
                    // of `built` (declared after `s`, so dropped first even in a panic).
                    unsafe { next.keep_from(&s) }
                } else {
                    next.keep()
                };
                queue.push(kept, nfp, Tag::new(depth + 1, unchanged));
                watch.lap(Phase::Frontier);
            } else {
                drop(next);
                watch.lap(Phase::Dropping);
            }
        }
        spare_built = recycle(built);
        watch.lap(Phase::Search);
        drop(s);
        watch.lap(Phase::Dropping);
    }
    if stopped_by.is_none() {
        // Every state was judged (or the rest is beyond every tentative's depth).
        tentative.settle(usize::MAX, &mut found, &mut undecided);
    }
    // Once every property is decided nothing a bound left out matters; and a bound that
    // fires after the last state was explored leaves nothing unexplored (the loop ended).
    let stopped_by = if undecided.is_empty() && stop_when_decided {
        None
    } else if depth_cut && stopped_by.is_none() {
        options.max_depth.map(|n| StopReason::MaxDepth { n })
    } else {
        stopped_by
    };
    Exploration {
        total_states: total,
        unique_states: parents.len(),
        max_depth,
        stopped_by,
        discoveries: found
            .into_iter()
            .map(|f| f.map(|f| f.path(|fp| parents.path_to(fp))))
            .collect(),
        phases: None,
    }
}

/// Per property: the first successor found to show its outcome where it was generated
/// ([`Options::forget`]), at its depth. Breadth-first search judges states in order of
/// depth, so that discovery is final (the shortest) once the search pops a state at least
/// as deep; until then a shallower state may still show the property.
pub(crate) struct Tentative<A> {
    shown: Vec<Option<(usize, Found<A>)>>,
    /// The least depth among `shown`, `usize::MAX` if none.
    least: usize,
}

impl<A: Clone> Tentative<A> {
    pub(crate) fn new(properties: usize) -> Self {
        Tentative {
            shown: vec![None; properties],
            least: usize::MAX,
        }
    }

    /// Property `i` shown at `depth` (the first offer is the shallowest).
    fn offer(&mut self, i: usize, depth: usize, found: impl FnOnce() -> Found<A>) {
        if self.shown[i].is_none() {
            self.shown[i] = Some((depth, found()));
            self.least = self.least.min(depth);
        }
    }

    /// Property `i` shown at a state the search keeps, at least as shallow.
    fn superseded(&mut self, i: usize) {
        self.shown[i] = None;
    }

    /// Every discovery at `depth` or shallower is final: decided.
    fn settle(&mut self, depth: usize, found: &mut [Option<Found<A>>], undecided: &mut Undecided) {
        if depth < self.least {
            return;
        }
        self.least = usize::MAX;
        for (i, slot) in self.shown.iter_mut().enumerate() {
            match slot {
                Some((d, _)) if *d <= depth => {
                    let (_, f) = slot.take().expect("matched");
                    found[i] = Some(f);
                    undecided.remove(i);
                }
                Some((d, _)) => self.least = self.least.min(*d),
                None => {}
            }
        }
    }
}

/// Whether a state the depth bound leaves unexpanded has a successor the search does not
/// know: only then does the bound cut something off. `key` is how the search knows a state
/// (its fingerprint or its class's), taken after `forget` ([`Options::forget`]).
pub(crate) fn has_new_successor<M: Model>(
    model: &M,
    s: &M::State,
    actions: &[M::Action],
    forget: bool,
    key: impl Fn(&M::State) -> u64,
    known: impl Fn(u64) -> bool,
) -> bool {
    actions.iter().any(|a| {
        model.draft(s, a.clone()).is_some_and(|next| {
            let kept = forget.then(|| model.forget(&next)).flatten();
            !known(key(kept.as_ref().unwrap_or(&next)))
        })
    })
}

/// Judges a successor that holds dead parts where it is generated ([`Options::forget`]).
pub(crate) type JudgeForgotten<'j, M> =
    &'j mut dyn FnMut(&<M as Model>::Action, &<M as Model>::State);

/// A persistent set: actions with the states they lead to.
pub(crate) type Ample<M> = Vec<(<M as Model>::Action, <M as Model>::State)>;
/// One state's successors, each with the action to it and its fingerprint.
pub(crate) type Built<'p, M> = Vec<(<M as Model>::Action, Draft<'p, <M as Model>::State>, u64)>;

/// A state's successors and their fingerprints, appended to `built`: the persistent set's
/// alone if `por` finds one, else one draft per enabled action (`actions`, emptied). Each is
/// built, and its slot in the visited set asked for (`prefetch`), before the first is looked
/// up: the lookups then seldom wait for memory. The order is the actions'. With `forgotten`
/// ([`Options::forget`]), a successor that holds dead parts is handed to it (to be judged)
/// and kept without them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_successors<'p, M: Model>(
    model: &M,
    s: &'p M::State,
    por: bool,
    (ample, actions): (&mut Ample<M>, &mut Vec<M::Action>),
    fingerprint: &impl Fn(&M::State) -> u64,
    mut prefetch: impl FnMut(u64),
    mut forgotten: Option<JudgeForgotten<'_, M>>,
    built: &mut Built<'p, M>,
    watch: &impl Stopwatch,
) {
    ample.clear();
    let reduced = por && model.persistent_set(s, ample);
    if por {
        watch.lap(Phase::Reduction);
    }
    let successors = ample
        .drain(..)
        .map(|(a, n)| (a, Some(Draft::owned(n))))
        .chain(actions.drain(..).filter(move |_| !reduced).map(|a| {
            let n = model.draft(s, a.clone());
            (a, n)
        }));
    for (a, next) in successors {
        watch.lap(Phase::Building);
        let Some(mut next) = next else {
            continue;
        };
        if let Some(judge) = forgotten.as_mut() {
            if let Some(without) = model.forget(&next) {
                watch.lap(Phase::Building);
                judge(&a, &next);
                watch.lap(Phase::Judging);
                next = Draft::owned(without);
            }
        }
        let nfp = fingerprint(&next);
        prefetch(nfp);
        watch.lap(Phase::Visited);
        built.push((a, next, nfp));
    }
    watch.lap(Phase::Search);
}

/// Sleep sets for the one-thread breadth-first search (Godefroid's, with his revisit rule):
/// a state's sleep set holds actions explored from a parent that commute with the action
/// that led here, with their footprints; they are not taken again here, since the other
/// side of their diamond reaches the same state by a path of the same length.
struct SleepSets<M: Model> {
    /// Per queued state with a non-empty sleep set: the actions it sleeps on (the
    /// intersection over every discovery so far).
    asleep: FingerprintMap<Vec<Slept<M>>>,
    /// States expanded while sleeping on some action: reached again with a sleep set that
    /// may lack one, they are expanded again.
    expanded_asleep: FingerprintSet,
    /// States queued to be expanded again.
    again: FingerprintSet,
}

type Slept<M> = (<M as Model>::Action, Arc<Footprint>);

impl<M: Model> Default for SleepSets<M> {
    fn default() -> Self {
        SleepSets {
            asleep: FingerprintMap::default(),
            expanded_asleep: FingerprintSet::default(),
            again: FingerprintSet::default(),
        }
    }
}

impl<M: Model> SleepSets<M> {
    /// Expands `s` (reached at `depth`) but for the actions it sleeps on; returns how many
    /// successors it built.
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &mut self,
        model: &M,
        s: &M::State,
        fp: u64,
        depth: usize,
        actions: &mut Vec<M::Action>,
        parents: &mut Parents<M::State, M::Action>,
        queue: &mut Frontier<M::State>,
    ) -> usize {
        let asleep = self.asleep.remove(&fp).unwrap_or_default();
        if asleep.is_empty() {
            self.expanded_asleep.remove(&fp);
        } else {
            self.expanded_asleep.insert(fp);
        }
        actions.retain(|a| !asleep.iter().any(|(b, _)| b == a));
        // A lone action with nothing asleep puts nothing to sleep: no footprint needed.
        let lone = asleep.is_empty() && actions.len() == 1;
        let mut explored: Vec<Slept<M>> = Vec::new();
        let mut built = 0;
        for a in actions.drain(..) {
            let with_footprint = if lone {
                None
            } else {
                model.next_state_with_footprint(s, a.clone())
            };
            let (next, child_asleep) = match with_footprint {
                Some((next, footprint)) => {
                    let footprint = Arc::new(footprint);
                    let child: Vec<Slept<M>> = asleep
                        .iter()
                        .chain(&explored)
                        .filter(|(_, other)| !footprint.conflicts(other))
                        .cloned()
                        .collect();
                    explored.push((a.clone(), footprint));
                    (next, child)
                }
                // No footprint: nothing sleeps across this action (or nothing could).
                None => (model.next_state(s, a.clone()), Vec::new()),
            };
            let Some(next) = next else {
                continue;
            };
            built += 1;
            let nfp = fingerprint(&next);
            if parents.insert(nfp, fp, &a) {
                if !child_asleep.is_empty() {
                    self.asleep.insert(nfp, child_asleep);
                }
                queue.push(next, nfp, Tag::new(depth + 1, 0));
            } else if let Some(known) = self.asleep.get_mut(&nfp) {
                // Queued: it sleeps only on what every way here lets it.
                known.retain(|(b, _)| child_asleep.iter().any(|(c, _)| c == b));
                if known.is_empty() {
                    self.asleep.remove(&nfp);
                }
            } else if self.expanded_asleep.contains(&nfp) && self.again.insert(nfp) {
                // Expanded already, sleeping on actions this way here may not cover.
                if !child_asleep.is_empty() {
                    self.asleep.insert(nfp, child_asleep);
                }
                queue.push(next, nfp, Tag::new(depth + 1, 0));
            }
        }
        built
    }
}
