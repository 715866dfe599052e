//! `webmcp-check explore`: serve the explorer page for one scenario (docs/explorer.md).

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use webmcp_explorer::{Explorer, Server};
use webmcp_model::{Variant, WebMcpModel};
use webmcp_profiles::CheckOptions;

use crate::{catalog, MemoryLimitArg, UsageError};

/// The check that finds the scenario's counterexamples and witnesses stops at these bounds,
/// so a large scenario file still opens (with the paths found so far, and a note).
const JUMP_MAX_STATES: usize = 5_000_000;
const JUMP_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(clap::Args)]
pub(crate) struct ExploreArgs {
    /// An embedded scenario (`webmcp-check list` names them).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["scenario_file", "trace"])]
    scenario: Option<String>,
    /// A scenario file you wrote (docs/scenarios.md).
    #[arg(long = "scenario-file", value_name = "PATH", conflicts_with = "trace")]
    scenario_file: Option<std::path::PathBuf>,
    /// An ITF trace (.itf.json): opens its scenario and variant at the trace's last state.
    #[arg(long, value_name = "FILE")]
    trace: Option<std::path::PathBuf>,
    /// The spec variant: seed (the text as written), proposed, seed+FIX+... (docs/variants.md);
    /// a trace names its own.
    #[arg(
        long,
        value_name = "VARIANT",
        default_value = "seed",
        conflicts_with = "trace"
    )]
    variant: String,
    /// The port on 127.0.0.1 (0: a free port). The server listens on the loopback
    /// interface only, whatever the port.
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    port: u16,
    #[command(flatten)]
    memory: MemoryLimitArg,
}

pub(crate) fn explore(args: &ExploreArgs) -> Result<ExitCode, UsageError> {
    args.memory.apply()?;
    let (model, source, text, start) = match (&args.scenario, &args.scenario_file, &args.trace) {
        (Some(name), None, None) => {
            let world = catalog::named(name)?;
            let text = catalog::text(name).unwrap_or_default().to_string();
            (
                model(world, &args.variant)?,
                format!("scenarios/{name}.json"),
                text,
                None,
            )
        }
        (None, Some(path), None) => {
            let (world, text) = catalog::from_file(path)?;
            (
                model(world, &args.variant)?,
                path.display().to_string(),
                text,
                None,
            )
        }
        (None, None, Some(path)) => {
            let loaded =
                webmcp_traces::commands::load(path).map_err(|e| UsageError(e.to_string()))?;
            // A trace that does not replay (an action not enabled, a state or the recorded
            // verdict not reproduced) is refused before the check, which can take a while.
            if let webmcp_traces::replay::Replayed::Diverged(d) =
                webmcp_traces::replay::replay(&loaded)
            {
                return Err(UsageError(format!(
                    "{}: the trace does not replay: it diverges at {d}",
                    path.display()
                )));
            }
            let meta = loaded.trace.meta.clone();
            (
                loaded.model,
                meta.source,
                meta.scenario_json,
                Some((path, loaded.trace.actions)),
            )
        }
        _ => {
            return Err(UsageError(
                "explore needs one of --scenario NAME, --scenario-file PATH or --trace FILE".into(),
            ))
        }
    };
    let path = match &start {
        None => Vec::new(),
        Some((file, actions)) => webmcp_explorer::walk::indices_of(&model, actions).map_err(|i| {
            UsageError(format!(
                "{}: action {} of the trace is not enabled where it is taken (the trace does not replay; `webmcp-check replay` says why)",
                file.display(),
                i + 1
            ))
        })?,
    };
    if path.len() > webmcp_explorer::MAX_STEPS {
        return Err(UsageError(format!(
            "the trace has {} actions; the explorer follows at most {}",
            path.len(),
            webmcp_explorer::MAX_STEPS
        )));
    }
    let options = CheckOptions {
        threads: 1,
        max_states: Some(JUMP_MAX_STATES),
        timeout: Some(JUMP_TIMEOUT),
        ..CheckOptions::default()
    };
    let explorer = Explorer::new(model, source, text, &options);
    let server = Server::bind(explorer, args.port)
        .map_err(|e| UsageError(format!("cannot listen on 127.0.0.1:{}: {e}", args.port)))?;
    let mut stdout = std::io::stdout();
    // The line a test or a user reads the address from; then serve until interrupted.
    let _ = writeln!(stdout, "webmcp-check explore: {}", server.url(&path));
    let _ = writeln!(stdout, "(serving on 127.0.0.1 only; Ctrl-C stops it)");
    let _ = stdout.flush();
    server
        .run()
        .map_err(|e| UsageError(format!("the server stopped: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

fn model(world: webmcp_model::World, variant: &str) -> Result<WebMcpModel, UsageError> {
    let variant = Variant::parse(variant)?;
    Ok(WebMcpModel::new(world, variant))
}
