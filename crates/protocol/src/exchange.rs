use serde::{Deserialize, Serialize};

use crate::{ModelError, StreamEvent, Usage, Wire};

/// One recorded HTTP round trip with a provider: what was sent, what came back, how long it
/// took. Exchanges are stored beside the session log (`<session>.exchanges.jsonl`) and shown
/// by the inspector. Header values that carry credentials are replaced by `[REDACTED]` before
/// an exchange is built; the body is stored exactly as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Exchange {
    /// Summary fields (also sent alone in `ExchangeRecorded` events).
    #[serde(flatten)]
    pub summary: ExchangeSummary,
    /// Request headers in sending order, credentials redacted.
    pub request_headers: Vec<Header>,
    /// The request body exactly as sent (UTF-8 JSON).
    pub request_body: String,
    /// Response headers, credentials (e.g. `set-cookie`) redacted.
    pub response_headers: Vec<Header>,
    /// Raw response body as received, chunk by chunk, with arrival times.
    pub response_chunks: Vec<ResponseChunk>,
    /// Events the decoder produced from the body.
    pub events: Vec<StreamEvent>,
    /// The error the exchange ended with, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ModelError>,
}

/// The at-a-glance part of an [`Exchange`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ExchangeSummary {
    /// Exchange id (unique in the session).
    pub id: String,
    /// Turn it belongs to.
    pub turn_id: String,
    /// What the request was for: `main` (a sampling request) or an extra request's purpose
    /// such as `title`.
    pub purpose: String,
    /// Harness that shaped it.
    pub harness: String,
    /// Wire it went over.
    pub wire: Wire,
    /// Route name, e.g. `chat/minimal`.
    pub route: String,
    /// Where the system prompt came from (`builtin:<harness>/system.md`, `file:<path>`, …),
    /// when a harness shaped the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_source: Option<String>,
    /// Provider id.
    pub provider: String,
    /// Model requested.
    pub model: String,
    /// HTTP method.
    pub method: String,
    /// Full URL.
    pub url: String,
    /// HTTP status, if a response arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Wall-clock start, RFC 3339.
    pub started_at: String,
    /// Milliseconds from sending to the first body byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttfb_ms: Option<u32>,
    /// Milliseconds from sending to the end of the body (or the error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_ms: Option<u32>,
    /// Token usage the provider reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Which attempt this was (1 = first; retries count up).
    pub attempt: u32,
    /// `ok`, or the error kind.
    pub outcome: String,
}

/// An HTTP header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Header {
    /// Lowercase name.
    pub name: String,
    /// Value, or `[REDACTED]`.
    pub value: String,
}

/// A piece of the response body as it arrived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ResponseChunk {
    /// Milliseconds since the request was sent.
    pub t_ms: u32,
    /// The bytes, as UTF-8 (lossy only if the provider sent invalid UTF-8 across the whole
    /// body; chunk boundaries inside a character are joined before decoding).
    pub data: String,
}

/// Header names whose values are credentials. Compared case-insensitively; a name that
/// contains `api-key`, `token`, `secret` or `auth` is treated as a credential too.
pub const SECRET_HEADER_NAMES: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
    "cookie",
    "set-cookie",
    "openai-organization",
    "openai-project",
    "anthropic-organization-id",
];

/// Whether a header's value must be redacted before it is logged, stored or shown.
pub fn is_secret_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_HEADER_NAMES.contains(&lower.as_str())
        || lower.contains("api-key")
        || lower.contains("apikey")
        || lower.contains("token")
        || lower.contains("secret")
        || lower.contains("auth")
}

/// The placeholder that replaces a redacted value.
pub const REDACTED: &str = "[REDACTED]";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_headers_are_secret() {
        for name in [
            "Authorization",
            "x-api-key",
            "API-KEY",
            "Cookie",
            "x-goog-api-key",
            "X-Auth-Token",
            "proxy-authorization",
        ] {
            assert!(is_secret_header(name), "{name}");
        }
        for name in ["content-type", "accept", "anthropic-version", "user-agent"] {
            assert!(!is_secret_header(name), "{name}");
        }
    }
}
