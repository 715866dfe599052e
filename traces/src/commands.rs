//! The `replay`, `minimize`, `explain` and `corpus` commands of `webmcp-check`. Each prints its
//! result on standard output and returns the exit code; an `Err` is a one-line message for a
//! file that is not a valid trace (or cannot be read or written), which exits 2.

use std::path::Path;

use crate::explain::{explain, Format};
use crate::export::write_atomically;
use crate::minimize::minimize;
use crate::reader::{read_trace, Loaded};
use crate::replay::{replay, Replayed};

/// Reads and checks a trace file.
pub fn load(path: &Path) -> Result<Loaded, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    read_trace(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `replay FILE`: 0 when the trace replays and shows its recorded verdict, 1 when it
/// diverges.
pub fn replay_file(path: &Path) -> Result<u8, String> {
    let l = load(path)?;
    let t = &l.trace;
    match replay(&l) {
        Replayed::Reproduced { shows_at } => {
            let verdict = match (&t.meta.property, t.meta.expect, shows_at) {
                (Some(p), Some(e), Some(k)) => {
                    format!("; {p} {} (first after {k} actions)", e.as_str())
                }
                _ => String::new(),
            };
            println!(
                "{}: replayed {} actions of scenario {} under {}: every action enabled, every state reproduced{verdict}",
                path.display(),
                t.actions.len(),
                t.meta.scenario,
                t.meta.variant
            );
            Ok(0)
        }
        Replayed::Diverged(d) => {
            println!("{}: diverges at {d}", path.display());
            Ok(1)
        }
    }
}

/// `minimize FILE -o OUT`.
pub fn minimize_file(path: &Path, out: &Path) -> Result<u8, String> {
    let l = load(path)?;
    if let Replayed::Diverged(d) = replay(&l) {
        println!(
            "{}: diverges at {d}; only a trace that replays can be minimised",
            path.display()
        );
        return Ok(1);
    }
    let m = minimize(&l).map_err(|e| format!("{}: {e}", path.display()))?;
    write_atomically(out, &m.trace.to_json_text())?;
    println!(
        "{}: {} actions -> {} actions (delta debugging: {} actions after {} candidates replayed; {}); written to {}",
        path.display(),
        m.before,
        m.after,
        m.after_ddmin,
        m.candidates,
        if m.proved_shortest {
            "no shorter run exists"
        } else {
            "1-minimal; the search for a shorter run hit its budget"
        },
        out.display()
    );
    Ok(0)
}

/// `explain FILE --format F [-o OUT]`.
pub fn explain_file(path: &Path, format: Format, out: Option<&Path>) -> Result<u8, String> {
    let l = load(path)?;
    let text = explain(&l, format);
    match out {
        Some(o) => write_atomically(o, &text)?,
        None => print!("{text}"),
    }
    Ok(0)
}
