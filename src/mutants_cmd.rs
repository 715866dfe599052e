//! `webmcp-check mutants`: mutation adequacy of the property suite (docs/mutation.md).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use webmcp_model::mutation::{Mutant, Operator};
use webmcp_model::{Variant, WebMcpModel, World};
use webmcp_profiles::mutants::{Baseline, Fate};

use crate::shard::Shard;
use crate::UsageError;

mod merge;

pub use merge::merge;

#[derive(clap::Args)]
pub struct MutantsArgs {
    /// Write the report (Markdown) to this file; otherwise print a summary.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Run only this mutant (as the report names it, e.g. drop-step@execute-tool#16.12).
    #[arg(long, value_name = "NAME", conflicts_with = "operator")]
    mutant: Option<String>,
    /// Run only mutants of this operator.
    #[arg(long, value_name = "OPERATOR")]
    operator: Option<String>,
    /// Worker threads, 1 to 256 (mutants run in parallel, each check on one thread).
    #[arg(long, value_name = "N", default_value_t = 2)]
    threads: usize,
    #[command(flatten)]
    memory: crate::MemoryLimitArg,
    /// A mutant whose search generates more than this many times the states the unmutated
    /// search generates counts as killed (exploded); 1 to 1000.
    #[arg(long, value_name = "FACTOR", default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=1000))]
    bound: u16,
    /// Exit 1 when the mutation score (a percentage, 0 to 100) is below this.
    #[arg(long, value_name = "PERCENT", default_value_t = 95.0, value_parser = percent)]
    min_score: f64,
    /// Partial-order reduction of every check (as `check --reduction`). Sleep sets are not
    /// offered: their footprints are proven on the draft's texts (model/tests/footprint.rs),
    /// not on mutants, which change what a step touches.
    #[arg(long, value_enum, default_value = "none")]
    reduction: MutantsReduction,
    /// Run only shard I of N of the selected mutants, those at positions I-1, I-1+N, ... in
    /// the report's order; `merge` joins the shards' JSON reports (docs/ci.md).
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// What to print: a line per mutant and the score (text; the default), the report
    /// (markdown; the default with -o), or JSON (what `merge` reads).
    #[arg(long, value_enum)]
    format: Option<MutantsFormat>,
}

/// The reductions a mutants run takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum MutantsReduction {
    None,
    Por,
}

impl MutantsReduction {
    fn engine(self) -> webmcp_profiles::Reduction {
        match self {
            MutantsReduction::None => webmcp_profiles::Reduction::None,
            MutantsReduction::Por => webmcp_profiles::Reduction::Por,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MutantsFormat {
    Text,
    Markdown,
    Json,
}

fn percent(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        Ok(_) => Err("a percentage is between 0 and 100".into()),
        Err(_) => Err("expected a number between 0 and 100".into()),
    }
}

/// Why a mutant that changes some transition still survives the suite: equivalent in what
/// any page or agent can observe, though not transition for transition.
pub const SURVIVORS: &[(&str, &str)] = &[
    (
        "drop-existence-check@imperative-execute-steps#10.rejected.3",
        "Equivalent in outcome. The local entry is gone only after a cancellation (cancel-pending-execution#6.4, which runs after #4 removed the pending execution) or, under `abort-local-on-unload`, after the target unloaded. Going on runs completionSteps with failure: after a cancellation #16.10.1 finds no pending execution and returns; after an unload the caller's promise is rejected with UnknownError, exactly what the unload cleanup's completionSteps would do, and `settle-once` drops whichever rejection comes second.",
    ),
    (
        "drop-existence-check@register-tool#13",
        "Equivalent in outcome. register-tool#17.2 repeats the check of #13, and nothing between them can abort the signal (both run in one task), so a registration with an aborted signal is still rejected with the signal's abort reason, one step later. The repetition is itself a redundancy of the draft (docs/model.md).",
    ),
    (
        "swap-adjacent@execute-tool#16.12,#16.13",
        "Cannot be told apart by a safety property. The two steps run as two actions of the in-parallel block; the mutant holds back the write of #16.12 (store the pending execution), lets the thread run #16.13 (queue the tool's task) in the same action, and then stores the entry. Inside one atomic action the order of the two writes is invisible, so the mutant only removes the interleaving point between them: it reaches a subset of the unmutated states, none new, and every witness is still reached elsewhere. The model's swap reorders writes within an action; it cannot open a window where the task is queued but the entry not yet stored (docs/model.md, mutation testing).",
    ),
];

pub fn mutants(args: &MutantsArgs, worlds: Vec<World>) -> Result<ExitCode, UsageError> {
    crate::threads_arg(args.threads)?;
    args.memory.apply()?;
    let output = crate::output_file(args.output.as_deref())?;
    let operator = match &args.operator {
        None => None,
        Some(name) => Some(Operator::parse(name).ok_or_else(|| {
            UsageError(format!(
                "unknown operator \"{name}\": use one of {}",
                Operator::ALL.map(|o| o.name()).join(", ")
            ))
        })?),
    };
    let models = worlds
        .into_iter()
        .map(|w| WebMcpModel::new(w, Variant::proposed()))
        .collect();
    // A bound that stops a check the mutants are judged against leaves them all undecided.
    let stopped = |e: webmcp_profiles::mutants::Stopped| {
        errln!("webmcp-check: {e}");
        ExitCode::from(3)
    };
    let baseline = match Baseline::reduced(models, args.reduction.engine()) {
        Ok(b) => b,
        Err(e) => return Ok(stopped(e)),
    };
    let (all, _) = match baseline.mutants() {
        Ok(m) => m,
        Err(e) => return Ok(stopped(e)),
    };
    let mut selected: Vec<Mutant> = match &args.mutant {
        Some(name) => {
            let m = Mutant::parse(name)
                .ok_or_else(|| UsageError(format!("unknown mutant \"{name}\"")))?;
            if !all.contains(&m) {
                return Err(UsageError(format!(
                    "mutant \"{name}\" has no site in the model, so it changes nothing"
                )));
            }
            vec![m]
        }
        None => all
            .into_iter()
            .filter(|m| operator.is_none_or(|o| m.op == o))
            .collect(),
    };
    // The canonical order is the report's; the shard takes its part of it.
    selected.sort();
    let whole = selected.len() as u64;
    let selected = crate::shard::select(selected, args.shard);
    if let (Some(shard), true) = (args.shard, selected.is_empty()) {
        crate::shard::note_empty(shard, whole, "mutants");
    }
    let fates = run(&baseline, &selected, args.threads, usize::from(args.bound));
    let run = Run {
        fates,
        bound: usize::from(args.bound),
        min_score: args.min_score,
        candidates: webmcp_model::mutation::candidates().len(),
        selection: Selection::of(args.mutant.as_deref(), args.operator.as_deref()),
    };
    let format = args.format.unwrap_or(if args.output.is_some() {
        MutantsFormat::Markdown
    } else {
        MutantsFormat::Text
    });
    let text = match format {
        MutantsFormat::Text => run.text(),
        MutantsFormat::Markdown => run.markdown(),
        MutantsFormat::Json => {
            let shard = args
                .shard
                .map(|s| merge::shard_record(args, s, whole, &run));
            format!("{}\n", merge::json(&run, shard))
        }
    };
    match (output, &args.output) {
        (Some(o), Some(path)) => {
            o.commit(&text).map_err(|e| UsageError(e.to_string()))?;
            errln!("wrote {}", webmcp_traces::limits::shown_path(path));
            if format == MutantsFormat::Markdown {
                outln!("{}", run.score_line());
            }
        }
        _ => out!("{text}"),
    }
    if args.shard.is_some() && selected.is_empty() {
        // Nothing was decided here: never a pass (`merge` judges the whole).
        return Ok(ExitCode::from(3));
    }
    Ok(ExitCode::from(run.exit_code(true)))
}

/// The fates of a run of mutants (the whole selection, a shard's part, or merged shards).
pub struct Run {
    /// In the canonical (sorted) order of the mutants.
    fates: Vec<(Mutant, Fate)>,
    bound: usize,
    min_score: f64,
    candidates: usize,
    /// The part of the mutants the run was asked for, if not all of them: its counts and
    /// score are that part's, and every report says so.
    selection: Option<Selection>,
}

/// `--mutant NAME` or `--operator NAME`: a run of part of the mutants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    Mutant(String),
    Operator(String),
}

impl Selection {
    fn of(mutant: Option<&str>, operator: Option<&str>) -> Option<Selection> {
        match (mutant, operator) {
            (Some(m), _) => Some(Selection::Mutant(m.to_string())),
            (None, Some(o)) => Some(Selection::Operator(o.to_string())),
            (None, None) => None,
        }
    }

    /// Whether it names a mutant or an operator of this build (a shard read by merge may
    /// name anything).
    fn is_this_builds(&self) -> bool {
        match self {
            Selection::Mutant(m) => Mutant::parse(m).is_some(),
            Selection::Operator(o) => Operator::parse(o).is_some(),
        }
    }

    /// The option as typed (names are this build's: checked before the run, or by merge).
    fn option(&self) -> String {
        match self {
            Selection::Mutant(m) => format!("--mutant {m}"),
            Selection::Operator(o) => format!("--operator {o}"),
        }
    }
}

impl Run {
    fn score(&self) -> (usize, usize, f64) {
        let (killed, counted) = score_of(&self.fates);
        (
            killed,
            counted,
            100.0 * killed as f64 / counted.max(1) as f64,
        )
    }

    fn score_line(&self) -> String {
        let (killed, counted, score) = self.score();
        let of = match &self.selection {
            Some(s) => format!(" (only those of {}, not the whole suite)", s.option()),
            None => String::new(),
        };
        format!(
            "{killed} of {counted} mutants killed{of} ({} equivalent left out): score {}% (target {}%)",
            self.fates.len() - counted,
            score_text(score, self.min_score),
            self.min_score
        )
    }

    fn meets_target(&self) -> bool {
        meets(self.score().2, self.min_score)
    }

    fn text(&self) -> String {
        let mut out = String::new();
        for (m, f) in &self.fates {
            let _ = writeln!(out, "{:<70} {}", m.name(), fate_text(f));
        }
        let _ = writeln!(out, "{}", self.score_line());
        out
    }

    fn markdown(&self) -> String {
        markdown(
            &self.fates,
            self.score().2,
            self.bound,
            self.candidates,
            self.selection.as_ref(),
        )
    }

    /// 3 when a mutant is undecided (saying so on stderr if `tell`), 1 when the score is
    /// below --min-score, else 0.
    fn exit_code(&self, tell: bool) -> u8 {
        let undecided = self
            .fates
            .iter()
            .filter(|(_, f)| matches!(f, Fate::Stopped { .. }))
            .count();
        if undecided > 0 {
            if tell {
                errln!(
                    "webmcp-check: {undecided} mutant(s) undecided: a bound stopped their check (see above)"
                );
            }
            return 3;
        }
        if self.meets_target() {
            0
        } else {
            1
        }
    }
}

/// Whether `score` reaches `target` (both percentages; a score computed from counts may be a
/// hair below the same decimal typed by hand).
fn meets(score: f64, target: f64) -> bool {
    score + 1e-9 >= target
}

/// The score to one decimal, or to as many more as it takes for the text to read on the same
/// side of the target (printed as typed) as the verdict: 97.46 against 97.5 reads 97.46, not
/// 97.5.
fn score_text(score: f64, target: f64) -> String {
    let reads_as_met = |text: &str| text.parse::<f64>().is_ok_and(|shown| shown >= target);
    (1..=6)
        .map(|decimals| format!("{score:.decimals$}"))
        .find(|text| reads_as_met(text) == meets(score, target))
        .unwrap_or_else(|| format!("{score}"))
}

fn run(
    baseline: &Baseline,
    mutants: &[Mutant],
    threads: usize,
    bound: usize,
) -> Vec<(Mutant, Fate)> {
    // Mutants may panic by design; the panic is the detection, not a message for the user.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mapped =
        webmcp_profiles::parallel::try_map(mutants, threads, |&m| baseline.judge(m, bound));
    if let Some(e) = &mapped.spawn_error {
        errln!(
            "webmcp-check: could start only {} of {threads} worker threads ({e}); going on with those",
            mapped.workers
        );
    }
    let fates = mapped.results;
    std::panic::set_hook(hook);
    let mut out: Vec<(Mutant, Fate)> = mutants.iter().copied().zip(fates).collect();
    out.sort_by_key(|(m, _)| *m);
    out
}

/// Killed mutants, and mutants that count (all but the proven equivalent ones).
fn score_of(fates: &[(Mutant, Fate)]) -> (usize, usize) {
    let killed = fates.iter().filter(|(_, f)| f.is_killed()).count();
    let equivalent = fates.iter().filter(|(_, f)| *f == Fate::Equivalent).count();
    (killed, fates.len() - equivalent)
}

fn fate_text(f: &Fate) -> String {
    match f {
        Fate::Killed { scenario, property } => format!("killed by {property} in {scenario}"),
        Fate::Crashed { scenario, message } => format!("crashed in {scenario}: {message}"),
        Fate::Exploded { scenario } => format!("state space exploded in {scenario}"),
        Fate::Stopped { scenario, stop } => format!("UNDECIDED: stopped by {stop} in {scenario}"),
        Fate::Equivalent => "equivalent: every transition of the suite is unchanged".into(),
        Fate::Survived => "SURVIVED".into(),
    }
}

fn markdown(
    fates: &[(Mutant, Fate)],
    score: f64,
    bound: usize,
    candidates: usize,
    selection: Option<&Selection>,
) -> String {
    let mut out = String::new();
    let (killed, counted) = score_of(fates);
    let (command, with_a_site, score_of_what) = match selection {
        None => (
            "webmcp-check mutants -o docs/mutation.md".to_string(),
            format!("{} with a site", fates.len()),
            String::new(),
        ),
        Some(s) => (
            format!("webmcp-check mutants {}", s.option()),
            format!(
                "of which those with a site of `{}` are {}",
                s.option(),
                fates.len()
            ),
            format!(" of `{}` only, not the whole suite", s.option()),
        ),
    };
    let _ = writeln!(
        out,
        "# Mutation adequacy\n\n\
         Generated by `{command}`. Each mutant plants one bug in\n\
         the `proposed` model (the variant under which every property holds) at one step of the\n\
         draft, and the whole standard suite is checked, smallest scenario first, until some\n\
         property's verdict changes (a violation, or a witness no longer reached). A crash of\n\
         the model counts as a detection, and so does a search that generates more than {bound}\n\
         times the states the unmutated search generates. Mutants come from the step table (`model/src/mutation.rs`):\n\
         every `Step` row crossed with the operators, kept where the model has a site for the\n\
         operator at that step: {candidates} candidates, {with_a_site} (a `Let` step, for one,\n\
         writes nothing that a dropped step could lose).\n\n\
         A surviving mutant is *equivalent* when every action enabled in every reachable state\n\
         of every scenario gives exactly the unmutated successor state: the planted change never\n\
         changes anything on the suite, so no property could tell. That is checked, not argued,\n\
         and equivalent mutants are left out of the score.\n\n\
         **Score{score_of_what}: {killed} of {counted} mutants killed ({score:.1}%); {} equivalent.**\n",
        fates.len() - counted
    );
    let mut per_op: BTreeMap<Operator, [usize; 3]> = BTreeMap::new();
    for (m, f) in fates {
        let e = per_op.entry(m.op).or_default();
        match f {
            Fate::Equivalent => e[1] += 1,
            // An undecided mutant counts against the score, as a survivor does.
            Fate::Survived | Fate::Stopped { .. } => e[2] += 1,
            _ => e[0] += 1,
        }
    }
    let _ = writeln!(
        out,
        "| operator | mutants | killed | equivalent | survived |\n|---|---:|---:|---:|---:|"
    );
    for (op, [k, e, s]) in &per_op {
        let _ = writeln!(out, "| {} | {} | {k} | {e} | {s} |", op.name(), k + e + s);
    }
    let _ = writeln!(out, "\n## Survivors that are not equivalent\n");
    let survivors: Vec<&Mutant> = fates
        .iter()
        .filter(|(_, f)| *f == Fate::Survived)
        .map(|(m, _)| m)
        .collect();
    if survivors.is_empty() {
        let _ = writeln!(out, "None.");
    } else {
        let _ = writeln!(out, "| mutant | why it survives |\n|---|---|");
        for m in survivors {
            let name = m.name();
            let why = SURVIVORS
                .iter()
                .find(|(n, _)| *n == name)
                .map_or("not analysed", |(_, why)| why);
            let _ = writeln!(out, "| `{name}` | {why} |");
        }
    }
    let _ = writeln!(out, "\n## Every mutant\n\n| mutant | fate |\n|---|---|");
    for (m, f) in fates {
        let _ = writeln!(out, "| `{}` | {} |", m.name(), fate_text(f));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_score_reads_on_the_side_of_its_target_that_the_exit_code_says() {
        use super::{meets, score_text};
        for (score, target, text) in [
            (97.4609, 97.5, "97.46"),
            (97.5, 97.5, "97.5"),
            (100.0 * 39.0 / 40.0, 97.5, "97.5"),
            (99.96, 100.0, "99.96"),
            (0.35, 0.4, "0.3"),
            (95.04, 95.0, "95.0"),
            (94.96, 95.0, "94.96"),
        ] {
            let shown = score_text(score, target);
            assert_eq!(shown, text, "{score} against {target}");
            assert_eq!(
                shown.parse::<f64>().unwrap() >= target,
                meets(score, target)
            );
        }
    }
}
