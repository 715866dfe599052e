//! Real Chromium: a page on the primary origin embeds a frame from the
//! secondary origin; both report, the top page finishes. Runs when
//! /usr/bin/chromium exists or WEBMCP_REQUIRE_BROWSER=1 (then absence fails).

use std::path::Path;
use std::time::Duration;

use webmcp_browser::{
    run_pages, Chromium, Origin, Resource, Site, Visit, DEFAULT_CHROMIUM, REPORT_JS,
};

fn chromium_or_skip() -> Option<Chromium> {
    let path = std::env::var("WEBMCP_CHROMIUM").unwrap_or_else(|_| DEFAULT_CHROMIUM.to_string());
    let required = std::env::var("WEBMCP_REQUIRE_BROWSER").as_deref() == Ok("1");
    if Path::new(&path).exists() {
        return Some(Chromium::new(path));
    }
    assert!(
        !required,
        "WEBMCP_REQUIRE_BROWSER=1 but no Chromium at {path}"
    );
    eprintln!("!!!! SKIPPED browser test: no Chromium at {path} (set WEBMCP_REQUIRE_BROWSER=1 to make this a failure) !!!!");
    None
}

#[test]
fn pages_on_both_origins_report_and_timeouts_are_reported() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let outcomes = run_pages(
        &chromium,
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
            let visits = vec![
                Visit { run: "both".into(), origin: Origin::Primary, path: "/top.html".into() },
                Visit { run: "silent".into(), origin: Origin::Primary, path: "/silent.html".into() },
            ];
            (site, visits)
        },
        Duration::from_secs(6),
        |_| {},
    )
    .unwrap();
    let both = &outcomes[0];
    assert_eq!(
        both.done,
        Some(serde_json::json!({"frames": 1})),
        "{:?}",
        both
    );
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
    assert!(outcomes[1].timed_out());
}
