//! Why a scenario file is refused, and the checks every scenario file goes through before it
//! is compiled: its size, its encoding, its nesting, the grammar of the names it gives things.
//!
//! Both profiles (the draft's `scenarios/*.json` and the legacy `scenarios/legacy/*.json`)
//! report through [`ScenarioError`], whose `Display` is one sentence on one line: no text
//! from the file reaches it unescaped, so an error can be printed as a GitHub annotation or
//! put in a JUnit attribute as it is.

use std::fmt;

use crate::limits::{self, Limit};

/// A scenario that cannot be read or compiled: what is wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub at: Location,
    pub kind: ErrorKind,
}

/// Where in the file a [`ScenarioError`] is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// The file as a whole.
    File,
    /// A position in the text (1-based), as the JSON reader reports it.
    Text { line: usize, column: usize },
    /// A member of the scenario, as a path such as `scripts.top[3]` or `environment.abort`.
    Member(String),
}

/// What is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file could not be read.
    Unreadable(String),
    /// The text is not JSON, or not JSON of the scenario format (the reader's words).
    Syntax(String),
    /// A bound of [`crate::limits`] is exceeded: `subject` has `count` of what the limit
    /// counts (`None`: more than the bound, not counted further).
    Limit {
        subject: String,
        count: Option<usize>,
        limit: Limit,
    },
    /// A name outside its grammar (`rule` says which).
    BadName {
        what: &'static str,
        name: String,
        rule: &'static str,
    },
    /// Something declared or listed twice.
    Duplicate { what: &'static str, name: String },
    /// A reference to something the scenario does not declare.
    Unknown { what: &'static str, name: String },
    /// Any other rule of the format, in words.
    Invalid(String),
}

impl ScenarioError {
    pub fn new(at: Location, kind: ErrorKind) -> ScenarioError {
        ScenarioError { at, kind }
    }
    /// An error about the file as a whole.
    pub fn file(kind: ErrorKind) -> ScenarioError {
        ScenarioError::new(Location::File, kind)
    }
    /// An error about the member at `path`.
    pub fn at(path: impl Into<String>, kind: ErrorKind) -> ScenarioError {
        ScenarioError::new(Location::Member(path.into()), kind)
    }
    /// Any other rule of the format, about the member at `path` (empty: the file).
    pub fn invalid(path: &str, msg: impl Into<String>) -> ScenarioError {
        let at = if path.is_empty() {
            Location::File
        } else {
            Location::Member(path.to_string())
        };
        ScenarioError::new(at, ErrorKind::Invalid(msg.into()))
    }
    /// A bound exceeded.
    pub fn limit(
        path: &str,
        subject: impl Into<String>,
        count: Option<usize>,
        limit: Limit,
    ) -> ScenarioError {
        let kind = ErrorKind::Limit {
            subject: subject.into(),
            count,
            limit,
        };
        if path.is_empty() {
            ScenarioError::file(kind)
        } else {
            ScenarioError::at(path, kind)
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File => Ok(()),
            Location::Text { line, column } => write!(f, "line {line}, column {column}"),
            Location::Member(path) => f.write_str(&one_line(path, 200)),
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Unreadable(why) => write!(f, "cannot be read: {}", one_line(why, 300)),
            ErrorKind::Syntax(msg) | ErrorKind::Invalid(msg) => f.write_str(&one_line(msg, 600)),
            ErrorKind::Limit {
                subject,
                count,
                limit,
            } => {
                let subject = one_line(subject, 200);
                let (max, unit) = (limit.value(), limit.unit());
                match count {
                    Some(n) if unit == "characters" => write!(
                        f,
                        "{subject} is {n} characters long; at most {max} are allowed ({limit})"
                    ),
                    Some(n) => write!(
                        f,
                        "{subject} has {n} {unit}; at most {max} are allowed ({limit})"
                    ),
                    None => write!(
                        f,
                        "{subject} has more than {max} {unit}; at most {max} are allowed ({limit})"
                    ),
                }
            }
            ErrorKind::BadName { what, name, rule } => {
                write!(f, "the {what} {} {rule}", quoted(name))
            }
            ErrorKind::Duplicate { what, name } => {
                write!(f, "the {what} {} appears twice", quoted(name))
            }
            ErrorKind::Unknown { what, name } => write!(f, "no {what} named {}", quoted(name)),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Location::File => write!(f, "{}", self.kind),
            ref at => write!(f, "{at}: {}", self.kind),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// `s` in double quotes, escaped as a Rust string literal (so control characters, quotes and
/// line breaks show as escapes) and cut to 64 characters: safe in any one-line output.
pub fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for (i, c) in s.chars().enumerate() {
        if i == 64 {
            out.push('…');
            break;
        }
        out.extend(c.escape_debug());
    }
    out.push('"');
    out
}

/// `s` with every control character and line break escaped, cut to `max` characters: safe
/// to print on one line of a terminal, whatever a file or a page put in it.
pub fn one_line(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if is_unprintable(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `s`, a text of several lines, with every unprintable character but its line breaks
/// escaped: the last pass over a report that quotes what a file holds.
pub fn printable_lines(s: &str) -> String {
    s.split('\n')
        .map(|line| one_line(line, usize::MAX))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `s` as Markdown text: each character Markdown or HTML would read as markup is escaped
/// with a backslash, and line breaks and other unprintable characters are escaped (so that
/// nothing ends the paragraph or the table row).
pub fn markdown_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '~' | '[' | ']' | '<' | '>' | '|' | '#'
        ) {
            out.push('\\');
            out.push(c);
        } else if is_unprintable(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `s` as a Markdown code span: fenced by one more backtick than its longest run of them (so
/// nothing in it closes the span early), with line breaks and other unprintable characters
/// escaped (so nothing in it ends the paragraph).
pub fn markdown_code(s: &str) -> String {
    let mut text = String::new();
    let (mut run, mut longest) = (0, 0);
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
        if is_unprintable(c) {
            text.extend(c.escape_default());
        } else {
            text.push(c);
        }
    }
    if text.is_empty() {
        return "` `".into();
    }
    let fence = "`".repeat(longest + 1);
    let pad = if longest > 0 { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Control characters (C0, DEL, C1), the Unicode line and paragraph separators, and the
/// bidirectional overrides and isolates (which reorder how the rest of a line displays).
pub fn is_unprintable(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// The scenario name's grammar: `^[a-z0-9][a-z0-9._-]{0,63}$`. Names become file names
/// (traces, reports) and appear in every output format, so they are kept to characters that
/// are safe in a path, a shell word, a GitHub annotation and an XML attribute.
pub fn scenario_name_is_valid(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= limits::MAX_NAME_LEN
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter().all(|&c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'_' | b'-')
        })
}

/// Checks the scenario's `name`.
pub fn check_scenario_name(name: &str) -> Result<(), ScenarioError> {
    if scenario_name_is_valid(name) {
        return Ok(());
    }
    Err(ScenarioError::at(
        "name",
        ErrorKind::BadName {
            what: "scenario name",
            name: name.to_string(),
            rule: "must be 1 to 64 characters from a-z, 0-9, '.', '_' and '-', starting with a letter or digit",
        },
    ))
}

/// Checks a name the file gives something (a tab, navigable, document, agent, label,
/// AbortController, caller): non-empty, at most [`limits::MAX_NAME_LEN`] characters, no
/// control characters.
pub fn check_name(path: &str, what: &'static str, name: &str) -> Result<(), ScenarioError> {
    if name.is_empty() {
        return Err(ScenarioError::invalid(path, format!("the {what} is empty")));
    }
    check_len(path, what, name, Limit::NameLen)?;
    if name.chars().any(is_unprintable) {
        return Err(ScenarioError::at(
            path,
            ErrorKind::BadName {
                what,
                name: name.to_string(),
                rule: "contains a control character or line break",
            },
        ));
    }
    Ok(())
}

/// Checks a string the page passes to the API or writes in its markup (a tool name, title or
/// description, an origin, a URL, an `allow` attribute): any text at all, since a page can
/// pass any string and judging it is the draft's business (`register-tool#9` rejects a NUL
/// in a tool name, say), but at most [`limits::MAX_STRING_LEN`] characters. Outputs escape
/// such strings wherever they show them.
pub fn check_page_string(path: &str, what: &'static str, text: &str) -> Result<(), ScenarioError> {
    check_len(path, what, text, Limit::StringLen)
}

/// Checks a string the file describes itself with (its summary, its description, a property
/// name in `expect`, a legacy schedule entry): printable text (line feeds and tabs too when
/// `allow_newlines`), at most `limit` characters.
pub fn check_text(
    path: &str,
    what: &'static str,
    text: &str,
    limit: Limit,
    allow_newlines: bool,
) -> Result<(), ScenarioError> {
    check_len(path, what, text, limit)?;
    if text
        .chars()
        .any(|c| is_unprintable(c) && !(allow_newlines && matches!(c, '\n' | '\t')))
    {
        return Err(ScenarioError::at(
            path,
            ErrorKind::BadName {
                what,
                name: text.to_string(),
                rule: if allow_newlines {
                    "contains a control character other than a line feed or a tab"
                } else {
                    "contains a control character or line break"
                },
            },
        ));
    }
    Ok(())
}

fn check_len(path: &str, what: &'static str, s: &str, limit: Limit) -> Result<(), ScenarioError> {
    // Cheap first: a string of at most `max` bytes has at most `max` characters.
    if s.len() <= limit.value() {
        return Ok(());
    }
    let n = s.chars().count();
    if n <= limit.value() {
        return Ok(());
    }
    Err(ScenarioError::limit(
        path,
        format!("the {what} {}", quoted(s)),
        Some(n),
        limit,
    ))
}

/// The text of a scenario file, ready for the JSON reader: without a leading UTF-8 byte-order
/// mark, at most [`limits::MAX_SCENARIO_BYTES`] long, a JSON object (by its first character),
/// nested at most [`limits::MAX_JSON_DEPTH`] deep.
pub fn precheck(text: &str) -> Result<&str, ScenarioError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.len() > limits::MAX_SCENARIO_BYTES {
        return Err(ScenarioError::limit(
            "",
            "the scenario file",
            Some(text.len()),
            Limit::ScenarioBytes,
        ));
    }
    match text.trim_start().chars().next() {
        None => {
            return Err(ScenarioError::file(ErrorKind::Syntax(
                "the scenario file is empty; a scenario file must be a JSON object".into(),
            )))
        }
        Some('{') => {}
        Some(c) => {
            let (line, column) = position(text, text.len() - text.trim_start().len());
            return Err(ScenarioError::new(
                Location::Text { line, column },
                ErrorKind::Syntax(format!(
                    "a scenario file must be a JSON object (starting with '{{'), not {}",
                    match c {
                        '[' => "an array".to_string(),
                        '"' => "a string".to_string(),
                        c => format!("text starting with {}", quoted(&c.to_string())),
                    }
                )),
            ));
        }
    }
    check_depth(text)?;
    Ok(text)
}

/// Rejects arrays and objects nested deeper than [`limits::MAX_JSON_DEPTH`], before the JSON
/// reader recurses into them.
fn check_depth(text: &str) -> Result<(), ScenarioError> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limits::MAX_JSON_DEPTH {
                    let (line, column) = position(text, i);
                    return Err(ScenarioError::new(
                        Location::Text { line, column },
                        ErrorKind::Limit {
                            subject: "the scenario file".into(),
                            count: None,
                            limit: Limit::JsonDepth,
                        },
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The 1-based line and column (in characters) of byte offset `at`.
fn position(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// A JSON reader's error, with its position and without serde's type names.
pub fn from_serde(e: &serde_json::Error) -> ScenarioError {
    let msg = e.to_string();
    let msg = match msg.rfind(" at line ") {
        Some(i) => &msg[..i],
        None => &msg[..],
    };
    let kind = ErrorKind::Syntax(friendly(msg));
    if e.line() == 0 {
        ScenarioError::file(kind)
    } else {
        ScenarioError::new(
            Location::Text {
                line: e.line(),
                column: e.column(),
            },
            kind,
        )
    }
}

/// A scenario file the ordinary reader took, read again by [`crate::strict`]: a key given
/// twice in one object is refused at its line and column, an object given as an array at its
/// member.
pub fn strictly<T: serde::de::DeserializeOwned>(text: &str) -> Result<(), ScenarioError> {
    let value = crate::strict::json_value(text).map_err(|e| from_serde(&e))?;
    crate::strict::check::<T>(&value).map_err(|e| {
        let kind = ErrorKind::Syntax(friendly(&e.message));
        if e.path.is_empty() {
            ScenarioError::file(kind)
        } else {
            ScenarioError::at(e.path, kind)
        }
    })
}

/// serde names the Rust types it expected ("struct TabSpec with 2 elements"); say what the
/// file should hold instead.
fn friendly(msg: &str) -> String {
    const STRUCTS: [(&str, &str); 15] = [
        ("Scenario", "a scenario (a JSON object)"),
        ("TabSpec", "a tab (a JSON object)"),
        ("DocSpec", "a document (a JSON object)"),
        ("IframeSpec", "an iframe (a JSON object)"),
        ("NavigationSpec", "a navigation (a JSON object)"),
        ("OpSpec", "a statement (a JSON object)"),
        ("ToolSpec", "a registerTool dictionary (a JSON object)"),
        ("AnnotationsSpec", "annotations (a JSON object)"),
        ("GetToolsSpec", "getTools options (a JSON object)"),
        ("ToolRefSpec", "an executeTool tool (a JSON object)"),
        ("EnvironmentSpec", "an environment (a JSON object)"),
        ("LegacyScenario", "a legacy scenario (a JSON object)"),
        ("BrowserSpec", "a browser schedule (a JSON object)"),
        ("PageOpSpec", "a page call"),
        ("BodyStep", "a body step"),
    ];
    let mut out = msg.to_string();
    for (rust, what) in [
        ("expected u64", "expected a whole number of at least 0"),
        ("expected usize", "expected a whole number of at least 0"),
    ] {
        out = out.replace(rust, what);
    }
    for (name, what) in STRUCTS {
        for kind in ["struct", "enum"] {
            let pat = format!("{kind} {name}");
            while let Some(i) = out.find(&pat) {
                // "struct TabSpec with 2 elements" (a positional array): drop the count too.
                let mut end = i + pat.len();
                if out[end..].starts_with(" with ") {
                    if let Some(j) = out[end..].find(" element") {
                        end += j + " element".len();
                        if out[end..].starts_with('s') {
                            end += 1;
                        }
                    }
                }
                out.replace_range(i..end, what);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_lines_keeps_its_line_breaks_and_escapes_the_rest() {
        assert_eq!(
            printable_lines("a\r\n\u{202e}b\n\n\u{1b}[2J"),
            "a\\r\n\\u{202e}b\n\n\\u{1b}[2J"
        );
        assert_eq!(printable_lines("plain\ntext\n"), "plain\ntext\n");
    }

    #[test]
    fn scenario_names() {
        for ok in [
            "a",
            "register-and-discover",
            "family-tabs-3",
            "v1.2_x",
            &"a".repeat(64),
        ] {
            assert!(scenario_name_is_valid(ok), "{ok}");
        }
        for bad in [
            "",
            "../../x",
            "a/b",
            "A",
            "-a",
            ".a",
            "a b",
            "a\nb",
            "a\0",
            "é",
            &"a".repeat(65),
        ] {
            assert!(!scenario_name_is_valid(bad), "{bad:?}");
        }
    }

    #[test]
    fn quoting_keeps_one_line() {
        assert_eq!(quoted("a\nb\"c"), r#""a\nb\"c""#);
        assert_eq!(quoted(&"x".repeat(100)).chars().count(), 64 + 3);
        let e = ScenarioError::at("scripts.a\nb", ErrorKind::Invalid("x\r\ny".into()));
        assert!(!e.to_string().contains('\n'), "{e}");
        assert!(!e.to_string().contains('\r'), "{e}");
    }

    #[test]
    fn limits_read_as_one_sentence() {
        let e = ScenarioError::limit(
            "scripts.top",
            "document \"top\"",
            Some(300),
            Limit::Statements,
        );
        assert_eq!(
            e.to_string(),
            "scripts.top: document \"top\" has 300 statements; at most 200 are allowed (limits::MAX_STATEMENTS)"
        );
    }

    #[test]
    fn prechecks() {
        assert_eq!(precheck("\u{feff}{}").unwrap(), "{}");
        let e = precheck("[]").unwrap_err();
        assert!(e.to_string().contains("must be a JSON object"), "{e}");
        assert!(precheck("  ").unwrap_err().to_string().contains("empty"));
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(40), "]".repeat(40));
        let e = precheck(&deep).unwrap_err();
        assert!(e.to_string().contains("limits::MAX_JSON_DEPTH"), "{e}");
        assert!(e.to_string().starts_with("line 1, column "), "{e}");
        // Brackets inside strings do not count.
        let s = format!("{{\"a\": \"{}\\\"{}\"}}", "[".repeat(40), "{".repeat(40));
        assert!(precheck(&s).is_ok());
        let big = format!("{{\"a\": \"{}\"}}", "x".repeat(limits::MAX_SCENARIO_BYTES));
        let e = precheck(&big).unwrap_err();
        assert!(e.to_string().contains("limits::MAX_SCENARIO_BYTES"), "{e}");
    }

    #[test]
    fn serde_type_names_are_replaced() {
        assert_eq!(
            friendly("invalid length 0, expected struct TabSpec with 2 elements"),
            "invalid length 0, expected a tab (a JSON object)"
        );
        assert_eq!(
            friendly("invalid type: string \"x\", expected struct DocSpec"),
            "invalid type: string \"x\", expected a document (a JSON object)"
        );
        assert_eq!(
            friendly("invalid value: integer `-1`, expected u64"),
            "invalid value: integer `-1`, expected a whole number of at least 0"
        );
    }
}
