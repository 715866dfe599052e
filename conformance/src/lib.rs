//! Conformance: run scenarios' browser forms in real implementations
//! (Chromium's own, and a JavaScript polyfill) and judge what the pages
//! observed against every observation the model allows; the draft's profile
//! (`cli`, `run`, ...) and the legacy proposal's (`legacy`) share the browser
//! runner, the verdicts (`verdict`) and the report format (`report`).

pub mod cli;
pub mod error;
pub mod form;
pub mod judge;
pub mod junit;
pub mod legacy;
pub mod observation;
pub mod page;
pub mod record;
pub mod report;
pub mod run;
pub mod trace;
pub mod verdict;
pub mod wpt;
pub mod wpt_dir;
