//! Marks the browser tests ignored when no Chromium or polyfill is installed
//! (see ../browser/build_probe.rs).

include!("../browser/build_probe.rs");

fn main() {
    probe_browser(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
}
