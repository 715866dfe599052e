//! `webmcp-check explore` as a child process: its JSON API over plain HTTP (including bad
//! requests, which must get an HTTP error and leave the server running), a path saved as an
//! ITF trace that `replay` accepts and `--trace` reopens, and the page in headless Chromium
//! (rendered from a URL, a counterexample reached through its link, the keyboard driven by
//! the page's self-test).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// A short counterexample (docs/results.md): `exists:notify-tool-change#2` in 3 actions,
/// `register-promise-settles` in 5.
const SCENARIO: &str = "register-in-bfcache";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("webmcp-explore-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A running `explore`; killed when dropped.
struct Explore {
    child: Child,
    url: String,
    port: u16,
}

impl Drop for Explore {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn explore(args: &[&str]) -> Explore {
    let mut child = bin()
        .arg("explore")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("webmcp-check explore: ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_string();
    let port = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|r| r.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("not a loopback URL: {url}"));
    Explore { child, url, port }
}

struct Reply {
    status: u16,
    head: String,
    body: String,
}

/// Sends `request` as is and reads the whole reply (the server closes every connection).
fn raw(port: u16, request: &[u8]) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    // The server may answer (and close) before reading all of a huge request.
    let _ = s.write_all(request);
    let mut bytes = Vec::new();
    let _ = s.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {head:?}"));
    Reply {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

fn get(port: u16, target: &str) -> Reply {
    raw(
        port,
        format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    )
}

fn json(r: &Reply) -> serde_json::Value {
    serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.body))
}

fn names(list: &serde_json::Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|p| p["property"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_api_follows_paths_and_refuses_bad_requests_with_a_message() {
    let e = explore(&["--scenario", SCENARIO]);
    assert!(e.url.ends_with(&format!("/#/s/{SCENARIO}/p/")), "{}", e.url);

    let page = get(e.port, "/");
    assert_eq!(page.status, 200);
    assert!(page.head.contains("text/html"));
    // Everything is inline: no script, style or font is fetched from anywhere.
    for external in ["<script src", "<link", "@import", "url("] {
        assert!(!page.body.contains(external), "the page loads {external}");
    }

    let s = json(&get(e.port, "/api/scenario"));
    assert_eq!(s["name"], SCENARIO);
    let jumps = s["jumps"].as_array().unwrap();
    let cx = jumps
        .iter()
        .find(|j| j["property"] == "exists:notify-tool-change#2")
        .expect("the counterexample of docs/results.md");
    assert_eq!(cx["verdict"], "violated");
    assert_eq!(cx["length"], 3);

    let initial = json(&get(e.port, "/api/view?path="));
    assert_eq!(initial["depth"], 0);
    assert!(initial["violated"].as_array().unwrap().is_empty());
    let first = &initial["choices"][0];
    assert_eq!(first["text"], "RunScript(top)");
    assert!(first["steps"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s == "register-tool#19"));

    let path = cx["path"].as_str().unwrap();
    let v = json(&get(e.port, &format!("/api/view?path={path}")));
    assert_eq!(v["depth"], 3);
    // The same path percent-encoded, as a client may send it (it was a 400).
    let encoded = webmcp_explorer::server::percent_encode(path).replace('.', "%2E");
    assert_eq!(json(&get(e.port, &format!("/api/view?path={encoded}"))), v);
    assert!(names(&v["violated"]).contains(&"exists:notify-tool-change#2".to_string()));
    // The spec text of the steps just executed, and the state changed by them.
    let spec = v["lastSteps"].as_array().unwrap();
    assert!(spec.iter().any(|s| s["id"] == "notify-tool-change#2"
        && s["text"]
            .as_str()
            .unwrap()
            .contains("inclusive descendant navigables")));
    assert!(v["tables"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["changed"] == true));

    // Bad requests: an HTTP error with a message, never a crash.
    let stale = get(e.port, "/api/view?path=0.99");
    assert_eq!(stale.status, 400);
    assert!(
        json(&stale)["error"]
            .as_str()
            .unwrap()
            .contains("no action 99 in the state after step 1"),
        "{}",
        stale.body
    );
    for bad in ["0.x", "%3", "%+1", "%FF"] {
        let malformed = get(e.port, &format!("/api/view?path={bad}"));
        assert_eq!(malformed.status, 400, "{bad}");
    }
    let malformed = get(e.port, "/api/view?path=0.x");
    assert_eq!(malformed.status, 400);
    assert!(json(&malformed)["error"]
        .as_str()
        .unwrap()
        .contains("malformed path"));
    let long = vec!["0"; webmcp_explorer::MAX_STEPS + 1].join(".");
    let too_long = get(e.port, &format!("/api/view?path={long}"));
    assert_eq!(too_long.status, 413);
    assert!(json(&too_long)["error"]
        .as_str()
        .unwrap()
        .contains("too long"));
    let huge = get(e.port, &format!("/api/view?path={}", "0.".repeat(200_000)));
    assert_eq!(huge.status, 431);
    assert!(json(&huge)["error"].as_str().unwrap().contains("too large"));
    let trace_stale = get(e.port, "/api/trace?path=7");
    assert_eq!(trace_stale.status, 400);
    assert_eq!(get(e.port, "/nope").status, 404);
    let post = raw(
        e.port,
        format!(
            "POST /api/view HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
            e.port
        )
        .as_bytes(),
    );
    assert_eq!(post.status, 405);
    let body = raw(
        e.port,
        format!(
            "GET /api/view HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 3\r\n\r\nabc",
            e.port
        )
        .as_bytes(),
    );
    assert_eq!(body.status, 413);
    let foreign = raw(
        e.port,
        b"GET /api/scenario HTTP/1.1\r\nHost: attacker.example\r\n\r\n",
    );
    assert_eq!(foreign.status, 403);
    assert_eq!(raw(e.port, b"\x01\x02 garbage\r\n\r\n").status, 400);

    // Still serving.
    assert_eq!(get(e.port, "/api/scenario").status, 200);
}

#[test]
fn a_saved_path_replays_and_reopens_at_its_last_state() {
    let e = explore(&["--scenario", SCENARIO]);
    let saved = get(e.port, "/api/trace?path=0.1.0.0");
    assert_eq!(saved.status, 200);
    assert!(
        saved.head.contains("attachment; filename="),
        "{}",
        saved.head
    );
    let dir = scratch("trace");
    let file = dir.join("saved.itf.json");
    std::fs::write(&file, &saved.body).unwrap();
    let replay = bin().arg("replay").arg(&file).output().unwrap();
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&replay.stdout),
        String::from_utf8_lossy(&replay.stderr)
    );
    drop(e);
    let reopened = explore(&["--trace", file.to_str().unwrap()]);
    assert!(
        reopened
            .url
            .ends_with(&format!("/#/s/{SCENARIO}/p/0.1.0.0")),
        "{}",
        reopened.url
    );
    // The same trace with its second action made one that is not enabled there (a tab
    // evicted from a cache it never entered): refused, not served.
    let edited = dir.join("edited.itf.json");
    std::fs::write(
        &edited,
        saved.body.replace("EnterBfcache", "EvictFromBfcache"),
    )
    .unwrap();
    // A refused trace: exit 2, one line on standard error, nothing served.
    let refused = |file: &std::path::Path| {
        let out = bin()
            .args(["explore", "--trace", file.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(out.stdout.is_empty());
        stderr
    };
    let stderr = refused(&edited);
    assert!(
        stderr.contains("the trace does not replay: it diverges at step 2 (")
            && stderr.contains("the action is not enabled here"),
        "{stderr}"
    );
    // Every action enabled, but a recorded state the model does not reproduce: refused too.
    let forged = dir.join("forged.itf.json");
    let body = saved.body.replacen("\"FullyActive\"", "\"Destroyed\"", 1);
    assert_ne!(body, saved.body, "the saved trace names a lifecycle");
    std::fs::write(&forged, body).unwrap();
    let stderr = refused(&forged);
    assert!(stderr.contains("the trace does not replay"), "{stderr}");
}

#[test]
fn bad_usage_is_one_line_on_stderr_and_exit_2() {
    let dir = scratch("usage");
    let garbage = dir.join("garbage.itf.json");
    std::fs::write(&garbage, "{ not a trace").unwrap();
    // A port another program holds.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    for args in [
        vec!["explore"],
        vec!["explore", "--scenario", SCENARIO, "--port", &port],
        vec!["explore", "--scenario", "no-such-scenario"],
        vec!["explore", "--scenario", SCENARIO, "--variant", "seed+"],
        vec!["explore", "--trace", "/nonexistent/x.itf.json"],
        vec!["explore", "--trace", garbage.to_str().unwrap()],
    ] {
        let out = bin().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("webmcp-check: "), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// `chromium --dump-dom URL`: the DOM once the page's scripts have run (virtual time lets
/// the fetches finish before the dump).
#[cfg(not(webmcp_no_chromium))]
fn dump_dom(url: &str) -> String {
    use std::os::unix::process::CommandExt;
    let profile = scratch(&format!("chromium-{}", url.len()));
    let mut child = Command::new(webmcp_browser::chromium_for_tests())
        .args(webmcp_browser::chromium::BASE_FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--virtual-time-budget=5000", "--dump-dom", url])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    // Read on a thread so that a browser that never exits fails the test instead of hanging it.
    let mut out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut dom = String::new();
        let _ = out.read_to_string(&mut dom);
        let _ = tx.send(dom);
    });
    let dom = rx.recv_timeout(std::time::Duration::from_secs(120));
    // SAFETY: kill(2) on the process group the child leads (process_group(0)).
    unsafe {
        libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
    }
    let _ = child.wait();
    let dom = dom.unwrap_or_else(|_| panic!("chromium --dump-dom {url} gave no DOM within 120 s"));
    let _ = std::fs::remove_dir_all(profile);
    dom
}

#[test]
#[cfg_attr(
    webmcp_no_chromium,
    ignore = "needs Chromium ($WEBMCP_CHROMIUM or /usr/bin/chromium); WEBMCP_REQUIRE_BROWSER=1 makes its absence a failure"
)]
fn the_page_shows_a_state_from_its_url_and_reaches_a_counterexample_by_its_link() {
    #[cfg(not(webmcp_no_chromium))]
    {
        let e = explore(&["--scenario", SCENARIO]);
        let base = e.url.split('#').next().unwrap().to_string();
        let initial = dump_dom(&e.url);
        assert!(initial.contains("RunScript(top)"), "{initial}");
        assert!(initial.contains("after 0 steps"), "{initial}");
        // The link the page gives to the counterexample of register-promise-settles.
        let marker = "data-property=\"register-promise-settles\"";
        let at = initial.find(marker).expect("a link to the counterexample");
        let link_start = initial[..at].rfind("href=\"").unwrap() + 6;
        let href = &initial[link_start..initial[link_start..].find('"').unwrap() + link_start];
        assert!(href.starts_with(&format!("#/s/{SCENARIO}/p/")), "{href}");
        let reached = dump_dom(&format!("{base}{href}"));
        assert!(reached.contains("after 5 steps"), "{reached}");
        let violated = reached
            .split("id=\"violated\"")
            .nth(1)
            .and_then(|r| r.split("</ul>").next())
            .unwrap();
        assert!(violated.contains("register-promise-settles"), "{violated}");
        assert!(reached.contains("No action is enabled"), "{reached}");
        // A stale path in the URL: the page says so.
        let stale = dump_dom(&format!("{base}#/s/{SCENARIO}/p/0.42"));
        assert!(
            stale.contains("no action 42 in the state after step 1"),
            "{stale}"
        );
    }
}

#[test]
#[cfg_attr(
    webmcp_no_chromium,
    ignore = "needs Chromium ($WEBMCP_CHROMIUM or /usr/bin/chromium); WEBMCP_REQUIRE_BROWSER=1 makes its absence a failure"
)]
fn the_keyboard_takes_actions_and_goes_back_and_forward() {
    // Synthetic key events through the page's own handler (its ?selftest=keys hook), not
    // the browser's input pipeline: docs/explorer.md says so.
    #[cfg(not(webmcp_no_chromium))]
    {
        let e = explore(&["--scenario", SCENARIO]);
        let base = e.url.split('#').next().unwrap();
        let dom = dump_dom(&format!("{base}?selftest=keys#/s/{SCENARIO}/p/0"));
        let log = dom
            .split("id=\"selftest\">")
            .nth(1)
            .and_then(|r| r.split("</pre>").next())
            .unwrap_or_else(|| panic!("no self-test log: {dom}"));
        assert!(log.contains("Enter -&gt; 0.1 "), "{log}");
        assert!(log.contains("selftest: pass"), "{log}");
    }
}

/// Chromium driven over the DevTools protocol on `--remote-debugging-pipe` (requests on the
/// child's fd 3, replies and events on its fd 4, each message ended by a NUL byte): real key
/// events through Chromium's input pipeline, not synthetic DOM events.
#[cfg(not(webmcp_no_chromium))]
mod devtools {
    use std::io::{BufRead, BufReader, Write};
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command, Stdio};
    use std::sync::mpsc::{Receiver, RecvTimeoutError};
    use std::time::{Duration, Instant};

    use serde_json::{json, Value};

    /// How long one reply may take before the test gives up (a bound, not a measurement).
    const REPLY_WITHIN: Duration = Duration::from_secs(30);

    pub struct Browser {
        child: Child,
        to: std::fs::File,
        from: Receiver<Value>,
        next_id: u64,
        session: Option<String>,
        profile: std::path::PathBuf,
    }

    impl Drop for Browser {
        fn drop(&mut self) {
            // SAFETY: kill(2) on the process group the child leads (process_group(0)).
            unsafe {
                libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL);
            }
            let _ = self.child.wait();
            let _ = std::fs::remove_dir_all(&self.profile);
        }
    }

    impl Browser {
        pub fn launch(profile: std::path::PathBuf) -> Browser {
            let (to_child, to_us): (OwnedFd, OwnedFd) = pipe();
            let (from_child_r, from_child_w): (OwnedFd, OwnedFd) = pipe();
            let (r3, w4) = (to_child.as_raw_fd(), from_child_w.as_raw_fd());
            let mut cmd = Command::new(webmcp_browser::chromium_for_tests());
            cmd.args(webmcp_browser::chromium::BASE_FLAGS)
                .arg(format!("--user-data-dir={}", profile.display()))
                .args(["--remote-debugging-pipe", "about:blank"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0);
            // SAFETY: only async-signal-safe calls (fcntl, dup2) between fork and exec. The
            // ends are first copied above fd 10 so that placing one on 3 or 4 cannot close
            // the other.
            unsafe {
                cmd.pre_exec(move || {
                    let a = libc::fcntl(r3, libc::F_DUPFD, 10);
                    let b = libc::fcntl(w4, libc::F_DUPFD, 10);
                    if a < 0 || b < 0 || libc::dup2(a, 3) < 0 || libc::dup2(b, 4) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
            let child = cmd.spawn().unwrap();
            drop(to_child);
            drop(from_child_w);
            let (tx, rx) = std::sync::mpsc::channel();
            let reader = std::fs::File::from(from_child_r);
            std::thread::spawn(move || {
                let mut r = BufReader::new(reader);
                loop {
                    let mut msg = Vec::new();
                    match r.read_until(0, &mut msg) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {
                            msg.pop();
                            if let Ok(v) = serde_json::from_slice::<Value>(&msg) {
                                if tx.send(v).is_err() {
                                    return;
                                }
                            }
                        }
                    }
                }
            });
            Browser {
                child,
                to: std::fs::File::from(to_us),
                from: rx,
                next_id: 0,
                session: None,
                profile,
            }
        }

        /// Sends a command (to the attached page, once there is one) and waits for its reply.
        pub fn call(&mut self, method: &str, params: Value) -> Value {
            self.next_id += 1;
            let id = self.next_id;
            let mut msg = json!({"id": id, "method": method, "params": params});
            if let Some(s) = &self.session {
                msg["sessionId"] = json!(s);
            }
            let mut bytes = msg.to_string().into_bytes();
            bytes.push(0);
            self.to.write_all(&bytes).unwrap();
            let deadline = Instant::now() + REPLY_WITHIN;
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match self.from.recv_timeout(left) {
                    Ok(v) if v["id"] == id => {
                        assert!(v.get("error").is_none(), "{method}: {v}");
                        return v["result"].clone();
                    }
                    Ok(_) => {}
                    Err(RecvTimeoutError::Timeout) => panic!("no reply to {method}"),
                    Err(RecvTimeoutError::Disconnected) => panic!("Chromium closed the pipe"),
                }
            }
        }

        /// Opens `url` in a new page and talks to that page from now on.
        pub fn open(&mut self, url: &str) {
            let target = self.call("Target.createTarget", json!({"url": url}));
            let id = target["targetId"].as_str().unwrap().to_string();
            let attached = self.call(
                "Target.attachToTarget",
                json!({"targetId": id, "flatten": true}),
            );
            self.session = Some(attached["sessionId"].as_str().unwrap().to_string());
        }

        pub fn eval(&mut self, expr: &str) -> Value {
            let r = self.call(
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true}),
            );
            r["result"]["value"].clone()
        }

        /// Evaluates `expr` until it is true, at most 300 times 50 ms apart.
        pub fn wait_for(&mut self, expr: &str) {
            for _ in 0..300 {
                if self.eval(expr) == json!(true) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            panic!("never true: {expr}");
        }

        /// A key pressed and released, as a user types it.
        pub fn key(&mut self, key: &str) {
            let (code, vk, text) = match key {
                "Enter" => ("Enter", 13, "\r"),
                "Backspace" => ("Backspace", 8, ""),
                "ArrowDown" => ("ArrowDown", 40, ""),
                "[" => ("BracketLeft", 219, "["),
                "]" => ("BracketRight", 221, "]"),
                "j" => ("KeyJ", 74, "j"),
                "1" => ("Digit1", 49, "1"),
                other => panic!("no key {other}"),
            };
            let mut down = json!({"type": if text.is_empty() { "rawKeyDown" } else { "keyDown" },
                "key": key, "code": code, "windowsVirtualKeyCode": vk});
            if !text.is_empty() {
                down["text"] = json!(text);
            }
            self.call("Input.dispatchKeyEvent", down);
            self.call(
                "Input.dispatchKeyEvent",
                json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk}),
            );
        }
    }

    fn pipe() -> (OwnedFd, OwnedFd) {
        let (r, w) = std::io::pipe().unwrap();
        (OwnedFd::from(r), OwnedFd::from(w))
    }
}

#[test]
#[cfg_attr(
    webmcp_no_chromium,
    ignore = "needs Chromium ($WEBMCP_CHROMIUM or /usr/bin/chromium); WEBMCP_REQUIRE_BROWSER=1 makes its absence a failure"
)]
fn real_key_presses_choose_actions_and_reach_a_counterexample() {
    #[cfg(not(webmcp_no_chromium))]
    {
        let e = explore(&["--scenario", SCENARIO]);
        let mut b = devtools::Browser::launch(scratch("devtools"));
        b.open(&e.url);
        // The URL holds the path and the page shows the state at its end.
        let at = |p: &str| {
            let shown = if p.is_empty() { "(empty)" } else { p };
            format!(
                "location.hash === '#/s/{SCENARIO}/p/{p}' && \
                 document.getElementById('where').textContent.endsWith('path {shown}')"
            )
        };
        b.wait_for(&at(""));
        // The counterexample of exists:notify-tool-change#2 is 0.1.0: RunScript, enter the
        // back/forward cache, the registration's in-parallel step.
        b.key("Enter");
        b.wait_for(&at("0"));
        b.key("j");
        b.key("Enter");
        b.wait_for(&at("0.1"));
        b.key("[");
        b.wait_for(&at("0"));
        b.key("]");
        b.wait_for(&at("0.1"));
        b.key("1");
        b.wait_for(&at("0.1.0"));
        let violated = b.eval("document.getElementById('violated').textContent");
        assert!(
            violated
                .as_str()
                .unwrap()
                .contains("exists:notify-tool-change#2"),
            "{violated}"
        );
        let spec = b.eval("document.getElementById('spec').textContent");
        assert!(
            spec.as_str().unwrap().contains("notify-tool-change#2"),
            "{spec}"
        );
        b.key("Backspace");
        b.wait_for(&at("0.1"));
        // A wide window puts the panels side by side; a narrow one stacks them and
        // scrolls only vertically.
        let side_by_side = "document.getElementById('choices').getBoundingClientRect().right \
             < document.getElementById('tables').getBoundingClientRect().left";
        let fits = "document.documentElement.scrollWidth <= window.innerWidth";
        for (width, wide) in [(1400, true), (420, false)] {
            b.call(
                "Emulation.setDeviceMetricsOverride",
                serde_json::json!({"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false}),
            );
            b.wait_for(&format!("window.innerWidth === {width}"));
            assert_eq!(
                b.eval(side_by_side),
                serde_json::json!(wide),
                "at {width}px"
            );
            assert_eq!(
                b.eval(fits),
                serde_json::json!(true),
                "overflow at {width}px"
            );
        }
    }
}
