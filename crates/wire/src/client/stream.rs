//! The response side of one attempt: body bytes → decoder → events, recorded as they pass.

use std::collections::VecDeque;
use std::time::Duration;

use tack_protocol::{ErrorKind, ModelError, ReasoningOrigin, StreamEvent, Wire};
use tokio_util::sync::CancellationToken;

use super::record::{ExchangeSink, Recorder, dropped_error};
use crate::decode::{StreamDecoder, decode_reply, decoder};
use crate::errors::classify_transport;
use crate::tool_kinds::ToolKinds;

type Event = Result<StreamEvent, ModelError>;

/// Largest non-streaming JSON reply the client accepts (a reply is one message; anything
/// near this is a misconfigured endpoint).
const MAX_JSON_REPLY: usize = 64 * 1024 * 1024;

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
    },
}

impl Body {
    pub(crate) fn new(
        json: bool,
        wire: Wire,
        tool_kinds: ToolKinds,
        origin: ReasoningOrigin,
    ) -> Body {
        if json {
            Body::Json {
                buf: Vec::new(),
                wire,
                tool_kinds,
                origin,
            }
        } else {
            Body::Stream(decoder(wire, tool_kinds, origin))
        }
    }

    fn push(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        match self {
            Body::Stream(decoder) => decoder.push(bytes, out),
            Body::Json { buf, .. } => {
                if buf.len() + bytes.len() > MAX_JSON_REPLY {
                    out.push(Err(ModelError::new(
                        ErrorKind::FormatError,
                        format!("the JSON reply is larger than {MAX_JSON_REPLY} bytes"),
                    )));
                } else {
                    buf.extend_from_slice(bytes);
                }
            }
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        match self {
            Body::Stream(decoder) => decoder.finish(out),
            Body::Json {
                buf,
                wire,
                tool_kinds,
                origin,
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
}

/// What a stream needs from the client besides the response.
pub(crate) struct StreamContext {
    pub(crate) sink: ExchangeSink,
    pub(crate) cancel: CancellationToken,
    /// The key sent, scrubbed from errors before they leave the stream.
    pub(crate) secret: Option<std::sync::Arc<str>>,
    pub(crate) idle_timeout: Duration,
    pub(crate) span: tracing::Span,
}

impl ResponseStream {
    /// A stream over `response`, whose first body piece `first` was already read (and
    /// recorded) by the client.
    pub(crate) fn new(
        response: reqwest::Response,
        first: &[u8],
        mut body: Body,
        recorder: Recorder,
        ctx: StreamContext,
    ) -> Self {
        let mut scratch = Vec::new();
        body.push(first, &mut scratch);
        ResponseStream {
            response: Some(response),
            body,
            pending: scratch.drain(..).collect(),
            scratch,
            recorder: Some(recorder),
            ctx,
        }
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
            let read = tokio::select! {
                biased;
                () = self.ctx.cancel.cancelled() => Read::Failed(ModelError::new(
                    ErrorKind::Cancelled,
                    "the request was cancelled",
                )),
                r = tokio::time::timeout(self.ctx.idle_timeout, response.chunk()) => match r {
                    Err(_) => Read::Failed(idle_timeout_error(self.ctx.idle_timeout)),
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
                    self.body.push(&bytes, &mut self.scratch);
                }
                Read::End(transport) => {
                    self.response = None;
                    self.body.finish(&mut self.scratch);
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
            self.pending.extend(self.scratch.drain(..));
            if self.response.is_none() && self.pending.is_empty() {
                // The body ended without a terminal event (cannot happen with the decoders
                // here, which always end with `Completed` or an error); close the record.
                self.close(None);
                return None;
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
