//! `webmcp-check legacy-conformance`: run each legacy scenario against the legacy polyfill
//! (`@mcp-b/webmcp-polyfill` 2.3.2, its IIFE build) in headless Chromium without the WebMCP
//! flag, and judge the observation by the legacy model: it conforms when the model allows
//! that observation in some interleaving. The verdicts and their counts are the draft
//! profile's (`crate::verdict`, `crate::report::count_verdicts`).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;
use serde_json::{json, Value};
use webmcp_browser::{run_pages, Chromium, Origin, Resource, Site, Visit, REPORT_JS};
use webmcp_model::legacy::observe::Observation;
use webmcp_model::legacy::variant::ALTERNATIVES;
use webmcp_model::legacy::{LegacyModel, LegacyVariant, LegacyWorld};
use webmcp_profiles::legacy::{check_legacy, LegacyOptions};

use crate::error::ConformanceError;
use crate::report::count_verdicts;
use crate::verdict::Verdict;

/// Where `npm ci` in browser/js puts the polyfill (browser/js/package.json aliases 2.3.2).
pub const DEFAULT_POLYFILL: &str =
    "browser/js/node_modules/webmcp-polyfill-legacy/dist/index.iife.js";
const DRIVER_JS: &str = include_str!("../js/legacy_driver.js");

#[derive(clap::Args)]
pub struct LegacyConformanceArgs {
    /// Run every embedded legacy scenario that has a browser schedule (the default).
    #[arg(long)]
    pub all: bool,
    /// Run these legacy scenarios (repeatable).
    #[arg(long = "scenario", value_name = "NAME")]
    pub scenarios: Vec<String>,
    /// The legacy variant that judges: chosen[+ALTERNATIVE...].
    #[arg(long, default_value = "chosen")]
    pub variant: String,
    /// The polyfill's IIFE build (installed by `npm ci` in browser/js, never fetched here).
    #[arg(long, value_name = "FILE", default_value = DEFAULT_POLYFILL)]
    pub polyfill: PathBuf,
    /// The Chromium binary [default: $WEBMCP_CHROMIUM, else $CHROMIUM, else /usr/bin/chromium].
    #[arg(long, value_name = "PATH")]
    pub chromium: Option<PathBuf>,
    /// Seconds each page may take (1 to 600).
    #[arg(long, value_name = "SECONDS", default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub page_timeout: u64,
    /// How to print the verdicts.
    #[arg(long, value_enum, default_value_t = ConformanceFormat::Human)]
    pub format: ConformanceFormat,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConformanceFormat {
    Human,
    Json,
    Markdown,
}

/// The verdict on one scenario.
#[derive(Clone, Debug)]
pub struct Row {
    pub scenario: String,
    /// None: no browser schedule, or the page did not finish.
    pub observed: Option<Observation>,
    pub allowed: Option<bool>,
    /// Keys where the observation differs from the nearest allowed one: (key, seen, model).
    pub differences: Vec<(String, String, String)>,
    /// Alternatives that, added alone to the judging variant, allow the observation.
    pub allowed_by: Vec<&'static str>,
    pub model_observations: usize,
    pub note: String,
    /// The verdict, as the draft profile's conformance names it.
    pub verdict: Verdict,
}

/// Runs the command on `worlds` (the CLI resolves `--all` and `--scenario`): Ok((exit code,
/// what to print)) or Err(usage message, exit 2). Exit codes as the draft profile's: 1 when
/// an observation diverges, else 3 when a run was inconclusive, else 0.
pub fn main(
    args: &LegacyConformanceArgs,
    worlds: Vec<LegacyWorld>,
) -> Result<(u8, String), ConformanceError> {
    let variant = LegacyVariant::parse(&args.variant)?;
    let polyfill = crate::cli::read_polyfill(&args.polyfill)?;
    let chromium_path = webmcp_browser::resolve_chromium(args.chromium.as_deref())?;
    let chromium = Chromium::new(&chromium_path);
    let runnable: Vec<&LegacyWorld> = worlds.iter().filter(|w| w.browser.is_some()).collect();
    let outcomes = run_pages(
        &chromium,
        |_| site(&runnable, polyfill),
        Duration::from_secs(args.page_timeout),
        webmcp_browser::say_why_silent,
    )
    .map_err(ConformanceError::LegacyBrowser)?;
    let rows: Vec<Row> = worlds
        .iter()
        .map(|w| {
            let done = outcomes
                .iter()
                .find(|o| o.run == w.name)
                .map(|o| o.done.clone());
            judge(w, variant, done)
        })
        .collect();
    let version = chromium.version().unwrap_or_default();
    let ran = Ran {
        polyfill: polyfill_label(&args.polyfill),
        browser: version,
        variant,
    };
    let text = match args.format {
        ConformanceFormat::Human => human(&rows, &ran),
        ConformanceFormat::Markdown => markdown(&rows, &ran),
        ConformanceFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&to_json(&rows, &ran)).expect("JSON")
        ),
    };
    Ok((exit_code(&rows), text))
}

/// What ran, as the reports name it.
pub struct Ran {
    /// The polyfill's package and version, as its package.json says (`--polyfill` may be any
    /// script: it is named by its path when no package.json names it).
    pub polyfill: String,
    /// The browser's version line.
    pub browser: String,
    pub variant: LegacyVariant,
}

/// `@mcp-b/webmcp-polyfill 2.3.2 (index.iife.js)`, from the nearest package.json above
/// `script`; the script's path when there is none, or it names no package and version.
fn polyfill_label(script: &std::path::Path) -> String {
    let package = crate::wpt::chromium::package_of(script);
    let file = script
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    match package {
        Some((name, version)) => {
            webmcp_model::error::one_line(&format!("{name} {version} ({file})"), 200)
        }
        None => webmcp_model::error::one_line(
            &format!("the script {} (no package.json names it)", script.display()),
            400,
        ),
    }
}

/// 1 when an observation diverges, else 3 when a run was inconclusive (a scenario without
/// a browser schedule is not run, not inconclusive).
pub fn exit_code(rows: &[Row]) -> u8 {
    let any = |name: &str| judged(rows).any(|v| v.name() == name);
    if any("diverges") {
        1
    } else if any("inconclusive") {
        3
    } else {
        0
    }
}

/// Rows that ran (a scenario without a browser schedule has no verdict to count).
fn judged(rows: &[Row]) -> impl Iterator<Item = &Verdict> + Clone {
    rows.iter()
        .filter(|r| !r.note.starts_with("no browser"))
        .map(|r| &r.verdict)
}

fn site(worlds: &[&LegacyWorld], polyfill: Vec<u8>) -> (Site, Vec<Visit>) {
    let mut site = Site::new();
    site.add(
        Origin::Primary,
        "/legacy-polyfill.js",
        Resource::javascript(polyfill),
    );
    let mut visits = Vec::new();
    for w in worlds {
        let path = format!("/legacy/{}.html", w.name);
        site.add(Origin::Primary, &path, Resource::html(page(w)));
        visits.push(Visit {
            run: w.name.clone(),
            origin: Origin::Primary,
            path,
        });
    }
    (site, visits)
}

/// The page: report helpers, a note of whether the browser has its own modelContext, the
/// polyfill, then the driver on the scenario's JSON.
pub fn page(w: &LegacyWorld) -> String {
    let scenario = w.source.replace("</", "<\\/");
    format!(
        "<!doctype html><meta charset=utf-8><body>\
         <script>{REPORT_JS}\nwindow.__nativeModelContext = 'modelContext' in navigator;</script>\
         <script src=\"/legacy-polyfill.js\"></script>\
         <script>{DRIVER_JS}\n__runLegacy({scenario}).then(__done, (e) => __done({{ error: String(e && e.stack || e) }}));</script>"
    )
}

fn observations(w: &LegacyWorld, variant: LegacyVariant) -> (BTreeSet<Observation>, bool) {
    let r = check_legacy(
        &LegacyModel::new(w.clone(), variant),
        &LegacyOptions::default(),
    );
    (r.observations, r.exhaustive)
}

/// Judges what one page reported (`None`: not run; `Some(None)`: timed out).
pub fn judge(w: &LegacyWorld, variant: LegacyVariant, done: Option<Option<Value>>) -> Row {
    let (allowed_set, _) = observations(w, variant);
    let mut row = Row {
        scenario: w.name.clone(),
        observed: None,
        allowed: None,
        differences: Vec::new(),
        allowed_by: Vec::new(),
        model_observations: allowed_set.len(),
        note: String::new(),
        verdict: Verdict::Inconclusive {
            reason: String::new(),
        },
    };
    let inconclusive = |row: &mut Row| {
        row.verdict = Verdict::Inconclusive {
            reason: row.note.clone(),
        };
    };
    let value = match done {
        None => {
            row.note = "no browser schedule (not run)".into();
            inconclusive(&mut row);
            return row;
        }
        Some(None) => {
            row.note = "page timed out".into();
            inconclusive(&mut row);
            return row;
        }
        Some(Some(v)) => v,
    };
    if let Some(e) = value.get("error") {
        row.note = format!("page error: {e}");
        inconclusive(&mut row);
        return row;
    }
    if value["native"] == true || value["polyfill"] != true {
        row.note = "the page did not run on the polyfill (native modelContext present?)".into();
        inconclusive(&mut row);
        return row;
    }
    let observed = match parse_observation(&value["observation"]) {
        Some(o) => o,
        None => {
            row.note = "malformed observation".into();
            inconclusive(&mut row);
            return row;
        }
    };
    let allowed = allowed_set.contains(&observed);
    row.allowed = Some(allowed);
    row.verdict = if allowed {
        Verdict::Conforms {
            draft_as_written: true,
        }
    } else {
        Verdict::Diverges
    };
    if !allowed {
        row.differences = nearest_differences(&observed, &allowed_set);
        row.allowed_by = ALTERNATIVES
            .iter()
            .filter(|a| !variant.has(**a))
            .filter(|a| observations(w, variant.with(**a)).0.contains(&observed))
            .map(|a| a.name)
            .collect();
    }
    row.observed = Some(observed);
    row
}

fn parse_observation(v: &Value) -> Option<Observation> {
    v.as_object()?
        .iter()
        .map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect()
}

/// The differing keys against the allowed observation that differs in the fewest keys.
pub fn nearest_differences(
    observed: &Observation,
    allowed: &BTreeSet<Observation>,
) -> Vec<(String, String, String)> {
    let diff = |a: &Observation| -> Vec<(String, String, String)> {
        let keys: BTreeSet<&String> = observed.keys().chain(a.keys()).collect();
        keys.into_iter()
            .filter(|k| observed.get(*k) != a.get(*k))
            .map(|k| {
                let show = |o: Option<&String>| o.cloned().unwrap_or_else(|| "(absent)".into());
                ((*k).clone(), show(observed.get(k)), show(a.get(k)))
            })
            .collect()
    };
    allowed
        .iter()
        .map(diff)
        .min_by_key(|d| d.len())
        .unwrap_or_default()
}

fn differences_text(r: &Row) -> String {
    r.differences
        .iter()
        .map(|(k, seen, model)| format!("{k}: polyfill {seen}, model {model}"))
        .collect::<Vec<_>>()
        .join("; ")
}

fn verdict(r: &Row) -> String {
    match &r.verdict {
        _ if r.note.starts_with("no browser") => r.note.clone(),
        Verdict::Inconclusive { reason } => format!("inconclusive: {reason}"),
        v => v.name().to_string(),
    }
}

pub fn human(rows: &[Row], ran: &Ran) -> String {
    let mut out = format!(
        "legacy conformance: {} in {}, judged by legacy {}\n",
        ran.polyfill,
        ran.browser,
        ran.variant.name()
    );
    for r in rows {
        out.push_str(&format!("  {:<34} {}", r.scenario, verdict(r)));
        if r.allowed == Some(false) {
            out.push_str(&format!(" ({})", differences_text(r)));
            if !r.allowed_by.is_empty() {
                out.push_str(&format!("; allowed by {}", r.allowed_by.join(", ")));
            }
        }
        out.push('\n');
    }
    let not_run = rows.len() - judged(rows).count();
    out.push_str(&format!(
        "{} run{}: {}; {not_run} scenario{} without a browser schedule\n",
        judged(rows).count(),
        if judged(rows).count() == 1 { "" } else { "s" },
        count_verdicts(judged(rows), |_| None),
        if not_run == 1 { "" } else { "s" }
    ));
    out
}

pub fn markdown(rows: &[Row], ran: &Ran) -> String {
    let mut out = format!(
        "Polyfill {} in {} without the WebMCP flag, judged by legacy `{}`.\n\n\
         | scenario | allowed observations | polyfill | where it differs from the nearest allowed observation | alternatives that allow it |\n|---|---:|---|---|---|\n",
        webmcp_model::error::markdown_code(&ran.polyfill),
        webmcp_model::error::markdown_text(&ran.browser),
        ran.variant.name()
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            r.scenario,
            r.model_observations,
            verdict(r),
            differences_text(r),
            r.allowed_by.join(", ")
        ));
    }
    out
}

pub fn to_json(rows: &[Row], ran: &Ran) -> Value {
    json!({
        "implementation": ran.polyfill,
        "browser": ran.browser,
        "variant": ran.variant.name(),
        "scenarios": rows.iter().map(|r| json!({
            "scenario": r.scenario,
            "verdict": r.verdict,
            "allowed": r.allowed,
            "note": r.note,
            "model_observations": r.model_observations,
            "observed": r.observed,
            "differences": r.differences.iter().map(|(k, s, m)| json!({"key": k, "polyfill": s, "model": m})).collect::<Vec<_>>(),
            "allowed_by": r.allowed_by,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    /// The polyfill is named by what its package.json says, not by the version the
    /// project pins: a script that is not the package is named by its path.
    #[test]
    fn the_polyfill_is_named_by_its_package_json() {
        let dir =
            std::env::temp_dir().join(format!("webmcp-polyfill-label-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("pkg/dist")).unwrap();
        std::fs::write(
            dir.join("pkg/package.json"),
            r#"{"name": "@mcp-b/webmcp-polyfill", "version": "9.9.9"}"#,
        )
        .unwrap();
        assert_eq!(
            super::polyfill_label(&dir.join("pkg/dist/index.iife.js")),
            "@mcp-b/webmcp-polyfill 9.9.9 (index.iife.js)"
        );
        let loose = super::polyfill_label(&dir.join("bad.js"));
        assert!(
            loose.starts_with("the script ") && loose.contains("bad.js"),
            "{loose}"
        );
        assert!(loose.ends_with("(no package.json names it)"), "{loose}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    use super::*;

    fn world(name: &str) -> LegacyWorld {
        let path = format!(
            "{}/../scenarios/legacy/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        LegacyWorld::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn report(o: &Observation) -> Option<Option<Value>> {
        Some(Some(
            json!({"native": false, "polyfill": true, "observation": o}),
        ))
    }

    #[test]
    fn every_model_observation_is_judged_allowed() {
        let w = world("provide-replaces");
        let (all, exhaustive) = observations(&w, LegacyVariant::CHOSEN);
        assert!(exhaustive && all.len() > 1);
        for o in &all {
            let row = judge(&w, LegacyVariant::CHOSEN, report(o));
            assert_eq!(row.allowed, Some(true), "{o:?}");
            assert!(row.differences.is_empty());
        }
    }

    #[test]
    fn a_changed_value_diverges_and_names_the_key() {
        let w = world("provide-replaces");
        let (all, _) = observations(&w, LegacyVariant::CHOSEN);
        let mut o = all.iter().find(|o| o["l1"] == "a,b").unwrap().clone();
        o.insert("l1".into(), "a".into());
        let row = judge(&w, LegacyVariant::CHOSEN, report(&o));
        assert_eq!(row.allowed, Some(false));
        // One key differs; several allowed observations are equally near.
        assert_eq!(row.differences.len(), 1);
        assert_eq!(row.differences[0].0, "l1");
        assert_eq!(row.differences[0].1, "a");
        assert_eq!(row.allowed_by, vec!["piecewise-provide"]);
    }

    #[test]
    fn pages_that_did_not_run_on_the_polyfill_are_not_judged() {
        let w = world("provide-replaces");
        let native = Some(Some(
            json!({"native": true, "polyfill": false, "observation": {}}),
        ));
        for (done, note) in [
            (None, "no browser schedule"),
            (Some(None), "page timed out"),
            (Some(Some(json!({"error": "boom"}))), "page error"),
            (native, "did not run on the polyfill"),
        ] {
            let row = judge(&w, LegacyVariant::CHOSEN, done);
            assert_eq!(row.allowed, None);
            assert!(row.note.contains(note), "{}", row.note);
        }
    }

    #[test]
    fn verdicts_and_exit_codes_are_the_draft_profiles() {
        let w = world("provide-replaces");
        let (all, _) = observations(&w, LegacyVariant::CHOSEN);
        let conforms = judge(
            &w,
            LegacyVariant::CHOSEN,
            report(all.iter().next().unwrap()),
        );
        let not_run = judge(&w, LegacyVariant::CHOSEN, None);
        let timed_out = judge(&w, LegacyVariant::CHOSEN, Some(None));
        let mut other = all.iter().next().unwrap().clone();
        other.insert("l1".into(), "nothing the model allows".into());
        let diverges = judge(&w, LegacyVariant::CHOSEN, report(&other));
        assert_eq!(conforms.verdict.name(), "conforms");
        assert_eq!(timed_out.verdict.name(), "inconclusive");
        assert_eq!(diverges.verdict, Verdict::Diverges);
        // A scenario without a browser schedule is not run: it neither fails nor passes.
        assert_eq!(exit_code(&[conforms.clone(), not_run.clone()]), 0);
        assert_eq!(exit_code(&[conforms.clone(), timed_out.clone()]), 3);
        assert_eq!(exit_code(&[timed_out, diverges]), 1);
        let ran = Ran {
            polyfill: "@mcp-b/webmcp-polyfill 2.3.2 (index.iife.js)".into(),
            browser: "Chromium".into(),
            variant: LegacyVariant::CHOSEN,
        };
        let text = human(&[conforms, not_run], &ran);
        assert!(
            text.contains("1 run: 1 conforms, 0 conforms-only-under-seed, 0 diverges"),
            "{text}"
        );
    }

    #[test]
    fn the_page_embeds_the_scenario_without_closing_its_script() {
        let mut w = world("provide-replaces");
        w.source = w
            .source
            .replace("\"summary\"", "\"x\": \"</script>\", \"summary\"");
        let p = page(&w);
        assert_eq!(p.matches("</script>").count(), 3);
        assert!(p.contains("__runLegacy({"));
    }
}
