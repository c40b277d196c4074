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

/// Builds the [`Exchange`] of one attempt while it runs.
pub(crate) struct Recorder {
    exchange: Exchange,
    started: Instant,
    /// Bytes of an incomplete UTF-8 character at the end of the last chunk.
    utf8_carry: Vec<u8>,
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
                request_body: String::from_utf8_lossy(&request.body).into_owned(),
                response_headers: Vec::new(),
                response_chunks: Vec::new(),
                events: Vec::new(),
                error: None,
            },
            started: Instant::now(),
            utf8_carry: Vec::new(),
            secret: secret.filter(|s| s.len() >= MIN_SCRUB_LEN),
        }
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

    /// Records a piece of the body. Characters split between pieces are stored whole in the
    /// piece where they end.
    pub(crate) fn chunk(&mut self, bytes: &[u8]) {
        let t_ms = self.elapsed_ms();
        if self.exchange.summary.ttfb_ms.is_none() {
            self.exchange.summary.ttfb_ms = Some(t_ms);
        }
        let mut joined;
        let bytes = if self.utf8_carry.is_empty() {
            bytes
        } else {
            joined = std::mem::take(&mut self.utf8_carry);
            joined.extend_from_slice(bytes);
            &joined[..]
        };
        let data = match std::str::from_utf8(bytes) {
            Ok(text) => text.to_string(),
            Err(e) if e.error_len().is_none() => {
                // Incomplete character at the end: keep its bytes for the next piece.
                let valid = e.valid_up_to();
                self.utf8_carry = bytes[valid..].to_vec();
                String::from_utf8_lossy(&bytes[..valid]).into_owned()
            }
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        };
        self.exchange
            .response_chunks
            .push(ResponseChunk { t_ms, data });
    }

    /// Records a decoded event.
    pub(crate) fn event(&mut self, event: &StreamEvent) {
        if let StreamEvent::Usage { usage } = event {
            self.exchange.summary.usage = Some(*usage);
        }
        self.exchange.events.push(event.clone());
    }

    /// Usage recorded so far.
    pub(crate) fn usage(&self) -> Option<Usage> {
        self.exchange.summary.usage
    }

    /// Ends the record: `error` (if any) sets the outcome, else `ok`. Scrubs the key from
    /// everything and returns the exchange for the sink.
    pub(crate) fn finish(mut self, error: Option<&ModelError>) -> Exchange {
        if !self.utf8_carry.is_empty() {
            let rest = String::from_utf8_lossy(&self.utf8_carry).into_owned();
            let t_ms = self.elapsed_ms();
            self.exchange
                .response_chunks
                .push(ResponseChunk { t_ms, data: rest });
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

fn scrub_value(value: &mut Value, secret: &str) {
    match value {
        Value::String(s) if s.contains(secret) => *s = s.replace(secret, REDACTED),
        Value::Array(items) => items.iter_mut().for_each(|v| scrub_value(v, secret)),
        Value::Object(map) => map.values_mut().for_each(|v| scrub_value(v, secret)),
        _ => {}
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
            body: b"{}".to_vec(),
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
        let bytes = "Olá".as_bytes();
        r.chunk(&bytes[..3]);
        r.chunk(&bytes[3..]);
        let ex = r.finish(None);
        assert_eq!(ex.response_chunks[0].data, "Ol");
        assert_eq!(ex.response_chunks[1].data, "á");
        assert_eq!(ex.request_headers[0].value, REDACTED);
        assert_eq!(ex.summary.outcome, "ok");
    }
}
