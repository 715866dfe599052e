//! `webmcp-check spec-sync PATH/index.bs`: what a revision of the draft changed, in terms of
//! the step IDs the model cites (docs/spec-sync.md).
//!
//! The parsing and the comparison are `webmcp-spec-sync`'s; this module binds them to the
//! model: the stored fingerprints (`spec/step-fingerprints.tsv`, embedded at build time), the
//! transitions that cite each step (`s!("id")` in `model/src/`, listed at build time), the
//! properties, fixes, failures and scenarios that name it. A drifted step that something cites
//! fails the run (exit 1): the model may no longer say what the draft says.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use serde_json::{json, Value};
use webmcp_spec_sync::{compare, parse_spec, read_store, write_store, Drift, SourceStep, Store};

use webmcp_model::error::{is_unprintable, markdown_code, markdown_text, printable_lines};

use crate::UsageError;

include!(concat!(env!("OUT_DIR"), "/step_citations.rs"));

/// The store the binary was built with: the fingerprints of the text the model follows.
const BUILT_IN_STORE: &str = include_str!("../spec/step-fingerprints.tsv");
const BUILT_IN_STORE_PATH: &str = "spec/step-fingerprints.tsv";

/// A source larger than this is refused before it is read (the parser's own limit).
const MAX_SOURCE_BYTES: u64 = webmcp_spec_sync::parse::MAX_INPUT as u64;
/// A store larger than this is refused before it is read.
const MAX_STORE_BYTES: u64 = 16 << 20;

pub const EXIT: &str = "\
Exit codes:
  0  no step the model cites drifted (drift in steps nothing cites is reported, not failed;
     with --accept: the store was written)
  1  a step the model cites was added before, removed, renumbered, changed or split, or is
     not in the store at all (unless --only-stored)
  2  bad usage or input: an unreadable, non-UTF-8 or oversized file, a malformed source or
     store, --label without --accept
  3  nothing judged: with --only-stored, the store has none of the steps the model cites";

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Markdown,
    Github,
}

#[derive(clap::Args)]
pub struct SpecSyncArgs {
    /// The draft's Bikeshed source (index.bs of webmachinelearning/webmcp).
    #[arg(value_name = "PATH")]
    source: PathBuf,
    /// The stored fingerprints to compare with [default: the table this binary was built with,
    /// spec/step-fingerprints.tsv].
    #[arg(long, value_name = "FILE")]
    store: Option<PathBuf>,
    /// Record the source as the new store: write its fingerprints to --store (default
    /// spec/step-fingerprints.tsv under the current directory), after reporting the drift.
    #[arg(long)]
    accept: bool,
    /// The label of the store's header line with --accept (default: the source's file name and
    /// the fingerprint of its bytes). One line; only with --accept.
    #[arg(long, value_name = "TEXT")]
    label: Option<String>,
    /// Judge only the cited steps the store has a row for: for a store of part of the draft
    /// (a test fixture). Without it, a cited step the store lacks fails the run; with it, the
    /// verdict says how many were not judged.
    #[arg(long)]
    only_stored: bool,
    /// How to print the report.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Who cites a step: the places that must be revisited when it drifts.
#[derive(Default)]
struct Citations {
    transitions: Vec<String>,
    properties: Vec<&'static str>,
    fixes: Vec<&'static str>,
    failures: Vec<&'static str>,
    scenarios: Vec<&'static str>,
    revisions: Vec<&'static str>,
}

impl Citations {
    fn of(id: &str) -> Citations {
        let mut c = Citations {
            transitions: STEP_CITATIONS
                .iter()
                .filter(|(cited, _, _)| *cited == id)
                .map(|(_, file, line)| format!("{file}:{line}"))
                .collect(),
            ..Citations::default()
        };
        for p in webmcp_profiles::properties() {
            if p.about.contains(&id) {
                c.properties.push(p.name);
            }
        }
        for f in webmcp_model::variant::FIXES {
            if f.steps.contains(&id) {
                c.fixes.push(f.name);
            }
        }
        for r in webmcp_model::variant::REVISIONS {
            if r.steps.contains(&id) {
                c.revisions.push(r.name);
            }
        }
        for f in webmcp_model::failures::EXECUTE_FAILURES {
            if f.detected_at == id {
                c.failures.push(f.cause);
            }
        }
        for (stem, text) in crate::catalog::SCENARIOS {
            if mentions(text, id) {
                c.scenarios.push(stem);
            }
        }
        c.failures.dedup();
        c
    }

    fn is_empty(&self) -> bool {
        self.transitions.is_empty()
            && self.properties.is_empty()
            && self.fixes.is_empty()
            && self.failures.is_empty()
            && self.scenarios.is_empty()
            && self.revisions.is_empty()
    }

    fn to_json(&self) -> Value {
        json!({
            "transitions": self.transitions,
            "properties": self.properties,
            "fixes": self.fixes,
            "failures": self.failures,
            "scenarios": self.scenarios,
            "revisions": self.revisions,
        })
    }

    /// "transitions model/src/…:61; properties p, q; …", or "nothing".
    fn sentence(&self) -> String {
        let mut parts = Vec::new();
        let mut add = |name: &str, items: Vec<String>| {
            if !items.is_empty() {
                parts.push(format!("{name} {}", items.join(", ")));
            }
        };
        add("transitions", self.transitions.clone());
        add("properties", strings(&self.properties));
        add("fixes", strings(&self.fixes));
        add("revisions", strings(&self.revisions));
        add("failures", strings(&self.failures));
        add("scenarios", strings(&self.scenarios));
        if parts.is_empty() {
            "nothing".into()
        } else {
            parts.join("; ")
        }
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Whether `text` names the step `id` (not a longer ID it is a prefix of).
fn mentions(text: &str, id: &str) -> bool {
    text.match_indices(id).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + id.len()..].chars().next();
        let joins =
            |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':');
        let continues = after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '[')
            || text[at + id.len()..].starts_with('.')
                && text[at + id.len() + 1..].starts_with(|c: char| c.is_ascii_alphanumeric());
        !joins(before) && !continues
    })
}

/// One drifted step of the report.
struct Entry {
    /// added, removed, renumbered, changed, split.
    what: &'static str,
    /// The ID the model knows (the stored one); for an added step, the new ID.
    old_id: String,
    /// The ID(s) in the source, if any.
    new_ids: Vec<String>,
    old_text: Option<String>,
    new_text: Option<String>,
    line: Option<usize>,
    cited: Citations,
}

impl Entry {
    /// A drifted step: what the model knows of `old_id` (our paraphrase, and what cites it)
    /// beside what the source now has.
    fn of(
        what: &'static str,
        old_id: &str,
        new_ids: Vec<String>,
        new_text: Option<String>,
        line: Option<usize>,
    ) -> Entry {
        Entry {
            what,
            old_id: old_id.to_string(),
            new_ids,
            old_text: paraphrase(old_id),
            new_text,
            line,
            cited: Citations::of(old_id),
        }
    }
}

fn entries(drift: &Drift, lines: &dyn Fn(&str) -> Option<usize>) -> Vec<Entry> {
    let mut out = Vec::new();
    for a in &drift.added {
        // A new step is cited by nothing yet, unless the model already uses its ID for
        // another step: then what cites it is now about a different text.
        let entry = Entry::of(
            "added",
            &a.id,
            vec![a.id.clone()],
            Some(a.text.clone()),
            Some(a.line),
        );
        out.push(Entry {
            old_text: None,
            ..entry
        });
    }
    for r in &drift.removed {
        out.push(Entry::of("removed", &r.id, vec![], None, None));
    }
    for r in &drift.renumbered {
        out.push(Entry::of(
            "renumbered",
            &r.old_id,
            vec![r.new_id.clone()],
            Some(r.text.clone()),
            lines(&r.new_id),
        ));
    }
    for c in &drift.changed {
        out.push(Entry::of(
            "changed",
            &c.old_id,
            vec![c.new_id.clone()],
            Some(c.new_text.clone()),
            lines(&c.new_id),
        ));
    }
    for s in &drift.split {
        let texts: Vec<&str> = s.new.iter().map(|(_, t)| t.as_str()).collect();
        out.push(Entry::of(
            "split",
            &s.old_id,
            s.new.iter().map(|(id, _)| id.clone()).collect(),
            Some(texts.join(" / ")),
            s.new.first().and_then(|(id, _)| lines(id)),
        ));
    }
    out
}

/// Every step ID something of the model cites (the step table, transitions, properties,
/// fixes, revisions, failures), repeats included; revision IDs (`2026-08:...`) among them.
fn cited() -> impl Iterator<Item = &'static str> {
    webmcp_model::steps::STEPS
        .iter()
        .map(|s| s.id)
        .chain(STEP_CITATIONS.iter().map(|(id, _, _)| *id))
        .chain(
            webmcp_profiles::properties()
                .iter()
                .flat_map(|p| p.about.iter().copied()),
        )
        .chain(
            webmcp_model::variant::FIXES
                .iter()
                .flat_map(|f| f.steps.iter().copied()),
        )
        .chain(
            webmcp_model::variant::REVISIONS
                .iter()
                .flat_map(|r| r.steps.iter().copied()),
        )
        .chain(
            webmcp_model::failures::EXECUTE_FAILURES
                .iter()
                .map(|f| f.detected_at),
        )
}

/// Every step ID the model cites that the store has no row for, and that no entry already
/// reports as added: the comparison cannot say whether it drifted. With the built-in store
/// (every row of the step table) there is none; a store recorded from another source may lack
/// hundreds, and judging only what it has would pass a run that checked nothing. Rows of an
/// earlier text (`2026-08:…`) are left out, as the built-in store leaves them out.
fn missing(stored: &BTreeSet<&str>, source: &[SourceStep], drift: &Drift) -> Vec<Entry> {
    let added: BTreeSet<&str> = drift.added.iter().map(|a| a.id.as_str()).collect();
    let in_source: HashMap<&str, &SourceStep> = source.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for id in cited() {
        if id.contains(':') || stored.contains(id) || added.contains(id) || !seen.insert(id) {
            continue;
        }
        let now = in_source.get(id);
        let entry = Entry::of(
            "missing",
            id,
            now.map(|s| vec![s.id.clone()]).unwrap_or_default(),
            now.map(|s| s.text.clone()),
            now.map(|s| s.line),
        );
        if !entry.cited.is_empty() {
            out.push(entry);
        }
    }
    out
}

/// What a step said, in our paraphrase (the step table's summary): the store keeps no text of
/// the draft.
fn paraphrase(id: &str) -> Option<String> {
    webmcp_model::steps::StepId::parse(id)
        .map(|s| s.info().summary)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn read_limited(path: &Path, max: u64, what: &str) -> Result<String, UsageError> {
    let meta = std::fs::metadata(path)
        .map_err(|e| UsageError(format!("cannot read {what} {}: {e}", path.display())))?;
    if !meta.is_file() {
        return Err(UsageError(format!(
            "{what} {} is not a file",
            path.display()
        )));
    }
    if meta.len() > max {
        return Err(UsageError(format!(
            "{what} {} is {} bytes, more than the {max} this command reads",
            path.display(),
            meta.len()
        )));
    }
    let bytes = std::fs::read(path)
        .map_err(|e| UsageError(format!("cannot read {what} {}: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|e| {
        UsageError(format!(
            "{what} {} is not UTF-8 (byte {} is invalid)",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

pub fn spec_sync(args: &SpecSyncArgs) -> Result<ExitCode, UsageError> {
    // Arguments first, so that a bad one costs no work and prints no report. (clap's
    // `requires` would do for the first, but its error names the missing flag on a second
    // line, which the one-line rendering in main drops.)
    if args.label.is_some() && !args.accept {
        return Err(UsageError(
            "--label names the store that --accept writes; without --accept nothing is written"
                .into(),
        ));
    }
    if args
        .label
        .as_deref()
        .is_some_and(|l| l.chars().any(is_unprintable))
    {
        return Err(UsageError(
            "--label must be one line of text, without control characters or bidirectional overrides".into(),
        ));
    }
    let target = args
        .store
        .clone()
        .unwrap_or_else(|| PathBuf::from(BUILT_IN_STORE_PATH));
    let out = if args.accept {
        crate::output_file(Some(&target))?
    } else {
        None
    };
    let text = read_limited(&args.source, MAX_SOURCE_BYTES, "source")?;
    let parsed =
        parse_spec(&text).map_err(|e| UsageError(format!("{}: {e}", args.source.display())))?;
    // A file with no algorithm at all is not a revision of the draft: comparing it would report
    // every step removed, and --accept would record an empty table.
    if parsed.algorithms.is_empty() {
        return Err(UsageError(format!(
            "{} has no <div algorithm> block: it is not the draft's Bikeshed source (index.bs)",
            args.source.display()
        )));
    }
    let (store_text, store_name) = match &args.store {
        Some(path) if !args.accept || path.exists() => (
            read_limited(path, MAX_STORE_BYTES, "store")?,
            path.display().to_string(),
        ),
        _ => (
            BUILT_IN_STORE.to_string(),
            format!("{BUILT_IN_STORE_PATH} (built in)"),
        ),
    };
    let store: Store =
        read_store(&store_text).map_err(|e| UsageError(format!("{store_name}: {e}")))?;
    let drift = compare(&store.steps, &parsed.steps);
    let line_of: HashMap<&str, usize> = parsed
        .steps
        .iter()
        .map(|s| (s.id.as_str(), s.line))
        .collect();
    let lines = |id: &str| line_of.get(id).copied();
    let mut entries = entries(&drift, &lines);
    let stored: BTreeSet<&str> = store.steps.iter().map(|s| s.id.as_str()).collect();
    let missing = missing(&stored, &parsed.steps, &drift);
    let judged_any = cited().any(|id| stored.contains(id));
    let unjudged = if args.only_stored {
        missing.len()
    } else {
        entries.extend(missing);
        0
    };
    let failing = entries.iter().filter(|e| fails(e)).count();
    let source_name = args.source.display().to_string();
    let report = Report {
        source: &source_name,
        store: &store,
        store_name: &store_name,
        steps: parsed.steps.len(),
        drift: &drift,
        entries: &entries,
        failing,
        unjudged,
        judged_any,
    };
    let rendered = match args.format {
        // What the source and the store quote (step text, the store's label) is shown with
        // its control characters and bidirectional overrides escaped.
        Format::Human => printable_lines(&report.human()),
        Format::Json => serde_json::to_string_pretty(&report.json()).expect("JSON") + "\n",
        Format::Markdown => printable_lines(&report.markdown()),
        Format::Github => printable_lines(&report.github()),
    };
    out!("{rendered}");
    if args.accept {
        let label = args.label.clone().unwrap_or_else(|| {
            let name = args
                .source
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_else(|| source_name.clone());
            format!(
                "{name} fnv1a64:{}",
                webmcp_spec_sync::Fingerprint::of(&text)
            )
        });
        crate::write_output(out, &write_store(&label, &parsed.steps))?;
        errln!(
            "webmcp-check: wrote {} steps to {}; the model's step table \
             (model/src/steps/table.rs) and spec/webmcp-algorithms.md must follow it",
            parsed.steps.len(),
            target.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    Ok(if failing > 0 {
        ExitCode::from(1)
    } else if report.nothing_judged() {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

/// Whether a drifted step fails the run: something the model has cites it.
fn fails(e: &Entry) -> bool {
    !e.cited.is_empty()
}

struct Report<'a> {
    source: &'a str,
    store: &'a Store,
    store_name: &'a str,
    steps: usize,
    drift: &'a Drift,
    entries: &'a [Entry],
    failing: usize,
    /// Cited steps the store lacks, left out by --only-stored.
    unjudged: usize,
    /// Whether the store has any step the model cites.
    judged_any: bool,
}

impl Report<'_> {
    /// With --only-stored, a store that has none of the cited steps: nothing was judged,
    /// which is never a pass.
    fn nothing_judged(&self) -> bool {
        self.unjudged > 0 && !self.judged_any
    }

    fn counts(&self) -> String {
        let d = self.drift;
        let mut counts = format!(
            "{} added, {} removed, {} renumbered, {} changed, {} split",
            d.added.len(),
            d.removed.len(),
            d.renumbered.len(),
            d.changed.len(),
            d.split.len()
        );
        if self.missing() > 0 {
            counts += &format!(", {} cited but not in the store", self.missing());
        }
        counts
    }

    /// How many entries are cited steps the store lacks (see [`missing`]).
    fn missing(&self) -> usize {
        self.entries.iter().filter(|e| e.what == "missing").count()
    }

    /// One line per algorithm the comparison paired by ID only.
    fn coarse(&self) -> Vec<String> {
        self.drift
            .coarse
            .iter()
            .map(|c| format!("coarse: {c}"))
            .collect()
    }

    fn headline(&self) -> String {
        format!(
            "{} ({} steps) against {} ({}): {}",
            self.source,
            self.steps,
            self.store_name,
            self.store.source,
            self.counts()
        )
    }

    fn verdict(&self) -> String {
        let missing = self.missing();
        let drifted = self.failing - missing;
        if drifted > 0 {
            let also = if missing > 0 {
                format!(" (and {missing} cited step(s) are not in the store)")
            } else {
                String::new()
            };
            format!(
                "exit 1: {drifted} drifted step(s) are cited by the model{also}; update \
                 spec/webmcp-algorithms.md, the step table and what cites them, then record \
                 the source with --accept"
            )
        } else if missing > 0 {
            format!(
                "exit 1: {missing} step(s) the model cites are not in the store, so whether they \
                 drifted is unknown; compare with a store recorded from the text the model \
                 follows (the built-in one is)"
            )
        } else {
            let pass = if self.drift.is_empty() {
                "no drift: the model's step IDs still name the draft's steps"
            } else {
                "no step the model cites drifted"
            };
            if self.nothing_judged() {
                format!(
                    "exit 3: nothing judged: the store has none of the {} step(s) the model \
                     cites (--only-stored judges only those it has)",
                    self.unjudged
                )
            } else if self.unjudged > 0 {
                format!(
                    "{pass}, of those the store has (--only-stored: {} cited step(s) not in \
                     the store were not judged)",
                    self.unjudged
                )
            } else {
                pass.into()
            }
        }
    }

    fn ids(e: &Entry) -> String {
        if e.new_ids.is_empty() || e.new_ids == [e.old_id.clone()] {
            e.old_id.clone()
        } else {
            format!("{} -> {}", e.old_id, e.new_ids.join(", "))
        }
    }

    fn human(&self) -> String {
        let mut out = format!("{}\n", self.headline());
        for slug in &self.drift.new_algorithms {
            out += &format!("new algorithm: {slug}\n");
        }
        for slug in &self.drift.removed_algorithms {
            out += &format!("removed algorithm: {slug}\n");
        }
        for line in self.coarse() {
            out += &format!("{line}\n");
        }
        for e in self.entries {
            let line = e.line.map(|l| format!(" (line {l})")).unwrap_or_default();
            out += &format!("{:<10} {}{line}\n", e.what, Self::ids(e));
            if e.what == "changed" || e.what == "split" {
                out += &format!(
                    "           was (our paraphrase): {}\n           now: {}\n",
                    e.old_text.as_deref().unwrap_or("(no paraphrase)"),
                    e.new_text.as_deref().unwrap_or("")
                );
            } else if e.what == "added" {
                out += &format!("           text: {}\n", e.new_text.as_deref().unwrap_or(""));
            } else if e.what == "missing" {
                out += if e.new_ids.is_empty() {
                    "           in neither the store nor the source\n"
                } else {
                    "           not in the store; the source has a step of that ID, paired with \
                     another stored step\n"
                };
            }
            out += &format!("           cited by: {}\n", e.cited.sentence());
        }
        out += &self.verdict();
        out.push('\n');
        out
    }

    fn json(&self) -> Value {
        json!({
            "source": self.source,
            "store": self.store_name,
            "store_label": self.store.source,
            "steps": self.steps,
            "new_algorithms": self.drift.new_algorithms,
        "removed_algorithms": self.drift.removed_algorithms,
            "coarse": self.drift.coarse.iter().map(|c| json!({
                "algorithm": c.slug,
                "stored": c.stored,
                "source": c.source,
            })).collect::<Vec<_>>(),
            "drift": self.entries.iter().map(|e| json!({
                "kind": e.what,
                "id": e.old_id,
                "new_ids": e.new_ids,
                "paraphrase": e.old_text,
                "new_text": e.new_text,
                "line": e.line,
                "cited_by": e.cited.to_json(),
                "fails": fails(e),
            })).collect::<Vec<_>>(),
            "failing": self.failing,
            "unjudged": self.unjudged,
            "exit": if self.failing > 0 { 1 } else if self.nothing_judged() { 3 } else { 0 },
        })
    }

    fn markdown(&self) -> String {
        let mut out = format!(
            "## Spec drift: {}\n\n{} ({} steps) against {} ({}).\n\n",
            self.counts(),
            markdown_code(self.source),
            self.steps,
            markdown_code(self.store_name),
            markdown_code(&self.store.source)
        );
        for slug in &self.drift.new_algorithms {
            out += &format!("- new algorithm: `{slug}`\n");
        }
        for slug in &self.drift.removed_algorithms {
            out += &format!("- removed algorithm: `{slug}`\n");
        }
        for line in self.coarse() {
            out += &format!("- {line}\n");
        }
        if !self.entries.is_empty() {
            out += "| drift | step | line | text now | cited by |\n|---|---|---:|---|---|\n";
            for e in self.entries {
                out += &format!(
                    "| {}{} | `{}` | {} | {} | {} |\n",
                    e.what,
                    if fails(e) { " ❌" } else { "" },
                    Self::ids(e),
                    e.line.map(|l| l.to_string()).unwrap_or_default(),
                    cell(e.new_text.as_deref().unwrap_or("—")),
                    cell(&e.cited.sentence())
                );
            }
            out.push('\n');
        }
        out += &self.verdict();
        out.push('\n');
        out
    }

    /// GitHub workflow commands: an error per failing step, a warning per other drift, each
    /// anchored at its line of the source.
    fn github(&self) -> String {
        let mut out = String::new();
        for line in self.coarse() {
            out += &format!(
                "::warning file={}::{}\n",
                escape_property(self.source),
                escape_data(&line)
            );
        }
        for e in self.entries {
            let level = if fails(e) { "error" } else { "warning" };
            let at = match e.line {
                Some(l) => format!(" file={},line={l}", escape_property(self.source)),
                None => format!(" file={}", escape_property(self.source)),
            };
            out += &format!(
                "::{level}{at},title={}::{}\n",
                escape_property(&format!("{} {}", e.what, Self::ids(e))),
                escape_data(&format!(
                    "{} {}; cited by {}",
                    e.what,
                    Self::ids(e),
                    e.cited.sentence()
                ))
            );
        }
        out += &format!("{}\n{}\n", self.headline(), self.verdict());
        out
    }
}

/// A table cell's text: one line, with nothing Markdown or HTML reads as markup.
fn cell(text: &str) -> String {
    markdown_text(&text.replace('\n', " "))
}

/// GitHub's escaping of a workflow command's message.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// GitHub's escaping of a workflow command's property value.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mention_is_the_whole_id() {
        assert!(mentions("at execute-tool#16.1, then", "execute-tool#16.1"));
        assert!(mentions("(execute-tool#16.1)", "execute-tool#16.1"));
        assert!(mentions("execute-tool#16.1.", "execute-tool#16.1"));
        assert!(!mentions("execute-tool#16.10", "execute-tool#16.1"));
        assert!(!mentions("execute-tool#16.1.issue-1", "execute-tool#16.1"));
        assert!(!mentions("un-execute-tool#16.1", "execute-tool#16.1"));
        assert!(!mentions("2026-08:execute-tool#3", "execute-tool#3"));
    }

    #[test]
    fn every_citation_of_the_model_is_a_step_of_the_table() {
        assert!(STEP_CITATIONS.len() > 100);
        for (id, file, line) in STEP_CITATIONS {
            assert!(
                webmcp_model::steps::StepId::parse(id).is_some(),
                "{file}:{line} cites {id}, not a row of the step table"
            );
        }
    }

    #[test]
    fn the_built_in_store_is_the_step_table_of_the_current_text() {
        let store = read_store(BUILT_IN_STORE).unwrap();
        let stored: Vec<&str> = store.steps.iter().map(|s| s.id.as_str()).collect();
        let table: Vec<&str> = webmcp_model::steps::STEPS
            .iter()
            .map(|s| s.id)
            .filter(|id| !id.starts_with("2026-08:"))
            .collect();
        assert_eq!(stored, table);
    }

    #[test]
    fn github_commands_escape_what_would_end_them() {
        assert_eq!(escape_data("a%b\nc"), "a%25b%0Ac");
        assert_eq!(escape_property("x:y,z"), "x%3Ay%2Cz");
    }
}
