//! `--profile legacy`: list and check the legacy proposal's scenarios (`scenarios/legacy/`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use serde_json::json;
use webmcp_model::error::ScenarioError;
use webmcp_model::legacy::variant::LegacyVariantError;
use webmcp_model::legacy::{LegacyModel, LegacyVariant, LegacyWorld};
use webmcp_profiles::legacy::{check_legacy, LegacyOptions, LegacyResult};
use webmcp_profiles::{Kind, Verdict};

use crate::catalog::{UnknownExpectation, LEGACY_SCENARIOS};

/// Why a legacy command cannot run: each is a usage error (exit 2).
#[derive(Debug)]
pub enum LegacyError {
    /// An embedded scenario does not compile (a bug of the build).
    Embedded {
        stem: &'static str,
        source: ScenarioError,
    },
    /// `--scenario NAME` names no embedded legacy scenario.
    UnknownScenario { name: String },
    /// A `--scenario-file` cannot be read or does not compile.
    File {
        path: PathBuf,
        source: ScenarioError,
    },
    /// A `--scenario-file`'s `expect` names a property the legacy catalogue does not have.
    Expectation {
        path: PathBuf,
        source: UnknownExpectation,
    },
    /// A `--scenario-file`'s scenario has the name of one already given.
    NameTwice {
        name: String,
        first: String,
        second: PathBuf,
    },
    /// Neither `--all`, `--scenario` nor `--scenario-file`.
    NothingToCheck,
    /// `--variant` is not a legacy variant.
    Variant(LegacyVariantError),
}

impl std::fmt::Display for LegacyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LegacyError::Embedded { stem, source } => {
                write!(f, "embedded scenario legacy/{stem}.json: {source}")
            }
            LegacyError::UnknownScenario { name } => write!(
                f,
                "unknown legacy scenario \"{name}\" (webmcp-check list --profile legacy shows them)"
            ),
            LegacyError::File { path, source } => write!(f, "{}: {source}", path.display()),
            LegacyError::Expectation { path, source } => {
                write!(f, "{}: {source}", path.display())
            }
            LegacyError::NameTwice {
                name,
                first,
                second,
            } => f.write_str(&crate::one_name_twice(name, first, second).0),
            LegacyError::NothingToCheck => {
                f.write_str("nothing to check: give --all, --scenario NAME or --scenario-file PATH")
            }
            LegacyError::Variant(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LegacyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LegacyError::Embedded { source, .. } | LegacyError::File { source, .. } => Some(source),
            LegacyError::Expectation { source, .. } => Some(source),
            LegacyError::Variant(e) => Some(e),
            LegacyError::UnknownScenario { .. }
            | LegacyError::NameTwice { .. }
            | LegacyError::NothingToCheck => None,
        }
    }
}

impl From<LegacyVariantError> for LegacyError {
    fn from(e: LegacyVariantError) -> LegacyError {
        LegacyError::Variant(e)
    }
}

/// Every embedded legacy scenario, compiled.
pub fn all() -> Result<Vec<LegacyWorld>, LegacyError> {
    LEGACY_SCENARIOS
        .iter()
        .map(|(stem, text)| {
            LegacyWorld::from_json(text).map_err(|source| LegacyError::Embedded { stem, source })
        })
        .collect()
}

/// The embedded legacy scenario called `name`.
pub fn named(name: &str) -> Result<LegacyWorld, LegacyError> {
    match LEGACY_SCENARIOS.iter().find(|(stem, _)| *stem == name) {
        Some((stem, text)) => {
            LegacyWorld::from_json(text).map_err(|source| LegacyError::Embedded { stem, source })
        }
        None => Err(LegacyError::UnknownScenario {
            name: name.to_string(),
        }),
    }
}

pub fn list() -> Result<ExitCode, LegacyError> {
    let worlds = all()?;
    let rows: Vec<(&str, &str)> = worlds
        .iter()
        .map(|w| (w.name.as_str(), w.summary.as_str()))
        .collect();
    crate::stdout::names_and_summaries(&rows);
    Ok(ExitCode::SUCCESS)
}

/// What `check --profile legacy` takes from the command line.
pub struct CheckRequest<'a> {
    pub all: bool,
    pub scenarios: &'a [String],
    pub files: &'a [PathBuf],
    pub variant: Option<&'a str>,
    pub json: bool,
    pub verbose: bool,
    pub timings: bool,
    pub max_states: Option<usize>,
    pub max_depth: Option<usize>,
    pub timeout: Option<u64>,
    pub memory_limit_mib: u64,
    pub reduction: webmcp_profiles::Reduction,
}

/// The worlds a request names, in order: --all, then --scenario, then --scenario-file.
pub fn worlds(
    all_: bool,
    names: &[String],
    files: &[PathBuf],
) -> Result<Vec<LegacyWorld>, LegacyError> {
    let mut worlds = if all_ { all()? } else { Vec::new() };
    let mut sources: Vec<String> = worlds
        .iter()
        .map(|w| format!("scenarios/legacy/{}.json", w.name))
        .collect();
    // A scenario named twice is checked once (its counts and traces would be twice).
    for n in names {
        if !worlds.iter().any(|w| w.name == *n) {
            worlds.push(named(n)?);
            sources.push(format!("scenarios/legacy/{n}.json"));
        }
    }
    for path in files {
        let file = |source| LegacyError::File {
            path: path.clone(),
            source,
        };
        let text = webmcp_model::scenario::read_file(path).map_err(file)?;
        let world = LegacyWorld::from_json(&text).map_err(file)?;
        let names: Vec<&str> = webmcp_profiles::legacy::legacy_catalogue()
            .iter()
            .map(|p| p.name)
            .collect();
        crate::catalog::check_expectations(&world.expect, &names).map_err(|source| {
            LegacyError::Expectation {
                path: path.clone(),
                source,
            }
        })?;
        if let Some(i) = worlds.iter().position(|w| w.name == world.name) {
            return Err(LegacyError::NameTwice {
                name: world.name.clone(),
                first: sources[i].clone(),
                second: path.clone(),
            });
        }
        sources.push(path.display().to_string());
        worlds.push(world);
    }
    if worlds.is_empty() {
        return Err(LegacyError::NothingToCheck);
    }
    Ok(worlds)
}

pub fn check(req: &CheckRequest) -> Result<ExitCode, LegacyError> {
    let variant = LegacyVariant::parse(req.variant.unwrap_or("chosen"))?;
    let worlds = worlds(req.all, req.scenarios, req.files)?;
    let options = LegacyOptions {
        max_states: req.max_states,
        max_depth: req.max_depth,
        timeout: req.timeout.map(Duration::from_secs),
        memory_limit_mib: Some(req.memory_limit_mib),
        reduction: req.reduction,
    };
    let results: Vec<LegacyResult> = worlds
        .into_iter()
        .map(|w| check_legacy(&LegacyModel::new(w, variant), &options))
        .collect();
    if req.json {
        outln!("{}", json_report(&results, req.timings));
    } else {
        for r in &results {
            out!("{}", human(r, req.verbose, req.timings));
        }
        if !req.files.is_empty() {
            // The draft's `--vacuity` has no counterpart here: say what a hold may mean.
            out!(
                "note: a property holds vacuously where what it judges never happens; the legacy \
                 profile does not name such holds, but its witnesses not reachable say which \
                 behaviours a scenario never shows (docs/legacy.md).\n"
            );
        }
    }
    Ok(exit_code(&results))
}

/// 1 when a property is violated, else 3 when one is undecided or a bound stopped a
/// scenario, else 0.
pub fn exit_code(results: &[LegacyResult]) -> ExitCode {
    let any = |v: Verdict| {
        results
            .iter()
            .any(|r| r.properties.iter().any(|p| p.verdict == v))
    };
    if any(Verdict::Violated) {
        ExitCode::from(1)
    } else if any(Verdict::Incomplete) || results.iter().any(|r| !r.exhaustive) {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

/// Why a legacy scenario is not exhaustive, naming the bound; `None` when it is.
fn stop_text(r: &LegacyResult) -> Option<String> {
    webmcp_profiles::limits::why_incomplete(r.stopped_by.as_ref(), r.exhaustive, r.total_states)
}

pub fn human(r: &LegacyResult, verbose: bool, timings: bool) -> String {
    let reduced = r.reduction == webmcp_profiles::Reduction::Por;
    let reduction = match r.reduction {
        webmcp_profiles::Reduction::None => String::new(),
        other => format!(", reduction {}", other.name()),
    };
    let mut out = crate::output::run_header(
        &format!("{} [legacy {}{reduction}]", r.scenario, r.variant),
        (r.total_states, r.unique_states, r.max_depth),
        timings.then_some(r.seconds),
        stop_text(r).as_deref(),
    );
    out.push_str(&crate::output::fingerprint_note(r.unique_states));
    let (mut held, mut unwitnessed, mut undecided) = (0, 0, 0);
    for p in &r.properties {
        match p.verdict {
            Verdict::Holds => held += 1,
            Verdict::NotWitnessed => unwitnessed += 1,
            Verdict::Incomplete => undecided += 1,
            _ => {}
        }
        if !verbose && !matches!(p.verdict, Verdict::Violated | Verdict::Witnessed) {
            continue;
        }
        let label = match p.verdict {
            Verdict::Violated => "VIOLATED",
            v => v.as_str(),
        };
        out.push_str(&format!("  {:<13} {}", label, p.property.name));
        if let (Verdict::Violated, Some(path)) = (p.verdict, &p.path) {
            let last = path
                .last()
                .and_then(|s| s.steps.last())
                .copied()
                .unwrap_or("-");
            out.push_str(&format!(
                " ({}counterexample: {} actions, ending at {last})",
                if reduced { "" } else { "shortest " },
                path.len()
            ));
        }
        out.push('\n');
        if verbose && p.verdict == Verdict::Violated {
            for (i, s) in p.path.iter().flatten().enumerate() {
                out.push_str(&format!(
                    "      {}. {:?} [{}]\n",
                    i + 1,
                    s.action,
                    s.steps.join(", ")
                ));
            }
        }
    }
    if !verbose {
        out.push_str(&format!(
            "  {held} properties hold; {unwitnessed} witnesses not reachable in this scenario"
        ));
        if undecided > 0 {
            out.push_str(&format!("; {undecided} undecided (incomplete)"));
        }
        out.push('\n');
    }
    out
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Always => "always",
        Kind::AtTermination => "at-termination",
        Kind::Sometimes => "sometimes",
    }
}

pub fn json_report(results: &[LegacyResult], timings: bool) -> String {
    let scenarios: Vec<_> = results
        .iter()
        .map(|r| {
            let properties: Vec<_> = r
                .properties
                .iter()
                .map(|p| {
                    json!({
                        "name": p.property.name,
                        "kind": kind_name(p.property.kind),
                        "about": p.property.about,
                        "verdict": p.verdict.as_str(),
                        "counterexample": p.path.as_ref().filter(|_| p.verdict == Verdict::Violated).map(|path| path.iter().map(|s| json!({
                            "action": format!("{:?}", s.action),
                            "steps": s.steps,
                        })).collect::<Vec<_>>()),
                    })
                })
                .collect();
            let mut o = json!({
                "profile": "legacy",
                "scenario": r.scenario,
                "variant": r.variant,
                "reduction": r.reduction.name(),
                "unique_states": r.unique_states,
                "total_states": r.total_states,
                "max_depth": r.max_depth,
                "exhaustive": r.exhaustive,
                "stopped_by": r.stopped_by.as_ref().map(|s| s.to_json()),
                "fingerprint_collision_chance":
                    webmcp_checker::fingerprint::collision_chance(r.unique_states),
                "observations": r.observations.len(),
                "properties": properties,
            });
            if timings {
                o["seconds"] = json!(r.seconds);
            }
            o
        })
        .collect();
    serde_json::to_string_pretty(&json!({ "scenarios": scenarios })).expect("JSON values serialize")
}
