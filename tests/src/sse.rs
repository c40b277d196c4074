//! Builders for scripted SSE bodies, for tests that need a stream no real capture has.
//!
//! Frames follow the WHATWG server-sent events format: one `data:` line per frame, frames
//! separated by a blank line. The JSON in each frame is compact (no spaces), as OpenAI sends it.

use serde_json::Value;

/// A Chat Completions stream body: one `data: <json>` frame per chunk, then `data: [DONE]`,
/// the terminator OpenAI's Chat Completions stream ends with.
///
/// ```
/// use serde_json::json;
/// let body = tack_tests::chat_sse(&[json!({"choices": [{"index": 0, "delta": {"content": "hi"}}]})]);
/// assert_eq!(
///     String::from_utf8(body).unwrap(),
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"
/// );
/// ```
pub fn chat_sse(chunks: &[Value]) -> Vec<u8> {
    let mut body = data_sse(chunks);
    body.extend_from_slice(b"data: [DONE]\n\n");
    body
}

/// Frames with `data:` lines only and no terminator (e.g. OpenRouter's Responses stream,
/// which sends no `event:` lines).
pub fn data_sse(payloads: &[Value]) -> Vec<u8> {
    let mut body = Vec::new();
    for payload in payloads {
        body.extend_from_slice(b"data: ");
        body.extend_from_slice(payload.to_string().as_bytes());
        body.extend_from_slice(b"\n\n");
    }
    body
}

/// A Responses or Messages stream body: each frame is `event: <type>` then `data: <json>`,
/// with the event name taken from the payload's `"type"` field, as both OpenAI Responses and
/// Anthropic Messages streams do. A payload without a string `"type"` gets no `event:` line.
///
/// ```
/// use serde_json::json;
/// let body = tack_tests::event_sse(&[json!({"type": "message_stop"})]);
/// assert_eq!(
///     String::from_utf8(body).unwrap(),
///     "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
/// );
/// ```
pub fn event_sse(payloads: &[Value]) -> Vec<u8> {
    let mut body = Vec::new();
    for payload in payloads {
        if let Some(kind) = payload.get("type").and_then(Value::as_str) {
            body.extend_from_slice(b"event: ");
            body.extend_from_slice(kind.as_bytes());
            body.push(b'\n');
        }
        body.extend_from_slice(b"data: ");
        body.extend_from_slice(payload.to_string().as_bytes());
        body.extend_from_slice(b"\n\n");
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chat_stream_ends_with_done() {
        let body = chat_sse(&[json!({"a": 1}), json!({"b": "x y"})]);
        assert_eq!(
            String::from_utf8(body).unwrap(),
            "data: {\"a\":1}\n\ndata: {\"b\":\"x y\"}\n\ndata: [DONE]\n\n"
        );
    }

    #[test]
    fn empty_chat_stream_is_only_done() {
        assert_eq!(chat_sse(&[]), b"data: [DONE]\n\n");
    }

    #[test]
    fn event_names_come_from_type() {
        let body = event_sse(&[json!({"type": "response.created"}), json!({"x": 1})]);
        assert_eq!(
            String::from_utf8(body).unwrap(),
            "event: response.created\ndata: {\"type\":\"response.created\"}\n\ndata: {\"x\":1}\n\n"
        );
    }

    #[test]
    fn key_order_is_kept() {
        // The workspace enables serde_json's preserve_order; scripted streams rely on it to
        // look like real ones.
        let body = data_sse(&[json!({"z": 1, "a": 2})]);
        assert_eq!(body, b"data: {\"z\":1,\"a\":2}\n\n");
    }
}
