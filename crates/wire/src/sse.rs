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
//! **Limits.** A framer holds at most one incomplete line and one open frame in memory, so a
//! provider (or a proxy) that never ends a line could make it buffer without bound. Each
//! framer therefore has [`SseLimits`]: the longest line, the largest frame (its `data` lines
//! together) and the largest body it accepts. The first limit crossed stops the framer for
//! good: its buffers are freed, every later byte is ignored, and [`SseFramer::oversize`] says
//! which cap was crossed and by how much, for the decoder to report as a `format_error`.
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

const MIB: usize = 1024 * 1024;

/// Size caps of one SSE body, in bytes. See the module docs; [`SseLimits::for_wire`] gives
/// the caps the decoders use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseLimits {
    /// Longest line (field name, colon and value, without the line end).
    pub max_line: usize,
    /// Largest frame: its `data` lines joined.
    pub max_event: usize,
    /// Largest body: every byte pushed.
    pub max_body: u64,
}

impl SseLimits {
    /// Limits no real stream reaches: 64 MiB lines and frames, 1 GiB bodies (the
    /// framer's default, for tools that frame local files).
    pub const GENEROUS: SseLimits = SseLimits {
        max_line: 64 * MIB,
        max_event: 64 * MIB,
        max_body: 1024 * MIB as u64,
    };

    /// The caps for a stream on `wire`, sized from what real providers send with room to
    /// spare: a Chat chunk or a Messages event carries one delta (a tool call's whole
    /// arguments at most, when a server sends them in one piece), so 16 MiB; a Responses
    /// stream repeats the whole output in `response.output_item.done` and again in
    /// `response.completed`, so 32 MiB; a body of 256 MiB is far beyond any model's output
    /// limit on every wire.
    pub fn for_wire(wire: tack_protocol::Wire) -> SseLimits {
        let event = match wire {
            tack_protocol::Wire::Responses => 32 * MIB,
            tack_protocol::Wire::Chat | tack_protocol::Wire::Messages => 16 * MIB,
        };
        SseLimits {
            max_line: event,
            max_event: event,
            max_body: 256 * MIB as u64,
        }
    }
}

impl Default for SseLimits {
    /// [`SseLimits::GENEROUS`].
    fn default() -> Self {
        SseLimits::GENEROUS
    }
}

/// Which cap of [`SseLimits`] a stream crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OversizeKind {
    /// [`SseLimits::max_line`].
    Line,
    /// [`SseLimits::max_event`].
    Event,
    /// [`SseLimits::max_body`].
    Body,
}

/// A cap crossed: which, its value, and how many bytes had been received when the framer
/// stopped (for a line: at least that many without a line end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Oversize {
    /// The cap crossed.
    pub kind: OversizeKind,
    /// Its value, in bytes.
    pub cap: u64,
    /// Bytes received of the line, frame or body when it was stopped.
    pub received: u64,
}

impl Oversize {
    /// A sentence for an error message: what was too large, the cap and what was received.
    pub fn describe(&self) -> String {
        let what = match self.kind {
            OversizeKind::Line => "an SSE line",
            OversizeKind::Event => "an SSE event",
            OversizeKind::Body => "the response body",
        };
        let received = match self.kind {
            OversizeKind::Line => format!("{} without a line end", human_bytes(self.received)),
            _ => human_bytes(self.received),
        };
        format!(
            "{what} is larger than the {} cap (received {received})",
            human_bytes(self.cap)
        )
    }
}

/// `n` bytes as `12.3 MiB` / `4.0 KiB` / `17 bytes`.
pub fn human_bytes(n: u64) -> String {
    const KIB: f64 = 1024.0;
    let f = n as f64;
    if f >= KIB * KIB * KIB {
        format!("{:.1} GiB", f / (KIB * KIB * KIB))
    } else if f >= KIB * KIB {
        format!("{:.1} MiB", f / (KIB * KIB))
    } else if f >= KIB {
        format!("{:.1} KiB", f / KIB)
    } else {
        format!("{n} bytes")
    }
}

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
    limits: SseLimits,
    /// Bytes pushed so far.
    body_bytes: u64,
    /// The cap crossed, once one is: the framer is stopped.
    oversize: Option<Oversize>,
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
    /// A framer at the start of a stream, with [`SseLimits::GENEROUS`] limits.
    pub fn new() -> Self {
        SseFramer::default()
    }

    /// A framer at the start of a stream, with these limits.
    pub fn with_limits(limits: SseLimits) -> Self {
        SseFramer {
            limits,
            ..SseFramer::default()
        }
    }

    /// The cap this stream crossed, if it did; once set, the framer ignores every byte.
    pub fn oversize(&self) -> Option<Oversize> {
        self.oversize
    }

    /// Stops the framer: `kind` was crossed with `received` bytes.
    fn stop(&mut self, kind: OversizeKind, received: u64) {
        let cap = match kind {
            OversizeKind::Line => self.limits.max_line as u64,
            OversizeKind::Event => self.limits.max_event as u64,
            OversizeKind::Body => self.limits.max_body,
        };
        self.oversize = Some(Oversize {
            kind,
            cap,
            received,
        });
        // Free what was buffered: the point of the caps is the memory.
        self.tail = Vec::new();
        self.data = Vec::new();
        self.event = Vec::new();
        self.data_lines = 0;
    }

    /// Frames `bytes` (the next piece of the body), calling `on_frame` for every frame that
    /// completes. Does nothing once a cap was crossed (see [`SseFramer::oversize`]).
    pub fn push(&mut self, bytes: &[u8], on_frame: &mut impl FnMut(Frame<'_>)) {
        if self.oversize.is_some() {
            return;
        }
        self.body_bytes += bytes.len() as u64;
        if self.body_bytes > self.limits.max_body {
            self.stop(OversizeKind::Body, self.body_bytes);
            return;
        }
        let mut rest = bytes;
        if !self.tail.is_empty() {
            // Complete the line left over from the previous push, then go on scanning the new
            // bytes where they are: only that one line is copied, not the whole push.
            let Some(end) = memchr2(b'\n', b'\r', rest) else {
                let len = self.tail.len() + rest.len();
                if len > self.limits.max_line {
                    self.stop(OversizeKind::Line, len as u64);
                    return;
                }
                self.tail.extend_from_slice(rest);
                return;
            };
            if self.tail.len() + end > self.limits.max_line {
                self.stop(OversizeKind::Line, (self.tail.len() + end) as u64);
                return;
            }
            let end = if rest[end] == b'\r' && rest.get(end + 1) == Some(&b'\n') {
                end + 2
            } else {
                end + 1
            };
            let mut line = std::mem::take(&mut self.tail);
            line.extend_from_slice(&rest[..end]);
            let consumed = self.scan(&line, false, on_frame);
            if self.oversize.is_some() {
                return;
            }
            // Rare: a BOM prefix still undecided leaves bytes unconsumed.
            line.drain(..consumed);
            if !line.is_empty() {
                line.extend_from_slice(&rest[end..]);
                let consumed = self.scan(&line, false, on_frame);
                if self.oversize.is_some() {
                    return;
                }
                line.drain(..consumed);
                self.tail = line;
                return;
            }
            line.clear();
            self.tail = line;
            rest = &rest[end..];
        }
        let consumed = self.scan(rest, false, on_frame);
        if self.oversize.is_some() {
            return;
        }
        let left = rest.len() - consumed;
        if left > self.limits.max_line {
            self.stop(OversizeKind::Line, left as u64);
            return;
        }
        self.tail.extend_from_slice(&rest[consumed..]);
    }

    /// Ends the stream: a last line without a line end is taken as complete, and a frame still
    /// open is dispatched with [`Frame::at_eof`] set.
    pub fn finish(&mut self, on_frame: &mut impl FnMut(Frame<'_>)) {
        if self.oversize.is_some() {
            return;
        }
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
            if line_end - pos > self.limits.max_line {
                self.stop(OversizeKind::Line, (line_end - pos) as u64);
                return buf.len();
            }
            pending = self.line(buf, pos, line_end, pending, on_frame);
            if self.oversize.is_some() {
                return buf.len();
            }
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
                let next = match pending {
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
                };
                if matches!(next, Pending::Owned) && self.data.len() > self.limits.max_event {
                    let received = self.data.len() as u64;
                    self.stop(OversizeKind::Event, received);
                    return Pending::None;
                }
                next
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

    /// Frames and the cap crossed, pushing `pieces` into a framer with `limits`.
    fn capped(limits: SseLimits, pieces: &[&[u8]]) -> (Vec<Owned>, Option<Oversize>) {
        let mut framer = SseFramer::with_limits(limits);
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
        let oversize = framer.oversize();
        (out, oversize)
    }

    const SMALL: SseLimits = SseLimits {
        max_line: 16,
        max_event: 24,
        max_body: 200,
    };

    #[test]
    fn each_cap_stops_the_framer_at_every_split_point() {
        // (body, the cap it crosses, frames dispatched before it)
        let cases: [(&[u8], Option<OversizeKind>, usize); 6] = [
            (
                b"data: a\n\ndata: 0123456789abcdef\n\ndata: b\n\n",
                Some(OversizeKind::Line),
                1,
            ),
            // A long line that never ends: caught without a line end.
            (
                b"data: a\n\ndata: 0123456789abcdefghijkl",
                Some(OversizeKind::Line),
                1,
            ),
            // Comments count as lines too: a keep-alive that never ends is still bounded.
            (
                b": 0123456789abcdefghijklmnop\n\ndata: a\n\n",
                Some(OversizeKind::Line),
                0,
            ),
            (
                b"data: 0123456789\ndata: 0123456789\ndata: xyz\n\n",
                Some(OversizeKind::Event),
                0,
            ),
            (b"data: 0123456789\n\ndata: 01234567\n\n", None, 2),
            // Exactly at the caps is fine.
            (b"data: 0123456789\ndata: 012345\n\n", None, 1),
        ];
        for (body, kind, before) in cases {
            for i in 0..=body.len() {
                let (frames, oversize) = capped(SMALL, &[&body[..i], &body[i..]]);
                assert_eq!(
                    oversize.map(|o| o.kind),
                    kind,
                    "{:?} split {i}",
                    String::from_utf8_lossy(body)
                );
                if kind.is_some() {
                    assert_eq!(
                        frames.len(),
                        before,
                        "{:?} split {i}",
                        String::from_utf8_lossy(body)
                    );
                    let o = oversize.unwrap();
                    assert!(o.received > o.cap, "{o:?}");
                }
            }
        }
    }

    #[test]
    fn the_body_cap_counts_every_byte_and_frees_the_buffers() {
        let body = b"data: 0123\n\n".repeat(30);
        let (frames, oversize) = capped(SMALL, &body.chunks(7).collect::<Vec<_>>());
        let o = oversize.unwrap();
        assert_eq!(o.kind, OversizeKind::Body);
        assert_eq!(o.cap, 200);
        assert!(o.received > 200 && o.received <= 207, "{o:?}");
        assert!(frames.len() < 200 / 12 + 1);
        let mut framer = SseFramer::with_limits(SMALL);
        framer.push(b"data: 0123456789", &mut |_| {});
        framer.push(b"abcdef", &mut |_| {});
        assert_eq!(framer.oversize().unwrap().kind, OversizeKind::Line);
        assert_eq!(framer.tail.capacity(), 0, "the partial line was freed");
        // Stopped for good: later bytes dispatch nothing.
        let mut later = 0;
        framer.push(b"\n\ndata: x\n\n", &mut |_| later += 1);
        framer.finish(&mut |_| later += 1);
        assert_eq!(later, 0);
    }

    #[test]
    fn oversize_describes_cap_and_received() {
        let o = Oversize {
            kind: OversizeKind::Line,
            cap: 16 * 1024 * 1024,
            received: 100 * 1024 * 1024,
        };
        assert_eq!(
            o.describe(),
            "an SSE line is larger than the 16.0 MiB cap (received 100.0 MiB without a line end)"
        );
    }
}
