//! The tool-name grammar of `register-tool#11`, and JavaScript values whose only relevant
//! property is what JSON serialization does with them.

use serde::{Deserialize, Serialize};

/// `register-tool#11`: true when the name is *not* rejected: non-empty, at most 128 code
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpecialValue {
    /// `{ toJSON() { return undefined; } }`: JSON.stringify gives undefined, so serializing
    /// throws a TypeError (`register-tool#13.note.1`).
    ToJsonUndefined,
    /// `{ toJSON() { return HTMLDivElement; } }`: a function, so JSON.stringify gives
    /// undefined and serializing throws a TypeError (`register-tool#13.note.1`).
    ToJsonFunction,
    /// An object with a cycle: JSON.stringify throws a TypeError that is rethrown
    /// (`register-tool#13.note.2`).
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
}
