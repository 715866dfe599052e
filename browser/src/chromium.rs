//! Headless Chromium: one fresh process (and fresh user-data-dir) per page,
//! in its own process group, always killed.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// The default binary (Debian's package).
pub const DEFAULT_CHROMIUM: &str = "/usr/bin/chromium";

/// The environment variable that names another Chromium binary, for the browser commands and
/// the browser tests alike.
pub const CHROMIUM_ENV: &str = "WEBMCP_CHROMIUM";

/// The Chromium the browser tests use: [`resolve_chromium`] without an explicit path. The
/// tests that need it are marked ignored at build time when it is missing (build_probe.rs),
/// unless `WEBMCP_REQUIRE_BROWSER=1`, under which a missing binary fails the test here.
pub fn chromium_for_tests() -> PathBuf {
    resolve_chromium(None).unwrap_or_else(|e| panic!("{e}"))
}

/// The environment variable many tools read for a Chromium binary; used when
/// [`CHROMIUM_ENV`] is not set.
pub const CHROMIUM_FALLBACK_ENV: &str = "CHROMIUM";

/// No Chromium binary where [`resolve_chromium`] looked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoChromium {
    /// The path that is not a file.
    pub path: PathBuf,
    /// Where the path came from: `--chromium`, `$WEBMCP_CHROMIUM`, `$CHROMIUM`, or Debian's
    /// package.
    pub from: String,
}

impl std::fmt::Display for NoChromium {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no Chromium at {} (from {}; pass --chromium PATH, or set ${CHROMIUM_ENV} or ${CHROMIUM_FALLBACK_ENV})",
            self.path.display(),
            self.from
        )
    }
}

impl std::error::Error for NoChromium {}

/// The Chromium a command runs: `explicit` (`--chromium PATH`), else `$WEBMCP_CHROMIUM`, else
/// `$CHROMIUM`, else Debian's [`DEFAULT_CHROMIUM`]; an error naming where the missing
/// path came from.
pub fn resolve_chromium(explicit: Option<&Path>) -> Result<PathBuf, NoChromium> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let (path, from) = match (explicit, var(CHROMIUM_ENV), var(CHROMIUM_FALLBACK_ENV)) {
        (Some(p), _, _) => (p.to_path_buf(), "--chromium".to_string()),
        (None, Some(p), _) => (PathBuf::from(p), format!("${CHROMIUM_ENV}")),
        (None, None, Some(p)) => (PathBuf::from(p), format!("${CHROMIUM_FALLBACK_ENV}")),
        (None, None, None) => (
            PathBuf::from(DEFAULT_CHROMIUM),
            "Debian's chromium package".to_string(),
        ),
    };
    if path.is_file() {
        Ok(path)
    } else {
        Err(NoChromium { path, from })
    }
}

/// Flags for every launch: headless, no sandbox (runs as root in CI), shared memory in the
/// temporary directory rather than /dev/shm, and no traffic other than to the loopback server.
///
/// `--disable-dev-shm-usage`: containers often give /dev/shm 64 MB, too little for Chromium,
/// which then crashes or hangs before the page runs. Debian's launcher adds the flag itself
/// when /dev/shm is small, but its test breaks (and adds nothing) when `findmnt` prints more
/// than one line for /dev/shm, as it does on some machines.
pub const BASE_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--metrics-recording-only",
    "--mute-audio",
];

#[derive(Clone, Debug)]
pub struct Chromium {
    pub path: PathBuf,
    pub extra_flags: Vec<String>,
}

impl Chromium {
    pub fn new(path: impl Into<PathBuf>) -> Chromium {
        Chromium {
            path: path.into(),
            extra_flags: Vec::new(),
        }
    }

    pub fn with_flag(mut self, flag: impl Into<String>) -> Chromium {
        self.extra_flags.push(flag.into());
        self
    }

    /// `chromium --version`, trimmed (e.g. "Chromium 148.0.7778.167 built on Debian ...").
    pub fn version(&self) -> std::io::Result<String> {
        self.version_within(VERSION_TIMEOUT)
    }

    /// [`Chromium::version`], giving up after `timeout` (the process group is killed).
    pub fn version_within(&self, timeout: std::time::Duration) -> std::io::Result<String> {
        use std::io::Read;
        let mut child = Command::new(&self.path)
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()?;
        let stdout = child.stdout.take().expect("piped");
        let reader = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = stdout.take(VERSION_BYTES).read_to_end(&mut text);
            text
        });
        let start = std::time::Instant::now();
        let pgid = child.id() as libc::pid_t;
        loop {
            if child.try_wait()?.is_some() {
                // Whatever it left running could hold the pipe open, and the read with it.
                // SAFETY: kill(2) on the process group the child led (process_group(0)).
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
                break;
            }
            if start.elapsed() > timeout {
                kill_group(&mut child);
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "{} --version did not answer within {:?}",
                        self.path.display(),
                        timeout
                    ),
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let text = reader.join().unwrap_or_default();
        Ok(version_line(&String::from_utf8_lossy(&text)))
    }

    /// The full argument list for a launch on `url` with `user_data_dir`.
    pub fn args(&self, user_data_dir: &Path, url: &str) -> Vec<String> {
        let mut args: Vec<String> = BASE_FLAGS.iter().map(|s| s.to_string()).collect();
        args.push(format!("--user-data-dir={}", user_data_dir.display()));
        args.extend(self.extra_flags.iter().cloned());
        args.push(url.to_string());
        args
    }

    /// Starts Chromium on `url`, its standard error going to a log in the profile directory
    /// ([`Running::stderr_tail`]). The returned guard kills it (and its process group) and
    /// removes the profile directory when dropped.
    pub fn launch(&self, url: &str) -> std::io::Result<Running> {
        let profile = fresh_profile_dir()?;
        let spawn = || {
            let log = std::fs::File::create(profile.join(STDERR_LOG))?;
            Command::new(&self.path)
                .args(self.args(&profile, url))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log)
                .process_group(0)
                .spawn()
        };
        match spawn() {
            Ok(child) => {
                killed_on_exit_signal(child.id() as libc::pid_t);
                Ok(Running { child, profile })
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&profile);
                Err(e)
            }
        }
    }
}

/// The process groups of the browsers running now: 0 is a free slot. A signal that ends the
/// process (SIGTERM from `timeout` or a cancelled CI job, SIGINT, SIGHUP) kills them first;
/// otherwise they would outlive us, adopted by init, since each leads a group of its own.
static RUNNING_GROUPS: [std::sync::atomic::AtomicI32; 64] =
    [const { std::sync::atomic::AtomicI32::new(0) }; 64];

/// Kills every browser's process group, then ends the process as the signal would have.
/// Only async-signal-safe calls: atomic loads, kill(2), signal(2), raise(3).
extern "C" fn on_exit_signal(signal: libc::c_int) {
    for slot in &RUNNING_GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: kill(2) on a process group this process created.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
    // SAFETY: restoring the default action and raising the signal again ends the process
    // with the status the signal gives.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Records `pgid` for [`on_exit_signal`] (installed on the first call). With every slot
/// taken (64 browsers at once) the group is not recorded, and a signal would leave it.
fn killed_on_exit_signal(pgid: libc::pid_t) {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            // SAFETY: installs a handler that makes only async-signal-safe calls.
            unsafe {
                libc::signal(signal, on_exit_signal as *const () as libc::sighandler_t);
            }
        }
    });
    for slot in &RUNNING_GROUPS {
        if slot
            .compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// Forgets `pgid` (its browser was killed and reaped).
fn forget_group(pgid: libc::pid_t) {
    for slot in &RUNNING_GROUPS {
        let _ = slot.compare_exchange(pgid, 0, Ordering::SeqCst, Ordering::SeqCst);
    }
}

/// Removes the profile directories of earlier runs whose process is gone (a signal such as
/// SIGKILL ended it before it could).
fn remove_stale_profiles() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("webmcp-chromium-"))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        // SAFETY: kill(2) with signal 0 only asks whether the process exists.
        let gone = pid > 0
            && unsafe { libc::kill(pid, 0) } != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn fresh_profile_dir() -> std::io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    static STALE: std::sync::Once = std::sync::Once::new();
    STALE.call_once(remove_stale_profiles);
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("webmcp-chromium-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// A running Chromium. Dropping it kills the whole process group.
pub struct Running {
    child: Child,
    profile: PathBuf,
}

/// Chromium's standard error, inside its profile directory (removed with it).
const STDERR_LOG: &str = "chromium-stderr.log";

/// How much of the log [`Running::stderr_tail`] keeps.
const STDERR_TAIL_LINES: usize = 12;

impl Running {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// How the browser process ended, if it already has (a crash before the page ran shows
    /// here); None while it runs.
    pub fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// The last lines Chromium wrote to standard error, without the D-Bus complaints every
    /// headless start on a machine without a session bus prints; empty if it wrote nothing else.
    pub fn stderr_tail(&self) -> String {
        let log = std::fs::read(self.profile.join(STDERR_LOG)).unwrap_or_default();
        tail_without_dbus(&String::from_utf8_lossy(&log), STDERR_TAIL_LINES)
    }
}

fn tail_without_dbus(log: &str, lines: usize) -> String {
    let kept: Vec<&str> = log
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.contains(":ERROR:dbus/"))
        .collect();
    kept[kept.len().saturating_sub(lines)..].join("\n")
}

/// How long `CHROMIUM --version` may take (Chromium answers in well under a second).
const VERSION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// The most of its answer that is read.
const VERSION_BYTES: u64 = 4096;

/// Kills `child` and the process group it leads (spawned with `process_group(0)`), and
/// reaps it.
fn kill_group(child: &mut Child) {
    let pgid = child.id() as libc::pid_t;
    // SAFETY: kill(2) with a negative pid signals the process group we created
    // at spawn (process_group(0) makes the child its leader).
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

impl Drop for Running {
    fn drop(&mut self) {
        kill_group(&mut self.child);
        forget_group(self.child.id() as libc::pid_t);
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// The first line a browser's `--version` printed, its control characters escaped: a
/// report's header names the browser in one line, whatever the binary wrote.
fn version_line(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    line.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

#[cfg(test)]
mod tests {
    /// Only the first line of what `--version` prints names the browser, escaped.
    #[test]
    fn the_version_is_its_first_line_escaped() {
        assert_eq!(
            super::version_line("\n  Chromium 156.0.1 built on Debian\nCopyright ...\n"),
            "Chromium 156.0.1 built on Debian"
        );
        assert_eq!(super::version_line("evil\u{1b}[2J x"), "evil\\u{1b}[2J x");
        assert_eq!(super::version_line(""), "");
    }

    use super::*;

    /// A "browser" that never answers `--version` is given up on, with its process group.
    #[test]
    fn a_version_probe_that_never_answers_is_bounded() {
        let dir = std::env::temp_dir().join(format!("webmcp-version-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
            std::fs::set_permissions(&path, mode).unwrap();
            path
        };
        let silent = write("silent.sh", "#!/bin/sh\nsleep 1000 &\nwait\n");
        // It answers, leaving a process behind that holds its standard output open.
        let answers = write(
            "answers.sh",
            "#!/bin/sh\nsleep 1000 &\necho \"Chromium 1.2.3 $1\"\n",
        );
        let timeout = std::time::Duration::from_millis(300);
        let e = Chromium::new(&silent).version_within(timeout).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::TimedOut, "{e}");
        assert!(
            e.to_string()
                .ends_with("--version did not answer within 300ms"),
            "{e}"
        );
        let answered = Chromium::new(&answers).version_within(timeout).unwrap();
        assert_eq!(answered, "Chromium 1.2.3 --version");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// An explicit path that is no file is refused, naming the path and where it came from
    /// (the environment is not consulted).
    #[test]
    fn a_missing_explicit_chromium_names_the_path_and_the_flag() {
        let missing = Path::new("/nonexistent/webmcp-chromium");
        let e = resolve_chromium(Some(missing)).unwrap_err();
        assert_eq!(
            e,
            NoChromium {
                path: missing.to_path_buf(),
                from: "--chromium".into()
            }
        );
        assert!(
            e.to_string().starts_with(
                "no Chromium at /nonexistent/webmcp-chromium (from --chromium; pass --chromium PATH"
            ),
            "{e}"
        );
    }

    #[test]
    fn args_hold_base_flags_profile_extras_and_url_last() {
        let c = Chromium::new("/x/chromium").with_flag("--enable-blink-features=WebMCP");
        let args = c.args(Path::new("/tmp/p"), "http://127.0.0.1:1/a.html");
        for flag in BASE_FLAGS {
            assert!(args.iter().any(|a| a == flag), "{flag}");
        }
        assert!(args.contains(&"--user-data-dir=/tmp/p".to_string()));
        assert!(args.contains(&"--enable-blink-features=WebMCP".to_string()));
        assert_eq!(args.last().unwrap(), "http://127.0.0.1:1/a.html");
    }

    #[test]
    fn the_stderr_tail_drops_dbus_noise_and_keeps_the_last_lines() {
        let log = "[1:2:ERROR:dbus/bus.cc:405] Failed to connect to the bus\n\
                   first\n\n[1:2:ERROR:dbus/object_proxy.cc:572] Failed\nsecond\nthird\n";
        assert_eq!(tail_without_dbus(log, 2), "second\nthird");
        assert_eq!(tail_without_dbus(log, 12), "first\nsecond\nthird");
        assert_eq!(
            tail_without_dbus("[x:ERROR:dbus/bus.cc:1] only noise", 12),
            ""
        );
    }

    #[test]
    fn a_failing_browser_leaves_its_stderr_and_exit_status() {
        // `sh` stands in for a browser that complains and exits before any page runs.
        let script =
            std::env::temp_dir().join(format!("webmcp-fake-chromium-{}", std::process::id()));
        std::fs::write(
            &script,
            "#!/bin/sh\necho 'shared memory exhausted' >&2\nexit 7\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        // Another test's thread may fork while the script is still open for writing here;
        // its child holds that descriptor until it execs, and running the script meanwhile
        // fails with ETXTBSY. That lasts a moment: try again.
        let mut running = (0..200)
            .find_map(
                |_| match Chromium::new(&script).launch("http://127.0.0.1:1/") {
                    Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                        None
                    }
                    other => Some(other),
                },
            )
            .expect("the script stopped being busy")
            .unwrap();
        let status = (0..500).find_map(|_| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            running.exit_status()
        });
        assert_eq!(status.and_then(|s| s.code()), Some(7));
        assert_eq!(running.stderr_tail(), "shared memory exhausted");
        drop(running);
        std::fs::remove_file(script).unwrap();
    }

    #[test]
    fn profiles_are_fresh_and_distinct() {
        let a = fresh_profile_dir().unwrap();
        let b = fresh_profile_dir().unwrap();
        assert_ne!(a, b);
        assert_eq!(std::fs::read_dir(&a).unwrap().count(), 0);
        std::fs::remove_dir_all(a).unwrap();
        std::fs::remove_dir_all(b).unwrap();
    }

    #[test]
    fn a_launched_process_is_killed_on_drop() {
        // `sleep` stands in for the browser: the guard must kill it.
        let running = Running {
            child: Command::new("/bin/sleep")
                .arg("30")
                .process_group(0)
                .spawn()
                .unwrap(),
            profile: fresh_profile_dir().unwrap(),
        };
        let pid = running.pid() as libc::pid_t;
        let profile = running.profile.clone();
        drop(running);
        // SAFETY: signal 0 only probes whether the pid exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        assert!(!alive, "process {pid} survived the guard");
        assert!(!profile.exists());
    }
}
