//! Measuring a search: what the process used (CPU time, peak resident memory), the machine it
//! ran on and how much of its CPU time the hypervisor took (steal), and the medians that
//! repeated measurements are summarised by. It knows nothing of any model: a profile's
//! benchmark (which scenarios, which configurations, how the tables read) sits above the
//! engine and calls these (the draft profile's is `webmcp_profiles::bench`).
//!
//! Nothing here judges time: measurements are reported, never asserted.

use serde::{Deserialize, Serialize};

/// This process's resource usage (`getrusage(RUSAGE_SELF)`: every thread), where the system
/// gives it.
#[cfg(unix)]
pub(crate) fn rusage_self() -> Option<libc::rusage> {
    // SAFETY: getrusage only writes the struct we hand it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    (unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0).then_some(usage)
}

/// The peak resident set size of this process so far, in KiB (`VmHWM`), where Linux says.
pub fn peak_rss_kib() -> Option<u64> {
    proc_status_kib("VmHWM:")
}

/// CPU time (user + system) this process has used so far, all threads, in seconds.
pub fn cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        let usage = rusage_self()?;
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        Some(secs(usage.ru_utime) + secs(usage.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

fn proc_status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The machine's CPU time so far, from the first line of `/proc/stat` (clock ticks, every
/// CPU together).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuTimes {
    /// user, nice, system, idle, iowait, irq, softirq and steal together (guest time is
    /// already in user and nice).
    pub total: u64,
    /// The time the hypervisor ran other guests while this one had work (steal).
    pub steal: u64,
}

impl CpuTimes {
    /// Now, or `None` where `/proc/stat` is not readable (not Linux) or not understood.
    pub fn now() -> Option<CpuTimes> {
        CpuTimes::parse(&std::fs::read_to_string("/proc/stat").ok()?)
    }

    /// The `cpu` line of a `/proc/stat` text.
    pub fn parse(stat: &str) -> Option<CpuTimes> {
        let mut fields = stat.lines().next()?.split_whitespace();
        if fields.next()? != "cpu" {
            return None;
        }
        let ticks: Vec<u64> = fields
            .take(8)
            .map(|f| f.parse().ok())
            .collect::<Option<_>>()?;
        if ticks.len() < 8 {
            return None;
        }
        let total = ticks.iter().try_fold(0u64, |sum, t| sum.checked_add(*t))?;
        Some(CpuTimes {
            total,
            steal: ticks[7],
        })
    }

    /// The share of the CPU time from `start` to now that was stolen; `None` where either
    /// reading is missing, no time passed or a counter went back.
    pub fn steal_since(start: Option<CpuTimes>) -> Option<f64> {
        start
            .zip(CpuTimes::now())
            .and_then(|(start, now)| start.steal_share(now))
    }

    /// The share of the CPU time from `self` to `later` that was stolen; `None` when no time
    /// passed or a counter went back.
    pub fn steal_share(self, later: CpuTimes) -> Option<f64> {
        let total = later.total.checked_sub(self.total)?;
        let steal = later.steal.checked_sub(self.steal)?;
        (total > 0 && steal <= total).then(|| steal as f64 / total as f64)
    }
}

/// The machine a measurement ran on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Machine {
    /// What `nproc` says (the CPUs this process may use).
    pub nproc: usize,
    /// `model name` of `/proc/cpuinfo`.
    pub cpu: String,
    /// How the binary that measured was compiled ([`Machine::this_build`]).
    #[serde(default)]
    pub build: String,
}

impl Machine {
    pub fn this() -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| {
                text.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".to_string());
        Machine {
            nproc: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cpu,
            build: Machine::this_build(),
        }
    }

    /// How this binary was compiled: `release` or `debug` (the same code at very different
    /// speeds), then what `WEBMCP_CHECK_BUILD` said when it was built, where it was set:
    /// `scripts/build-pgo` sets `profile-guided` (docs/performance.md).
    pub fn this_build() -> String {
        let profile = if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        };
        match option_env!("WEBMCP_CHECK_BUILD") {
            Some(note) if !note.trim().is_empty() => format!("{profile}, {}", note.trim()),
            _ => profile.to_string(),
        }
    }
}

/// The median of `v` (the mean of the middle two for an even count); NaN for none.
pub fn median_f64(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// The median of `v`, the upper of the middle two for an even count; `v` must not be empty.
pub fn median_u<T: Ord + Copy>(mut v: Vec<T>) -> T {
    assert!(!v.is_empty(), "no values to take a median of");
    v.sort();
    v[v.len() / 2]
}

/// The median of `v` where every value is known; `None` where one is missing or there are none.
pub fn median_opt_u64(v: Vec<Option<u64>>) -> Option<u64> {
    let v: Option<Vec<u64>> = v.into_iter().collect();
    v.filter(|v| !v.is_empty()).map(median_u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_says_whether_it_is_optimised() {
        let build = Machine::this().build;
        let profile = if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        };
        assert!(build.starts_with(profile), "{build}");
        assert_eq!(
            build == profile,
            option_env!("WEBMCP_CHECK_BUILD").is_none_or(|n| n.trim().is_empty()),
            "{build}"
        );
    }

    #[test]
    fn steal_is_read_from_the_cpu_line_of_proc_stat() {
        let at = |steal: u64, idle: u64| {
            CpuTimes::parse(&format!(
                "cpu  100 5 20 {idle} 4 0 1 {steal} 0 0\ncpu0 50 2 10 400 2 0 0 5 0 0\n"
            ))
            .unwrap()
        };
        let before = at(10, 800);
        assert_eq!(
            before,
            CpuTimes {
                total: 940,
                steal: 10
            }
        );
        // 100 ticks later, 25 of them stolen.
        let later = at(35, 875);
        assert_eq!(before.steal_share(later), Some(0.25));
        assert_eq!(before.steal_share(before), None, "no time passed");
        assert_eq!(later.steal_share(before), None, "a counter went back");
        assert_eq!(CpuTimes::steal_since(None), None, "no first reading");
        for bad in [
            "",
            "intr 1 2 3",
            "cpu 1 2 3",
            "cpu a b c d e f g h",
            "cpu 18446744073709551615 1 0 0 0 0 0 0",
        ] {
            assert_eq!(CpuTimes::parse(bad), None, "{bad:?}");
        }
        // Older kernels without guest columns still have steal.
        assert!(CpuTimes::parse("cpu 1 2 3 4 5 6 7 8").is_some());
        if std::path::Path::new("/proc/stat").exists() {
            assert!(CpuTimes::now().is_some(), "this machine's /proc/stat");
        }
    }

    #[test]
    fn medians_take_the_middle_and_say_when_values_are_missing() {
        assert_eq!(median_f64(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median_f64(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median_f64(Vec::new()).is_nan());
        assert_eq!(
            median_u(vec![5u64, 1, 9, 7]),
            7,
            "the upper of the middle two"
        );
        assert_eq!(median_opt_u64(vec![Some(3), Some(1), Some(2)]), Some(2));
        assert_eq!(
            median_opt_u64(vec![Some(3), None]),
            None,
            "one value missing"
        );
        assert_eq!(median_opt_u64(Vec::new()), None);
    }

    #[test]
    fn the_process_readings_follow_the_work() {
        let (Some(before), Some(peak_before)) = (cpu_seconds(), peak_rss_kib()) else {
            // Not Linux: nothing to read, and nothing is claimed.
            assert!(!std::path::Path::new("/proc/self/status").exists());
            return;
        };
        let block = vec![1u8; 8 << 20];
        let mut sum = 0u64;
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(50);
        while std::time::Instant::now() < deadline {
            sum = sum.wrapping_add(block.iter().step_by(4096).map(|&b| u64::from(b)).sum());
        }
        assert!(sum > 0);
        assert!(
            cpu_seconds().unwrap() > before,
            "50 ms of work shows as CPU time"
        );
        let peak = peak_rss_kib().unwrap();
        // Other tests free memory concurrently, so only the bounds are certain.
        assert!(peak >= peak_before, "a peak never goes down");
        assert!(peak >= 8 * 1024, "the 8 MiB block was resident");
    }
}
