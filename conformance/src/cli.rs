//! `webmcp-check conformance`: the command behind the CLI's thin wrapper.

use std::path::PathBuf;
use std::time::Duration;

use crate::page::Impl;
use crate::report::{self, Analyses};
use crate::run::{forms, run, Config, ScenarioResult};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ImplArg {
    Chromium,
    Polyfill,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
    Markdown,
}

#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// Run one scenario (by name).
    #[arg(long, conflicts_with = "all")]
    pub scenario: Option<String>,
    /// Run every scenario that has a browser form (the default).
    #[arg(long)]
    pub all: bool,
    /// The Chromium binary.
    #[arg(long, value_name = "PATH", env = webmcp_browser::CHROMIUM_ENV, default_value = webmcp_browser::DEFAULT_CHROMIUM)]
    pub chromium: PathBuf,
    /// Which implementation the pages exercise.
    #[arg(long = "impl", value_enum, default_value = "chromium")]
    pub imp: ImplArg,
    /// The polyfill's IIFE build (installed by `npm ci` in browser/js).
    #[arg(
        long,
        default_value = "browser/js/node_modules/webmcp-polyfill-5/dist/index.iife.js"
    )]
    pub polyfill: PathBuf,
    /// How to print the verdicts.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Seconds a page may take before it counts as timed out (1 to 600).
    #[arg(long, value_name = "SECONDS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub page_timeout: u64,
    /// Write each browser form as a testharness.js test into DIR and exit (no browser).
    #[arg(long, value_name = "DIR")]
    pub emit_wpt: Option<PathBuf>,
    /// The variant the emitted tests assert: proposed (the draft with every fix of
    /// docs/variants.md), seed (the text as written), seed+FIX+... or proposed-FIX-...
    #[arg(long, value_name = "VARIANT", default_value = "proposed")]
    pub wpt_variant: String,
    /// Run both implementations and write the conformance document (docs/conformance.md).
    #[arg(long, value_name = "FILE")]
    pub write_docs: Option<PathBuf>,
    /// Also write the results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
}

/// Runs the command: Ok((exit code, what to print on standard output)) or Err(usage message,
/// exit 2). Progress goes to standard error as it happens.
pub fn main(args: &Args, scenarios: &[(&str, &str)]) -> Result<(u8, String), String> {
    let selected: Vec<(&str, &str)> = match &args.scenario {
        Some(name) => {
            let found = scenarios.iter().find(|(n, _)| n == name).ok_or_else(|| {
                format!("unknown scenario \"{name}\" (webmcp-check list shows the scenarios)")
            })?;
            vec![*found]
        }
        None => scenarios.to_vec(),
    };
    let (forms, skipped) = forms(&selected)?;
    if let Some(name) = &args.scenario {
        if let Some(why) = skipped.get(name) {
            return Err(format!("scenario \"{name}\" has no browser form: {why}"));
        }
    }
    if let Some(dir) = &args.emit_wpt {
        let variant = webmcp_model::Variant::parse(&args.wpt_variant)?;
        let written = crate::wpt::emit(dir, &forms, variant)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        return Ok((0, format!("wrote {written} tests to {}\n", dir.display())));
    }
    if !args.chromium.exists() {
        return Err(format!(
            "no Chromium at {} (pass --chromium PATH or set {})",
            args.chromium.display(),
            webmcp_browser::CHROMIUM_ENV
        ));
    }
    if let Some(path) = &args.write_docs {
        return write_docs(args, path, &forms, &skipped);
    }
    let config = Config {
        chromium: args.chromium.clone(),
        imp: match args.imp {
            ImplArg::Chromium => Impl::Chromium,
            ImplArg::Polyfill => Impl::Polyfill,
        },
        polyfill: Some(args.polyfill.clone()),
        page_timeout: Duration::from_secs(args.page_timeout),
    };
    let human = args.format == Format::Human;
    let results = run(&config, &forms, |r| {
        if human {
            eprintln!(
                "  {} {}",
                r.scenario,
                if r.conforms() { "ok" } else { "diverges" }
            );
        }
    })?;
    let version = webmcp_browser::Chromium::new(&args.chromium)
        .version()
        .unwrap_or_default();
    let analyses = Analyses::embedded();
    if let Some(path) = &args.save {
        let v = report::json(&version, &results, &skipped, &analyses);
        std::fs::write(path, serde_json::to_string_pretty(&v).unwrap())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let text = match args.format {
        Format::Human => report::human(&version, &results, &skipped, &analyses),
        Format::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&report::json(&version, &results, &skipped, &analyses))
                .expect("JSON values serialize")
        ),
        Format::Markdown => report::markdown(&version, &results, &skipped, &analyses),
    };
    Ok((u8::from(unexplained(&results, &analyses)), text))
}

fn write_docs(
    args: &Args,
    path: &std::path::Path,
    forms: &[crate::form::BrowserForm],
    skipped: &std::collections::BTreeMap<String, String>,
) -> Result<(u8, String), String> {
    let mut runs = Vec::new();
    for imp in [Impl::Chromium, Impl::Polyfill] {
        let config = Config {
            chromium: args.chromium.clone(),
            imp,
            polyfill: Some(args.polyfill.clone()),
            page_timeout: Duration::from_secs(args.page_timeout),
        };
        eprintln!("{}:", imp.name());
        runs.push(run(&config, forms, |r| {
            eprintln!(
                "  {} {}",
                r.scenario,
                if r.conforms() { "ok" } else { "diverges" }
            )
        })?);
    }
    let version = webmcp_browser::Chromium::new(&args.chromium)
        .version()
        .unwrap_or_default();
    let analyses = Analyses::embedded();
    let text = report::docs(
        &version,
        &polyfill_version(&args.polyfill),
        &runs,
        skipped,
        &analyses,
    );
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    let all: Vec<ScenarioResult> = runs.into_iter().flatten().collect();
    Ok((
        u8::from(unexplained(&all, &analyses)),
        format!("wrote {}\n", path.display()),
    ))
}

/// The `version` of the package.json two levels above `dist/index.iife.js`.
fn polyfill_version(iife: &std::path::Path) -> String {
    let manifest = iife
        .parent()
        .and_then(|d| d.parent())
        .map(|d| d.join("package.json"));
    manifest
        .and_then(|m| std::fs::read_to_string(m).ok())
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["version"].as_str().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

fn unexplained(results: &[ScenarioResult], analyses: &Analyses) -> bool {
    results
        .iter()
        .any(|r| !r.conforms() && analyses.get(&r.implementation, &r.scenario).is_none())
}
