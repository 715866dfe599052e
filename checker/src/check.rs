//! One check: a model, its properties and the options, dispatched to the search that fits.

use std::time::Instant;

use crate::bfs::{Hooks, Order};
use crate::model::Model;
use crate::options::{Mode, Options, Progress};
use crate::property::Property;
use crate::result::Exploration;

/// Maps a state to the fingerprint of its class (symmetry reduction): the same for every
/// state of a class, and, as [`crate::fingerprint::fingerprint`] between states, different
/// between classes but for 64-bit collisions. `|s| fingerprint(&representative(s))` is one,
/// for any function that maps each state to one state of its class, the same for the whole
/// class.
pub type ClassFingerprint<'a, S> = &'a (dyn Fn(&S) -> u64 + Sync);

/// Called on every terminal state a search reaches.
pub type TerminalObserver<'a, S> = &'a mut dyn FnMut(&S);

/// A check being set up: what to explore, what to judge, how, and the optional hooks;
/// [`Checker::run`] runs it (see the crate's example).
pub struct Checker<'a, M: Model> {
    model: &'a M,
    properties: &'a [Property<M>],
    options: &'a Options,
    progress: Option<&'a mut dyn FnMut(Progress)>,
    class: Option<ClassFingerprint<'a, M::State>>,
    on_terminal: Option<TerminalObserver<'a, M::State>>,
}

impl<'a, M: Model + Sync> Checker<'a, M> {
    pub fn new(model: &'a M, properties: &'a [Property<M>], options: &'a Options) -> Self {
        Checker {
            model,
            properties,
            options,
            progress: None,
            class: None,
            on_terminal: None,
        }
    }

    /// Called with a snapshot every few hundred states (the parallel search: every 20 ms).
    pub fn progress(mut self, progress: &'a mut dyn FnMut(Progress)) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Symmetry reduction: states with the same class fingerprint are one state (classes
    /// are of states equal up to the symmetry the model has; [`ClassFingerprint`]). The state
    /// reached is the one expanded, so every path stays a real run. The breadth-first
    /// searches reduce (one thread or several); a depth-first check under symmetry runs on
    /// one thread.
    pub fn symmetry(mut self, class: ClassFingerprint<'a, M::State>) -> Self {
        self.class = Some(class);
        self
    }

    /// Called on every terminal state the search reaches (under simulation: where a walk
    /// ends for want of actions). The search then goes on after every property is decided,
    /// and runs on one thread.
    pub fn on_terminal(mut self, observe: TerminalObserver<'a, M::State>) -> Self {
        self.on_terminal = Some(observe);
        self
    }

    /// Runs the check.
    pub fn run(self) -> Exploration<M> {
        let start = Instant::now();
        let mut quiet = |_: Progress| {};
        let progress: &mut dyn FnMut(Progress) = match self.progress {
            Some(p) => p,
            None => &mut quiet,
        };
        let one_thread = self.options.threads <= 1
            || (self.class.is_some() && self.options.mode != Mode::Bfs)
            || self.on_terminal.is_some();
        let hooks = Hooks {
            progress,
            class: self.class,
            on_terminal: self.on_terminal.map(|f| f as &mut dyn FnMut(&M::State)),
        };
        let (model, props, options) = (self.model, self.properties, self.options);
        match options.mode {
            Mode::Bfs if one_thread => {
                crate::bfs::explore(model, props, options, Order::Fifo, start, hooks)
            }
            Mode::Dfs if one_thread => {
                crate::bfs::explore(model, props, options, Order::Lifo, start, hooks)
            }
            Mode::Bfs => crate::parallel_bfs::explore(
                model,
                props,
                options,
                start,
                hooks.progress,
                hooks.class,
            ),
            Mode::Dfs => crate::parallel_dfs::explore(model, props, options, start, hooks.progress),
            Mode::Sim { seed, runs } => crate::simulation::simulate(
                model,
                props,
                options,
                seed,
                runs,
                start,
                hooks.progress,
                hooks.on_terminal,
            ),
        }
    }
}
