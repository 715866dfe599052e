//! `webmcp-check conformance`: usage errors and WPT emission (no browser needed).

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_webmcp-check"))
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_unknown_scenario_is_a_usage_error() {
    let out = bin()
        .args(["conformance", "--scenario", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("webmcp-check: unknown scenario \"nope\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_scenario_without_browser_form_says_why() {
    let out = bin()
        .args(["conformance", "--scenario", "execution-across-tabs"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("has no browser form: several tabs"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_missing_chromium_is_a_usage_error() {
    let out = bin()
        .args([
            "conformance",
            "--scenario",
            "register-and-discover",
            "--chromium",
            "/nonexistent/chromium",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out).lines().count(), 1);
    assert!(stderr(&out).contains("no Chromium at /nonexistent/chromium"));
}

#[test]
fn emit_wpt_writes_one_test_per_browser_form() {
    let dir = std::env::temp_dir().join(format!("webmcp-cli-wpt-{}", std::process::id()));
    let out = bin()
        .args(["conformance", "--all", "--emit-wpt"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let tests: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".html"))
        .collect();
    assert!(tests.len() >= 20, "{} tests", tests.len());
    assert!(dir.join("resources/webmcp-runtime.js").exists());
    assert!(dir.join("cross-origin-exposed.https.sub.html").exists());
    let t = std::fs::read_to_string(dir.join("abort-before-dispatch.https.html")).unwrap();
    assert!(t.contains("/resources/testharness.js") && t.contains("const ALLOWED = [\n"));
    assert!(
        t.contains("(the draft with the proposed fixes)"),
        "proposed by default"
    );
    let out = bin()
        .args(["conformance", "--scenario", "object-input-double-negative"])
        // The 2026-08 text's double negative refuses every object input.
        .args(["--wpt-variant", "seed@2026-08", "--emit-wpt"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let t = std::fs::read_to_string(dir.join("object-input-double-negative.https.html")).unwrap();
    assert!(t.contains("\"rejected UnknownError\", \"executeTool() promise for exec in top"));
    let out = bin()
        .args([
            "conformance",
            "--all",
            "--wpt-variant",
            "sead",
            "--emit-wpt",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown variant \"sead\""),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn chromium_comes_from_the_flag_then_webmcp_chromium_then_chromium() {
    let run = |env: &[(&str, &str)]| {
        let mut cmd = bin();
        cmd.args(["conformance", "--scenario", "register-and-discover"])
            .env_remove("WEBMCP_CHROMIUM")
            .env_remove("CHROMIUM");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        (out.status.code(), stderr(&out))
    };
    let (code, err) = run(&[("CHROMIUM", "/nonexistent/from-chromium")]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("no Chromium at /nonexistent/from-chromium (from $CHROMIUM"),
        "{err}"
    );
    let (code, err) = run(&[
        ("CHROMIUM", "/nonexistent/from-chromium"),
        ("WEBMCP_CHROMIUM", "/nonexistent/from-webmcp"),
    ]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("/nonexistent/from-webmcp (from $WEBMCP_CHROMIUM"),
        "{err}"
    );
}

#[test]
fn a_scenario_file_is_read_as_untrusted_input() {
    let dir = std::env::temp_dir().join(format!("webmcp-cli-conf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{\"name\": ").unwrap();
    let out = bin()
        .args(["conformance", "--scenario-file"])
        .arg(&broken)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("broken.json"), "{}", stderr(&out));
    // A scenario the browser cannot run says why, naming the scenario in the file.
    let tabs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/execution-across-tabs.json"
    ))
    .unwrap()
    .replace("\"execution-across-tabs\"", "\"my-tabs\"");
    let mine = dir.join("mine.json");
    std::fs::write(&mine, tabs).unwrap();
    let out = bin()
        .args(["conformance", "--scenario-file"])
        .arg(&mine)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("scenario \"my-tabs\" has no browser form: several tabs"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The polyfill is read with a bound: `/dev/zero` took 13.8 GB before it was.
#[test]
fn a_polyfill_that_is_a_device_or_a_directory_is_refused_unread() {
    for (args, why) in [
        (
            vec!["legacy-conformance", "--polyfill", "/dev/zero"],
            "/dev/zero: larger than 16 MiB, the limit for a script file; not read",
        ),
        (
            vec![
                "conformance",
                "--scenario",
                "register-and-discover",
                "--chromium",
                "/bin/true",
                "--impl",
                "polyfill",
                "--polyfill",
                "/dev/zero",
            ],
            "/dev/zero: larger than 16 MiB, the limit for a script file; not read",
        ),
        (
            vec!["legacy-conformance", "--polyfill", "/"],
            "/: is a directory",
        ),
    ] {
        let out = bin().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
        assert!(stderr(&out).contains(why), "{args:?}: {}", stderr(&out));
    }
}

/// A shell script in `dir` that answers `--version` as Chromium would and, launched on a
/// page, runs `on_launch`.
fn stand_in_chromium(dir: &std::path::Path, on_launch: &str) -> std::path::PathBuf {
    let path = dir.join("chromium.sh");
    std::fs::write(
        &path,
        format!("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Chromium 0 (a stand-in)'; exit 0; fi\n{on_launch}\n"),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path
}

/// A run ended by SIGTERM (`timeout`, a cancelled CI job) kills the browser it started: it
/// leads a process group of its own, so it used to outlive us, adopted by init.
#[test]
fn a_terminated_run_leaves_no_browser_behind() {
    let dir = std::env::temp_dir().join(format!("webmcp-sigterm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pidfile = dir.join("browser.pid");
    let fake = stand_in_chromium(
        &dir,
        &format!("echo $$ > {}\nexec sleep 1000", pidfile.display()),
    );
    let mut run = bin()
        .args([
            "conformance",
            "--scenario",
            "register-and-discover",
            "--chromium",
        ])
        .arg(&fake)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let wait_for = |what: &str, done: &mut dyn FnMut() -> bool| {
        let start = std::time::Instant::now();
        while !done() {
            assert!(start.elapsed().as_secs() < 20, "{what} did not happen");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    let mut pid = String::new();
    wait_for("the browser's start", &mut || {
        pid = std::fs::read_to_string(&pidfile).unwrap_or_default();
        pid.ends_with('\n')
    });
    let pid = pid.trim().to_string();
    let term = std::process::Command::new("kill")
        .args(["-TERM", &run.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let status = run.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(15),
        "{status:?}"
    );
    // Gone, or a zombie that init has yet to reap.
    wait_for("the browser's end", &mut || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
            stat.rsplit(") ").next().unwrap_or("").starts_with('Z')
        })
    });
    std::fs::remove_dir_all(dir).unwrap();
}

/// A file that cannot be written is refused before any browser starts (it was said only
/// after the whole run): the stand-in browser records any start.
#[test]
fn an_unwritable_output_is_refused_before_the_browser_runs() {
    let dir = std::env::temp_dir().join(format!("webmcp-unwritable-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("pages")).unwrap();
    std::fs::write(dir.join("pages/index.html"), "<!doctype html>").unwrap();
    let started = dir.join("started");
    let fake = stand_in_chromium(&dir, &format!("touch {}", started.display()));
    let chromium = fake.to_str().unwrap();
    let pages = dir.join("pages");
    let pages = pages.to_str().unwrap();
    let tmp = std::env::temp_dir();
    let tmp = tmp.to_str().unwrap();
    let scenario = ["conformance", "--scenario", "register-and-discover"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        ([&scenario[..], &["--save", tmp]].concat(), "is a directory"),
        (
            [&scenario[..], &["--save", "/nonexistent/x.json"]].concat(),
            "its directory /nonexistent does not exist",
        ),
        (
            [&scenario[..], &["--write-docs", "/nonexistent/x.md"]].concat(),
            "its directory /nonexistent does not exist",
        ),
        (
            vec!["record", "--dir", pages, "--page", "index.html", "-o", tmp],
            "is a directory",
        ),
    ];
    for (args, why) in cases {
        let out = bin()
            .args(&args)
            .args(["--chromium", chromium])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
        assert!(stderr(&out).contains(why), "{args:?}: {}", stderr(&out));
        assert!(!started.exists(), "{args:?} started the browser");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A browser that ends without asking for its page is not waited for: each launch gives up
/// two seconds after it ended (`/bin/true` as Chromium took 2 minutes over three launches).
#[test]
fn a_browser_that_ends_without_the_page_is_not_waited_for() {
    let dir = std::env::temp_dir().join(format!("webmcp-ended-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fake = stand_in_chromium(&dir, "exit 0");
    let start = std::time::Instant::now();
    let out = bin()
        .args([
            "conformance",
            "--scenario",
            "register-and-discover",
            "--chromium",
        ])
        .arg(&fake)
        .output()
        .unwrap();
    // A hang guard well under the old wait, not a claim about speed.
    assert!(start.elapsed().as_secs() < 60, "{:?}", start.elapsed());
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the server received no request for the page")
            && stderr(&out).contains("Chromium had exited (exit status: 0)"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(dir).unwrap();
}
