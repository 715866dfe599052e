//! Real Chromium: a page on the primary origin embeds a frame from the
//! secondary origin; both report, the top page finishes. Ignored when no
//! Chromium is installed, unless WEBMCP_REQUIRE_BROWSER=1 (then absence fails).

use std::time::Duration;

use webmcp_browser::{
    chromium_for_tests, run_pages, Chromium, Origin, PageOutcome, Resource, Site, Visit, REPORT_JS,
};

#[test]
#[cfg_attr(
    webmcp_no_chromium,
    ignore = "no Chromium at $WEBMCP_CHROMIUM or /usr/bin/chromium (WEBMCP_REQUIRE_BROWSER=1 makes this a failure)"
)]
fn pages_on_both_origins_report_and_timeouts_are_reported() {
    let chromium = Chromium::new(chromium_for_tests());
    // The page that finishes gets a bound it should never need (it returns as soon as the page
    // is done): the first Chromium start on a fresh, busy 2-core machine has taken over 6 s.
    let both = &run_one(&chromium, "both", "/top.html", Duration::from_secs(90))[0];
    assert_eq!(
        both.done,
        Some(serde_json::json!({"frames": 1})),
        "the page never finished: {both:?}\n{}",
        both.browser_log.as_deref().unwrap_or("")
    );
    assert_eq!(both.browser_log, None);
    let whos: Vec<_> = both
        .reports
        .iter()
        .map(|r| (r.origin, r.value["who"].as_str().unwrap().to_string()))
        .collect();
    assert!(whos.contains(&(Origin::Primary, "top".into())));
    assert!(whos.contains(&(Origin::Secondary, "frame".into())));
    let frame = both
        .reports
        .iter()
        .find(|r| r.value["who"] == "frame")
        .unwrap();
    assert!(frame.value["origin"]
        .as_str()
        .unwrap()
        .starts_with("http://localhost:"));
    assert_eq!(frame.value["secure"], true);

    let silent = &run_one(&chromium, "silent", "/silent.html", Duration::from_secs(3))[0];
    assert!(silent.timed_out(), "{silent:?}");
    assert!(silent.reports.is_empty());
    let log = silent.browser_log.as_deref().unwrap_or_default();
    // Each browser fetched the page, ran nothing that reported, and was still running; the
    // last was given twice as long.
    assert!(
        log.starts_with("after 3 s the server received 1 request(s) for the page; load average "),
        "{log}"
    );
    assert_eq!(
        log.matches("Chromium was still running").count(),
        webmcp_browser::LAUNCHES,
        "{log}"
    );
    assert!(
        log.contains("(launched again) after 6 s the server received 1 request(s)"),
        "{log}"
    );
}

/// Serves the two-origin site and opens `path` on the primary origin as run `run`.
fn run_one(chromium: &Chromium, run: &str, path: &str, bound: Duration) -> Vec<PageOutcome> {
    run_pages(
        chromium,
        |origins| {
            let mut site = Site::new();
            let frame = format!(
                "<script>{REPORT_JS}__report({{who:'frame', origin: location.origin, secure: isSecureContext}});</script>"
            );
            site.add(Origin::Secondary, "/frame.html", Resource::html(frame));
            let top = format!(
                r#"<script>{REPORT_JS}
                __report({{who:'top', origin: location.origin}});
                const f = document.createElement('iframe');
                f.src = '{}/frame.html?run=' + __run;
                f.onload = () => setTimeout(() => __done({{frames: 1}}), 100);
                document.body.appendChild(f);
                </script>"#,
                origins.secondary
            );
            site.add(Origin::Primary, "/top.html", Resource::html(format!("<body>{top}</body>")));
            site.add(Origin::Primary, "/silent.html", Resource::html("<p>never done</p>"));
            let visit = Visit { run: run.into(), origin: Origin::Primary, path: path.into() };
            (site, vec![visit])
        },
        bound,
        |_| {},
    )
    .unwrap()
}
