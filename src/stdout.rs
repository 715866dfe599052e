//! Standard output that a closed pipe ends quietly, as ripgrep does: `webmcp-check list |
//! head -1` stops printing when `head` has read its line, instead of panicking the way
//! `println!` does on `EPIPE`.

use std::io::{self, Write};

/// Writes `args` to standard output. A closed pipe ends the program with exit 0 (the
/// reader wanted no more); any other write error ends it with exit 2 and one line.
pub fn write(args: std::fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|_| out.flush()) {
        exit_on(e);
    }
}

fn exit_on(e: io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    let _ = writeln!(
        io::stderr(),
        "webmcp-check: cannot write to standard output: {e}"
    );
    std::process::exit(2);
}

/// `print!` that ends the program quietly on a closed pipe.
macro_rules! out {
    ($($arg:tt)*) => { $crate::stdout::write(format_args!($($arg)*)) };
}

/// `println!` that ends the program quietly on a closed pipe.
macro_rules! outln {
    () => { $crate::stdout::write(format_args!("\n")) };
    ($($arg:tt)*) => {{
        $crate::stdout::write(format_args!($($arg)*));
        $crate::stdout::write(format_args!("\n"));
    }};
}
