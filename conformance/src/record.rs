//! `webmcp-check record`: serve a directory of pages on the two loopback origins with
//! `js/recorder.js` injected at the start of every HTML document, open one page in headless
//! Chromium, and write what the recorder reported as a log (docs/trace-validation.md).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};
use webmcp_browser::{run_pages_until, Completion, Origin, Origins, Resource, Site, Visit};

use crate::cli::ImplArg;
use crate::error::{ConformanceError, DirError};
use crate::page::{add_polyfill, POLYFILL_PATH};

pub const RECORDER_JS: &str = include_str!("../js/recorder.js");

/// The run name the recorder's reports carry, and so its endpoint.
const RUN: &str = "record";
const ENDPOINT: &str = "/__report?run=record";
/// A page is finished when nothing has been reported for this long (`record --quiet`'s
/// default, and `--wpt-dir`'s after testharness.js completes).
pub const QUIET: Duration = Duration::from_secs(2);

/// Bounds on the served directory (every file is untrusted).
pub const MAX_FILES: usize = 10_000;
pub const MAX_FILE_BYTES: u64 = 16 << 20;
pub const MAX_TOTAL_BYTES: u64 = 256 << 20;
/// Bounds on what the pages report.
pub const MAX_EVENTS: usize = 200_000;
const MAX_HEADER_LINES: usize = 64;

/// Text files in which `{{first-origin}}` and `{{second-origin}}` are replaced.
const TEXT_EXTENSIONS: &[&str] = &["html", "htm", "js", "mjs", "css", "json", "txt", "svg"];

#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// The directory whose files are served, on both origins, at the same paths.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The page to open, relative to DIR (served on the first origin), e.g. index.html.
    #[arg(long, value_name = "PATH")]
    pub page: String,
    /// Which implementation the pages use.
    #[arg(long = "impl", value_enum, default_value = "chromium")]
    pub imp: ImplArg,
    /// The Chromium binary [default: $WEBMCP_CHROMIUM, else $CHROMIUM, else /usr/bin/chromium].
    #[arg(long, value_name = "PATH")]
    pub chromium: Option<PathBuf>,
    /// The polyfill's IIFE build (installed by `npm ci` in browser/js).
    #[arg(
        long,
        default_value = "browser/js/node_modules/webmcp-polyfill-5/dist/index.iife.js"
    )]
    pub polyfill: PathBuf,
    /// Seconds the pages may take to go quiet (3 to 600; more than --quiet).
    #[arg(long, value_name = "SECONDS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(3..=600))]
    pub page_timeout: u64,
    /// Seconds without a report after which the pages count as finished (1 to 300). The
    /// recorder cannot tell a page that has finished from one that waits: what a page does
    /// after this long a silence is not recorded, so give a page that acts late more.
    #[arg(long, value_name = "SECONDS", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=300))]
    pub quiet: u64,
    /// Where to write the log.
    #[arg(short = 'o', long = "output", value_name = "LOG")]
    pub output: PathBuf,
}

/// What one recording produced.
#[derive(Debug)]
pub struct Recording {
    pub collected: Collected,
    /// Reports posted to the endpoint that are not the recorder's (a page's own).
    pub others: Vec<Value>,
    /// Whether the pages went quiet within the timeout.
    pub quiet: bool,
    /// Reports the collector refused (their events are lost).
    pub refused: usize,
}

/// Serves `args.dir`, opens `args.page` and collects what the recorder reports.
pub fn record(args: &Args) -> Result<Recording, ConformanceError> {
    if args.quiet >= args.page_timeout {
        return Err(ConformanceError::QuietNotBeforeTimeout {
            quiet: args.quiet,
            page_timeout: args.page_timeout,
        });
    }
    let files = read_dir(&args.dir)?;
    let (page_file, query) = match args.page.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (args.page.as_str(), None),
    };
    let page_path = format!("/{}", page_file.trim_start_matches('/'));
    if !files.iter().any(|f| f.path == page_path) {
        return Err(ConformanceError::NoSuchPage {
            page: args.page.clone(),
            dir: args.dir.clone(),
        });
    }
    let chromium_path = webmcp_browser::resolve_chromium(args.chromium.as_deref())?;
    let (chromium, polyfill) =
        crate::cli::implementation(&chromium_path, args.imp, &args.polyfill)?;
    let visit_path = match query {
        Some(q) => format!("{page_path}?{q}"),
        None => page_path,
    };
    let outcomes = run_pages_until(
        &chromium,
        |origins| {
            let mut site = site(&files, origins, polyfill.is_some());
            if let Some(iife) = &polyfill {
                add_polyfill(&mut site, iife);
            }
            let visit = Visit {
                run: RUN.into(),
                origin: Origin::Primary,
                path: visit_path.clone(),
            };
            (site, vec![visit])
        },
        Completion::Quiet(Duration::from_secs(args.quiet)),
        Duration::from_secs(args.page_timeout),
        webmcp_browser::say_why_silent,
    )
    .map_err(|source| ConformanceError::Browser {
        chromium: chromium_path.clone(),
        source,
    })?;
    let outcome = outcomes.into_iter().next().expect("one visit");
    let (mine, others): (Vec<Value>, Vec<Value>) = outcome
        .reports
        .into_iter()
        .map(|r| r.value)
        .partition(|v| v.get("webmcpRecorder").is_some());
    Ok(Recording {
        collected: collect(&mine),
        others,
        quiet: outcome.done.is_some(),
        refused: outcome.refused,
    })
}

/// Runs the command: Ok((exit code, what to print)) or Err(one line, exit 2).
///
/// Exit codes: 0 the log is written and the pages went quiet; 3 the log is written but
/// incomplete (the pages did not go quiet within --page-timeout, reported nothing, reported
/// more than [`MAX_EVENTS`] events, had reports refused or malformed, had a document without
/// the API, or inserted a frame whose document never reported: the recorder was not in it).
pub fn main(args: &Args) -> Result<(u8, String), ConformanceError> {
    crate::cli::writable(&args.output)?;
    let Recording {
        collected,
        quiet,
        refused,
        ..
    } = record(args)?;
    webmcp_traces::export::write_atomically(&args.output, &write_log(&collected.events))?;
    let docs = collected
        .events
        .iter()
        .filter(|e| e["kind"] == "document")
        .count();
    let mut text = format!(
        "recorded {} events from {docs} documents to {}\n",
        collected.events.len(),
        args.output.display()
    );
    let missing = what_is_missing(&collected, quiet, refused, args.page_timeout);
    for why in &missing {
        text.push_str(&format!("incomplete: {why}\n"));
    }
    let code = if missing.is_empty() { 0 } else { 3 };
    Ok((code, text))
}

/// Why a recording is incomplete, one reason each: what the log may lack. Empty when the
/// pages went quiet and everything they reported is in the log.
pub(crate) fn what_is_missing(
    collected: &Collected,
    quiet: bool,
    refused: usize,
    page_timeout: u64,
) -> Vec<String> {
    let mut why = Vec::new();
    if collected.malformed > 0 {
        // The recorder writes none: a page forged them, or the recorder's reports were
        // damaged. Either way the log may lack what they were meant to say.
        why.push(format!(
            "ignored {} malformed reports or events",
            collected.malformed
        ));
    }
    // The recorder's notes of what it could not record (recorder.js: "is absent", "are not
    // recorded", "is not recorded", "runs no recorder"), each named as it said it.
    for e in &collected.events {
        let Some(text) = e["text"].as_str().filter(|_| e["kind"] == "note") else {
            continue;
        };
        if ["is absent", "not recorded", "runs no recorder"]
            .iter()
            .any(|m| text.contains(m))
        {
            why.push(format!(
                "{}: {}",
                e["doc"].as_str().unwrap_or("a document"),
                webmcp_model::error::one_line(text, 200)
            ));
        }
    }
    if !quiet {
        why.push(format!(
            "the pages did not go quiet within {page_timeout} s"
        ));
    }
    if collected.truncated {
        why.push(format!("only the first {MAX_EVENTS} events are kept"));
    }
    if refused > 0 {
        why.push(format!(
            "{refused} of the pages' reports were refused (larger than {} MiB, not JSON, or past {} MiB for the run): their events are missing",
            webmcp_browser::server::MAX_BODY >> 20,
            webmcp_browser::server::MAX_RUN_REPORT_BYTES >> 20
        ));
    }
    for (doc, frame) in unreported_frames(&collected.events) {
        why.push(format!(
            "frame {frame} of {doc} was inserted but no document reported as being in it (the recorder is only in UTF-8 HTML files of the directory: not in srcdoc or about:blank documents, nor in files served as another type; or a document could not learn its frame from its parent): what it did may be missing"
        ));
    }
    if collected.events.is_empty() {
        why.push("no document reported (is the recorder's page HTML?)".into());
    }
    why
}

/// The frames (document id, frame id) an insert event names and no document event claims as
/// its frame: a document the recorder was not in.
fn unreported_frames(events: &[Value]) -> Vec<(String, String)> {
    let text = |v: &Value| v.as_str().map(str::to_string);
    let inserted: std::collections::BTreeSet<(String, String)> = events
        .iter()
        .filter(|e| e["kind"] == "frame" && e["action"] == "insert")
        .filter_map(|e| Some((text(&e["doc"])?, text(&e["frame"])?)))
        .collect();
    let reported: std::collections::BTreeSet<(String, String)> = events
        .iter()
        .filter(|e| e["kind"] == "document")
        .filter_map(|e| Some((text(&e["parent"])?, text(&e["frame"])?)))
        .collect();
    inserted.difference(&reported).cloned().collect()
}

/// One file of the served directory: its URL path and bytes.
#[derive(Clone, Debug)]
pub struct File {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// The files under `dir` (symbolic links are not followed), within the bounds.
pub fn read_dir(dir: &Path) -> Result<Vec<File>, DirError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| DirError::Io { path, source }
    };
    let meta = std::fs::metadata(dir).map_err(io(dir))?;
    if !meta.is_dir() {
        return Err(DirError::NotADirectory {
            path: dir.to_path_buf(),
        });
    }
    let mut out = Vec::new();
    let mut total = 0u64;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(io(&d))?;
        for entry in entries {
            let entry = entry.map_err(io(&d))?;
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).map_err(io(&path))?;
            if meta.is_dir() {
                stack.push(path);
                continue;
            }
            if !meta.is_file() {
                continue;
            }
            if out.len() >= MAX_FILES {
                return Err(DirError::TooManyFiles {
                    dir: dir.to_path_buf(),
                    limit: MAX_FILES,
                });
            }
            if meta.len() > MAX_FILE_BYTES {
                return Err(DirError::FileTooLarge {
                    path,
                    limit: MAX_FILE_BYTES,
                });
            }
            total += meta.len();
            if total > MAX_TOTAL_BYTES {
                return Err(DirError::TooManyBytes {
                    dir: dir.to_path_buf(),
                    limit: MAX_TOTAL_BYTES,
                });
            }
            let rel = path.strip_prefix(dir).expect("under dir");
            let Some(rel) = rel.to_str() else {
                return Err(DirError::NotUtf8Name { path });
            };
            let bytes = std::fs::read(&path).map_err(io(&path))?;
            out.push(File {
                path: format!("/{}", rel.replace('\\', "/")),
                bytes,
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn extension(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map_or("", |(_, e)| e)
}

fn content_type(path: &str) -> &'static str {
    match extension(path).to_ascii_lowercase().as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "wasm" => "application/wasm",
        _ => "application/octet-stream",
    }
}

/// `FILE.headers` (as in web-platform-tests): `Name: value` lines sent with FILE.
fn headers_of(files: &[File], path: &str) -> Vec<(String, String)> {
    let name = format!("{path}.headers");
    let Some(f) = files.iter().find(|f| f.path == name) else {
        return Vec::new();
    };
    String::from_utf8_lossy(&f.bytes)
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .filter(|(n, v)| {
            !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !v.contains(['\r', '\n'])
                && !n.eq_ignore_ascii_case("content-length")
                && !n.eq_ignore_ascii_case("connection")
        })
        .take(MAX_HEADER_LINES)
        .collect()
}

/// The site: every file on both origins (`.headers` files are not served), origin
/// placeholders replaced, and the recorder injected into HTML documents.
pub fn site(files: &[File], origins: &Origins, polyfill: bool) -> Site {
    let mut site = Site::new();
    for f in files {
        if f.path.ends_with(".headers") {
            continue;
        }
        let ext = extension(&f.path).to_ascii_lowercase();
        let mut body = f.bytes.clone();
        if TEXT_EXTENSIONS.contains(&ext.as_str()) {
            if let Ok(text) = String::from_utf8(body.clone()) {
                let mut text = text
                    .replace("{{first-origin}}", &origins.primary)
                    .replace("{{second-origin}}", &origins.secondary);
                if ext == "html" || ext == "htm" {
                    text = inject(&text, polyfill);
                }
                body = text.into_bytes();
            }
        }
        let resource = Resource {
            content_type: content_type(&f.path).into(),
            headers: headers_of(files, &f.path),
            body,
        };
        site.add_everywhere(&f.path, resource);
    }
    site
}

/// The scripts put at the start of every HTML document: the polyfill (if any), then the
/// recorder.
pub fn scripts(polyfill: bool) -> String {
    let mut out = String::new();
    if polyfill {
        out.push_str(&format!("<script src=\"{POLYFILL_PATH}\"></script>"));
    }
    out.push_str(&format!(
        "<script data-endpoint=\"{ENDPOINT}\">\n{RECORDER_JS}</script>"
    ));
    out
}

/// `html` with [`scripts`] inserted after its doctype (before it, a script would put the
/// document in quirks mode), or at its start.
pub fn inject(html: &str, polyfill: bool) -> String {
    let body = html.strip_prefix('\u{feff}').unwrap_or(html);
    let trimmed = body.trim_start();
    let lead = body.len() - trimmed.len();
    let at = if trimmed
        .get(..9)
        .is_some_and(|s| s.eq_ignore_ascii_case("<!doctype"))
    {
        trimmed.find('>').map_or(0, |i| lead + i + 1)
    } else {
        0
    };
    format!("{}{}{}", &body[..at], scripts(polyfill), &body[at..])
}

/// What the pages reported, in log order.
#[derive(Debug, Default, PartialEq)]
pub struct Collected {
    pub events: Vec<Value>,
    pub malformed: usize,
    pub truncated: bool,
}

/// The events of the recorder's reports (`{"webmcpRecorder": 1, "events": [...]}`), in
/// arrival order except that each document's events are put in its `dseq` order (a
/// document's last reports can overtake each other when it goes away), with document ids
/// renamed `d0`, `d1`, … in order of appearance.
pub fn collect(reports: &[Value]) -> Collected {
    let mut out = Collected::default();
    for report in reports {
        let Some(events) = report
            .get("events")
            .and_then(Value::as_array)
            .filter(|_| report.get("webmcpRecorder") == Some(&Value::from(1)))
        else {
            out.malformed += 1;
            continue;
        };
        for e in events {
            let ok = e.get("doc").is_some_and(Value::is_string)
                && e.get("dseq").is_some_and(Value::is_u64)
                && e.get("kind").is_some_and(Value::is_string)
                && e.get("seq").is_none();
            if !ok {
                out.malformed += 1;
            } else if out.events.len() >= MAX_EVENTS {
                out.truncated = true;
            } else {
                out.events.push(e.clone());
            }
        }
    }
    // Per document: its events into its own slots, in dseq order.
    let mut slots: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, e) in out.events.iter().enumerate() {
        slots
            .entry(e["doc"].as_str().unwrap().to_string())
            .or_default()
            .push(i);
    }
    let mut ordered = out.events.clone();
    for positions in slots.values() {
        let mut mine: Vec<&Value> = positions.iter().map(|&i| &out.events[i]).collect();
        mine.sort_by_key(|e| e["dseq"].as_u64());
        for (&at, e) in positions.iter().zip(mine) {
            ordered[at] = e.clone();
        }
    }
    out.events = rename(ordered);
    out
}

/// Renames the recorder's document ids (and the ids it derives from them, `DOC.cN`, …) to
/// `d0`, `d1`, … in order of first appearance.
fn rename(events: Vec<Value>) -> Vec<Value> {
    let mut names: HashMap<String, String> = HashMap::new();
    let mut doc = |old: &str| -> String {
        let n = names.len();
        names
            .entry(old.to_string())
            .or_insert_with(|| format!("d{n}"))
            .clone()
    };
    let mut out = Vec::with_capacity(events.len());
    for mut e in events {
        let obj = e.as_object_mut().expect("checked");
        rename_doc(obj.get_mut("doc"), &mut doc);
        rename_doc(obj.get_mut("parent"), &mut doc);
        for k in ["call", "invocation", "controller"] {
            rename_derived(obj.get_mut(k), &mut doc);
        }
        if let Some(args) = obj.get_mut("args").and_then(Value::as_object_mut) {
            rename_derived(args.get_mut("signal"), &mut doc);
            if let Some(tool) = args.get_mut("tool").and_then(Value::as_object_mut) {
                rename_doc(tool.get_mut("window"), &mut doc);
                rename_derived(tool.get_mut("list"), &mut doc);
            }
        }
        if obj.get("kind").and_then(Value::as_str) == Some("settle") {
            if let Some(list) = obj.get_mut("value").and_then(Value::as_array_mut) {
                for t in list {
                    if let Some(t) = t.as_object_mut() {
                        rename_doc(t.get_mut("window"), &mut doc);
                    }
                }
            }
        }
        out.push(e);
    }
    out
}

fn rename_doc(v: Option<&mut Value>, doc: &mut impl FnMut(&str) -> String) {
    if let Some(Value::String(s)) = v {
        *s = doc(s);
    }
}

fn rename_derived(v: Option<&mut Value>, doc: &mut impl FnMut(&str) -> String) {
    if let Some(Value::String(s)) = v {
        if let Some((d, rest)) = s.split_once('.') {
            *s = format!("{}.{rest}", doc(d));
        }
    }
}

/// The log: the header line, then one line per event with `seq` (its position) added.
pub fn write_log(events: &[Value]) -> String {
    let mut out = String::from("{\"format\":\"webmcp-log\",\"version\":1}\n");
    for (seq, e) in events.iter().enumerate() {
        let mut line = Map::new();
        line.insert("seq".into(), Value::from(seq));
        if let Some(obj) = e.as_object() {
            for (k, v) in obj {
                if k != "seq" {
                    line.insert(k.clone(), v.clone());
                }
            }
        }
        out.push_str(&Value::Object(line).to_string());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    /// A quiet as long as the page timeout could never end a run: refused before anything
    /// is read or started.
    #[test]
    fn a_quiet_not_shorter_than_the_timeout_is_refused() {
        let a = super::Args {
            dir: "/nonexistent".into(),
            page: "index.html".into(),
            imp: crate::cli::ImplArg::Chromium,
            chromium: None,
            polyfill: "".into(),
            page_timeout: 5,
            quiet: 5,
            output: "/nonexistent/log.jsonl".into(),
        };
        let e = super::record(&a).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--quiet 5 is not shorter than --page-timeout 5"),
            "{e}"
        );
    }

    /// A recording is complete only when nothing it could lack is missing: each cause is
    /// named on its own, and a quiet, whole recording names none.
    #[test]
    fn each_thing_a_recording_lacks_is_named() {
        let document =
            serde_json::json!({"kind": "document", "doc": "d0", "parent": null, "frame": null});
        let whole = super::Collected {
            events: vec![document.clone()],
            malformed: 0,
            truncated: false,
        };
        assert!(super::what_is_missing(&whole, true, 0, 15).is_empty());
        let absent = super::Collected {
            events: vec![
                document,
                serde_json::json!({"kind": "note", "doc": "d0", "text": "document.modelContext is absent: nothing is recorded"}),
            ],
            malformed: 2,
            truncated: true,
        };
        let why = super::what_is_missing(&absent, false, 1, 15);
        for expected in [
            "ignored 2 malformed",
            "d0: document.modelContext is absent",
            "did not go quiet within 15 s",
            "only the first",
            "1 of the pages' reports were refused",
        ] {
            assert!(
                why.iter().any(|w| w.contains(expected)),
                "{expected}: {why:?}"
            );
        }
        assert_eq!(why.len(), 5, "{why:?}");
        let nothing = super::Collected {
            events: vec![],
            malformed: 0,
            truncated: false,
        };
        assert_eq!(super::what_is_missing(&nothing, true, 0, 15).len(), 1);
    }

    /// A frame counts as reported once a document names it as its frame; one no document
    /// names (a srcdoc or non-UTF-8 document the recorder was not in) is listed.
    #[test]
    fn a_frame_whose_document_never_reported_is_listed() {
        let events = vec![
            serde_json::json!({"kind": "document", "doc": "d0", "parent": null, "frame": null}),
            serde_json::json!({"kind": "frame", "action": "insert", "doc": "d0", "frame": "f0"}),
            serde_json::json!({"kind": "frame", "action": "insert", "doc": "d0", "frame": "f1"}),
            serde_json::json!({"kind": "document", "doc": "d1", "parent": "d0", "frame": "f0"}),
            serde_json::json!({"kind": "frame", "action": "insert", "doc": "d1", "frame": "f0"}),
        ];
        assert_eq!(
            super::unreported_frames(&events),
            [
                ("d0".to_string(), "f1".to_string()),
                ("d1".to_string(), "f0".to_string())
            ]
        );
        assert!(super::unreported_frames(&events[..1]).is_empty());
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn the_log_is_a_header_then_events_numbered_in_order() {
        let events = vec![
            json!({"doc": "d0", "dseq": 0, "kind": "document", "url": "u", "parent": null}),
            json!({"doc": "d0", "dseq": 1, "kind": "event", "type": "toolchange"}),
        ];
        let log = write_log(&events);
        let lines: Vec<Value> = log
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0], json!({"format": "webmcp-log", "version": 1}));
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1]["seq"], 0);
        assert_eq!(lines[1]["kind"], "document");
        assert_eq!(lines[1]["parent"], Value::Null);
        assert_eq!(lines[2]["seq"], 1);
        assert_eq!(lines[2]["type"], "toolchange");
        assert!(log.ends_with('\n'));
        assert_eq!(
            write_log(&[]),
            "{\"format\":\"webmcp-log\",\"version\":1}\n"
        );
    }

    #[test]
    fn collect_orders_each_document_by_dseq_and_renames_ids() {
        let reports = vec![
            json!({"webmcpRecorder": 1, "events": [
                {"doc": "xa", "dseq": 0, "kind": "document", "parent": null},
                {"doc": "xa", "dseq": 2, "kind": "settle", "call": "xa.c0",
                 "value": [{"name": "t", "origin": "o", "window": "xb"}]},
            ]}),
            json!({"webmcpRecorder": 1, "events": [
                {"doc": "xb", "dseq": 0, "kind": "document", "parent": "xa"},
                {"doc": "xa", "dseq": 1, "kind": "call", "call": "xa.c0",
                 "args": {"tool": {"window": "xb", "list": "xb.c4"}, "signal": "xa.a0"}},
            ]}),
            json!({"something": "else"}),
            json!({"webmcpRecorder": 1, "events": [{"doc": "xa", "kind": "x"}, 5]}),
        ];
        let c = collect(&reports);
        assert_eq!(c.malformed, 3);
        assert!(!c.truncated);
        let seen: Vec<(String, u64)> = c
            .events
            .iter()
            .map(|e| {
                (
                    e["doc"].as_str().unwrap().into(),
                    e["dseq"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("d0".into(), 0),
                ("d0".into(), 1),
                ("d1".into(), 0),
                ("d0".into(), 2)
            ]
        );
        assert_eq!(c.events[1]["call"], "d0.c0");
        assert_eq!(c.events[1]["args"]["tool"]["window"], "d1");
        assert_eq!(c.events[1]["args"]["tool"]["list"], "d1.c4");
        assert_eq!(c.events[1]["args"]["signal"], "d0.a0");
        assert_eq!(c.events[2]["parent"], "d0");
        assert_eq!(c.events[3]["value"][0]["window"], "d1");
    }

    #[test]
    fn injection_goes_after_the_doctype_or_first() {
        let s = scripts(false);
        assert!(s.starts_with("<script data-endpoint=\"/__report?run=record\">"));
        assert_eq!(
            RECORDER_JS.matches("</").count(),
            0,
            "closes the inline script"
        );
        let a = inject("<!DOCTYPE html>\n<p>x", false);
        assert!(a.starts_with(&format!("<!DOCTYPE html>{s}\n<p>x")));
        let b = inject("<p>x", true);
        assert!(b.starts_with("<script src=\"/__impl/"));
        assert!(b.ends_with(&format!("{s}<p>x")));
        let c = inject("\u{feff}  <!doctype html><p>", false);
        assert_eq!(c, format!("  <!doctype html>{s}<p>"));
    }

    #[test]
    fn the_site_serves_files_on_both_origins_with_placeholders_and_headers() {
        let files = vec![
            File {
                path: "/a.html".into(),
                bytes: b"<!doctype html><iframe src=\"{{second-origin}}/b.html\">".to_vec(),
            },
            File {
                path: "/a.html.headers".into(),
                bytes: b"Origin-Agent-Cluster: ?0\nbad header\nBad Name: y\n".to_vec(),
            },
            File {
                path: "/img.png".into(),
                bytes: vec![0x89, b'{', b'{'],
            },
        ];
        let origins = Origins {
            primary: "http://127.0.0.1:1".into(),
            secondary: "http://localhost:2".into(),
        };
        let site = site(&files, &origins, false);
        for o in Origin::ALL {
            let a = site.get(o, "/a.html").unwrap();
            let text = String::from_utf8(a.body.clone()).unwrap();
            assert!(text.contains("src=\"http://localhost:2/b.html\""));
            assert!(text.contains("data-endpoint"));
            assert_eq!(a.headers, [("Origin-Agent-Cluster".into(), "?0".into())]);
            assert_eq!(a.content_type, "text/html; charset=utf-8");
            assert!(site.get(o, "/a.html.headers").is_none());
            assert_eq!(site.get(o, "/img.png").unwrap().body, files[2].bytes);
        }
    }

    #[test]
    fn a_missing_or_oversized_directory_is_one_error() {
        let e = read_dir(Path::new("/nonexistent/webmcp")).unwrap_err();
        match &e {
            DirError::Io { path, source } => {
                assert_eq!(path, Path::new("/nonexistent/webmcp"));
                assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
            }
            other => panic!("{other:?}"),
        }
        assert!(e.to_string().starts_with("/nonexistent/webmcp: "), "{e}");
        let dir = std::env::temp_dir().join(format!("webmcp-record-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/x.html"), "x").unwrap();
        let files = read_dir(&dir).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path, "/sub/x.html");
        let big = std::fs::File::create(dir.join("big.bin")).unwrap();
        big.set_len(MAX_FILE_BYTES + 1).unwrap();
        let e = read_dir(&dir).unwrap_err();
        assert!(matches!(e, DirError::FileTooLarge { .. }), "{e:?}");
        assert!(e.to_string().contains("big.bin: larger than"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
