//! Standard output that a closed pipe cannot turn into a pass. `webmcp-check check --all |
//! head -1` stops printing when `head` has read its line, instead of panicking the way
//! `println!` does on `EPIPE`; the run goes on to its end without printing, and exits with the
//! status of what it found (1 for a violation, 3 for an incomplete run). Ending at once with
//! exit 0, as ripgrep does for a search, would tell a script that reads only the first lines
//! that every property held.
//!
//! Standard error is written with [`note`], which a closed or failing standard error cannot
//! turn into a panic either: `errln!` panics there, and a panic in the progress line
//! ended a check with exit 101 (and, on the parallel breadth-first search, hung it).

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the reader of standard output has gone: nothing more is written.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `args` to standard output. After a closed pipe, writes nothing and lets the run
/// finish (its exit status says what it found); any other write error ends it with exit 2
/// and one line.
pub fn write(args: std::fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|_| out.flush()) {
        if e.kind() == io::ErrorKind::BrokenPipe {
            CLOSED.store(true, Ordering::Relaxed);
            return;
        }
        let _ = writeln!(
            io::stderr(),
            "webmcp-check: cannot write to standard output: {e}"
        );
        std::process::exit(2);
    }
}

/// `print!` that a closed pipe silences (see [`write`]).
macro_rules! out {
    ($($arg:tt)*) => { $crate::stdout::write(format_args!($($arg)*)) };
}

/// `println!` that a closed pipe silences (see [`write`]).
macro_rules! outln {
    () => { $crate::stdout::write(format_args!("\n")) };
    ($($arg:tt)*) => {{
        $crate::stdout::write(format_args!($($arg)*));
        $crate::stdout::write(format_args!("\n"));
    }};
}

/// Writes `args` and a newline to standard error, as one write under its lock, ignoring a
/// failure: there is nowhere left to report it, and the run goes on to its end and its exit
/// status.
pub fn note(args: std::fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|_| err.write_all(b"\n"));
}

/// `eprintln!` that a closed or failing standard error cannot panic (see [`note`]).
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::stdout::note(format_args!($($arg)*))
    };
}

/// Prints one line per `(name, summary)`, the names padded to the longest so that every
/// summary starts in one column (`list`, for either profile).
pub fn names_and_summaries(rows: &[(&str, &str)]) {
    let width = rows.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    for (name, summary) in rows {
        outln!("{name:<width$}  {summary}");
    }
}
