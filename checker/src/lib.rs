//! # webmcp-checker
//!
//! An explicit-state model checking engine. It takes a model (a [`Model`]: initial states,
//! enabled actions, next state) and its properties (a list of named predicates over
//! (model, state), each with an [`Expectation`]) as parameters, explores the state graph, and
//! reports for each property the first path that shows its outcome, together with how much
//! was explored and, when a bound cut the search short, which one ([`StopReason`]). It knows
//! nothing of what the model describes.
//!
//! ## What is explored
//!
//! A **state** is a value of the model's state type; states that are equal are one node of
//! the graph, known by a 64-bit [`fingerprint`](fingerprint::fingerprint). The
//! **interleavings** are the model's actions and nothing else: from every state the engine
//! takes every action [`Model::actions`] lists, so every order in which the model's actors can
//! take their steps is explored, but what happens inside one action is one indivisible step.
//! A state with no enabled action is **terminal**. Depth counts the states of a path: the
//! initial states are depth 1.
//!
//! ## What is judged
//!
//! * [`Expectation::Always`]: the predicate holds in every reachable state; a state where it
//!   fails is a counterexample.
//! * [`Expectation::AtTermination`]: the predicate holds in every reachable terminal state.
//!   On an acyclic state graph every run ends in one, so this expresses "by the end, this
//!   has happened". The engine checks no other liveness: no fairness, no cycles.
//! * [`Expectation::Sometimes`]: the predicate holds in some reachable state (a witness).
//!
//! A property is decided by the first state that shows its outcome; an undecided property
//! is reported as holding (or as not witnessed) only when the search was exhaustive, and as
//! [`Verdict::Incomplete`] otherwise.
//!
//! A property may say which parts of a state its predicate reads ([`Reads`], numbered by
//! [`Model::unchanged_parts`]). The searches (breadth- and depth-first, on one thread or several)
//! then do not judge an always or sometimes property again at a state
//! that shares those parts, unchanged, with the state it was reached from: that state was
//! judged first, and the predicate, reading the same values, gives the same outcome there, so
//! every property is decided by the same first state. Simulation and the timely engine judge
//! every property at every state.
//!
//! ## The searches ([`Mode`], [`Options::threads`])
//!
//! * **Breadth-first on one thread** ([`bfs`]): a FIFO queue with parent pointers, first
//!   discovery wins, so every counterexample and witness is a *shortest* path. Its
//!   frontier holds values or, when the model gives a [`StateCodec`], bytes
//!   ([`FrontierStorage`]): a choice of time against memory that changes nothing else.
//! * **Depth-first on one thread** ([`bfs`] with a stack): the same search, a smaller
//!   frontier, paths that are not shortest.
//! * **Breadth-first on several threads** (`parallel_bfs`, `threads > 1`): level by level,
//!   a sharded visited set. The same states, counts and depth as one thread, shortest paths,
//!   and the same output whatever the thread count and schedule (where several states or
//!   parents tie, the least fingerprint wins). Its levels' chunks, too, hold values or bytes.
//! * **Depth-first on several threads** (`parallel_dfs`): each worker a depth-first search
//!   of its own over one visited set, a worker that runs out of states taking half of
//!   another's stack from a shared pool. Same verdicts and state counts, paths neither
//!   shortest nor stable from run to run.
//! * **Simulation** ([`simulation`]): seeded random walks; never exhaustive.
//!
//! The crate `webmcp-checker-timely` runs the level-by-level breadth-first search on timely
//! dataflow, over threads and processes, with the same rules and so the same output.
//!
//! Symmetry reduction is a parameter ([`Checker::symmetry`]): the caller supplies the
//! function that maps a state to its class's fingerprint ([`ClassFingerprint`]), e.g. the
//! fingerprint of a representative, or a hash computed without building one. The state reached is the
//! one expanded; on several threads the search keeps the least link into a class, which may
//! have been taken at another member than the one expanded, so each path is made a run at
//! the end (`path::realign`: at each step the action that leads into the link's class from
//! the state the replay reached). The two other reductions
//! ([`Reduction`]) ask the model: partial-order reduction for a set of actions that may go alone
//! ([`Model::persistent_set`]), sleep sets for what each action read and wrote
//! ([`Model::next_state_with_footprint`], compared as [`footprint::Footprint`]s).
//!
//! Three hooks change how states are stored, never which: a byte form for the frontier
//! ([`Model::codec`]); a per-worker pass over each state the parallel search takes
//! ([`Model::localizer`]), which a model whose states share storage uses to give each worker
//! its own copies of what many states share; and successors built as [`Draft`]s
//! ([`Model::draft`]), which may read their parent's storage without counting references to
//! it until the breadth-first searches keep the new ones.
//!
//! ## Where the time goes ([`phases`])
//!
//! [`Options::time_phases`] times the one-thread search phase by phase (the frontier, the
//! enabled actions, the properties, building successors, symmetry's class fingerprints,
//! fingerprints, the visited set, dropping states) and reports it in
//! [`Exploration::phases`], with the cost of the clock reads measured and subtracted. The
//! search is the same, state for state; without the option it is compiled without a clock
//! read.
//!
//! ## Measuring ([`bench`](mod@bench))
//!
//! What a benchmark reads of the process and the machine: CPU time and peak resident memory
//! so far, the CPU model and count, the hypervisor's steal, and the medians repeated runs are
//! summarised by. Which scenarios to run, in which configurations, and the tables they make
//! belong to a profile's benchmark above the engine (`webmcp_profiles::bench` for the
//! draft's).
//!
//! ## Bounds ([`limits`])
//!
//! A search stops early on a number of generated states, a depth, a wall-clock time, the
//! process's resident memory, or (simulation) its number of walks; the one-thread searches
//! ask time and memory at [`limits::Checkpoints`] (each state while states are slow). Every stop is named in
//! [`Exploration::stopped_by`], and a search that stopped is never reported as a pass.
//!
//! ## Using it
//!
//! ```
//! use webmcp_checker::{Checker, Expectation, Model, Options, Property, Reads, Verdict};
//!
//! /// A counter that may be incremented up to 3.
//! #[derive(Clone)]
//! struct Counter;
//! impl Model for Counter {
//!     type State = u8;
//!     type Action = ();
//!     fn init_states(&self) -> Vec<u8> { vec![0] }
//!     fn actions(&self, s: &u8, a: &mut Vec<()>) { if *s < 3 { a.push(()) } }
//!     fn next_state(&self, s: &u8, _: ()) -> Option<u8> { Some(s + 1) }
//! }
//! let properties = [Property::<Counter> {
//!     name: "reaches-two",
//!     expectation: Expectation::Sometimes,
//!     condition: |_, s| *s == 2,
//!     reads: Reads::Anything,
//! }];
//! let found = Checker::new(&Counter, &properties, &Options::default()).run();
//! assert!(found.exhaustive());
//! assert_eq!(found.discoveries[0].as_ref().unwrap().actions.len(), 2);
//! assert_eq!(
//!     Verdict::of(properties[0].expectation, true, found.exhaustive()),
//!     Verdict::Witnessed
//! );
//! ```

pub mod bench;
pub mod bfs;
mod check;
pub mod draft;
pub mod fingerprint;
pub mod footprint;
mod frontier;
pub mod input;
pub mod limits;
pub mod model;
pub mod options;
mod parallel_bfs;
mod parallel_dfs;
pub mod path;
pub mod phases;
pub mod pool;
pub mod property;
pub mod result;
pub mod simulation;
mod table;
mod visited;

pub use check::{Checker, ClassFingerprint, TerminalObserver};
pub use draft::{Draft, Inheritance, Lease, Parent};
pub use limits::StopReason;
pub use model::{prefetch, Localizer, Model, StateCodec};
pub use options::{FrontierStorage, Mode, Options, Progress, Reduction};
pub use path::Path;
pub use phases::{Phase, PhaseTimes};
pub use property::{Expectation, Property, Reads};
pub use result::{Exploration, Verdict};
