//! The recorder in real Chromium: a fixture site of our own (tests/fixtures/record) is
//! recorded and the log's events are checked. Ignored when Chromium is missing, unless
//! WEBMCP_REQUIRE_BROWSER=1.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use webmcp_conformance::cli::ImplArg;
use webmcp_conformance::record::{self, Args, Recording};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/record")
}

fn args(page: &str, output: PathBuf) -> Args {
    Args {
        dir: fixtures(),
        page: page.into(),
        imp: ImplArg::Chromium,
        chromium: Some(webmcp_browser::chromium_for_tests()),
        polyfill: PathBuf::new(),
        page_timeout: 30,
        quiet: 2,
        output,
    }
}

/// Records `a`'s page: the exit code, what was printed, the log, and the log's lines as
/// JSON (its header first). The log file is removed.
fn recorded(a: &Args) -> (u8, String, String, Vec<Value>) {
    let (code, text) = record::main(a).unwrap();
    let log = std::fs::read_to_string(&a.output).unwrap();
    std::fs::remove_file(&a.output).unwrap();
    let lines = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (code, text, log, lines)
}

fn by_kind<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["kind"] == kind).collect()
}

/// Whether this Chromium has the draft's document.modelContext (148 does not).
fn has_draft_api(events: &[Value]) -> bool {
    !events
        .iter()
        .any(|e| e["kind"] == "note" && e["text"].as_str().unwrap_or("").contains("absent"))
}

#[test]
#[cfg_attr(
    webmcp_no_chromium,
    ignore = "no Chromium at $WEBMCP_CHROMIUM or /usr/bin/chromium (WEBMCP_REQUIRE_BROWSER=1 makes this a failure)"
)]
fn records_a_page_and_its_cross_origin_frame() {
    let out = std::env::temp_dir().join(format!("webmcp-record-{}.jsonl", std::process::id()));
    let (code, text, log, lines) = recorded(&args("index.html", out));
    assert_eq!(
        lines[0],
        serde_json::json!({"format": "webmcp-log", "version": 1})
    );
    let events = &lines[1..];
    // A browser without the draft's API records nothing of it: incomplete, said so.
    let expected = if has_draft_api(events) { 0 } else { 3 };
    assert_eq!(code, expected, "{text}");
    // seq: 0, 1, 2, ...; dseq: 0, 1, 2, ... per document, the document event first.
    let mut next: HashMap<&str, u64> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["seq"], i as u64, "{e}");
        let doc = e["doc"].as_str().unwrap();
        let n = next.entry(doc).or_default();
        assert_eq!(e["dseq"], *n, "{e}");
        assert_eq!(*n == 0, e["kind"] == "document", "{e}");
        *n += 1;
    }
    let docs = by_kind(events, "document");
    assert_eq!(docs.len(), 2, "{log}");
    let (top, child) = (docs[0], docs[1]);
    assert_eq!(top["doc"], "d0");
    assert_eq!(top["parent"], Value::Null);
    assert_eq!(top["frame"], Value::Null);
    assert!(top["url"].as_str().unwrap().contains("/index.html"));
    assert_eq!(top["originKeyed"], true);
    assert_eq!(child["parent"], "d0");
    assert_eq!(child["frame"], "f0");
    assert_eq!(child["allow"], "tools");
    assert!(child["url"]
        .as_str()
        .unwrap()
        .starts_with("http://localhost:"));
    let frames: Vec<(&str, &str)> = by_kind(events, "frame")
        .iter()
        .map(|e| (e["action"].as_str().unwrap(), e["frame"].as_str().unwrap()))
        .collect();
    assert_eq!(frames, [("insert", "f0"), ("remove", "f0")], "{log}");
    if !has_draft_api(events) {
        return;
    }
    let calls = by_kind(events, "call");
    let settles = by_kind(events, "settle");
    // Every call settles once, after it.
    for c in &calls {
        let id = &c["call"];
        let s: Vec<_> = settles.iter().filter(|s| &s["call"] == id).collect();
        assert_eq!(s.len(), 1, "{c}\n{log}");
        assert!(s[0]["seq"].as_u64() > c["seq"].as_u64());
    }
    let call = |method: &str, n: usize| -> &Value {
        calls
            .iter()
            .filter(|c| c["method"] == method)
            .nth(n)
            .unwrap()
    };
    let settle_of =
        |c: &Value| -> &Value { settles.iter().find(|s| s["call"] == c["call"]).unwrap() };
    let echo = call("registerTool", 0);
    assert_eq!(echo["doc"], "d0");
    assert_eq!(
        echo["args"],
        serde_json::json!({
            "name": "echo", "description": "echoes its input", "title": "Echo",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "number"}}},
            "annotations": {"readOnlyHint": true},
        })
    );
    assert_eq!(settle_of(echo)["outcome"], "fulfilled");
    assert_eq!(settle_of(echo)["value"], Value::Null);
    let doomed = call("registerTool", 1);
    let controller = doomed["args"]["signal"].as_str().unwrap();
    assert_eq!(controller, "d0.a0");
    let aborts = by_kind(events, "abort");
    assert_eq!(aborts.len(), 1);
    assert_eq!(aborts[0]["controller"], controller);
    let duplicate = call("registerTool", 2);
    assert_eq!(settle_of(duplicate)["outcome"], "rejected");
    assert_eq!(duplicate["args"]["description"], "a duplicate");
    // The list holds the top's tools, in the top's window.
    let list = call("getTools", 0);
    assert_eq!(list["args"], serde_json::json!({}));
    let tools = settle_of(list)["value"].as_array().unwrap();
    assert!(
        tools
            .iter()
            .any(|t| t["name"] == "echo" && t["window"] == "d0"),
        "{log}"
    );
    let exec = call("executeTool", 0);
    assert_eq!(exec["args"]["tool"]["name"], "echo");
    assert_eq!(exec["args"]["tool"]["window"], "d0");
    assert_eq!(exec["args"]["tool"]["list"], list["call"]);
    assert_eq!(exec["args"]["input"], serde_json::json!({"x": 1}));
    assert_eq!(settle_of(exec)["value"], "echo {\"x\":1}");
    let invokes = by_kind(events, "invoke");
    let inv = invokes.iter().find(|i| i["tool"] == "echo").unwrap();
    assert_eq!(inv["doc"], "d0");
    assert_eq!(inv["input"], "{\"x\":1}");
    assert_eq!(inv["signal"], "live");
    let body = by_kind(events, "body-settle")
        .into_iter()
        .find(|b| b["invocation"] == inv["invocation"])
        .unwrap();
    assert_eq!(body["outcome"], "fulfilled");
    assert_eq!(body["value"], "echo {\"x\":1}");
    // The frame registers and lists in its own document.
    let remote = calls
        .iter()
        .find(|c| c["method"] == "registerTool" && c["doc"] == child["doc"])
        .unwrap();
    assert_eq!(remote["args"]["name"], "remote");
    assert!(remote["args"]["exposedTo"][0]
        .as_str()
        .unwrap()
        .starts_with("http://127.0.0.1:"));
    // toolchange: the top's registrations and the abort fire it at the top.
    let changes = by_kind(events, "event");
    assert!(
        changes
            .iter()
            .filter(|e| e["doc"] == "d0" && e["type"] == "toolchange")
            .count()
            >= 2,
        "{log}"
    );
    // When the top found the frame's tool, the list names the frame's document.
    let found = calls
        .iter()
        .filter(|c| c["method"] == "getTools" && !c["args"]["fromOrigins"].is_null())
        .filter_map(|c| settle_of(c)["value"].as_array())
        .flatten()
        .find(|t| t["name"] == "remote");
    if let Some(t) = found {
        assert_eq!(t["window"], child["doc"]);
        let exec = call("executeTool", 1);
        assert_eq!(exec["args"]["tool"]["window"], child["doc"]);
    }
}

#[test]
#[cfg_attr(
    webmcp_no_chromium,
    ignore = "no Chromium at $WEBMCP_CHROMIUM or /usr/bin/chromium (WEBMCP_REQUIRE_BROWSER=1 makes this a failure)"
)]
fn the_wrappers_are_transparent() {
    let out = std::env::temp_dir().join(format!("webmcp-record-t-{}.jsonl", std::process::id()));
    let Recording {
        collected, others, ..
    } = record::record(&args("transparent.html", out)).unwrap();
    if !has_draft_api(&collected.events) {
        return;
    }
    assert_eq!(others.len(), 1, "{others:?}");
    let t = &others[0]["transparency"];
    for key in [
        "registerTool",
        "getTools",
        "executeTool",
        "abort",
        "missing-name",
        "bad-this",
        "execute-null",
        "register",
        "list",
        "execute",
    ] {
        assert_eq!(t[key]["mine"], t[key]["theirs"], "{key}: {t:#}");
    }
    assert_eq!(t["register"]["mine"]["fulfilled"], "undefined");
    assert_eq!(t["execute"]["mine"]["fulfilled"], "string");
    let this = t["thisIn"].as_array().unwrap();
    assert_eq!(this.len(), 2, "{t:#}");
    assert_eq!(this[0], this[1]);
    assert_eq!(t["messagesSeen"], 0);
    assert_eq!(t["abortReturns"], "undefined");
    // The calls were recorded all the same.
    assert!(collected.events.iter().any(|e| e["kind"] == "call"));
}

#[test]
#[cfg_attr(
    webmcp_no_chromium,
    ignore = "no Chromium at $WEBMCP_CHROMIUM or /usr/bin/chromium (WEBMCP_REQUIRE_BROWSER=1 makes this a failure)"
)]
fn an_iframe_navigation_is_recorded_and_judged() {
    let out = std::env::temp_dir().join(format!("webmcp-record-nav-{}.jsonl", std::process::id()));
    let mut a = args("index.html", out.clone());
    a.dir = fixtures().join("navigation");
    let (code, text, log, lines) = recorded(&a);
    let events = &lines[1..];
    let expected = if has_draft_api(events) { 0 } else { 3 };
    assert_eq!(code, expected, "{text}");
    if !has_draft_api(events) {
        return;
    }
    // The parent logs the navigation; the iframe's second document names the same frame.
    let nav = by_kind(events, "frame")
        .into_iter()
        .find(|e| e["action"] == "navigate")
        .unwrap_or_else(|| panic!("{log}"));
    let docs = by_kind(events, "document");
    assert_eq!(docs.len(), 3, "{log}");
    assert_eq!(docs[1]["frame"], nav["frame"]);
    assert_eq!(docs[2]["frame"], nav["frame"]);
    assert_eq!(docs[2]["parent"], docs[1]["parent"]);
    // The log is judged with the navigation in it: the derived scenario navigates the
    // iframe, and the draft as written allows what Chromium did.
    let report = webmcp_conformance::trace::validate(&log, 200_000).unwrap();
    assert_eq!(
        report.scenario["environment"]["navigate"],
        serde_json::json!(["f0"])
    );
    assert!(
        matches!(
            report.seed,
            webmcp_conformance::trace::Judgement::Allowed { .. }
        ),
        "{report:?}"
    );
}

#[test]
#[cfg_attr(
    webmcp_no_chromium,
    ignore = "no Chromium at $WEBMCP_CHROMIUM or /usr/bin/chromium (WEBMCP_REQUIRE_BROWSER=1 makes this a failure)"
)]
fn a_slow_collector_for_the_frame_still_gives_a_causal_log() {
    // The frame's reports reach the collector late; the top names the frame's document
    // (its tool's window) as soon as it finds the tool. The frame tells the top its id only
    // once its own earlier events are in, so the log never names a document before it.
    use std::time::Duration;
    use webmcp_browser::{run_pages_until, Chromium, Completion, Origin, Visit};
    let files = record::read_dir(&fixtures()).unwrap();
    let chromium = Chromium::new(webmcp_browser::chromium_for_tests())
        .with_flag("--enable-blink-features=WebMCP");
    let outcomes = run_pages_until(
        &chromium,
        |origins| {
            let mut site = record::site(&files, origins, false);
            site.delay_reports(Origin::Secondary, Duration::from_millis(150));
            let visit = Visit {
                run: "record".into(),
                origin: Origin::Primary,
                path: "/index.html".into(),
            };
            (site, vec![visit])
        },
        Completion::Quiet(record::QUIET),
        Duration::from_secs(30),
        webmcp_browser::say_why_silent,
    )
    .unwrap();
    let reports: Vec<Value> = outcomes[0]
        .reports
        .iter()
        .map(|r| r.value.clone())
        .collect();
    let collected = record::collect(&reports);
    if !has_draft_api(&collected.events) {
        return;
    }
    let log = record::write_log(&collected.events);
    let found = collected.events.iter().any(|e| {
        e["kind"] == "settle"
            && e["value"]
                .as_array()
                .is_some_and(|tools| tools.iter().any(|t| t["window"] == "d1"))
    });
    assert!(found, "the top never found the frame's tool: {log}");
    let parsed = webmcp_conformance::trace::log::parse(&log);
    assert!(parsed.is_ok(), "{parsed:?}\n{log}");
}

/// A burst larger than one report is sent in several, every event kept; a frame whose
/// document the recorder is not in (srcdoc) makes the recording incomplete, named.
#[test]
#[cfg_attr(
    webmcp_no_chromium,
    ignore = "no Chromium at $WEBMCP_CHROMIUM or /usr/bin/chromium (WEBMCP_REQUIRE_BROWSER=1 makes this a failure)"
)]
fn a_burst_is_kept_whole_and_a_frame_without_the_recorder_is_named() {
    let out = std::env::temp_dir().join(format!("webmcp-burst-{}.jsonl", std::process::id()));
    let (code, text, _, lines) = recorded(&args("burst.html", out));
    let events = &lines[1..];
    assert_eq!(code, 3, "{text}");
    assert!(
        text.contains(
            "incomplete: frame f0 of d0 was inserted but no document reported as being in it"
        ),
        "{text}"
    );
    assert!(!text.contains("refused"), "{text}");
    if has_draft_api(events) {
        assert_eq!(by_kind(events, "call").len(), 40_000, "{text}");
        assert_eq!(by_kind(events, "settle").len(), 40_000, "{text}");
    }
}

/// A page that acts after a silence longer than --quiet is cut off there; a longer --quiet
/// records what it did later.
#[test]
#[cfg_attr(
    webmcp_no_chromium,
    ignore = "no Chromium at $WEBMCP_CHROMIUM or /usr/bin/chromium (WEBMCP_REQUIRE_BROWSER=1 makes this a failure)"
)]
fn a_longer_quiet_records_a_page_that_acts_late() {
    let out = std::env::temp_dir().join(format!("webmcp-late-{}.jsonl", std::process::id()));
    let mut a = args("late.html", out);
    a.quiet = 6;
    let (code, text, _, lines) = recorded(&a);
    let events = &lines[1..];
    if has_draft_api(events) {
        assert_eq!(code, 0, "{text}");
        assert_eq!(by_kind(events, "call").len(), 1, "{text}");
    }
}
