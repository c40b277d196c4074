//! Rendering: [`ShapedRequest`] → the HTTP request for one wire.
//!
//! Rendering is pure and deterministic (same input, same bytes; `serde_json` keeps insertion
//! order workspace-wide), which is what lets the inspector show one step on every wire side by
//! side and lets golden tests pin exact bodies. A [`RenderedRequest`] never holds credentials:
//! the client adds the auth header at send time (see [`crate::client::Auth`]).
//!
//! One file per wire: [`chat`] renders OpenAI Chat Completions, [`responses`] OpenAI
//! Responses, [`messages`] Anthropic Messages. Each module documents the exact body it writes
//! and where the field names come from.

pub mod chat;
pub mod messages;
pub mod responses;

mod json;

use serde_json::Value;
use tack_protocol::Wire;

use crate::{Block, ResultPart, ShapedRequest, SystemBlock};

/// `anthropic-version` sent on the Messages wire unless the request sets its own (the current
/// version of the Messages API; Anthropic API reference, "Versions").
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Where a provider listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Base URL from the provider config, e.g. `https://api.openai.com/v1`,
    /// `https://api.anthropic.com` or `http://127.0.0.1:11434/v1`. A trailing `/` is ignored.
    pub base_url: String,
}

impl Endpoint {
    /// An endpoint at `base_url`.
    pub fn new(base_url: impl Into<String>) -> Self {
        Endpoint {
            base_url: base_url.into(),
        }
    }

    /// The request URL of `wire` under this base: Chat `{base}/chat/completions`, Responses
    /// `{base}/responses`, Messages `{base}/v1/messages` (or `{base}/messages` when the base
    /// already ends in `/v1`, as Anthropic-compatible hosts are often configured). `query`
    /// pairs are appended percent-encoded, after any query the base already has.
    pub fn url(&self, wire: Wire, query: &[(String, String)]) -> String {
        let (base, base_query) = match self.base_url.split_once('?') {
            Some((base, q)) => (base, Some(q)),
            None => (self.base_url.as_str(), None),
        };
        let base = base.trim_end_matches('/');
        let path = match wire {
            Wire::Chat => "/chat/completions",
            Wire::Responses => "/responses",
            Wire::Messages if base.ends_with("/v1") => "/messages",
            Wire::Messages => "/v1/messages",
        };
        let mut url = String::with_capacity(base.len() + path.len() + 32);
        url.push_str(base);
        url.push_str(path);
        let mut sep = '?';
        if let Some(q) = base_query.filter(|q| !q.is_empty()) {
            url.push('?');
            url.push_str(q);
            sep = '&';
        }
        for (name, value) in query {
            url.push(sep);
            sep = '&';
            percent_encode_into(&mut url, name);
            url.push('=');
            percent_encode_into(&mut url, value);
        }
        url
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn percent_encode_into(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 0xf) as usize] as char);
        }
    }
}

/// An HTTP request ready to send, minus credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedRequest {
    /// HTTP method (`POST` for every wire).
    pub method: String,
    /// Full URL, see [`Endpoint::url`].
    pub url: String,
    /// Headers in sending order, lowercase names: `content-type: application/json`,
    /// `accept: text/event-stream` when streaming, then [`ShapedRequest::headers`]. No auth.
    pub headers: Vec<(String, String)>,
    /// The JSON body, exactly as it is sent and recorded; shared (not copied) by every
    /// attempt and its record.
    pub body: bytes::Bytes,
    /// Whether the body asks for an SSE stream (its top-level `stream` is `true`, after
    /// `extra_body` was applied). When false the client reads one JSON reply instead.
    pub stream: bool,
}

/// Why a request could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// A message has a block the wire cannot carry where it stands (e.g. a tool call in a
    /// user message).
    #[error("message {index}: {reason}")]
    InvalidMessage {
        /// Index in [`ShapedRequest::messages`].
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// A parameter cannot be encoded (e.g. a temperature that is not a finite number).
    #[error("invalid parameter: {0}")]
    InvalidParam(String),
}

/// Renders `req` for `wire` at `endpoint`.
///
/// Headers: `content-type: application/json`, `accept: text/event-stream` when streaming, on
/// Messages `anthropic-version: 2023-06-01` (unless [`ShapedRequest::headers`] sets one), then
/// [`ShapedRequest::headers`] (e.g. `anthropic-beta`) with lowercased names.
///
/// # Errors
/// [`RenderError::InvalidMessage`] for blocks the wire cannot place (e.g. a tool call in a user
/// message, an image URL Messages cannot carry); [`RenderError::InvalidParam`] for non-finite
/// temperatures and the like.
pub fn render(
    req: &ShapedRequest,
    wire: Wire,
    endpoint: &Endpoint,
) -> Result<RenderedRequest, RenderError> {
    let Body { mut bytes, stream } = match wire {
        Wire::Chat => chat::body(req)?,
        Wire::Responses => responses::body(req)?,
        Wire::Messages => messages::body(req)?,
    };
    if !req.options.field_order.is_empty() {
        bytes = reorder_fields(&bytes, &req.options.field_order)?;
    }
    let mut headers = Vec::with_capacity(3 + req.headers.len());
    // The request's own headers replace these defaults (e.g. a CLI that sends
    // `accept: application/json` even when streaming).
    let overridden = |name: &str| {
        req.headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    };
    if !overridden("content-type") {
        headers.push(("content-type".to_string(), "application/json".to_string()));
    }
    if stream && !overridden("accept") {
        headers.push(("accept".to_string(), "text/event-stream".to_string()));
    }
    if wire == Wire::Messages
        && !req
            .headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("anthropic-version"))
    {
        headers.push((
            "anthropic-version".to_string(),
            ANTHROPIC_VERSION.to_string(),
        ));
    }
    for (name, value) in &req.headers {
        headers.push((name.to_ascii_lowercase(), value.clone()));
    }
    Ok(RenderedRequest {
        method: "POST".to_string(),
        url: endpoint.url(wire, &req.query),
        headers,
        body: bytes.into(),
        stream,
    })
}

/// Puts the listed top-level keys first, in order; the rest keep their order. Re-serializing
/// with serde_json gives the same bytes for values (its escaping is what the renderers match).
fn reorder_fields(body: &[u8], order: &[String]) -> Result<Vec<u8>, RenderError> {
    let value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| RenderError::InvalidParam(format!("rendered body is not JSON: {e}")))?;
    let serde_json::Value::Object(mut map) = value else {
        return Ok(body.to_vec());
    };
    let mut sorted = serde_json::Map::with_capacity(map.len());
    for key in order {
        if let Some(v) = map.shift_remove(key) {
            sorted.insert(key.clone(), v);
        }
    }
    sorted.extend(map);
    serde_json::to_vec(&serde_json::Value::Object(sorted))
        .map_err(|e| RenderError::InvalidParam(e.to_string()))
}

/// A rendered body and whether it asks for a stream.
pub(crate) struct Body {
    pub(crate) bytes: Vec<u8>,
    pub(crate) stream: bool,
}

/// Whether the body asks for a stream: `extra_body.stream` decides when present.
pub(crate) fn stream_flag(req: &ShapedRequest) -> bool {
    match req.extra_body.get("stream") {
        Some(v) => v == &Value::Bool(true),
        None => req.params.stream,
    }
}

/// `v` if finite; JSON has no NaN or infinity (serde_json would silently write `null`).
pub(crate) fn finite(name: &str, v: f64) -> Result<f64, RenderError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(RenderError::InvalidParam(format!(
            "{name} must be a finite number, got {v}"
        )))
    }
}

/// The system blocks as one text, joined by a blank line (Responses `instructions`).
pub(crate) fn joined_system(system: &[SystemBlock]) -> String {
    let mut text = String::with_capacity(system.iter().map(|b| b.text.len() + 2).sum());
    for (i, block) in system.iter().enumerate() {
        if i > 0 {
            text.push_str("\n\n");
        }
        text.push_str(&block.text);
    }
    text
}

/// A rough body size, so that long histories are written without regrowing the buffer.
pub(crate) fn estimate_size(req: &ShapedRequest) -> usize {
    let mut n = 256 + req.system.iter().map(|b| 48 + b.text.len()).sum::<usize>();
    for m in &req.messages {
        n += 48;
        for b in &m.content {
            n += 64
                + match b {
                    Block::Text { text, .. } => text.len(),
                    Block::Image { url, .. } => url.len(),
                    Block::ToolCall {
                        arguments,
                        custom_input,
                        ..
                    } => 64 + arguments.len() + custom_input.as_ref().map_or(0, String::len),
                    Block::ToolResult { content, .. } => content
                        .iter()
                        .map(|p| match p {
                            ResultPart::Text { text } => text.len(),
                            ResultPart::Image { url } => url.len(),
                        })
                        .sum(),
                    Block::Thinking {
                        text,
                        signature,
                        encrypted_content,
                        summary,
                    } => {
                        text.len()
                            + signature.as_ref().map_or(0, String::len)
                            + encrypted_content.as_ref().map_or(0, String::len)
                            + summary.iter().map(String::len).sum::<usize>()
                    }
                    Block::RedactedThinking { data } => data.len(),
                };
        }
    }
    // Text grows a little when escaped (quotes and newlines in code).
    n + n / 16 + req.tools.len() * 512
}

/// Writes a JSON array item by item.
pub(crate) struct ListWriter<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> ListWriter<'a> {
    /// Opens the array.
    pub(crate) fn open(out: &'a mut Vec<u8>) -> Self {
        out.push(b'[');
        ListWriter { out, first: true }
    }

    /// The buffer to write the next item into (the separator is already written).
    pub(crate) fn item(&mut self) -> &mut Vec<u8> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.out
    }

    /// Closes the array.
    pub(crate) fn finish(self) {
        self.out.push(b']');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_join_per_wire() {
        let q = [];
        let e = Endpoint::new("https://api.openai.com/v1/");
        assert_eq!(
            e.url(Wire::Chat, &q),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(
            e.url(Wire::Responses, &q),
            "https://api.openai.com/v1/responses"
        );
        assert_eq!(
            e.url(Wire::Messages, &q),
            "https://api.openai.com/v1/messages"
        );
        let a = Endpoint::new("https://api.anthropic.com");
        assert_eq!(
            a.url(Wire::Messages, &q),
            "https://api.anthropic.com/v1/messages"
        );
        let local = Endpoint::new("http://127.0.0.1:8080//");
        assert_eq!(
            local.url(Wire::Chat, &q),
            "http://127.0.0.1:8080/chat/completions"
        );
    }

    #[test]
    fn query_is_appended_and_encoded() {
        let e = Endpoint::new("https://h/v1?api-version=2024");
        let q = [
            ("beta".to_string(), "true".to_string()),
            ("a b".into(), "x&y".into()),
        ];
        assert_eq!(
            e.url(Wire::Messages, &q),
            "https://h/v1/messages?api-version=2024&beta=true&a%20b=x%26y"
        );
        let plain = Endpoint::new("https://h");
        assert_eq!(
            plain.url(Wire::Chat, &q[..1]),
            "https://h/chat/completions?beta=true"
        );
    }

    #[test]
    fn anthropic_version_is_added_once() {
        let mut req = ShapedRequest::default();
        let headers =
            |req: &ShapedRequest, wire| render(req, wire, &Endpoint::new("x")).unwrap().headers;
        let version = (
            "anthropic-version".to_string(),
            ANTHROPIC_VERSION.to_string(),
        );
        assert!(headers(&req, Wire::Messages).contains(&version));
        assert!(!headers(&req, Wire::Chat).contains(&version));
        req.headers
            .push(("Anthropic-Version".into(), "2099-01-01".into()));
        let got = headers(&req, Wire::Messages);
        assert_eq!(
            got.iter()
                .filter(|(n, _)| n == "anthropic-version")
                .collect::<Vec<_>>(),
            [&("anthropic-version".to_string(), "2099-01-01".to_string())]
        );
    }
}
