//! Properties over generated input: the parser never panics, and the store round-trips.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use webmcp_spec_sync::{
    compare, is_step_id, parse, read_store, write_store, Fingerprint, Kind, SourceStep, StoredStep,
};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Fragments that matter to the parser: list markers, tags, autolinks, raw-text openers.
const TOKENS: &[&str] = &[
    "\n",
    "\n\n",
    "   ",
    "1. ",
    "- ",
    ": ",
    ":: ",
    "<div algorithm>",
    "<div class=note>",
    "<div class=example>",
    "</div>",
    "<div",
    "<xmp>",
    "</xmp>",
    "<pre>",
    "<!--",
    "-->",
    "```",
    "<ol><li>",
    "</li></ol>",
    "<p>",
    "<",
    ">",
    "[=",
    "=]",
    "{{",
    "}}",
    "|",
    "&",
    "&#x110000;",
    "Note: ",
    "Issue(#1): ",
    "<dfn>",
    "</dfn>",
    "é",
    "\r",
    "\t",
    "[[!",
    "]]",
    "''",
    "*",
    "`",
];

#[derive(Clone, Debug)]
enum Edit {
    Truncate(usize),
    Delete(usize, usize),
    Insert(usize, usize),
    Duplicate(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Truncate),
        (any::<usize>(), 0usize..400).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<usize>(), 0usize..400).prop_map(|(a, n)| Edit::Duplicate(a, n)),
    ]
}

fn boundary(s: &str, at: usize) -> usize {
    let mut at = if s.is_empty() { 0 } else { at % (s.len() + 1) };
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(mut s: String, edits: &[Edit]) -> String {
    for e in edits {
        match *e {
            Edit::Truncate(at) => {
                let at = boundary(&s, at);
                s.truncate(at);
            }
            Edit::Delete(at, n) => {
                let a = boundary(&s, at);
                let b = boundary(&s, a + n).max(a);
                s.replace_range(a..b, "");
            }
            Edit::Insert(at, t) => {
                let a = boundary(&s, at);
                s.insert_str(a, TOKENS[t]);
            }
            Edit::Duplicate(at, n) => {
                let a = boundary(&s, at);
                let b = boundary(&s, a + n).max(a);
                let piece = s[a..b].to_string();
                s.insert_str(b, &piece);
            }
        }
    }
    s
}

/// Whatever parses also compares cleanly with its own store.
fn check(source: &str) {
    if let Ok(steps) = parse(source) {
        let store =
            read_store(&write_store("generated", &steps)).expect("a written store reads back");
        let drift = compare(&store.steps, &steps);
        assert!(drift.is_empty(), "{drift}");
        for s in &steps {
            // What --accept writes must read back: the parser's IDs follow the store's grammar.
            assert!(is_step_id(&s.id), "{:?}", s.id);
            assert_eq!(s.fingerprint, Fingerprint::of(&s.text));
            assert!(s.line >= 1 && s.line <= source.split('\n').count());
        }
    }
}

/// A slug, and nothing or an item key: any text but a tab or line break (so `\\` escapes are
/// exercised).
fn id() -> impl Strategy<Value = (String, String)> {
    (
        "[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,2}",
        prop::option::of("[^\t\n\r]{0,12}"),
    )
        .prop_map(|(slug, key)| (slug, key.map(|k| format!("[{k}]")).unwrap_or_default()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, rng_seed: RngSeed::Fixed(0x0005_704E), ..ProptestConfig::default() })]

    #[test]
    fn mutated_baseline_never_panics(edits in prop::collection::vec(edit(), 1..12)) {
        check(&apply(fixture("baseline.bs"), &edits));
    }

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(0..TOKENS.len(), 0..200)) {
        let s: String = tokens.iter().map(|&t| TOKENS[t]).collect();
        check(&s);
        check(&format!("<div algorithm>\n<dfn>x</dfn>\n{s}\n</div>\n"));
    }

    #[test]
    fn arbitrary_text_never_panics(s in any::<String>()) {
        check(&s);
        check(&format!("<div algorithm>\n{s}\n</div>\n"));
    }

    #[test]
    fn store_round_trips(
        rows in prop::collection::vec((id(), 0usize..7, any::<String>()), 0..20),
        label in "[^\n\r]{0,40}",
    ) {
        const KINDS: [Kind; 7] = [Kind::Step, Kind::Assert, Kind::Item, Kind::Note, Kind::Issue, Kind::Example, Kind::Todo];
        let steps: Vec<SourceStep> = rows
            .iter()
            .enumerate()
            .map(|(i, (id, k, text))| SourceStep {
                id: format!("{}#{}{}", id.0, i + 1, id.1),
                kind: KINDS[*k],
                text: text.clone(),
                fingerprint: Fingerprint::of(text),
                line: i + 1,
            })
            .collect();
        let written = write_store(&label, &steps);
        let store = read_store(&written).unwrap();
        // Control characters in a label are written as spaces (a label is printed in reports).
        let printable: String = label.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        prop_assert_eq!(&store.source, &printable);
        let expected: Vec<StoredStep> = steps.iter().map(StoredStep::from).collect();
        let got: Vec<StoredStep> = store.steps.iter().map(|s| StoredStep { line: 0, ..s.clone() }).collect();
        prop_assert_eq!(got, expected);
        // Deterministic: the same steps give the same bytes.
        prop_assert_eq!(write_store(&label, &steps), written);
    }
}

#[test]
fn mutated_constructs_never_panic() {
    // A fixed walk over the fixture of every construct: truncation at every 37th byte and a
    // few insertions.
    let source = fixture("constructs.bs");
    let mut at = 0;
    while at < source.len() {
        let cut = boundary(&source, at);
        check(&source[..cut]);
        for t in [6, 8, 10, 11, 14, 25] {
            check(&apply(source.clone(), &[Edit::Insert(at, t)]));
        }
        at += 37;
    }
}

#[test]
fn limits_give_errors() {
    let huge = "x".repeat(webmcp_spec_sync::parse::MAX_INPUT + 1);
    let err = parse(&huge).unwrap_err();
    assert!(err.to_string().contains("bytes"), "{err}");
    let mut deep = String::from("<div algorithm>\n<dfn>deep</dfn>\n");
    for d in 0..200 {
        deep.push_str(&" ".repeat(d));
        deep.push_str("1. x\n");
    }
    deep.push_str("</div>\n");
    let err = parse(&deep).unwrap_err();
    assert!(err.to_string().contains("nests deeper"), "{err}");
}
