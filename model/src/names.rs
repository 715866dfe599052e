//! The tool-name grammar of `register-tool#9`, and JavaScript values whose only relevant
//! property is what JSON serialization does with them.

use serde::{Deserialize, Serialize};

/// `register-tool#9`: true when the name is *not* rejected: non-empty, at most 128 code
/// points long, and made only of ASCII alphanumerics, `_`, `-` and `.`.
///
/// JavaScript strings are UTF-16; the draft counts code points ("its length"), and a name
/// that passes the character test is ASCII anyway, so the order of the tests does not matter.
pub fn tool_name_is_valid(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A JavaScript value handed to the API (an `inputSchema`, an `inputObject`) or returned by a
/// tool body, abstracted to what "serialize a JavaScript value to a JSON string" does with it.
///
/// In a scenario file an object with a key starting with `$` is a tag, never silently a plain
/// object: `{"$js": NAME}` is a special value (only as the whole value), and the keywords of
/// JSON Schema ([`JSON_SCHEMA_DOLLAR_KEYWORDS`]) are plain members; any other `$` key is an
/// error that names it ([`JsValue::from_json`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum JsValue {
    /// A value with a special behaviour: `{"$js": "circular"}` and friends.
    Special {
        #[serde(rename = "$js")]
        js: SpecialValue,
    },
    /// A plain JSON-like value: serializes to its JSON text.
    Json(serde_json::Value),
}

/// Values whose serialization is not their JSON text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpecialValue {
    /// `{ toJSON() { return undefined; } }`: JSON.stringify gives undefined, so serializing
    /// throws a TypeError (`register-tool#12.note.1`).
    ToJsonUndefined,
    /// `{ toJSON() { return HTMLDivElement; } }`: a function, so JSON.stringify gives
    /// undefined and serializing throws a TypeError (`register-tool#12.note.1`).
    ToJsonFunction,
    /// An object with a cycle: JSON.stringify throws a TypeError that is rethrown
    /// (`register-tool#12.note.2`).
    Circular,
    /// `{ toJSON() { throw new Error() } }`: the Error is rethrown.
    ToJsonThrows,
    /// `{ toJSON() { return 42; } }`: an object that serializes to the primitive `42`.
    ToJsonPrimitive,
    /// `undefined` itself (what `async () => {}` fulfils with): serializing throws a TypeError.
    Undefined,
    /// "An input that reaches the tool body under the variant being checked": under the text
    /// as written (whose `imperative-execute-steps#3` lets only non-objects through) it is
    /// `to-json-primitive`; under the `object-check` fix it is the plain object `{}`. Scenarios
    /// about running tool bodies use it so that every variant exercises the body.
    ReachesBody,
}

impl SpecialValue {
    /// Every special value, in the order of `docs/scenarios.md`.
    pub const ALL: [SpecialValue; 7] = [
        SpecialValue::Circular,
        SpecialValue::ToJsonUndefined,
        SpecialValue::ToJsonFunction,
        SpecialValue::ToJsonThrows,
        SpecialValue::ToJsonPrimitive,
        SpecialValue::Undefined,
        SpecialValue::ReachesBody,
    ];

    /// Its name after `"$js"` in a scenario file.
    pub fn name(self) -> &'static str {
        match self {
            SpecialValue::ToJsonUndefined => "to-json-undefined",
            SpecialValue::ToJsonFunction => "to-json-function",
            SpecialValue::Circular => "circular",
            SpecialValue::ToJsonThrows => "to-json-throws",
            SpecialValue::ToJsonPrimitive => "to-json-primitive",
            SpecialValue::Undefined => "undefined",
            SpecialValue::ReachesBody => "reaches-body",
        }
    }

    pub fn parse(name: &str) -> Option<SpecialValue> {
        SpecialValue::ALL.into_iter().find(|v| v.name() == name)
    }

    fn names() -> String {
        SpecialValue::ALL
            .iter()
            .map(|v| format!("\"{}\"", v.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl<'de> Deserialize<'de> for SpecialValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        SpecialValue::parse(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown special value {}: \"$js\" takes one of {}",
                crate::error::quoted(&name),
                SpecialValue::names()
            ))
        })
    }
}

/// The keywords of JSON Schema (2020-12 and earlier drafts) that start with `$`: in a plain
/// JSON value (an `inputSchema`, say) they are ordinary members, not tags.
pub const JSON_SCHEMA_DOLLAR_KEYWORDS: [&str; 11] = [
    "$schema",
    "$id",
    "$ref",
    "$defs",
    "$comment",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$recursiveRef",
    "$recursiveAnchor",
];

impl JsValue {
    /// The value a scenario file's JSON stands for. `Err` names a `$` key that is not a tag,
    /// a `$js` with an unknown name or with other members, or a `$js` inside another value.
    pub fn from_json(v: serde_json::Value) -> Result<JsValue, String> {
        if let serde_json::Value::Object(o) = &v {
            if let Some(js) = o.get("$js") {
                if let Some(other) = o.keys().find(|k| *k != "$js") {
                    return Err(format!(
                        "{{\"$js\": ...}} stands for a whole value and has no other members, but this one also has {}",
                        crate::error::quoted(other)
                    ));
                }
                let special = match js {
                    serde_json::Value::String(name) => SpecialValue::parse(name),
                    _ => None,
                };
                return match special {
                    Some(js) => Ok(JsValue::Special { js }),
                    None => Err(format!(
                        "unknown special value {}: \"$js\" takes one of {}",
                        match js {
                            serde_json::Value::String(name) => crate::error::quoted(name),
                            other => crate::error::quoted(&other.to_string()),
                        },
                        SpecialValue::names()
                    )),
                };
            }
        }
        check_plain(&v)?;
        Ok(JsValue::Json(v))
    }
}

/// A plain JSON value has no tags: no `$js` anywhere, and `$` keys only from JSON Schema.
fn check_plain(v: &serde_json::Value) -> Result<(), String> {
    match v {
        serde_json::Value::Array(items) => items.iter().try_for_each(check_plain),
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                if k == "$js" {
                    return Err(
                        "{\"$js\": ...} stands for a whole inputSchema or input, not for a member or an element inside one"
                            .into(),
                    );
                }
                if k.starts_with('$') && !JSON_SCHEMA_DOLLAR_KEYWORDS.contains(&k.as_str()) {
                    return Err(format!(
                        "unknown tag {}: a key starting with '$' is either \"$js\" (a special value: {}) or a JSON Schema keyword ({})",
                        crate::error::quoted(k),
                        SpecialValue::names(),
                        JSON_SCHEMA_DOLLAR_KEYWORDS.join(", ")
                    ));
                }
                check_plain(x)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

impl<'de> Deserialize<'de> for JsValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        JsValue::from_json(v).map_err(serde::de::Error::custom)
    }
}

/// The exception thrown by serialization.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Thrown {
    TypeError,
    Error,
}

impl JsValue {
    /// "Serialize a JavaScript value to a JSON string" (Infra).
    pub fn serialize(&self) -> Result<String, Thrown> {
        match self {
            JsValue::Json(v) => Ok(v.to_string()),
            JsValue::Special { js } => match js {
                SpecialValue::ToJsonPrimitive | SpecialValue::ReachesBody => Ok("42".to_string()),
                SpecialValue::ToJsonUndefined
                | SpecialValue::ToJsonFunction
                | SpecialValue::Undefined
                | SpecialValue::Circular => Err(Thrown::TypeError),
                SpecialValue::ToJsonThrows => Err(Thrown::Error),
            },
        }
    }

    /// The serialization under the `object-check` fix (differs only for `reaches-body`).
    pub fn serialize_with_object_check(&self) -> Result<String, Thrown> {
        match self {
            JsValue::Special {
                js: SpecialValue::ReachesBody,
            } => Ok("{}".to_string()),
            other => other.serialize(),
        }
    }

    /// Whether this value is `undefined`, which WebIDL reads as "not given": an optional
    /// argument takes its default, a dictionary member is not present.
    pub fn is_undefined(&self) -> bool {
        matches!(
            self,
            JsValue::Special {
                js: SpecialValue::Undefined
            }
        )
    }

    /// Whether this value is a JavaScript Object (what WebIDL's `object` type accepts).
    pub fn is_object(&self) -> bool {
        match self {
            JsValue::Json(v) => v.is_object() || v.is_array(),
            JsValue::Special { js } => !matches!(js, SpecialValue::Undefined),
        }
    }
}

/// Whether parsing the JSON text `text` gives a JavaScript Object (`imperative-execute-steps#3`).
/// `None` when the text is not JSON (`imperative-execute-steps#2` would throw).
pub fn json_text_is_object(text: &str) -> Option<bool> {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .map(|v| v.is_object() || v.is_array())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar_edges() {
        assert!(tool_name_is_valid("search_flights-v2.1"));
        assert!(tool_name_is_valid(&"a".repeat(128)));
        assert!(!tool_name_is_valid(&"a".repeat(129)));
        assert!(!tool_name_is_valid(""));
        assert!(!tool_name_is_valid("bad name!"));
        assert!(!tool_name_is_valid("café"));
        assert!(!tool_name_is_valid("工具"));
    }

    #[test]
    fn serialization_cases() {
        let v: JsValue = serde_json::from_str(r#"{"type":"object"}"#).unwrap();
        assert_eq!(v.serialize().unwrap(), r#"{"type":"object"}"#);
        let c: JsValue = serde_json::from_str(r#"{"$js":"circular"}"#).unwrap();
        assert_eq!(c.serialize(), Err(Thrown::TypeError));
        let t: JsValue = serde_json::from_str(r#"{"$js":"to-json-throws"}"#).unwrap();
        assert_eq!(t.serialize(), Err(Thrown::Error));
        let p: JsValue = serde_json::from_str(r#"{"$js":"to-json-primitive"}"#).unwrap();
        assert_eq!(json_text_is_object(&p.serialize().unwrap()), Some(false));
        assert_eq!(json_text_is_object("{}"), Some(true));
        assert_eq!(json_text_is_object("[1]"), Some(true));
        assert_eq!(json_text_is_object("nope"), None);
    }

    #[test]
    fn special_value_names_match_their_serialization() {
        for v in SpecialValue::ALL {
            assert_eq!(serde_json::to_value(v).unwrap(), v.name());
            let back: JsValue =
                serde_json::from_value(serde_json::json!({ "$js": v.name() })).unwrap();
            assert_eq!(back, JsValue::Special { js: v });
        }
    }

    #[test]
    fn dollar_keys_are_tags_or_errors() {
        let read = |s: &str| serde_json::from_str::<JsValue>(s).map_err(|e| e.to_string());
        // A misspelt tag, an unknown name, extra members, a nested tag: errors that say so.
        let e = read(r#"{"$jss": "undefined"}"#).unwrap_err();
        assert!(
            e.contains("unknown tag \"$jss\"") && e.contains("\"$js\""),
            "{e}"
        );
        let e = read(r#"{"$js": "undefind"}"#).unwrap_err();
        assert!(
            e.contains("unknown special value \"undefind\"") && e.contains("\"undefined\""),
            "{e}"
        );
        let e = read(r#"{"$js": 3}"#).unwrap_err();
        assert!(e.contains("unknown special value"), "{e}");
        let e = read(r#"{"$js": "circular", "x": 1}"#).unwrap_err();
        assert!(e.contains("no other members"), "{e}");
        let e = read(r#"{"a": [{"$js": "circular"}]}"#).unwrap_err();
        assert!(e.contains("whole inputSchema or input"), "{e}");
        let e = read(r#"{"properties": {"q": {"$type": "string"}}}"#).unwrap_err();
        assert!(e.contains("\"$type\""), "{e}");
        // JSON Schema's own keywords are plain members.
        let schema = r##"{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"a": {"$ref": "#/x"}}}"##;
        assert!(matches!(read(schema), Ok(JsValue::Json(_))));
        assert!(matches!(
            read(r#"{"a$": 1, "b": "$js"}"#),
            Ok(JsValue::Json(_))
        ));
    }
}
