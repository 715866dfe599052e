//! Run generated pages in headless Chromium and collect what they report.
//!
//! The server ([`server`]) serves a [`Site`] on two loopback origins; each
//! [`Visit`] opens one top-level page in a fresh Chromium ([`chromium`]); the
//! page (and any frame it embeds) POSTs JSON reports to `/__report?run=NAME`
//! on its own origin and finishes with `/__done?run=NAME`. [`REPORT_JS`]
//! defines the two calls for pages.
//!
//! Nothing here knows what the pages test.

pub mod chromium;
pub mod server;

use std::time::{Duration, Instant};

pub use chromium::{
    chromium_for_tests, resolve_chromium, Chromium, NoChromium, CHROMIUM_ENV,
    CHROMIUM_FALLBACK_ENV, DEFAULT_CHROMIUM,
};
use serde_json::Value;
pub use server::{Origin, Report, Resource, Server, Site};

/// Script for pages: `__report(value)` and `__done(value)` POST JSON to the
/// serving origin, tagged with the run name taken from `?run=` of the page's
/// own URL (frames are given the same parameter by whoever builds them).
pub const REPORT_JS: &str = r#"
const __run = new URLSearchParams(location.search).get('run') || '';
function __post(endpoint, value) {
  return fetch(endpoint + '?run=' + encodeURIComponent(__run), {
    method: 'POST', body: JSON.stringify(value), keepalive: true,
  });
}
function __report(value) { return __post('/__report', value); }
function __done(value) { return __post('/__done', value); }
"#;

/// The URLs of the two origins, known once the server has bound its ports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origins {
    pub primary: String,
    pub secondary: String,
}

impl Origins {
    pub fn url(&self, origin: Origin) -> &str {
        match origin {
            Origin::Primary => &self.primary,
            Origin::Secondary => &self.secondary,
        }
    }
}

/// One top-level page to open. `run` names it in the reports; it must be
/// unique within a call and made of URL-safe characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Visit {
    pub run: String,
    pub origin: Origin,
    pub path: String,
}

impl Visit {
    /// The page's URL, with `run=` appended to its query.
    pub fn url(&self, origins: &Origins) -> String {
        let sep = if self.path.contains('?') { '&' } else { '?' };
        format!(
            "{}{}{sep}run={}",
            origins.url(self.origin),
            self.path,
            self.run
        )
    }
}

/// What one visit produced.
#[derive(Clone, Debug)]
pub struct PageOutcome {
    pub run: String,
    /// The value posted to `/__done`, or None if the page timed out.
    pub done: Option<Value>,
    /// Everything posted to `/__report`, in arrival order.
    pub reports: Vec<Report>,
    /// Reports the collector refused (too large, not JSON, or past the run's budget:
    /// [`server::MAX_BODY`], [`server::MAX_RUN_REPORT_BYTES`]); what they said is missing
    /// from `reports`.
    pub refused: usize,
    pub elapsed: Duration,
    /// For a page that timed out without a single report in each of its [`LAUNCHES`]
    /// browsers, what each browser left to explain it: whether it had exited, and the tail of
    /// its standard error. None otherwise.
    pub browser_log: Option<String>,
}

impl PageOutcome {
    pub fn timed_out(&self) -> bool {
        self.done.is_none()
    }

    /// The outcome as one JSON value: `{run, done, reports: [{origin, value}], timed_out}`.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "run": self.run,
            "done": self.done,
            "timed_out": self.timed_out(),
            "reports": self.reports.iter().map(|r| serde_json::json!({
                "origin": match r.origin { Origin::Primary => "primary", Origin::Secondary => "secondary" },
                "value": r.value,
            })).collect::<Vec<_>>(),
        })
    }
}

#[derive(Debug)]
pub enum RunError {
    /// The server could not bind or Chromium could not be started.
    Io(std::io::Error),
    /// Two visits share a run name.
    DuplicateRun(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Io(e) => write!(f, "{e}"),
            RunError::DuplicateRun(r) => write!(f, "two pages share the run name {r:?}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<std::io::Error> for RunError {
    fn from(e: std::io::Error) -> RunError {
        RunError::Io(e)
    }
}

/// When a page counts as finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// When it posts to `/__done`.
    Done,
    /// When it has posted at least one report and then nothing (no report, no
    /// done) for this long: for pages whose frames report independently.
    Quiet(Duration),
    /// When it has posted to `/__done` and then no report for this long: for pages whose
    /// reports (a recorder's) go on after the page says it is done.
    DoneThenQuiet(Duration),
}

/// Starts the server, asks `build` for the site and the visits (it gets the
/// origin URLs, which exist only once ports are bound), and opens each visit
/// in a fresh Chromium, one after another, waiting at most `timeout` per page (per browser:
/// a page that reports nothing at all is opened again in a new one, [`LAUNCHES`] in all).
/// `on_page` sees each outcome as soon as it exists (for progress output).
pub fn run_pages(
    chromium: &Chromium,
    build: impl FnOnce(&Origins) -> (Site, Vec<Visit>),
    timeout: Duration,
    on_page: impl FnMut(&PageOutcome),
) -> Result<Vec<PageOutcome>, RunError> {
    run_pages_until(chromium, build, Completion::Done, timeout, on_page)
}

/// [`run_pages`] with a choice of [`Completion`]. Under `Quiet`, `done` is
/// `Some(null)` for a page that went quiet and None for one that timed out.
pub fn run_pages_until(
    chromium: &Chromium,
    build: impl FnOnce(&Origins) -> (Site, Vec<Visit>),
    completion: Completion,
    timeout: Duration,
    mut on_page: impl FnMut(&PageOutcome),
) -> Result<Vec<PageOutcome>, RunError> {
    let server = Server::start(Site::new())?;
    let origins = Origins {
        primary: server.origin_url(Origin::Primary),
        secondary: server.origin_url(Origin::Secondary),
    };
    let (site, visits) = build(&origins);
    check_unique_runs(&visits)?;
    server.set_site(site);
    let mut outcomes = Vec::with_capacity(visits.len());
    for visit in &visits {
        let started = Instant::now();
        // A page that reported nothing at all ran nothing we can judge; on a busy machine a
        // fresh Chromium has sat there with the page unloaded (CI saw two browsers started
        // together both sit 30 s, then the next pages ran). It gets more browsers, the last
        // waited for twice as long, and never runs beside another of this process's.
        let mut silent_logs = Vec::new();
        let (done, reports) = loop {
            let _alone = ONE_BROWSER_AT_A_TIME
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let last_chance = silent_logs.len() + 1 == LAUNCHES;
            let patience = if last_chance { timeout * 2 } else { timeout };
            let requests_before = server.requests(&visit.run);
            let mut browser = chromium.launch(&visit.url(&origins))?;
            let launched = Instant::now();
            // A browser that has ended without asking for the page will not report: waiting
            // the whole patience for it (up to two minutes over the launches) says nothing
            // more. A page it did ask for is waited for as usual.
            let mut exited_at = None;
            let mut give_up = || {
                if server.requests(&visit.run) > requests_before || browser.exit_status().is_none()
                {
                    return false;
                }
                exited_at.get_or_insert_with(Instant::now).elapsed() >= EXITED_GRACE
            };
            let done = match completion {
                Completion::Done => server.wait_done(&visit.run, patience, &mut give_up),
                Completion::Quiet(quiet) => {
                    server.wait_quiet(&visit.run, quiet, patience, &mut give_up)
                }
                Completion::DoneThenQuiet(quiet) => {
                    server.wait_done_then_quiet(&visit.run, quiet, patience, &mut give_up)
                }
            };
            let reports = server.reports(&visit.run);
            if done.is_some() || !reports.is_empty() {
                drop(browser);
                break (done, reports);
            }
            silent_logs.push(silent_browser(
                browser,
                launched.elapsed(),
                server.requests(&visit.run) - requests_before,
            ));
            if silent_logs.len() == LAUNCHES {
                break (done, reports);
            }
        };
        let browser_log = (!silent_logs.is_empty() && reports.is_empty() && done.is_none())
            .then(|| silent_logs.join("\n(launched again) "));
        let outcome = PageOutcome {
            run: visit.run.clone(),
            done,
            reports,
            refused: server.refused(&visit.run),
            elapsed: started.elapsed(),
            browser_log,
        };
        on_page(&outcome);
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

/// An `on_page` for commands: says on stderr why a page reported nothing at all (the browser's
/// exit status and the end of its stderr), which the verdict alone (inconclusive) does not.
pub fn say_why_silent(outcome: &PageOutcome) {
    if let Some(log) = &outcome.browser_log {
        eprintln!(
            "webmcp-check: the page of run {:?} reported nothing in {:.1} s: {log}",
            outcome.run,
            outcome.elapsed.as_secs_f64()
        );
    }
}

/// How long a browser that has ended without asking for its page is still waited for (a
/// launcher that hands the page to a browser it leaves running would ask within it).
const EXITED_GRACE: Duration = Duration::from_secs(2);

/// How many browsers a page that reports nothing at all is given; the last is waited for twice
/// the page timeout.
pub const LAUNCHES: usize = 3;

/// Held while a browser runs: two Chromiums started together from one process (the browser
/// tests run in parallel) are what CI saw sit silent.
static ONE_BROWSER_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// What a browser whose page never reported leaves behind (then it is killed): how long it was
/// given, whether it fetched anything (`requests` carried the page's run, in this browser), whether it had
/// exited, the machine's load, and the tail of its standard error.
fn silent_browser(mut browser: chromium::Running, waited: Duration, requests: usize) -> String {
    let fetched = match requests {
        0 => "the server received no request for the page".to_string(),
        n => format!("the server received {n} request(s) for the page"),
    };
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into());
    let status = match browser.exit_status() {
        Some(status) => format!("Chromium had exited ({status})"),
        None => "Chromium was still running".to_string(),
    };
    let status = format!(
        "after {:.0} s {fetched}; load average {load}; {status}",
        waited.as_secs_f64()
    );
    match browser.stderr_tail() {
        tail if tail.is_empty() => format!("{status}; it wrote nothing to standard error"),
        tail => format!("{status}; the end of its standard error:\n{tail}"),
    }
}

fn check_unique_runs(visits: &[Visit]) -> Result<(), RunError> {
    let mut seen = std::collections::HashSet::new();
    for v in visits {
        if !seen.insert(v.run.as_str()) {
            return Err(RunError::DuplicateRun(v.run.clone()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visit_url_appends_run_to_the_query() {
        let o = Origins {
            primary: "http://127.0.0.1:5".into(),
            secondary: "http://localhost:6".into(),
        };
        let v = Visit {
            run: "s1".into(),
            origin: Origin::Secondary,
            path: "/p.html".into(),
        };
        assert_eq!(v.url(&o), "http://localhost:6/p.html?run=s1");
        let v = Visit {
            path: "/p.html?x=1".into(),
            origin: Origin::Primary,
            ..v
        };
        assert_eq!(v.url(&o), "http://127.0.0.1:5/p.html?x=1&run=s1");
    }

    #[test]
    fn duplicate_run_names_are_refused() {
        let v = Visit {
            run: "same".into(),
            origin: Origin::Primary,
            path: "/".into(),
        };
        assert!(check_unique_runs(std::slice::from_ref(&v)).is_ok());
        assert!(matches!(
            check_unique_runs(&[v.clone(), v]),
            Err(RunError::DuplicateRun(r)) if r == "same"
        ));
    }
}
