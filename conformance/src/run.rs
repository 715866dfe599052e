//! One conformance run: derive forms, run them in an implementation, judge
//! each observation under `seed` and `proposed`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use webmcp_browser::{run_pages_until, Chromium, Completion, Site};
use webmcp_model::scenario::Scenario;
use webmcp_model::{Variant, World};

use crate::form::{derive, BrowserForm};
use crate::judge::{allowed, judge, Difference};
use crate::observation::{from_reports, BrowserRun, Observation};
use crate::page::{add_pages, add_polyfill, Impl};

/// A page is finished when it has been quiet this long.
pub const QUIET: Duration = Duration::from_millis(1200);

pub struct Config {
    pub chromium: PathBuf,
    pub imp: Impl,
    /// The polyfill's `dist/index.iife.js` (for `Impl::Polyfill`).
    pub polyfill: Option<PathBuf>,
    pub page_timeout: Duration,
}

#[derive(Clone, Debug, Serialize)]
pub struct VariantVerdict {
    pub allowed: bool,
    /// Observations the model allows (distinct), and states explored.
    pub allowed_count: usize,
    pub states: usize,
    pub complete: bool,
    /// Against the closest allowed observation, when not allowed.
    pub differences: Vec<DiffRow>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DiffRow {
    pub key: String,
    pub observed: Option<String>,
    pub allowed: Option<String>,
}

impl From<Difference> for DiffRow {
    fn from(d: Difference) -> DiffRow {
        DiffRow {
            key: d.key,
            observed: d.observed,
            allowed: d.allowed,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ScenarioResult {
    pub scenario: String,
    pub implementation: String,
    pub timed_out: bool,
    pub api: Vec<String>,
    pub observation: Observation,
    /// Behaviour outside the draft (not judged).
    pub outside_draft: Vec<String>,
    pub seed: VariantVerdict,
    pub proposed: VariantVerdict,
}

impl ScenarioResult {
    pub fn conforms(&self) -> bool {
        !self.timed_out && (self.seed.allowed || self.proposed.allowed)
    }
}

/// The browser forms of `scenarios` (name, JSON text), or why each has none.
pub fn forms(
    scenarios: &[(&str, &str)],
) -> Result<(Vec<BrowserForm>, BTreeMap<String, String>), String> {
    let mut out = Vec::new();
    let mut skipped = BTreeMap::new();
    for (name, text) in scenarios {
        let sc: Scenario =
            serde_json::from_str(text).map_err(|e| format!("scenario {name}: {e}"))?;
        match derive(&sc) {
            Ok(f) => out.push(f),
            Err(why) => {
                skipped.insert(name.to_string(), why);
            }
        }
    }
    Ok((out, skipped))
}

pub fn verdict(form: &BrowserForm, observation: &Observation, variant: Variant) -> VariantVerdict {
    let world = World::compile(&form.judged).expect("derive compiled it");
    let a = allowed(&world, variant);
    let j = judge(observation, &a.observations);
    VariantVerdict {
        allowed: j.is_ok(),
        allowed_count: a.observations.len(),
        states: a.states,
        complete: a.complete,
        differences: j
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(DiffRow::from)
            .collect(),
    }
}

/// Runs every form in the configured implementation and judges it.
pub fn run(
    config: &Config,
    forms: &[BrowserForm],
    mut progress: impl FnMut(&ScenarioResult),
) -> Result<Vec<ScenarioResult>, String> {
    let mut chromium = Chromium::new(&config.chromium);
    let polyfill = match config.imp {
        Impl::Chromium => {
            chromium = chromium.with_flag("--enable-blink-features=WebMCP,WebMCPTesting");
            None
        }
        Impl::Polyfill => {
            let path = config
                .polyfill
                .as_ref()
                .ok_or("the polyfill implementation needs its IIFE build")?;
            Some(std::fs::read(path).map_err(|e| {
                format!(
                    "{}: {e} (run `npm ci` in browser/js, or pass --polyfill)",
                    path.display()
                )
            })?)
        }
    };
    let imp = config.imp;
    let outcomes = run_pages_until(
        &chromium,
        |origins| {
            let mut site = Site::new();
            if let Some(iife) = &polyfill {
                add_polyfill(&mut site, iife);
            }
            let visits = forms
                .iter()
                .map(|f| add_pages(&mut site, f, origins, imp, &f.scenario))
                .collect();
            (site, visits)
        },
        Completion::Quiet(QUIET),
        config.page_timeout,
        |_| {},
    )
    .map_err(|e| format!("{}: {e}", config.chromium.display()))?;
    let mut results = Vec::new();
    for (form, outcome) in forms.iter().zip(outcomes) {
        let BrowserRun {
            observation,
            api,
            notes,
        } = from_reports(form, &outcome.reports);
        let result = ScenarioResult {
            scenario: form.scenario.clone(),
            implementation: imp.name().into(),
            timed_out: outcome.timed_out(),
            api: api.into_iter().collect(),
            seed: verdict(form, &observation, Variant::SEED),
            proposed: verdict(form, &observation, Variant::proposed()),
            observation,
            outside_draft: notes.into_iter().collect(),
        };
        progress(&result);
        results.push(result);
    }
    Ok(results)
}
