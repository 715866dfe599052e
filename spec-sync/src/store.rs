//! The stored table of fingerprints, `spec/step-fingerprints.tsv`.
//!
//! The format is plain text so that a change of the draft shows up as a readable diff in review:
//!
//! ```text
//! # source: webmachinelearning/webmcp index.bs@0023abdadad292a5017093c325894d0146fc4566
//! cancel-pending-execution#1<TAB>assert<TAB>baa5307d2aab5082<TAB>3f1c0a9e 5be1d7a2 ...
//! ```
//!
//! - The first line is the header, `# source: ` followed by a free label naming the text the
//!   table was taken from. No other comment lines are allowed.
//! - Every further line is one row: `id`, `kind` (see [`Kind::as_str`]), the fingerprint of the
//!   normalized text as 16 lowercase hex digits, and the text's word [`sketch`] (one 8-hex-digit
//!   hash per word), separated by single tabs. The store holds no sentence of the draft: the
//!   project ships no copy of the spec, and what a step used to say is read from our own
//!   paraphrase (`spec/webmcp-algorithms.md`, the step table).
//! - The file ends with a line feed; there are no blank lines. A line may end with CR LF (a
//!   checkout with Windows line endings): the CR is dropped.
//! - Every ID is a step ID ([`is_step_id`]), so a hand-edited row cannot name a step the parser
//!   would never give.
//!
//! Reading is strict, because a table that is silently misread would make the comparison lie:
//! every malformed row, unknown kind, bad fingerprint or sketch, and duplicate ID is an error
//! naming its line. Writing is deterministic: rows in source order.

use std::collections::BTreeMap;
use std::fmt;

use crate::normalize::{is_sketch, sketch, Fingerprint};
use crate::parse::{is_step_id, Kind, SourceStep};

/// One row of the stored table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredStep {
    pub id: String,
    pub kind: Kind,
    pub fingerprint: Fingerprint,
    /// The word [`sketch`] of the step's normalized text.
    pub sketch: String,
    /// 1-based line of the row in the store file (0 for rows not read from a file).
    pub line: usize,
}

impl From<&SourceStep> for StoredStep {
    fn from(s: &SourceStep) -> StoredStep {
        StoredStep {
            id: s.id.clone(),
            kind: s.kind,
            fingerprint: s.fingerprint,
            sketch: sketch(&s.text),
            line: 0,
        }
    }
}

/// A whole store file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Store {
    /// The label of the header line.
    pub source: String,
    /// In file order.
    pub steps: Vec<StoredStep>,
}

/// Why a store file could not be read. Line numbers are 1-based.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// The first line is not `# source: <label>`.
    MissingHeader,
    /// The header's label holds a control character (it is printed in reports, where one
    /// could drive the terminal).
    ControlInLabel,
    /// A row does not have exactly four tab-separated fields (a blank line or a comment line
    /// after the header is such a row).
    Malformed { line: usize, fields: usize },
    /// A row's ID is empty.
    EmptyId { line: usize },
    /// A row's ID is not a step ID ([`is_step_id`]). `id` is the field as written, shortened.
    BadId { line: usize, id: String },
    /// A row's kind is not one of the kinds.
    UnknownKind { line: usize, kind: String },
    /// A row's fingerprint is not 16 lowercase hex digits.
    BadFingerprint { line: usize, value: String },
    /// A row's fingerprint is not the fingerprint of its text (the row was edited by hand).
    BadSketch { line: usize },
    /// A row's text has a `\` escape other than `\\`, `\t`, `\n`, `\r`.
    BadEscape { line: usize },
    /// Two rows have the same ID.
    DuplicateId {
        id: String,
        line: usize,
        first_line: usize,
    },
    /// The file does not end with a line feed.
    NoFinalNewline,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::MissingHeader => write!(f, "Line 1 of the store is not the header \"# source: <label>\"."),
            StoreError::ControlInLabel => write!(f, "Line 1 of the store has a control character in its label."),
            StoreError::Malformed { line, fields } => {
                write!(f, "Line {line} of the store has {fields} tab-separated fields where a row has 4.")
            }
            StoreError::EmptyId { line } => write!(f, "Line {line} of the store has an empty step ID."),
            StoreError::BadId { line, id } => write!(
                f,
                "Line {line} of the store has \"{id}\" where a step ID such as register-tool#18.1 or \
                 execute-tool#3[name] belongs."
            ),
            StoreError::UnknownKind { line, kind } => {
                write!(f, "Line {line} of the store has the unknown kind \"{kind}\".")
            }
            StoreError::BadFingerprint { line, value } => write!(
                f,
                "Line {line} of the store has the fingerprint \"{value}\", which is not 16 lowercase hex digits."
            ),
            StoreError::BadSketch { line } => write!(
                f,
                "Line {line} of the store has a word sketch that is not 8-hex-digit tokens separated by spaces."
            ),
            StoreError::BadEscape { line } => {
                write!(f, "Line {line} of the store has a backslash escape other than \\\\, \\t, \\n or \\r.")
            }
            StoreError::DuplicateId { id, line, first_line } => {
                write!(f, "Line {line} of the store repeats the step ID \"{id}\" of line {first_line}.")
            }
            StoreError::NoFinalNewline => write!(f, "The store does not end with a line feed."),
        }
    }
}

impl std::error::Error for StoreError {}

const HEADER: &str = "# source: ";

/// Writes the table of `steps` (sorted into source order) with the header label `source`.
/// Control characters in the label (line breaks among them) are written as spaces.
pub fn write_store(source: &str, steps: &[SourceStep]) -> String {
    let mut sorted: Vec<&SourceStep> = steps.iter().collect();
    sorted.sort_by_key(|s| s.line);
    let label: String = source
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut out = format!("{HEADER}{label}\n");
    for s in sorted {
        out.push_str(&escape(&s.id));
        out.push('\t');
        out.push_str(s.kind.as_str());
        out.push('\t');
        out.push_str(&s.fingerprint.to_string());
        out.push('\t');
        out.push_str(&sketch(&s.text));
        out.push('\n');
    }
    out
}

/// Reads a store file. See the module documentation for what is rejected.
pub fn read_store(text: &str) -> Result<Store, StoreError> {
    let Some(body) = text.strip_suffix('\n') else {
        return Err(if text.is_empty() {
            StoreError::MissingHeader
        } else {
            StoreError::NoFinalNewline
        });
    };
    // A CR before each line feed is a checkout's line endings, not part of the row.
    let mut lines = body.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let header = lines.next().unwrap_or("");
    let Some(label) = header.strip_prefix(HEADER) else {
        return Err(StoreError::MissingHeader);
    };
    if label.chars().any(char::is_control) {
        return Err(StoreError::ControlInLabel);
    }
    let mut steps = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (index, row) in lines.enumerate() {
        let line = index + 2;
        let fields: Vec<&str> = row.split('\t').collect();
        if fields.len() != 4 {
            return Err(StoreError::Malformed {
                line,
                fields: fields.len(),
            });
        }
        let id = unescape(fields[0]).ok_or(StoreError::BadEscape { line })?;
        if id.is_empty() {
            return Err(StoreError::EmptyId { line });
        }
        if !is_step_id(&id) {
            return Err(StoreError::BadId {
                line,
                id: shorten(fields[0]),
            });
        }
        let kind = Kind::from_name(fields[1]).ok_or_else(|| StoreError::UnknownKind {
            line,
            kind: shorten(fields[1]),
        })?;
        let fingerprint =
            Fingerprint::from_hex(fields[2]).ok_or_else(|| StoreError::BadFingerprint {
                line,
                value: shorten(fields[2]),
            })?;
        let words = fields[3];
        if !is_sketch(words) {
            return Err(StoreError::BadSketch { line });
        }
        if let Some(&first_line) = seen.get(&id) {
            return Err(StoreError::DuplicateId {
                id,
                line,
                first_line,
            });
        }
        seen.insert(id.clone(), line);
        steps.push(StoredStep {
            id,
            kind,
            fingerprint,
            sketch: words.to_string(),
            line,
        });
    }
    Ok(Store {
        source: label.to_string(),
        steps,
    })
}

/// A field as an error shows it: at most 60 characters, so a garbled megabyte-long row still
/// gives a readable line.
fn shorten(field: &str) -> String {
    match field.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &field[..at]),
        None => field.to_string(),
    }
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            _ => out.push(c),
        }
    }
    out
}

fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push(match chars.next()? {
                '\\' => '\\',
                't' => '\t',
                'n' => '\n',
                'r' => '\r',
                _ => return None,
            });
        } else if c == '\r' {
            return None;
        } else {
            out.push(c);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(id: &str, text: &str, line: usize) -> SourceStep {
        SourceStep {
            id: id.into(),
            kind: Kind::Step,
            text: text.into(),
            fingerprint: Fingerprint::of(text),
            line,
        }
    }

    #[test]
    fn round_trip_with_escapes() {
        let steps = vec![
            step("b#2", "tab\there \\ back", 9),
            step("a#1", "line\nbreak", 3),
        ];
        let dirty = write_store("a\u{1b}[31mb\tc", &steps);
        assert!(dirty.starts_with("# source: a [31mb c\n"), "{dirty}");
        assert_eq!(
            read_store("# source: a\u{1b}[31m\n").unwrap_err(),
            StoreError::ControlInLabel
        );
        let text = write_store("label", &steps);
        assert!(text.starts_with("# source: label\na#1\tstep\t"));
        let store = read_store(&text).unwrap();
        assert_eq!(store.source, "label");
        assert_eq!(
            store
                .steps
                .iter()
                .map(|s| s.sketch.as_str())
                .collect::<Vec<_>>(),
            [sketch("line\nbreak"), sketch("tab\there \\ back")]
        );
        assert!(!text.contains("break") && !text.contains("back"));
        assert_eq!(store.steps[1].line, 3);
    }

    #[test]
    fn crlf_line_endings_read_as_lf() {
        let steps = [step("a#1", "A b", 1), step("a#2", "C", 2)];
        let lf = write_store("label", &steps);
        let crlf = lf.replace('\n', "\r\n");
        assert_eq!(read_store(&crlf), read_store(&lf));
        assert_eq!(read_store(&crlf).unwrap().source, "label");
        // A CR anywhere else is still refused.
        let inner = lf.replace("a#2", "a#2\r");
        assert_eq!(read_store(&inner), Err(StoreError::BadEscape { line: 3 }));
    }

    #[test]
    fn strictness() {
        let good = write_store("x", &[step("a#1", "A", 1)]);
        assert_eq!(read_store("nothing\n"), Err(StoreError::MissingHeader));
        assert_eq!(read_store(good.trim_end()), Err(StoreError::NoFinalNewline));
        assert_eq!(
            read_store(&format!("{good}\n")),
            Err(StoreError::Malformed { line: 3, fields: 1 })
        );
        assert_eq!(
            read_store(&format!("{good}# a comment\n")),
            Err(StoreError::Malformed { line: 3, fields: 1 })
        );
        let dup = format!("{good}{}", good.lines().nth(1).unwrap()) + "\n";
        assert_eq!(
            read_store(&dup),
            Err(StoreError::DuplicateId {
                id: "a#1".into(),
                line: 3,
                first_line: 2
            })
        );
        let bad_hex = good.replace(&Fingerprint::of("A").to_string(), "ZZZZZZZZZZZZZZZZ");
        assert!(matches!(
            read_store(&bad_hex),
            Err(StoreError::BadFingerprint { line: 2, .. })
        ));
        let sketch_a = sketch("A");
        let edited = good.replace(&format!("\t{sketch_a}\n"), "\tnot a sketch\n");
        assert_eq!(read_store(&edited), Err(StoreError::BadSketch { line: 2 }));
        let kind = good.replace("\tstep\t", "\tstair\t");
        assert!(matches!(
            read_store(&kind),
            Err(StoreError::UnknownKind { line: 2, .. })
        ));
        for bad in [
            "foo bar",
            "a#99999999999999999999999",
            "a#01",
            "a",
            "a#1]",
            "A#1",
        ] {
            let row = good.replace("a#1\t", &format!("{bad}\t"));
            assert_eq!(
                read_store(&row),
                Err(StoreError::BadId {
                    line: 2,
                    id: bad.into()
                }),
                "{bad}"
            );
        }
        let esc = good.replace("a#1\t", "a\\q#1\t");
        assert_eq!(read_store(&esc), Err(StoreError::BadEscape { line: 2 }));
        let long = good.replace("a#1\t", &format!("{}\t", "x y".repeat(1000)));
        let err = read_store(&long).unwrap_err().to_string();
        assert!(err.len() < 200 && err.contains("…\""), "{err}");
        assert!(StoreError::Malformed { line: 7, fields: 2 }
            .to_string()
            .contains("Line 7"));
    }
}
