//! The verdict on one browser run: what ran, what the model allows, and what the
//! observation may therefore be said to show.
//!
//! A run *conforms* only when its observation is allowed and it ran everything the
//! observation depends on: every statement that runs in each outcome the model allows
//! without the scenario's interventions, and (where every such outcome invokes a tool
//! body) a tool body before the interventions landed. An allowed observation of a run
//! that skipped one of those is *inconclusive*: the empty observation of a page whose
//! script never got going is allowed too, and shows nothing.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use webmcp_model::variant::FIXES;
use webmcp_model::{Variant, World};

use crate::form::BrowserForm;
use crate::judge::{allowed, required_coverage};
use crate::observation::BrowserRun;
use crate::run::{describe_statement, StatementRun, VariantVerdict};

/// What a run may be said to show.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Verdict {
    /// Allowed by the intended behaviour (`proposed`); `draft_as_written` says whether
    /// the draft's text (`seed`) allows it too.
    Conforms { draft_as_written: bool },
    /// Allowed by the draft as written but not by `proposed`: the implementation agrees
    /// with a defect of the text. `fixes`: each fix that alone rules the observation out
    /// (empty: only their combination does).
    ConformsOnlyUnderSeed { fixes: Vec<String> },
    /// Allowed by neither.
    Diverges,
    /// The run cannot be judged: why.
    Inconclusive { reason: String },
    /// The implementation lacks what the scenario calls: what.
    NotImplemented { what: String },
}

impl Verdict {
    /// The verdict's name, as the outputs print it.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Conforms { .. } => "conforms",
            Verdict::ConformsOnlyUnderSeed { .. } => "conforms-only-under-seed",
            Verdict::Diverges => "diverges",
            Verdict::Inconclusive { .. } => "inconclusive",
            Verdict::NotImplemented { .. } => "not-implemented",
        }
    }

    /// Every verdict name, in the order the summaries count them.
    pub const NAMES: [&'static str; 5] = [
        "conforms",
        "conforms-only-under-seed",
        "diverges",
        "inconclusive",
        "not-implemented",
    ];

    /// The verdict's detail in a sentence (empty for a plain conforms).
    pub fn detail(&self) -> String {
        match self {
            Verdict::Conforms {
                draft_as_written: true,
            } => String::new(),
            Verdict::Conforms {
                draft_as_written: false,
            } => "as intended; the draft as written does not allow it".into(),
            Verdict::ConformsOnlyUnderSeed { fixes } if fixes.is_empty() => {
                "allowed by the draft as written; the fixes together rule it out".into()
            }
            Verdict::ConformsOnlyUnderSeed { fixes } => format!(
                "allowed by the draft as written; ruled out by the fix{} {}",
                if fixes.len() == 1 { "" } else { "es" },
                fixes.join(", ")
            ),
            Verdict::Diverges => String::new(),
            Verdict::Inconclusive { reason } => reason.clone(),
            Verdict::NotImplemented { what } => what.clone(),
        }
    }
}

/// A run with the model's verdicts on its observation, ready to classify.
pub struct Judged<'a> {
    pub form: &'a BrowserForm,
    pub run: &'a BrowserRun,
    pub timed_out: bool,
    pub page_timeout: Duration,
    /// Reports the collector refused (too large, not JSON, past the run's budget).
    pub refused: usize,
    /// The page reported nothing in any of its browsers (each one's log is on standard
    /// error): it timed out, or every browser ended first.
    pub silent: bool,
    pub seed: &'a VariantVerdict,
    pub proposed: &'a VariantVerdict,
}

impl Judged<'_> {
    /// The verdict, and every statement with whether it ran and is required (under the
    /// variant that allowed the observation; `proposed` otherwise).
    pub fn classify(&self) -> (Verdict, Vec<StatementRun>) {
        let world = World::compile(&self.form.judged).expect("derive compiled it");
        let coverage_variant = if !self.proposed.allowed && self.seed.allowed {
            Variant::SEED
        } else {
            Variant::proposed()
        };
        let coverage = required_coverage(&world, coverage_variant);
        let statements: Vec<StatementRun> = self
            .form
            .docs
            .iter()
            .flat_map(|d| {
                d.statements.iter().enumerate().map(|(i, st)| {
                    let key = (d.name.clone(), i);
                    StatementRun {
                        doc: d.name.clone(),
                        index: i,
                        statement: describe_statement(st),
                        ran: self.run.ran.contains(&key),
                        required: coverage.statements.contains(&key),
                    }
                })
            })
            .collect();
        (self.verdict(&world, &coverage, &statements), statements)
    }

    fn verdict(
        &self,
        world: &World,
        coverage: &crate::judge::Coverage,
        statements: &[StatementRun],
    ) -> Verdict {
        if self.timed_out && self.silent {
            return Verdict::Inconclusive {
                reason: format!(
                    "the page reported nothing in any of its {} browsers (each ended or waited its timeout; their logs are on standard error)",
                    webmcp_browser::LAUNCHES
                ),
            };
        }
        if self.timed_out {
            return Verdict::Inconclusive {
                reason: format!(
                    "the pages did not settle within {} s",
                    self.page_timeout.as_secs()
                ),
            };
        }
        if self.refused > 0 {
            return Verdict::Inconclusive {
                reason: format!(
                    "the collector refused {} of the page's reports (larger than {} MiB, not JSON, or past {} MiB for the run): what they said is missing",
                    self.refused,
                    webmcp_browser::server::MAX_BODY >> 20,
                    webmcp_browser::server::MAX_RUN_REPORT_BYTES >> 20
                ),
            };
        }
        if self.run.api.is_empty() || self.run.api.contains("none") {
            let found = self
                .run
                .surfaces
                .iter()
                .cloned()
                .collect::<Vec<_>>()
                .join("; ");
            return Verdict::NotImplemented {
                what: format!(
                    "the API the run asked for is not there (found: {})",
                    if found.is_empty() { "nothing" } else { &found }
                ),
            };
        }
        if self.seed.allowed || self.proposed.allowed {
            if let Some(reason) = self.not_shown(coverage, statements) {
                return Verdict::Inconclusive { reason };
            }
            // What one variant does not allow is known only where its exploration was
            // complete: a verdict that says so must not rest on a search a bound stopped.
            let undecided = |variant: &str, v: &VariantVerdict| {
                Verdict::Inconclusive {
                reason: format!(
                    "allowed by {}; whether {variant} allows it is undecided: its exploration stopped at {} states",
                    if variant == "seed" { "proposed" } else { "the draft as written (seed)" },
                    v.states
                ),
            }
            };
            if self.proposed.allowed {
                if !self.seed.allowed && !self.seed.complete {
                    return undecided("seed", self.seed);
                }
                return Verdict::Conforms {
                    draft_as_written: self.seed.allowed,
                };
            }
            if !self.proposed.complete {
                return undecided("proposed", self.proposed);
            }
            return Verdict::ConformsOnlyUnderSeed {
                fixes: disagreeing_fixes(world, &self.run.observation),
            };
        }
        let unsupported: Vec<String> = self
            .run
            .observation
            .iter()
            .filter_map(|(k, v)| v.strip_prefix("unsupported ").map(|w| format!("{k}: {w}")))
            .collect();
        if !unsupported.is_empty() {
            return Verdict::NotImplemented {
                what: format!("the API used cannot express {}", unsupported.join("; ")),
            };
        }
        if !self.seed.complete || !self.proposed.complete {
            return Verdict::Inconclusive {
                reason: format!(
                    "not among the observations found, and the model's exploration stopped at {} states",
                    crate::judge::STATE_LIMIT
                ),
            };
        }
        Verdict::Diverges
    }

    /// Why an allowed observation does not show the scenario's behaviour, if it does not.
    fn not_shown(
        &self,
        coverage: &crate::judge::Coverage,
        statements: &[StatementRun],
    ) -> Option<String> {
        if !coverage.complete {
            return Some(format!(
                "the model's exploration of the intervention-free runs stopped at {} states",
                crate::judge::STATE_LIMIT
            ));
        }
        let skipped: Vec<String> = statements
            .iter()
            .filter(|s| s.required && !s.ran)
            .map(|s| format!("{}#{} ({})", s.doc, s.index, s.statement))
            .collect();
        if !skipped.is_empty() {
            return Some(format!(
                "statement{} {} did not run",
                if skipped.len() == 1 { "" } else { "s" },
                skipped.join(", ")
            ));
        }
        let has_interventions = self
            .form
            .docs
            .iter()
            .any(|d| !d.abort.is_empty() || !d.remove_iframe.is_empty());
        let early = self
            .run
            .intervened
            .iter()
            .find(|(_, when)| when.starts_with("by the fallback"));
        if has_interventions && coverage.body_always_invoked {
            if let Some((doc, _)) = early {
                return Some(format!(
                    "{doc}'s interventions landed by the fallback timer, before any tool body was invoked"
                ));
            }
        }
        None
    }
}

/// The fixes of `proposed` that each, alone on the draft as written, rule `observation` out.
fn disagreeing_fixes(world: &World, observation: &crate::observation::Observation) -> Vec<String> {
    FIXES
        .iter()
        .filter(|fix| {
            let alone = allowed(world, Variant::SEED.with(fix, true));
            alone.complete && !alone.observations.contains(observation)
        })
        .map(|fix| fix.name.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::derive;
    use crate::judge::allowed;
    use crate::observation::Observation;
    use crate::run::verdict;

    fn form(name: &str) -> BrowserForm {
        let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
        derive(&serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()).unwrap()
    }

    fn every_statement(form: &BrowserForm) -> std::collections::BTreeSet<(String, usize)> {
        form.docs
            .iter()
            .flat_map(|d| (0..d.statements.len()).map(move |i| (d.name.clone(), i)))
            .collect()
    }

    /// A run that settled in time with every report kept, judged by `seed` and `proposed`.
    fn judged<'a>(
        form: &'a BrowserForm,
        run: &'a BrowserRun,
        seed: &'a VariantVerdict,
        proposed: &'a VariantVerdict,
    ) -> Judged<'a> {
        Judged {
            form,
            run,
            timed_out: false,
            page_timeout: Duration::from_secs(15),
            refused: 0,
            silent: false,
            seed,
            proposed,
        }
    }

    /// Classifies `observation` as if every statement in `ran` started.
    fn classify(
        form: &BrowserForm,
        observation: Observation,
        ran: std::collections::BTreeSet<(String, usize)>,
        intervened: &[(&str, &str)],
    ) -> (Verdict, Vec<StatementRun>) {
        let run = BrowserRun {
            observation,
            api: ["document.modelContext".to_string()].into(),
            ran,
            intervened: intervened
                .iter()
                .map(|(d, w)| (d.to_string(), w.to_string()))
                .collect(),
            ..BrowserRun::default()
        };
        let seed = verdict(form, &run.observation, Variant::SEED);
        let proposed = verdict(form, &run.observation, Variant::proposed());
        judged(form, &run, &seed, &proposed).classify()
    }

    fn some_allowed(
        form: &BrowserForm,
        variant: Variant,
        pick: impl Fn(&Observation) -> bool,
    ) -> Observation {
        let world = World::compile(&form.judged).unwrap();
        allowed(&world, variant)
            .observations
            .into_iter()
            .find(pick)
            .expect("the model allows such an observation")
    }

    #[test]
    fn an_allowed_observation_of_a_run_that_skipped_a_required_statement_is_inconclusive() {
        // Chromium 148's shape of this: the child waited for a toolchange that never came,
        // the fallback removed it, and the parent's empty observation is allowed.
        let f = form("caller-unloaded-mid-execution");
        let o = some_allowed(&f, Variant::proposed(), |o| {
            o.get("top: iframe frame").is_some_and(|v| v == "removed")
        });
        let only_top: std::collections::BTreeSet<_> = [("top".to_string(), 0)].into();
        let (v, statements) = classify(
            &f,
            o.clone(),
            only_top,
            &[("top", "by the fallback timer, no tool body invoked")],
        );
        let Verdict::Inconclusive { reason } = v else {
            panic!("{v:?}")
        };
        assert!(
            reason.contains("child#3 (executeTool t1 as exec) did not run"),
            "{reason}"
        );
        assert!(statements.iter().filter(|s| s.required && !s.ran).count() >= 3);
        // The same observation with every statement run conforms.
        let (v, _) = classify(
            &f,
            o,
            every_statement(&f),
            &[("top", "after a tool body was invoked")],
        );
        assert!(matches!(v, Verdict::Conforms { .. }), "{v:?}");
    }

    #[test]
    fn interventions_by_the_fallback_timer_leave_a_body_scenario_inconclusive() {
        let f = form("target-unloaded-mid-execution");
        let o = some_allowed(&f, Variant::proposed(), |_| true);
        let (v, _) = classify(
            &f,
            o.clone(),
            every_statement(&f),
            &[("top", "by the fallback timer, no tool body invoked")],
        );
        assert!(
            matches!(&v, Verdict::Inconclusive { reason } if reason.contains("fallback")),
            "{v:?}"
        );
    }

    #[test]
    fn what_only_the_draft_as_written_allows_names_the_fix_that_rules_it_out() {
        // The tool may run although the caller aborted first (the race of
        // cancel-pending-execution#2 with execute-tool#16.12).
        let f = form("abort-before-dispatch");
        let world = World::compile(&f.judged).unwrap();
        let intended = allowed(&world, Variant::proposed()).observations;
        let o = some_allowed(&f, Variant::SEED, |o| !intended.contains(o));
        let (v, _) = classify(&f, o, every_statement(&f), &[]);
        let Verdict::ConformsOnlyUnderSeed { fixes } = v else {
            panic!("{v:?}")
        };
        assert!(!fixes.is_empty(), "{fixes:?}");
        assert!(
            fixes
                .iter()
                .all(|n| webmcp_model::variant::FIXES.iter().any(|f| f.name == n)),
            "{fixes:?}"
        );
    }

    #[test]
    fn no_api_is_not_implemented_and_an_unsupported_call_too() {
        let f = form("register-and-discover");
        let o = some_allowed(&f, Variant::proposed(), |_| true);
        let run = BrowserRun {
            observation: o.clone(),
            api: ["none".to_string()].into(),
            surfaces: ["navigator.modelContext (registerTool)".to_string()].into(),
            ..BrowserRun::default()
        };
        let seed = verdict(&f, &run.observation, Variant::SEED);
        let proposed = verdict(&f, &run.observation, Variant::proposed());
        let (v, _) = judged(&f, &run, &seed, &proposed).classify();
        assert!(
            matches!(&v, Verdict::NotImplemented { what } if what.contains("navigator.modelContext")),
            "{v:?}"
        );
        let mut unsupported = o;
        let call = unsupported
            .keys()
            .find(|k| k.contains(": call "))
            .unwrap()
            .clone();
        unsupported.insert(call, "unsupported getTools fromOrigins".into());
        let (v, _) = classify(&f, unsupported, every_statement(&f), &[]);
        assert!(matches!(v, Verdict::NotImplemented { .. }), "{v:?}");
    }

    /// A run of `f` in the draft's API, every statement run, that `proposed` allows.
    fn allowed_run(f: &BrowserForm) -> BrowserRun {
        BrowserRun {
            observation: some_allowed(f, Variant::proposed(), |_| true),
            api: ["document.modelContext".to_string()].into(),
            ran: every_statement(f),
            ..BrowserRun::default()
        }
    }

    /// "The draft as written does not allow it" and "ruled out by the fixes" are claims about
    /// a whole exploration: where that exploration stopped at its bound, the run is
    /// inconclusive, not labelled with what was not shown.
    #[test]
    fn a_variant_whose_exploration_stopped_decides_nothing_it_did_not_allow() {
        let f = form("register-and-discover");
        let run = allowed_run(&f);
        let allowed = verdict(&f, &run.observation, Variant::proposed());
        assert!(allowed.allowed && allowed.complete);
        let stopped = VariantVerdict {
            allowed: false,
            complete: false,
            ..allowed.clone()
        };
        let judge = |seed: &VariantVerdict, proposed: &VariantVerdict| {
            judged(&f, &run, seed, proposed).classify().0
        };
        let seed_stopped = judge(&stopped, &allowed);
        assert!(
            matches!(&seed_stopped, Verdict::Inconclusive { reason } if reason.contains("whether seed allows it is undecided")),
            "{seed_stopped:?}"
        );
        let proposed_stopped = judge(&allowed, &stopped);
        assert!(
            matches!(&proposed_stopped, Verdict::Inconclusive { reason } if reason.contains("whether proposed allows it is undecided")),
            "{proposed_stopped:?}"
        );
        assert_eq!(
            judge(&allowed, &allowed),
            Verdict::Conforms {
                draft_as_written: true
            }
        );
    }

    #[test]
    fn a_timed_out_run_is_inconclusive_whatever_it_observed() {
        let f = form("register-and-discover");
        let run = allowed_run(&f);
        let seed = verdict(&f, &run.observation, Variant::SEED);
        let proposed = verdict(&f, &run.observation, Variant::proposed());
        let (v, _) = Judged {
            timed_out: true,
            ..judged(&f, &run, &seed, &proposed)
        }
        .classify();
        assert!(matches!(v, Verdict::Inconclusive { .. }), "{v:?}");
        // A refused report is as bad: what it said is missing from the observation.
        let (v, _) = Judged {
            refused: 1,
            ..judged(&f, &run, &seed, &proposed)
        }
        .classify();
        assert!(
            matches!(&v, Verdict::Inconclusive { reason } if reason.contains("refused 1")),
            "{v:?}"
        );
    }

    #[test]
    fn an_observation_nobody_allows_diverges() {
        let f = form("register-and-discover");
        let mut o = some_allowed(&f, Variant::proposed(), |_| true);
        o.insert("top: script".into(), "threw at 0".into());
        let (v, _) = classify(&f, o, every_statement(&f), &[]);
        assert_eq!(v, Verdict::Diverges);
    }
}
