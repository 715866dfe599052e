// Included by the build scripts of the crates with browser tests (browser/, conformance/, the
// CLI): find out at build time whether the browser tests can run, so that a test that cannot is
// marked `#[ignore = "..."]` and counted as ignored in cargo's summary, not passed in silence.
//
// Sets `cfg(webmcp_no_chromium)` when no Chromium is at $WEBMCP_CHROMIUM, else $CHROMIUM, else
// /usr/bin/chromium (the order of `resolve_chromium`), and `cfg(webmcp_no_polyfill)` when `npm ci` has not been run in
// browser/js. With WEBMCP_REQUIRE_BROWSER=1 neither is set: the tests run and fail on what is
// missing.

fn probe_browser(workspace_root: &std::path::Path) {
    println!("cargo::rustc-check-cfg=cfg(webmcp_no_chromium)");
    println!("cargo::rustc-check-cfg=cfg(webmcp_no_polyfill)");
    println!("cargo::rerun-if-env-changed=WEBMCP_CHROMIUM");
    println!("cargo::rerun-if-env-changed=CHROMIUM");
    println!("cargo::rerun-if-env-changed=WEBMCP_REQUIRE_BROWSER");
    if std::env::var("WEBMCP_REQUIRE_BROWSER").as_deref() == Ok("1") {
        return;
    }
    let set = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let chromium = set("WEBMCP_CHROMIUM")
        .or_else(|| set("CHROMIUM"))
        .unwrap_or_else(|| "/usr/bin/chromium".into());
    // A path that does not exist makes cargo run this script again on every build, so
    // installing Chromium later is noticed.
    println!("cargo::rerun-if-changed={chromium}");
    if !std::path::Path::new(&chromium).exists() {
        println!("cargo::rustc-cfg=webmcp_no_chromium");
    }
    let modules = workspace_root.join("browser/js/node_modules");
    println!("cargo::rerun-if-changed={}", modules.display());
    let installed = ["webmcp-polyfill-5", "webmcp-polyfill-legacy", "wpt-runner"]
        .iter()
        .all(|package| modules.join(package).exists());
    if !installed {
        println!("cargo::rustc-cfg=webmcp_no_polyfill");
    }
}
