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

/// A scenario file written by a user (read only up to `limits::MAX_SCENARIO_BYTES`).
pub fn from_file(path: &Path) -> Result<World, String> {
    let text =
        webmcp_model::scenario::read_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    World::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}
