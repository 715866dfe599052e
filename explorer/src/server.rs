//! The HTTP side: a loopback-only listener, requests parsed by `httparse` from a capped
//! buffer, one short-lived thread per connection (at most [`MAX_CONNECTIONS`]), every
//! response closing its connection.
//!
//! Why not a full server crate: the small synchronous ones read a request line of any
//! length into memory; reading the head ourselves into a fixed buffer is what caps a
//! request, and `httparse` (hyper's parser) does the parsing.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddrV4, TcpListener, TcpStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use webmcp_traces::export::file_safe;

use crate::walk::{parse_path, path_text, Explorer, MAX_PATH_TEXT};

/// The page: one HTML file with its CSS and script inline (no network, no CDN).
pub const PAGE: &str = include_str!("page.html");

/// The largest request head read (request line and headers): a path of
/// [`MAX_PATH_TEXT`] characters and room for the headers a browser sends.
pub const MAX_HEAD: usize = MAX_PATH_TEXT + 16 * 1024;
/// Connections served at once; more are answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 32;
/// A client whose request head has not arrived whole this long after it connected is
/// dropped, however it trickles in (a stalled connection must not keep a thread forever).
const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections being told 503 at once; beyond these a connection is closed unanswered.
const MAX_REFUSALS: usize = 8;
/// How long an answered connection is kept open for the rest of its request and the
/// client's close (see [`answer`]).
const LINGER: Duration = Duration::from_secs(1);

/// What keeps one client from holding the server: how many connections are served at once,
/// and how long a silent or stalled one is waited for.
#[derive(Clone, Copy, Debug)]
struct Limits {
    connections: usize,
    io_timeout: Duration,
}

impl Limits {
    const SERVED: Limits = Limits {
        connections: MAX_CONNECTIONS,
        io_timeout: IO_TIMEOUT,
    };
}

/// Answers a request given its method, target and `Host` header.
type Handler = dyn Fn(&str, &str, Option<&str>) -> Response + Send + Sync;

/// A bound explorer server.
pub struct Server {
    listener: TcpListener,
    explorer: Arc<Explorer>,
    port: u16,
}

/// A response: status, content type, body, extra headers.
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    pub headers: Vec<(&'static str, String)>,
}

impl Response {
    fn json(status: u16, v: &Value) -> Response {
        Response {
            status,
            content_type: "application/json; charset=utf-8",
            body: v.to_string().into_bytes(),
            headers: Vec::new(),
        }
    }

    /// An error: `{"error": message}` with `status`.
    pub fn error(status: u16, message: impl Into<String>) -> Response {
        Response::json(
            status,
            &json!({ "error": message.into(), "status": status }),
        )
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

impl Server {
    /// Binds 127.0.0.1:`port` (0: a free port the system picks). Never another interface:
    /// the page lets anyone who reaches it run the model.
    pub fn bind(explorer: Explorer, port: u16) -> std::io::Result<Server> {
        let listener = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port))?;
        let port = listener.local_addr()?.port();
        Ok(Server {
            listener,
            explorer: Arc::new(explorer),
            port,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The page's URL at `path` (the path lives in the fragment, so a reload keeps it).
    pub fn url(&self, path: &[usize]) -> String {
        format!(
            "http://127.0.0.1:{}/#/s/{}/p/{}",
            self.port,
            percent_encode(self.explorer.name()),
            path_text(path)
        )
    }

    /// Serves until the process ends.
    pub fn run(self) -> std::io::Result<()> {
        let (explorer, port) = (self.explorer, self.port);
        let handler: Arc<Handler> =
            Arc::new(move |method: &str, target: &str, host: Option<&str>| {
                handle(&explorer, port, method, target, host)
            });
        serve(self.listener, Limits::SERVED, handler)
    }
}

/// Accepts connections for ever, each on its own thread, within `limits`.
fn serve(listener: TcpListener, limits: Limits, handler: Arc<Handler>) -> std::io::Result<()> {
    let live = Arc::new(AtomicUsize::new(0));
    let refusing = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let Some(slot) = Slot::take(&live, limits.connections) else {
            // Told on a thread of its own (answering lingers), a bounded number at a time.
            if let Some(slot) = Slot::take(&refusing, MAX_REFUSALS) {
                let _ = std::thread::Builder::new()
                    .name("explore-busy".into())
                    .spawn(move || {
                        let _slot = slot;
                        let _ = stream.set_write_timeout(Some(limits.io_timeout));
                        let busy = Response::error(503, "too many connections; try again");
                        answer(stream, &busy, false);
                    });
            }
            continue;
        };
        let handler = Arc::clone(&handler);
        // Without a thread the connection is dropped (closed) and the slot given back.
        let _ = std::thread::Builder::new()
            .name("explore-conn".into())
            .spawn(move || {
                let _slot = slot;
                serve_connection(stream, limits.io_timeout, &*handler);
            });
    }
    Ok(())
}

/// One of the connections served at once, given back when dropped (also by a thread that
/// panics).
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(live: &Arc<AtomicUsize>, max: usize) -> Option<Slot> {
        if live.fetch_add(1, Ordering::SeqCst) >= max {
            live.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Slot(Arc::clone(live)))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Reads one request head (capped), answers it, closes.
fn serve_connection(mut stream: TcpStream, io_timeout: Duration, handler: &Handler) {
    let _ = stream.set_read_timeout(Some(io_timeout));
    let _ = stream.set_write_timeout(Some(io_timeout));
    let mut buf = vec![0u8; MAX_HEAD];
    let mut len = 0;
    // One deadline for the whole head: a client sending a byte now and then must not hold
    // the connection longer than one that sends nothing.
    let deadline = std::time::Instant::now() + io_timeout;
    let head_end = loop {
        if let Some(end) = find_head_end(&buf[..len]) {
            break end;
        }
        if len == buf.len() {
            answer(
                stream,
                &Response::error(431, format!("the request is too large: its head is over {MAX_HEAD} bytes (a path has at most {MAX_PATH_TEXT} characters)")),
                false,
            );
            return;
        }
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match stream.read(&mut buf[len..]) {
            Ok(0) | Err(_) => return,
            Ok(n) => len += n,
        }
    };
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    let response = match req.parse(&buf[..head_end]) {
        Ok(httparse::Status::Complete(_)) => {
            let method = req.method.unwrap_or("");
            let target = req.path.unwrap_or("");
            let mut hosts = req
                .headers
                .iter()
                .filter(|h| h.name.eq_ignore_ascii_case("host"))
                .map(|h| String::from_utf8_lossy(h.value).into_owned());
            let host = hosts.next();
            if hosts.next().is_some() {
                // RFC 9112 §3.2: a request with more than one Host field is answered 400;
                // taking the first would let a second one pass unseen.
                answer(
                    stream,
                    &Response::error(400, "more than one Host header"),
                    false,
                );
                return;
            }
            let body = req
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                .map(|h| String::from_utf8_lossy(h.value).trim() != "0")
                .unwrap_or(false)
                || req
                    .headers
                    .iter()
                    .any(|h| h.name.eq_ignore_ascii_case("transfer-encoding"));
            let head_only = method == "HEAD";
            let r = if body {
                Response::error(413, "this server takes no request bodies")
            } else {
                // Last resort: a bug in the model or the page code answers 500, never takes
                // the server down.
                catch_unwind(AssertUnwindSafe(|| handler(method, target, host.as_deref())))
                .unwrap_or_else(|_| Response::error(500, "internal error while answering this request (a bug: please report the URL)"))
            };
            answer(stream, &r, head_only);
            return;
        }
        Ok(httparse::Status::Partial) => Response::error(400, "incomplete request"),
        Err(e) => Response::error(400, format!("malformed request: {e}")),
    };
    answer(stream, &response, false);
}

/// Writes `r` and closes the connection gracefully: the write side first, then whatever the
/// client still sends (the rest of a request we did not read, up to a bound) is read and
/// dropped until it closes, for at most [`LINGER`]. Closing a socket with unread input
/// resets it, and a reset can destroy the answer before the client reads it.
fn answer(mut stream: TcpStream, r: &Response, head_only: bool) {
    if write_response(&mut stream, r, head_only).is_err() {
        return;
    }
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(LINGER));
    let deadline = std::time::Instant::now() + LINGER;
    let mut sink = [0u8; 4096];
    let mut budget = MAX_HEAD;
    while budget > 0 && std::time::Instant::now() < deadline {
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => budget = budget.saturating_sub(n),
        }
    }
}

/// Where the head ends: after its blank line, whose line ends may be CR LF or a bare LF (as
/// the parser takes them).
fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.iter().enumerate().find_map(|(i, &b)| {
        if b != b'\n' {
            return None;
        }
        let before = &buf[..i];
        let blank = before.ends_with(b"\n") || before.ends_with(b"\n\r");
        blank.then_some(i + 1)
    })
}

fn write_response(stream: &mut TcpStream, r: &Response, head_only: bool) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len()
    );
    for (k, v) in &r.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(&r.body)?;
    }
    stream.flush()
}

/// Answers one request.
pub fn handle(
    explorer: &Explorer,
    port: u16,
    method: &str,
    target: &str,
    host: Option<&str>,
) -> Response {
    // A page of another site could reach a loopback port through a DNS name it controls
    // (DNS rebinding); only our own host names are served.
    let ours = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    if !host.is_some_and(|h| ours.iter().any(|o| o.eq_ignore_ascii_case(h))) {
        return Response::error(
            403,
            "wrong Host header: this server answers only http://127.0.0.1:PORT/",
        );
    }
    if method != "GET" && method != "HEAD" {
        return Response {
            headers: vec![("Allow", "GET, HEAD".into())],
            ..Response::error(405, format!("method {method} is not allowed: GET only"))
        };
    }
    let (route, query) = target.split_once('?').unwrap_or((target, ""));
    // A client may percent-encode the path (`%2E` for a dot); an escape that is not one
    // is left as it is, and the path's parser names it.
    let path_param = || {
        let raw = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("path="))
            .unwrap_or("");
        percent_decode(raw).unwrap_or_else(|| raw.to_string())
    };
    match route {
        "/" | "/index.html" => Response {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body: PAGE.as_bytes().to_vec(),
            headers: vec![(
                "Content-Security-Policy",
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:".into(),
            )],
        },
        "/favicon.ico" => Response {
            status: 204,
            content_type: "text/plain",
            body: Vec::new(),
            headers: Vec::new(),
        },
        "/api/scenario" => Response::json(200, &explorer.scenario_json()),
        "/api/view" => match parse_path(&path_param()).and_then(|p| explorer.view(&p)) {
            Ok(v) => Response::json(200, &v),
            Err(e) => Response::error(e.status(), e.to_string()),
        },
        "/api/trace" => match parse_path(&path_param()).and_then(|p| explorer.trace(&p).map(|t| (p, t))) {
            Ok((p, text)) => Response {
                status: 200,
                content_type: "application/json; charset=utf-8",
                body: text.into_bytes(),
                headers: vec![(
                    "Content-Disposition",
                    format!(
                        "attachment; filename=\"{}.{}.explore-{}.itf.json\"",
                        file_safe(explorer.name()),
                        file_safe(&explorer.model.variant.name()),
                        p.len()
                    ),
                )],
            },
            Err(e) => Response::error(e.status(), e.to_string()),
        },
        _ => Response::error(404, format!("no such page: {}", truncate(route, 200))),
    }
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// Decodes `%XX` escapes (RFC 3986 §2.1); `None` for a malformed escape or text that is not
/// UTF-8 once decoded.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Percent-encodes everything but unreserved characters (RFC 3986 §2.3).
pub fn percent_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding_undoes_encoding_and_refuses_a_broken_escape() {
        for s in ["", "0.1.2", "a b/ç?&=%", "\u{1F600}.9", "%41"] {
            assert_eq!(
                percent_decode(&percent_encode(s)).as_deref(),
                Some(s),
                "{s}"
            );
        }
        assert_eq!(percent_decode("0%2E1").as_deref(), Some("0.1"));
        for broken in ["%", "%4", "%+1", "%G0", "%FF", "%C3%28"] {
            assert_eq!(percent_decode(broken), None, "{broken}");
        }
    }
    use std::time::Instant;

    /// Serves `handler` on a free loopback port within `limits`, for the rest of the test
    /// process.
    fn start(limits: Limits, handler: Arc<Handler>) -> u16 {
        let listener = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || serve(listener, limits, handler));
        port
    }

    /// The connections [`start_echo`]'s server serves at once.
    const ECHO_CONNECTIONS: usize = 4;

    /// A server of [`echo_or_panic`] with room to spare: [`ECHO_CONNECTIONS`] connections,
    /// 5 s to send a head.
    fn start_echo() -> u16 {
        let limits = Limits {
            connections: ECHO_CONNECTIONS,
            io_timeout: Duration::from_secs(5),
        };
        start(limits, echo_or_panic())
    }

    fn connect(port: u16) -> TcpStream {
        let s = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s
    }

    /// Sends a GET of `target` and returns the status and body of the answer.
    fn get(port: u16, target: &str) -> (u16, String) {
        let mut s = connect(port);
        write!(s, "GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        let status = answer[9..12].parse().unwrap();
        let body = answer.split_once("\r\n\r\n").unwrap().1.to_string();
        (status, body)
    }

    fn echo_or_panic() -> Arc<Handler> {
        Arc::new(|_method: &str, target: &str, _host: Option<&str>| {
            if target == "/boom" {
                panic!("a bug while answering");
            }
            Response::json(200, &json!({ "target": target }))
        })
    }

    #[test]
    fn a_panic_while_answering_is_a_500_and_the_server_keeps_serving() {
        let port = start_echo();
        let (status, body) = get(port, "/boom");
        assert_eq!(status, 500);
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["status"], 500);
        assert!(
            v["error"].as_str().unwrap().contains("internal error"),
            "{body}"
        );
        // The panicking connection gave its slot back: as many again as the limit are served.
        for _ in 0..ECHO_CONNECTIONS + 1 {
            assert_eq!(get(port, "/after").0, 200);
        }
    }

    #[test]
    fn connections_over_the_limit_get_503_until_a_silent_one_is_dropped() {
        let limits = Limits {
            connections: 2,
            io_timeout: Duration::from_secs(1),
        };
        let port = start(limits, echo_or_panic());
        // Two clients that connect and say nothing hold both slots (connections are accepted
        // in the order they came)...
        let silent: Vec<TcpStream> = (0..2).map(|_| connect(port)).collect();
        let (status, body) = get(port, "/third");
        assert_eq!(status, 503, "{body}");
        assert!(body.contains("too many connections"), "{body}");
        // ...until the server gives up on them, and then it serves again.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match get(port, "/fourth") {
                (200, body) => {
                    assert_eq!(body, r#"{"target":"/fourth"}"#);
                    break;
                }
                (503, _) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(100))
                }
                other => panic!("{other:?}"),
            }
        }
        drop(silent);
    }

    #[test]
    fn a_silent_or_stalled_client_is_closed_after_the_io_timeout() {
        let limits = Limits {
            connections: 4,
            io_timeout: Duration::from_millis(300),
        };
        let port = start(limits, echo_or_panic());
        for prefix in ["", "GET /half HTTP/1.1\r\nHost: 127.0.0"] {
            let mut s = connect(port);
            s.write_all(prefix.as_bytes()).unwrap();
            let begun = Instant::now();
            let mut rest = Vec::new();
            // The server closes without an answer: the read ends (0 bytes), it does not hang.
            s.read_to_end(&mut rest).unwrap();
            assert!(rest.is_empty(), "{:?}", String::from_utf8_lossy(&rest));
            let waited = begun.elapsed();
            assert!(
                waited >= Duration::from_millis(250) && waited < Duration::from_secs(10),
                "closed after {waited:?}"
            );
        }
    }

    /// A client that sends a byte now and then is closed at the same timeout as one that
    /// sends nothing: the timeout is for the whole head, not for each read.
    #[test]
    fn a_trickling_client_is_closed_after_the_io_timeout() {
        let limits = Limits {
            connections: 4,
            io_timeout: Duration::from_millis(600),
        };
        let port = start(limits, echo_or_panic());
        let mut s = connect(port);
        let begun = Instant::now();
        let head = b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: aaaaaaaaaaaaaaaaaaaa";
        let mut closed = false;
        for byte in head {
            if s.write_all(&[*byte]).is_err() {
                closed = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
            if begun.elapsed() > Duration::from_secs(5) {
                break;
            }
        }
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
        assert!(
            closed || begun.elapsed() < Duration::from_secs(5),
            "still open after {:?}",
            begun.elapsed()
        );
        assert!(rest.is_empty(), "{:?}", String::from_utf8_lossy(&rest));
    }

    /// Two Host headers are refused whatever their order: the first must not vouch for a
    /// second the handler never sees.
    #[test]
    fn a_request_with_two_host_headers_is_answered_400() {
        let port = start_echo();
        for hosts in [
            [format!("127.0.0.1:{port}"), "evil.example".to_string()],
            ["evil.example".to_string(), format!("127.0.0.1:{port}")],
        ] {
            let mut s = connect(port);
            write!(
                s,
                "GET /x HTTP/1.1\r\nHost: {}\r\nHost: {}\r\n\r\n",
                hosts[0], hosts[1]
            )
            .unwrap();
            let mut answer = String::new();
            s.read_to_string(&mut answer).unwrap();
            assert!(answer.starts_with("HTTP/1.1 400"), "{hosts:?}: {answer}");
            assert!(answer.contains("more than one Host header"), "{answer}");
        }
    }

    /// A head whose lines end in a bare LF is answered, as the parser reads it.
    #[test]
    fn a_head_with_bare_line_feeds_is_answered() {
        let port = start_echo();
        let mut s = connect(port);
        write!(s, "GET /lf HTTP/1.1\nHost: 127.0.0.1:{port}\n\n").unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.ends_with(r#"{"target":"/lf"}"#), "{answer}");
        for (head, end) in [
            (&b"GET / HTTP/1.1\r\n\r\n"[..], Some(18)),
            (b"GET / HTTP/1.1\n\n", Some(16)),
            (b"GET / HTTP/1.1\r\n\n", Some(17)),
            (b"GET / HTTP/1.1\r\nHost: x\r\n", None),
        ] {
            assert_eq!(
                find_head_end(head),
                end,
                "{:?}",
                String::from_utf8_lossy(head)
            );
        }
    }
}
