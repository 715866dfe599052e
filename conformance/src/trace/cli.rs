//! `webmcp-check validate LOG`: the command behind the CLI's thin wrapper.

use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::log::MAX_LOG_BYTES;
use super::validate::{Bounds, DEFAULT_MAX_STATES};
use super::{validate_within, Refusal};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// The recorded log (JSON Lines, docs/trace-validation.md).
    #[arg(value_name = "LOG")]
    pub log: PathBuf,
    /// How to print the verdict.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Also write the scenario the log implies to FILE (the scenario format).
    #[arg(long, value_name = "FILE")]
    pub emit_scenario: Option<PathBuf>,
    /// The most (state, log position) pairs one search visits, per variant (1 to 100,000,000).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STATES as u64, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub max_states: u64,
    /// Stop both searches after this many seconds in all (exit 3, the stop named).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=31_536_000))]
    pub timeout: Option<u64>,
    /// Stop a search when this process's resident memory exceeds MIB mebibytes (exit 3, the
    /// stop named). The default is half of this machine's memory, as for `check`.
    #[arg(long = "memory-limit", value_name = "MIB", default_value_t = webmcp_profiles::limits::default_memory_limit_mib(), value_parser = clap::value_parser!(u64).range(1..))]
    pub memory_limit: u64,
}

/// Ok((exit code, output)) or Err((exit code, one line)): 2 for an unreadable or malformed
/// log, 3 for one the model cannot express.
pub fn main(args: &Args) -> Result<(u8, String), (u8, String)> {
    let text = read(&args.log).map_err(|e| (2, format!("{}: {e}", args.log.display())))?;
    let bounds = Bounds {
        max_states: args.max_states as usize,
        start: Instant::now(),
        timeout: args.timeout.map(Duration::from_secs),
        memory_mib: Some(args.memory_limit),
    };
    let report = validate_within(&text, &bounds).map_err(|r| {
        let code = match r {
            Refusal::Malformed(_) => 2,
            Refusal::NotJudged(_) => 3,
        };
        (code, format!("{}: {r}", args.log.display()))
    })?;
    if let Some(path) = &args.emit_scenario {
        let text = serde_json::to_string_pretty(&report.scenario).expect("JSON values serialize");
        webmcp_traces::export::write_atomically(path, &(text + "\n"))
            .map_err(|e| (2, e.to_string()))?;
    }
    let out = match args.format {
        Format::Human => report.human(&text),
        Format::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&report.json()).expect("JSON values serialize")
        ),
    };
    Ok((report.exit_code(), out))
}

/// Why a log file cannot be read (the command prefixes the path).
#[derive(Debug)]
pub enum ReadError {
    /// The file cannot be opened or read.
    Io(std::io::Error),
    /// The file has more than `limit` bytes (only `limit + 1` were read).
    TooLarge { limit: usize },
    /// The file is not UTF-8 text: the line of its first byte that is not.
    NotUtf8 { line: usize },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TooLarge { limit } => write!(f, "the log is larger than {limit} bytes"),
            ReadError::NotUtf8 { line } => write!(f, "line {line}: the log is not UTF-8"),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io(e) => Some(e),
            ReadError::TooLarge { .. } | ReadError::NotUtf8 { .. } => None,
        }
    }
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> ReadError {
        ReadError::Io(e)
    }
}

/// The file, read only up to the size limit.
fn read(path: &std::path::Path) -> Result<String, ReadError> {
    let file = webmcp_checker::input::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_LOG_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() > MAX_LOG_BYTES {
        return Err(ReadError::TooLarge {
            limit: MAX_LOG_BYTES,
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        ReadError::NotUtf8 {
            line: 1 + valid.iter().filter(|&&b| b == b'\n').count(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log that is not there is an I/O error of kind NotFound, kept as the cause.
    #[test]
    fn a_missing_log_keeps_its_io_error() {
        use std::error::Error as _;
        let missing =
            std::env::temp_dir().join(format!("webmcp-no-such-log-{}.jsonl", std::process::id()));
        let e = read(&missing).unwrap_err();
        let io = e
            .source()
            .and_then(|s| s.downcast_ref::<std::io::Error>())
            .expect("an I/O error as the source");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(e.to_string(), io.to_string());
    }

    /// Bytes that are not UTF-8 are refused as such.
    #[test]
    fn a_log_that_is_not_utf8_is_refused() {
        let path =
            std::env::temp_dir().join(format!("webmcp-binary-log-{}.jsonl", std::process::id()));
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        let e = read(&path).unwrap_err();
        assert!(matches!(e, ReadError::NotUtf8 { line: 1 }), "{e:?}");
        assert_eq!(e.to_string(), "line 1: the log is not UTF-8");
        // On a later line: that line is named.
        std::fs::write(&path, b"{}\n{}\n{\"a\": \"\xff\"}\n").unwrap();
        let e = read(&path).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(e.to_string(), "line 3: the log is not UTF-8");
    }
}
