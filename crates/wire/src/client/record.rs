//! Recording one attempt as an [`Exchange`], with credentials kept out.
//!
//! Three layers keep keys out of records: header values whose names are credentials
//! ([`is_secret_header`]) are stored as `[REDACTED]`; URL query values whose names look like
//! credentials (`key`, `api_key`, `token`, `sig`, …) are masked; and, because a proxy or a
//! misbehaving server could echo the key back, every occurrence of the key that was sent is
//! replaced by `[REDACTED]` in the whole record (body, chunks, events, error) before it is
//! handed to the sink, including occurrences split across two response chunks.

use std::sync::Arc;
use std::time::Instant;

use memchr::memmem;
use reqwest::header::HeaderMap;
use serde_json::Value;
use tack_protocol::{
    ErrorKind, Exchange, ExchangeSummary, Header, ModelError, REDACTED, ResponseChunk, StreamEvent,
    Usage, Wire, is_secret_header,
};

use crate::RenderedRequest;

/// Receives every finished attempt (success, error, cancellation or drop), exactly once.
pub type ExchangeSink = Arc<dyn Fn(Exchange) + Send + Sync>;

/// What the engine knows about a request that the client does not: stamped on every
/// [`ExchangeSummary`] of its attempts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExchangeMeta {
    /// Exchange id; attempt `n` is recorded as `<id>-<n>`.
    pub id: String,
    /// Turn id.
    pub turn_id: String,
    /// `main` or an extra request's purpose (e.g. `title`).
    pub purpose: String,
    /// Harness id.
    pub harness: String,
    /// Route name, e.g. `chat/minimal`.
    pub route: String,
    /// Where the harness's system prompt came from (shown by the inspector).
    pub prompt_source: Option<String>,
    /// Provider id.
    pub provider: String,
    /// Model requested.
    pub model: String,
}

/// Shortest key that is scrubbed from record text (shorter strings would match ordinary
/// text; real keys are far longer).
const MIN_SCRUB_LEN: usize = 8;

/// Recorded body pieces at least this long are kept as slices of the read buffer; shorter
/// ones are copied, so the buffer behind a tiny read is not held for the whole exchange.
const SHARE_AT_LEAST: usize = 1024;

/// How much of one response an [`Exchange`] keeps. Past either cap the record stops
/// growing: the rest of the body and the further delta events are counted, not stored, and
/// a marker chunk (an SSE comment, so the recorded body still decodes) says how much was
/// left out. Events that end items or the response (`ItemDone`, `Usage`, `Completed`, …)
/// are always kept: they are what the inspector's summary and replays need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordLimits {
    /// Body bytes kept (default 4 MiB).
    pub max_body_bytes: usize,
    /// Body pieces kept (default 50 000; each costs a timestamp and a slice).
    pub max_chunks: usize,
    /// Delta events kept (default 20 000), after consecutive deltas of the same kind were
    /// joined.
    pub max_delta_events: usize,
    /// Text of delta events kept, in bytes (default 4 MiB).
    pub max_delta_bytes: usize,
}

impl Default for RecordLimits {
    fn default() -> Self {
        RecordLimits {
            max_body_bytes: 4 * 1024 * 1024,
            max_chunks: 50_000,
            max_delta_events: 20_000,
            max_delta_bytes: 4 * 1024 * 1024,
        }
    }
}

/// Builds the [`Exchange`] of one attempt while it runs.
///
/// Recording stays off the hot path's allocator: body pieces are kept as the `Bytes` the
/// connection produced (a reference count, no copy) and turned into text once, when the
/// attempt ends; consecutive delta events of one kind are joined into one recorded event
/// (one growing string instead of a copy per delta; the joined text is the same); the
/// request body is the request's own shared `Bytes` until then.
pub(crate) struct Recorder {
    exchange: Exchange,
    started: Instant,
    request_body: bytes::Bytes,
    chunks: Vec<(u32, bytes::Bytes)>,
    kept_bytes: usize,
    dropped_bytes: u64,
    dropped_chunks: u64,
    delta_events: usize,
    delta_bytes: usize,
    dropped_events: u64,
    limits: RecordLimits,
    /// The key sent, to scrub from the record.
    secret: Option<Arc<str>>,
}

impl Recorder {
    /// Starts recording attempt `attempt` of a request.
    /// `headers` are the headers actually sent (auth included; it is redacted here).
    pub(crate) fn start(
        meta: &ExchangeMeta,
        wire: Wire,
        request: &RenderedRequest,
        headers: &[(String, String)],
        attempt: u32,
        secret: Option<Arc<str>>,
    ) -> Self {
        let summary = ExchangeSummary {
            id: format!("{}-{attempt}", meta.id),
            turn_id: meta.turn_id.clone(),
            purpose: meta.purpose.clone(),
            harness: meta.harness.clone(),
            wire,
            route: meta.route.clone(),
            prompt_source: meta.prompt_source.clone(),
            provider: meta.provider.clone(),
            model: meta.model.clone(),
            method: request.method.clone(),
            url: redact_url(&request.url),
            status: None,
            started_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            ttfb_ms: None,
            total_ms: None,
            usage: None,
            attempt,
            outcome: String::new(),
        };
        Recorder {
            exchange: Exchange {
                summary,
                request_headers: headers.iter().map(|(n, v)| header(n, v)).collect(),
                request_body: String::new(),
                response_headers: Vec::new(),
                response_chunks: Vec::new(),
                events: Vec::new(),
                error: None,
            },
            started: Instant::now(),
            request_body: request.body.clone(),
            chunks: Vec::new(),
            kept_bytes: 0,
            dropped_bytes: 0,
            dropped_chunks: 0,
            delta_events: 0,
            delta_bytes: 0,
            dropped_events: 0,
            limits: RecordLimits::default(),
            secret: secret.filter(|s| s.len() >= MIN_SCRUB_LEN),
        }
    }

    /// Replaces the record caps.
    pub(crate) fn with_limits(mut self, limits: RecordLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Milliseconds since the request was sent.
    pub(crate) fn elapsed_ms(&self) -> u32 {
        u32::try_from(self.started.elapsed().as_millis()).unwrap_or(u32::MAX)
    }

    /// Records the status line and headers of the response.
    pub(crate) fn response(&mut self, status: u16, headers: &HeaderMap) {
        self.exchange.summary.status = Some(status);
        self.exchange.response_headers = headers
            .iter()
            .map(|(name, value)| header(name.as_str(), &String::from_utf8_lossy(value.as_bytes())))
            .collect();
    }

    /// Records a piece of the body (a reference to it; text is made when the record ends).
    pub(crate) fn chunk(&mut self, bytes: &bytes::Bytes) {
        let t_ms = self.elapsed_ms();
        if self.exchange.summary.ttfb_ms.is_none() {
            self.exchange.summary.ttfb_ms = Some(t_ms);
        }
        if self.dropped_chunks > 0
            || self.chunks.len() >= self.limits.max_chunks
            || self.kept_bytes + bytes.len() > self.limits.max_body_bytes
        {
            // Keep the start of a piece that crosses the cap, so the record fills up to it.
            let room = self.limits.max_body_bytes.saturating_sub(self.kept_bytes);
            if self.dropped_chunks == 0 && room > 0 && self.chunks.len() < self.limits.max_chunks {
                self.chunks.push((t_ms, bytes.slice(..room)));
                self.kept_bytes += room;
                self.dropped_bytes += (bytes.len() - room) as u64;
            } else {
                self.dropped_bytes += bytes.len() as u64;
            }
            self.dropped_chunks += 1;
            return;
        }
        self.kept_bytes += bytes.len();
        // A slice keeps its whole network read buffer alive (~4 KiB or more), so a slow
        // stream of tiny reads would hold far more than the cap counts: small pieces are
        // copied out, large ones shared.
        let piece = if bytes.len() < SHARE_AT_LEAST {
            bytes::Bytes::copy_from_slice(bytes)
        } else {
            bytes.clone()
        };
        self.chunks.push((t_ms, piece));
    }

    /// Records a decoded event: a delta is joined to the previous recorded event when that
    /// is a delta of the same kind (and call), so a long answer records as few events.
    pub(crate) fn event(&mut self, event: &StreamEvent) {
        let len = match event {
            StreamEvent::TextDelta { text } | StreamEvent::ReasoningDelta { text, .. } => {
                text.len()
            }
            StreamEvent::ToolCallDelta { delta, .. } => delta.len(),
            StreamEvent::Usage { usage } => {
                self.exchange.summary.usage = Some(*usage);
                self.exchange.events.push(event.clone());
                return;
            }
            _ => {
                self.exchange.events.push(event.clone());
                return;
            }
        };
        if self.dropped_events > 0 || self.delta_bytes + len > self.limits.max_delta_bytes {
            self.dropped_events += 1;
            return;
        }
        self.delta_bytes += len;
        let joined = match (self.exchange.events.last_mut(), event) {
            (Some(StreamEvent::TextDelta { text: last }), StreamEvent::TextDelta { text }) => {
                last.push_str(text);
                true
            }
            (
                Some(StreamEvent::ReasoningDelta {
                    text: last,
                    summary: last_summary,
                }),
                StreamEvent::ReasoningDelta { text, summary },
            ) if last_summary == summary => {
                last.push_str(text);
                true
            }
            (
                Some(StreamEvent::ToolCallDelta {
                    call_id: last_id,
                    delta: last,
                }),
                StreamEvent::ToolCallDelta { call_id, delta },
            ) if last_id == call_id => {
                last.push_str(delta);
                true
            }
            _ => false,
        };
        if joined {
            return;
        }
        if self.delta_events >= self.limits.max_delta_events {
            self.delta_bytes -= len;
            self.dropped_events += 1;
            return;
        }
        self.delta_events += 1;
        self.exchange.events.push(event.clone());
    }

    /// Usage recorded so far.
    pub(crate) fn usage(&self) -> Option<Usage> {
        self.exchange.summary.usage
    }

    /// Ends the record: `error` (if any) sets the outcome, else `ok`. Turns the body into
    /// text, adds the marker of what the caps left out, scrubs the key from everything and
    /// returns the exchange for the sink.
    pub(crate) fn finish(mut self, error: Option<&ModelError>) -> Exchange {
        self.exchange.request_body = String::from_utf8_lossy(&self.request_body).into_owned();
        self.exchange.response_chunks = chunks_as_text(std::mem::take(&mut self.chunks));
        if self.dropped_bytes > 0 || self.dropped_events > 0 {
            let t_ms = self.elapsed_ms();
            self.exchange.response_chunks.push(ResponseChunk {
                t_ms,
                data: omitted_marker(
                    self.dropped_bytes,
                    self.dropped_chunks,
                    self.dropped_events,
                    &self.limits,
                ),
            });
        }
        self.exchange.summary.total_ms = Some(self.elapsed_ms());
        self.exchange.summary.outcome = match error {
            Some(e) => e.kind.as_str().to_string(),
            None => "ok".to_string(),
        };
        self.exchange.error = error.cloned();
        if let Some(secret) = &self.secret {
            scrub_exchange(&mut self.exchange, secret);
        }
        self.exchange
    }
}

/// The marker chunk for what the record caps left out: an SSE comment line, so a recorded
/// body still frames and decodes as far as it goes.
fn omitted_marker(bytes: u64, chunks: u64, events: u64, limits: &RecordLimits) -> String {
    let mut parts = Vec::new();
    if bytes > 0 {
        parts.push(format!(
            "{} of the body in {chunks} piece(s) after the first {}",
            crate::sse::human_bytes(bytes),
            crate::sse::human_bytes(limits.max_body_bytes as u64)
        ));
    }
    if events > 0 {
        parts.push(format!(
            "{events} delta event(s) after the first {}",
            limits.max_delta_events
        ));
    }
    format!(
        "\n: tack: not recorded (exchange record cap): {}\n\n",
        parts.join("; ")
    )
}

/// The body pieces as text. A character split between pieces is stored whole in the piece
/// where it ends; bytes that are not UTF-8 at all become U+FFFD.
fn chunks_as_text(chunks: Vec<(u32, bytes::Bytes)>) -> Vec<ResponseChunk> {
    let mut out = Vec::with_capacity(chunks.len() + 1);
    let mut carry: Vec<u8> = Vec::new();
    let mut last_t = 0;
    for (t_ms, bytes) in chunks {
        last_t = t_ms;
        let mut joined;
        let bytes: &[u8] = if carry.is_empty() {
            &bytes
        } else {
            joined = std::mem::take(&mut carry);
            joined.extend_from_slice(&bytes);
            &joined[..]
        };
        let data = match std::str::from_utf8(bytes) {
            Ok(text) => text.to_string(),
            Err(e) if e.error_len().is_none() => {
                // Incomplete character at the end: keep its bytes for the next piece.
                let valid = e.valid_up_to();
                carry = bytes[valid..].to_vec();
                String::from_utf8_lossy(&bytes[..valid]).into_owned()
            }
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        };
        out.push(ResponseChunk { t_ms, data });
    }
    if !carry.is_empty() {
        out.push(ResponseChunk {
            t_ms: last_t,
            data: String::from_utf8_lossy(&carry).into_owned(),
        });
    }
    out
}

/// A recorded header, its value redacted when the name is a credential.
fn header(name: &str, value: &str) -> Header {
    let name = name.to_ascii_lowercase();
    let value = if is_secret_header(&name) {
        REDACTED.to_string()
    } else {
        value.to_string()
    };
    Header { name, value }
}

/// `url` with the values of credential-like query parameters and any user information
/// (`user:password@`, which HTTP clients turn into Basic auth) replaced by `[REDACTED]`.
pub fn redact_url(url: &str) -> String {
    let url = redact_userinfo(url);
    let Some((base, query)) = url.split_once('?') else {
        return url;
    };
    let (query, fragment) = match query.split_once('#') {
        Some((q, f)) => (q, Some(f)),
        None => (query, None),
    };
    let mut out = String::with_capacity(url.len());
    out.push_str(base);
    out.push('?');
    for (i, pair) in query.split('&').enumerate() {
        if i > 0 {
            out.push('&');
        }
        match pair.split_once('=') {
            Some((name, _)) if is_secret_param(name) => {
                out.push_str(name);
                out.push('=');
                out.push_str(REDACTED);
            }
            _ => out.push_str(pair),
        }
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// `scheme://user:pass@host/…` → `scheme://[REDACTED]@host/…`; other URLs unchanged.
fn redact_userinfo(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let authority_end = url[scheme_end..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| scheme_end + i);
    match url[scheme_end..authority_end].rfind('@') {
        Some(at) => format!(
            "{}{REDACTED}{}",
            &url[..scheme_end],
            &url[scheme_end + at..]
        ),
        None => url.to_string(),
    }
}

fn is_secret_param(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    is_secret_header(&lower)
        || ["key", "token", "secret", "sig", "password", "credential"]
            .iter()
            .any(|needle| lower.contains(needle))
}

/// Replaces every occurrence of `secret` in the exchange.
fn scrub_exchange(exchange: &mut Exchange, secret: &str) {
    let finder = memmem::Finder::new(secret.as_bytes());
    let scrub = |s: &mut String| {
        if finder.find(s.as_bytes()).is_some() {
            *s = s.replace(secret, REDACTED);
        }
    };
    scrub(&mut exchange.summary.url);
    scrub(&mut exchange.request_body);
    for h in exchange
        .request_headers
        .iter_mut()
        .chain(exchange.response_headers.iter_mut())
    {
        scrub(&mut h.value);
    }
    if let Some(error) = &mut exchange.error {
        scrub(&mut error.message);
        if let Some(hint) = &mut error.hint {
            scrub(hint);
        }
    }
    scrub_chunks(&mut exchange.response_chunks, secret, &finder);
    scrub_events(&mut exchange.events, secret);
}

/// Scrubs `secret` from the concatenation of the chunks: an occurrence that spans chunks is
/// replaced in the chunk where it starts and removed from the following ones.
fn scrub_chunks(chunks: &mut [ResponseChunk], secret: &str, finder: &memmem::Finder<'_>) {
    let joined: String = chunks.iter().map(|c| c.data.as_str()).collect();
    let hits: Vec<usize> = finder.find_iter(joined.as_bytes()).collect();
    if hits.is_empty() {
        return;
    }
    let mut start = 0;
    for chunk in chunks.iter_mut() {
        let end = start + chunk.data.len();
        let mut rebuilt = String::with_capacity(chunk.data.len());
        let mut pos = start;
        for &hit in &hits {
            let hit_end = hit + secret.len();
            if hit_end <= start || hit >= end {
                continue;
            }
            let from = hit.max(start);
            if from > pos {
                rebuilt.push_str(&joined[pos..from]);
            }
            if hit >= start {
                rebuilt.push_str(REDACTED);
            }
            pos = pos.max(hit_end.min(end));
        }
        if pos < end {
            rebuilt.push_str(&joined[pos..end]);
        }
        chunk.data = rebuilt;
        start = end;
    }
}

fn scrub_events(events: &mut [StreamEvent], secret: &str) {
    for event in events.iter_mut() {
        let Ok(text) = serde_json::to_string(event) else {
            continue;
        };
        if !text.contains(secret) {
            continue;
        }
        let Ok(mut value) = serde_json::to_value(&*event) else {
            continue;
        };
        scrub_value(&mut value, secret);
        if let Ok(clean) = serde_json::from_value(value) {
            *event = clean;
        }
    }
}

/// Replaces `secret` in every string of `value`. Iterative: the value is built from an
/// event, whose depth is whatever the model's output nested to, and a walk must not spend
/// stack on it.
fn scrub_value(value: &mut Value, secret: &str) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(s) if s.contains(secret) => *s = s.replace(secret, REDACTED),
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
}

/// The error recorded when a stream is dropped before it ended.
pub(crate) fn dropped_error() -> ModelError {
    ModelError::new(
        ErrorKind::Cancelled,
        "the response stream was dropped before it ended",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_query_values_are_masked() {
        assert_eq!(
            redact_url("https://h/v1/chat/completions?key=abc&beta=true&X-Api-Key=z#f"),
            "https://h/v1/chat/completions?key=[REDACTED]&beta=true&X-Api-Key=[REDACTED]#f"
        );
        assert_eq!(redact_url("https://h/x"), "https://h/x");
    }

    #[test]
    fn user_information_is_masked() {
        assert_eq!(
            redact_url("http://user:sk-secret@127.0.0.1:8/v1?key=k"),
            "http://[REDACTED]@127.0.0.1:8/v1?key=[REDACTED]"
        );
        assert_eq!(
            redact_url("https://h/v1/a@b?x=1"),
            "https://h/v1/a@b?x=1",
            "an @ after the host is not user information"
        );
        assert_eq!(redact_url("not a url"), "not a url");
    }

    #[test]
    fn secrets_split_across_chunks_are_scrubbed() {
        let secret = "sk-canary-0123456789";
        let mut chunks = vec![
            ResponseChunk {
                t_ms: 0,
                data: "a sk-can".into(),
            },
            ResponseChunk {
                t_ms: 1,
                data: "ary-01".into(),
            },
            ResponseChunk {
                t_ms: 2,
                data: "23456789 b sk-canary-0123456789!".into(),
            },
        ];
        let finder = memmem::Finder::new(secret.as_bytes());
        scrub_chunks(&mut chunks, secret, &finder);
        let data: Vec<&str> = chunks.iter().map(|c| c.data.as_str()).collect();
        assert_eq!(data, ["a [REDACTED]", "", " b [REDACTED]!"]);
    }

    #[test]
    fn split_utf8_is_joined_in_records() {
        let request = RenderedRequest {
            method: "POST".into(),
            url: "http://h".into(),
            headers: Vec::new(),
            body: bytes::Bytes::from_static(b"{}"),
            stream: true,
        };
        let mut r = Recorder::start(
            &ExchangeMeta::default(),
            Wire::Chat,
            &request,
            &[("Authorization".into(), "Bearer x".into())],
            1,
            None,
        );
        let bytes = bytes::Bytes::from_static("Olá".as_bytes());
        r.chunk(&bytes.slice(..3));
        r.chunk(&bytes.slice(3..));
        let ex = r.finish(None);
        assert_eq!(ex.response_chunks[0].data, "Ol");
        assert_eq!(ex.response_chunks[1].data, "á");
        assert_eq!(ex.request_headers[0].value, REDACTED);
        assert_eq!(ex.summary.outcome, "ok");
    }
}
