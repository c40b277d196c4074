//! The HTTP client: sends a [`RenderedRequest`], retries where it is safe, records every
//! attempt as an [`Exchange`](tack_protocol::Exchange) and decodes the response as it
//! arrives.
//!
//! ```text
//! ModelClient::open ──attempt 1──▶ send ─▶ status ─▶ first body byte ─▶ ResponseStream
//!                     (retry: connect error, 429, 5xx, overload, empty/broken body before
//!                      the first byte; backoff with jitter or Retry-After; cancellable)
//! ResponseStream::next ─▶ chunk ─▶ decoder.push ─▶ events   (idle timeout, cancellation)
//! ```
//!
//! After the first body byte nothing is retried: the engine may already have shown or acted on
//! output, so a failure is reported (e.g. `stream_truncated`) and the engine decides. A
//! timeout after the request was sent is not retried either: the server may still be working
//! on it (a long non-streaming generation), and sending it again could bill it twice.

mod auth;
mod record;
mod retry;
mod stream;

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tack_protocol::{ErrorKind, ModelError, ReasoningOrigin, Wire};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

pub use auth::{Auth, AuthScheme, SecretString};
pub use record::{ExchangeMeta, ExchangeSink, RecordLimits, redact_url};
pub use retry::RetryPolicy;
pub use stream::ResponseStream;

use crate::RenderedRequest;
use crate::errors::{classify_http, classify_transport};
use crate::tool_kinds::ToolKinds;
use record::Recorder;
use stream::{Body, Clock, StreamContext};

/// Largest error body read to classify a non-2xx reply; error bodies are small, and a huge one
/// is not worth waiting for.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Client settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// Time allowed to open the TCP/TLS connection.
    pub connect_timeout: Duration,
    /// Longest wait for the response headers, for the first body byte, and between two body
    /// pieces. Reasoning models can think for minutes before their first token on servers
    /// that do not stream reasoning, hence the generous default.
    pub idle_timeout: Duration,
    /// Longest time a response may keep sending bytes (SSE comments such as OpenRouter's
    /// `: OPENROUTER PROCESSING`, empty chunks) without a single decoded event: a provider
    /// that keeps the connection alive but never answers ends with `no_progress` instead of
    /// hanging the turn. Counted from the response headers, reset by every event.
    pub progress_timeout: Duration,
    /// Longest time one request may take in total: every attempt, the backoff waits between
    /// them, and the whole stream. Ends it with `deadline_exceeded`, however steadily the
    /// provider is sending.
    pub request_deadline: Duration,
    /// Retries before the first body byte.
    pub retry: RetryPolicy,
    /// `user-agent` sent (and recorded) unless the request sets its own.
    pub user_agent: String,
    /// Size caps of a streamed body; `None` = [`SseLimits::for_wire`](crate::sse::SseLimits::for_wire)
    /// of the request's wire. Also caps a non-streaming JSON reply (its `max_body`).
    pub stream_limits: Option<crate::sse::SseLimits>,
    /// How much of each response an exchange record keeps.
    pub record_limits: RecordLimits,
}

impl Default for ClientConfig {
    /// 10 s connect, 300 s idle, 600 s without progress, 30 min in total,
    /// [`RetryPolicy::default`], `tack/<version>`, the wire's stream caps, default record caps.
    fn default() -> Self {
        ClientConfig {
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(300),
            progress_timeout: Duration::from_secs(600),
            request_deadline: Duration::from_secs(30 * 60),
            retry: RetryPolicy::default(),
            user_agent: concat!("tack/", env!("CARGO_PKG_VERSION")).to_string(),
            stream_limits: None,
            record_limits: RecordLimits::default(),
        }
    }
}

/// Everything one sampling request needs besides the client: the request, how to
/// authenticate, how to decode the reply, and what to stamp on its exchange records.
#[derive(Debug, Clone, Copy)]
pub struct Sampling<'a> {
    /// The rendered request (no credentials).
    pub request: &'a RenderedRequest,
    /// The key and its header; `None` for servers without auth (local models).
    pub auth: Option<&'a Auth>,
    /// Wire of the request, selecting the decoder.
    pub wire: Wire,
    /// Tool kinds from shaping.
    pub tool_kinds: &'a ToolKinds,
    /// Stamped on reasoning items.
    pub origin: &'a ReasoningOrigin,
    /// Stamped on exchange records.
    pub meta: &'a ExchangeMeta,
}

/// An HTTP client for model requests. Cheap to clone (the connection pool is shared).
#[derive(Debug, Clone)]
pub struct ModelClient {
    http: reqwest::Client,
    config: ClientConfig,
}

impl ModelClient {
    /// A client with its own connection pool (rustls; redirects are not followed, since a
    /// redirected API is a configuration error worth reporting and re-posting a body to
    /// another host is unsafe).
    ///
    /// # Errors
    /// `config` if the TLS backend cannot be initialized.
    pub fn new(config: ClientConfig) -> Result<Self, ModelError> {
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .pool_idle_timeout(Duration::from_secs(90))
            .build()
            .map_err(|e| classify_transport(&e))?;
        Ok(ModelClient { http, config })
    }

    /// The settings in force.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// Sends `sampling.request` and returns its events as they arrive.
    ///
    /// Each attempt is recorded and handed to `sink` when it ends: a failed attempt at once,
    /// the successful one when its [`ResponseStream`] ends (completed, failed, cancelled or
    /// dropped). Retries follow [`ClientConfig::retry`] and happen only before the first body
    /// byte. Cancelling `cancel` aborts a send, a backoff wait or the stream.
    ///
    /// A `text/event-stream` reply is decoded incrementally; an `application/json` reply (a
    /// non-streaming request, or a server that ignored `stream: true`) is decoded whole into
    /// the same events.
    ///
    /// # Errors
    /// The classified error of the last attempt (see [`crate::errors`]), `cancelled`, or
    /// `config` for an unusable request (bad header, bad key characters, bad URL).
    pub async fn open(
        &self,
        sampling: Sampling<'_>,
        sink: ExchangeSink,
        cancel: CancellationToken,
    ) -> Result<ResponseStream, ModelError> {
        let span = tracing::info_span!(
            "sampling_request",
            wire = %sampling.wire,
            provider = %sampling.meta.provider,
            model = %sampling.meta.model,
            url = %redact_url(&sampling.request.url),
            attempt = tracing::field::Empty,
        );
        self.open_inner(sampling, sink, cancel, span.clone())
            .instrument(span)
            .await
    }

    async fn open_inner(
        &self,
        sampling: Sampling<'_>,
        sink: ExchangeSink,
        cancel: CancellationToken,
        span: tracing::Span,
    ) -> Result<ResponseStream, ModelError> {
        let prepared = Prepared::new(&sampling, &self.config)?;
        let policy = self.config.retry;
        let limits = self
            .config
            .stream_limits
            .unwrap_or_else(|| crate::sse::SseLimits::for_wire(sampling.wire));
        let clock = Clock::new(&self.config, Instant::now());
        let mut attempt = 1;
        loop {
            span.record("attempt", attempt);
            let mut recorder = Recorder::start(
                sampling.meta,
                sampling.wire,
                sampling.request,
                &prepared.recorded_headers,
                attempt,
                prepared.secret.clone(),
            )
            .with_limits(self.config.record_limits);
            match self
                .attempt(&prepared, sampling.request, &mut recorder, &clock, &cancel)
                .await
            {
                Ok((response, first)) => {
                    let json = is_json_reply(&response, sampling.request.stream);
                    let content_type = response
                        .headers()
                        .get(reqwest::header::CONTENT_TYPE)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("")
                        .to_string();
                    let body = Body::new(
                        json,
                        sampling.wire,
                        sampling.tool_kinds.clone(),
                        sampling.origin.clone(),
                        limits,
                    );
                    let ctx = StreamContext {
                        sink,
                        cancel,
                        secret: prepared.secret.clone(),
                        clock: clock.clone(),
                        content_type,
                        span: span.clone(),
                    };
                    return Ok(ResponseStream::new(response, first, body, recorder, ctx));
                }
                Err(AttemptError {
                    mut error,
                    retry_safe,
                }) => {
                    if let Some(secret) = &prepared.secret {
                        scrub_error(&mut error, secret);
                    }
                    sink(recorder.finish(Some(&error)));
                    let delay = policy.delay_after(attempt, &error).filter(|_| retry_safe);
                    let Some(delay) = delay else {
                        tracing::warn!(kind = %error.kind, message = %error.message, "request failed");
                        return Err(error);
                    };
                    tracing::info!(
                        kind = %error.kind,
                        retry_in_ms = delay.as_millis() as u64,
                        "retrying"
                    );
                    if clock.deadline_before(Instant::now() + delay) {
                        // Waiting would outlive the request's deadline: report what failed.
                        tracing::warn!(kind = %error.kind, "no time left to retry");
                        return Err(error);
                    }
                    tokio::select! {
                        biased;
                        () = cancel.cancelled() => return Err(cancelled()),
                        () = tokio::time::sleep(delay) => {}
                    }
                    attempt += 1;
                }
            }
        }
    }

    /// One attempt, up to the first body byte.
    async fn attempt(
        &self,
        prepared: &Prepared,
        request: &RenderedRequest,
        recorder: &mut Recorder,
        clock: &Clock,
        cancel: &CancellationToken,
    ) -> Result<(reqwest::Response, bytes::Bytes), AttemptError> {
        // `Bytes`: the body is shared with the record and every attempt, not copied.
        let send = self
            .http
            .request(prepared.method.clone(), prepared.url.clone())
            .headers(prepared.headers.clone())
            .body(request.body.clone())
            .send();
        let wait = clock.wait(Instant::now());
        let mut response = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(AttemptError::final_(cancelled())),
            r = tokio::time::timeout(wait.duration, send) => match r {
                Err(_) => return Err(AttemptError::final_(clock.expired(wait))),
                Ok(Err(e)) => {
                    // Nothing reached the server when connecting failed; otherwise it may
                    // be working on the request.
                    let retry_safe = e.is_connect() || !e.is_timeout();
                    return Err(AttemptError { error: classify_transport(&e), retry_safe });
                }
                Ok(Ok(response)) => response,
            },
        };
        let status = response.status().as_u16();
        recorder.response(status, response.headers());
        tracing::debug!(status, "response headers");
        if !response.status().is_success() {
            let body = read_error_body(&mut response, recorder, clock, cancel).await?;
            let mut error = classify_http(status, response.headers(), &body);
            if status == 413 {
                error.message = format!(
                    "{} (the request body was {})",
                    error.message,
                    crate::sse::human_bytes(request.body.len() as u64)
                );
            }
            return Err(AttemptError::retry_safe(error));
        }
        if let Some(error) = unreadable_encoding(response.headers()) {
            return Err(AttemptError::final_(error.with_status(status)));
        }
        let wait = clock.wait(Instant::now());
        let first = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(AttemptError::final_(cancelled())),
            r = tokio::time::timeout(wait.duration, response.chunk()) => match r {
                Err(_) => return Err(AttemptError::final_(clock.expired(wait))),
                Ok(Err(e)) => {
                    let mut error = classify_transport(&e);
                    error.kind = ErrorKind::StreamTruncated;
                    error.retryable = true;
                    return Err(AttemptError::retry_safe(error));
                }
                Ok(Ok(None)) => {
                    return Err(AttemptError::retry_safe(ModelError::new(
                        ErrorKind::StreamTruncated,
                        format!("HTTP {status} with an empty body"),
                    )
                    .with_status(status)));
                }
                Ok(Ok(Some(first))) => first,
            },
        };
        recorder.chunk(&first);
        Ok((response, first))
    }
}

/// A failed attempt, and whether sending the request again is safe (the policy still decides
/// whether it is worth it).
struct AttemptError {
    error: ModelError,
    retry_safe: bool,
}

impl AttemptError {
    fn retry_safe(error: ModelError) -> Self {
        AttemptError {
            error,
            retry_safe: true,
        }
    }

    /// An error after which the request must not be sent again by the client.
    fn final_(error: ModelError) -> Self {
        AttemptError {
            error,
            retry_safe: false,
        }
    }
}

/// The per-request parts that stay the same across attempts.
struct Prepared {
    method: reqwest::Method,
    url: reqwest::Url,
    headers: HeaderMap,
    /// Headers as recorded (auth included, redacted by the recorder).
    recorded_headers: Vec<(String, String)>,
    secret: Option<Arc<str>>,
}

impl Prepared {
    fn new(sampling: &Sampling<'_>, config: &ClientConfig) -> Result<Self, ModelError> {
        let request = sampling.request;
        let method = reqwest::Method::from_bytes(request.method.as_bytes()).map_err(|_| {
            ModelError::new(
                ErrorKind::Config,
                format!("`{}` is not an HTTP method", request.method),
            )
        })?;
        let url = reqwest::Url::parse(&request.url).map_err(|e| {
            ModelError::new(
                ErrorKind::Config,
                format!("invalid request URL `{}`: {e}", redact_url(&request.url)),
            )
            .with_hint("check the provider's base URL")
        })?;
        let mut headers = HeaderMap::with_capacity(request.headers.len() + 2);
        let mut recorded = Vec::with_capacity(request.headers.len() + 2);
        for (name, value) in &request.headers {
            let header_name = HeaderName::try_from(name.as_str()).map_err(|_| {
                ModelError::new(ErrorKind::Config, format!("invalid header name `{name}`"))
            })?;
            let mut header_value = HeaderValue::try_from(value.as_str()).map_err(|_| {
                ModelError::new(
                    ErrorKind::Config,
                    format!("invalid characters in the value of header `{name}`"),
                )
            })?;
            if tack_protocol::is_secret_header(name) {
                header_value.set_sensitive(true);
            }
            headers.append(header_name, header_value);
            recorded.push((name.clone(), value.clone()));
        }
        if !headers.contains_key(reqwest::header::USER_AGENT)
            && let Ok(ua) = HeaderValue::try_from(config.user_agent.as_str())
        {
            headers.insert(reqwest::header::USER_AGENT, ua);
            recorded.push(("user-agent".to_string(), config.user_agent.clone()));
        }
        let mut secret = None;
        if let Some(auth) = sampling.auth {
            let (name, value) = auth.header()?;
            recorded.push((
                name.as_str().to_string(),
                tack_protocol::REDACTED.to_string(),
            ));
            headers.insert(name, value);
            secret = Some(Arc::from(auth.key.expose()));
        }
        Ok(Prepared {
            method,
            url,
            headers,
            recorded_headers: recorded,
            secret,
        })
    }
}

/// Whether the reply is one JSON document rather than SSE: by `content-type`, else by whether
/// the request asked for a stream.
fn is_json_reply(response: &reqwest::Response, requested_stream: bool) -> bool {
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if content_type.starts_with("text/event-stream") {
        false
    } else if content_type.starts_with("application/json") {
        true
    } else {
        !requested_stream
    }
}

/// A 2xx reply whose `content-encoding` the client cannot undo. The client asks for no
/// encoding (it sends no `accept-encoding`), so a compressed body is a proxy or server
/// ignoring that; decoding its bytes as SSE would only report a cut-off stream.
fn unreadable_encoding(headers: &HeaderMap) -> Option<ModelError> {
    let encoding = headers
        .get(reqwest::header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|e| !e.is_empty() && !e.eq_ignore_ascii_case("identity"))?;
    Some(
        ModelError::new(
            ErrorKind::FormatError,
            format!(
                "the provider sent a `{}`-encoded body, which the client did not ask for and \
                 cannot decode",
                crate::errors::truncate(encoding, 40)
            ),
        )
        .with_hint(
            "a proxy between Tack and the provider is compressing responses: turn that off \
             for this endpoint, or point the base URL at the API itself",
        ),
    )
}

/// Reads (and records) up to [`MAX_ERROR_BODY`] bytes of an error reply.
async fn read_error_body(
    response: &mut reqwest::Response,
    recorder: &mut Recorder,
    clock: &Clock,
    cancel: &CancellationToken,
) -> Result<Vec<u8>, AttemptError> {
    let mut body = Vec::new();
    while body.len() < MAX_ERROR_BODY {
        let wait = clock.wait(Instant::now());
        let chunk = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(AttemptError::final_(cancelled())),
            r = tokio::time::timeout(wait.duration, response.chunk()) => r,
        };
        match chunk {
            Ok(Ok(Some(bytes))) => {
                recorder.chunk(&bytes);
                body.extend_from_slice(&bytes);
            }
            // A broken or silent error body still has a status worth reporting.
            Ok(Ok(None)) | Ok(Err(_)) | Err(_) => break,
        }
    }
    body.truncate(MAX_ERROR_BODY);
    Ok(body)
}

fn cancelled() -> ModelError {
    ModelError::new(ErrorKind::Cancelled, "the request was cancelled")
}

/// Removes the key from an error's text (a server may echo it in its error body).
pub(crate) fn scrub_error(error: &mut ModelError, secret: &str) {
    if secret.len() < 8 {
        return;
    }
    if error.message.contains(secret) {
        error.message = error.message.replace(secret, tack_protocol::REDACTED);
    }
    if let Some(hint) = &mut error.hint
        && hint.contains(secret)
    {
        *hint = hint.replace(secret, tack_protocol::REDACTED);
    }
}

/// The client's per-request work without the network, for the criterion benches: not part
/// of the API (hidden, may change at any time).
#[doc(hidden)]
pub mod bench {
    use tack_protocol::{Exchange, ReasoningOrigin, Wire};

    use super::record::{ExchangeMeta, Recorder};
    use super::stream::Body;
    use super::{ClientConfig, Prepared, Sampling};
    use crate::RenderedRequest;
    use crate::sse::SseLimits;
    use crate::tool_kinds::ToolKinds;

    /// Decodes `pieces` as a streamed reply the way [`super::ResponseStream`] does, with
    /// recording: each piece recorded then pushed through the wire's decoder, each event
    /// recorded on its way out (and handed to `each`), the record finished at the end.
    pub fn decode_recorded(
        wire: Wire,
        request: &RenderedRequest,
        pieces: impl IntoIterator<Item = bytes::Bytes>,
        mut each: impl FnMut(tack_protocol::StreamEvent),
    ) -> Exchange {
        let meta = ExchangeMeta::default();
        let mut recorder = Recorder::start(&meta, wire, request, &[], 1, None);
        let origin = ReasoningOrigin {
            wire,
            provider: None,
            model: None,
        };
        let mut body = Body::new(
            false,
            wire,
            ToolKinds::new(),
            origin,
            SseLimits::for_wire(wire),
        );
        let mut events = Vec::with_capacity(64);
        let mut drain = |recorder: &mut Recorder, events: &mut Vec<_>| {
            for event in events.drain(..).flatten() {
                recorder.event(&event);
                each(event);
            }
        };
        for piece in pieces {
            recorder.chunk(&piece);
            body.push(&piece, &mut events);
            drain(&mut recorder, &mut events);
        }
        body.finish(&mut events);
        drain(&mut recorder, &mut events);
        recorder.finish(None)
    }

    /// What one attempt does with a rendered request besides writing it to the socket:
    /// the prepared headers, the body handed to the HTTP client, and the finished record
    /// holding the body.
    ///
    /// # Errors
    /// As [`super::ModelClient::open`] for an unusable request.
    pub fn send_and_record(
        request: &RenderedRequest,
    ) -> Result<(bytes::Bytes, Exchange), tack_protocol::ModelError> {
        let kinds = ToolKinds::new();
        let origin = ReasoningOrigin {
            wire: Wire::Chat,
            provider: None,
            model: None,
        };
        let meta = ExchangeMeta::default();
        let sampling = Sampling {
            request,
            auth: None,
            wire: Wire::Chat,
            tool_kinds: &kinds,
            origin: &origin,
            meta: &meta,
        };
        let prepared = Prepared::new(&sampling, &ClientConfig::default())?;
        let recorder = Recorder::start(
            &meta,
            Wire::Chat,
            request,
            &prepared.recorded_headers,
            1,
            None,
        );
        // The body as `reqwest` gets it.
        let sent = request.body.clone();
        Ok((sent, recorder.finish(None)))
    }
}
