//! Embeds every scenario of `scenarios/` and `scenarios/legacy/` into the CLI, sorted by file
//! name, and lists every step the model's transitions cite (`s!("id")` in `model/src/`), for
//! `webmcp-check spec-sync`.

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
    let mut sites = Vec::new();
    step_citations(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        "model/src",
        &mut sites,
    );
    sites.sort();
    let mut out = String::from(
        "/// (step ID, file, line) of every `s!(\"id\")` in model/src, sorted.\npub static STEP_CITATIONS: &[(&str, &str, u32)] = &[\n",
    );
    for (id, file, line) in &sites {
        writeln!(out, "    ({id:?}, {file:?}, {line}),").unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("step_citations.rs");
    std::fs::write(dest, out).unwrap();
}

/// Collects `s!("id")` sites of the `.rs` files under `root/dir`, recursively.
fn step_citations(root: &Path, dir: &str, sites: &mut Vec<(String, String, u32)>) {
    let path = root.join(dir);
    println!("cargo:rerun-if-changed={}", path.display());
    let Ok(entries) = std::fs::read_dir(&path) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for entry in entries {
        let name = entry.file_name().unwrap().to_string_lossy().to_string();
        let rel = format!("{dir}/{name}");
        if entry.is_dir() {
            step_citations(root, &rel, sites);
        } else if name.ends_with(".rs") {
            println!("cargo:rerun-if-changed={}", entry.display());
            let text = std::fs::read_to_string(&entry).unwrap_or_default();
            for (n, line) in text.lines().enumerate() {
                let mut rest = line;
                while let Some(at) = rest.find("s!(\"") {
                    rest = &rest[at + 4..];
                    if let Some(end) = rest.find('"') {
                        sites.push((rest[..end].to_string(), rel.clone(), n as u32 + 1));
                        rest = &rest[end..];
                    }
                }
            }
        }
    }
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
