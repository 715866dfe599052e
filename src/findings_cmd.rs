//! `webmcp-check findings` and `webmcp-check properties`: the generated documents for spec
//! editors (docs/findings.md, docs/properties.md), which explore the whole suite.

use std::path::PathBuf;
use std::process::ExitCode;

use webmcp_traces::corpus::Source;
use webmcp_traces::error::DocError;

use crate::UsageError;

#[derive(clap::Args)]
pub struct DocArgs {
    /// Write the report to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Worker threads, 1 to 256 (each scenario check runs on one thread).
    #[arg(long, value_name = "N", default_value_t = 2)]
    threads: usize,
    #[command(flatten)]
    memory: crate::MemoryLimitArg,
}

pub fn findings(args: &DocArgs, sources: &[Source]) -> Result<ExitCode, UsageError> {
    write_doc(args, |threads| {
        let mut report = webmcp_traces::findings::generate(sources, threads)?;
        report.push('\n');
        report.push_str(&crate::sweep_cmd::evidence(
            webmcp_model::Variant::proposed(),
            threads,
        ));
        Ok(report)
    })
}

pub fn properties(args: &DocArgs, sources: &[Source]) -> Result<ExitCode, UsageError> {
    write_doc(args, |threads| {
        webmcp_traces::properties_doc::generate(sources, threads)
    })
}

/// Checks the arguments before the work, generates the document, writes it.
fn write_doc(
    args: &DocArgs,
    generate: impl FnOnce(usize) -> Result<String, DocError>,
) -> Result<ExitCode, UsageError> {
    crate::threads_arg(args.threads)?;
    args.memory.apply()?;
    let output = crate::output_file(args.output.as_deref())?;
    let report = match generate(args.threads) {
        Ok(report) => report,
        Err(e) => return args.memory.failed(e.to_string()),
    };
    crate::write_output(output, &report)?;
    if let Some(path) = &args.output {
        errln!("wrote {}", webmcp_traces::limits::shown_path(path));
    }
    Ok(ExitCode::SUCCESS)
}
