//! Writes the fingerprint table of a Bikeshed source to standard output.
//!
//! `cargo run -p webmcp-spec-sync --example store -- PATH/index.bs LABEL`

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: store PATH/index.bs LABEL");
        return ExitCode::from(2);
    }
    let source = match std::fs::read_to_string(&args[1]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot read {}: {e}", args[1]);
            return ExitCode::from(2);
        }
    };
    match webmcp_spec_sync::parse(&source) {
        Ok(steps) => {
            print!("{}", webmcp_spec_sync::write_store(&args[2], &steps));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}: {e}", args[1]);
            ExitCode::FAILURE
        }
    }
}
