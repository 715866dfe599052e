//! Stricter readings of JSON than serde's defaults, for files we do not trust.
//!
//! - [`json_value`] reads any JSON text as a `serde_json::Value` and refuses an object that
//!   gives a key twice. serde_json keeps the last of two equal keys silently, so
//!   `{"seq": 0, "seq": 5}` would read as 5 and a reader could not tell. JSON allows such an
//!   object (RFC 8259 says only that its keys SHOULD be unique) and JavaScript's `JSON.parse`
//!   keeps the last, but no file of ours means anything by it: scenario files (both
//!   profiles), event logs and shard reports are read through it.
//! - [`check`] reads a scenario file again and refuses what serde's derive accepts and the
//!   format does not: an object of named members given as a JSON array, its members by
//!   position (`"tabs": [["main", ...]]`). serde_json reads a struct from either; the scenario
//!   format (`docs/scenarios.md`) has objects only. The file is read by the ordinary reader
//!   first, so every other error keeps its line and column; this pass runs only on a file that
//!   reader took, over its `serde_json::Value`, and names the member where it fails.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// Reads JSON text as a value, refusing an object that gives a key twice, at any depth. The
/// error, serde_json's, has the line and column of the second key.
pub fn json_value(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<UniqueKeys>(text).map(|v| v.0)
}

/// A JSON value whose objects each give every key once.
struct UniqueKeys(Value);

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueKeysVisitor).map(UniqueKeys)
    }
}

struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::from(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(Value::from(u))
    }
    fn visit_f64<E>(self, x: f64) -> Result<Value, E> {
        // JSON text has no NaN or infinity, so every f64 it gives is a number.
        Ok(serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(UniqueKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if members.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "the key {} is given twice in one object",
                    crate::error::quoted(&key)
                )));
            }
            let UniqueKeys(value) = map.next_value()?;
            members.insert(key, value);
        }
        Ok(Value::Object(members))
    }
}

/// Where a struct was given as an array, and serde's words for what it expected there.
#[derive(Debug)]
pub struct Positional {
    pub path: String,
    pub message: String,
}

impl fmt::Display for Positional {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for Positional {}

impl de::Error for Positional {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Positional {
            path: String::new(),
            message: msg.to_string(),
        }
    }
}

/// Reads `value` as a `T` again, refusing a struct given as an array.
pub fn check<'de, T: Deserialize<'de>>(value: &'de Value) -> Result<(), Positional> {
    T::deserialize(Strict {
        value,
        path: String::new(),
    })
    .map(drop)
}

struct Strict<'de> {
    value: &'de Value,
    path: String,
}

fn member(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl<'de> de::Deserializer<'de> for Strict<'de> {
    type Error = Positional;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Positional> {
        match self.value {
            Value::Null => v.visit_unit(),
            Value::Bool(b) => v.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => v.visit_u64(u),
                (None, Some(i)) => v.visit_i64(i),
                (None, None) => v.visit_f64(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => v.visit_borrowed_str(s),
            Value::Array(items) => v.visit_seq(Items {
                items: items.iter().enumerate(),
                path: self.path,
            }),
            Value::Object(map) => v.visit_map(Members {
                members: map.iter(),
                value: None,
                path: self.path,
            }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Positional> {
        match self.value {
            Value::Null => v.visit_none(),
            _ => v.visit_some(self),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Positional> {
        if self.value.is_array() {
            return Err(Positional {
                path: self.path,
                message: format!("invalid type: sequence, expected struct {name}"),
            });
        }
        self.deserialize_any(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, Positional> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Positional> {
        // The ordinary reader took the file, so this reads; its inside is not checked again.
        de::Deserializer::deserialize_enum(self.value, name, variants, v).map_err(de::Error::custom)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map identifier ignored_any
    }
}

struct Items<'de> {
    items: std::iter::Enumerate<std::slice::Iter<'de, Value>>,
    path: String,
}

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = Positional;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Positional> {
        match self.items.next() {
            Some((i, value)) => seed
                .deserialize(Strict {
                    value,
                    path: format!("{}[{i}]", self.path),
                })
                .map(Some),
            None => Ok(None),
        }
    }
}

struct Members<'de> {
    members: serde_json::map::Iter<'de>,
    value: Option<(&'de str, &'de Value)>,
    path: String,
}

impl<'de> MapAccess<'de> for Members<'de> {
    type Error = Positional;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Positional> {
        match self.members.next() {
            Some((key, value)) => {
                self.value = Some((key, value));
                seed.deserialize(de::value::BorrowedStrDeserializer::new(key))
                    .map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, Positional> {
        let (key, value) = self
            .value
            .take()
            .ok_or_else(|| de::Error::custom("a value before its key"))?;
        seed.deserialize(Strict {
            value,
            path: member(&self.path, key),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::json_value;
    use proptest::prelude::*;
    use serde_json::Value;

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e300f64..1e300).prop_map(Value::from),
            "[a-z\\\\\"\u{e9}\u{1F600}]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map("[a-c]{0,2}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, rng_seed: proptest::test_runner::RngSeed::Fixed(21), ..ProptestConfig::default() })]

        /// Where every key is distinct, it reads what serde_json reads.
        #[test]
        fn it_reads_what_serde_json_reads(v in any_json()) {
            let text = v.to_string();
            prop_assert_eq!(json_value(&text).unwrap(), serde_json::from_str::<Value>(&text).unwrap());
        }

        /// A key given twice in any object, at any depth, is refused at the second key.
        #[test]
        fn a_key_twice_anywhere_is_refused(v in any_json(), depth in 0usize..4) {
            let mut doubled = String::from("{\"k\": 1, \"k\": 2}");
            for _ in 0..depth {
                doubled = format!("[{v}, {{\"x\": {doubled}}}]");
            }
            let e = json_value(&doubled).unwrap_err();
            prop_assert!(e.to_string().starts_with("the key \"k\" is given twice in one object"), "{}", e);
        }
    }
}
