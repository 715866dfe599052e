//! Standard output that a closed pipe cannot turn into a pass. `webmcp-check check --all |
//! head -1` stops printing when `head` has read its line, instead of panicking the way
//! `println!` does on `EPIPE`; the run goes on to its end without printing, and exits with the
//! status of what it found (1 for a violation, 3 for an incomplete run). Ending at once with
//! exit 0, as ripgrep does for a search, would tell a script that reads only the first lines
//! that every property held.

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
