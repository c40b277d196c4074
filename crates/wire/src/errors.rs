//! Error classification: HTTP error replies, provider errors inside streams and transport
//! failures → [`ModelError`].
//!
//! Sources of the facts: OpenAI error objects `{"error":{"message","type","param","code"}}`
//! (codes `context_length_exceeded`, `insufficient_quota`, `rate_limit_exceeded`), Anthropic
//! `{"type":"error","error":{"type":"overloaded_error"|"rate_limit_error"|…,"message"}}` and
//! its "prompt is too long" message, OpenRouter's in-stream `{"error":{"code":<number>,
//! "message"}}`, Groq's `event: error` with `code: "tool_use_failed"`, HTTP 529 (Anthropic
//! overloaded), `Retry-After` (RFC 9110, seconds or HTTP-date) and OpenAI's `retry-after-ms`.
//!
//! Messages carry the provider's own text (truncated to [`MAX_PROVIDER_MESSAGE`] characters)
//! but never a request header; the client additionally scrubs the key it sent from anything
//! it records (a proxy might echo it).

use reqwest::header::HeaderMap;
use serde_json::Value;
use tack_protocol::{ErrorKind, ModelError};

/// Longest provider message kept in a [`ModelError`], in characters.
pub const MAX_PROVIDER_MESSAGE: usize = 600;

/// Classifies a non-2xx HTTP reply from its status, headers and (possibly partial) body.
///
/// 429 → `rate_limit` (with `retry_after_ms` from `retry-after-ms` or `Retry-After`), unless the
/// body says `insufficient_quota` (OpenAI answers 429 for an empty account) → `quota_exhausted`;
/// 401/403 → `auth`; 402 → `quota_exhausted`; 408 → `timeout`; 400/404/413/422 and other 4xx
/// → `bad_request`, or `context_length_exceeded` when the body says the prompt is too long;
/// 503/529 or an `overloaded_error` → `overloaded`; other 5xx → `server_error`; 3xx → `config`
/// (redirects are not followed, so the key never goes to another host: a moved API is a
/// configuration problem, and the message names where it points); 413 → `bad_request` saying
/// the request was too large (the client adds its size).
///
/// `Retry-After` as an HTTP date is measured against the reply's own `Date` header when it
/// has one (the server's clock; RFC 9110 §10.2.3), so a skewed local clock does not stretch
/// or cut the wait.
pub fn classify_http(status: u16, headers: &HeaderMap, body: &[u8]) -> ModelError {
    let detail = ProviderDetail::from_body(body);
    let reason = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    let redirect = (300..400).contains(&status);
    let kind = detail
        .kind()
        .filter(|k| overrides_status(*k, status) && !redirect)
        .unwrap_or_else(|| kind_for_status(status));
    let mut message = format!("HTTP {status}");
    if !reason.is_empty() {
        message.push(' ');
        message.push_str(reason);
    }
    if let Some(text) = detail.display() {
        message.push_str(": ");
        message.push_str(&text);
    }
    if redirect {
        // The provider's text (a small HTML page, usually) says nothing the location does not.
        message = match headers.get("location").and_then(|v| v.to_str().ok()) {
            Some(location) => format!(
                "HTTP {status}: the provider redirected to {} (not followed, so the key is never \
                 sent elsewhere)",
                crate::client::redact_url(&truncate(location, 200))
            ),
            None => format!(
                "HTTP {status}: the provider answered with a redirect without a location (not \
                 followed)"
            ),
        };
    }
    let now = server_now(headers);
    if let Some(asked) = requested_retry_after_ms(headers, now)
        && asked > u64::from(MAX_RETRY_AFTER_MS)
    {
        message.push_str(&format!(
            " (the provider asks to wait {}; Tack counts {} at most)",
            human_ms(asked),
            human_ms(u64::from(MAX_RETRY_AFTER_MS))
        ));
    }
    let mut error = ModelError::new(kind, message).with_status(status);
    error.retry_after_ms = retry_after_ms(headers, now);
    error.hint = match status {
        300..=399 => Some(
            "the base URL is not the API's address: use the address it redirects to (often \
             `https://` instead of `http://`, or a trailing `/v1`) if you trust it"
                .to_string(),
        ),
        413 => Some(
            "the request is larger than the provider accepts: compact the conversation, or \
             leave out large tool outputs or attachments"
                .to_string(),
        ),
        _ => hint(kind).map(str::to_string),
    };
    error
}

/// The server's clock: the reply's `Date` header (an IMF-fixdate, RFC 9110 §6.6.1), else the
/// local clock.
fn server_now(headers: &HeaderMap) -> chrono::DateTime<chrono::Utc> {
    headers
        .get(reqwest::header::DATE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| chrono::DateTime::parse_from_rfc2822(v.trim()).ok())
        .map_or_else(chrono::Utc::now, |d| d.with_timezone(&chrono::Utc))
}

/// Whether a kind found in the body should replace the status-based kind.
fn overrides_status(kind: ErrorKind, status: u16) -> bool {
    match kind {
        // A body saying "prompt too long" or "no credit" is more precise than 400/429/403.
        ErrorKind::ContextLengthExceeded | ErrorKind::QuotaExhausted => true,
        // Anthropic sends `overloaded_error` with 529, some gateways with 500 or 502.
        ErrorKind::Overloaded => status >= 500,
        ErrorKind::RateLimit => status == 429 || status >= 500,
        _ => false,
    }
}

fn kind_for_status(status: u16) -> ErrorKind {
    match status {
        300..=399 => ErrorKind::Config,
        401 | 403 => ErrorKind::Auth,
        402 => ErrorKind::QuotaExhausted,
        408 => ErrorKind::Timeout,
        429 => ErrorKind::RateLimit,
        503 | 529 => ErrorKind::Overloaded,
        500..=599 => ErrorKind::ServerError,
        _ => ErrorKind::BadRequest,
    }
}

fn hint(kind: ErrorKind) -> Option<&'static str> {
    Some(match kind {
        ErrorKind::Auth => {
            "check the provider's API key (the key in the keychain or the environment variable \
             named in the provider config) and that it may use this model"
        }
        ErrorKind::QuotaExhausted => "add credit or raise the spending limit with the provider",
        ErrorKind::ContextLengthExceeded => {
            "the conversation no longer fits the model's context window: compact it or start \
             a new session"
        }
        ErrorKind::RateLimit => "wait a moment, or lower the request rate",
        ErrorKind::Overloaded => "the provider is overloaded: try again shortly",
        ErrorKind::Unreachable => {
            "is the server running, and is the provider's base URL right (scheme, host, port)?"
        }
        ErrorKind::Timeout => "the provider stopped sending: try again, or raise the idle timeout",
        _ => return None,
    })
}

/// Classifies a provider error reported inside a stream: OpenRouter's top-level `error`
/// object in a chunk, the data of Groq's `event: error` frame (`{"error":{…}}`), or any
/// other JSON or text the server sent as the error.
///
/// Also used for Responses `error` events and `response.failed`'s `response.error`, and
/// Anthropic's `event: error` (`{"type":"error","error":{"type","message"}}`).
///
/// `tool_use_failed` (the provider rejected the model's own tool call) and unrecognized
/// errors → `provider_error`; rate limits → `rate_limit`; context errors →
/// `context_length_exceeded`; `insufficient_quota` → `quota_exhausted`; overload →
/// `overloaded`; Anthropic `api_error`, OpenAI `server_error` or a numeric code ≥ 500 →
/// `server_error`.
pub fn classify_stream_error(error: &Value) -> ModelError {
    let inner = error.get("error").unwrap_or(error);
    let detail = ProviderDetail::from_value(inner);
    let kind = detail.kind().unwrap_or(match detail.status {
        Some(429) => ErrorKind::RateLimit,
        Some(402) => ErrorKind::QuotaExhausted,
        Some(503 | 529) => ErrorKind::Overloaded,
        Some(500..=599) => ErrorKind::ServerError,
        _ => ErrorKind::ProviderError,
    });
    let text = detail
        .display()
        .unwrap_or_else(|| "the provider reported an error without a message".to_string());
    let mut error = ModelError::new(kind, format!("provider error in stream: {text}"));
    error.hint = hint(kind).map(str::to_string);
    error
}

/// Classifies the data of an `event: error` frame that may not be JSON at all.
pub fn classify_stream_error_bytes(data: &[u8]) -> ModelError {
    match serde_json::from_slice::<Value>(data) {
        Ok(value) => classify_stream_error(&value),
        Err(_) => classify_stream_error(&Value::String(String::from_utf8_lossy(data).into_owned())),
    }
}

/// Classifies a transport failure from reqwest. The message never holds the URL (it could
/// carry a key in its query); connect/DNS/TLS failures → `unreachable`, timeouts → `timeout`,
/// a body that broke off → `stream_truncated`, a request that could not be built → `config`.
pub fn classify_transport(err: &reqwest::Error) -> ModelError {
    let kind = if err.is_timeout() {
        ErrorKind::Timeout
    } else if err.is_builder() {
        ErrorKind::Config
    } else if err.is_body() || err.is_decode() {
        ErrorKind::StreamTruncated
    } else {
        ErrorKind::Unreachable
    };
    let what = match kind {
        ErrorKind::Timeout => "the request timed out",
        ErrorKind::Config => "the request could not be built",
        ErrorKind::StreamTruncated => "the connection broke while reading the response",
        _ if err.is_connect() => "could not connect to the provider",
        _ => "the request failed before a response arrived",
    };
    let mut message = what.to_string();
    let mut source = std::error::Error::source(err);
    // The chain below reqwest's own error names the cause (refused, DNS, TLS) without the URL.
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&truncate(&cause.to_string(), 300));
        source = cause.source();
    }
    let mut error = ModelError::new(kind, message);
    error.hint = hint(kind).map(str::to_string);
    error
}

/// Longest `Retry-After` kept, in milliseconds (one hour): a larger value (a misconfigured
/// proxy, a date years ahead) is capped, and the message says what the server asked for.
pub const MAX_RETRY_AFTER_MS: u32 = 60 * 60 * 1000;

/// `retry-after-ms` (OpenAI) or `Retry-After` (seconds, possibly fractional, or an
/// HTTP-date, RFC 9110 §10.2.3) in milliseconds, measured from `now` (pass the server's
/// clock, see [`classify_http`]). A date in the past is 0 (retry now); the result is capped
/// at [`MAX_RETRY_AFTER_MS`].
pub fn retry_after_ms(headers: &HeaderMap, now: chrono::DateTime<chrono::Utc>) -> Option<u32> {
    requested_retry_after_ms(headers, now).map(|ms| {
        u32::try_from(ms.min(u64::from(MAX_RETRY_AFTER_MS))).unwrap_or(MAX_RETRY_AFTER_MS)
    })
}

/// The uncapped wait the headers ask for, in milliseconds.
fn requested_retry_after_ms(
    headers: &HeaderMap,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<u64> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    let from_f64 = |ms: f64| ms.round().min(u64::MAX as f64) as u64;
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(from_f64(ms));
    }
    let value = header("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Some(from_f64(secs * 1000.0));
        }
        return None;
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let ms = (date.with_timezone(&chrono::Utc) - now)
        .num_milliseconds()
        .max(0);
    Some(u64::try_from(ms).unwrap_or(0))
}

/// `12 s`, `5 min`, `3.0 h`, `2.5 days`.
fn human_ms(ms: u64) -> String {
    let secs = ms as f64 / 1000.0;
    if secs < 120.0 {
        format!("{secs:.0} s")
    } else if secs < 7200.0 {
        format!("{:.0} min", secs / 60.0)
    } else if secs < 172_800.0 {
        format!("{:.1} h", secs / 3600.0)
    } else {
        format!("{:.1} days", secs / 86_400.0)
    }
}

/// Cuts `s` to at most `max` characters, marking the cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// What a provider said about an error.
#[derive(Default)]
struct ProviderDetail {
    message: Option<String>,
    code: Option<String>,
    kind_name: Option<String>,
    status: Option<u16>,
    /// The raw body when it was not a JSON error object.
    text: Option<String>,
}

impl ProviderDetail {
    fn from_body(body: &[u8]) -> Self {
        match serde_json::from_slice::<Value>(body) {
            Ok(value) => {
                // OpenAI/Anthropic/OpenRouter nest it under `error`; some servers use the top
                // level (`{"message": …}`, `{"detail": …}`), or send an array of such objects.
                let value = match value {
                    Value::Array(mut items) if !items.is_empty() => items.swap_remove(0),
                    other => other,
                };
                let inner = value.get("error").unwrap_or(&value);
                ProviderDetail::from_value(inner)
            }
            Err(_) => {
                let text = String::from_utf8_lossy(body).trim().to_string();
                ProviderDetail {
                    text: (!text.is_empty()).then_some(text),
                    ..ProviderDetail::default()
                }
            }
        }
    }

    fn from_value(value: &Value) -> Self {
        let string = |key: &str| match value.get(key) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        match value {
            Value::String(s) => ProviderDetail {
                text: Some(s.clone()),
                ..ProviderDetail::default()
            },
            Value::Object(_) => {
                let code = string("code");
                let status = value
                    .get("status_code")
                    .or_else(|| value.get("status"))
                    .or_else(|| value.get("code"))
                    .and_then(Value::as_u64)
                    .and_then(|n| u16::try_from(n).ok());
                ProviderDetail {
                    message: string("message").or_else(|| string("detail")),
                    code,
                    kind_name: string("type"),
                    status,
                    text: None,
                }
            }
            Value::Null => ProviderDetail::default(),
            other => ProviderDetail {
                text: Some(other.to_string()),
                ..ProviderDetail::default()
            },
        }
    }

    /// The kind the provider's code, type or message names, if any.
    fn kind(&self) -> Option<ErrorKind> {
        let code = self.code.as_deref().unwrap_or("").to_ascii_lowercase();
        let kind_name = self.kind_name.as_deref().unwrap_or("").to_ascii_lowercase();
        let message = self
            .message
            .as_deref()
            .or(self.text.as_deref())
            .unwrap_or("")
            .to_ascii_lowercase();
        let named = |needle: &str| code.contains(needle) || kind_name.contains(needle);
        if named("tool_use_failed") {
            return Some(ErrorKind::ProviderError);
        }
        if named("insufficient_quota")
            || named("billing")
            || message.contains("insufficient_quota")
            || message.contains("exceeded your current quota")
            || message.contains("insufficient credits")
            || message.contains("can only afford")
        {
            return Some(ErrorKind::QuotaExhausted);
        }
        if named("context_length_exceeded") || is_context_message(&message) {
            return Some(ErrorKind::ContextLengthExceeded);
        }
        if named("overloaded") || message.contains("overloaded") {
            return Some(ErrorKind::Overloaded);
        }
        if named("rate_limit") || message.contains("rate limit") {
            return Some(ErrorKind::RateLimit);
        }
        // Anthropic `api_error` and OpenAI `server_error` (a `response.failed` code): the
        // provider's own failure, worth a retry.
        if named("api_error") || named("server_error") {
            return Some(ErrorKind::ServerError);
        }
        None
    }

    /// `message (code)` or the raw text, truncated; `None` when the provider said nothing.
    fn display(&self) -> Option<String> {
        let text = match (&self.message, &self.code, &self.text) {
            (Some(m), Some(c), _) if !m.contains(c.as_str()) => format!("{m} ({c})"),
            (Some(m), _, _) => m.clone(),
            (None, Some(c), _) => c.clone(),
            (None, None, Some(t)) => t.clone(),
            (None, None, None) => return None,
        };
        Some(truncate(&text, MAX_PROVIDER_MESSAGE))
    }
}

/// Whether a lowercased message says the prompt does not fit the context window (OpenAI
/// "maximum context length", Anthropic "prompt is too long", vLLM/llama.cpp "context length"/
/// "context window", others "too many tokens").
fn is_context_message(message: &str) -> bool {
    [
        "maximum context length",
        "context length",
        "context window",
        "context_length",
        "prompt is too long",
        "prompt too long",
        "too many tokens",
        "exceeds the context",
        "reduce the length of the messages",
    ]
    .iter()
    .any(|needle| message.contains(needle))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;
    use serde_json::json;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn statuses_map_to_kinds() {
        let none = HeaderMap::new();
        for (status, kind) in [
            (400, ErrorKind::BadRequest),
            (401, ErrorKind::Auth),
            (402, ErrorKind::QuotaExhausted),
            (403, ErrorKind::Auth),
            (404, ErrorKind::BadRequest),
            (408, ErrorKind::Timeout),
            (422, ErrorKind::BadRequest),
            (429, ErrorKind::RateLimit),
            (500, ErrorKind::ServerError),
            (502, ErrorKind::ServerError),
            (503, ErrorKind::Overloaded),
            (529, ErrorKind::Overloaded),
        ] {
            let e = classify_http(status, &none, b"");
            assert_eq!(e.kind, kind, "{status}");
            assert_eq!(e.status, Some(status));
        }
    }

    #[test]
    fn body_refines_the_status() {
        let none = HeaderMap::new();
        let openai_ctx = br#"{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        assert_eq!(
            classify_http(400, &none, openai_ctx).kind,
            ErrorKind::ContextLengthExceeded
        );
        let anthropic_ctx = br#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
        assert_eq!(
            classify_http(400, &none, anthropic_ctx).kind,
            ErrorKind::ContextLengthExceeded
        );
        let quota = br#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        let e = classify_http(429, &none, quota);
        assert_eq!(e.kind, ErrorKind::QuotaExhausted);
        assert!(!e.retryable);
        let overloaded =
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert_eq!(
            classify_http(529, &none, overloaded).kind,
            ErrorKind::Overloaded
        );
        assert_eq!(
            classify_http(500, &none, overloaded).kind,
            ErrorKind::Overloaded
        );
        // A 400 that merely mentions overload stays a bad request.
        assert_eq!(
            classify_http(400, &none, overloaded).kind,
            ErrorKind::BadRequest
        );
    }

    #[test]
    fn message_carries_the_provider_text_truncated() {
        let none = HeaderMap::new();
        let e = classify_http(
            401,
            &none,
            br#"{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}"#,
        );
        assert_eq!(
            e.message,
            "HTTP 401 Unauthorized: Incorrect API key provided (invalid_api_key)"
        );
        assert!(e.hint.as_deref().unwrap().contains("API key"));
        let long = "x".repeat(5000);
        let e = classify_http(500, &none, long.as_bytes());
        assert!(e.message.chars().count() < MAX_PROVIDER_MESSAGE + 40);
        assert!(e.message.ends_with('…'));
    }

    #[test]
    fn retry_after_forms() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "3")]), now),
            Some(3000)
        );
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "0.5")]), now),
            Some(500)
        );
        assert_eq!(
            retry_after_ms(
                &headers(&[("retry-after", "Thu, 01 Jan 2026 00:00:07 GMT")]),
                now
            ),
            Some(7000)
        );
        assert_eq!(
            retry_after_ms(
                &headers(&[("retry-after", "Wed, 31 Dec 2025 00:00:07 GMT")]),
                now
            ),
            Some(0)
        );
        assert_eq!(
            retry_after_ms(
                &headers(&[("retry-after-ms", "250"), ("retry-after", "9")]),
                now
            ),
            Some(250)
        );
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "soon")]), now),
            None
        );
        assert_eq!(retry_after_ms(&HeaderMap::new(), now), None);
    }

    #[test]
    fn rate_limit_carries_retry_after() {
        let e = classify_http(429, &headers(&[("retry-after", "2")]), b"slow down");
        assert_eq!(e.kind, ErrorKind::RateLimit);
        assert_eq!(e.retry_after_ms, Some(2000));
        assert!(e.retryable);
        assert_eq!(e.message, "HTTP 429 Too Many Requests: slow down");
    }

    #[test]
    fn stream_errors() {
        let groq = json!({"error":{"message":"Tool call validation failed","type":"invalid_request_error","code":"tool_use_failed","status_code":400}});
        let e = classify_stream_error(&groq);
        assert_eq!(e.kind, ErrorKind::ProviderError);
        assert!(!e.retryable);
        let openrouter = json!({"code": 400, "message": "Token limit reached"});
        assert_eq!(
            classify_stream_error(&openrouter).kind,
            ErrorKind::ProviderError
        );
        let rate = json!({"code": 429, "message": "Provider returned error"});
        assert_eq!(classify_stream_error(&rate).kind, ErrorKind::RateLimit);
        let upstream = json!({"code": 502, "message": "Upstream error"});
        assert_eq!(
            classify_stream_error(&upstream).kind,
            ErrorKind::ServerError
        );
        let ctx = json!({"message": "This model's maximum context length is 8192 tokens"});
        assert_eq!(
            classify_stream_error(&ctx).kind,
            ErrorKind::ContextLengthExceeded
        );
        let quota = json!({"type":"insufficient_quota","message":"no credit"});
        assert_eq!(
            classify_stream_error(&quota).kind,
            ErrorKind::QuotaExhausted
        );
        let overloaded = json!({"type":"overloaded_error","message":"Overloaded"});
        assert_eq!(
            classify_stream_error(&overloaded).kind,
            ErrorKind::Overloaded
        );
        assert_eq!(
            classify_stream_error_bytes(b"upstream went away").message,
            "provider error in stream: upstream went away"
        );
    }

    #[test]
    fn retry_after_dates_use_the_servers_clock_and_are_bounded() {
        let server = |date: &'static str, retry: &'static str| {
            headers(&[("date", date), ("retry-after", retry)])
        };
        // The local clock is irrelevant: only the two headers count.
        let e = classify_http(
            429,
            &server(
                "Sat, 01 Jan 2000 00:00:00 GMT",
                "Sat, 01 Jan 2000 00:00:09 GMT",
            ),
            b"",
        );
        assert_eq!(e.retry_after_ms, Some(9000));
        // A date in the past (by the server's clock) means now.
        let e = classify_http(
            503,
            &server(
                "Sat, 01 Jan 2000 00:10:00 GMT",
                "Sat, 01 Jan 2000 00:00:09 GMT",
            ),
            b"",
        );
        assert_eq!(e.retry_after_ms, Some(0));
        // Huge values, as a date or as seconds, are capped and shown.
        for h in [
            server(
                "Sat, 01 Jan 2000 00:00:00 GMT",
                "Mon, 01 Jan 2029 00:00:00 GMT",
            ),
            headers(&[("retry-after", "99999999999")]),
            headers(&[("retry-after-ms", "1e300")]),
        ] {
            let e = classify_http(429, &h, b"");
            assert_eq!(e.retry_after_ms, Some(MAX_RETRY_AFTER_MS), "{h:?}");
            assert!(
                e.message.contains("Tack counts 60 min at most"),
                "{}",
                e.message
            );
        }
        // Without a `Date` the local clock is the reference.
        let soon = (chrono::Utc::now() + chrono::Duration::seconds(30)).to_rfc2822();
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_str(&soon).unwrap());
        let ms = classify_http(429, &h, b"").retry_after_ms.unwrap();
        assert!((25_000..=30_000).contains(&ms), "{ms}");
    }

    #[test]
    fn redirects_and_413_do_not_blame_the_model_name() {
        for status in [301, 302, 307, 308] {
            let e = classify_http(
                status,
                &headers(&[("location", "https://x.example/v1")]),
                b"<html/>",
            );
            assert_eq!(e.kind, ErrorKind::Config);
            assert!(
                e.message
                    .contains("redirected to https://x.example/v1 (not followed"),
                "{}",
                e.message
            );
            assert!(e.hint.unwrap().contains("base URL"));
        }
        let e = classify_http(413, &HeaderMap::new(), b"too big");
        assert_eq!(e.kind, ErrorKind::BadRequest);
        assert!(e.hint.unwrap().contains("larger than the provider accepts"));
    }
}
