use std::fmt;

use serde::{Deserialize, Serialize};

/// What went wrong with a model request or its stream.
///
/// The names are the `kind` values of the neutral event schema printed by `tack decode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The body ended before the wire's terminal event (Chat: a `finish_reason`; Responses:
    /// `response.completed`/`incomplete`/`failed`; Messages: `message_stop`).
    StreamTruncated,
    /// HTTP 529/503 or a provider `overloaded_error`: try later.
    Overloaded,
    /// HTTP 429 or a provider `rate_limit_error`: try after `retry_after_ms`.
    RateLimit,
    /// The account has no credit left (OpenAI `insufficient_quota`, OpenRouter 402).
    QuotaExhausted,
    /// The prompt does not fit the model's context window.
    ContextLengthExceeded,
    /// A chunk that is not valid JSON or not the shape the wire defines.
    FormatError,
    /// HTTP 401/403: the key is missing, wrong or lacks permission.
    Auth,
    /// HTTP 400/404/422 and similar: the request itself is wrong (model name, parameters).
    BadRequest,
    /// HTTP 5xx other than overload.
    ServerError,
    /// The host could not be reached (DNS, connection refused, TLS).
    Unreachable,
    /// No bytes arrived for longer than the idle timeout.
    Timeout,
    /// The request as a whole (every attempt, backoff waits and the stream) took longer than
    /// the client's total deadline, however steadily bytes arrived.
    DeadlineExceeded,
    /// Bytes kept arriving (keep-alive comments, empty chunks) but no event was decoded from
    /// them for longer than the client's no-progress timeout.
    NoProgress,
    /// The provider reported an error inside an otherwise valid stream.
    ProviderError,
    /// The request was cancelled by the user.
    Cancelled,
    /// Configuration problem found before sending (routing, missing key, unknown harness).
    Config,
    /// The turn reached its most model requests (the session's step limit) while the model
    /// was still calling tools. Not a provider failure: a new message continues.
    StepLimit,
    /// The model kept making the same tool call (same tool, same arguments) after it was
    /// denied, or after it failed the same way, so the engine stopped the turn.
    RepeatedToolCall,
}

impl ErrorKind {
    /// The snake_case name (as serialized).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::StreamTruncated => "stream_truncated",
            ErrorKind::Overloaded => "overloaded",
            ErrorKind::RateLimit => "rate_limit",
            ErrorKind::QuotaExhausted => "quota_exhausted",
            ErrorKind::ContextLengthExceeded => "context_length_exceeded",
            ErrorKind::FormatError => "format_error",
            ErrorKind::Auth => "auth",
            ErrorKind::BadRequest => "bad_request",
            ErrorKind::ServerError => "server_error",
            ErrorKind::Unreachable => "unreachable",
            ErrorKind::Timeout => "timeout",
            ErrorKind::DeadlineExceeded => "deadline_exceeded",
            ErrorKind::NoProgress => "no_progress",
            ErrorKind::ProviderError => "provider_error",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Config => "config",
            ErrorKind::StepLimit => "step_limit",
            ErrorKind::RepeatedToolCall => "repeated_tool_call",
        }
    }

    /// Whether the same request may succeed if sent again later.
    pub fn is_transient(self) -> bool {
        matches!(
            self,
            ErrorKind::Overloaded
                | ErrorKind::RateLimit
                | ErrorKind::ServerError
                | ErrorKind::Unreachable
                | ErrorKind::Timeout
                | ErrorKind::DeadlineExceeded
                | ErrorKind::NoProgress
                | ErrorKind::StreamTruncated
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A classified error from a model request, safe to show and to persist: it never contains
/// a credential (messages are built from status codes and provider error bodies, which are
/// redacted before they get here).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ModelError {
    /// Classification.
    pub kind: ErrorKind,
    /// Human-readable explanation, including the provider's own message when there was one.
    pub message: String,
    /// Whether retrying the same request could succeed.
    pub retryable: bool,
    /// HTTP status, when the error came from a status line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Server's `Retry-After` (or `retry-after-ms`) in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u32>,
    /// What the user can do about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl ModelError {
    /// An error of `kind` with a message; `retryable` follows [`ErrorKind::is_transient`].
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ModelError {
            kind,
            message: message.into(),
            retryable: kind.is_transient(),
            status: None,
            retry_after_ms: None,
            hint: None,
        }
    }

    /// Adds a hint for the user.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Sets the HTTP status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)?;
        if let Some(status) = self.status {
            write!(f, " (HTTP {status})")?;
        }
        if let Some(hint) = &self.hint {
            write!(f, ". {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ModelError {}
