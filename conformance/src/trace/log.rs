//! Reading a recorded log (`docs/trace-validation.md`, format version 1). The log is
//! untrusted: every line is checked, and the first problem is reported with its line.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Deserialize;
use serde_json::Value;
use webmcp_model::strict::json_value;

/// The largest log read, in bytes.
pub const MAX_LOG_BYTES: usize = 64 << 20;
/// The most events a log may have.
pub const MAX_EVENTS: usize = 1_000_000;
/// The longest line, in bytes.
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// An event's `seq` or `dseq`: a whole number from 0, said apart from a missing one.
fn counter(v: Option<Value>, name: &str) -> Result<u64, String> {
    match v {
        None => Err(format!("the event has no \"{name}\"")),
        Some(v) => v.as_u64().ok_or_else(|| {
            format!(
                "the event's \"{name}\" is {}, not a whole number from 0 to {}",
                webmcp_model::error::one_line(&v.to_string(), 40),
                u64::MAX
            )
        }),
    }
}

/// The format version this reader understands.
pub const VERSION: u64 = 1;

/// Why a log cannot be read: where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogError {
    /// 1-based line; 0 for the log as a whole.
    pub line: usize,
    pub what: String,
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.what)
        } else {
            write!(f, "line {}: {}", self.line, self.what)
        }
    }
}

impl std::error::Error for LogError {}

fn at(line: usize, what: impl Into<String>) -> LogError {
    LogError {
        line,
        what: what.into(),
    }
}

/// How a promise settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Fulfilled,
    Rejected,
}

/// The API method a `call` event names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Method {
    #[serde(rename = "registerTool")]
    RegisterTool,
    #[serde(rename = "getTools")]
    GetTools,
    #[serde(rename = "executeTool")]
    ExecuteTool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FrameAction {
    Insert,
    Remove,
    Navigate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum By {
    Script,
    Environment,
}

/// The signal the tool's `execute` callback received: not aborted, aborted, or none at
/// all (the draft always passes one, so `none` is an observation the model never makes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SignalState {
    Live,
    Aborted,
    None,
}

/// One event, without its common fields.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Event {
    Document {
        url: String,
        parent: Option<String>,
        frame: Option<String>,
        #[serde(default)]
        allow: Option<String>,
        #[serde(rename = "originKeyed")]
        origin_keyed: bool,
    },
    Call {
        call: String,
        method: Method,
        args: Value,
    },
    Settle {
        call: String,
        outcome: Outcome,
        #[serde(default, deserialize_with = "present")]
        value: Option<Value>,
        #[serde(default, deserialize_with = "a_string")]
        error: Option<String>,
    },
    Invoke {
        invocation: String,
        tool: String,
        input: Option<String>,
        signal: SignalState,
    },
    BodySettle {
        invocation: String,
        outcome: Outcome,
        #[serde(default, deserialize_with = "present")]
        value: Option<Value>,
        #[serde(default, deserialize_with = "a_string")]
        error: Option<String>,
    },
    Event {
        #[serde(rename = "type")]
        ty: String,
    },
    Abort {
        controller: String,
    },
    Frame {
        action: FrameAction,
        frame: String,
        by: By,
    },
    /// Something outside the draft or the recorder's reach; not judged.
    Note {
        text: String,
    },
}

/// A field that, where it is there, is a string (`null` is not: absent is `None`, by
/// `default`).
fn a_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

/// A field that is there, `null` included (absent: `None`, by `default`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// An event with its place in the log.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub seq: usize,
    pub doc: String,
    pub dseq: usize,
    /// The line it was read from (1-based).
    pub line: usize,
    pub event: Event,
}

/// A log that passed every check of this module.
#[derive(Clone, Debug)]
pub struct Log {
    pub entries: Vec<Entry>,
}

impl Log {
    /// Each document's events in log order, keyed by document id (one pass over the log).
    pub fn by_document(&self) -> std::collections::BTreeMap<&str, Vec<&Entry>> {
        let mut out: std::collections::BTreeMap<&str, Vec<&Entry>> = Default::default();
        for e in &self.entries {
            out.entry(e.doc.as_str()).or_default().push(e);
        }
        out
    }

    /// Every document, in the order of their `document` events.
    pub fn documents(&self) -> Vec<&Entry> {
        self.entries
            .iter()
            .filter(|e| matches!(e.event, Event::Document { .. }))
            .collect()
    }
}

/// Reads a log: the header, then one event per line, checking the order of `seq` and `dseq`,
/// that each document's first event is its `document` event, and that every call,
/// invocation and document an event names appeared before it.
pub fn parse(text: &str) -> Result<Log, LogError> {
    if text.len() > MAX_LOG_BYTES {
        return Err(at(
            0,
            format!(
                "the log is {} bytes, more than the limit of {MAX_LOG_BYTES}",
                text.len()
            ),
        ));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (_, header) = lines
        .next()
        .ok_or_else(|| at(0, "the log is empty; its first line must be the header"))?;
    let header: Value =
        json_value(header).map_err(|e| at(1, format!("the header is not JSON: {e}")))?;
    if header["format"] != "webmcp-log"
        || header
            .as_object()
            .is_some_and(|h| h.keys().any(|k| k != "format" && k != "version"))
    {
        return Err(at(
            1,
            "the header must be {\"format\": \"webmcp-log\", \"version\": 1}",
        ));
    }
    if header["version"].as_u64() != Some(VERSION) {
        let version = match &header["version"] {
            Value::Number(n) => webmcp_model::error::one_line(&n.to_string(), 40),
            Value::Null => "(missing)".into(),
            _ => "(not a number)".into(),
        };
        return Err(at(
            1,
            format!(
                "format version {version} is not one this reader knows (it reads version {VERSION})"
            ),
        ));
    }
    let mut entries = Vec::new();
    let mut next_dseq: BTreeMap<String, usize> = BTreeMap::new();
    let mut calls: BTreeMap<String, (String, Method)> = BTreeMap::new();
    let mut settled: BTreeSet<String> = BTreeSet::new();
    let mut invocations: BTreeMap<String, String> = BTreeMap::new();
    let mut body_settled: BTreeSet<String> = BTreeSet::new();
    for (line, raw) in lines {
        if raw.trim().is_empty() {
            continue;
        }
        if raw.len() > MAX_LINE_BYTES {
            return Err(at(
                line,
                format!("the line is longer than {MAX_LINE_BYTES} bytes"),
            ));
        }
        if entries.len() >= MAX_EVENTS {
            return Err(at(
                line,
                format!("the log has more than {MAX_EVENTS} events"),
            ));
        }
        let mut v: Value = json_value(raw).map_err(|e| {
            if e.is_data() {
                // JSON, but with a key twice: the reader's words and the column.
                let what = e.to_string();
                let what = what.split(" at line ").next().unwrap_or_default();
                at(line, format!("{what} (column {})", e.column()))
            } else if e.is_eof() {
                at(
                    line,
                    format!("not a JSON object ({e}); a truncated log ends mid-line"),
                )
            } else {
                at(line, format!("not a JSON object ({e})"))
            }
        })?;
        let Some(obj) = v.as_object_mut() else {
            return Err(at(line, "an event must be a JSON object"));
        };
        let mut field = |name: &str| obj.remove(name);
        let seq = counter(field("seq"), "seq").map_err(|why| at(line, why))?;
        let doc = match field("doc") {
            Some(Value::String(d)) if !d.is_empty() && d.len() <= 200 => d,
            _ => {
                return Err(at(
                    line,
                    "the event has no \"doc\" (a non-empty string of at most 200 bytes)",
                ))
            }
        };
        let dseq = counter(field("dseq"), "dseq").map_err(|why| at(line, why))?;
        if seq != entries.len() as u64 {
            return Err(at(
                line,
                format!(
                    "\"seq\" is {seq} where {} was expected (events out of order, or some missing)",
                    entries.len()
                ),
            ));
        }
        let event: Event = serde_json::from_value(v).map_err(|e| at(line, e.to_string()))?;
        let expected = next_dseq.get(&doc).copied();
        match (&event, expected) {
            (Event::Document { .. }, None) => {}
            (Event::Document { .. }, Some(_)) => {
                return Err(at(
                    line,
                    format!("document \"{doc}\" has a second \"document\" event"),
                ))
            }
            (_, None) => {
                return Err(at(
                    line,
                    format!("document \"{doc}\" has events before its \"document\" event"),
                ))
            }
            _ => {}
        }
        let want = expected.unwrap_or(0) as u64;
        if dseq != want {
            return Err(at(
                line,
                format!(
                    "\"dseq\" of document \"{doc}\" is {dseq} where {want} was expected (its events out of order, or some missing)"
                ),
            ));
        }
        next_dseq.insert(doc.clone(), want as usize + 1);
        check_references(
            line,
            &doc,
            &event,
            &next_dseq,
            &mut calls,
            &mut settled,
            &mut invocations,
            &mut body_settled,
        )?;
        entries.push(Entry {
            seq: seq as usize,
            doc,
            dseq: dseq as usize,
            line,
            event,
        });
    }
    if entries.is_empty() {
        return Err(at(0, "the log has a header and no events"));
    }
    Ok(Log { entries })
}

/// A tool an `executeTool` call names: through `list`, an earlier `getTools` call of the
/// log; without it, through `window`, a document of the log.
fn check_tool_reference(
    line: usize,
    tool: Option<&Value>,
    docs: &BTreeMap<String, usize>,
    calls: &BTreeMap<String, (String, Method)>,
) -> Result<(), LogError> {
    let Some(tool) = tool.filter(|t| !t.is_null()) else {
        return Ok(());
    };
    only_members(
        line,
        "an executeTool call's tool",
        tool,
        &["name", "origin", "window", "list"],
    )?;
    match tool.get("list").filter(|l| !l.is_null()) {
        Some(Value::String(list)) => match calls.get(list) {
            Some((_, Method::GetTools)) => Ok(()),
            Some(_) => Err(at(
                line,
                format!("the tool's \"list\" names call \"{list}\", which is not a getTools call"),
            )),
            None => Err(at(
                line,
                format!("the tool's \"list\" names call \"{list}\", which has not appeared in the log yet"),
            )),
        },
        Some(_) => Err(at(line, "the tool's \"list\" must be a call's name")),
        None => check_window(line, tool.get("window"), docs),
    }
}

/// A tool's `window`, where given, names a document of the log.
fn check_window(
    line: usize,
    window: Option<&Value>,
    docs: &BTreeMap<String, usize>,
) -> Result<(), LogError> {
    match window.filter(|w| !w.is_null()) {
        None => Ok(()),
        Some(Value::String(w)) if docs.contains_key(w) => Ok(()),
        Some(Value::String(w)) => Err(at(
            line,
            format!("the tool's \"window\" names document \"{w}\", which has not appeared in the log yet"),
        )),
        Some(_) => Err(at(line, "a tool's \"window\" must be a document's name")),
    }
}

/// A settlement has what its outcome gives, and only that: a fulfilment its `value`, a
/// rejection its `error`.
fn check_outcome(
    line: usize,
    outcome: Outcome,
    value: &Option<Value>,
    error: &Option<String>,
) -> Result<(), LogError> {
    match (outcome, value, error) {
        (Outcome::Rejected, _, None) => Err(at(line, "a rejection needs its \"error\" name")),
        (Outcome::Rejected, Some(_), _) => Err(at(line, "a rejection has no \"value\"")),
        (Outcome::Fulfilled, None, _) => Err(at(
            line,
            "a fulfilment needs its \"value\" (null for undefined)",
        )),
        (Outcome::Fulfilled, _, Some(_)) => Err(at(line, "a fulfilment has no \"error\"")),
        _ => Ok(()),
    }
}

/// A call's `args` is an object with only the members its method has
/// (`docs/trace-validation.md`).
fn check_args(line: usize, method: Method, args: &Value) -> Result<(), LogError> {
    let (name, members): (&str, &[&str]) = match method {
        Method::RegisterTool => (
            "registerTool",
            &[
                "name",
                "description",
                "title",
                "inputSchema",
                "annotations",
                "exposedTo",
                "signal",
            ],
        ),
        Method::GetTools => ("getTools", &["fromOrigins"]),
        Method::ExecuteTool => ("executeTool", &["tool", "input", "signal"]),
    };
    if !args.is_object() {
        return Err(at(
            line,
            format!("the \"args\" of a {name} call must be an object"),
        ));
    }
    only_members(
        line,
        &format!("the \"args\" of a {name} call"),
        args,
        members,
    )
}

/// `what`, where it is an object, has no member but `members`.
fn only_members(line: usize, what: &str, v: &Value, members: &[&str]) -> Result<(), LogError> {
    let Some(k) = v
        .as_object()
        .and_then(|o| o.keys().find(|k| !members.contains(&k.as_str())))
    else {
        return Ok(());
    };
    Err(at(
        line,
        format!(
            "{what} has no member \"{}\" (it has {})",
            webmcp_model::error::one_line(k, 40),
            members.join(", ")
        ),
    ))
}

#[allow(clippy::too_many_arguments)]
fn check_references(
    line: usize,
    doc: &str,
    event: &Event,
    docs: &BTreeMap<String, usize>,
    calls: &mut BTreeMap<String, (String, Method)>,
    settled: &mut BTreeSet<String>,
    invocations: &mut BTreeMap<String, String>,
    body_settled: &mut BTreeSet<String>,
) -> Result<(), LogError> {
    match event {
        Event::Document { parent, frame, .. } => {
            if let Some(p) = parent {
                // The document is already in `docs` (its own event counted), so its own name
                // would pass the check below.
                if p == doc {
                    return Err(at(
                        line,
                        format!("document \"{doc}\" names itself as its parent"),
                    ));
                }
                if !docs.contains_key(p) {
                    return Err(at(
                        line,
                        format!("the parent \"{p}\" has not appeared in the log yet"),
                    ));
                }
                if frame.is_none() {
                    return Err(at(line, "a document with a parent needs its \"frame\""));
                }
            }
        }
        Event::Call { call, method, args } => {
            check_args(line, *method, args)?;
            if *method == Method::ExecuteTool {
                check_tool_reference(line, args.get("tool"), docs, calls)?;
            }
            if calls
                .insert(call.clone(), (doc.to_string(), *method))
                .is_some()
            {
                return Err(at(line, format!("call \"{call}\" appears twice")));
            }
        }
        Event::Settle {
            call,
            outcome,
            value,
            error,
        } => {
            let made = calls.get(call);
            if made.map(|(d, _)| d.as_str()) != Some(doc) {
                return Err(at(
                    line,
                    format!(
                        "call \"{call}\" settles, but no earlier event of this document made it"
                    ),
                ));
            }
            if !settled.insert(call.clone()) {
                return Err(at(line, format!("call \"{call}\" settles twice")));
            }
            if let (Some((_, Method::GetTools)), Some(Value::Array(tools))) = (made, value) {
                for tool in tools {
                    only_members(line, "a listed tool", tool, &["name", "origin", "window"])?;
                    check_window(line, tool.get("window"), docs)?;
                }
            }
            check_outcome(line, *outcome, value, error)?;
        }
        Event::Invoke { invocation, .. } => {
            if invocations
                .insert(invocation.clone(), doc.to_string())
                .is_some()
            {
                return Err(at(
                    line,
                    format!("invocation \"{invocation}\" appears twice"),
                ));
            }
        }
        Event::BodySettle {
            invocation,
            outcome,
            value,
            error,
        } => {
            check_outcome(line, *outcome, value, error)?;
            if invocations.get(invocation).map(String::as_str) != Some(doc) {
                return Err(at(
                    line,
                    format!("invocation \"{invocation}\" settles, but no earlier event of this document invoked it"),
                ));
            }
            if !body_settled.insert(invocation.clone()) {
                return Err(at(
                    line,
                    format!("invocation \"{invocation}\" settles twice"),
                ));
            }
        }
        Event::Event { .. } | Event::Abort { .. } | Event::Frame { .. } | Event::Note { .. } => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "{\"format\": \"webmcp-log\", \"version\": 1}\n";

    fn log(lines: &[&str]) -> String {
        let mut out = HEADER.to_string();
        for l in lines {
            out.push_str(l);
            out.push('\n');
        }
        out
    }

    const DOC: &str = r#"{"seq": 0, "doc": "d0", "dseq": 0, "kind": "document", "url": "https://a.example/", "parent": null, "frame": null, "originKeyed": true}"#;

    #[test]
    fn a_small_log_reads() {
        let l = parse(&log(&[
            DOC,
            r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "call", "call": "c0", "method": "getTools", "args": {}}"#,
            r#"{"seq": 2, "doc": "d0", "dseq": 2, "kind": "settle", "call": "c0", "outcome": "fulfilled", "value": []}"#,
        ]))
        .unwrap();
        assert_eq!(l.entries.len(), 3);
        assert_eq!(l.documents().len(), 1);
    }

    #[test]
    fn bad_logs_name_their_line() {
        let cases: Vec<(String, &str)> = vec![
            (String::new(), "empty"),
            ("{\"format\": \"other\"}\n".into(), "header"),
            (
                "{\"format\": \"webmcp-log\", \"version\": 2}\n".into(),
                "version 2",
            ),
            (
                "{\"format\": \"webmcp-log\", \"version\": 18446744073709551616}\n".into(),
                "format version 1.8446744073709552e+19 is not one this reader knows",
            ),
            (
                "{\"format\": \"webmcp-log\", \"version\": 1.0}\n".into(),
                "format version 1.0 is not one this reader knows",
            ),
            (
                "{\"format\": \"webmcp-log\", \"version\": 1, \"extra\": 5}\n".into(),
                "line 1: the header must be",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "call", "call": "c0", "method": "getTools", "args": 5}"#,
                ]),
                "line 3: the \"args\" of a getTools call must be an object",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "call", "call": "c0", "method": "getTools", "args": {"bogus": 1}}"#,
                ]),
                "line 3: the \"args\" of a getTools call has no member \"bogus\" (it has fromOrigins)",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "call", "call": "c0", "method": "getTools", "args": {}}"#,
                    r#"{"seq": 2, "doc": "d0", "dseq": 2, "kind": "settle", "call": "c0", "outcome": "fulfilled", "value": [], "error": "TypeError"}"#,
                ]),
                "line 4: a fulfilment has no \"error\"",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "call", "call": "c0", "method": "getTools", "args": {}}"#,
                    r#"{"seq": 2, "doc": "d0", "dseq": 2, "kind": "settle", "call": "c0", "outcome": "fulfilled", "value": [], "error": null}"#,
                ]),
                "line 4: invalid type: null, expected a string",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "call", "call": "c0", "method": "getTools", "args": {}}"#,
                    r#"{"seq": 2, "doc": "d0", "dseq": 2, "kind": "settle", "call": "c0", "outcome": "fulfilled", "value": [{"name": "t", "origin": "https://a.example", "window": "d0", "zzz": 1}]}"#,
                ]),
                "line 4: a listed tool has no member \"zzz\" (it has name, origin, window)",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "call", "call": "c0", "method": "executeTool", "args": {"tool": {"name": "t", "origin": "https://a.example", "window": "d0", "bogus": 1}, "input": {}}}"#,
                ]),
                "line 3: an executeTool call's tool has no member \"bogus\"",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "invoke", "invocation": "i", "tool": "t", "input": null, "signal": "live"}"#,
                    r#"{"seq": 2, "doc": "d0", "dseq": 2, "kind": "body-settle", "invocation": "i", "outcome": "rejected"}"#,
                ]),
                "line 4: a rejection needs its \"error\" name",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "invoke", "invocation": "i", "tool": "t", "input": null, "signal": "live"}"#,
                    r#"{"seq": 2, "doc": "d0", "dseq": 2, "kind": "body-settle", "invocation": "i", "outcome": "fulfilled", "value": 1, "error": "E"}"#,
                ]),
                "line 4: a fulfilment has no \"error\"",
            ),
            (
                log(&[DOC, "{\"seq\": 1\u{0}}"]),
                "line 3: not a JSON object",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 18446744073709551616, "doc": "d0", "dseq": 1, "kind": "event", "type": "toolchange"}"#,
                ]),
                "line 3: the event's \"seq\" is 1.8446744073709552e+19, not a whole number",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": -1, "kind": "event", "type": "toolchange"}"#,
                ]),
                "the event's \"dseq\" is -1, not a whole number",
            ),
            (
                log(&[
                    DOC,
                    r#"{"doc": "d0", "dseq": 1, "kind": "event", "type": "toolchange"}"#,
                ]),
                "line 3: the event has no \"seq\"",
            ),
            (log(&[&DOC[..DOC.len() - 10]]), "line 2: not a JSON object"),
            (
                log(&[
                    DOC,
                    r#"{"seq": 5, "doc": "d0", "dseq": 1, "kind": "event", "type": "toolchange"}"#,
                ]),
                "line 3: \"seq\" is 5",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 3, "kind": "event", "type": "toolchange"}"#,
                ]),
                "\"dseq\" of document \"d0\" is 3",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "teleport"}"#,
                ]),
                "unknown variant `teleport`",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "settle", "call": "c9", "outcome": "fulfilled", "value": null}"#,
                ]),
                "no earlier event of this document made it",
            ),
            (
                log(&[
                    r#"{"seq": 0, "doc": "d1", "dseq": 0, "kind": "event", "type": "toolchange"}"#,
                ]),
                "before its \"document\" event",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "call", "call": "c0", "method": "getTools", "args": {}, "extra": 1}"#,
                ]),
                "unknown field `extra`",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "seq": 1, "kind": "event", "type": "toolchange"}"#,
                ]),
                "line 3: the key \"seq\" is given twice in one object (column 40)",
            ),
            (
                log(&[
                    DOC,
                    r#"{"seq": 1, "doc": "d0", "dseq": 1, "kind": "settle", "call": "c0", "outcome": "fulfilled", "value": {"a": 1, "a": 2}}"#,
                ]),
                "the key \"a\" is given twice",
            ),
            (
                "{\"format\": \"webmcp-log\", \"version\": 1, \"version\": 1}\n".into(),
                "line 1: the header is not JSON: the key \"version\" is given twice",
            ),
        ];
        for (text, want) in cases {
            let e = parse(&text).unwrap_err().to_string();
            assert!(e.contains(want), "{want:?} not in {e:?}");
            assert_eq!(e.lines().count(), 1, "{e}");
        }
        // Only a line that ends early is said to be perhaps truncated.
        let nul = parse(&log(&[DOC, "{\"seq\": 1\u{0}}"])).unwrap_err();
        assert!(!nul.to_string().contains("truncated"), "{nul}");
        let cut = parse(&log(&[&DOC[..DOC.len() - 10]])).unwrap_err();
        assert!(cut.to_string().contains("truncated"), "{cut}");
    }

    #[test]
    fn a_huge_log_is_refused_before_it_is_read() {
        let huge = "x".repeat(MAX_LOG_BYTES + 1);
        let e = parse(&huge).unwrap_err();
        assert_eq!(e.line, 0);
        assert!(e.what.contains("more than the limit"));
    }
}
