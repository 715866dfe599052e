//! Trace validation (`webmcp-check validate LOG`, `docs/trace-validation.md`): read a
//! recorded log, derive the scenario it implies, and search the model under `seed` and
//! `proposed` for a path that produces the whole log.

pub mod cli;
pub mod derive;
pub mod log;
pub mod synth;
pub mod validate;

use std::fmt::Write as _;

use serde_json::{json, Value};
use webmcp_model::error::{one_line, ScenarioError};
use webmcp_model::{Variant, World};

/// The most characters of one string from the log that the report for people shows.
const SHOWN: usize = 200;
/// The most events the report for people lists as not judged (JSON lists every one).
const NOT_JUDGED_SHOWN: usize = 20;

pub use validate::{Judgement, Stuck};

/// What `validate` found.
#[derive(Clone, Debug)]
pub struct Report {
    pub events: usize,
    pub documents: usize,
    /// When the log is beyond the model's size limits: the length of the prefix judged.
    pub prefix: Option<usize>,
    /// The derived scenario (`--emit-scenario`).
    pub scenario: Value,
    pub outside: Vec<String>,
    pub seed: Judgement,
    pub proposed: Judgement,
}

/// Why a log was not judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The log is malformed: exit 2.
    Malformed(log::LogError),
    /// The log is well formed but asks for what the model cannot express: exit 3.
    NotJudged(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Malformed(e) => write!(f, "{e}"),
            Refusal::NotJudged(why) => write!(f, "not judged: {why}"),
        }
    }
}

/// Validates the log `text` under `seed` and `proposed`.
pub fn validate(text: &str, max_states: usize) -> Result<Report, Refusal> {
    validate_within(text, &validate::Bounds::states(max_states))
}

/// Validates the log `text` under `seed` and `proposed`, each search within `bounds`.
pub fn validate_within(text: &str, bounds: &validate::Bounds) -> Result<Report, Refusal> {
    let log = log::parse(text).map_err(Refusal::Malformed)?;
    let events = log.entries.len();
    let (judged, derived, world) = match compile(&log) {
        Ok((derived, world)) => (log, derived, world),
        // Beyond the model's size limits: judge the longest prefix within them. A prefix
        // the model cannot produce rules out the whole log; one it can leaves the rest
        // undecided.
        Err(why) if why.beyond_limits() => {
            // Going past a limit is monotone in the length of a prefix; compiling is not (a
            // prefix before the first call does not compile), so the search is for the
            // longest prefix within the limits, which must then compile.
            let within =
                |k: usize| compile(&prefix(&log, k)).map_or_else(|e| !e.beyond_limits(), |_| true);
            let (mut lo, mut hi) = (0usize, events);
            while lo + 1 < hi {
                let mid = (lo + hi) / 2;
                if within(mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let cut = prefix(&log, lo);
            let Ok((derived, world)) = compile(&cut) else {
                return Err(Refusal::NotJudged(why.to_string()));
            };
            (cut, derived, world)
        }
        Err(why) => return Err(Refusal::NotJudged(why.to_string())),
    };
    let judge = |v| validate::judge(&judged, &derived, &world, v, bounds);
    Ok(Report {
        events,
        documents: judged.documents().len(),
        prefix: (judged.entries.len() < events).then_some(judged.entries.len()),
        scenario: derived.scenario.clone(),
        outside: derived.outside.clone(),
        seed: judge(Variant::SEED),
        proposed: judge(Variant::proposed()),
    })
}

/// Why the scenario a log implies cannot be judged.
#[derive(Clone, Debug, PartialEq, Eq)]
enum CompileError {
    /// The log asks for what the scenario format cannot say.
    Derive(derive::NotJudged),
    /// The derived scenario does not compile.
    Scenario(ScenarioError),
}

impl CompileError {
    /// Whether the log is beyond one of the model's size limits, so that a prefix of it
    /// may still be judged.
    fn beyond_limits(&self) -> bool {
        match self {
            CompileError::Derive(why) => why.beyond_limit,
            CompileError::Scenario(e) => {
                matches!(e.kind, webmcp_model::error::ErrorKind::Limit { .. })
            }
        }
    }
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileError::Derive(why) => why.fmt(f),
            CompileError::Scenario(e) => write!(
                f,
                "the scenario the log implies does not compile (a line and column are that scenario's, not the log's): {e}"
            ),
        }
    }
}

impl std::error::Error for CompileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CompileError::Derive(_) => None,
            CompileError::Scenario(e) => Some(e),
        }
    }
}

/// The derived scenario of `log`, compiled.
fn compile(log: &log::Log) -> Result<(derive::Derived, World), CompileError> {
    let derived = derive::derive(log).map_err(CompileError::Derive)?;
    let world = World::from_json(&derived.scenario.to_string()).map_err(CompileError::Scenario)?;
    Ok((derived, world))
}

/// The first `k` events of `log`.
fn prefix(log: &log::Log, k: usize) -> log::Log {
    log::Log {
        entries: log.entries[..k].to_vec(),
    }
}

impl Report {
    /// 3 a search stopped at its bound (the other's answer is reported, not judged: the
    /// report judges both variants), or only a prefix of the log was judged; else 0 allowed
    /// under seed or proposed, 1 allowed under neither.
    pub fn exit_code(&self) -> u8 {
        let allowed = |j: &Judgement| matches!(j, Judgement::Allowed { .. });
        let incomplete = |j: &Judgement| matches!(j, Judgement::Incomplete { .. });
        if incomplete(&self.seed) || incomplete(&self.proposed) {
            3
        } else if allowed(&self.seed) || allowed(&self.proposed) {
            // Only a prefix was judged: the rest is undecided.
            if self.prefix.is_some() {
                3
            } else {
                0
            }
        } else {
            1
        }
    }

    /// The verdict in words. "Only" is said of a variant only where the other's search
    /// decided that it does not allow the log, never where a bound stopped it.
    pub fn verdict(&self) -> &'static str {
        use Judgement::{Allowed, Incomplete, NotAllowed};
        let allowed = |j: &Judgement| matches!(j, Allowed { .. });
        if self.prefix.is_some() && (allowed(&self.seed) || allowed(&self.proposed)) {
            return "undecided (the judged prefix is allowed; the rest is beyond the model's limits)";
        }
        match (&self.seed, &self.proposed) {
            (Allowed { .. }, Allowed { .. }) => "allowed under seed and proposed",
            (Allowed { .. }, NotAllowed(_)) => "allowed under seed only",
            (NotAllowed(_), Allowed { .. }) => "allowed under proposed only",
            (Allowed { .. }, Incomplete { .. }) => {
                "allowed under seed; undecided under proposed (its search stopped at a bound)"
            }
            (Incomplete { .. }, Allowed { .. }) => {
                "allowed under proposed; undecided under seed (its search stopped at a bound)"
            }
            (NotAllowed(_), NotAllowed(_)) => "not allowed",
            _ => "undecided",
        }
    }

    /// The report for people. What the log's pages wrote (ids, notes, lines of the log) is
    /// shown escaped and cut ([`one_line`]), so that a page cannot write to the terminal.
    pub fn human(&self, log_text: &str) -> String {
        let lines: Vec<&str> = log_text.lines().collect();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} event{} in {} document{}: {}",
            self.events,
            if self.events == 1 { "" } else { "s" },
            self.documents,
            if self.documents == 1 { "" } else { "s" },
            self.verdict()
        );
        if let Some(k) = self.prefix {
            let _ = writeln!(
                out,
                "  judged: the first {k} events (with more, the scenario the log implies exceeds the model's limits)"
            );
        }
        for (name, j) in [("seed", &self.seed), ("proposed", &self.proposed)] {
            let _ = match j {
                Judgement::Allowed { states } => {
                    writeln!(out, "  {name}: allowed ({states} states searched)")
                }
                Judgement::Incomplete {
                    states,
                    matched,
                    judged,
                    stopped_by,
                } => writeln!(
                    out,
                    "  {name}: undecided: stopped by {stopped_by} after {states} states, having followed {matched} of the {judged} judged events"
                ),
                Judgement::NotAllowed(stuck) => {
                    let _ = writeln!(
                        out,
                        "  {name}: not allowed: the model follows {} of the {} judged events ({} states searched)",
                        stuck.matched, stuck.judged, stuck.states
                    );
                    if let Some(line) = stuck.first_unmatched_line {
                        let read = line.checked_sub(1).and_then(|i| lines.get(i));
                        let text = one_line(read.copied().unwrap_or(""), SHOWN);
                        let _ = writeln!(out, "    first event it cannot produce: line {line}: {text}");
                    }
                    if stuck.instead.is_empty() {
                        writeln!(out, "    instead, nothing more can happen")
                    } else {
                        let instead: Vec<String> =
                            stuck.instead.iter().map(|i| one_line(i, SHOWN)).collect();
                        writeln!(out, "    what it could do instead: {}", instead.join("; "))
                    }
                }
            };
        }
        for o in self.outside.iter().take(NOT_JUDGED_SHOWN) {
            let _ = writeln!(out, "  not judged: {}", one_line(o, SHOWN));
        }
        if let Some(more) = self
            .outside
            .len()
            .checked_sub(NOT_JUDGED_SHOWN)
            .filter(|&n| n > 0)
        {
            let _ = writeln!(
                out,
                "  not judged: {more} more events (--format json lists them all)"
            );
        }
        out
    }

    pub fn json(&self) -> Value {
        let j = |j: &Judgement| match j {
            Judgement::Allowed { states } => json!({"verdict": "allowed", "states": states}),
            Judgement::Incomplete {
                states,
                matched,
                judged,
                stopped_by,
            } => {
                json!({"verdict": "undecided", "states": states, "matched": matched, "judged": judged, "stopped_by": stopped_by.to_json()})
            }
            Judgement::NotAllowed(s) => json!({
                "verdict": "not allowed", "states": s.states, "matched": s.matched, "judged": s.judged,
                "first_unmatched_seq": s.first_unmatched,
                "first_unmatched_line": s.first_unmatched_line, "instead": s.instead,
            }),
        };
        json!({
            "events": self.events,
            "documents": self.documents,
            "judged_prefix": self.prefix,
            "verdict": self.verdict(),
            "seed": j(&self.seed),
            "proposed": j(&self.proposed),
            "not_judged": self.outside,
            "scenario": self.scenario,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use webmcp_profiles::limits::StopReason;

    /// A page that registers t1, waits for the toolchange, lists and executes it, with
    /// `result` as the execution's value. The toolchange comes before the registration
    /// settles: both are queued on the page's event loop, the notification first
    /// (register-tool#20.1, #20.2).
    fn log(result: &str) -> String {
        let lines = [
            r#"{"format": "webmcp-log", "version": 1}"#.to_string(),
            r#"{"seq": 0, "doc": "top", "dseq": 0, "kind": "document", "url": "https://a.example/", "parent": null, "frame": null, "originKeyed": true}"#.into(),
            r#"{"seq": 1, "doc": "top", "dseq": 1, "kind": "call", "call": "r", "method": "registerTool", "args": {"name": "t1", "description": "a test tool"}}"#.into(),
            r#"{"seq": 2, "doc": "top", "dseq": 2, "kind": "event", "type": "toolchange"}"#.into(),
            r#"{"seq": 3, "doc": "top", "dseq": 3, "kind": "call", "call": "l", "method": "getTools", "args": {}}"#.into(),
            r#"{"seq": 4, "doc": "top", "dseq": 4, "kind": "settle", "call": "r", "outcome": "fulfilled", "value": null}"#.into(),
            r#"{"seq": 5, "doc": "top", "dseq": 5, "kind": "settle", "call": "l", "outcome": "fulfilled", "value": [{"name": "t1", "origin": "https://a.example", "window": "top"}]}"#.into(),
            r#"{"seq": 6, "doc": "top", "dseq": 6, "kind": "call", "call": "x", "method": "executeTool", "args": {"tool": {"name": "t1", "origin": "https://a.example", "window": "top", "list": "l"}, "input": {}}}"#.into(),
            r#"{"seq": 7, "doc": "top", "dseq": 7, "kind": "invoke", "invocation": "i", "tool": "t1", "input": "{}", "signal": "live"}"#.into(),
            r#"{"seq": 8, "doc": "top", "dseq": 8, "kind": "body-settle", "invocation": "i", "outcome": "fulfilled", "value": "done"}"#.into(),
            format!(r#"{{"seq": 9, "doc": "top", "dseq": 9, "kind": "settle", "call": "x", "outcome": "fulfilled", "value": {}}}"#, serde_json::to_string(result).unwrap()),
        ];
        lines.join("\n") + "\n"
    }

    #[test]
    fn a_run_of_an_object_input_is_allowed_by_the_current_text() {
        let r = validate(&log("\"done\""), 100_000).unwrap();
        // The current text accepts an object input (imperative-execute-steps#3); the 2026-08
        // text's double negative refused it, so only the proposed fixes allowed this run then.
        assert!(matches!(r.proposed, Judgement::Allowed { .. }), "{r:?}");
        assert!(matches!(r.seed, Judgement::Allowed { .. }), "{r:?}");
        assert_eq!(r.exit_code(), 0);
        assert_eq!(r.verdict(), "allowed under seed and proposed");
        // The derived script waits where the page went on after an event.
        let script = &r.scenario["scripts"]["d0"];
        assert_eq!(script[1], serde_json::json!({"awaitToolchange": true}));
        assert_eq!(script[3], serde_json::json!({"await": "c1"}));
        assert_eq!(
            r.scenario["scripts"]["d0"][0]["registerTool"]["body"],
            serde_json::json!([{"return": "done"}])
        );
    }

    #[test]
    fn a_result_that_is_not_serialized_is_not_allowed_and_says_where() {
        // Chromium 156 passes a string result through unserialized.
        let text = log("done");
        let r = validate(&text, 100_000).unwrap();
        let Judgement::NotAllowed(stuck) = &r.proposed else {
            panic!("{r:?}")
        };
        assert_eq!(stuck.first_unmatched, Some(9));
        assert_eq!((stuck.matched, stuck.judged), (8, 9));
        assert!(
            stuck
                .instead
                .iter()
                .any(|i| i == r#"top: settle x fulfilled with "\"done\"""#),
            "{stuck:?}"
        );
        assert_eq!(r.exit_code(), 1);
        let human = r.human(&text);
        assert!(human.contains("line 11:"), "{human}");
    }

    #[test]
    fn the_line_quoted_is_the_events_own_where_blank_lines_come_before_it() {
        let text = log("done").replacen('\n', "\n\n   \n", 2);
        let r = validate(&text, 100_000).unwrap();
        let Judgement::NotAllowed(stuck) = &r.proposed else {
            panic!("{r:?}")
        };
        assert_eq!(stuck.first_unmatched, Some(9));
        assert_eq!(stuck.first_unmatched_line, Some(15));
        let human = r.human(&text);
        assert!(
            human.contains(r#"line 15: {"seq": 9, "doc": "top", "dseq": 9, "kind": "settle""#),
            "{human}"
        );
    }

    /// A page that registers `tools` tools, sees a toolchange for each, and then `extra` more.
    fn registrations(tools: usize, extra: usize) -> String {
        let mut events = vec![r#""kind": "document", "url": "https://a.example/", "parent": null, "frame": null, "originKeyed": true"#.to_string()];
        for t in 0..tools {
            events.push(format!(
                r#""kind": "call", "call": "r{t}", "method": "registerTool", "args": {{"name": "t{t}", "description": "d"}}"#
            ));
        }
        for _ in 0..tools + extra {
            events.push(r#""kind": "event", "type": "toolchange""#.into());
        }
        for t in 0..tools {
            events.push(format!(
                r#""kind": "settle", "call": "r{t}", "outcome": "fulfilled", "value": null"#
            ));
        }
        let mut text = r#"{"format": "webmcp-log", "version": 1}"#.to_string() + "\n";
        for (seq, e) in events.iter().enumerate() {
            text.push_str(&format!(
                "{{\"seq\": {seq}, \"doc\": \"top\", \"dseq\": {seq}, {e}}}\n"
            ));
        }
        text
    }

    #[test]
    fn toolchange_events_beyond_what_the_model_counts_leave_the_log_undecided() {
        // As many toolchange events as the model counts: judged whole.
        let r = validate(&registrations(3, 0), 100_000).unwrap();
        assert_eq!((r.prefix, r.exit_code()), (None, 0), "{r:?}");
        // One too many within the count: judged, and not allowed.
        let r = validate(&registrations(2, 1), 100_000).unwrap();
        assert_eq!((r.prefix, r.exit_code()), (None, 1), "{r:?}");
        // Past the count the model cannot tell a fourth from a third: only the events
        // before it are judged, and the log is undecided, never allowed.
        for extra in [1, 50] {
            let r = validate(&registrations(3, extra), 100_000).unwrap();
            assert_eq!(r.prefix, Some(7), "{r:?}");
            assert!(matches!(r.proposed, Judgement::Allowed { .. }), "{r:?}");
            assert_eq!(r.exit_code(), 3);
            assert!(r.verdict().starts_with("undecided"), "{}", r.verdict());
        }
    }

    #[test]
    fn a_prefix_is_judged_even_where_most_of_the_log_comes_before_the_first_call() {
        // Forty iframe insertions (not judged), then one registration with four toolchange
        // events: the prefix within the count holds two too many, so the log is not allowed
        // (a prefix before the first call does not compile, and must not end the search).
        let mut events = vec![r#""kind": "document", "url": "https://a.example/", "parent": null, "frame": null, "originKeyed": true"#.to_string()];
        for f in 0..40 {
            events.push(format!(
                r#""kind": "frame", "action": "insert", "frame": "f{f}", "by": "script""#
            ));
        }
        events.push(r#""kind": "call", "call": "r", "method": "registerTool", "args": {"name": "t", "description": "d"}"#.into());
        for _ in 0..4 {
            events.push(r#""kind": "event", "type": "toolchange""#.into());
        }
        events
            .push(r#""kind": "settle", "call": "r", "outcome": "fulfilled", "value": null"#.into());
        let mut text = r#"{"format": "webmcp-log", "version": 1}"#.to_string() + "\n";
        for (seq, e) in events.iter().enumerate() {
            text.push_str(&format!(
                "{{\"seq\": {seq}, \"doc\": \"top\", \"dseq\": {seq}, {e}}}\n"
            ));
        }
        let r = validate(&text, 100_000).unwrap();
        assert_eq!(r.prefix, Some(45), "{r:?}");
        assert_eq!(r.exit_code(), 1, "{r:?}");
    }

    #[test]
    fn a_log_beyond_the_document_limit_is_refused_before_its_frame_tree_is_walked() {
        // A chain of iframes, each in the one before: refused at the document limit, not
        // walked level by level (thousands deep, which overflowed the stack).
        let n = 20_000;
        let mut lines = vec![r#"{"format": "webmcp-log", "version": 1}"#.to_string()];
        for i in 0..n {
            let parent = if i == 0 {
                "null".to_string()
            } else {
                format!("\"d{}\"", i - 1)
            };
            let frame = if i == 0 { "null" } else { "\"f\"" };
            lines.push(format!(
                r#"{{"seq": {i}, "doc": "d{i}", "dseq": 0, "kind": "document", "url": "https://a.example/", "parent": {parent}, "frame": {frame}, "originKeyed": true}}"#
            ));
        }
        lines.push(format!(
            r#"{{"seq": {n}, "doc": "d0", "dseq": 1, "kind": "call", "call": "c", "method": "getTools", "args": {{}}}}"#
        ));
        let e = validate(&lines.join("\n"), 1000).unwrap_err();
        assert!(
            matches!(&e, Refusal::NotJudged(why) if why.contains("20000 documents, more than the model's limit of 32")),
            "{e}"
        );
    }

    #[test]
    fn only_a_limit_of_the_model_makes_a_prefix_worth_judging_not_a_word_of_the_log() {
        // A getTools option the model cannot read, spelt "limit": not judged, and not said
        // to be beyond the model's limits.
        let text = log("\"done\"").replace(
            r#""method": "getTools", "args": {}"#,
            r#""method": "getTools", "args": {"fromOrigins": "limit"}"#,
        );
        let e = validate(&text, 100_000).unwrap_err();
        assert!(
            matches!(&e, Refusal::NotJudged(why) if why.contains("does not compile") && why.contains("\"limit\"")),
            "{e}"
        );
    }

    #[test]
    fn a_log_the_model_cannot_express_is_not_judged_and_a_broken_one_is_malformed() {
        let two_pages = log("\"done\"").replace(
            r#"{"seq": 1, "doc": "top", "dseq": 1,"#,
            r#"{"seq": 1, "doc": "other", "dseq": 0, "kind": "document", "url": "https://b.example/", "parent": null, "frame": null, "originKeyed": true}
{"seq": 2, "doc": "top", "dseq": 1,"#,
        );
        // (The renumbering is not done: the log is malformed before it is judged.)
        assert!(matches!(
            validate(&two_pages, 1000),
            Err(Refusal::Malformed(_))
        ));
        let only_two_tops = [
            r#"{"format": "webmcp-log", "version": 1}"#,
            r#"{"seq": 0, "doc": "a", "dseq": 0, "kind": "document", "url": "https://a.example/", "parent": null, "frame": null, "originKeyed": true}"#,
            r#"{"seq": 1, "doc": "b", "dseq": 0, "kind": "document", "url": "https://b.example/", "parent": null, "frame": null, "originKeyed": true}"#,
        ]
        .join("\n");
        let e = validate(&only_two_tops, 1000).unwrap_err();
        assert!(
            matches!(&e, Refusal::NotJudged(why) if why.contains("2 top-level documents")),
            "{e}"
        );
    }

    /// The tool returns "found" in a later task (a note of its document comes between), and
    /// the caller gets `result`.
    fn later_log(result: &str) -> String {
        log(result)
            .replace(
                r#"{"seq": 8, "doc": "top", "dseq": 8, "kind": "body-settle", "invocation": "i", "outcome": "fulfilled", "value": "done"}"#,
                r#"{"seq": 8, "doc": "top", "dseq": 8, "kind": "note", "text": "the tool awaits a fetch"}
{"seq": 9, "doc": "top", "dseq": 9, "kind": "body-settle", "invocation": "i", "outcome": "fulfilled", "value": "found"}"#,
            )
            .replace(r#"{"seq": 9, "doc": "top", "dseq": 9, "kind": "settle""#, r#"{"seq": 10, "doc": "top", "dseq": 10, "kind": "settle""#)
    }

    #[test]
    fn a_value_returned_in_a_later_task_is_judged_by_its_serialization() {
        let r = validate(&later_log("\"found\""), 100_000).unwrap();
        assert!(matches!(r.proposed, Judgement::Allowed { .. }), "{r:?}");
        // The body is the environment's, not a scripted one.
        assert!(r.scenario["scripts"]["d0"][0]["registerTool"]
            .get("body")
            .is_none());
        // Passed through unserialized, as Chromium 156 does: not allowed.
        let r = validate(&later_log("found"), 100_000).unwrap();
        assert!(matches!(r.proposed, Judgement::NotAllowed(_)), "{r:?}");
        // Nor is a value no body returned.
        let r = validate(&later_log("\"lost\""), 100_000).unwrap();
        assert!(matches!(r.proposed, Judgement::NotAllowed(_)), "{r:?}");
    }

    #[test]
    fn a_variant_is_said_to_allow_a_log_alone_only_where_the_other_decided_it_does_not() {
        let allowed = || Judgement::Allowed { states: 5 };
        let stopped = || Judgement::Incomplete {
            states: 27,
            matched: 1,
            judged: 4,
            stopped_by: StopReason::MaxStates { n: 27 },
        };
        // A value no body returned: no path of the model produces it.
        let refused = || validate(&later_log("\"lost\""), 100_000).unwrap().proposed;
        assert!(matches!(refused(), Judgement::NotAllowed(_)));
        let report = |seed, proposed| Report {
            events: 4,
            documents: 1,
            prefix: None,
            scenario: Value::Null,
            outside: Vec::new(),
            seed,
            proposed,
        };
        for (seed, proposed, verdict, code) in [
            (allowed(), allowed(), "allowed under seed and proposed", 0),
            (allowed(), refused(), "allowed under seed only", 0),
            (refused(), allowed(), "allowed under proposed only", 0),
            (
                stopped(),
                allowed(),
                "allowed under proposed; undecided under seed (its search stopped at a bound)",
                3,
            ),
            (
                allowed(),
                stopped(),
                "allowed under seed; undecided under proposed (its search stopped at a bound)",
                3,
            ),
            (stopped(), refused(), "undecided", 3),
            (refused(), stopped(), "undecided", 3),
            (stopped(), stopped(), "undecided", 3),
            (refused(), refused(), "not allowed", 1),
        ] {
            let r = report(seed, proposed);
            assert_eq!((r.verdict(), r.exit_code()), (verdict, code), "{r:?}");
        }
    }

    #[test]
    fn the_report_for_people_escapes_what_pages_wrote_and_lists_a_few_unjudged_events() {
        let mut lines = vec![
            r#"{"format": "webmcp-log", "version": 1}"#.to_string(),
            r#"{"seq": 0, "doc": "a", "dseq": 0, "kind": "document", "url": "https://a.example/", "parent": null, "frame": null, "originKeyed": true}"#.into(),
            r#"{"seq": 1, "doc": "a", "dseq": 1, "kind": "call", "call": "r\u001b[31m", "method": "registerTool", "args": {"name": "", "description": "d"}}"#.into(),
            r#"{"seq": 2, "doc": "a", "dseq": 2, "kind": "settle", "call": "r\u001b[31m", "outcome": "fulfilled", "value": null}"#.into(),
        ];
        for i in 0..50 {
            lines.push(format!(
                r#"{{"seq": {}, "doc": "a", "dseq": {}, "kind": "note", "text": "\u009b{}"}}"#,
                3 + i,
                3 + i,
                "x".repeat(1000)
            ));
        }
        let text = lines.join("\n") + "\n";
        let r = validate(&text, 100_000).unwrap();
        assert_eq!(r.exit_code(), 1, "{r:?}");
        let human = r.human(&text);
        assert!(
            !human
                .chars()
                .any(|c| c != '\n' && webmcp_model::error::is_unprintable(c)),
            "{human}"
        );
        assert!(
            human.contains(r"r\u001b[31m"),
            "the log's line, as JSON escapes it: {human}"
        );
        assert!(human.contains(r"r\u{1b}[31m"), "the id, escaped: {human}");
        let unjudged = human.lines().filter(|l| l.contains("not judged:")).count();
        assert_eq!(unjudged, NOT_JUDGED_SHOWN + 1, "{human}");
        assert!(human.contains("not judged: 30 more events"), "{human}");
        assert!(
            human.lines().all(|l| l.chars().count() < 2 * SHOWN + 100),
            "{human}"
        );
        assert_eq!(r.json()["not_judged"].as_array().unwrap().len(), 50);
    }

    #[test]
    fn a_log_whose_scenario_does_not_compile_says_whose_line_and_column_it_names() {
        let deep = format!("{}{}", "[".repeat(30), "]".repeat(30));
        let text = log("\"done\"").replace(
            r#""args": {"name": "t1", "description": "a test tool"}"#,
            &format!(
                r#""args": {{"name": "t1", "description": "a test tool", "inputSchema": {deep}}}"#
            ),
        );
        assert!(text.contains("inputSchema"));
        match validate(&text, 100_000) {
            Err(Refusal::NotJudged(why)) => {
                assert!(why.contains("that scenario's, not the log's"), "{why}");
                assert!(why.contains("levels of nesting"), "{why}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_search_stopped_by_its_bound_is_undecided() {
        let r = validate(&log("\"done\""), 3).unwrap();
        assert!(
            matches!(
                r.proposed,
                Judgement::Incomplete {
                    stopped_by: StopReason::MaxStates { n: 3 },
                    ..
                }
            ),
            "{r:?}"
        );
        assert_eq!(r.exit_code(), 3);
        assert!(r.human("").contains("stopped by --max-states 3"));
    }

    #[test]
    fn a_search_stopped_by_the_clock_or_memory_is_undecided_and_names_the_stop() {
        let spent = validate::Bounds {
            start: std::time::Instant::now() - std::time::Duration::from_secs(2),
            timeout: Some(std::time::Duration::from_secs(1)),
            ..validate::Bounds::states(100_000)
        };
        let r = validate_within(&log("\"done\""), &spent).unwrap();
        for j in [&r.seed, &r.proposed] {
            assert!(
                matches!(
                    j,
                    Judgement::Incomplete {
                        stopped_by: StopReason::Timeout { .. },
                        matched: 0,
                        ..
                    }
                ),
                "{r:?}"
            );
        }
        assert_eq!(r.exit_code(), 3);
        assert_eq!(r.verdict(), "undecided");
        assert!(r.human("").contains("stopped by --timeout 1 s"));
        let tiny = validate::Bounds {
            memory_mib: Some(1),
            ..validate::Bounds::states(100_000)
        };
        let r = validate_within(&log("\"done\""), &tiny).unwrap();
        assert!(
            matches!(
                r.seed,
                Judgement::Incomplete {
                    stopped_by: StopReason::MemoryLimit { mib: 1 },
                    ..
                }
            ),
            "{r:?}"
        );
        assert_eq!(r.json()["seed"]["stopped_by"]["kind"], "memory-limit");
    }
}

#[cfg(test)]
mod round_trip {
    use super::*;
    use proptest::prelude::*;
    use webmcp_model::scenario::Scenario;
    use webmcp_model::WebMcpModel;

    fn scenario(name: &str) -> Scenario {
        let path = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    /// A path of the model to quiescence, choosing among enabled actions by `choices`.
    fn walk(world: &World, variant: Variant, choices: &[usize]) -> Vec<webmcp_model::State> {
        let model = WebMcpModel::new(world.clone(), variant);
        let mut path = vec![model.initial_state()];
        let mut actions = Vec::new();
        for i in 0.. {
            let s = path.last().unwrap();
            actions.clear();
            model.enabled_actions(s, &mut actions);
            if actions.is_empty() || i > 400 {
                break;
            }
            let a = actions[choices[i % choices.len()] % actions.len()];
            let next = model.apply(s, a, &mut ());
            path.push(next);
        }
        path
    }

    const SCENARIOS: [&str; 14] = [
        "caller-unloaded-mid-execution",
        "register-then-abort",
        "reregister-different-schema",
        "cross-origin-exposed",
        "tool-throws",
        "abort-cross-document-before-body",
        "register-and-discover",
        "abort-racing-settlement",
        "two-concurrent-executions",
        "target-unloaded-mid-execution",
        "parent-executes-cross-origin-tool",
        "tool-returns-object",
        "duplicate-name-race",
        "unregister-between-gettools-and-execute",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 160, rng_seed: proptest::test_runner::RngSeed::Fixed(18), ..ProptestConfig::default() })]
        /// The log of any run of the model is allowed by that model.
        #[test]
        fn the_log_of_a_model_run_is_allowed(
            choices in proptest::collection::vec(0usize..16, 1..40),
            which in 0usize..SCENARIOS.len(),
            proposed in any::<bool>(),
        ) {
            let sc = scenario(SCENARIOS[which]);
            let world = World::compile(&sc).unwrap();
            let variant = if proposed { Variant::proposed() } else { Variant::SEED };
            let path = walk(&world, variant, &choices);
            let log = synth::log_of_path(&sc, &world, variant, &path).unwrap();
            let report = match validate(&log, 200_000) {
                // A run in which no page called the API (an iframe removed before its
                // script ran, say): nothing to judge, and never a pass.
                Err(Refusal::NotJudged(why)) if why.contains("no WebMCP call") => {
                    prop_assume!(false);
                    unreachable!()
                }
                other => other.unwrap_or_else(|e| panic!("{e}\n{log}")),
            };
            let j = if proposed { &report.proposed } else { &report.seed };
            prop_assert!(matches!(j, Judgement::Allowed { .. }), "{}: {j:?}\n{log}", SCENARIOS[which]);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 160, rng_seed: proptest::test_runner::RngSeed::Fixed(20), ..ProptestConfig::default() })]
        /// Every prefix of such a log is allowed too: a log is a finite prefix of a run, and
        /// may end between two events the model makes in one step.
        #[test]
        fn every_prefix_of_the_log_of_a_model_run_is_allowed(
            choices in proptest::collection::vec(0usize..16, 1..40),
            which in 0usize..SCENARIOS.len(),
            proposed in any::<bool>(),
            cut in 0.0f64..1.0,
        ) {
            let sc = scenario(SCENARIOS[which]);
            let world = World::compile(&sc).unwrap();
            let variant = if proposed { Variant::proposed() } else { Variant::SEED };
            let path = walk(&world, variant, &choices);
            let log = synth::log_of_path(&sc, &world, variant, &path).unwrap();
            let lines: Vec<&str> = log.lines().collect();
            let keep = 2 + ((lines.len() - 2) as f64 * cut) as usize;
            let prefix = lines[..keep].join("\n") + "\n";
            let report = match validate(&prefix, 200_000) {
                Err(Refusal::NotJudged(why)) if why.contains("no WebMCP call") => {
                    prop_assume!(false);
                    unreachable!()
                }
                other => other.unwrap_or_else(|e| panic!("{e}\n{prefix}")),
            };
            let j = if proposed { &report.proposed } else { &report.seed };
            prop_assert!(matches!(j, Judgement::Allowed { .. }), "{}: {j:?}\n{prefix}", SCENARIOS[which]);
        }
    }

    /// A registration with an empty name, rejected by its method steps in the same task
    /// (`register-tool#9`): the model's one step is two logged events, the call and the
    /// rejection.
    fn rejected_registration(then: &str) -> String {
        [
            r#"{"format": "webmcp-log", "version": 1}"#,
            r#"{"seq": 0, "doc": "top", "dseq": 0, "kind": "document", "url": "https://a.example/", "parent": null, "frame": null, "originKeyed": true}"#,
            r#"{"seq": 1, "doc": "top", "dseq": 1, "kind": "call", "call": "r0", "method": "registerTool", "args": {"name": "", "description": "d"}}"#,
            then,
        ]
        .join("\n")
            + "\n"
    }

    #[test]
    fn a_log_that_ends_inside_one_step_of_the_model_is_allowed_and_what_follows_is_judged() {
        // Cut between the call and its rejection: a finite prefix of an allowed run.
        let cut = rejected_registration("").trim_end().to_string() + "\n";
        let r = validate(&cut, 100_000).unwrap();
        assert!(matches!(r.seed, Judgement::Allowed { .. }), "{r:?}");
        assert!(matches!(r.proposed, Judgement::Allowed { .. }), "{r:?}");
        assert_eq!(r.exit_code(), 0);
        // The whole step is allowed too, and a different settlement is not.
        let rejected = rejected_registration(
            r#"{"seq": 2, "doc": "top", "dseq": 2, "kind": "settle", "call": "r0", "outcome": "rejected", "error": "InvalidStateError"}"#,
        );
        assert_eq!(validate(&rejected, 100_000).unwrap().exit_code(), 0);
        let fulfilled = rejected_registration(
            r#"{"seq": 2, "doc": "top", "dseq": 2, "kind": "settle", "call": "r0", "outcome": "fulfilled", "value": null}"#,
        );
        let r = validate(&fulfilled, 100_000).unwrap();
        assert!(matches!(r.seed, Judgement::NotAllowed(_)), "{r:?}");
        assert_eq!(r.exit_code(), 1);
    }

    /// An iframe that registers a tool, navigated at any moment to a document that registers
    /// another; the parent waits for a toolchange and lists.
    const NAVIGATION: &str = r#"{
        "name": "navigated-iframe", "summary": "s", "description": "d",
        "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
            "iframes": [{"nav": "frame", "doc": "child", "url": "https://a.example/child"}]}}],
        "navigations": [{"nav": "frame", "doc": "next", "url": "https://a.example/next"}],
        "scripts": {
            "child": [{"registerTool": {"name": "t1", "description": "one"}}],
            "next": [{"registerTool": {"name": "t2", "description": "two"}}],
            "top": [{"awaitToolchange": true}, {"as": "list", "getTools": {}}, {"await": "list"}]
        },
        "environment": {"navigate": ["frame"]}
    }"#;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, rng_seed: proptest::test_runner::RngSeed::Fixed(19), ..ProptestConfig::default() })]
        /// A run in which an iframe is navigated: the log has the iframe's second document,
        /// and the derived scenario navigates it.
        #[test]
        fn the_log_of_a_run_with_a_navigation_is_allowed(
            choices in proptest::collection::vec(0usize..16, 1..40),
        ) {
            let sc: Scenario = serde_json::from_str(NAVIGATION).unwrap();
            let world = World::compile(&sc).unwrap();
            let path = walk(&world, Variant::proposed(), &choices);
            let log = synth::log_of_path(&sc, &world, Variant::proposed(), &path).unwrap();
            let report = match validate(&log, 200_000) {
                Err(Refusal::NotJudged(why)) if why.contains("no WebMCP call") => {
                    prop_assume!(false);
                    unreachable!()
                }
                other => other.unwrap_or_else(|e| panic!("{e}\n{log}")),
            };
            prop_assert!(matches!(report.proposed, Judgement::Allowed { .. }), "{:?}\n{log}", report.proposed);
            if log.contains("\"action\":\"navigate\"") {
                prop_assert_eq!(&report.scenario["environment"]["navigate"], &serde_json::json!(["f0"]));
                prop_assert_eq!(report.scenario["navigations"].as_array().map(Vec::len), Some(1));
            }
        }
    }

    #[test]
    fn some_walks_navigate_and_their_logs_are_allowed() {
        let sc: Scenario = serde_json::from_str(NAVIGATION).unwrap();
        let world = World::compile(&sc).unwrap();
        let mut navigated = 0;
        for first in 0..8 {
            let path = walk(&world, Variant::SEED, &[first, 1, 0, 2]);
            let log = synth::log_of_path(&sc, &world, Variant::SEED, &path).unwrap();
            if !log.contains("\"action\":\"navigate\"") {
                continue;
            }
            navigated += 1;
            let r = validate(&log, 200_000).unwrap();
            assert!(matches!(r.seed, Judgement::Allowed { .. }), "{r:?}\n{log}");
        }
        assert!(
            navigated > 0,
            "no walk navigated: the property above would be vacuous"
        );
    }

    #[test]
    fn a_changed_settlement_is_not_allowed() {
        let sc = scenario("register-and-discover");
        let world = World::compile(&sc).unwrap();
        let path = walk(&world, Variant::SEED, &[0]);
        let log = synth::log_of_path(&sc, &world, Variant::SEED, &path).unwrap();
        assert!(validate(&log, 100_000).unwrap().exit_code() == 0, "{log}");
        // The list names a tool the page never registered.
        let forged = log.replacen(
            "\"name\":\"t1\",\"origin\"",
            "\"name\":\"t9\",\"origin\"",
            1,
        );
        assert_ne!(forged, log);
        let r = validate(&forged, 100_000).unwrap();
        assert_eq!(r.exit_code(), 1, "{forged}");
    }
}
