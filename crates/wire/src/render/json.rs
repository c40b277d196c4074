//! A streaming JSON object writer for request bodies.
//!
//! Bodies are written straight into bytes instead of being built as `serde_json::Value` trees:
//! a long history would otherwise clone every string into a tree only to serialize it once.
//! Overrides (`extra_body`, per-message `extra`) keep the semantics of a JSON object spread: a
//! key the object already has keeps its place and takes the override's value; new keys follow
//! in the override's order.

use serde::Serialize;
use serde_json::{Map, Value};

use super::RenderError;

/// Writes one JSON object into `out`.
pub(crate) struct ObjectWriter<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
    overrides: Option<&'a Map<String, Value>>,
    /// Override keys already written in place of a standard field. Override maps hold a handful
    /// of keys, so a linear scan beats hashing.
    overridden: Vec<&'a str>,
}

impl<'a> ObjectWriter<'a> {
    /// Opens an object; `overrides` (if any) replace same-named fields and the rest are
    /// appended by [`ObjectWriter::finish`].
    pub(crate) fn open(out: &'a mut Vec<u8>, overrides: Option<&'a Map<String, Value>>) -> Self {
        out.push(b'{');
        ObjectWriter {
            out,
            first: true,
            overrides: overrides.filter(|m| !m.is_empty()),
            overridden: Vec::new(),
        }
    }

    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        write_str(self.out, key);
        self.out.push(b':');
    }

    /// The override for `key`, if there is one; records it as used.
    fn take_override(&mut self, key: &str) -> Option<&'a Value> {
        let (k, v) = self.overrides?.get_key_value(key)?;
        self.overridden.push(k.as_str());
        Some(v)
    }

    /// Writes `key: value` (or the override of `key`).
    pub(crate) fn field<T: Serialize + ?Sized>(
        &mut self,
        key: &str,
        value: &T,
    ) -> Result<(), RenderError> {
        let replacement = self.take_override(key);
        self.key(key);
        match replacement {
            Some(v) => write_value(self.out, v),
            None => write_value(self.out, value),
        }
    }

    /// Writes `key: "value"`, or the override of `key`.
    pub(crate) fn str_field(&mut self, key: &str, value: &str) {
        let replacement = self.take_override(key);
        self.key(key);
        match replacement {
            Some(v) => write_json(self.out, v),
            None => write_str(self.out, value),
        }
    }

    /// Writes `key:` followed by whatever `write` emits (or the override of `key`).
    pub(crate) fn nested(
        &mut self,
        key: &str,
        write: impl FnOnce(&mut Vec<u8>) -> Result<(), RenderError>,
    ) -> Result<(), RenderError> {
        let replacement = self.take_override(key);
        self.key(key);
        match replacement {
            Some(v) => {
                write_json(self.out, v);
                Ok(())
            }
            None => write(self.out),
        }
    }

    /// Appends the overrides that replaced no standard field, in their order, and closes the
    /// object.
    pub(crate) fn finish(mut self) {
        if let Some(overrides) = self.overrides {
            for (key, value) in overrides {
                if !self.overridden.contains(&key.as_str()) {
                    self.key(key);
                    write_json(self.out, value);
                }
            }
        }
        self.out.push(b'}');
    }
}

/// Writes a JSON string literal.
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    // Serializing a `str` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// Writes an already valid JSON value.
fn write_json(out: &mut Vec<u8>, v: &Value) {
    // A `Value` holds only finite numbers, and writing into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut *out, v);
}

/// Serializes `value`, refusing non-finite floats (which serde_json would silently write as
/// `null`).
pub(crate) fn write_value<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
) -> Result<(), RenderError> {
    serde_json::to_writer(&mut *out, value).map_err(|e| RenderError::InvalidParam(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn overrides_replace_in_place_and_append_the_rest() {
        let overrides = json!({"b": "B", "z": [1], "a": null});
        let overrides = overrides.as_object().unwrap();
        let mut out = Vec::new();
        let mut obj = ObjectWriter::open(&mut out, Some(overrides));
        obj.str_field("a", "x");
        obj.field("b", &1).unwrap();
        obj.nested("c", |o| {
            o.extend_from_slice(b"{}");
            Ok(())
        })
        .unwrap();
        obj.finish();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"a":null,"b":"B","c":{},"z":[1]}"#
        );
    }
}
