//! A check's results as data: what `check --format json` writes, what every machine-format
//! renderer reads (`output.rs`), and what `merge` reads back from a shard's JSON. A counter-
//! example is kept as the JSON writes it (each action's text and its step IDs), so a result
//! read from a file renders exactly as the run that wrote it.

use serde::Deserialize;
use webmcp_model::steps::StepId;
use webmcp_profiles::limits::StopReason;
use webmcp_profiles::{properties, Kind, PropertyDef, ScenarioResult, Verdict};

/// One scenario's result.
#[derive(Clone, Debug)]
pub struct ScenarioRecord {
    pub scenario: String,
    pub variant: String,
    pub total_states: usize,
    pub unique_states: usize,
    pub max_depth: usize,
    /// Wall-clock seconds; 0 when the report was written without timings.
    pub seconds: f64,
    pub exhaustive: bool,
    pub stopped_by: Option<StopReason>,
    pub properties: Vec<PropertyRecord>,
    /// Where the search's time went (`check --phases`); not in a shard's report.
    pub phases: Option<webmcp_checker::PhaseTimes>,
}

/// One property's verdict in one scenario.
#[derive(Clone, Debug)]
pub struct PropertyRecord {
    pub def: &'static PropertyDef,
    pub verdict: Verdict,
    /// The shortest counterexample of a violated property.
    pub counterexample: Option<Vec<StepRecord>>,
}

/// One action of a counterexample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepRecord {
    /// The action as the model prints it (`RunTask(AgentId(0))`).
    pub action: String,
    pub steps: Vec<StepId>,
}

impl ScenarioRecord {
    pub fn of(r: &ScenarioResult) -> ScenarioRecord {
        let defs = properties();
        ScenarioRecord {
            scenario: r.scenario.clone(),
            variant: r.variant.clone(),
            total_states: r.total_states,
            unique_states: r.unique_states,
            max_depth: r.max_depth,
            seconds: r.seconds,
            exhaustive: r.exhaustive,
            stopped_by: r.stopped_by.clone(),
            phases: r.phases.clone(),
            properties: r
                .properties
                .iter()
                .map(|p| PropertyRecord {
                    def: defs
                        .iter()
                        .find(|d| d.name == p.def.name)
                        .expect("a result's property is in the catalogue"),
                    verdict: p.verdict,
                    counterexample: p
                        .path
                        .as_ref()
                        .filter(|_| p.verdict == Verdict::Violated)
                        .map(|path| {
                            path.iter()
                                .map(|s| StepRecord {
                                    action: format!("{:?}", s.action),
                                    steps: s.steps.clone(),
                                })
                                .collect()
                        }),
                })
                .collect(),
        }
    }

    pub fn violations(&self) -> impl Iterator<Item = &PropertyRecord> {
        self.properties
            .iter()
            .filter(|p| p.verdict == Verdict::Violated)
    }

    /// Why the exploration is not exhaustive, naming the bound; `None` when it is.
    pub fn why_incomplete(&self) -> Option<String> {
        webmcp_profiles::limits::why_incomplete(
            self.stopped_by.as_ref(),
            self.exhaustive,
            self.total_states,
        )
    }
}

pub fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Always => "always",
        Kind::AtTermination => "at-termination",
        Kind::Sometimes => "sometimes",
    }
}

/// Why a scenario of a JSON report could not be read back.
#[derive(Debug, PartialEq, Eq)]
pub enum RecordError {
    UnknownProperty(String),
    /// The property is known, but its kind or steps differ: another version wrote it.
    OtherCatalogue(String),
    UnknownVerdict(String),
    UnknownStep(String),
    UnknownStop(String),
    BadText(&'static str),
    /// Counts, flags or verdicts that no run writes together: why, in a sentence.
    Inconsistent(String),
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let quoted = |s: &str| webmcp_traces::limits::one_line(s, 80);
        match self {
            RecordError::UnknownProperty(p) => write!(f, "unknown property '{}'", quoted(p)),
            RecordError::OtherCatalogue(p) => write!(
                f,
                "property '{}' differs from this build's catalogue (a report of another version?)",
                quoted(p)
            ),
            RecordError::UnknownVerdict(v) => write!(f, "unknown verdict '{}'", quoted(v)),
            RecordError::UnknownStep(s) => write!(f, "unknown step ID '{}'", quoted(s)),
            RecordError::UnknownStop(s) => write!(f, "unreadable stopped_by ({})", quoted(s)),
            RecordError::Inconsistent(why) => write!(f, "{why}"),
            RecordError::BadText(field) => write!(
                f,
                "{field} is empty, longer than {MAX_TEXT_CHARS} characters or holds a control character"
            ),
        }
    }
}

/// The longest name, variant or action text read back (in characters).
pub const MAX_TEXT_CHARS: usize = 1000;

/// A scenario as `check --format json` writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioJson {
    scenario: String,
    variant: String,
    unique_states: usize,
    total_states: usize,
    max_depth: usize,
    exhaustive: bool,
    stopped_by: Option<serde_json::Value>,
    seconds: Option<f64>,
    /// Derived from `unique_states`, and derived again when the report is written.
    #[serde(rename = "fingerprint_collision_chance")]
    _fingerprint_collision_chance: Option<serde::de::IgnoredAny>,
    properties: Vec<PropertyJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PropertyJson {
    name: String,
    kind: String,
    about: Vec<String>,
    verdict: String,
    counterexample: Option<Vec<StepJson>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepJson {
    action: String,
    steps: Vec<String>,
}

fn plain_text(s: &str, field: &'static str) -> Result<(), RecordError> {
    if s.is_empty() || s.chars().count() > MAX_TEXT_CHARS || s.chars().any(char::is_control) {
        Err(RecordError::BadText(field))
    } else {
        Ok(())
    }
}

fn verdict_named(name: &str) -> Option<Verdict> {
    [
        Verdict::Holds,
        Verdict::Violated,
        Verdict::Witnessed,
        Verdict::NotWitnessed,
        Verdict::Incomplete,
    ]
    .into_iter()
    .find(|v| v.as_str() == name)
}

impl ScenarioJson {
    pub fn seconds(&self) -> Option<f64> {
        self.seconds
    }

    pub fn name(&self) -> &str {
        &self.scenario
    }

    /// The record, every name checked against this build's catalogue and step table.
    pub fn into_record(self) -> Result<ScenarioRecord, RecordError> {
        plain_text(&self.scenario, "a scenario name")?;
        plain_text(&self.variant, "a variant")?;
        let stopped_by = match self.stopped_by {
            None => None,
            Some(v) => Some(
                StopReason::from_json(&v).ok_or_else(|| RecordError::UnknownStop(v.to_string()))?,
            ),
        };
        let inconsistent = |why: String| {
            Err(RecordError::Inconsistent(format!(
                "{why}, which no check writes"
            )))
        };
        if self.unique_states > self.total_states {
            return inconsistent(format!(
                "{} unique states of {} generated",
                self.unique_states, self.total_states
            ));
        }
        // A search stops exhaustive or named by what stopped it, never both nor neither;
        // and one that is exhaustive saw at least its initial state.
        match (self.exhaustive, &stopped_by) {
            (true, Some(_)) => return inconsistent("exhaustive, yet stopped by a bound".into()),
            (false, None) => {
                return inconsistent("not exhaustive, and nothing named that stopped it".into())
            }
            (true, None) if self.unique_states == 0 => {
                return inconsistent("exhaustive over no state".into())
            }
            _ => {}
        }
        // The initial state is at depth 1: an exhaustive search expanded it, and no search
        // goes deeper than the states it generated (one stopped before expanding anything
        // reports depth 0).
        if (self.exhaustive && self.max_depth == 0)
            || (self.unique_states == 0 && self.max_depth > 0)
            || self.max_depth > self.total_states
        {
            return inconsistent(format!(
                "a depth of {} over {} unique states of {} generated",
                self.max_depth, self.unique_states, self.total_states
            ));
        }
        if let Some(seconds) = self.seconds.filter(|s| !(s.is_finite() && *s >= 0.0)) {
            return inconsistent(format!("a time of {seconds} s"));
        }
        let mut properties = Vec::with_capacity(self.properties.len());
        for p in self.properties {
            let def = properties_named(&p.name)?;
            if p.kind != kind_name(def.kind) || p.about != def.about {
                return Err(RecordError::OtherCatalogue(p.name));
            }
            let verdict =
                verdict_named(&p.verdict).ok_or(RecordError::UnknownVerdict(p.verdict))?;
            // `Verdict::of`: a property holds (or is not witnessed) only where the search was
            // exhaustive, is undecided only where it was not, and has a path only if found.
            let found = matches!(verdict, Verdict::Violated | Verdict::Witnessed);
            let decided_by_exhausting = matches!(verdict, Verdict::Holds | Verdict::NotWitnessed);
            // A sometimes property is witnessed or not, the others hold or are violated.
            let fits_kind = verdict == Verdict::Incomplete
                || matches!(verdict, Verdict::Witnessed | Verdict::NotWitnessed)
                    == (def.kind == Kind::Sometimes);
            let why = if !fits_kind {
                Some(match def.kind {
                    Kind::Sometimes => "for a sometimes property (witnessed or not)",
                    Kind::Always | Kind::AtTermination => {
                        "for a property that holds or is violated"
                    }
                })
            } else if decided_by_exhausting && !self.exhaustive {
                Some("from a search that was not exhaustive")
            } else if verdict == Verdict::Incomplete && self.exhaustive {
                Some("from an exhaustive search")
            } else if p.counterexample.is_some() && !found {
                Some("with a path to a state that shows it")
            } else {
                None
            };
            if let Some(why) = why {
                return inconsistent(format!(
                    "property '{}' is \"{}\" {why}",
                    webmcp_traces::limits::one_line(&p.name, 80),
                    verdict.as_str()
                ));
            }
            let counterexample = match p.counterexample {
                None => None,
                Some(path) => Some(
                    path.into_iter()
                        .map(|s| {
                            plain_text(&s.action, "an action")?;
                            let steps = s
                                .steps
                                .iter()
                                .map(|id| {
                                    StepId::parse(id)
                                        .ok_or_else(|| RecordError::UnknownStep(id.clone()))
                                })
                                .collect::<Result<_, _>>()?;
                            Ok(StepRecord {
                                action: s.action,
                                steps,
                            })
                        })
                        .collect::<Result<Vec<_>, RecordError>>()?,
                ),
            };
            properties.push(PropertyRecord {
                def,
                verdict,
                counterexample,
            });
        }
        Ok(ScenarioRecord {
            scenario: self.scenario,
            variant: self.variant,
            total_states: self.total_states,
            unique_states: self.unique_states,
            max_depth: self.max_depth,
            seconds: self.seconds.unwrap_or(0.0),
            exhaustive: self.exhaustive,
            stopped_by,
            properties,
            phases: None,
        })
    }
}

pub(crate) fn properties_named(name: &str) -> Result<&'static PropertyDef, RecordError> {
    properties()
        .iter()
        .find(|d| d.name == name)
        .ok_or_else(|| RecordError::UnknownProperty(name.to_string()))
}
