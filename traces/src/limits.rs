//! Limits on untrusted input: a trace file is read only up to [`MAX_TRACE_BYTES`], and its
//! parsing is bounded (nesting, states, variables, strings, and what one state takes in
//! memory once decoded), so that reading any file takes memory proportional to its size and
//! never more than a few times the limit. `docs/traces.md` lists the limits.

use std::io::Read;
use std::path::Path;

/// The largest trace file `replay`, `minimize` and `explain` read (64 MiB). The traces the
/// checker writes are far smaller (the corpus's largest is 70 KB; a scenario with 64 tools
/// each exposed to 55 origins gives a 46 MB run of 330 states), and `check` does not write a
/// trace it could not read back.
pub const MAX_TRACE_BYTES: u64 = 64 * 1024 * 1024;

/// The most states a trace may have.
pub const MAX_STATES: usize = 100_000;

/// The most variables `vars` may list, and the longest name of one (in bytes).
pub const MAX_VARS: usize = 64;
pub const MAX_VAR_NAME_BYTES: usize = 256;

/// How deeply an ITF value may nest (the values we write stay under 15 levels).
pub const MAX_DEPTH: usize = 48;

/// How deeply the action of a state (`mbt::action`) may nest: ours are at most 6 deep. The
/// `itf` crate decodes it, and its untagged value type backtracks over every alternative at
/// every level.
pub const MAX_ACTION_DEPTH: usize = 8;

/// The longest string anywhere in a trace (16 MiB): the longest strings are the scenario's
/// text in `#meta` and the tool descriptions it contains.
pub const MAX_STRING_BYTES: usize = 16 * 1024 * 1024;

/// What one state may take once decoded into `serde_json` values (64 MiB), estimated while
/// reading from the number of values, objects, keys and string bytes. States are stored as
/// their JSON text and decoded one or two at a time (replay, explain), so this bounds what
/// decoding costs beyond the text itself, whatever the shape of the values.
pub const MAX_STATE_DECODED_BYTES: usize = 64 * 1024 * 1024;

/// A size in words: `64 MiB`, `1 MiB`, `512 KiB`, `100 bytes`.
pub fn size_text(bytes: u64) -> String {
    if bytes >= 1024 * 1024 && bytes.is_multiple_of(1024 * 1024) {
        format!("{} MiB", bytes / (1024 * 1024))
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

/// Why a file could not be read.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    /// It has more than the limit's bytes (only `limit + 1` were read).
    TooLarge,
}

/// Reads a file, or any readable path (a FIFO, a device, `/dev/stdin`), but never more than
/// `limit + 1` bytes: `/dev/zero` or an endless pipe is refused after `limit + 1` bytes
/// instead of being read until memory runs out.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = webmcp_checker::input::open(path).map_err(ReadError::Io)?;
    let hint = match file.metadata() {
        Ok(m) if m.is_dir() => {
            return Err(ReadError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "is a directory",
            )))
        }
        Ok(m) if m.is_file() => {
            if m.len() > limit {
                return Err(ReadError::TooLarge);
            }
            m.len()
        }
        // Devices and pipes report no useful length: read and see.
        _ => 0,
    };
    let max = limit.saturating_add(1);
    let mut buf = Vec::with_capacity(hint.saturating_add(1).min(max) as usize);
    let mut reader = file.take(max);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReadError::Io(e)),
        };
        if buf.len() + n > buf.capacity() {
            // Grow by doubling, but never past the limit: memory stays within limit + 1.
            let want = (buf.capacity() * 2).max(buf.len() + n).min(max as usize);
            buf.reserve_exact(want - buf.len());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    if buf.len() as u64 > limit {
        return Err(ReadError::TooLarge);
    }
    Ok(buf)
}

/// One line for a message: control characters, line separators and bidirectional
/// overrides escaped ([`webmcp_model::error::is_unprintable`]), and at most `max` characters
/// (a hostile file can put anything in the text an error quotes).
pub fn one_line(msg: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in msg.chars().enumerate() {
        if n >= max {
            out.push_str("...");
            break;
        }
        if c == '\n' || c == '\r' || c == '\t' {
            out.push(' ');
        } else if webmcp_model::error::is_unprintable(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The most characters of a path a report line shows.
const MAX_PATH_CHARS: usize = 4096;

/// A path as a report line shows it: a file name can hold any character but `/` and NUL,
/// so one made to move the cursor or reorder the line is shown escaped ([`one_line`]).
pub fn shown_path(path: &Path) -> String {
    one_line(&path.display().to_string(), MAX_PATH_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_shows_no_control_character_separator_or_bidirectional_override() {
        let hostile = "a\u{1b}[2J\u{7}b\u{202e}c\u{2066}d\u{2028}e\u{85}f\ng";
        let line = one_line(hostile, 1000);
        assert!(
            !line.chars().any(webmcp_model::error::is_unprintable),
            "{line:?}"
        );
        assert!(line.contains("\\u{202e}") && line.contains("f g"), "{line}");
        let path = shown_path(Path::new("dir/x\u{1b}]0;t\u{7}.json"));
        assert_eq!(path, "dir/x\\u{1b}]0;t\\u{7}.json");
    }

    #[test]
    fn dev_zero_is_read_up_to_the_limit_only() {
        match read_limited(Path::new("/dev/zero"), 1000) {
            Err(ReadError::TooLarge) => {}
            other => panic!("{other:?}"),
        }
        let dir = std::env::temp_dir().join(format!("webmcp-limits-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("f");
        std::fs::write(&f, vec![b'x'; 1000]).unwrap();
        assert_eq!(read_limited(&f, 1000).unwrap().len(), 1000);
        assert!(matches!(read_limited(&f, 999), Err(ReadError::TooLarge)));
        assert!(matches!(read_limited(&dir, 999), Err(ReadError::Io(_))));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn messages_are_one_short_line() {
        assert_eq!(one_line("a\nb\u{1b}[31m", 100), "a b\\u{1b}[31m");
        assert_eq!(one_line("abcdef", 3), "abc...");
        assert_eq!(size_text(MAX_TRACE_BYTES), "64 MiB");
        assert_eq!(size_text(512 * 1024), "512 KiB");
    }
}
