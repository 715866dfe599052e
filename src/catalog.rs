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
        None => Err(match nearest(name, SCENARIOS.iter().map(|(stem, _)| *stem)) {
            Some(near) => format!(
                "unknown scenario \"{}\": did you mean \"{near}\"? (webmcp-check list shows the scenarios)",
                name.escape_debug()
            ),
            None => format!(
                "unknown scenario \"{}\" (webmcp-check list shows the scenarios)",
                name.escape_debug()
            ),
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
pub fn from_file(path: &Path) -> Result<(World, String), String> {
    let text =
        webmcp_model::scenario::read_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let world = World::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let names: Vec<&str> = webmcp_properties::properties()
        .iter()
        .map(|p| p.name)
        .collect();
    check_expectations(&world.expect, &names).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((world, text))
}

/// An `expect` block names only properties of the catalogue (the model has checked the
/// verdicts; it does not know the catalogue).
pub fn check_expectations(
    expect: &std::collections::BTreeMap<String, String>,
    catalogue: &[&str],
) -> Result<(), String> {
    match expect.keys().find(|p| !catalogue.contains(&p.as_str())) {
        Some(unknown) => Err(format!(
            "expect names \"{}\", which is no property of the catalogue (`webmcp-check check --verbose` lists them)",
            unknown.escape_debug()
        )),
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
        assert!(
            err.contains("did you mean \"abort-before-dispatch\""),
            "{err}"
        );
        let err = named("zzz").unwrap_err();
        assert!(!err.contains("did you mean"), "{err}");
        let err = named("a\nb").unwrap_err();
        assert!(!err.contains('\n'), "{err}");
    }
}
