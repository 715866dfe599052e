//! `check --engine timely`: the draft's scenarios explored on timely dataflow, on worker
//! threads in one or several processes (docs/distributed.md).

use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::ValueEnum;
use std::sync::{Arc, Mutex};
use webmcp_model::{Variant, WebMcpModel};

use webmcp_profiles::driver::{check_distributed, Cluster, ClusterError, Hostfile, ProgressFn};
use webmcp_profiles::limits::{thousands, StopReason};

use crate::{
    human_report, progress, say_traces_written, CheckArgs, CheckPlan, Format, FrontierArg, ModeArg,
    TraceTally, UsageError,
};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EngineArg {
    Local,
    Timely,
}

#[derive(clap::Args)]
pub(crate) struct EngineArgs {
    /// Which engine explores: `local` (this process's searches: --mode, --threads) or
    /// `timely`: breadth-first on timely dataflow, over --workers threads in each of
    /// --processes processes (docs/distributed.md). Its counts, verdicts and paths are those
    /// of the local search with --threads 2 or more.
    #[arg(long, value_enum, default_value = "local")]
    engine: EngineArg,
    /// With --engine timely: worker threads in this process, 1 to 256 [default: 1].
    #[arg(long, value_name = "W")]
    workers: Option<usize>,
    /// With --engine timely: how many processes take part [default: the hostfile's, else 1].
    #[arg(long, value_name = "P")]
    processes: Option<usize>,
    /// With --engine timely: which process this is, from 0; process 0 prints the report
    /// [default: 0].
    #[arg(long, value_name = "I")]
    process: Option<usize>,
    /// With --engine timely: host:port of every process, one per line, in process order.
    #[arg(long, value_name = "FILE")]
    hostfile: Option<PathBuf>,
    /// With --engine timely: seconds to wait for every process to connect, 1 to 86400
    /// [default: 60].
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    connect_timeout: Option<u64>,
}

impl EngineArgs {
    pub(crate) fn is_timely(&self) -> bool {
        self.engine == EngineArg::Timely
    }

    /// Whether any option of a distributed run was given.
    pub(crate) fn is_set(&self) -> bool {
        self.is_timely()
            || self.workers.is_some()
            || self.processes.is_some()
            || self.process.is_some()
            || self.hostfile.is_some()
            || self.connect_timeout.is_some()
    }

    /// The cluster of `--engine timely` (`None` for the local engine), once the options
    /// are known to make sense together.
    pub(crate) fn cluster(
        &self,
        args: &CheckArgs,
        variant: &Variant,
        sources: &[(String, String)],
    ) -> Result<Option<Cluster>, UsageError> {
        let refuse = |why: &str| Err(UsageError(why.into()));
        if !self.is_timely() {
            if self.workers.is_some()
                || self.processes.is_some()
                || self.process.is_some()
                || self.hostfile.is_some()
                || self.connect_timeout.is_some()
            {
                return refuse(
                    "--workers, --processes, --process, --hostfile and --connect-timeout \
                     describe a distributed run: they need --engine timely",
                );
            }
            return Ok(None);
        }
        if args.mode != ModeArg::Bfs {
            return refuse("--engine timely searches breadth-first: it needs --mode bfs");
        }
        if args.threads != 1 {
            return refuse(
                "--engine timely runs --workers threads per process; --threads is the local \
                 engine's",
            );
        }
        if args.symmetry {
            return refuse(
                "--symmetry is the local engine's: --engine timely does not reduce by it",
            );
        }
        if args.frontier != FrontierArg::Auto {
            return refuse(
                "--engine timely keeps and sends states as bytes: --frontier is the local engine's",
            );
        }
        let hosts = match &self.hostfile {
            Some(path) => Hostfile::read(path).map_err(|e| UsageError(e.to_string()))?,
            None => Vec::new(),
        };
        let processes = self.processes.unwrap_or(hosts.len().max(1));
        if processes > 1 && self.hostfile.is_none() {
            return refuse("--processes above 1 needs --hostfile: where each process listens");
        }
        let mut tag = std::collections::hash_map::DefaultHasher::new();
        (variant.name(), sources).hash(&mut tag);
        let cluster = Cluster {
            workers: self.workers.unwrap_or(1),
            processes,
            process: self.process.unwrap_or(0),
            hosts,
            connect_within: Duration::from_secs(self.connect_timeout.unwrap_or(60)),
            tag: tag.finish(),
        };
        cluster.validate().map_err(|e| UsageError(e.to_string()))?;
        Ok(Some(cluster))
    }
}

/// One progress display per scenario of the plan, shared with the worker that reports.
fn progress_bars(plan: &CheckPlan) -> Arc<Mutex<Vec<Option<progress::Bar>>>> {
    Arc::new(Mutex::new(
        plan.worlds
            .iter()
            .map(|w| Some(progress::Bar::new(&w.name)))
            .collect(),
    ))
}

/// Runs the plan's scenarios on the cluster; process 0 reports as `check` does.
pub(crate) fn run(
    plan: &CheckPlan,
    cluster: &Cluster,
    args: &CheckArgs,
) -> Result<ExitCode, UsageError> {
    let models: Vec<WebMcpModel> = plan
        .worlds
        .iter()
        .map(|w| WebMcpModel::new(w.clone(), plan.variant))
        .collect();
    let bars = (!args.quiet).then(|| progress_bars(plan));
    let progress = bars.clone().map(|bars| -> ProgressFn {
        Arc::new(move |index, p| {
            let mut bars = bars.lock().unwrap_or_else(|e| e.into_inner());
            // The bars of the scenarios before this one are done.
            for bar in bars.iter_mut().take(index) {
                if let Some(done) = bar.take() {
                    done.finish();
                }
            }
            if let Some(Some(bar)) = bars.get_mut(index) {
                bar.update(p);
            }
        })
    });
    let outcome = check_distributed(models, &plan.options, cluster, progress);
    if let Some(bars) = bars {
        for bar in bars
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
            .flatten()
        {
            bar.finish();
        }
    }
    let (results, traffic) = match outcome {
        Ok(Some(run)) => run,
        Ok(None) => {
            if !args.quiet {
                errln!(
                    "webmcp-check: process {} of {} is done; process 0 prints the report",
                    cluster.process,
                    cluster.processes
                );
            }
            return Ok(ExitCode::SUCCESS);
        }
        Err(e @ (ClusterError::Usage(_) | ClusterError::NoCodec | ClusterError::Mismatch)) => {
            return Err(UsageError(e.to_string()))
        }
        Err(e) => {
            errln!("webmcp-check: {e}");
            return Ok(ExitCode::from(3));
        }
    };
    let mut traces = TraceTally::default();
    for (i, result) in results.iter().enumerate() {
        if args.format == Format::Human {
            out!("{}", human_report(plan, args, i, result));
        }
        traces.write(plan, args, i, result);
    }
    say_traces_written(args, traces.written);
    let failure = results.iter().find_map(|r| match &r.stopped_by {
        Some(StopReason::Cluster { reason }) => Some(reason),
        _ => None,
    });
    if let Some(reason) = failure {
        errln!("webmcp-check: the run failed, nothing it found is reported: {reason}");
    } else if !args.quiet {
        errln!(
            "webmcp-check: {} worker(s) in {} process(es); process 0's workers sent {} \
             states ({} bytes in {} messages) to other workers, {:.0} bytes per state sent",
            cluster.workers * cluster.processes,
            cluster.processes,
            thousands(traffic.states),
            thousands(traffic.bytes),
            thousands(traffic.messages),
            traffic.bytes as f64 / traffic.states.max(1) as f64
        );
    }
    let vacuity = vec![crate::output::Vacuity::NotAsked; results.len()];
    Ok(crate::conclude(
        plan,
        &crate::Explored {
            results,
            vacuity,
            traces_failed: traces.failed,
        },
        args,
    ))
}
