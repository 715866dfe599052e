//! Dynamic footprints: what one action read and wrote of a state, recorded as it ran, so
//! that sleep sets can tell two actions apart as independent (`docs/model.md` §7).
//!
//! An action's footprint at a state is every access its transition made to the state's
//! top-level collections (`crate::coll::track`: which document, navigable, event loop's
//! queue, thread, promise, controller, pending map, body or ghost fact, or all of one of
//! them), every access its enabling condition makes ([`WebMcpModel::enabled_condition`]),
//! and, written by hand, the environment's budget the interventions and observations spend
//! (`State::env` is a plain struct, not a watched collection; only `machine.rs` touches it).
//!
//! Two actions enabled at `s` whose footprints there do not conflict (no write of one
//! touches what the other reads or writes; inserts of ghost facts into the set commute with
//! each other) commute at `s`: each reads at `s` and after the other the same values, so it
//! takes the same branches, is still enabled, and writes the same values to the same
//! places. This holds whatever the variant, revision or mutant, since the footprint is
//! observed rather than declared; `model/tests/footprint.rs` checks it at every state of
//! the suite by trying both orders.

use crate::coll::track::{self, Access, Key, Kind};
use crate::machine::{Action, WebMcpModel};
use crate::state::{ScriptStatus, State};
pub use webmcp_checker::footprint::Footprint;

/// The areas of a state: its top-level fields.
pub mod area {
    pub const DOCS: u32 = 0;
    pub const NAVS: u32 = 1;
    pub const QUEUES: u32 = 2;
    pub const THREADS: u32 = 3;
    pub const PROMISES: u32 = 4;
    pub const CONTROLLERS: u32 = 5;
    pub const PENDING: u32 = 6;
    pub const BODIES: u32 = 7;
    pub const GHOST: u32 = 8;
    /// The environment's interventions: their budget, and which are done.
    pub const ENV_INTERVENTIONS: u32 = 9;
    /// The environment's observation budget.
    pub const ENV_OBSERVATIONS: u32 = 10;
}

impl State {
    /// The watched collections of this state, by address, each with its area.
    pub(crate) fn areas(&self) -> [(*const (), u32); 9] {
        fn at<T>(x: &T) -> *const () {
            x as *const T as *const ()
        }
        [
            (at(&self.docs), area::DOCS),
            (at(&self.navs), area::NAVS),
            (at(&self.queues), area::QUEUES),
            (at(&self.threads), area::THREADS),
            (at(&self.promises), area::PROMISES),
            (at(&self.controllers), area::CONTROLLERS),
            (at(&self.pending), area::PENDING),
            (at(&self.bodies), area::BODIES),
            (at(&self.ghost), area::GHOST),
        ]
    }
}

impl State {
    /// What `f` returns at this state, with the parts of it `f` touched
    /// (`crate::state::parts` bits): every access to its top-level collections while `f`
    /// ran. `env` is not a collection, so reading it shows nowhere. `profiles/tests/reads.rs`
    /// holds each property's predicate to the parts it claims with it.
    pub fn parts_touched_by<R>(&self, f: impl FnOnce(&State) -> R) -> (R, u32) {
        track::start(&self.areas());
        let r = f(self);
        (r, track::finish().areas())
    }
}

impl WebMcpModel {
    /// Applies enabled action `a` to `s`, with its footprint there.
    pub fn apply_with_footprint(&self, s: &State, a: Action) -> (State, Footprint) {
        track::start(&s.areas());
        let enabled = self.enabled_condition(s, a);
        track::pause();
        debug_assert!(enabled, "{a:?} is not enabled");
        let next = self.apply_tracked(s, a);
        let budget = if matches!(a, Action::Observe(_)) {
            Some(area::ENV_OBSERVATIONS)
        } else if a.is_intervention() {
            Some(area::ENV_INTERVENTIONS)
        } else {
            None
        };
        if let Some(area) = budget {
            track::add(Access {
                area,
                key: Key::All,
                kind: Kind::Write,
            });
        }
        (next, track::finish())
    }

    /// Whether `a` is enabled in `s`, reading only what that decides (the condition
    /// [`WebMcpModel::enabled_actions`] applies to `a`; `model/tests/footprint.rs` checks
    /// that the two agree).
    pub fn enabled_condition(&self, s: &State, a: Action) -> bool {
        let w = &*self.world;
        let env = &s.env;
        match a {
            Action::RunScript(d) => {
                // A container's script starts before its iframes' scripts (it runs while the
                // container is parsed, before the iframe's document loads).
                let container_started =
                    w.navs[w.docs[d.index()].nav.index()]
                        .container
                        .is_none_or(|c| {
                            s.doc_field(c, crate::state::DocField::Script).script.status
                                != ScriptStatus::NotStarted
                        });
                s.doc_field(d, crate::state::DocField::Script).script.status
                    == ScriptStatus::NotStarted
                    && s.is_fully_active(d)
                    && container_started
            }
            // Enabled, it stops at the first runnable task: the head of the queue.
            Action::RunTask(agent) => s
                .queues
                .part(agent.index(), crate::state::queue_part::HEAD)
                .iter()
                .any(|t| s.is_fully_active(t.doc)),
            Action::Step(key) => s.threads.contains_key(&key),
            Action::SettleTool(uuid, outcome) => {
                w.env.outcomes.contains(&outcome)
                    && s.bodies.get(&uuid).is_some_and(|body| {
                        w.register_op(body.registered_by).body.is_none()
                            && !body.settled
                            && s.is_fully_active(body.target)
                    })
            }
            Action::Observe(t) => {
                env.observations_left > 0 && s.navs[w.tabs[t.index()].root.index()].active.is_some()
            }
            _ if env.interventions_left == 0 => false,
            Action::Abort(c) => {
                w.env.abort.contains(&c)
                    && !s.controllers[c.index()].aborted
                    && s.is_fully_active(w.controllers[c.index()].owner)
            }
            Action::RemoveIframe(n) => {
                w.env.remove_iframe.contains(&n)
                    && env.navs_done & (1 << n.index()) == 0
                    && s.navs[n.index()].attached
                    && w.navs[n.index()]
                        .container
                        .is_some_and(|c| s.is_fully_active(c))
            }
            Action::Navigate(n) => {
                w.env.navigate.contains(&n)
                    && env.navs_done & (1 << n.index()) == 0
                    && s.navs[n.index()].attached
                    && s.navs[n.index()]
                        .active
                        .is_some_and(|d| s.is_fully_active(d))
            }
            Action::EnterBfcache(t) => {
                w.env.bfcache.contains(&t)
                    && env.bfcache_phase(t) == 0
                    && s.navs[w.tabs[t.index()].root.index()]
                        .active
                        .is_some_and(|d| s.is_fully_active(d))
            }
            Action::RestoreFromBfcache(t) | Action::EvictFromBfcache(t) => {
                w.env.bfcache.contains(&t) && env.bfcache_phase(t) == 1
            }
        }
    }
}
