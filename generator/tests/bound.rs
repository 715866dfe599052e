//! `--bound`: presets, overrides, and one-line errors.

use webmcp_generator::Bound;

#[test]
fn presets_and_overrides() {
    assert_eq!(Bound::parse("tiny"), Ok(Bound::TINY));
    assert_eq!(Bound::parse("small"), Ok(Bound::SMALL));
    assert_eq!(Bound::parse("medium"), Ok(Bound::MEDIUM));
    let b = Bound::parse("small,stmts=1").unwrap();
    assert_eq!(b.stmts, 1);
    assert_eq!(b.docs, Bound::SMALL.docs);
    // Keys alone start from tiny.
    let b = Bound::parse("docs=2,stmts=3").unwrap();
    assert_eq!((b.docs, b.stmts, b.tools), (2, 3, Bound::TINY.tools));
    // The keys that widen the vocabulary are off in every preset.
    let b = Bound::parse("small,forged=1,unkeyed=1").unwrap();
    assert_eq!((b.forged, b.unkeyed, b.docs), (1, 1, Bound::SMALL.docs));
    for (_, p) in webmcp_generator::bound::PRESETS {
        assert_eq!((p.forged, p.unkeyed), (0, 0));
    }
    // Display reads back.
    for (_, p) in webmcp_generator::bound::PRESETS {
        assert_eq!(Bound::parse(&p.to_string()), Ok(*p));
        assert!(p.preset().is_some());
    }
}

#[test]
fn bad_bounds_are_one_line_errors() {
    for bad in [
        "",
        "huge",
        "docs",
        "docs=",
        "docs=x",
        "docs=0",
        "docs=99",
        "stmts=-1",
        "colour=2",
        "docs=2,docs=3",
        "docs=2,,stmts=1",
        "docs=2,tiny",
        "tabs=3,docs=2",
        "forged=2",
        "unkeyed=2",
    ] {
        let e = Bound::parse(bad).expect_err(bad).to_string();
        assert!(!e.contains('\n') && e.contains("--bound"), "{bad}: {e}");
    }
}
