//! `webmcp-check properties`: the property catalogue for readers (docs/properties.md).

use std::path::PathBuf;
use std::process::ExitCode;

use webmcp_traces::corpus::Source;

use crate::UsageError;

#[derive(clap::Args)]
pub struct PropertiesArgs {
    /// Write the catalogue to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Worker threads, 1 to 256 (each scenario is explored on one thread).
    #[arg(long, value_name = "N", default_value_t = 2)]
    threads: usize,
    #[command(flatten)]
    memory: crate::MemoryLimitArg,
}

pub fn properties(args: &PropertiesArgs, sources: &[Source]) -> Result<ExitCode, UsageError> {
    crate::threads_arg(args.threads)?;
    args.memory.apply()?;
    let output = crate::output_file(args.output.as_deref())?;
    let report = match webmcp_traces::properties_doc::generate(sources, args.threads) {
        Ok(report) => report,
        Err(e) => return args.memory.failed(e),
    };
    crate::write_output(output, &report)?;
    if let Some(path) = &args.output {
        eprintln!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
