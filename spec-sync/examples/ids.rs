//! Prints the step IDs of a Bikeshed source, one per line: `id<TAB>kind<TAB>line`.
//!
//! `cargo run -p webmcp-spec-sync --example ids -- PATH/index.bs`

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: ids PATH/index.bs");
        return ExitCode::from(2);
    };
    let source = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    match webmcp_spec_sync::parse(&source) {
        Ok(steps) => {
            for s in steps {
                println!("{}\t{}\t{}", s.id, s.kind, s.line);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::FAILURE
        }
    }
}
