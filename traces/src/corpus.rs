//! The corpus of findings (`traces/corpus/`): one minimised trace per root cause, replayed by
//! a test on every run.
//!
//! A finding is a property the draft as written (`seed`) violates in some scenario. Findings
//! are grouped by property: `docs/known-findings.json` gives every (scenario, property) pair of
//! one property the same reason, so a property is one root cause. The corpus keeps, for each
//! violated property, the shortest counterexample over all scenarios (the first scenario in
//! name order on a tie), and `INDEX.md` lists the other scenarios that violate it too.

use std::path::Path;

use webmcp_model::machine::WebMcpModel;
use webmcp_model::{Variant, World};
use webmcp_profiles::{check, CheckOptions};

use crate::error::CorpusError;
use crate::export::{file_name, write_atomically};
use crate::minimize::minimize;
use crate::reader::Loaded;
use crate::trace::{Expect, Meta, Trace, TOOL};

/// One trace of the corpus.
#[derive(Clone, Debug)]
pub struct Entry {
    pub file: String,
    pub scenario: String,
    pub property: String,
    /// Actions of the checker's counterexample, and of the minimised trace.
    pub found: usize,
    pub kept: usize,
    pub bytes: usize,
    /// Every scenario that violates the property.
    pub also: Vec<String>,
}

/// A scenario to put in the corpus: the compiled world, where it came from, and its text.
pub struct Source {
    pub world: World,
    pub source: String,
    pub text: String,
}

/// Checks every scenario under `seed` (breadth-first, one thread), minimises each
/// counterexample, writes one trace per violated (scenario, property) into `dir`, removes
/// traces of findings that no longer occur, and writes `INDEX.md`.
pub fn regenerate(dir: &Path, sources: &[Source]) -> Result<Vec<Entry>, CorpusError> {
    // Before any work: a directory that holds another index is not ours to write into.
    let earlier = earlier_traces(dir)?;
    // Per property: the scenarios that violate it, and the shortest counterexample so far.
    let mut best: Vec<(&'static str, Vec<String>, Loaded)> = Vec::new();
    for src in sources {
        let model = WebMcpModel::new(src.world.clone(), Variant::SEED);
        let result = check(
            model.clone(),
            &CheckOptions {
                threads: 1,
                ..CheckOptions::default()
            },
        );
        if !result.exhaustive {
            return Err(CorpusError::NotExhaustive {
                scenario: src.world.name.clone(),
            });
        }
        for p in result.violations() {
            let Some(path) = &p.path else { continue };
            let actions: Vec<_> = path.iter().map(|s| s.action).collect();
            let meta = Meta {
                scenario: src.world.name.clone(),
                scenario_json: src.text.clone(),
                source: src.source.clone(),
                variant: "seed".into(),
                property: Some(p.def.name.to_string()),
                expect: Some(Expect::Violated),
                tool: TOOL.into(),
            };
            let trace = Trace::record(&model, meta, &actions)
                .map_err(|index| CorpusError::NotEnabled { index })?;
            let loaded = Loaded {
                trace,
                model: model.clone(),
                property: Some(p.def),
            };
            match best.iter_mut().find(|(name, _, _)| *name == p.def.name) {
                Some((_, also, l)) => {
                    also.push(src.world.name.clone());
                    if actions.len() < l.trace.actions.len() {
                        *l = loaded;
                    }
                }
                None => best.push((p.def.name, vec![src.world.name.clone()], loaded)),
            }
        }
    }
    std::fs::create_dir_all(dir).map_err(|source| CorpusError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut entries = Vec::new();
    for (property, also, loaded) in best {
        let min = minimize(&loaded).map_err(CorpusError::Minimize)?;
        let scenario = loaded.trace.meta.scenario.clone();
        let file = file_name(&scenario, "seed", property);
        let text = min.trace.to_json_text();
        write_atomically(&dir.join(&file), &text).map_err(CorpusError::Write)?;
        entries.push(Entry {
            file,
            scenario,
            property: property.to_string(),
            found: loaded.trace.actions.len(),
            kept: min.after,
            bytes: text.len(),
            also,
        });
    }
    entries.sort_by(|a, b| a.property.cmp(&b.property));
    // The traces the last regeneration listed and this one does not: findings that no longer
    // occur. Any other file is left alone, and so is a listed one that is not a trace of
    // this command's (the index is a file anyone can edit: it does not decide alone what
    // is deleted).
    let keep: Vec<&str> = entries.iter().map(|e| e.file.as_str()).collect();
    for name in earlier
        .iter()
        .filter(|n| !keep.contains(&n.as_str()) && is_corpus_trace(&dir.join(n)))
    {
        match std::fs::remove_file(dir.join(name)) {
            Err(source) if source.kind() != std::io::ErrorKind::NotFound => {
                return Err(CorpusError::Remove {
                    file: name.clone(),
                    source,
                })
            }
            _ => {}
        }
    }
    write_atomically(&dir.join(INDEX), &index(&entries)).map_err(CorpusError::Write)?;
    Ok(entries)
}

/// Whether `path` is a trace this command writes: a counterexample under `seed` whose
/// `#meta.tool` names webmcp-check (any version). Unreadable, missing or other: no.
fn is_corpus_trace(path: &Path) -> bool {
    let Ok(bytes) = crate::limits::read_limited(path, crate::limits::MAX_TRACE_BYTES) else {
        return false;
    };
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return false;
    };
    let meta = &doc["#meta"];
    meta["tool"]
        .as_str()
        .is_some_and(|t| t.starts_with("webmcp-check "))
        && meta["variant"] == "seed"
        && meta["verdict"] == Expect::Violated.as_str()
}

/// The index a regeneration writes beside its traces.
const INDEX: &str = "INDEX.md";

/// How [`index`] begins: an `INDEX.md` that does not is someone else's.
const INDEX_TITLE: &str = "# Corpus of findings\n";

/// The traces that `dir`'s index lists (none without an index, or without `dir`); an error
/// when `dir` holds an `INDEX.md` that this command did not write.
fn earlier_traces(dir: &Path) -> Result<Vec<String>, CorpusError> {
    let path = dir.join(INDEX);
    let text = match crate::limits::read_limited(&path, 1 << 20) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(crate::limits::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Vec::new())
        }
        Err(crate::limits::ReadError::Io(source)) => return Err(CorpusError::Io { path, source }),
        Err(crate::limits::ReadError::TooLarge) => String::new(),
    };
    if !text.starts_with(INDEX_TITLE) {
        return Err(CorpusError::NotACorpus {
            index: path,
            dir: dir.to_path_buf(),
        });
    }
    // Each row links its trace: `[scenario](FILE)`, a file name of this directory.
    Ok(text
        .lines()
        .filter_map(|line| line.split("](").nth(1)?.split(')').next())
        .filter(|f| f.ends_with(".itf.json") && !f.contains(['/', '\\']))
        .map(str::to_string)
        .collect())
}

fn index(entries: &[Entry]) -> String {
    let mut out = String::from(INDEX_TITLE);
    out.push_str(
        "\n\
         One minimised ITF trace per root cause: for every property the draft as written (`seed`)\n\
         violates, the shortest counterexample over all standard scenarios. `traces/tests/corpus.rs`\n\
         replays every trace on each test run and checks its verdict. Regenerate with\n\
         `cargo run --release -- corpus` (see `docs/traces.md`); do not edit by hand. Read one with\n\
         `webmcp-check explain FILE --format markdown`.\n\n\
         | property | actions | trace | violated in |\n|---|---:|---|---|\n",
    );
    for e in entries {
        out.push_str(&format!(
            "| `{}` | {} | [{}]({}) | {} |\n",
            e.property,
            e.kept,
            e.scenario,
            e.file,
            e.also.join(", ")
        ));
    }
    out
}

/// Every `.itf.json` file of a corpus directory, sorted.
pub fn files(dir: &Path) -> Result<Vec<std::path::PathBuf>, CorpusError> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .map_err(|source| CorpusError::Io {
            path: dir.to_path_buf(),
            source,
        })?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".itf.json"))
        .collect();
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("webmcp-corpus-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn an_unreadable_directory_keeps_its_io_error() {
        let dir = scratch("missing");
        let err = files(&dir).unwrap_err();
        let io = err
            .source()
            .and_then(|s| s.downcast_ref::<std::io::Error>())
            .expect("the io::Error is the source");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(err.to_string(), format!("{}: {io}", dir.display()));
    }

    #[test]
    fn another_index_is_refused_with_the_same_words() {
        let dir = scratch("other-index");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(INDEX), "# Something else\n").unwrap();
        let err = earlier_traces(&dir).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(err, CorpusError::NotACorpus { .. }), "{err:?}");
        assert!(err.source().is_none());
        assert_eq!(
            err.to_string(),
            format!(
                "{}: not a corpus index, so {} is not a corpus: give --dir a new or empty directory, or the corpus's own",
                dir.join(INDEX).display(),
                dir.display()
            )
        );
    }
}
