//! Server-sent events framing: bytes → frames, incrementally.
//!
//! Follows the WHATWG HTML "event stream" parsing rules: lines end in CRLF, LF or CR (a CR at
//! the end of one push and an LF at the start of the next are one line end); a blank line
//! dispatches the frame; `:` starts a comment (e.g. OpenRouter's `: OPENROUTER PROCESSING`
//! keep-alives); `field: value` loses one space after the colon; several `data:` lines join
//! with `\n`; a frame with no `data` is not dispatched; a leading UTF-8 BOM is skipped; `id`
//! and `retry` are ignored (no provider resumes streams).
//!
//! Bytes are never decoded as text here, so a UTF-8 character split across pushes needs no
//! special care: a frame is handed out only once all its lines are complete. Frames borrow
//! from the pushed bytes whenever the whole frame arrived inside one push with a single `data`
//! line (the usual case), so the common path copies nothing; otherwise the data is gathered in
//! a buffer that is reused for the life of the framer.
//!
//! Unlike the browser rules, a frame still open when the body ends is dispatched (some servers
//! omit the final blank line after `data: [DONE]`); [`Frame::at_eof`] tells the decoder so
//! that a cut-off frame can be reported as truncation rather than as a malformed chunk.

use memchr::memchr2;

/// One dispatched SSE event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The `event:` name; empty when the frame had none (the SSE default type `message`).
    pub event: &'a [u8],
    /// The `data:` lines joined by `\n`, without the final newline.
    pub data: &'a [u8],
    /// True when the body ended before the blank line that would have closed this frame.
    pub at_eof: bool,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Incremental SSE framer. Push bytes as they arrive, then call [`SseFramer::finish`] at the
/// end of the body.
#[derive(Debug, Default)]
pub struct SseFramer {
    /// Bytes after the last complete line of the previous push (an incomplete line).
    tail: Vec<u8>,
    /// The previous push ended with CR: an LF at the start of the next push ends no line.
    skip_lf: bool,
    /// Whether the start of the stream has been checked for a BOM.
    bom_checked: bool,
    /// Event name of the open frame.
    event: Vec<u8>,
    /// Data of the open frame, when it could not be borrowed.
    data: Vec<u8>,
    /// Number of `data` lines in the open frame.
    data_lines: usize,
}

/// Where the data of the open frame currently is.
#[derive(Clone, Copy)]
enum Pending {
    /// No data line yet.
    None,
    /// A single data line at this range of the buffer being scanned.
    Borrowed(usize, usize),
    /// In [`SseFramer::data`].
    Owned,
}

impl SseFramer {
    /// A framer at the start of a stream.
    pub fn new() -> Self {
        SseFramer::default()
    }

    /// Frames `bytes` (the next piece of the body), calling `on_frame` for every frame that
    /// completes.
    pub fn push(&mut self, bytes: &[u8], on_frame: &mut impl FnMut(Frame<'_>)) {
        let mut rest = bytes;
        if !self.tail.is_empty() {
            // Complete the line left over from the previous push, then go on scanning the new
            // bytes where they are: only that one line is copied, not the whole push.
            let Some(end) = memchr2(b'\n', b'\r', rest) else {
                self.tail.extend_from_slice(rest);
                return;
            };
            let end = if rest[end] == b'\r' && rest.get(end + 1) == Some(&b'\n') {
                end + 2
            } else {
                end + 1
            };
            let mut line = std::mem::take(&mut self.tail);
            line.extend_from_slice(&rest[..end]);
            let consumed = self.scan(&line, false, on_frame);
            // Rare: a BOM prefix still undecided leaves bytes unconsumed.
            line.drain(..consumed);
            if !line.is_empty() {
                line.extend_from_slice(&rest[end..]);
                let consumed = self.scan(&line, false, on_frame);
                line.drain(..consumed);
                self.tail = line;
                return;
            }
            line.clear();
            self.tail = line;
            rest = &rest[end..];
        }
        let consumed = self.scan(rest, false, on_frame);
        self.tail.extend_from_slice(&rest[consumed..]);
    }

    /// Ends the stream: a last line without a line end is taken as complete, and a frame still
    /// open is dispatched with [`Frame::at_eof`] set.
    pub fn finish(&mut self, on_frame: &mut impl FnMut(Frame<'_>)) {
        let buf = std::mem::take(&mut self.tail);
        self.scan(&buf, true, on_frame);
        if self.data_lines > 0 {
            strip_final_newline(&mut self.data);
            on_frame(Frame {
                event: &self.event,
                data: &self.data,
                at_eof: true,
            });
        }
        self.event.clear();
        self.data.clear();
        self.data_lines = 0;
    }

    /// Scans complete lines of `buf`; returns how many bytes were consumed. At `eof` a final
    /// line without a line end counts as complete.
    fn scan(&mut self, buf: &[u8], eof: bool, on_frame: &mut impl FnMut(Frame<'_>)) -> usize {
        let mut pos = 0;
        if !self.bom_checked {
            if buf.len() < BOM.len() && BOM.starts_with(buf) && !eof {
                return 0;
            }
            self.bom_checked = true;
            if buf.starts_with(BOM) {
                pos = BOM.len();
            }
        }
        if self.skip_lf && pos < buf.len() {
            if buf[pos] == b'\n' {
                pos += 1;
            }
            self.skip_lf = false;
        }
        let mut pending = if self.data_lines > 0 {
            Pending::Owned
        } else {
            Pending::None
        };
        while pos < buf.len() {
            let (line_end, next) = match memchr2(b'\n', b'\r', &buf[pos..]) {
                Some(i) => {
                    let end = pos + i;
                    if buf[end] == b'\n' {
                        (end, end + 1)
                    } else if end + 1 < buf.len() {
                        (
                            end,
                            if buf[end + 1] == b'\n' {
                                end + 2
                            } else {
                                end + 1
                            },
                        )
                    } else {
                        // CR as the last byte: the line is complete, an LF may follow.
                        self.skip_lf = true;
                        (end, end + 1)
                    }
                }
                None if eof => (buf.len(), buf.len()),
                None => break,
            };
            pending = self.line(buf, pos, line_end, pending, on_frame);
            pos = next;
        }
        // The open frame's single data line may live in `buf`, which is about to go away.
        if let Pending::Borrowed(start, end) = pending {
            self.data.clear();
            self.data.extend_from_slice(&buf[start..end]);
            self.data.push(b'\n');
        }
        pos
    }

    /// Handles the line `buf[start..end]`.
    fn line(
        &mut self,
        buf: &[u8],
        start: usize,
        end: usize,
        pending: Pending,
        on_frame: &mut impl FnMut(Frame<'_>),
    ) -> Pending {
        let line = &buf[start..end];
        if line.is_empty() {
            match pending {
                Pending::None => {}
                Pending::Borrowed(s, e) => on_frame(Frame {
                    event: &self.event,
                    data: &buf[s..e],
                    at_eof: false,
                }),
                Pending::Owned => {
                    strip_final_newline(&mut self.data);
                    on_frame(Frame {
                        event: &self.event,
                        data: &self.data,
                        at_eof: false,
                    });
                }
            }
            self.event.clear();
            self.data.clear();
            self.data_lines = 0;
            return Pending::None;
        }
        if line[0] == b':' {
            return pending;
        }
        let (field, value_start) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let v = colon + 1;
                let v = if line.get(v) == Some(&b' ') { v + 1 } else { v };
                (&line[..colon], start + v)
            }
            None => (line, end),
        };
        match field {
            b"data" => {
                self.data_lines += 1;
                match pending {
                    Pending::None => Pending::Borrowed(value_start, end),
                    Pending::Borrowed(s, e) => {
                        self.data.clear();
                        self.data.extend_from_slice(&buf[s..e]);
                        self.data.push(b'\n');
                        self.data.extend_from_slice(&buf[value_start..end]);
                        self.data.push(b'\n');
                        Pending::Owned
                    }
                    Pending::Owned => {
                        self.data.extend_from_slice(&buf[value_start..end]);
                        self.data.push(b'\n');
                        Pending::Owned
                    }
                }
            }
            b"event" => {
                self.event.clear();
                self.event.extend_from_slice(&buf[value_start..end]);
                pending
            }
            _ => pending,
        }
    }
}

fn strip_final_newline(data: &mut Vec<u8>) {
    if data.last() == Some(&b'\n') {
        data.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Owned {
        event: String,
        data: String,
        at_eof: bool,
    }

    fn frames_of(pieces: &[&[u8]]) -> Vec<Owned> {
        let mut framer = SseFramer::new();
        let mut out = Vec::new();
        let mut collect = |f: Frame<'_>| {
            out.push(Owned {
                event: String::from_utf8(f.event.to_vec()).unwrap(),
                data: String::from_utf8(f.data.to_vec()).unwrap(),
                at_eof: f.at_eof,
            })
        };
        for piece in pieces {
            framer.push(piece, &mut collect);
        }
        framer.finish(&mut collect);
        out
    }

    fn f(event: &str, data: &str) -> Owned {
        Owned {
            event: event.into(),
            data: data.into(),
            at_eof: false,
        }
    }

    #[test]
    fn lf_crlf_and_cr_line_ends() {
        let expected = vec![f("", "a"), f("", "b")];
        assert_eq!(frames_of(&[b"data: a\n\ndata: b\n\n"]), expected);
        assert_eq!(frames_of(&[b"data: a\r\n\r\ndata: b\r\n\r\n"]), expected);
        assert_eq!(frames_of(&[b"data: a\r\rdata: b\r\r"]), expected);
        assert_eq!(frames_of(&[b"data: a\r\n\ndata: b\n\r\n"]), expected);
    }

    #[test]
    fn crlf_split_between_pushes_is_one_line_end() {
        assert_eq!(
            frames_of(&[b"data: a\r", b"\n\r", b"\ndata: b\r", b"\r"]),
            vec![f("", "a"), f("", "b")]
        );
    }

    #[test]
    fn comments_and_unknown_fields_are_skipped() {
        let body = b": OPENROUTER PROCESSING\n\n: x\nid: 7\nretry: 10\ndata: {}\nfoo\n\n";
        assert_eq!(frames_of(&[body]), vec![f("", "{}")]);
    }

    #[test]
    fn event_names_and_multi_line_data() {
        let body = b"event: error\ndata: {\"a\":\ndata:1}\n\ndata: x\n\n";
        assert_eq!(
            frames_of(&[body]),
            vec![f("error", "{\"a\":\n1}"), f("", "x")]
        );
    }

    #[test]
    fn only_one_space_after_the_colon_is_removed() {
        assert_eq!(
            frames_of(&[b"data:  two\n\ndata:none\n\n"]),
            vec![f("", " two"), f("", "none")]
        );
    }

    #[test]
    fn frames_without_data_are_not_dispatched() {
        assert_eq!(frames_of(&[b"event: ping\n\ndata\n\n"]), vec![f("", "")]);
        assert_eq!(frames_of(&[b"event: ping\n\n\n\n"]), vec![]);
    }

    #[test]
    fn split_utf8_character_is_joined() {
        let body = "data: Olá\n\n".as_bytes();
        let cut = body.iter().position(|&b| b == 0xC3).unwrap() + 1;
        assert_eq!(frames_of(&[&body[..cut], &body[cut..]]), vec![f("", "Olá")]);
    }

    #[test]
    fn bom_is_skipped_even_when_split() {
        assert_eq!(
            frames_of(&[b"\xEF", b"\xBB\xBFdata: a\n\n"]),
            vec![f("", "a")]
        );
    }

    #[test]
    fn open_frame_at_eof_is_dispatched_and_marked() {
        let got = frames_of(&[b"data: a\n\ndata: [DONE]"]);
        assert_eq!(got[1].data, "[DONE]");
        assert!(got[1].at_eof);
        let got = frames_of(&[b"data: {\"x\"\n"]);
        assert_eq!(
            got,
            vec![Owned {
                event: "".into(),
                data: "{\"x\"".into(),
                at_eof: true
            }]
        );
    }

    #[test]
    fn every_split_point_gives_the_same_frames() {
        let body: &[u8] =
            b": c\r\n\r\nevent: e\r\ndata: 1\r\ndata: 2\r\n\r\ndata: \xC3\xA9\n\ndata: z\r\r";
        let whole = frames_of(&[body]);
        for i in 0..=body.len() {
            for j in i..=body.len() {
                assert_eq!(
                    frames_of(&[&body[..i], &body[i..j], &body[j..]]),
                    whole,
                    "{i} {j}"
                );
            }
        }
    }
}
