//! Why a conformance command (`conformance`, `record`, `legacy-conformance`) could not run:
//! each is one line on standard error and exit code 2.

use std::fmt;
use std::path::PathBuf;

use webmcp_browser::{NoChromium, RunError};
use webmcp_model::error::ScenarioError;
use webmcp_model::legacy::variant::LegacyVariantError;
use webmcp_model::variant::VariantError;
use webmcp_traces::error::TraceError;

use crate::wpt::Unwritten;

/// Why a conformance command could not run.
#[derive(Debug)]
pub enum ConformanceError {
    /// `--scenario NAME` names no scenario.
    UnknownScenario { name: String },
    /// A `--scenario-file` that cannot be read or does not compile.
    ScenarioFile {
        path: PathBuf,
        source: ScenarioError,
    },
    /// An embedded scenario's text is not JSON of a scenario.
    ScenarioJson {
        name: String,
        source: serde_json::Error,
    },
    /// The scenario asked for has no browser form (`why`).
    NoBrowserForm { name: String, why: String },
    /// A variant (`--wpt-variant`) that does not parse.
    Variant(VariantError),
    /// A legacy variant (`--variant`) that does not parse.
    LegacyVariant(LegacyVariantError),
    /// `--emit-wpt DIR` could not be written.
    Emit {
        dir: PathBuf,
        source: std::io::Error,
    },
    /// An output that is a directory.
    OutputIsDirectory { path: PathBuf },
    /// An output whose directory does not exist.
    NoOutputDirectory { path: PathBuf, parent: PathBuf },
    /// An output that cannot be created or written.
    Output(TraceError),
    /// A script a page loads (the polyfill, testharness.js) cannot be read; `install` says
    /// how to get it.
    Script {
        path: PathBuf,
        install: &'static str,
        source: std::io::Error,
    },
    /// A script larger than `limit_mib` MiB.
    ScriptTooLarge { path: PathBuf, limit_mib: u64 },
    /// A script that is not UTF-8 text.
    ScriptNotUtf8 { path: PathBuf },
    /// The polyfill implementation was asked for without its IIFE build.
    NoPolyfill,
    /// No Chromium binary.
    NoChromium(NoChromium),
    /// The browser run failed (the server could not bind, Chromium could not start).
    Browser { chromium: PathBuf, source: RunError },
    /// The legacy profile's browser run failed.
    LegacyBrowser(RunError),
    /// A served directory (`record DIR`, `--wpt-dir DIR`) that cannot be read.
    Dir(DirError),
    /// `record --page` names no file of the directory.
    NoSuchPage { page: String, dir: PathBuf },
    /// `--wpt-dir DIR` has no tests.
    NoTests { dir: PathBuf },
    /// `record --quiet` not shorter than `--page-timeout`: the pages could never go quiet
    /// in time.
    QuietNotBeforeTimeout { quiet: u64, page_timeout: u64 },
    /// `--wpt-dir` with a `--format` it does not write (human and json only).
    WptDirFormat { format: &'static str },
    /// A test the model's bound kept from being written.
    Unwritten(Unwritten),
    /// The browser run of web-platform tests failed.
    WptRun(RunError),
}

impl fmt::Display for ConformanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConformanceError::UnknownScenario { name } => write!(
                f,
                "unknown scenario \"{name}\" (webmcp-check list shows the scenarios)"
            ),
            ConformanceError::ScenarioFile { path, source } => {
                write!(f, "{}: {source}", path.display())
            }
            ConformanceError::ScenarioJson { name, source } => {
                write!(f, "scenario {name}: {source}")
            }
            ConformanceError::NoBrowserForm { name, why } => {
                write!(f, "scenario \"{name}\" has no browser form: {why}")
            }
            ConformanceError::Variant(e) => write!(f, "{e}"),
            ConformanceError::LegacyVariant(e) => write!(f, "{e}"),
            ConformanceError::Emit { dir, source } => write!(f, "{}: {source}", dir.display()),
            ConformanceError::OutputIsDirectory { path } => {
                write!(f, "{}: is a directory, not a file", path.display())
            }
            ConformanceError::NoOutputDirectory { path, parent } => write!(
                f,
                "{}: its directory {} does not exist",
                path.display(),
                parent.display()
            ),
            ConformanceError::Output(e) => write!(f, "{e}"),
            ConformanceError::Script {
                path,
                install,
                source,
            } => write!(f, "{}: {source} ({install})", path.display()),
            ConformanceError::ScriptTooLarge { path, limit_mib } => write!(
                f,
                "{}: larger than {limit_mib} MiB, the limit for a script file; not read",
                path.display()
            ),
            ConformanceError::ScriptNotUtf8 { path } => {
                write!(f, "{}: not UTF-8 text", path.display())
            }
            ConformanceError::NoPolyfill => {
                f.write_str("the polyfill implementation needs its IIFE build")
            }
            ConformanceError::NoChromium(e) => write!(f, "{e}"),
            ConformanceError::Browser { chromium, source } => {
                write!(f, "{}: {source}", chromium.display())
            }
            ConformanceError::LegacyBrowser(e) => write!(f, "browser run: {e}"),
            ConformanceError::Dir(e) => write!(f, "{e}"),
            ConformanceError::NoSuchPage { page, dir } => {
                write!(f, "{page}: no such file in {}", dir.display())
            }
            ConformanceError::NoTests { dir } => write!(
                f,
                "{}: no tests in webmcp/ (HTML files outside resources/)",
                dir.display()
            ),
            ConformanceError::QuietNotBeforeTimeout {
                quiet,
                page_timeout,
            } => write!(
                f,
                "--quiet {quiet} is not shorter than --page-timeout {page_timeout}: the pages could never go quiet in time"
            ),
            ConformanceError::WptDirFormat { format } => {
                write!(f, "--wpt-dir writes human or json, not --format {format}")
            }
            ConformanceError::Unwritten(u) => write!(f, "{u}"),
            ConformanceError::WptRun(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ConformanceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConformanceError::ScenarioFile { source, .. } => Some(source),
            ConformanceError::ScenarioJson { source, .. } => Some(source),
            ConformanceError::Variant(e) => Some(e),
            ConformanceError::LegacyVariant(e) => Some(e),
            ConformanceError::Emit { source, .. } | ConformanceError::Script { source, .. } => {
                Some(source)
            }
            ConformanceError::Output(e) => Some(e),
            ConformanceError::NoChromium(e) => Some(e),
            ConformanceError::Browser { source, .. } => Some(source),
            ConformanceError::LegacyBrowser(e) | ConformanceError::WptRun(e) => Some(e),
            ConformanceError::Dir(e) => Some(e),
            ConformanceError::UnknownScenario { .. }
            | ConformanceError::NoBrowserForm { .. }
            | ConformanceError::OutputIsDirectory { .. }
            | ConformanceError::NoOutputDirectory { .. }
            | ConformanceError::ScriptTooLarge { .. }
            | ConformanceError::ScriptNotUtf8 { .. }
            | ConformanceError::NoPolyfill
            | ConformanceError::NoSuchPage { .. }
            | ConformanceError::NoTests { .. }
            | ConformanceError::WptDirFormat { .. }
            | ConformanceError::QuietNotBeforeTimeout { .. }
            | ConformanceError::Unwritten(_) => None,
        }
    }
}

impl From<VariantError> for ConformanceError {
    fn from(e: VariantError) -> ConformanceError {
        ConformanceError::Variant(e)
    }
}

impl From<LegacyVariantError> for ConformanceError {
    fn from(e: LegacyVariantError) -> ConformanceError {
        ConformanceError::LegacyVariant(e)
    }
}

impl From<TraceError> for ConformanceError {
    fn from(e: TraceError) -> ConformanceError {
        ConformanceError::Output(e)
    }
}

impl From<NoChromium> for ConformanceError {
    fn from(e: NoChromium) -> ConformanceError {
        ConformanceError::NoChromium(e)
    }
}

impl From<DirError> for ConformanceError {
    fn from(e: DirError) -> ConformanceError {
        ConformanceError::Dir(e)
    }
}

/// Why a served directory cannot be read: it is not one, a file in it cannot be read, or
/// it exceeds a bound of `crate::record` (every file is untrusted).
#[derive(Debug)]
pub enum DirError {
    /// `path` (the directory, a file or a subdirectory) cannot be read.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    NotADirectory {
        path: PathBuf,
    },
    /// More than `limit` files.
    TooManyFiles {
        dir: PathBuf,
        limit: usize,
    },
    /// A file of more than `limit` bytes.
    FileTooLarge {
        path: PathBuf,
        limit: u64,
    },
    /// More than `limit` bytes in all.
    TooManyBytes {
        dir: PathBuf,
        limit: u64,
    },
    /// A file name that is not UTF-8.
    NotUtf8Name {
        path: PathBuf,
    },
}

impl fmt::Display for DirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DirError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            DirError::NotADirectory { path } => write!(f, "{}: not a directory", path.display()),
            DirError::TooManyFiles { dir, limit } => {
                write!(f, "{}: more than {limit} files", dir.display())
            }
            DirError::FileTooLarge { path, limit } => {
                write!(f, "{}: larger than {limit} bytes", path.display())
            }
            DirError::TooManyBytes { dir, limit } => {
                write!(f, "{}: more than {limit} bytes in all", dir.display())
            }
            DirError::NotUtf8Name { path } => {
                write!(f, "{}: not a UTF-8 file name", path.display())
            }
        }
    }
}

impl std::error::Error for DirError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DirError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
