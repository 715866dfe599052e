//! The embedded scenarios and user-written scenario files.

use std::fmt;
use std::path::{Path, PathBuf};

use webmcp_model::error::ScenarioError;
use webmcp_model::World;

include!(concat!(env!("OUT_DIR"), "/scenarios.rs"));

/// Why a scenario could not be had. Its `Display` is one sentence on one line; the cause is
/// kept for whoever needs more than the sentence.
#[derive(Debug)]
pub enum CatalogError {
    /// No embedded scenario is called `name`; `nearest` is the one probably meant.
    Unknown {
        name: String,
        nearest: Option<&'static str>,
    },
    /// An embedded scenario that does not compile: a defect of this build.
    Embedded {
        stem: &'static str,
        error: ScenarioError,
    },
    /// A scenario file that cannot be read or compiled.
    File { path: PathBuf, error: ScenarioError },
    /// A scenario file that compiles but expects a verdict of no property of the catalogue.
    Expectation {
        path: PathBuf,
        error: UnknownExpectation,
    },
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogError::Unknown {
                name,
                nearest: Some(near),
            } => write!(
                f,
                "unknown scenario \"{}\": did you mean \"{near}\"? (webmcp-check list shows the scenarios)",
                name.escape_debug()
            ),
            CatalogError::Unknown {
                name,
                nearest: None,
            } => write!(
                f,
                "unknown scenario \"{}\" (webmcp-check list shows the scenarios)",
                name.escape_debug()
            ),
            CatalogError::Embedded { stem, error } => {
                write!(f, "embedded scenario {stem}.json: {error}")
            }
            CatalogError::File { path, error } => write!(f, "{}: {error}", path.display()),
            CatalogError::Expectation { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for CatalogError {}

/// An `expect` block naming a property the catalogue does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownExpectation {
    pub property: String,
}

impl fmt::Display for UnknownExpectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expect names \"{}\", which is no property of the catalogue (`webmcp-check check --verbose` lists them)",
            self.property.escape_debug()
        )
    }
}

impl std::error::Error for UnknownExpectation {}

fn embedded(stem: &'static str, text: &str) -> Result<World, CatalogError> {
    World::from_json(text).map_err(|error| CatalogError::Embedded { stem, error })
}

/// Every embedded scenario, compiled.
pub fn all() -> Result<Vec<World>, CatalogError> {
    SCENARIOS
        .iter()
        .map(|(stem, text)| embedded(stem, text))
        .collect()
}

/// The embedded scenario called `name`.
pub fn named(name: &str) -> Result<World, CatalogError> {
    match SCENARIOS.iter().find(|(stem, _)| *stem == name) {
        Some((stem, text)) => embedded(stem, text),
        None => Err(CatalogError::Unknown {
            name: name.to_string(),
            nearest: nearest(name, SCENARIOS.iter().map(|(stem, _)| *stem)),
        }),
    }
}

/// The JSON text of the embedded scenario called `name`.
pub fn text(name: &str) -> Option<&'static str> {
    SCENARIOS
        .iter()
        .find(|(stem, _)| *stem == name)
        .map(|(_, text)| *text)
}

/// A scenario file written by a user (read only up to `limits::MAX_SCENARIO_BYTES`),
/// compiled, with its text (which traces record).
pub fn from_file(path: &Path) -> Result<(World, String), CatalogError> {
    let file = |error| CatalogError::File {
        path: path.to_path_buf(),
        error,
    };
    let text = webmcp_model::scenario::read_file(path).map_err(file)?;
    let world = World::from_json(&text).map_err(file)?;
    let names: Vec<&str> = webmcp_profiles::properties()
        .iter()
        .map(|p| p.name)
        .collect();
    check_expectations(&world.expect, &names).map_err(|error| CatalogError::Expectation {
        path: path.to_path_buf(),
        error,
    })?;
    Ok((world, text))
}

/// An `expect` block names only properties of the catalogue (the model has checked the
/// verdicts; it does not know the catalogue).
pub fn check_expectations(
    expect: &std::collections::BTreeMap<String, String>,
    catalogue: &[&str],
) -> Result<(), UnknownExpectation> {
    match expect.keys().find(|p| !catalogue.contains(&p.as_str())) {
        Some(unknown) => Err(UnknownExpectation {
            property: unknown.clone(),
        }),
        None => Ok(()),
    }
}

/// The name closest to `typed` by edit distance, if it is close enough to be a typo.
pub fn nearest<'a>(typed: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let typed: Vec<char> = typed.chars().take(200).collect();
    names
        .map(|n| (edit_distance(&typed, &n.chars().collect::<Vec<_>>()), n))
        .filter(|(d, n)| *d <= 2.max(n.len() / 5))
        .min()
        .map(|(_, n)| n)
}

fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_suggests_the_scenario_meant_and_nonsense_suggests_nothing() {
        let err = named("abort-befor-dispatch").unwrap_err();
        assert!(matches!(
            &err,
            CatalogError::Unknown { name, nearest: Some("abort-before-dispatch") }
                if name == "abort-befor-dispatch"
        ));
        assert!(
            err.to_string()
                .contains("did you mean \"abort-before-dispatch\""),
            "{err}"
        );
        let err = named("zzz").unwrap_err();
        assert!(matches!(err, CatalogError::Unknown { nearest: None, .. }));
        assert!(!err.to_string().contains("did you mean"), "{err}");
        let err = named("a\nb").unwrap_err();
        assert!(!err.to_string().contains('\n'), "{err}");
    }

    #[test]
    fn every_embedded_scenario_is_named_after_its_file() {
        for (stem, text) in SCENARIOS {
            assert_eq!(World::from_json(text).unwrap().name, *stem);
        }
        for (stem, text) in LEGACY_SCENARIOS {
            assert_eq!(
                webmcp_model::legacy::LegacyWorld::from_json(text)
                    .unwrap()
                    .name,
                *stem
            );
        }
    }

    #[test]
    fn a_scenario_file_keeps_the_cause_of_its_refusal() {
        let dir = std::env::temp_dir().join(format!("catalog-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("missing.json");
        let err = from_file(&missing).unwrap_err();
        assert!(
            matches!(&err, CatalogError::File { path, error }
                if path == &missing && matches!(error.kind, webmcp_model::error::ErrorKind::Unreadable(_))),
            "{err:?}"
        );
        let not_json = dir.join("not-json.json");
        std::fs::write(&not_json, "{").unwrap();
        let err = from_file(&not_json).unwrap_err();
        assert!(
            matches!(&err, CatalogError::File { error, .. }
                if matches!(error.kind, webmcp_model::error::ErrorKind::Syntax(_))),
            "{err:?}"
        );
        assert!(err.to_string().starts_with(&not_json.display().to_string()));
        // A real scenario expecting a verdict of a property nobody defined.
        let mut scenario: serde_json::Value =
            serde_json::from_str(text("abort-before-dispatch").unwrap()).unwrap();
        scenario["expect"] = serde_json::json!({ "no-such-property": "hold" });
        let unknown = dir.join("unknown-expectation.json");
        std::fs::write(&unknown, scenario.to_string()).unwrap();
        let err = from_file(&unknown).unwrap_err();
        assert!(
            matches!(&err, CatalogError::Expectation { error, .. }
                if error.property == "no-such-property"),
            "{err:?}"
        );
        assert!(err
            .to_string()
            .contains("which is no property of the catalogue"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
