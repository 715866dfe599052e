//! `scripts/build-pgo` refuses, in one line and before building anything, when no
//! `llvm-profdata` of rustc's LLVM major version is found: profiles from another LLVM do not
//! load, and a build that silently skipped them would be a plain build under another name.
//! (The build itself takes two release builds; docs/performance.md measures it.)

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

/// A directory holding a `rustc` that says it was built with LLVM `major`, a `cargo` that
/// fails at once (so a script that went on to build fails the test rather than building),
/// and, where `profdata` is given, an `llvm-profdata` that says it is of LLVM `profdata`.
fn fake_tools(tag: &str, major: u32, profdata: Option<u32>) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("build-pgo-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = |name: &str, body: String| {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    script(
        "rustc",
        format!(
            "case \"$1\" in\n  -vV) echo 'rustc 1.95.0'; echo 'LLVM version: {major}.1.2';;\n  --print) echo /nonexistent;;\nesac\n"
        ),
    );
    script("cargo", "exit 42\n".to_string());
    if let Some(v) = profdata {
        script(
            "llvm-profdata",
            format!("echo 'LLVM (http://llvm.org/):'; echo '  LLVM version {v}.0.1'\n"),
        );
    }
    dir
}

fn build_pgo(tools: &Path) -> std::process::Output {
    let path = format!(
        "{}:{}",
        tools.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/build-pgo"))
        .env("PATH", path)
        .env_remove("LLVM_PROFDATA")
        .output()
        .expect("bash runs")
}

#[test]
fn build_pgo_refuses_without_llvm_profdata_of_rustcs_llvm() {
    // LLVM 990 is no version any machine has; a profdata of another version is not taken.
    for (tag, profdata) in [("none", None), ("other", Some(14))] {
        let out = build_pgo(&fake_tools(tag, 990, profdata));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{tag}: {stderr}");
        assert_eq!(
            stderr.trim(),
            "build-pgo: needs llvm-profdata from LLVM 990, the LLVM rustc was built with \
             (on Debian: apt-get install llvm-990; or rustup component add llvm-tools; or set \
             LLVM_PROFDATA)",
            "{tag}"
        );
        assert!(out.stdout.is_empty(), "{tag}");
    }
}
