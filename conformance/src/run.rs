//! One conformance run: derive forms, run them in an implementation, judge
//! each observation under `seed` and `proposed`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};
use webmcp_browser::{run_pages_until, Chromium, Completion, Site};
use webmcp_model::scenario::Scenario;
use webmcp_model::{Variant, World};

use crate::error::ConformanceError;
use crate::form::{derive, BrowserForm};
use crate::judge::{allowed, judge, reaches_body, Difference};
use crate::observation::{from_reports, BrowserRun, Observation};
use crate::page::{add_pages, add_polyfill, Api, Impl};
use crate::verdict::{Judged, Verdict};

/// A page is finished when it has been quiet this long.
pub const QUIET: Duration = Duration::from_millis(1200);

pub struct Config {
    pub chromium: PathBuf,
    pub imp: Impl,
    /// Which API the pages call: the draft's, or (explicitly) a testing interface.
    pub api: Api,
    /// The polyfill's `dist/index.iife.js` (for `Impl::Polyfill`).
    pub polyfill: Option<PathBuf>,
    pub page_timeout: Duration,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantVerdict {
    pub allowed: bool,
    /// Observations the model allows (distinct), and states explored.
    pub allowed_count: usize,
    pub states: usize,
    pub complete: bool,
    /// Against the closest allowed observation, when not allowed.
    pub differences: Vec<DiffRow>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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

/// One statement of the browser form, and whether the run started it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct StatementRun {
    pub doc: String,
    pub index: usize,
    /// The statement in a few words (`executeTool t1 as exec`).
    pub statement: String,
    pub ran: bool,
    /// Whether it runs in every outcome the model allows without the scenario's
    /// interventions (an observation that skipped it does not show the behaviour).
    pub required: bool,
}

/// One scenario's run in one implementation. It is read back (`Deserialize`) only by `merge`,
/// from a shard's JSON report: untrusted input, so unknown fields are refused.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioResult {
    pub scenario: String,
    pub implementation: String,
    /// The browser's version line (`Chromium 156.0.8078.114 built on ...`).
    pub browser: String,
    /// The API the run was told to use (`draft` or `testing`).
    #[serde(deserialize_with = "api_name")]
    pub api_requested: String,
    /// The API the pages used, as they reported it (`none`: not there).
    pub api: Vec<String>,
    /// Every surface the pages found, used or not.
    pub surfaces: Vec<String>,
    pub timed_out: bool,
    /// Wall time of the page run, in milliseconds; none under `--no-timings`, so that the
    /// same observations give the same report byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<u64>,
    pub statements: Vec<StatementRun>,
    /// Document -> when its interventions landed.
    pub intervened: BTreeMap<String, String>,
    pub observation: Observation,
    /// Behaviour outside the draft (not judged).
    pub outside_draft: Vec<String>,
    pub seed: VariantVerdict,
    pub proposed: VariantVerdict,
    pub verdict: Verdict,
    /// Whether some outcome `proposed` allows invokes a tool body, or why none does.
    pub model_reaches_body: Result<(), String>,
}

/// An API's name as a report writes it, read back as the name of an [`Api`].
fn api_name<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let name = String::deserialize(d)?;
    if [Api::Draft, Api::Testing].iter().any(|a| a.name() == name) {
        Ok(name)
    } else {
        Err(serde::de::Error::custom(
            "api_requested is neither draft nor testing",
        ))
    }
}

impl ScenarioResult {
    /// The browser's major version (`156`), if its version line names one.
    pub fn browser_major(&self) -> Option<&str> {
        let rest = self.browser.split_whitespace().nth(1)?;
        rest.split('.').next().filter(|m| !m.is_empty())
    }

    /// Allowed by the intended behaviour or by the draft as written, with everything the
    /// observation depends on run.
    pub fn conforms(&self) -> bool {
        matches!(
            self.verdict,
            Verdict::Conforms { .. } | Verdict::ConformsOnlyUnderSeed { .. }
        )
    }
}

/// The browser forms of `scenarios` (name, JSON text), or why each has none.
pub fn forms(
    scenarios: &[(&str, &str)],
) -> Result<(Vec<BrowserForm>, BTreeMap<String, String>), ConformanceError> {
    let mut out = Vec::new();
    let mut skipped = BTreeMap::new();
    for (name, text) in scenarios {
        let sc: Scenario =
            serde_json::from_str(text).map_err(|source| ConformanceError::ScenarioJson {
                name: name.to_string(),
                source,
            })?;
        match derive(&sc) {
            Ok(f) => out.push(f),
            Err(why) => {
                skipped.insert(name.to_string(), why.to_string());
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

/// A statement of a browser form in a few words.
pub fn describe_statement(st: &serde_json::Value) -> String {
    // A label the scenario gave (`as`), not the model's default `DOC#INDEX`.
    let label = st["label"]
        .as_str()
        .filter(|l| !l.contains('#'))
        .map(|l| format!(" as {l}"))
        .unwrap_or_default();
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("?").to_string();
    if let Some(t) = st.get("registerTool") {
        format!("registerTool {}{label}", text(&t["name"]))
    } else if st.get("getTools").is_some() {
        format!("getTools{label}")
    } else if let Some(t) = st.get("executeTool") {
        format!("executeTool {}{label}", text(&t["name"]))
    } else if let Some(c) = st.get("abort") {
        format!("abort {}", text(c))
    } else if let Some(c) = st.get("await") {
        format!("await {}", text(c))
    } else if st.get("awaitToolchange").is_some() {
        "await toolchange".into()
    } else if let Some(n) = st.get("removeIframe") {
        format!("remove iframe {}", text(n))
    } else {
        st.to_string()
    }
}

/// Runs every form in the configured implementation and judges it.
pub fn run(
    config: &Config,
    forms: &[BrowserForm],
    mut progress: impl FnMut(&ScenarioResult),
) -> Result<Vec<ScenarioResult>, ConformanceError> {
    let mut chromium = Chromium::new(&config.chromium);
    let polyfill = match config.imp {
        Impl::Chromium => {
            let features = match config.api {
                Api::Draft => "--enable-blink-features=WebMCP",
                Api::Testing => "--enable-blink-features=WebMCP,WebMCPTesting",
            };
            chromium = chromium.with_flag(features);
            None
        }
        Impl::Polyfill => {
            let path = config
                .polyfill
                .as_ref()
                .ok_or(ConformanceError::NoPolyfill)?;
            Some(crate::cli::read_polyfill(path)?)
        }
    };
    let imp = config.imp;
    let browser = chromium.version().unwrap_or_default();
    let outcomes = run_pages_until(
        &chromium,
        |origins| {
            let mut site = Site::new();
            if let Some(iife) = &polyfill {
                add_polyfill(&mut site, iife);
            }
            let visits = forms
                .iter()
                .map(|f| add_pages(&mut site, f, origins, imp, config.api, &f.scenario))
                .collect();
            (site, visits)
        },
        Completion::Quiet(QUIET),
        config.page_timeout,
        webmcp_browser::say_why_silent,
    )
    .map_err(|source| ConformanceError::Browser {
        chromium: config.chromium.clone(),
        source,
    })?;
    let mut results = Vec::new();
    for (form, outcome) in forms.iter().zip(outcomes) {
        let page = from_reports(form, &outcome.reports);
        let seed = verdict(form, &page.observation, Variant::SEED);
        let proposed = verdict(form, &page.observation, Variant::proposed());
        let judged = Judged {
            form,
            run: &page,
            timed_out: outcome.timed_out(),
            page_timeout: config.page_timeout,
            refused: outcome.refused,
            silent: outcome.browser_log.is_some(),
            seed: &seed,
            proposed: &proposed,
        };
        let (verdict, statements) = judged.classify();
        let BrowserRun {
            observation,
            api,
            surfaces,
            intervened,
            notes,
            ..
        } = page;
        let result = ScenarioResult {
            scenario: form.scenario.clone(),
            implementation: imp.name().into(),
            browser: browser.clone(),
            api_requested: config.api.name().into(),
            api: api.into_iter().collect(),
            surfaces: surfaces.into_iter().collect(),
            timed_out: outcome.timed_out(),
            wall_ms: Some(u64::try_from(outcome.elapsed.as_millis()).unwrap_or(u64::MAX)),
            statements,
            intervened,
            seed,
            proposed,
            observation,
            outside_draft: notes.into_iter().collect(),
            verdict,
            model_reaches_body: reaches_body(
                &World::compile(&form.judged).expect("derive compiled it"),
                Variant::proposed(),
            )
            .map_err(|e| e.to_string()),
        };
        progress(&result);
        results.push(result);
    }
    Ok(results)
}
