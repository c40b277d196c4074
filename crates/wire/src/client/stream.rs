//! The response side of one attempt: body bytes → decoder → events, recorded as they pass.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use tack_protocol::{ErrorKind, ModelError, ReasoningOrigin, StreamEvent, Wire};
use tokio_util::sync::CancellationToken;

use super::ClientConfig;
use super::record::{ExchangeSink, Recorder, dropped_error};
use crate::decode::{StreamDecoder, decode_reply, decoder_with_limits};
use crate::errors::classify_transport;
use crate::sse::{Oversize, OversizeKind, SseLimits};
use crate::tool_kinds::ToolKinds;

type Event = Result<StreamEvent, ModelError>;

/// How many bytes of the body's start are kept to describe a body that held no events.
const BODY_START: usize = 160;

/// How the body is decoded.
pub(crate) enum Body {
    /// SSE through the wire's incremental decoder.
    Stream(Box<dyn StreamDecoder>),
    /// One JSON reply, decoded when complete (non-streaming requests, and servers that answer
    /// a streaming request with plain JSON).
    Json {
        buf: Vec<u8>,
        wire: Wire,
        tool_kinds: ToolKinds,
        origin: ReasoningOrigin,
        /// Largest reply accepted ([`SseLimits::max_body`]); past it the reply fails once.
        max: u64,
        oversize: bool,
    },
}

impl Body {
    pub(crate) fn new(
        json: bool,
        wire: Wire,
        tool_kinds: ToolKinds,
        origin: ReasoningOrigin,
        limits: SseLimits,
    ) -> Body {
        if json {
            Body::Json {
                buf: Vec::new(),
                wire,
                tool_kinds,
                origin,
                max: limits.max_body,
                oversize: false,
            }
        } else {
            Body::Stream(decoder_with_limits(wire, tool_kinds, origin, limits))
        }
    }

    pub(crate) fn push(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        match self {
            Body::Stream(decoder) => decoder.push(bytes, out),
            Body::Json {
                buf,
                wire,
                max,
                oversize,
                ..
            } => {
                if *oversize {
                    return;
                }
                let received = (buf.len() + bytes.len()) as u64;
                if received > *max {
                    *oversize = true;
                    *buf = Vec::new();
                    out.push(Err(crate::decode::oversize_error(
                        *wire,
                        Oversize {
                            kind: OversizeKind::Body,
                            cap: *max,
                            received,
                        },
                    )));
                } else {
                    buf.extend_from_slice(bytes);
                }
            }
        }
    }

    pub(crate) fn finish(&mut self, out: &mut Vec<Event>) {
        match self {
            Body::Stream(decoder) => decoder.finish(out),
            Body::Json { oversize: true, .. } => {}
            Body::Json {
                buf,
                wire,
                tool_kinds,
                origin,
                ..
            } => out.extend(decode_reply(
                *wire,
                std::mem::take(tool_kinds),
                origin.clone(),
                buf,
            )),
        }
    }
}

/// The events of one response, decoded as its bytes arrive.
///
/// Call [`ResponseStream::next`] until it returns `None`. The last item is either
/// `Ok(Completed)` or an `Err` (a provider error, `stream_truncated`, `timeout` when no byte
/// arrived for the idle timeout, or `cancelled`). Dropping the stream, or cancelling its
/// token, closes the connection; the attempt's [`Exchange`](tack_protocol::Exchange) is
/// delivered to the sink when the stream ends in any of these ways.
pub struct ResponseStream {
    response: Option<reqwest::Response>,
    body: Body,
    pending: VecDeque<Event>,
    scratch: Vec<Event>,
    recorder: Option<Recorder>,
    ctx: StreamContext,
    /// When the last event was decoded (or the stream opened): the no-progress clock.
    progress_at: Instant,
    /// Whether any event was decoded yet.
    decoded_any: bool,
    /// The first bytes of the body, to say what arrived when it held no events.
    body_start: Vec<u8>,
}

/// What a stream needs from the client besides the response.
pub(crate) struct StreamContext {
    pub(crate) sink: ExchangeSink,
    pub(crate) cancel: CancellationToken,
    /// The key sent, scrubbed from errors before they leave the stream.
    pub(crate) secret: Option<std::sync::Arc<str>>,
    pub(crate) clock: Clock,
    /// The reply's `content-type`, to describe a body that held no events.
    pub(crate) content_type: String,
    pub(crate) span: tracing::Span,
}

/// The three clocks of one request: idle (no byte), no progress (no event) and the total
/// deadline.
#[derive(Debug, Clone)]
pub(crate) struct Clock {
    idle: Duration,
    progress: Duration,
    total: Duration,
    deadline: Instant,
}

/// Which clock bounds the next wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    Idle,
    Progress,
    Deadline,
}

/// How long the next read may wait, and which clock runs out then.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wait {
    pub(crate) duration: Duration,
    bound: Bound,
}

impl Clock {
    pub(crate) fn new(config: &ClientConfig, start: Instant) -> Clock {
        Clock {
            idle: config.idle_timeout,
            progress: config.progress_timeout,
            total: config.request_deadline,
            deadline: start + config.request_deadline,
        }
    }

    /// Whether `at` is past the deadline.
    pub(crate) fn deadline_before(&self, at: Instant) -> bool {
        at > self.deadline
    }

    /// The next wait from `now`; `progress_at` is when the last event came (`None` before
    /// the body, where only idle and deadline count).
    fn wait_at(&self, now: Instant, progress_at: Option<Instant>) -> Wait {
        let mut wait = Wait {
            duration: self.idle,
            bound: Bound::Idle,
        };
        if let Some(at) = progress_at {
            let left = (at + self.progress).saturating_duration_since(now);
            if left < wait.duration {
                wait = Wait {
                    duration: left,
                    bound: Bound::Progress,
                };
            }
        }
        let left = self.deadline.saturating_duration_since(now);
        if left < wait.duration {
            wait = Wait {
                duration: left,
                bound: Bound::Deadline,
            };
        }
        wait
    }

    /// The wait before the body (headers, first byte): idle and deadline.
    pub(crate) fn wait(&self, now: Instant) -> Wait {
        self.wait_at(now, None)
    }

    /// The error for a wait that ran out.
    pub(crate) fn expired(&self, wait: Wait) -> ModelError {
        match wait.bound {
            Bound::Idle => idle_timeout_error(self.idle),
            Bound::Progress => ModelError::new(
                ErrorKind::NoProgress,
                format!(
                    "the provider kept the connection open for {} s without sending any \
                     event (only keep-alive comments or empty pieces; no-progress timeout)",
                    self.progress.as_secs_f32()
                ),
            )
            .with_hint(
                "the provider is not answering: try again later, or raise the no-progress \
                 timeout if this model thinks for longer without streaming",
            ),
            Bound::Deadline => ModelError::new(
                ErrorKind::DeadlineExceeded,
                format!(
                    "the request took longer than its {} s deadline",
                    self.total.as_secs_f32()
                ),
            )
            .with_hint(
                "the answer was still coming: ask for a shorter step, or raise the request \
                 deadline",
            ),
        }
    }
}

impl ResponseStream {
    /// A stream over `response`, whose first body piece `first` was already read (and
    /// recorded) by the client.
    pub(crate) fn new(
        response: reqwest::Response,
        first: bytes::Bytes,
        mut body: Body,
        recorder: Recorder,
        ctx: StreamContext,
    ) -> Self {
        let mut scratch = Vec::new();
        body.push(&first, &mut scratch);
        let mut stream = ResponseStream {
            response: Some(response),
            body,
            pending: VecDeque::new(),
            scratch,
            recorder: Some(recorder),
            ctx,
            progress_at: Instant::now(),
            decoded_any: false,
            body_start: Vec::new(),
        };
        stream.keep_start(&first);
        stream.take_scratch();
        stream
    }

    fn keep_start(&mut self, bytes: &[u8]) {
        if self.body_start.len() < BODY_START {
            let n = (BODY_START - self.body_start.len()).min(bytes.len());
            self.body_start.extend_from_slice(&bytes[..n]);
        }
    }

    /// Moves decoded events to the queue; any `Ok` event is progress.
    fn take_scratch(&mut self) {
        if self.scratch.iter().any(Result::is_ok) {
            self.decoded_any = true;
            self.progress_at = Instant::now();
        }
        self.pending.extend(self.scratch.drain(..));
    }

    /// The next event, or `None` after the last one.
    ///
    /// Cancel-safe: dropping the returned future before it completes (e.g. in a
    /// `tokio::select!`) loses no event and no body byte.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(mut event) = self.pending.pop_front() {
                if let (Err(error), Some(secret)) = (&mut event, &self.ctx.secret) {
                    super::scrub_error(error, secret);
                }
                self.observe(&event);
                return Some(event);
            }
            let response = self.response.as_mut()?;
            let wait = self
                .ctx
                .clock
                .wait_at(Instant::now(), Some(self.progress_at));
            let read = tokio::select! {
                biased;
                () = self.ctx.cancel.cancelled() => Read::Failed(ModelError::new(
                    ErrorKind::Cancelled,
                    "the request was cancelled",
                )),
                r = tokio::time::timeout(wait.duration, response.chunk()) => match r {
                    Err(_) => Read::Failed(self.ctx.clock.expired(wait)),
                    Ok(Ok(Some(bytes))) => Read::Bytes(bytes),
                    Ok(Ok(None)) => Read::End(None),
                    Ok(Err(e)) => Read::End(Some(classify_transport(&e))),
                },
            };
            match read {
                Read::Bytes(bytes) => {
                    if let Some(recorder) = &mut self.recorder {
                        recorder.chunk(&bytes);
                    }
                    self.keep_start(&bytes);
                    self.body.push(&bytes, &mut self.scratch);
                }
                Read::End(transport) => {
                    self.response = None;
                    self.body.finish(&mut self.scratch);
                    if !self.decoded_any && transport.is_none() {
                        self.explain_eventless_body();
                    }
                    if let Some(cause) = transport {
                        // The decoder says whether what arrived is complete; if it is not,
                        // say what broke the connection.
                        for event in &mut self.scratch {
                            if let Err(e) = event
                                && e.kind == ErrorKind::StreamTruncated
                            {
                                e.message = format!("{} ({})", e.message, cause.message);
                            }
                        }
                    }
                }
                Read::Failed(error) => {
                    self.response = None;
                    self.scratch.push(Err(error));
                }
            }
            self.take_scratch();
            if self.response.is_none() && self.pending.is_empty() {
                // The body ended without a terminal event (cannot happen with the decoders
                // here, which always end with `Completed` or an error); close the record.
                self.close(None);
                return None;
            }
        }
    }

    /// A 2xx body that ended without one event is not a dropped connection but the wrong
    /// thing entirely (a login page, a proxy's notice, a body in another format): the
    /// truncation error becomes a `format_error` saying what arrived.
    fn explain_eventless_body(&mut self) {
        let content_type = if self.ctx.content_type.is_empty() {
            "no content-type".to_string()
        } else {
            format!(
                "content-type `{}`",
                crate::errors::truncate(&self.ctx.content_type, 80)
            )
        };
        let start = describe_start(&self.body_start);
        let json = matches!(self.body, Body::Json { .. });
        // A JSON reply that failed to parse but does not even begin like JSON is the same
        // fault as an SSE body without frames.
        let not_json = !matches!(
            self.body_start.iter().find(|b| !b.is_ascii_whitespace()),
            Some(b'{' | b'[')
        );
        for event in &mut self.scratch {
            if let Err(e) = event
                && (e.kind == ErrorKind::StreamTruncated
                    || (json && not_json && e.kind == ErrorKind::FormatError))
            {
                let status = e.status;
                *e = ModelError::new(
                    ErrorKind::FormatError,
                    format!(
                        "the provider answered with {content_type} and no {} events; the body \
                         begins: {start}",
                        if json { "JSON reply" } else { "SSE" }
                    ),
                )
                .with_hint(
                    "this is not the API's answer: check the provider's base URL (it may point \
                     at a web page, a login portal or a proxy); the inspector shows the whole body",
                );
                e.status = status;
            }
        }
    }

    /// Records an event on its way out; a terminal event closes the attempt.
    fn observe(&mut self, event: &Event) {
        match event {
            Ok(event) => {
                if let Some(recorder) = &mut self.recorder {
                    recorder.event(event);
                }
                if matches!(event, StreamEvent::Completed { .. }) {
                    self.close(None);
                }
            }
            Err(error) => {
                let error = error.clone();
                self.close(Some(&error));
            }
        }
    }

    /// Ends the attempt: stops reading (dropping the response closes the connection),
    /// discards anything after the terminal event and hands the record to the sink.
    fn close(&mut self, error: Option<&ModelError>) {
        self.response = None;
        self.pending.clear();
        if let Some(recorder) = self.recorder.take() {
            let _enter = self.ctx.span.enter();
            match error {
                None => tracing::info!(usage = ?recorder.usage(), "response completed"),
                Some(e) => tracing::warn!(kind = %e.kind, message = %e.message, "response failed"),
            }
            (self.ctx.sink)(recorder.finish(error));
        }
    }
}

impl Drop for ResponseStream {
    fn drop(&mut self) {
        if self.recorder.is_some() {
            self.close(Some(&dropped_error()));
        }
    }
}

enum Read {
    Bytes(bytes::Bytes),
    /// The body ended, cleanly or by a transport error.
    End(Option<ModelError>),
    /// Cancelled or timed out: the connection is abandoned.
    Failed(ModelError),
}

/// The first bytes of a body as shown in an error: text as text (control characters and
/// invalid UTF-8 escaped), `(empty)` when nothing came.
fn describe_start(bytes: &[u8]) -> String {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return "(empty)".to_string();
    }
    let mut out = String::from("`");
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push(' '),
                c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.push('`');
    if bytes.len() >= BODY_START {
        out.push('…');
    }
    out
}

/// The error for a silent connection.
pub(crate) fn idle_timeout_error(idle: Duration) -> ModelError {
    ModelError::new(
        ErrorKind::Timeout,
        format!(
            "no data from the provider for {} s (idle timeout)",
            idle.as_secs_f32()
        ),
    )
    .with_hint("the provider stopped sending: try again, or raise the idle timeout")
}
