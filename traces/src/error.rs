//! Why a trace command could not do its work: one sentence each, and the exit code it gives
//! (2 for a file that cannot be read, is too large or is not a valid trace, or an output
//! that cannot be written; 1 for a trace that does not replay).

use std::path::PathBuf;

use crate::limits::size_text;
use crate::minimize::MinimizeError;
use crate::replay::Divergence;

/// Why a trace command could not do its work.
#[derive(Debug)]
pub enum TraceError {
    /// The file could not be read.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file has more bytes than `limit` (only `limit + 1` were read).
    TooLarge {
        path: PathBuf,
        limit: u64,
        /// What the file was meant to be (`trace file`, `baseline file`).
        what: &'static str,
    },
    /// The file is not a valid trace (one line: what is wrong, and where).
    Malformed { path: PathBuf, reason: String },
    /// The trace is valid but the command does not apply to it (`minimize` of a trace that
    /// names no property).
    Unsupported { path: PathBuf, reason: String },
    /// The trace does not replay against its scenario, so the command refuses it.
    Diverged {
        path: PathBuf,
        divergence: Divergence,
        /// What the command would have done: `explained`, `minimised`.
        refused: &'static str,
    },
    /// The output cannot be written (checked before the work).
    Output { path: PathBuf, reason: String },
}

impl TraceError {
    /// The exit code of the command: 1 for a trace that does not replay, 2 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            TraceError::Diverged { .. } => 1,
            _ => 2,
        }
    }
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceError::Io { path, source } => {
                write!(f, "{}: cannot read it: {source}", path.display())
            }
            TraceError::TooLarge { path, limit, what } => write!(
                f,
                "{}: larger than {}, the limit for a {what}; not read",
                path.display(),
                size_text(*limit)
            ),
            TraceError::Malformed { path, reason } | TraceError::Unsupported { path, reason } => {
                write!(f, "{}: {reason}", path.display())
            }
            TraceError::Diverged {
                path,
                divergence,
                refused,
            } => write!(
                f,
                "{}: diverges at {divergence}; only a trace that replays is {refused}",
                path.display()
            ),
            TraceError::Output { path, reason } => write!(f, "{}: {reason}", path.display()),
        }
    }
}

impl std::error::Error for TraceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TraceError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Why a generated document (`docs/findings.md`, `docs/properties.md`) could not be made.
#[derive(Debug)]
pub enum DocError {
    /// A check or exploration the document rests on stopped at a bound.
    NotExhaustive {
        scenario: String,
        variant: String,
        /// What stopped: `check`, `exploration`.
        run: &'static str,
    },
    /// A violated property is not in the catalogue.
    UnknownProperty { name: String },
    /// A counterexample could not be minimised.
    Minimize(MinimizeError),
    /// No standard scenario witnesses these properties under `proposed`.
    Unwitnessed { properties: Vec<&'static str> },
    /// A question names a scenario that is not a standard one.
    QuestionScenario { scenario: String },
    /// No question sentence of the scenario's description contains what a question asks.
    QuestionNotAsked { scenario: String, asks: String },
    /// A question is answered by a property that is not in the catalogue.
    QuestionProperty { name: String },
}

impl std::fmt::Display for DocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DocError::NotExhaustive {
                scenario,
                variant,
                run,
            } => write!(
                f,
                "{scenario} under {variant}: the {run} was not exhaustive"
            ),
            DocError::UnknownProperty { name } => write!(f, "unknown property {name}"),
            DocError::Minimize(e) => write!(f, "{e}"),
            DocError::Unwitnessed { properties } => write!(
                f,
                "no standard scenario witnesses {} under proposed: the property may be vacuous",
                properties.join(", ")
            ),
            DocError::QuestionScenario { scenario } => {
                write!(f, "a question names the unknown scenario {scenario}")
            }
            DocError::QuestionNotAsked { scenario, asks } => {
                write!(f, "{scenario}: no question sentence contains {asks:?}")
            }
            DocError::QuestionProperty { name } => {
                write!(f, "a question names the unknown property {name}")
            }
        }
    }
}

impl std::error::Error for DocError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DocError::Minimize(e) => Some(e),
            _ => None,
        }
    }
}

impl From<MinimizeError> for DocError {
    fn from(e: MinimizeError) -> DocError {
        DocError::Minimize(e)
    }
}

/// Why `corpus` could not regenerate the corpus of findings.
#[derive(Debug)]
pub enum CorpusError {
    /// A scenario's check stopped at a bound, so its findings are not all known.
    NotExhaustive { scenario: String },
    /// Action `index` of a counterexample the checker found is not enabled where it is taken
    /// (a bug).
    NotEnabled { index: usize },
    /// A counterexample could not be minimised.
    Minimize(MinimizeError),
    /// The directory, or its index, could not be created or read.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A trace of a finding that no longer occurs could not be removed.
    Remove {
        file: String,
        source: std::io::Error,
    },
    /// A trace or the index could not be written.
    Write(TraceError),
    /// The directory holds an `INDEX.md` that is not a corpus index.
    NotACorpus { index: PathBuf, dir: PathBuf },
}

impl std::fmt::Display for CorpusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CorpusError::NotExhaustive { scenario } => {
                write!(f, "{scenario}: the check was not exhaustive")
            }
            CorpusError::NotEnabled { index } => {
                write!(f, "internal: action {index} is not enabled")
            }
            CorpusError::Minimize(e) => write!(f, "{e}"),
            CorpusError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            CorpusError::Remove { file, source } => write!(f, "{file}: {source}"),
            CorpusError::Write(e) => write!(f, "{e}"),
            CorpusError::NotACorpus { index, dir } => write!(
                f,
                "{}: not a corpus index, so {} is not a corpus: give --dir a new or empty directory, or the corpus's own",
                index.display(),
                dir.display()
            ),
        }
    }
}

impl std::error::Error for CorpusError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CorpusError::Minimize(e) => Some(e),
            CorpusError::Io { source, .. } | CorpusError::Remove { source, .. } => Some(source),
            CorpusError::Write(e) => Some(e),
            CorpusError::NotExhaustive { .. }
            | CorpusError::NotEnabled { .. }
            | CorpusError::NotACorpus { .. } => None,
        }
    }
}
