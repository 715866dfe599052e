//! `webmcp-check sweep --scale`: how the generated space grows with the bound. Sweeps a fixed
//! ladder of bounds, smallest first, each in its own process (so each row's peak memory is its
//! own), until one does not finish within the time limit, and tabulates scenarios, states,
//! time and memory per bound; `--svg` plots them. docs/performance.md records a run.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use webmcp_profiles::bench::{DrawingError, PlotError};
use webmcp_profiles::limits::thousands;

use crate::UsageError;

/// The ladder, in order of cost: one document (`d1`) growing its script, then two documents
/// (a top-level document and an iframe, `d2`) growing theirs, with the presets where they
/// fall. `s` is statements per script, `t` in all scripts.
pub const LADDER: &[&str] = &[
    "docs=1,stmts=1,total=1",
    "docs=1,stmts=2,total=2",
    "docs=1,stmts=3,total=3",
    "docs=2,stmts=1,total=1",
    "docs=2,stmts=1,total=2",
    "docs=2,stmts=2,total=2",
    "tiny",
    "small",
    "docs=1,stmts=5,total=5",
    "docs=2,stmts=3,total=3",
    "docs=2,stmts=2,total=4",
    "medium",
];

/// One bound's sweep, as its process reported it.
#[derive(Clone, Debug)]
pub struct Row {
    pub bound: String,
    /// `None` when the time limit stopped the enumeration: how many there are is unknown.
    pub raw: Option<u64>,
    pub canonical: Option<u64>,
    pub checked: u64,
    pub unique_states: u64,
    pub total_states: u64,
    pub seconds: f64,
    pub cpu_seconds: f64,
    pub peak_rss_mib: f64,
    /// Every scenario checked exhaustively within the limit.
    pub complete: bool,
    pub violated_properties: u64,
}

pub struct ScalePlan<'a> {
    pub variant: &'a str,
    /// Each bound's sweep reduced as `sweep --reduction` asks.
    pub reduction: crate::ReductionArg,
    pub jobs: usize,
    pub limit_seconds: u64,
    pub memory_limit_mib: Option<u64>,
    pub svg: Option<&'a Path>,
    /// `-q`: no line per rung on stderr (the table and any error still print).
    pub quiet: bool,
}

pub fn scale(plan: &ScalePlan) -> Result<ExitCode, UsageError> {
    // The plot's file is checked before the ladder runs, not after.
    let svg_output = crate::output_file(plan.svg)?;
    let exe = std::env::current_exe()
        .map_err(|e| UsageError(format!("cannot find this executable to re-run it: {e}")))?;
    let mut rows = Vec::new();
    for bound in LADDER {
        if !plan.quiet {
            errln!("sweep --scale: {bound} ...");
        }
        let row = run_bound(&exe, bound, plan)?;
        let complete = row.complete;
        if !plan.quiet {
            errln!(
                "sweep --scale: {bound}: {} scenarios, {} unique states, {:.1} s{}",
                count_text(row.canonical),
                thousands(row.unique_states),
                row.seconds,
                if complete { "" } else { " (stopped)" }
            );
        }
        rows.push(row);
        if !complete {
            break;
        }
    }
    out!("{}", table(&rows, plan));
    // The ladder ends at a bound the limits stopped, or at its last rung: a measurement,
    // exit 0, when it swept one bound at least; else it measured nothing, exit 3, and there
    // is nothing to plot.
    if !rows.iter().any(|r| r.complete) {
        if let Some(path) = plan.svg {
            errln!(
                "sweep --scale: {}: not written: nothing to plot",
                path.display()
            );
        }
        errln!("sweep --scale: no bound of the ladder finished within the limits (exit 3)");
        return Ok(ExitCode::from(3));
    }
    if let (Some(path), Some(output)) = (plan.svg, svg_output) {
        let svg = plot(&rows).map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
        output.commit(&svg).map_err(|e| UsageError(e.to_string()))?;
        errln!("wrote {}", webmcp_traces::limits::shown_path(path));
    }
    Ok(ExitCode::SUCCESS)
}

fn run_bound(exe: &PathBuf, bound: &str, plan: &ScalePlan) -> Result<Row, UsageError> {
    let mut cmd = Command::new(exe);
    cmd.args(["sweep", "--quiet", "--format", "json", "--bound", bound])
        .args(["--variant", plan.variant])
        .args(["--reduction", plan.reduction.name()])
        .args(["--jobs", &plan.jobs.to_string()])
        .args(["--timeout", &plan.limit_seconds.to_string()]);
    if let Some(m) = plan.memory_limit_mib {
        cmd.args(["--memory-limit", &m.to_string()]);
    }
    let out = cmd
        .output()
        .map_err(|e| UsageError(format!("cannot run {}: {e}", exe.display())))?;
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        UsageError(format!(
            "the sweep of {bound} printed no report ({e}): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    })?;
    let n = |k: &str| report[k].as_u64().unwrap_or(0);
    let f = |k: &str| report[k].as_f64().unwrap_or(0.0);
    Ok(Row {
        bound: bound.to_string(),
        raw: report["raw"].as_u64(),
        canonical: report["canonical"].as_u64(),
        checked: n("checked"),
        unique_states: n("unique_states"),
        total_states: n("total_states"),
        seconds: f("seconds"),
        cpu_seconds: f("cpu_seconds"),
        peak_rss_mib: f("peak_rss_mib"),
        complete: n("incomplete") == 0 && n("checked") == n("selected"),
        violated_properties: n("violated_properties"),
    })
}

/// A count, or "?" where the limit stopped the enumeration before its end.
fn count_text(n: Option<u64>) -> String {
    n.map_or_else(|| "?".to_string(), thousands)
}

fn table(rows: &[Row], plan: &ScalePlan) -> String {
    let mut out = format!(
        "sweep --scale under {}, --reduction {}, --jobs {}, each bound stopped after {} s\n\n\
         | bound | raw | canonical | checked | unique states | states generated | wall s | CPU s | peak RSS MiB | violated |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        plan.variant,
        plan.reduction.name(),
        plan.jobs,
        plan.limit_seconds
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {}{} | {} | {} | {:.1} | {:.1} | {:.0} | {} |",
            r.bound,
            count_text(r.raw),
            count_text(r.canonical),
            thousands(r.checked),
            if r.complete { "" } else { " (stopped)" },
            thousands(r.unique_states),
            thousands(r.total_states),
            r.seconds,
            r.cpu_seconds,
            r.peak_rss_mib,
            r.violated_properties
        );
    }
    match rows.iter().rev().find(|r| r.complete) {
        Some(r) => {
            let _ = writeln!(
                out,
                "\nLargest bound of the ladder swept exhaustively within {} s: `{}` ({} scenarios).",
                plan.limit_seconds,
                r.bound,
                count_text(r.canonical)
            );
        }
        None => {
            let _ = writeln!(
                out,
                "\nNo bound of the ladder finished within {} s{}.",
                plan.limit_seconds,
                plan.memory_limit_mib
                    .map_or(String::new(), |m| format!(" and {m} MiB"))
            );
        }
    }
    out
}

/// Canonical scenarios and unique states per bound (log scale, left) and wall time (right),
/// as an SVG document.
fn plot(rows: &[Row]) -> Result<String, PlotError> {
    use plotters::prelude::*;
    let done: Vec<&Row> = rows.iter().filter(|r| r.complete).collect();
    if done.is_empty() {
        return Err(PlotError::Nothing("no bound finished: nothing to plot"));
    }
    let max_y = done
        .iter()
        .map(|r| r.unique_states.max(r.canonical.unwrap_or(0)))
        .max()
        .unwrap_or(1) as f64;
    let max_t = done.iter().map(|r| r.seconds).fold(0.1, f64::max);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1200, 520)).into_drawing_area();
        root.fill(&WHITE)?;
        let (left, right) = root.split_horizontally(600);
        let label = |x: &f64| {
            let i = x.round() as usize;
            if (x - i as f64).abs() < 0.01 && i >= 1 && i <= done.len() {
                short(&done[i - 1].bound)
            } else {
                String::new()
            }
        };
        let blue = RGBColor(31, 119, 180);
        let red = RGBColor(214, 39, 40);
        let series = |f: &dyn Fn(&Row) -> f64| -> Vec<(f64, f64)> {
            done.iter()
                .enumerate()
                .map(|(i, r)| ((i + 1) as f64, f(r)))
                .collect()
        };
        let mut chart = log_chart(
            &left,
            "Scenarios and unique states per bound",
            done.len(),
            1.0..max_y * 2.0,
            "count",
            &label,
        )?;
        chart
            .draw_series(
                LineSeries::new(
                    series(&|r| r.canonical.unwrap_or(0).max(1) as f64),
                    blue.stroke_width(2),
                )
                .point_size(3),
            )?
            .label("canonical scenarios")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], blue));
        chart
            .draw_series(
                LineSeries::new(
                    series(&|r| r.unique_states.max(1) as f64),
                    red.stroke_width(2),
                )
                .point_size(3),
            )?
            .label("unique states (sum over scenarios)")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], red));
        chart
            .configure_series_labels()
            .background_style(WHITE)
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()?;
        log_chart(
            &right,
            "Wall time per bound",
            done.len(),
            0.01..max_t * 2.0,
            "seconds",
            &label,
        )?
        .draw_series(
            LineSeries::new(series(&|r| r.seconds.max(0.01)), blue.stroke_width(2)).point_size(3),
        )?;
        root.present()?;
    }
    Ok(svg)
}

type LogChart<'a, 'b> = plotters::chart::ChartContext<
    'a,
    plotters::backend::SVGBackend<'b>,
    plotters::coord::cartesian::Cartesian2d<
        plotters::coord::types::RangedCoordf64,
        plotters::coord::combinators::LogCoord<f64>,
    >,
>;

/// One panel: the bounds of the ladder along x (labelled by `label`), a log scale along y.
fn log_chart<'a, 'b>(
    area: &'a plotters::drawing::DrawingArea<
        plotters::backend::SVGBackend<'b>,
        plotters::coord::Shift,
    >,
    caption: &str,
    bounds: usize,
    y: std::ops::Range<f64>,
    y_desc: &str,
    label: &dyn Fn(&f64) -> String,
) -> Result<LogChart<'a, 'b>, DrawingError> {
    use plotters::prelude::*;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5f64..bounds as f64 + 0.5, y.log_scale())?;
    chart
        .configure_mesh()
        .x_labels(bounds)
        .x_label_formatter(label)
        .x_label_style(("sans-serif", 10))
        .x_desc("bound (d: documents, s: statements per script, t: in all)")
        .y_desc(y_desc)
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()?;
    Ok(chart)
}

/// A bound's name on an axis: the preset, or `d2 s1 t2` for docs=2,stmts=1,total=2.
fn short(bound: &str) -> String {
    if !bound.contains('=') {
        return bound.to_string();
    }
    bound
        .split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| format!("{}{v}", &k[..1]))
        .collect::<Vec<_>>()
        .join(" ")
}
