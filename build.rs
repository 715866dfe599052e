//! Embeds every scenario of `scenarios/` and `scenarios/legacy/` into the CLI, sorted by file
//! name.

use std::fmt::Write;
use std::path::Path;

include!("browser/build_probe.rs");

fn main() {
    probe_browser(Path::new(env!("CARGO_MANIFEST_DIR")));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut out = String::new();
    embed(&mut out, "SCENARIOS", &root);
    embed(&mut out, "LEGACY_SCENARIOS", &root.join("legacy"));
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("scenarios.rs");
    std::fs::write(dest, out).unwrap();
}

/// Appends a static `name` listing (file stem, JSON text) of the `.json` files of `dir`.
fn embed(out: &mut String, name: &str, dir: &Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    writeln!(
        out,
        "/// (file stem, JSON text) of every embedded scenario.\n#[allow(dead_code)]\npub static {name}: &[(&str, &str)] = &["
    )
    .unwrap();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let stem = f.file_stem().unwrap().to_string_lossy();
        writeln!(
            out,
            "    ({stem:?}, include_str!({:?})),",
            f.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
}
