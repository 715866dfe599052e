//! A loopback HTTP/1.1 server on two origins, `http://127.0.0.1:P1` and
//! `http://localhost:P2` (both potentially trustworthy, and not same origin
//! with each other). It serves a fixed set of resources and records the JSON
//! that pages POST to `/__report?run=ID` and `/__done?run=ID`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Largest request body accepted (reports are small JSON documents).
pub const MAX_BODY: usize = 4 << 20;
/// Most bytes of reports the server keeps, over every run (a page names the run it reports
/// to, so a budget per run would not bound anything): a page cannot grow the collector's
/// memory without bound. A report past it is refused and counted, like one too large or not
/// JSON.
pub const MAX_RUN_REPORT_BYTES: usize = 32 << 20;

/// Which of the two loopback origins a resource is served on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    /// `http://127.0.0.1:P1`
    Primary,
    /// `http://localhost:P2`
    Secondary,
}

impl Origin {
    pub const ALL: [Origin; 2] = [Origin::Primary, Origin::Secondary];

    fn host(self) -> &'static str {
        match self {
            Origin::Primary => "127.0.0.1",
            Origin::Secondary => "localhost",
        }
    }
}

/// One thing the server answers a GET with.
#[derive(Clone, Debug)]
pub struct Resource {
    pub content_type: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resource {
    pub fn html(body: impl Into<String>) -> Resource {
        Resource {
            content_type: "text/html; charset=utf-8".into(),
            headers: Vec::new(),
            body: body.into().into_bytes(),
        }
    }

    pub fn javascript(body: impl Into<Vec<u8>>) -> Resource {
        Resource {
            content_type: "text/javascript; charset=utf-8".into(),
            headers: Vec::new(),
            body: body.into(),
        }
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Resource {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// The resources of a site: (origin, path) -> resource. A resource added with
/// [`Site::add_everywhere`] is served on both origins.
#[derive(Clone, Debug, Default)]
pub struct Site {
    resources: HashMap<(Origin, String), Resource>,
    report_delays: HashMap<Origin, Duration>,
}

impl Site {
    pub fn new() -> Site {
        Site::default()
    }

    pub fn add(&mut self, origin: Origin, path: &str, resource: Resource) {
        self.resources.insert((origin, path.to_string()), resource);
    }

    pub fn add_everywhere(&mut self, path: &str, resource: Resource) {
        for origin in Origin::ALL {
            self.add(origin, path, resource.clone());
        }
    }

    /// The resource served at `path` on `origin`.
    pub fn get(&self, origin: Origin, path: &str) -> Option<&Resource> {
        self.resources.get(&(origin, path.to_string()))
    }

    /// Reports POSTed to `origin` are recorded (and answered) `delay` after they arrive: a
    /// slow collector for one origin, as a loaded machine makes one, on purpose. Reports
    /// of documents of different origins then arrive in an order that need not be causal.
    pub fn delay_reports(&mut self, origin: Origin, delay: Duration) {
        self.report_delays.insert(origin, delay);
    }
}

/// What a page POSTed, in arrival order per run.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub origin: Origin,
    pub value: Value,
}

#[derive(Default)]
struct Runs {
    reports: HashMap<String, Vec<Report>>,
    done: HashMap<String, Value>,
    /// Every request received, by the `run` of its query (`""` without one): a page that
    /// reported nothing either was never fetched or fetched and then ran nothing.
    requests: HashMap<String, usize>,
    /// Bytes of the reports kept, over every run.
    report_bytes: usize,
    /// Reports refused, by run: larger than [`MAX_BODY`], not JSON, or past
    /// [`MAX_RUN_REPORT_BYTES`]. What they said is lost, so a run with one is incomplete.
    refused: HashMap<String, usize>,
}

struct Shared {
    site: Mutex<Site>,
    runs: Mutex<Runs>,
    done_tx: Mutex<Sender<String>>,
}

/// A running server. Dropping it stops both listeners.
pub struct Server {
    ports: [u16; 2],
    shared: Arc<Shared>,
    done_rx: Receiver<String>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

/// How often the waits below ask their `give_up` (at most; the quiet waits ask every 20 ms).
pub const GIVE_UP_POLL: Duration = Duration::from_millis(100);

impl Server {
    /// Binds two free loopback ports and starts serving `site`.
    pub fn start(site: Site) -> std::io::Result<Server> {
        let (done_tx, done_rx) = channel();
        let shared = Arc::new(Shared {
            site: Mutex::new(site),
            runs: Mutex::new(Runs::default()),
            done_tx: Mutex::new(done_tx),
        });
        let stop = Arc::new(AtomicBool::new(false));
        let mut ports = [0u16; 2];
        let mut threads = Vec::new();
        for (i, origin) in Origin::ALL.into_iter().enumerate() {
            let listener = TcpListener::bind(("127.0.0.1", 0))?;
            ports[i] = listener.local_addr()?.port();
            let shared = Arc::clone(&shared);
            let stop = Arc::clone(&stop);
            threads.push(std::thread::spawn(move || {
                accept_loop(listener, origin, shared, stop)
            }));
        }
        Ok(Server {
            ports,
            shared,
            done_rx,
            stop,
            threads,
        })
    }

    /// `http://127.0.0.1:P1` or `http://localhost:P2`, without a trailing slash.
    pub fn origin_url(&self, origin: Origin) -> String {
        let port = match origin {
            Origin::Primary => self.ports[0],
            Origin::Secondary => self.ports[1],
        };
        format!("http://{}:{}", origin.host(), port)
    }

    /// Replaces the served resources (runs already recorded are kept).
    pub fn set_site(&self, site: Site) {
        *self.shared.site.lock().unwrap() = site;
    }

    /// Waits until `/__done?run=RUN` has been posted, or `timeout` passes, or `give_up`
    /// (asked every [`GIVE_UP_POLL`]) says to stop. Returns the done value, or None.
    pub fn wait_done(
        &self,
        run: &str,
        timeout: Duration,
        give_up: &mut dyn FnMut() -> bool,
    ) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(v) = self.shared.runs.lock().unwrap().done.get(run) {
                return Some(v.clone());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || give_up() {
                return None;
            }
            match self.done_rx.recv_timeout(left.min(GIVE_UP_POLL)) {
                Ok(_) | Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// Waits until `run` has posted at least one report and then nothing for
    /// `quiet` (or has posted done). Returns the done value (`null` when it
    /// went quiet without one), or None when `timeout` passes or `give_up` says to stop first.
    pub fn wait_quiet(
        &self,
        run: &str,
        quiet: Duration,
        timeout: Duration,
        give_up: &mut dyn FnMut() -> bool,
    ) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        let mut seen = 0usize;
        let mut last_change = Instant::now();
        loop {
            {
                let runs = self.shared.runs.lock().unwrap();
                if let Some(v) = runs.done.get(run) {
                    return Some(v.clone());
                }
                let n = runs.reports.get(run).map_or(0, Vec::len);
                if n != seen {
                    seen = n;
                    last_change = Instant::now();
                }
            }
            let now = Instant::now();
            if seen > 0 && now.duration_since(last_change) >= quiet {
                return Some(Value::Null);
            }
            if now >= deadline || give_up() {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20).min(deadline - now));
        }
    }

    /// Waits for `run`'s done value, then until no report has arrived for `quiet`; None
    /// when `timeout` passes or `give_up` says to stop first.
    pub fn wait_done_then_quiet(
        &self,
        run: &str,
        quiet: Duration,
        timeout: Duration,
        give_up: &mut dyn FnMut() -> bool,
    ) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        let mut seen = usize::MAX;
        let mut last_change = Instant::now();
        loop {
            let done = {
                let runs = self.shared.runs.lock().unwrap();
                let n = runs.reports.get(run).map_or(0, Vec::len);
                if n != seen {
                    seen = n;
                    last_change = Instant::now();
                }
                runs.done.get(run).cloned()
            };
            let now = Instant::now();
            if let Some(v) = done {
                if now.duration_since(last_change) >= quiet {
                    return Some(v);
                }
            }
            if now >= deadline || give_up() {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20).min(deadline - now));
        }
    }

    /// How many requests (of any kind) carried `run=RUN` in their query.
    pub fn requests(&self, run: &str) -> usize {
        let runs = self.shared.runs.lock().unwrap();
        runs.requests.get(run).copied().unwrap_or(0)
    }

    /// How many reports posted for `run` were refused (see [`Runs`]'s `refused`).
    pub fn refused(&self, run: &str) -> usize {
        let runs = self.shared.runs.lock().unwrap();
        runs.refused.get(run).copied().unwrap_or(0)
    }

    /// The reports posted for `run`, in arrival order.
    pub fn reports(&self, run: &str) -> Vec<Report> {
        let runs = self.shared.runs.lock().unwrap();
        runs.reports.get(run).cloned().unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for port in self.ports {
            // Wake each accept loop so it sees the stop flag.
            let _ = TcpStream::connect(("127.0.0.1", port));
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn accept_loop(listener: TcpListener, origin: Origin, shared: Arc<Shared>, stop: Arc<AtomicBool>) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || {
            let _ = handle(stream, origin, &shared);
        });
    }
}

/// A parsed HTTP request: method, path (without query), query, body.
#[derive(Debug, PartialEq)]
pub(crate) struct Request {
    pub method: String,
    pub path: String,
    pub query: String,
    pub body: Vec<u8>,
    /// The body was longer than [`MAX_BODY`] and was not read.
    pub too_large: bool,
}

pub(crate) fn read_request(reader: &mut impl BufRead) -> std::io::Result<Option<Request>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Ok(None);
    };
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut content_length = 0usize;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 {
            break;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                content_length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let too_large = content_length > MAX_BODY;
    let mut body = vec![0u8; if too_large { 0 } else { content_length }];
    reader.read_exact(&mut body)?;
    Ok(Some(Request {
        method: method.to_string(),
        path: path.to_string(),
        query: query.to_string(),
        body,
        too_large,
    }))
}

/// The value of `name` in a query string (no percent-decoding: run ids are plain).
pub(crate) fn query_param<'a>(query: &'a str, name: &str) -> Option<&'a str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

fn handle(stream: TcpStream, origin: Origin, shared: &Shared) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut stream = stream;
    let Some(request) = read_request(&mut reader)? else {
        return respond(&mut stream, 400, "text/plain", &[], b"bad request");
    };
    let run = query_param(&request.query, "run").unwrap_or("").to_string();
    *shared.runs.lock().unwrap().requests.entry(run).or_default() += 1;
    match (request.method.as_str(), request.path.as_str()) {
        ("POST", "/__report") | ("POST", "/__done") => {
            let run = query_param(&request.query, "run").unwrap_or("").to_string();
            let refuse = |why: &[u8], status: u16, stream: &mut TcpStream| {
                *shared
                    .runs
                    .lock()
                    .unwrap()
                    .refused
                    .entry(run.clone())
                    .or_default() += 1;
                respond(stream, status, "text/plain", &[], why)
            };
            if request.too_large {
                return refuse(b"too large", 413, &mut stream);
            }
            if request.path == "/__report" {
                let mut runs = shared.runs.lock().unwrap();
                if runs.report_bytes + request.body.len() > MAX_RUN_REPORT_BYTES {
                    drop(runs);
                    return refuse(b"too much reported", 413, &mut stream);
                }
                runs.report_bytes += request.body.len();
            }
            let value: Value = match serde_json::from_slice(&request.body) {
                Ok(v) => v,
                Err(_) => return refuse(b"not json", 400, &mut stream),
            };
            let delay = shared
                .site
                .lock()
                .unwrap()
                .report_delays
                .get(&origin)
                .copied();
            if let Some(delay) = delay {
                std::thread::sleep(delay);
            }
            record(shared, origin, &request.path, run, value);
            respond(&mut stream, 204, "text/plain", &[], b"")
        }
        ("GET", path) => {
            let resource = shared.site.lock().unwrap().get(origin, path).cloned();
            match resource {
                Some(r) => respond(&mut stream, 200, &r.content_type, &r.headers, &r.body),
                None => respond(&mut stream, 404, "text/plain", &[], b"not found"),
            }
        }
        _ => respond(&mut stream, 405, "text/plain", &[], b"method not allowed"),
    }?;
    let _ = stream.shutdown(Shutdown::Both);
    Ok(())
}

fn record(shared: &Shared, origin: Origin, endpoint: &str, run: String, value: Value) {
    let mut runs = shared.runs.lock().unwrap();
    if endpoint == "/__done" {
        runs.done.insert(run.clone(), value);
        drop(runs);
        let _ = shared.done_tx.lock().unwrap().send(run);
    } else {
        runs.reports
            .entry(run)
            .or_default()
            .push(Report { origin, value });
    }
}

fn respond(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        404 => "Not Found",
        413 => "Content Too Large",
        _ => "Method Not Allowed",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Read};

    fn http(server: &Server, origin: Origin, raw: &str) -> String {
        let url = server.origin_url(origin);
        let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.write_all(raw.as_bytes()).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    /// A report that is too large, not JSON, or past the server's budget is refused with
    /// its status and counted for its run (the run is then incomplete), never kept.
    #[test]
    fn refused_reports_are_counted_by_run() {
        let server = Server::start(Site::new()).unwrap();
        let huge = "POST /__report?run=r1 HTTP/1.1\r\nContent-Length: 5000000\r\n\r\n[]";
        assert!(http(&server, Origin::Primary, huge).starts_with("HTTP/1.1 413 Content Too Large"));
        let bad = "POST /__report?run=r1 HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyz";
        assert!(http(&server, Origin::Primary, bad).starts_with("HTTP/1.1 400"));
        assert_eq!(server.refused("r1"), 2);
        assert_eq!(server.refused("r2"), 0);
        // The budget is the server's, whatever run a report names.
        let chunk = format!("\"{}\"", "a".repeat(MAX_BODY - 2));
        let mut kept = 0;
        for i in 0.. {
            let raw = format!(
                "POST /__report?run=k{i} HTTP/1.1\r\nContent-Length: {}\r\n\r\n{chunk}",
                chunk.len()
            );
            if http(&server, Origin::Primary, &raw).starts_with("HTTP/1.1 204") {
                kept += 1;
                continue;
            }
            assert_eq!(server.refused(&format!("k{i}")), 1);
            break;
        }
        // The three bytes of the report that was not JSON count too: they were received.
        assert_eq!(kept, (MAX_RUN_REPORT_BYTES - 3) / MAX_BODY);
        assert!(server.reports("r1").is_empty());
    }

    #[test]
    fn parses_request_line_query_and_body() {
        let raw =
            "POST /__report?run=r7&x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\n{\"a\"";
        let req = read_request(&mut Cursor::new(raw)).unwrap().unwrap();
        assert_eq!(req.method, "POST");
        assert_eq!(req.path, "/__report");
        assert_eq!(query_param(&req.query, "run"), Some("r7"));
        assert_eq!(query_param(&req.query, "x"), Some("1"));
        assert_eq!(query_param(&req.query, "y"), None);
        assert_eq!(req.body, b"{\"a\"");
    }

    #[test]
    fn serves_per_origin_resources_with_headers() {
        let mut site = Site::new();
        site.add(
            Origin::Primary,
            "/a.html",
            Resource::html("primary").with_header("Origin-Agent-Cluster", "?1"),
        );
        site.add(Origin::Secondary, "/a.html", Resource::html("secondary"));
        let server = Server::start(site).unwrap();
        assert!(server
            .origin_url(Origin::Primary)
            .starts_with("http://127.0.0.1:"));
        assert!(server
            .origin_url(Origin::Secondary)
            .starts_with("http://localhost:"));
        let p = http(&server, Origin::Primary, "GET /a.html HTTP/1.1\r\n\r\n");
        assert!(p.starts_with("HTTP/1.1 200"), "{p}");
        assert!(p.contains("Origin-Agent-Cluster: ?1"));
        assert!(p.ends_with("primary"));
        let s = http(&server, Origin::Secondary, "GET /a.html HTTP/1.1\r\n\r\n");
        assert!(s.ends_with("secondary") && !s.contains("Origin-Agent-Cluster"));
        let missing = http(&server, Origin::Secondary, "GET /b.html HTTP/1.1\r\n\r\n");
        assert!(missing.starts_with("HTTP/1.1 404"));
    }

    #[test]
    fn a_delayed_origin_records_its_reports_only_after_the_delay() {
        let mut site = Site::new();
        let delay = Duration::from_millis(300);
        site.delay_reports(Origin::Secondary, delay);
        let server = Server::start(site).unwrap();
        let post = |origin, body: &str| {
            let raw = format!(
                "POST /__report?run=r1 HTTP/1.1\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            let started = Instant::now();
            assert!(http(&server, origin, &raw).starts_with("HTTP/1.1 204"));
            started.elapsed()
        };
        assert!(post(Origin::Secondary, "{\"n\":1}") >= delay);
        post(Origin::Primary, "{\"n\":2}");
        let values: Vec<(Origin, Value)> = server
            .reports("r1")
            .into_iter()
            .map(|r| (r.origin, r.value))
            .collect();
        assert_eq!(
            values,
            [
                (Origin::Secondary, serde_json::json!({"n": 1})),
                (Origin::Primary, serde_json::json!({"n": 2}))
            ]
        );
    }

    #[test]
    fn records_reports_in_order_and_signals_done() {
        let server = Server::start(Site::new()).unwrap();
        for (origin, body) in [
            (Origin::Primary, "{\"n\":1}"),
            (Origin::Secondary, "{\"n\":2}"),
        ] {
            let raw = format!(
                "POST /__report?run=r1 HTTP/1.1\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            assert!(http(&server, origin, &raw).starts_with("HTTP/1.1 204"));
        }
        assert_eq!(
            server.wait_quiet(
                "r1",
                Duration::from_millis(30),
                Duration::from_secs(5),
                &mut || false
            ),
            Some(Value::Null)
        );
        assert_eq!(
            server.wait_quiet(
                "none",
                Duration::from_millis(10),
                Duration::from_millis(50),
                &mut || false
            ),
            None
        );
        let bad = "POST /__report?run=r1 HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyz";
        assert!(http(&server, Origin::Primary, bad).starts_with("HTTP/1.1 400"));
        assert_eq!(
            server.wait_done("r1", Duration::from_millis(10), &mut || false),
            None
        );
        // Told to give up, each wait ends at the next time it asks, long before its timeout.
        let mut asked = 0;
        let mut third_time = || {
            asked += 1;
            asked == 3
        };
        let hour = Duration::from_secs(3600);
        assert_eq!(server.wait_done("none", hour, &mut third_time), None);
        assert_eq!(asked, 3);
        let ms = Duration::from_millis(1);
        assert_eq!(server.wait_quiet("none", ms, hour, &mut || true), None);
        assert_eq!(
            server.wait_done_then_quiet("none", ms, hour, &mut || true),
            None
        );
        let done = "POST /__done?run=r1 HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}";
        http(&server, Origin::Primary, done);
        assert_eq!(
            server.wait_done("r1", Duration::from_secs(5), &mut || false),
            Some(serde_json::json!({}))
        );
        // Every request of the run counts, the malformed one too; no other run's.
        assert_eq!(server.requests("r1"), 4);
        assert_eq!(server.requests("none"), 0);
        assert_eq!(
            server.wait_quiet(
                "r1",
                Duration::from_millis(30),
                Duration::from_secs(5),
                &mut || false
            ),
            Some(serde_json::json!({}))
        );
        let reports = server.reports("r1");
        assert_eq!(reports.len(), 2);
        assert_eq!(reports[0].origin, Origin::Primary);
        assert_eq!(reports[0].value["n"], 1);
        assert_eq!(reports[1].origin, Origin::Secondary);
        assert!(server.reports("other").is_empty());
    }
}
