//! # webmcp-explorer
//!
//! `webmcp-check explore`: a local web page to step through any interleaving of a scenario,
//! choosing each action, beside the spec text of the steps it executes.
//!
//! - [`walk`]: the model side (a path of action indices → states, the enabled actions with
//!   their step IDs, violated properties, the scenario's counterexamples and witnesses, a
//!   path as an ITF trace); [`tables`]: a state as tables, and what changed; [`spec_text`]:
//!   the text of each step from `spec/webmcp-algorithms.md`.
//! - [`server`]: the loopback HTTP server and the page (`page.html`, embedded).
//!
//! `docs/explorer.md` shows the page and how to use it.

pub mod server;
pub mod spec_text;
pub mod tables;
pub mod walk;

pub use server::Server;
pub use walk::{parse_path, path_text, Explorer, Jump, PathError, MAX_STEPS};
