//! The HTTP side: a loopback-only listener, requests parsed by `httparse` from a capped
//! buffer, one short-lived thread per connection (at most [`MAX_CONNECTIONS`]), every
//! response closing its connection.
//!
//! Why not a full server crate: the small synchronous ones read a request line of any
//! length into memory; reading the head ourselves into a fixed buffer is what caps a
//! request, and `httparse` (hyper's parser) does the parsing.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::walk::{parse_path, path_text, Explorer, MAX_PATH_TEXT};

/// The page: one HTML file with its CSS and script inline (no network, no CDN).
pub const PAGE: &str = include_str!("page.html");

/// The largest request head read (request line and headers): a path of
/// [`MAX_PATH_TEXT`] characters and room for the headers a browser sends.
pub const MAX_HEAD: usize = MAX_PATH_TEXT + 16 * 1024;
/// Connections served at once; more are answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 32;
/// A client that sends nothing for this long is dropped (a stalled connection must not keep
/// a thread forever).
const IO_TIMEOUT: Duration = Duration::from_secs(10);

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
        let live = Arc::new(AtomicUsize::new(0));
        for stream in self.listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            if live.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                live.fetch_sub(1, Ordering::SeqCst);
                let _ = write_response(
                    &mut stream,
                    &Response::error(503, "too many connections; try again"),
                    false,
                );
                continue;
            }
            let explorer = Arc::clone(&self.explorer);
            let done = Arc::clone(&live);
            let port = self.port;
            let spawned = std::thread::Builder::new()
                .name("explore-conn".into())
                .spawn(move || {
                    serve_connection(stream, &explorer, port);
                    done.fetch_sub(1, Ordering::SeqCst);
                });
            if spawned.is_err() {
                // No thread: the connection is dropped (closed) and its slot given back.
                live.fetch_sub(1, Ordering::SeqCst);
            }
        }
        Ok(())
    }
}

/// Reads one request head (capped), answers it, closes.
fn serve_connection(mut stream: TcpStream, explorer: &Explorer, port: u16) {
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let mut buf = vec![0u8; MAX_HEAD];
    let mut len = 0;
    let head_end = loop {
        if let Some(end) = find_head_end(&buf[..len]) {
            break end;
        }
        if len == buf.len() {
            let _ = write_response(
                &mut stream,
                &Response::error(431, format!("the request is too large: its head is over {MAX_HEAD} bytes (a path has at most {MAX_PATH_TEXT} characters)")),
                false,
            );
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
            let host = req
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("host"))
                .map(|h| String::from_utf8_lossy(h.value).into_owned());
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
                catch_unwind(AssertUnwindSafe(|| {
                    handle(explorer, port, method, target, host.as_deref())
                }))
                .unwrap_or_else(|_| Response::error(500, "internal error while answering this request (a bug: please report the URL)"))
            };
            let _ = write_response(&mut stream, &r, head_only);
            return;
        }
        Ok(httparse::Status::Partial) => Response::error(400, "incomplete request"),
        Err(e) => Response::error(400, format!("malformed request: {e}")),
    };
    let _ = write_response(&mut stream, &response, false);
}

fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
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
    let path_param = || {
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix("path="))
            .unwrap_or("")
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
        "/api/view" => match parse_path(path_param()).and_then(|p| explorer.view(&p)) {
            Ok(v) => Response::json(200, &v),
            Err(e) => Response::error(e.status(), e.to_string()),
        },
        "/api/trace" => match parse_path(path_param()).and_then(|p| explorer.trace(&p).map(|t| (p, t))) {
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

/// A name as a file name part: `[A-Za-z0-9._-]`, anything else `_`.
fn file_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
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
