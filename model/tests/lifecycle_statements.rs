//! `removeIframe` and `navigate` as script statements: a navigable has one replacement
//! document, so it is navigated at most once; an iframe already removed stays removed.

mod common;

use common::*;
use serde_json::{json, Value as Json};
use webmcp_model::state::Lifecycle;
use webmcp_model::World;

/// A top-level document `top` with one iframe `child` (navigable `frame`), which may be
/// navigated to `next`; `top` runs `script`; the environment is `environment`.
fn with_iframe(script: Json, environment: Json) -> String {
    json!({
        "name": "inline",
        "summary": "an inline test scenario",
        "description": "built by a test",
        "tabs": [{"tab": "main", "top": {"doc": "top", "url": "https://a.example/",
            "iframes": [{"nav": "frame", "doc": "child", "url": "https://a.example/child"}]}}],
        "navigations": [{"nav": "frame", "doc": "next", "url": "https://a.example/next"}],
        "scripts": {"top": script},
        "environment": environment,
        "expect": {}
    })
    .to_string()
}

#[test]
fn a_navigable_navigated_by_a_statement_and_the_environment_is_refused() {
    let twice = [
        with_iframe(
            json!([{"navigate": "frame"}]),
            json!({"navigate": ["frame"]}),
        ),
        with_iframe(
            json!([{"navigate": "frame"}, {"navigate": "frame"}]),
            json!({}),
        ),
    ];
    for text in twice {
        let e = World::from_json(&text)
            .expect_err("navigated twice")
            .to_string();
        assert!(
            e.contains("\"frame\" is already navigated by scripts.top[0]")
                && e.contains("navigated once"),
            "{e}"
        );
    }
    World::from_json(&with_iframe(json!([{"navigate": "frame"}]), json!({})))
        .expect("one navigation is fine");
}

#[test]
fn removing_a_removed_iframe_or_navigating_it_does_nothing() {
    let m = model(&with_iframe(
        json!([{"removeIframe": "frame"}, {"removeIframe": "frame"}, {"navigate": "frame"}]),
        json!({}),
    ));
    let (s, _) = run_script(&m, &m.initial_state(), "top");
    assert_eq!(s.doc(doc(&m, "child")).lifecycle, Lifecycle::Destroyed);
    assert_eq!(
        s.doc(doc(&m, "next")).lifecycle,
        Lifecycle::Initial,
        "a destroyed navigable is not navigated"
    );
    assert!(!s.navs[m.world.nav_named("frame").unwrap().index()].attached);
}

#[test]
fn a_script_navigates_its_iframe_once() {
    let m = model(&with_iframe(json!([{"navigate": "frame"}]), json!({})));
    let (s, _) = run_script(&m, &m.initial_state(), "top");
    assert_eq!(s.doc(doc(&m, "child")).lifecycle, Lifecycle::Destroyed);
    assert_eq!(s.doc(doc(&m, "next")).lifecycle, Lifecycle::FullyActive);
}
