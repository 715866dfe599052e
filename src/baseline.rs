//! The known-findings baseline (`docs/known-findings.json`): violations a spec repository has
//! accepted for now, so CI fails only on new ones and reports listed ones that went away.

use serde::Deserialize;
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

impl Baseline {
    pub fn load(path: &std::path::Path) -> Result<Baseline, String> {
        use webmcp_traces::limits::{one_line, read_limited, size_text, ReadError};
        let bytes = read_limited(path, MAX_BASELINE_BYTES).map_err(|e| match e {
            ReadError::Io(e) => format!("{}: cannot read the baseline: {e}", path.display()),
            ReadError::TooLarge => format!(
                "{}: larger than {}, the limit for a baseline file; not read",
                path.display(),
                size_text(MAX_BASELINE_BYTES)
            ),
        })?;
        let text = String::from_utf8(bytes).map_err(|_| {
            format!(
                "{}: not a known-findings file (not UTF-8 text)",
                path.display()
            )
        })?;
        let b: Baseline = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{}: line {}, column {}: not a known-findings file ({})",
                path.display(),
                e.line(),
                e.column(),
                // The message can quote the file (an unknown field, a wrong value): keep it
                // to one short line.
                one_line(first_clause(&e.to_string()), 160)
            )
        })?;
        if b.version != 1 {
            return Err(format!(
                "{}: unsupported version {} (expected 1)",
                path.display(),
                b.version
            ));
        }
        for (i, f) in b.findings.iter().enumerate() {
            for (field, value, max) in [
                ("scenario", &f.scenario, MAX_NAME_CHARS),
                ("property", &f.property, MAX_NAME_CHARS),
                ("variant", &f.variant, MAX_NAME_CHARS),
                ("reason", &f.reason, MAX_REASON_CHARS),
            ] {
                if value.chars().count() > max {
                    return Err(format!(
                        "{}: findings[{i}].{field} is longer than {max} characters: not a known-findings file",
                        path.display()
                    ));
                }
                if value.chars().any(char::is_control) && field != "reason" {
                    return Err(format!(
                        "{}: findings[{i}].{field} contains a control character: not a known-findings file",
                        path.display()
                    ));
                }
            }
            // Nor would a variant no run prints: a finding matches a run by the variant's
            // printed name (`seed@current` is printed `seed`).
            match webmcp_model::variant::Variant::parse(&f.variant) {
                Ok(v) if v.name() == f.variant => {}
                Ok(v) => {
                    return Err(format!(
                        "{}: findings[{i}].variant is \"{}\", which runs print as \"{}\": write that, or it matches no run",
                        path.display(),
                        f.variant.escape_debug(),
                        v.name()
                    ))
                }
                Err(e) => {
                    return Err(format!(
                        "{}: findings[{i}].variant: {e}",
                        path.display()
                    ))
                }
            }
            // A misspelt property would match nothing and silence nothing, unnoticed until
            // the violation it meant to list fails the run.
            if !webmcp_profiles::properties()
                .iter()
                .any(|p| p.name == f.property)
            {
                return Err(format!(
                    "{}: findings[{i}].property is \"{}\", which is no property of the catalogue (`webmcp-check check --verbose` lists them)",
                    path.display(),
                    f.property
                ));
            }
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

    fn load_text(name: &str, text: &[u8]) -> Result<Baseline, String> {
        let dir = std::env::temp_dir().join(format!("webmcp-baseline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        Baseline::load(&path)
    }

    fn one_line_error(name: &str, text: &[u8]) -> String {
        let e = load_text(name, text).unwrap_err();
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
        assert_eq!(
            e,
            "/dev/zero: larger than 1 MiB, the limit for a baseline file; not read"
        );
        let big = vec![b' '; MAX_BASELINE_BYTES as usize + 1];
        assert!(one_line_error("big.json", &big).contains("larger than 1 MiB"));
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
    }
}
