//! Shared by the CLI tests: the `expect` block of every scenario file in a folder.

use std::collections::BTreeMap;

/// Scenario name -> (property -> expected verdict), for every `.json` file in `dir`.
pub fn expectations_in(dir: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let expect = v["expect"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        out.insert(v["name"].as_str().unwrap().to_string(), expect);
    }
    out
}
