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

use serde::Serialize;
use webmcp_model::variant::FIXES;
use webmcp_model::{Variant, World};

use crate::form::BrowserForm;
use crate::judge::{allowed, required_coverage};
use crate::observation::BrowserRun;
use crate::run::{describe_statement, StatementRun, VariantVerdict};

/// What a run may be said to show.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
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
        if self.timed_out {
            return Verdict::Inconclusive {
                reason: format!(
                    "the pages did not settle within {} s",
                    self.page_timeout.as_secs()
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
            if self.proposed.allowed {
                return Verdict::Conforms {
                    draft_as_written: self.seed.allowed,
                };
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
                what: format!(
                    "the API used cannot express {}",
                    unsupported.join("; ")
                ),
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
