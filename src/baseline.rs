//! The known-findings baseline (`docs/known-findings.json`): violations a spec repository has
//! accepted for now, so CI fails only on new ones and reports listed ones that went away.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use webmcp_model::variant::VariantError;
use webmcp_profiles::Verdict;

use crate::report::ScenarioRecord;

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub scenario: String,
    pub property: String,
    pub variant: String,
    pub reason: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub version: u32,
    pub findings: Vec<Finding>,
}

/// The largest baseline file `check --baseline` reads (1 MiB; `docs/known-findings.json`
/// is 18 KB). Only `limit + 1` bytes are read, so `/dev/zero` or a pipe is refused too.
pub const MAX_BASELINE_BYTES: u64 = 1024 * 1024;
/// The longest scenario, property or variant name a finding may give (in characters).
pub const MAX_NAME_CHARS: usize = 200;
/// The longest reason a finding may give (in characters).
pub const MAX_REASON_CHARS: usize = 4000;

/// Why a baseline file cannot be used: each names the file, and for a finding its index
/// and field.
#[derive(Debug)]
pub enum BaselineError {
    /// The file cannot be read.
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file has more than `limit` bytes (only `limit + 1` were read).
    TooLarge { path: PathBuf, limit: u64 },
    /// The file is not UTF-8 text.
    NotUtf8 { path: PathBuf },
    /// The file's JSON is not an object (a list, a string, ...).
    NotObject { path: PathBuf },
    /// The file is not JSON of a baseline.
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// A `version` other than 1.
    Version { path: PathBuf, version: u32 },
    /// `findings[index].field` is longer than `max` characters.
    TooLong {
        path: PathBuf,
        index: usize,
        field: &'static str,
        max: usize,
    },
    /// `findings[index].field` contains a control character.
    ControlCharacter {
        path: PathBuf,
        index: usize,
        field: &'static str,
    },
    /// `findings[index].variant` is a variant runs print as `printed`, so it would match no
    /// run.
    VariantNotAsPrinted {
        path: PathBuf,
        index: usize,
        variant: String,
        printed: String,
    },
    /// `findings[index].variant` is not a variant.
    Variant {
        path: PathBuf,
        index: usize,
        source: VariantError,
    },
    /// `findings[index].property` is no property of the catalogue.
    UnknownProperty {
        path: PathBuf,
        index: usize,
        property: String,
    },
    /// `findings[index]` names the scenario, property and variant `findings[first]` names.
    Duplicate {
        path: PathBuf,
        index: usize,
        first: usize,
    },
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use webmcp_traces::limits::{one_line, size_text};
        match self {
            BaselineError::Read { path, source } => {
                write!(f, "{}: cannot read the baseline: {source}", path.display())
            }
            BaselineError::TooLarge { path, limit } => write!(
                f,
                "{}: larger than {}, the limit for a baseline file; not read",
                path.display(),
                size_text(*limit)
            ),
            BaselineError::NotUtf8 { path } => write!(
                f,
                "{}: not a known-findings file (not UTF-8 text)",
                path.display()
            ),
            BaselineError::NotObject { path } => write!(
                f,
                "{}: not a known-findings file (its JSON must be an object: {{\"version\": 1, \"findings\": [...]}})",
                path.display()
            ),
            BaselineError::Json { path, source } => write!(
                f,
                "{}: line {}, column {}: not a known-findings file ({})",
                path.display(),
                source.line(),
                source.column(),
                // The message can quote the file (an unknown field, a wrong value): keep it
                // to one short line.
                one_line(first_clause(&source.to_string()), 160)
            ),
            BaselineError::Version { path, version } => write!(
                f,
                "{}: unsupported version {version} (expected 1)",
                path.display()
            ),
            BaselineError::TooLong {
                path,
                index,
                field,
                max,
            } => write!(
                f,
                "{}: findings[{index}].{field} is longer than {max} characters: not a known-findings file",
                path.display()
            ),
            BaselineError::ControlCharacter { path, index, field } => write!(
                f,
                "{}: findings[{index}].{field} contains a control character: not a known-findings file",
                path.display()
            ),
            BaselineError::VariantNotAsPrinted {
                path,
                index,
                variant,
                printed,
            } => write!(
                f,
                "{}: findings[{index}].variant is \"{}\", which runs print as \"{printed}\": write that, or it matches no run",
                path.display(),
                variant.escape_debug()
            ),
            BaselineError::Variant {
                path,
                index,
                source,
            } => write!(f, "{}: findings[{index}].variant: {source}", path.display()),
            BaselineError::UnknownProperty {
                path,
                index,
                property,
            } => write!(
                f,
                "{}: findings[{index}].property is \"{property}\", which is no property of the catalogue (`webmcp-check check --verbose` lists them)",
                path.display()
            ),
            BaselineError::Duplicate { path, index, first } => write!(
                f,
                "{}: findings[{index}] lists the scenario, property and variant of findings[{first}] again: keep one",
                path.display()
            ),
        }
    }
}

impl std::error::Error for BaselineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BaselineError::Read { source, .. } => Some(source),
            BaselineError::Json { source, .. } => Some(source),
            BaselineError::Variant { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl Baseline {
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        use webmcp_traces::limits::{read_limited, ReadError};
        let path_buf = || path.to_path_buf();
        let bytes = read_limited(path, MAX_BASELINE_BYTES).map_err(|e| match e {
            ReadError::Io(source) => BaselineError::Read {
                path: path_buf(),
                source,
            },
            ReadError::TooLarge => BaselineError::TooLarge {
                path: path_buf(),
                limit: MAX_BASELINE_BYTES,
            },
        })?;
        let text =
            String::from_utf8(bytes).map_err(|_| BaselineError::NotUtf8 { path: path_buf() })?;
        // A struct also reads from a JSON list (field by field), whose errors would name
        // the fields' types rather than the file's shape.
        let first = text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .chars()
            .next();
        if first.is_some_and(|c| c != '{') {
            return Err(BaselineError::NotObject { path: path_buf() });
        }
        let b: Baseline = serde_json::from_str(&text).map_err(|source| BaselineError::Json {
            path: path_buf(),
            source,
        })?;
        if b.version != 1 {
            return Err(BaselineError::Version {
                path: path_buf(),
                version: b.version,
            });
        }
        let mut seen = std::collections::HashMap::new();
        for (index, f) in b.findings.iter().enumerate() {
            for (field, value, max) in [
                ("scenario", &f.scenario, MAX_NAME_CHARS),
                ("property", &f.property, MAX_NAME_CHARS),
                ("variant", &f.variant, MAX_NAME_CHARS),
                ("reason", &f.reason, MAX_REASON_CHARS),
            ] {
                if value.chars().count() > max {
                    return Err(BaselineError::TooLong {
                        path: path_buf(),
                        index,
                        field,
                        max,
                    });
                }
                if value.chars().any(char::is_control) && field != "reason" {
                    return Err(BaselineError::ControlCharacter {
                        path: path_buf(),
                        index,
                        field,
                    });
                }
            }
            // Nor would a variant no run prints: a finding matches a run by the variant's
            // printed name (`seed@current` is printed `seed`).
            match webmcp_model::variant::Variant::parse(&f.variant) {
                Ok(v) if v.name() == f.variant => {}
                Ok(v) => {
                    return Err(BaselineError::VariantNotAsPrinted {
                        path: path_buf(),
                        index,
                        variant: f.variant.clone(),
                        printed: v.name(),
                    })
                }
                Err(source) => {
                    return Err(BaselineError::Variant {
                        path: path_buf(),
                        index,
                        source,
                    })
                }
            }
            // A misspelt property would match nothing and silence nothing, unnoticed until
            // the violation it meant to list fails the run.
            if !webmcp_profiles::properties()
                .iter()
                .any(|p| p.name == f.property)
            {
                return Err(BaselineError::UnknownProperty {
                    path: path_buf(),
                    index,
                    property: f.property.clone(),
                });
            }
            // A second entry for the same violation is dead text whose reason may disagree
            // with the first's (`lists` finds the first).
            let key = (f.scenario.as_str(), f.property.as_str(), f.variant.as_str());
            if let Some(&first) = seen.get(&key) {
                return Err(BaselineError::Duplicate {
                    path: path_buf(),
                    index,
                    first,
                });
            }
            seen.insert(key, index);
        }
        Ok(b)
    }

    pub fn lists(&self, scenario: &str, property: &str, variant: &str) -> Option<&Finding> {
        self.findings
            .iter()
            .find(|f| f.scenario == scenario && f.property == property && f.variant == variant)
    }
}

fn first_clause(msg: &str) -> &str {
    msg.split(" at line ").next().unwrap_or(msg)
}

/// How a run compares with a baseline.
#[derive(Debug, Default)]
pub struct Judgement {
    /// Violations the baseline does not list: (scenario, property).
    pub new: Vec<(String, String)>,
    /// Violations the baseline lists.
    pub known: Vec<(String, String)>,
    /// Listed findings of a checked scenario and variant that did not occur.
    pub stale: Vec<Finding>,
}

pub fn judge(results: &[ScenarioRecord], baseline: Option<&Baseline>) -> Judgement {
    let mut j = Judgement::default();
    for r in results {
        for p in r.violations() {
            let key = (r.scenario.clone(), p.def.name.to_string());
            match baseline.and_then(|b| b.lists(&r.scenario, p.def.name, &r.variant)) {
                Some(_) => j.known.push(key),
                None => j.new.push(key),
            }
        }
    }
    if let Some(b) = baseline {
        for f in &b.findings {
            let checked = results
                .iter()
                .find(|r| r.scenario == f.scenario && r.variant == f.variant);
            if let Some(r) = checked {
                let still = r.properties.iter().any(|p| {
                    p.def.name == f.property
                        && matches!(p.verdict, Verdict::Violated | Verdict::Incomplete)
                });
                if !still {
                    j.stale.push(f.clone());
                }
            }
        }
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(name: &str, text: &[u8]) -> Result<Baseline, BaselineError> {
        let dir = std::env::temp_dir().join(format!("webmcp-baseline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        Baseline::load(&path)
    }

    fn one_line_error(name: &str, text: &[u8]) -> String {
        let e = load_text(name, text).unwrap_err().to_string();
        assert!(!e.contains('\n') && !e.contains('\u{1b}'), "{e}");
        assert!(e.len() < 400, "{} characters: {e:.400}", e.len());
        e
    }

    #[test]
    fn the_known_findings_file_loads() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/known-findings.json");
        assert!(!Baseline::load(&path).unwrap().findings.is_empty());
    }

    #[test]
    fn dev_zero_and_large_files_are_refused_naming_the_limit() {
        let e = Baseline::load(std::path::Path::new("/dev/zero")).unwrap_err();
        assert!(
            matches!(&e, BaselineError::TooLarge { limit, .. } if *limit == MAX_BASELINE_BYTES),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "/dev/zero: larger than 1 MiB, the limit for a baseline file; not read"
        );
        let big = vec![b' '; MAX_BASELINE_BYTES as usize + 1];
        assert!(one_line_error("big.json", &big).contains("larger than 1 MiB"));
    }

    #[test]
    fn json_that_is_not_an_object_is_named_as_such() {
        for text in ["[[1], []]", "[1, []]", "\"findings\"", "  7"] {
            let e = one_line_error("shape.json", text.as_bytes());
            assert!(
                e.ends_with("(its JSON must be an object: {\"version\": 1, \"findings\": [...]})"),
                "{text}: {e}"
            );
        }
        // An object keeps the reader's own words, with the line and column.
        let e = one_line_error("object.json", b"{\"version\": [1]}");
        assert!(e.contains("line 1, column"), "{e}");
    }

    #[test]
    fn hostile_contents_get_one_short_line() {
        let huge = "x".repeat(500_000);
        let e = one_line_error(
            "field.json",
            format!("{{\"version\": 1, \"findings\": [], \"\\u001b{huge}\": 1}}").as_bytes(),
        );
        assert!(e.contains("unknown field"), "{e}");
        let e = one_line_error(
            "version.json",
            format!("{{\"version\": \"{huge}\", \"findings\": []}}").as_bytes(),
        );
        assert!(e.contains("invalid type"), "{e}");
        let nested = format!("{{\"version\": 1, \"findings\": {}}}", "[".repeat(100_000));
        assert!(
            one_line_error("nested.json", nested.as_bytes()).contains("not a known-findings file")
        );
        let finding = |field: &str, value: &str| {
            let mut f = serde_json::json!({"scenario": "s", "property": "p", "variant": "seed", "reason": "r"});
            f[field] = serde_json::json!(value);
            serde_json::json!({"version": 1, "findings": [f]}).to_string()
        };
        let e = one_line_error("reason.json", finding("reason", &huge).as_bytes());
        assert!(
            e.contains("findings[0].reason is longer than 4000 characters"),
            "{e}"
        );
        let e = one_line_error("name.json", finding("scenario", "a\u{1b}[2J").as_bytes());
        assert!(
            e.contains("findings[0].scenario contains a control character"),
            "{e}"
        );
        assert!(one_line_error("binary.json", &[0xff, 0xfe]).contains("not UTF-8"));
        let e = one_line_error("v2.json", br#"{"version": 2, "findings": []}"#);
        assert!(e.contains("unsupported version 2"), "{e}");
        let real = |field: &str, value: &str| {
            let mut f = serde_json::json!({"scenario": "s", "property": "execute-settles-once", "variant": "seed", "reason": "r"});
            f[field] = serde_json::json!(value);
            serde_json::json!({"version": 1, "findings": [f]}).to_string()
        };
        assert!(load_text("real.json", real("variant", "seed").as_bytes()).is_ok());
        assert!(load_text("fixed.json", real("variant", "proposed").as_bytes()).is_ok());
        let e = one_line_error("zzz.json", real("variant", "zzz").as_bytes());
        assert!(e.contains("findings[0].variant"), "{e}");
        let e = one_line_error("current.json", real("variant", "seed@current").as_bytes());
        assert!(e.contains("which runs print as \"seed\""), "{e}");
        let e = one_line_error(
            "typo.json",
            finding("property", "execute-settles-twice").as_bytes(),
        );
        assert!(
            e.contains(
                "findings[0].property is \"execute-settles-twice\", which is no property of the catalogue"
            ),
            "{e}"
        );
        let known = finding("property", "execute-settles-once");
        assert!(load_text("known.json", known.as_bytes()).is_ok());
        // The same violation listed twice (whatever the reasons) is refused; the same
        // scenario and property under another variant is another finding.
        let entry = |variant: &str, reason: &str| serde_json::json!({"scenario": "s", "property": "execute-settles-once", "variant": variant, "reason": reason});
        let twice = serde_json::json!({"version": 1, "findings": [entry("seed", "a"), entry("proposed", "b"), entry("seed", "c")]});
        let e = one_line_error("twice.json", twice.to_string().as_bytes());
        assert!(
            e.contains("findings[2] lists the scenario, property and variant of findings[0] again"),
            "{e}"
        );
        let apart = serde_json::json!({"version": 1, "findings": [entry("seed", "a"), entry("proposed", "b")]});
        assert!(load_text("apart.json", apart.to_string().as_bytes()).is_ok());
    }

    /// A baseline that is not there keeps the I/O error (NotFound) as its cause; a variant
    /// that does not parse keeps the variant's error.
    #[test]
    fn errors_keep_their_cause() {
        use std::error::Error as _;
        let missing = std::env::temp_dir().join(format!(
            "webmcp-no-such-baseline-{}.json",
            std::process::id()
        ));
        let e = Baseline::load(&missing).unwrap_err();
        assert!(
            matches!(&e, BaselineError::Read { path, .. } if *path == missing),
            "{e:?}"
        );
        let io = e
            .source()
            .and_then(|s| s.downcast_ref::<std::io::Error>())
            .expect("an I/O error as the source");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
        assert!(
            e.to_string().contains(": cannot read the baseline: "),
            "{e}"
        );
        let text = serde_json::json!({"version": 1, "findings": [
            {"scenario": "s", "property": "execute-settles-once", "variant": "zzz", "reason": "r"}
        ]})
        .to_string();
        let e = load_text("cause.json", text.as_bytes()).unwrap_err();
        assert!(
            matches!(&e, BaselineError::Variant { index: 0, .. }),
            "{e:?}"
        );
        assert!(e.source().is_some_and(|s| s.is::<VariantError>()));
    }
}
