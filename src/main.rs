//! `webmcp-check`: model-check the WebMCP draft over named scenarios.

#![recursion_limit = "512"]

mod catalog;
mod output;

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_properties::{check, CheckOptions, ScenarioResult, Verdict};

#[derive(Parser)]
#[command(name = "webmcp-check", version, about = "Model-check the W3C WebMCP draft", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the embedded scenarios, one per line: name, then summary.
    List,
    /// Explore every interleaving of scenarios and judge every property.
    Check(CheckArgs),
    /// Check every embedded scenario and write the results as Markdown (docs/results.md).
    Report(ReportArgs),
}

#[derive(clap::Args)]
struct ReportArgs {
    /// The spec variant: seed (the text as written), proposed, or seed+FIX+...
    #[arg(long, default_value = "seed")]
    variant: String,
    /// Write the report here instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<std::path::PathBuf>,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// An embedded scenario to check (repeatable).
    #[arg(long = "scenario", value_name = "NAME")]
    scenarios: Vec<String>,
    /// Check every embedded scenario.
    #[arg(long)]
    all: bool,
    /// A scenario file to check (repeatable).
    #[arg(long = "scenario-file", value_name = "PATH")]
    files: Vec<std::path::PathBuf>,
    /// The spec variant: seed (the text as written), proposed, or seed+FIX+...
    #[arg(long, default_value = "seed")]
    variant: String,
    /// Checker threads (1 guarantees shortest counterexamples).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Stop after generating this many states (the verdict is then incomplete).
    #[arg(long, value_name = "N")]
    max_states: Option<usize>,
    /// Do not explore beyond this depth (the verdict is then incomplete).
    #[arg(long, value_name = "N")]
    max_depth: Option<usize>,
    /// Stop each scenario after this many seconds (the verdict is then incomplete).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<u64>,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Show every property, not only violations and witnesses.
    #[arg(long)]
    verbose: bool,
    /// Leave wall-clock times out of the output (for byte-identical comparisons).
    #[arg(long)]
    no_timings: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
}

/// An error that ends the run with exit code 2 and one line on stderr.
struct UsageError(String);

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return ExitCode::from(
                    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                        2
                    } else {
                        0
                    },
                );
            }
            let rendered = e.render().to_string();
            let line = rendered.lines().next().unwrap_or("invalid arguments");
            eprintln!("webmcp-check: {}", line.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::List => list(),
        Command::Check(args) => run_check(&args),
        Command::Report(args) => report(&args),
    };
    match result {
        Ok(code) => code,
        Err(UsageError(msg)) => {
            eprintln!("webmcp-check: {msg}");
            ExitCode::from(2)
        }
    }
}

fn list() -> Result<ExitCode, UsageError> {
    for world in catalog::all().map_err(UsageError)? {
        println!("{:<40} {}", world.name, world.summary);
    }
    Ok(ExitCode::SUCCESS)
}

fn report(args: &ReportArgs) -> Result<ExitCode, UsageError> {
    let variant = Variant::parse(&args.variant).map_err(UsageError)?;
    let worlds = catalog::all().map_err(UsageError)?;
    let results: Vec<ScenarioResult> = worlds
        .iter()
        .map(|w| {
            check(
                WebMcpModel::new(w.clone(), variant),
                &CheckOptions {
                    threads: 1,
                    ..CheckOptions::default()
                },
            )
        })
        .collect();
    let text = output::markdown_report(&worlds, &results);
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| UsageError(format!("{}: {e}", path.display())))?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

fn run_check(args: &CheckArgs) -> Result<ExitCode, UsageError> {
    let variant = Variant::parse(&args.variant).map_err(UsageError)?;
    let mut worlds: Vec<World> = Vec::new();
    if args.all {
        worlds.extend(catalog::all().map_err(UsageError)?);
    }
    for name in &args.scenarios {
        worlds.push(catalog::named(name).map_err(UsageError)?);
    }
    for path in &args.files {
        worlds.push(catalog::from_file(path).map_err(UsageError)?);
    }
    if worlds.is_empty() {
        return Err(UsageError(
            "nothing to check: give --all, --scenario NAME or --scenario-file PATH".into(),
        ));
    }
    if args.threads == 0 {
        return Err(UsageError("--threads must be at least 1".into()));
    }
    let options = CheckOptions {
        threads: args.threads,
        max_states: args.max_states,
        max_depth: args.max_depth,
        timeout: args.timeout.map(Duration::from_secs),
    };
    let mut results: Vec<ScenarioResult> = Vec::new();
    for world in worlds {
        let result = check(WebMcpModel::new(world.clone(), variant), &options);
        if let Format::Human = args.format {
            print!(
                "{}",
                output::human(&world, &result, args.verbose, !args.no_timings)
            );
        }
        results.push(result);
    }
    if let Format::Json = args.format {
        println!("{}", output::json(&results, !args.no_timings));
    }
    let violated = results.iter().any(|r| r.violations().next().is_some());
    let incomplete = results.iter().any(|r| {
        r.properties
            .iter()
            .any(|p| p.verdict == Verdict::Incomplete)
    });
    Ok(if violated {
        ExitCode::from(1)
    } else if incomplete {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}
