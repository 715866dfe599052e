//! The `replay`, `minimize`, `explain` and `corpus` commands of `webmcp-check`. Each prints its
//! result on standard output and returns the exit code; an `Err` is a [`TraceError`], one
//! sentence for standard error, whose [`TraceError::exit_code`] the command exits with (2 for
//! a file that cannot be read, is too large, is not a valid trace, or an output that cannot
//! be written; 1 for a trace that does not replay, which `explain` and `minimize` refuse).
//!
//! Trace files are untrusted: they are read up to [`MAX_TRACE_BYTES`], parsed within the
//! limits of [`crate::limits`], and `minimize` and `explain` replay a trace against its
//! scenario (the check `replay` makes) before they do anything with it. An output file is
//! created before the work, so an unwritable `-o` is found first.

use std::path::Path;

use crate::error::TraceError;
use crate::explain::{explain, Format};
use crate::export::Output;
use crate::limits::{read_limited, shown_path, ReadError, MAX_TRACE_BYTES};
use crate::minimize::minimize;
use crate::reader::{read_trace, Loaded};
use crate::replay::{replay, Replayed};

/// Reads and checks a trace file (at most [`MAX_TRACE_BYTES`]).
pub fn load(path: &Path) -> Result<Loaded, TraceError> {
    let bytes = read_limited(path, MAX_TRACE_BYTES).map_err(|e| match e {
        ReadError::Io(source) => TraceError::Io {
            path: path.to_path_buf(),
            source,
        },
        ReadError::TooLarge => TraceError::TooLarge {
            path: path.to_path_buf(),
            limit: MAX_TRACE_BYTES,
            what: "trace file",
        },
    })?;
    let malformed = |reason: String| TraceError::Malformed {
        path: path.to_path_buf(),
        reason,
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| malformed("not a trace: the file is not UTF-8 text".into()))?;
    read_trace(&text).map_err(|e| malformed(e.0))
}

/// Reads a trace file and replays it: a trace that does not replay is refused, as what
/// `refused` names (`explained`, `minimised`).
fn load_replaying(path: &Path, refused: &'static str) -> Result<Loaded, TraceError> {
    let l = load(path)?;
    match replay(&l) {
        Replayed::Reproduced { .. } => Ok(l),
        Replayed::Diverged(divergence) => Err(TraceError::Diverged {
            path: path.to_path_buf(),
            divergence,
            refused,
        }),
    }
}

/// What a command prints on standard output, with its exit code; the caller prints it (so a
/// closed pipe is the caller's to handle).
pub type Report = (u8, String);

/// `replay FILE`: 0 when the trace replays and shows its recorded verdict, 1 when it
/// diverges (the divergence on standard output: it is what replay reports). `embedded`
/// gives the text of the embedded scenario of a name, if there is one: a trace carries its
/// own scenario, and the report says when that is not the embedded one its name suggests.
pub fn replay_file(
    path: &Path,
    embedded: &dyn Fn(&str) -> Option<String>,
) -> Result<Report, TraceError> {
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
            let value = |t: &str| serde_json::from_str::<serde_json::Value>(t).ok();
            let other = embedded(&t.meta.scenario)
                .is_some_and(|e| value(&e) != value(&t.meta.scenario_json));
            let whose = if other {
                " (the trace's own, not the embedded scenario of that name)"
            } else {
                ""
            };
            Ok((0, format!(
                "{}: replayed {} actions of scenario {}{whose} under {}: every action enabled, every state reproduced{verdict}\n",
                shown_path(path),
                t.actions.len(),
                t.meta.scenario,
                t.meta.variant
            )))
        }
        Replayed::Diverged(d) => Ok((1, format!("{}: diverges at {d}\n", shown_path(path)))),
    }
}

/// `minimize FILE -o OUT`: refuses (exit 1) a trace that does not replay.
pub fn minimize_file(path: &Path, out: &Path) -> Result<Report, TraceError> {
    let output = Output::create(out)?;
    let l = load_replaying(path, "minimised")?;
    let m = minimize(&l).map_err(|e| TraceError::Unsupported {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    output.commit(&m.trace.to_json_text())?;
    // A shorter run the bounded search did not rule out: the work a bound stopped (exit 3).
    let (code, shortest) = if m.proved_shortest {
        (0, "no shorter run exists".to_string())
    } else {
        (3, format!(
            "1-minimal; the search for a shorter run stopped at its bound of {} states, so one may exist",
            webmcp_checker::limits::thousands(crate::minimize::BFS_BUDGET as u64)
        ))
    };
    Ok((code, format!(
        "{}: {} actions -> {} actions (delta debugging: {} actions after {} candidates replayed; {}); written to {}\n",
        shown_path(path),
        m.before,
        m.after,
        m.after_ddmin,
        m.candidates,
        shortest,
        shown_path(out)
    )))
}

/// `explain FILE --format F [-o OUT]`: refuses (exit 1, nothing narrated) a trace that does
/// not replay.
pub fn explain_file(path: &Path, format: Format, out: Option<&Path>) -> Result<Report, TraceError> {
    let output = out.map(Output::create).transpose()?;
    let l = load_replaying(path, "explained")?;
    let text = explain(&l, format);
    match output {
        Some(o) => {
            o.commit(&text)?;
            Ok((0, String::new()))
        }
        None => Ok((0, text)),
    }
}
