//! Keeping our step IDs in step with the WebMCP draft's source.
//!
//! The model cites the draft by step ID (`register-tool#3`, `execute-tool#16.10.2`, …); the IDs
//! and an English paraphrase live in `spec/webmcp-algorithms.md`. The draft itself keeps
//! changing, and it has no step IDs: a step is "the third `1.` in the `registerTool()` block".
//! This crate derives our IDs from the Bikeshed source (`index.bs`) mechanically, so that
//! `webmcp-check spec-sync PATH/index.bs` can say what a new revision of the draft changed in
//! terms of *our* IDs:
//!
//! - [`parse()`] reads every algorithm block of the source and gives each step, item, note,
//!   issue and example its ID (the [`mod@parse`] module documents the scheme), its
//!   [`normalize()`]d text and a [`Fingerprint`] of that text. Normalizing first means that markup-only edits (rewrapping,
//!   `|x|` ↔ `<var>x</var>`, a more qualified autolink) are not reported as changes.
//! - [`write_store`] / [`read_store`] keep one revision's table in `spec/step-fingerprints.tsv`,
//!   a diffable text file.
//! - [`compare()`] reports the [`Drift`] between the stored table and a parsed source: steps
//!   added, removed, renumbered (same text, new ID), changed (same step, new text) and split.
//!
//! The algorithm names of the draft are mapped to our slugs by an explicit table
//! ([`slugs::SLUGS`]); an algorithm not in it still gets IDs and shows up as a new algorithm.
//!
//! The input is a `&str`: reading the file, and rejecting one that is not UTF-8, is the
//! caller's job (`std::fs::read_to_string` does both). Nothing here panics on malformed input;
//! the few hard limits are [`ParseError`]s and [`StoreError`]s whose messages name a line.
//!
//! ```
//! let source = "<div algorithm>\nTo <dfn>tool is exposed to an origin</dfn>:\n\n1. Return |x|.\n</div>\n";
//! let steps = webmcp_spec_sync::parse(source).unwrap();
//! assert_eq!(steps[0].id, "tool-exposed-to-origin#1");
//! assert_eq!(steps[0].text, "Return x.");
//! let stored = webmcp_spec_sync::read_store(&webmcp_spec_sync::write_store("demo", &steps)).unwrap();
//! assert!(webmcp_spec_sync::compare(&stored.steps, &steps).is_empty());
//! ```

pub mod compare;
pub mod normalize;
pub mod parse;
pub mod slugs;
pub mod store;

pub use compare::{compare, Added, Changed, Drift, Removed, Renumbered, Split};
pub use normalize::{normalize, Fingerprint};
pub use parse::{
    is_step_id, parse, parse_spec, Algorithm, Kind, ParseError, ParsedSpec, SourceStep,
};
pub use store::{read_store, write_store, Store, StoreError, StoredStep};
