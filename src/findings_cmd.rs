//! `webmcp-check findings`: the findings report for spec editors.

use std::path::PathBuf;
use std::process::ExitCode;

use webmcp_traces::corpus::Source;

use crate::UsageError;

#[derive(clap::Args)]
pub struct FindingsArgs {
    /// Write the report to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Worker threads, 1 to 256 (each scenario check runs on one thread).
    #[arg(long, default_value_t = 2)]
    threads: usize,
    #[command(flatten)]
    memory: crate::MemoryLimitArg,
}

pub fn findings(args: &FindingsArgs, sources: &[Source]) -> Result<ExitCode, UsageError> {
    crate::threads_arg(args.threads)?;
    args.memory.apply()?;
    let report = match webmcp_traces::findings::generate(sources, args.threads) {
        Ok(report) => report,
        Err(e) => return args.memory.failed(e),
    };
    match &args.output {
        Some(path) => {
            webmcp_traces::export::write_atomically(path, &report).map_err(UsageError)?;
            eprintln!("wrote {}", path.display());
        }
        None => out!("{report}"),
    }
    Ok(ExitCode::SUCCESS)
}
