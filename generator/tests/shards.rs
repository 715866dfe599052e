//! Shards partition the canonical enumeration: for any N, the N shards are disjoint and
//! their union is exactly the whole space, in the same order.

use std::ops::ControlFlow;

use webmcp_generator::{for_each_canonical, shard, Bound, Shard, ShardError};

#[test]
fn the_shards_of_any_count_are_disjoint_and_cover_the_space() {
    let b = Bound::parse("docs=2,stmts=2,total=2,moves=1").unwrap();
    let mut whole = Vec::new();
    let counts = for_each_canonical(&b, |i, g| {
        whole.push((i, g.clone()));
        ControlFlow::Continue(())
    });
    assert_eq!(whole.len() as u64, counts.canonical);
    for n in [1u64, 2, 3, 4, 7, 64] {
        let mut union = Vec::new();
        for i in 1..=n {
            let (c, part) = shard(&b, Shard { index: i, count: n });
            assert_eq!(c, counts, "every shard sees the whole space's counts");
            union.extend(part);
        }
        // Disjoint: no index twice; complete: every index once, with the same scenario.
        union.sort_by_key(|(i, _)| *i);
        assert_eq!(union.len(), whole.len(), "{n} shards");
        assert_eq!(union, whole, "{n} shards");
    }
}

#[test]
fn shard_flags_parse_or_say_what_is_wrong() {
    assert_eq!("1/4".parse(), Ok(Shard { index: 1, count: 4 }));
    assert_eq!("4/4".parse(), Ok(Shard { index: 4, count: 4 }));
    assert_eq!(
        "1000/1000".parse(),
        Ok(Shard {
            index: 1000,
            count: 1000
        })
    );
    for bad in [
        "0/4", "5/4", "1/0", "x/2", "1", "", "1/2/3", "-1/2", "+1/2", " 1/2",
    ] {
        let e = bad.parse::<Shard>().unwrap_err();
        assert_eq!(e, ShardError::Malformed(bad.into()), "{bad}");
        assert_eq!(
            e.to_string(),
            format!("--shard wants I/N with 1 ≤ I ≤ N, e.g. 2/4; got '{bad}'")
        );
    }
    for many in ["1/1001", "1/99999999999999999999999"] {
        let e = many.parse::<Shard>().unwrap_err();
        assert!(matches!(e, ShardError::TooMany(_)), "{many}: {e}");
        assert!(
            e.to_string()
                .starts_with("--shard wants at most 1000 shards"),
            "{e}"
        );
    }
    let e = "1/\u{1b}[2J".parse::<Shard>().unwrap_err().to_string();
    assert!(!e.contains('\u{1b}'), "{e}");
}
