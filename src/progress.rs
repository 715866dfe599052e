//! Progress on stderr for checks that take more than a second: states, states per second,
//! depth. On a terminal, a spinner line; when stderr is not a terminal (CI logs), one plain
//! line every [`DEFAULT_INTERVAL`], so a long run shows it is moving; nothing for runs shorter
//! than that. Nothing at all with `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use webmcp_profiles::limits::thousands;
use webmcp_profiles::Progress;

/// How often a plain progress line is printed when stderr is not a terminal.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);

/// Overrides [`DEFAULT_INTERVAL`] (milliseconds); for tests, which cannot wait 5 s per line.
pub const INTERVAL_ENV: &str = "WEBMCP_PROGRESS_INTERVAL_MS";

pub struct Bar {
    scenario: String,
    out: Output,
}

enum Output {
    /// Not decided yet: the run has not lasted a second.
    Undecided,
    Spinner(ProgressBar),
    /// Plain lines: the elapsed time at which the next one is due.
    Lines {
        interval: Duration,
        next: Duration,
    },
}

impl Bar {
    pub fn new(scenario: &str) -> Bar {
        Bar {
            scenario: scenario.to_string(),
            out: if std::io::stderr().is_terminal() {
                Output::Undecided
            } else {
                let interval = interval();
                Output::Lines {
                    interval,
                    next: interval,
                }
            },
        }
    }

    pub fn update(&mut self, p: Progress) {
        match &mut self.out {
            Output::Undecided => {
                if p.elapsed < Duration::from_secs(1) {
                    return;
                }
                let bar = ProgressBar::new_spinner();
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {prefix}: {msg}")
                        .expect("a valid template"),
                );
                bar.set_prefix(self.scenario.clone());
                bar.enable_steady_tick(Duration::from_millis(120));
                self.out = Output::Spinner(bar);
                self.update(p);
            }
            Output::Spinner(bar) => {
                let rate = p.unique_states as f64 / p.elapsed.as_secs_f64().max(1e-9);
                bar.set_message(format!(
                    "{} states, {} unique ({:.0}/s), depth {}",
                    p.total_states, p.unique_states, rate, p.max_depth
                ));
            }
            Output::Lines { interval, next } => {
                if p.elapsed < *next {
                    return;
                }
                // The next line is due one interval after this one, however late this was.
                *next = p.elapsed + *interval;
                errln!("{}", line(&self.scenario, &p));
            }
        }
    }

    pub fn finish(self) {
        if let Output::Spinner(bar) = self.out {
            bar.finish_and_clear();
        }
    }
}

/// The plain progress line: "webmcp-check: NAME: 1,234,567 states (98,765 unique), depth 23,
/// 12 s".
fn line(scenario: &str, p: &Progress) -> String {
    format!(
        "webmcp-check: {scenario}: {} states ({} unique), depth {}, {} s",
        thousands(p.total_states as u64),
        thousands(p.unique_states as u64),
        p.max_depth,
        p.elapsed.as_secs()
    )
}

fn interval() -> Duration {
    std::env::var(INTERVAL_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
        .map_or(DEFAULT_INTERVAL, Duration::from_millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_line_reads_as_documented() {
        let p = Progress {
            total_states: 1_234_567,
            unique_states: 98_765,
            max_depth: 23,
            elapsed: Duration::from_millis(12_400),
        };
        assert_eq!(
            line("iframes", &p),
            "webmcp-check: iframes: 1,234,567 states (98,765 unique), depth 23, 12 s"
        );
    }
}
