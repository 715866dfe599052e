//! Writing the counterexamples and witnesses of a check as `.itf.json` files.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use webmcp_model::machine::WebMcpModel;
use webmcp_profiles::{ScenarioResult, Verdict};

use crate::error::TraceError;
use crate::limits::{size_text, MAX_TRACE_BYTES};
use crate::reader::read_trace;
use crate::trace::{Expect, Meta, Trace, TOOL};

/// Traces of fewer bytes are not read back before they are written: no limit of
/// [`crate::limits`] can be reached below this size. A string, a state and a file need more
/// (16 MiB, 64 MiB decoded, 64 MiB), and what a state takes decoded is at most about 110
/// times its text (`{"a":1}`: 7 bytes, estimated at 769), so a state under 512 KiB of text
/// stays under 64 MiB decoded; 100,000 states take more than 512 KiB.
pub const READ_BACK_FROM: usize = 512 * 1024;

/// The default `--trace-dir` of `check`.
pub const DEFAULT_TRACE_DIR: &str = "target/webmcp-traces";

/// The longest trace file name written, in bytes: under the 255 most file systems allow, with
/// room for the temporary name a file is first written under ([`Output::create`]).
pub const MAX_FILE_NAME_BYTES: usize = 200;

/// A file name made of the scenario, variant and property: `NAME.VARIANT.PROPERTY.itf.json`,
/// each part [`file_safe`]. A variant of many fixes can make that too long for a file
/// system; the variant is then cut, and a hash of all of it added (`~` and 12 hex digits),
/// so that every variant keeps a name of its own.
pub fn file_name(scenario: &str, variant: &str, property: &str) -> String {
    let (scenario, safe_variant, property) =
        (file_safe(scenario), file_safe(variant), file_safe(property));
    let name = format!("{scenario}.{safe_variant}.{property}.itf.json");
    if name.len() <= MAX_FILE_NAME_BYTES {
        return name;
    }
    let tag = format!("~{}", &crate::trace::sha256_hex(variant)[..12]);
    let room = MAX_FILE_NAME_BYTES.saturating_sub(name.len() - safe_variant.len() + tag.len());
    // `file_safe` leaves ASCII only, so any byte is a character boundary.
    let cut = &safe_variant[..room.min(safe_variant.len())];
    format!("{scenario}.{cut}{tag}.{property}.itf.json")
}

/// A name as a part of a file name: every character outside `[A-Za-z0-9._-]` replaced by
/// `_`.
pub fn file_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A file about to be written: created (as a temporary file in the target's directory)
/// before the work that produces its text, so an output that cannot be written is found
/// before the work; [`Output::commit`] writes the text and renames the temporary file into
/// place, so readers never see half a file. A temporary file that is not committed, or whose
/// write or rename fails, is removed.
#[derive(Debug)]
pub struct Output {
    /// The output as it was named.
    path: PathBuf,
    /// Where the temporary file goes: `path`, or the file a symbolic link `path` names.
    place: PathBuf,
    /// The temporary file, or `None` when `path` is written in place (a device or a pipe,
    /// which renaming would replace).
    tmp: Option<PathBuf>,
    file: Option<std::fs::File>,
}

fn output_error(path: &Path, reason: impl Into<String>) -> TraceError {
    TraceError::Output {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// The temporary file an output is written to before it takes its name: `.NAME.PID-N.tmp`,
/// with NAME cut (at a character) so that the whole stays within the 255 bytes a file name
/// may have: any name the output may have, it can be written under.
fn temp_name(name: &str, pid: u32, n: usize) -> String {
    let tail = format!(".{pid}-{n}.tmp");
    let room = 255 - 1 - tail.len();
    let mut end = name.len().min(room);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!(".{}{tail}", &name[..end])
}

impl Output {
    /// Checks `path` can be written: it is not a directory, and a file can be created next to
    /// it (or, for a device or pipe, it opens for writing). A symbolic link is followed: the
    /// file it names is replaced and the link stays; a link under `/dev` or `/proc`
    /// (`/dev/stdout`, `/proc/self/fd/1`) is written through in place, since replacing the
    /// file it names would take it from whoever holds it open (the shell's redirection).
    pub fn create(path: &Path) -> Result<Output, TraceError> {
        let raw = path.as_os_str().as_encoded_bytes();
        let last = raw.rsplit(|&b| b == b'/').next().unwrap_or_default();
        if raw.ends_with(b"/") || last == b"." || last == b".." {
            return Err(output_error(
                path,
                "names a directory (it ends in /, . or ..); the output must be a file name",
            ));
        }
        let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if linked {
            if path.starts_with("/dev") || path.starts_with("/proc") {
                return Output::in_place(path);
            }
            let target = std::fs::canonicalize(path).map_err(|e| {
                output_error(
                    path,
                    format!("is a symbolic link to nothing that can be written: {e}"),
                )
            })?;
            let mut output = Output::create(&target)?;
            output.path = path.to_path_buf();
            return Ok(output);
        }
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                return Err(output_error(
                    path,
                    "is a directory; the output must be a file name",
                ))
            }
            // `/dev/null`, a FIFO: write to it directly.
            Ok(m) if !m.is_file() => return Output::in_place(path),
            // Replacing a file its owner protected from writing is refused, as a shell's
            // redirection would refuse to write it (the file is not changed by the check).
            Ok(_) => {
                if let Err(e) = std::fs::OpenOptions::new().write(true).open(path) {
                    return Err(output_error(path, format!("cannot write to it: {e}")));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(output_error(path, format!("cannot write to it: {e}"))),
        }
        let Some(name) = path.file_name() else {
            return Err(output_error(path, "is not a file name"));
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let tmp = dir.join(temp_name(
            &name.to_string_lossy(),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
        ));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| {
                output_error(
                    path,
                    format!("cannot create a file in {}: {e}", dir.display()),
                )
            })?;
        // The file it replaces keeps its permissions.
        if let Ok(m) = std::fs::metadata(path) {
            let _ = file.set_permissions(m.permissions());
        }
        Ok(Output {
            path: path.to_path_buf(),
            place: path.to_path_buf(),
            tmp: Some(tmp),
            file: Some(file),
        })
    }

    /// `path` opened for writing where it is, without a temporary file.
    fn in_place(path: &Path) -> Result<Output, TraceError> {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| output_error(path, format!("cannot write to it: {e}")))?;
        Ok(Output {
            path: path.to_path_buf(),
            place: path.to_path_buf(),
            tmp: None,
            file: Some(file),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `text` and puts the file in place.
    pub fn commit(mut self, text: &str) -> Result<(), TraceError> {
        let mut file = self.file.take().expect("not committed yet");
        file.write_all(text.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| output_error(&self.path, format!("cannot write it: {e}")))?;
        drop(file);
        if let Some(tmp) = self.tmp.take() {
            if let Err(e) = std::fs::rename(&tmp, &self.place) {
                let _ = std::fs::remove_file(&tmp);
                return Err(output_error(
                    &self.path,
                    if self.path.is_dir() {
                        "is a directory; the output must be a file name".to_string()
                    } else {
                        format!("cannot put the file in place: {e}")
                    },
                ));
            }
        }
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        self.file.take();
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Writes `text` to `path` through a temporary file, so readers never see half a file.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), TraceError> {
    Output::create(path).and_then(|o| o.commit(text))
}

/// Checks that `check` can write its traces into `dir` before it explores: `dir` is a
/// directory (created if missing) in which a file can be created.
pub fn prepare_trace_dir(dir: &Path) -> Result<(), TraceError> {
    match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => {
            return Err(output_error(
                dir,
                "the trace directory (--trace-dir) is not a directory",
            ))
        }
        Ok(_) => {}
        Err(_) => std::fs::create_dir_all(dir).map_err(|e| {
            output_error(
                dir,
                format!("cannot create the trace directory (--trace-dir): {e}"),
            )
        })?,
    }
    let probe = dir.join(format!(".probe.{}.tmp", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|e| {
            output_error(
                dir,
                format!("cannot create a file in the trace directory (--trace-dir): {e}"),
            )
        })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes one trace per violated or witnessed property of `result` into `dir`; returns the
/// files written. A path whose actions do not replay from the initial state is skipped with a
/// warning on standard error.
pub fn write_result(
    dir: &Path,
    model: &WebMcpModel,
    source: &str,
    scenario_json: &str,
    result: &ScenarioResult,
) -> Result<Vec<PathBuf>, TraceError> {
    let mut written = Vec::new();
    for p in &result.properties {
        let expect = match p.verdict {
            Verdict::Violated => Expect::Violated,
            Verdict::Witnessed => Expect::Witnessed,
            _ => continue,
        };
        let Some(path) = &p.path else { continue };
        if written.is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| output_error(dir, e.to_string()))?;
        }
        let actions: Vec<_> = path.iter().map(|s| s.action).collect();
        let meta = Meta {
            scenario: result.scenario.clone(),
            scenario_json: scenario_json.to_string(),
            source: source.to_string(),
            variant: result.variant.clone(),
            property: Some(p.def.name.to_string()),
            expect: Some(expect),
            tool: TOOL.to_string(),
        };
        let Ok(trace) = Trace::record(model, meta, &actions) else {
            // A path that does not replay from the initial state (a checker that reports
            // paths between representatives of state classes) is not a trace: say so, and
            // keep checking.
            // A closed standard error is no reason to stop writing traces.
            let _ = writeln!(
                std::io::stderr(),
                "webmcp-check: warning: the {} path of {} does not replay from the initial state; no trace written",
                p.def.name, result.scenario
            );
            continue;
        };
        let file = dir.join(file_name(&result.scenario, &result.variant, p.def.name));
        let text = trace.to_json_text();
        // A trace that `replay` would refuse is not written: say why, and keep checking.
        // Only a limit can make the reader refuse what this writer writes (the roundtrip
        // tests read back every kind of trace), and below `READ_BACK_FROM` bytes no limit
        // can be reached, so only larger traces are read back (reading every trace back
        // costs about a fifth of a `check --all`).
        let refused = if text.len() as u64 > MAX_TRACE_BYTES {
            Some(format!(
                "it would be larger than {}, the limit for a trace file",
                size_text(MAX_TRACE_BYTES)
            ))
        } else if text.len() >= READ_BACK_FROM {
            read_trace(&text)
                .err()
                .map(|e| format!("it would not read back ({e})"))
        } else {
            None
        };
        if let Some(why) = refused {
            // A closed standard error is no reason to stop writing traces.
            let _ = writeln!(
                std::io::stderr(),
                "webmcp-check: warning: no trace written for the {} path of {}: {why}",
                p.def.name,
                result.scenario
            );
            continue;
        }
        write_atomically(&file, &text)?;
        written.push(file);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_as_long_as_a_file_name_may_be_is_written() {
        let dir = std::env::temp_dir().join(format!("webmcp-export-long-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["a".repeat(255), format!("{}é.md", "b".repeat(249))] {
            let path = dir.join(&name);
            let out = Output::create(&path).unwrap_or_else(|e| panic!("{}: {e}", name.len()));
            out.commit("x").unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "x");
        }
        assert!(temp_name(&"é".repeat(200), u32::MAX, usize::MAX).len() <= 255);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_trace_file_name_fits_a_file_system_whatever_the_variant() {
        assert_eq!(
            file_name("abort-before-dispatch", "seed", "exists:get-tools#8.2"),
            "abort-before-dispatch.seed.exists_get-tools_8.2.itf.json"
        );
        let fixes = [
            "check-signal-before-invoking",
            "store-only-live-documents",
            "skip-cancelled-execution",
            "reject-on-caller-unload",
            "completion-in-parallel",
            "reject-on-self-unload",
            "abort-local-on-unload",
            "keep-settled-result",
        ];
        let scenario = "s".repeat(64);
        let property = "exists:cancel-pending-execution#3";
        let long = format!("seed+{}", fixes.join("+"));
        let other = format!("seed+{}", fixes[..7].join("+"));
        let name = file_name(&scenario, &long, property);
        assert!(
            name.len() <= MAX_FILE_NAME_BYTES,
            "{} bytes: {name}",
            name.len()
        );
        assert!(
            name.starts_with(&format!("{scenario}.seed_check-signal")),
            "{name}"
        );
        assert!(
            name.ends_with(".exists_cancel-pending-execution_3.itf.json"),
            "{name}"
        );
        assert_eq!(
            name,
            file_name(&scenario, &long, property),
            "the same every run"
        );
        // Two variants that share what is kept of them still get names of their own.
        assert_ne!(name, file_name(&scenario, &other, property));
        assert!(file_name(&scenario, &other, property).len() <= MAX_FILE_NAME_BYTES);
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("webmcp-output-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// An output named through a symbolic link replaces the file the link names and keeps
    /// the link, and a replaced file keeps its permissions; a link to nothing is refused.
    #[cfg(unix)]
    #[test]
    fn a_linked_output_replaces_what_the_link_names_and_keeps_the_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("link");
        let (target, link) = (dir.join("target.md"), dir.join("link.md"));
        std::fs::write(&target, "before").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink("target.md", &link).unwrap();
        write_atomically(&link, "after").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "after");
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dangling = dir.join("dangling.md");
        std::os::unix::fs::symlink("nothing/here.md", &dangling).unwrap();
        let err = write_atomically(&dangling, "x").unwrap_err();
        assert!(
            matches!(&err, TraceError::Output { path, .. } if *path == dangling),
            "{err:?}"
        );
        assert!(
            err.to_string().contains("symbolic link to nothing"),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file protected from writing is refused, unchanged, where writing it is refused (as
    /// a shell's redirection; root may write it, and so may replace it); a name ending in
    /// `/` is a directory's, refused whether it exists or not.
    #[cfg(unix)]
    #[test]
    fn a_protected_file_and_a_directory_name_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("protected");
        let file = dir.join("ro.md");
        std::fs::write(&file, "before").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
        let writable = std::fs::OpenOptions::new().write(true).open(&file).is_ok();
        match write_atomically(&file, "after") {
            Ok(()) => assert!(writable, "a protected file was replaced"),
            Err(e) => {
                assert!(!writable, "{e}");
                assert!(e.to_string().contains("cannot write to it"), "{e}");
                assert_eq!(std::fs::read_to_string(&file).unwrap(), "before");
            }
        }
        for name in ["new/", "ro.md/", "new.md/.", "new.md/.."] {
            let path = PathBuf::from(format!("{}/{name}", dir.display()));
            let err = write_atomically(&path, "x").unwrap_err();
            assert!(err.to_string().contains("names a directory"), "{err}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `/dev/stdout` redirected to a file is `/proc/self/fd/1`, a link to that file: it is
    /// written through the open descriptor, not replaced (which left the redirection's file
    /// empty). Shown with a descriptor of the test's own.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_descriptor_named_under_proc_is_written_in_place() {
        use std::os::unix::io::AsRawFd;
        let dir = scratch("fd");
        let held = dir.join("held.md");
        let file = std::fs::File::create(&held).unwrap();
        let by_fd = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        write_atomically(&by_fd, "through the descriptor").unwrap();
        assert_eq!(
            std::fs::read_to_string(&held).unwrap(),
            "through the descriptor"
        );
        assert!(std::fs::symlink_metadata(&by_fd)
            .unwrap()
            .file_type()
            .is_symlink());
        drop(file);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
