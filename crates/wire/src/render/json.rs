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

/// Writes a JSON string literal, escaping exactly as `serde_json` does (`\"`, `\\`, `\b`,
/// `\f`, `\n`, `\r`, `\t`, other control characters as `\u00xx`; nothing else), so bodies
/// are byte-identical to serializing the same strings with `serde_json`.
///
/// Escaping dominates rendering (history is mostly text), so it scans eight bytes at a time
/// and copies escape-free runs whole.
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut run_start = 0;
    let mut i = 0;
    while i + 8 <= bytes.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[i..i + 8]);
        if !word_needs_escape(u64::from_le_bytes(word)) {
            i += 8;
            continue;
        }
        // Escapes are often dense (code: quotes, newlines), so a word that has one is written
        // byte by byte instead of as many tiny copies.
        if run_start < i {
            out.extend_from_slice(&bytes[run_start..i]);
        }
        let mut escaped = [0u8; 8 * 6 + 1];
        let mut len = 0;
        for &b in &word {
            let letter = ESCAPE[usize::from(b)];
            if letter == b'u' {
                len += escape_into(&mut escaped[len..], b);
            } else {
                // Branch-free for the common cases: the byte itself, or `\` + letter.
                escaped[len] = if letter == 0 { b } else { b'\\' };
                escaped[len + 1] = letter;
                len += 1 + usize::from(letter != 0);
            }
        }
        // Copy a fixed size and cut back: a constant-length copy compiles to a few moves,
        // where a variable one is a `memcpy` call costing more than the bytes it moves.
        let keep = out.len() + len;
        if len <= 16 {
            out.extend_from_slice(&escaped[..16]);
        } else {
            out.extend_from_slice(&escaped);
        }
        out.truncate(keep);
        i += 8;
        run_start = i;
    }
    out.extend_from_slice(&bytes[run_start..i]);
    for &b in &bytes[i..] {
        write_byte(out, b);
    }
    out.push(b'"');
}

/// What each byte becomes inside a JSON string: 0 = itself, `u` = `\u00xx`, else the letter
/// after the backslash.
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x0c] = b'f';
    table[b'\n' as usize] = b'n';
    table[b'\r' as usize] = b'r';
    table[b'\t' as usize] = b't';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// Writes `b`, escaped, at the start of `buf` (which has room for 6 bytes); returns the
/// length written.
#[inline(always)]
fn escape_into(buf: &mut [u8], b: u8) -> usize {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match ESCAPE[usize::from(b)] {
        0 => {
            buf[0] = b;
            1
        }
        b'u' => {
            buf[..6].copy_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ]);
            6
        }
        letter => {
            buf[0] = b'\\';
            buf[1] = letter;
            2
        }
    }
}

#[inline(always)]
fn write_byte(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match ESCAPE[usize::from(b)] {
        0 => out.push(b),
        b'u' => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 0xf)],
        ]),
        letter => {
            out.push(b'\\');
            out.push(letter);
        }
    }
}

/// Whether any byte of `w` is a control character, `"` or `\` (SWAR: the classic
/// has-less-than / has-zero-byte bit tricks, exact for the existence test).
#[inline]
fn word_needs_escape(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    let quote = has_zero(w ^ (ONES * u64::from(b'"')));
    let backslash = has_zero(w ^ (ONES * u64::from(b'\\')));
    (below_space | quote | backslash) != 0
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
    use proptest::prelude::*;
    use serde_json::json;

    proptest! {
        #[test]
        fn escaping_matches_serde_json(s in "\\PC*|[\\x00-\\x7f]{0,40}") {
            let mut ours = Vec::new();
            write_str(&mut ours, &s);
            prop_assert_eq!(ours, serde_json::to_vec(&s).unwrap());
        }
    }

    #[test]
    fn escaping_every_ascii_byte_matches_serde_json() {
        let all: String = (0u8..128).map(char::from).collect();
        for start in 0..all.len() {
            let s = &all[start..];
            let mut ours = Vec::new();
            write_str(&mut ours, s);
            assert_eq!(ours, serde_json::to_vec(s).unwrap());
        }
    }

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
