//! Marks the browser tests ignored when no Chromium is installed (see build_probe.rs).

include!("build_probe.rs");

fn main() {
    probe_browser(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
}
