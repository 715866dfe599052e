//! Progress on stderr for checks that take more than a second: states, states per second,
//! depth. Silent when stderr is not a terminal (CI logs) or with `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use webmcp_properties::Progress;

pub struct Bar {
    bar: Option<ProgressBar>,
    scenario: String,
}

impl Bar {
    pub fn new(scenario: &str) -> Bar {
        Bar {
            bar: None,
            scenario: scenario.to_string(),
        }
    }

    pub fn update(&mut self, p: Progress) {
        if self.bar.is_none() {
            if p.elapsed < Duration::from_secs(1) || !std::io::stderr().is_terminal() {
                return;
            }
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {prefix}: {msg}")
                    .expect("a valid template"),
            );
            bar.set_prefix(self.scenario.clone());
            bar.enable_steady_tick(Duration::from_millis(120));
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            let rate = p.unique_states as f64 / p.elapsed.as_secs_f64().max(1e-9);
            bar.set_message(format!(
                "{} states, {} unique ({:.0}/s), depth {}",
                p.total_states, p.unique_states, rate, p.max_depth
            ));
        }
    }

    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
