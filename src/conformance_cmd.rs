//! `webmcp-check conformance` in the CLI: the embedded scenarios it runs, `--shard I/N` and
//! the record a shard's JSON report carries; the command itself is `webmcp_conformance::cli`.

mod merge;

use std::process::ExitCode;

pub use merge::merge;

use crate::shard::{self, Shard, ShardRecord};
use crate::{catalog, UsageError};
use webmcp_conformance::cli::{ApiArg, Args, ImplArg};

#[derive(clap::Args)]
pub struct ConformanceArgs {
    #[command(flatten)]
    run: Args,
    /// Run only shard I of N of the scenarios that have a browser form, those at positions
    /// I-1, I-1+N, ... of `list`'s order. `merge` joins the shards' JSON reports
    /// (docs/ci.md).
    #[arg(long, value_name = "I/N", conflicts_with_all = ["scenario", "scenario_file", "wpt_dir", "write_docs"])]
    shard: Option<Shard>,
}

pub fn conformance(a: &ConformanceArgs) -> Result<ExitCode, UsageError> {
    let Some(shard) = a.shard else {
        return run(&a.run, catalog::SCENARIOS, None);
    };
    let with_form = with_browser_form()?;
    let total = with_form.len() as u64;
    let part = shard::select(with_form, Some(shard));
    let record = shard_record(&a.run, shard, total, &part);
    let record = serde_json::to_value(record).expect("JSON");
    if part.is_empty() {
        shard::note_empty(shard, total, "scenarios with a browser form");
        run(&a.run, &part, Some(record))?;
        // Nothing was decided here: never a pass (`merge` judges the whole).
        return Ok(ExitCode::from(3));
    }
    run(&a.run, &part, Some(record))
}

fn run(
    args: &Args,
    scenarios: &[(&str, &str)],
    shard_of: Option<serde_json::Value>,
) -> Result<ExitCode, UsageError> {
    let (code, text) = webmcp_conformance::cli::main(args, scenarios, shard_of)?;
    out!("{text}");
    Ok(ExitCode::from(code))
}

/// The embedded scenarios that have a browser form, in `list`'s order: the items conformance
/// shards divide.
pub fn with_browser_form() -> Result<Vec<(&'static str, &'static str)>, UsageError> {
    let (_, without_form) = webmcp_conformance::run::forms(catalog::SCENARIOS)?;
    Ok(catalog::SCENARIOS
        .iter()
        .filter(|(name, _)| !without_form.contains_key(*name))
        .copied()
        .collect())
}

/// What a conformance shard's JSON report records about itself: its scenarios and the
/// options that decide what is run and how a run is judged. The Chromium binary's path is
/// not one (it differs between machines); its version is in every result, and `merge`
/// compares those. The polyfill is recorded by its package's version for the same reason.
fn shard_record(args: &Args, shard: Shard, total: u64, part: &[(&str, &str)]) -> ShardRecord {
    let (imp, polyfill) = match args.imp {
        ImplArg::Chromium => ("chromium", "none".to_string()),
        ImplArg::Polyfill => (
            "polyfill",
            webmcp_conformance::wpt::chromium::package_version(&args.polyfill)
                .unwrap_or_else(|| "unknown".into()),
        ),
    };
    let api = match args.api {
        ApiArg::Draft => "draft",
        ApiArg::Testing => "testing",
    };
    ShardRecord {
        command: "conformance".into(),
        index: shard.index,
        count: shard.count,
        options: [
            ("impl", imp.to_string()),
            ("api", api.to_string()),
            ("polyfill", polyfill),
            ("page-timeout", args.page_timeout.to_string()),
            ("timings", (!args.no_timings).to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect(),
        total,
        items: Some(part.iter().map(|(name, _)| name.to_string()).collect()),
    }
}
