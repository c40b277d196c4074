//! Capturing a process's output: incremental lossy UTF-8 decoding and a head+tail cap.
//!
//! Output can be unbounded (a runaway loop, a verbose build), but what goes back to the model
//! must fit a budget. The beginning of an output (the command's first reaction) and its end
//! (the summary, the error) carry most of the information, so the cap keeps both and replaces
//! the middle with a marker that says exactly what was dropped. Memory stays bounded by the
//! cap however long the process runs.

use std::collections::VecDeque;

/// Room reserved for the truncation marker so the final text stays within the cap.
const MARKER_RESERVE: usize = 96;

/// Decodes a byte stream into UTF-8 text chunk by chunk, never splitting a character across
/// chunks; invalid bytes become U+FFFD.
#[derive(Debug, Default)]
pub(crate) struct Utf8Decoder {
    /// An incomplete multi-byte sequence at the end of the last chunk (at most 3 bytes).
    pending: Vec<u8>,
}

impl Utf8Decoder {
    /// Decodes `bytes`, keeping a trailing incomplete character for the next call.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> String {
        let mut input = std::mem::take(&mut self.pending);
        input.extend_from_slice(bytes);
        let mut out = String::with_capacity(input.len());
        let mut rest: &[u8] = &input;
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    out.push_str(valid);
                    break;
                }
                Err(err) => {
                    let (valid, after) = rest.split_at(err.valid_up_to());
                    // `valid_up_to` guarantees this prefix is valid UTF-8.
                    out.push_str(&String::from_utf8_lossy(valid));
                    match err.error_len() {
                        Some(bad) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[bad..];
                        }
                        None => {
                            self.pending = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        out
    }

    /// Flushes a dangling incomplete character at end of stream.
    pub(crate) fn finish(&mut self) -> String {
        if self.pending.is_empty() {
            String::new()
        } else {
            self.pending.clear();
            char::REPLACEMENT_CHARACTER.to_string()
        }
    }
}

/// The capped text of an output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Capped {
    /// Head, marker and tail (or the whole output when it fit).
    pub(crate) text: String,
    /// Bytes of (decoded) text left out.
    pub(crate) omitted_bytes: usize,
    /// Newline characters in the left-out text.
    pub(crate) omitted_lines: usize,
}

/// Keeps the first and last parts of a text stream within a byte budget.
#[derive(Debug)]
pub(crate) struct HeadTail {
    cap: usize,
    head_budget: usize,
    head: String,
    head_full: bool,
    /// The most recent bytes (always valid UTF-8 at char boundaries once trimmed).
    tail: VecDeque<u8>,
    total_bytes: usize,
    total_lines: usize,
}

impl HeadTail {
    /// A buffer whose [`HeadTail::finish`] text is at most `cap` bytes (for caps of at least a
    /// few hundred bytes; tiny caps still get the marker).
    pub(crate) fn new(cap: usize) -> Self {
        let usable = cap.saturating_sub(MARKER_RESERVE).max(cap / 2);
        HeadTail {
            cap,
            head_budget: usable / 2,
            head: String::new(),
            head_full: false,
            tail: VecDeque::new(),
            total_bytes: 0,
            total_lines: 0,
        }
    }

    /// Appends text.
    pub(crate) fn push(&mut self, text: &str) {
        self.total_bytes += text.len();
        self.total_lines += memchr::memchr_iter(b'\n', text.as_bytes()).count();
        let mut rest = text;
        if !self.head_full {
            let room = self.head_budget - self.head.len();
            if rest.len() <= room {
                self.head.push_str(rest);
                return;
            }
            let cut = floor_char_boundary(rest, room);
            self.head.push_str(&rest[..cut]);
            self.head_full = true;
            rest = &rest[cut..];
        }
        self.tail.extend(rest.as_bytes());
        // Everything fits in `cap` bytes: keep up to `cap` of tail until the end decides.
        if self.tail.len() > self.cap * 2 {
            let excess = self.tail.len() - self.cap;
            self.tail.drain(..excess);
        }
    }

    /// The final text: everything if it fits in the cap, else head + marker + tail.
    pub(crate) fn finish(self) -> Capped {
        let tail_bytes: Vec<u8> = self.tail.into_iter().collect();
        if self.total_bytes <= self.cap {
            let mut text = self.head;
            text.push_str(&String::from_utf8_lossy(&tail_bytes));
            return Capped {
                text,
                omitted_bytes: 0,
                omitted_lines: 0,
            };
        }
        let mut head = self.head;
        // End the head on a line boundary when one is in its second half.
        if let Some(pos) = head.rfind('\n')
            && pos + 1 >= head.len() / 2
        {
            head.truncate(pos + 1);
        }
        let usable = self.cap.saturating_sub(MARKER_RESERVE).max(self.cap / 2);
        let tail_budget = usable.saturating_sub(head.len());
        let start = tail_bytes.len().saturating_sub(tail_budget);
        let mut tail = &tail_bytes[start..];
        // Start the tail on a character boundary, then on a line boundary if one is near.
        while let Some((&b, rest)) = tail.split_first() {
            if (b & 0xC0) == 0x80 {
                tail = rest;
            } else {
                break;
            }
        }
        if let Some(pos) = memchr::memchr(b'\n', tail)
            && pos < tail.len() / 2
        {
            tail = &tail[pos + 1..];
        }
        // The tail buffer only ever holds whole characters after the boundary fix above.
        let tail = String::from_utf8_lossy(tail).into_owned();
        let omitted_bytes = self.total_bytes - head.len() - tail.len();
        let omitted_lines = self.total_lines
            - memchr::memchr_iter(b'\n', head.as_bytes()).count()
            - memchr::memchr_iter(b'\n', tail.as_bytes()).count();
        let mut text = head;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!(
            "[… {omitted_bytes} bytes ({omitted_lines} lines) of output omitted …]\n"
        ));
        text.push_str(&tail);
        Capped {
            text,
            omitted_bytes,
            omitted_lines,
        }
    }
}

/// The largest index `<= at` that is a char boundary of `s`.
pub(crate) fn floor_char_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    let mut i = at;
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoder_never_splits_a_character() {
        let text = "héllo ✅ wörld";
        let bytes = text.as_bytes();
        for split in 0..bytes.len() {
            let mut d = Utf8Decoder::default();
            let mut out = d.push(&bytes[..split]);
            out.push_str(&d.push(&bytes[split..]));
            out.push_str(&d.finish());
            assert_eq!(out, text, "split at {split}");
        }
    }

    #[test]
    fn decoder_replaces_invalid_bytes() {
        let mut d = Utf8Decoder::default();
        let mut out = d.push(b"a\xffb\xe2\x9c");
        out.push_str(&d.finish());
        assert_eq!(out, "a\u{FFFD}b\u{FFFD}");
    }

    #[test]
    fn small_output_is_kept_whole() {
        let mut h = HeadTail::new(1000);
        h.push("one\n");
        h.push("two\n");
        let c = h.finish();
        assert_eq!(c.text, "one\ntwo\n");
        assert_eq!(c.omitted_bytes, 0);
    }

    #[test]
    fn large_output_keeps_head_and_tail_and_counts_exactly() {
        let lines: Vec<String> = (0..1000).map(|i| format!("line {i:04}\n")).collect();
        let all: String = lines.concat();
        let mut h = HeadTail::new(1000);
        for l in &lines {
            h.push(l);
        }
        let c = h.finish();
        assert!(c.text.len() <= 1000, "{}", c.text.len());
        assert!(c.text.starts_with("line 0000\n"));
        assert!(c.text.ends_with("line 0999\n"));
        // Head and tail are whole lines, so the omitted part is whole lines too.
        let marker_start = c.text.find("[…").unwrap();
        let marker_end = c.text[marker_start..].find('\n').unwrap() + marker_start + 1;
        let head = &c.text[..marker_start];
        let tail = &c.text[marker_end..];
        assert_eq!(c.omitted_bytes, all.len() - head.len() - tail.len());
        assert_eq!(c.omitted_lines * 10, c.omitted_bytes);
        assert!(all.starts_with(head) && all.ends_with(tail));
    }

    #[test]
    fn cap_without_newlines_cuts_on_char_boundaries() {
        let s = "é".repeat(2000);
        let mut h = HeadTail::new(500);
        h.push(&s);
        let c = h.finish();
        assert!(c.text.len() <= 500);
        assert!(c.text.contains("bytes (0 lines) of output omitted"));
        assert_eq!(c.omitted_bytes % 2, 0);
    }
}
