//! The embedded scenarios and user-written scenario files.

use std::path::Path;

use webmcp_model::World;

include!(concat!(env!("OUT_DIR"), "/scenarios.rs"));

/// Every embedded scenario, compiled.
pub fn all() -> Result<Vec<World>, String> {
    SCENARIOS
        .iter()
        .map(|(stem, text)| {
            World::from_json(text).map_err(|e| format!("embedded scenario {stem}.json: {e}"))
        })
        .collect()
}

/// The embedded scenario called `name`.
pub fn named(name: &str) -> Result<World, String> {
    match SCENARIOS.iter().find(|(stem, _)| *stem == name) {
        Some((stem, text)) => {
            World::from_json(text).map_err(|e| format!("embedded scenario {stem}.json: {e}"))
        }
        None => Err(format!(
            "unknown scenario \"{name}\" (webmcp-check list shows the scenarios)"
        )),
    }
}

/// The JSON text of the embedded scenario called `name`.
pub fn text(name: &str) -> Option<&'static str> {
    SCENARIOS
        .iter()
        .find(|(stem, _)| *stem == name)
        .map(|(_, text)| *text)
}

/// A scenario file written by a user, compiled, with its text (which traces record).
pub fn from_file(path: &Path) -> Result<(World, String), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let world = World::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let names: Vec<&str> = webmcp_properties::properties()
        .iter()
        .map(|p| p.name)
        .collect();
    check_expectations(&world.expect, &names).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((world, text))
}

/// The verdicts an `expect` block may name (the test suite compares them with the run).
const EXPECTABLE: &[&str] = &["hold", "violated", "witnessed", "not witnessed"];

/// An `expect` block names only properties of the catalogue, each with a verdict it can have.
pub fn check_expectations(
    expect: &std::collections::BTreeMap<String, String>,
    catalogue: &[&str],
) -> Result<(), String> {
    for (property, verdict) in expect {
        if !catalogue.contains(&property.as_str()) {
            return Err(format!(
                "expect names \"{}\", which is no property of the catalogue (`webmcp-check check --verbose` lists them)",
                property.escape_debug()
            ));
        }
        if !EXPECTABLE.contains(&verdict.as_str()) {
            return Err(format!(
                "expect gives \"{property}\" the verdict \"{}\": use one of {}",
                verdict.escape_debug(),
                EXPECTABLE.join(", ")
            ));
        }
    }
    Ok(())
}
