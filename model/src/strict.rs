//! A second reading of a scenario file that refuses what serde's derive accepts and the
//! format does not: an object of named members given as a JSON array, its members by
//! position (`"tabs": [["main", ...]]`). serde_json reads a struct from either; the scenario
//! format (`docs/scenarios.md`) has objects only. The file is read by the ordinary reader
//! first, so every other error keeps its line and column; this pass runs only on a file that
//! reader took, over its `serde_json::Value`, and names the member where it fails.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

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
