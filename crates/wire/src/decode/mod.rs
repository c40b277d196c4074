//! Stream decoders: response bytes → [`StreamEvent`]s, one decoder per wire.
//!
//! A decoder is synchronous and incremental: the client pushes each piece of the body as it
//! arrives and gets back the events it completes, with no task, channel or buffering of the
//! whole body in between. The same decoder runs under `tack decode`, the benches and the
//! client, so what is measured and tested is what users get.
//!
//! Contract of the event sequence (see [`StreamEvent`]), the same on every wire: `Created`
//! once, deltas, then at the wire's terminal event an `ItemDone` for each complete item,
//! `Usage`, and exactly one `Completed`; or, instead of all that, exactly one `Err` as the
//! last event. After `Completed` or an `Err` a decoder emits nothing more. Items are only
//! released once the terminal event proves the response complete, so a stream that fails or
//! is cut off yields display deltas but never a runnable tool call.

mod calls;
pub mod chat;
mod chat_schema;
pub mod messages;
mod messages_schema;
pub mod responses;
mod responses_schema;

use tack_protocol::{ModelError, ReasoningOrigin, StreamEvent, Wire};

use crate::tool_kinds::ToolKinds;

/// An incremental decoder of one response body.
pub trait StreamDecoder: Send {
    /// Decodes the next piece of the body, appending every event it completes to `out`.
    fn push(&mut self, bytes: &[u8], out: &mut Vec<Result<StreamEvent, ModelError>>);

    /// The body ended (cleanly or not): appends the final events (or the error saying why the
    /// response is incomplete) to `out`.
    fn finish(&mut self, out: &mut Vec<Result<StreamEvent, ModelError>>);
}

/// The decoder for a streamed response on `wire`.
///
/// `tool_kinds` maps wire tool names back to how calls come back (from shaping); `origin` is
/// stamped on reasoning items (its `model` is replaced by the model the server reports).
/// See [`chat`], [`responses`] and [`messages`] for what each accepts.
pub fn decoder(
    wire: Wire,
    tool_kinds: ToolKinds,
    origin: ReasoningOrigin,
) -> Box<dyn StreamDecoder> {
    match wire {
        Wire::Chat => Box::new(chat::ChatDecoder::new(tool_kinds, origin)),
        Wire::Responses => Box::new(responses::ResponsesDecoder::new(tool_kinds, origin)),
        Wire::Messages => Box::new(messages::MessagesDecoder::new(tool_kinds, origin)),
    }
}

/// [`decoder`] with other size caps than [`SseLimits::for_wire`](crate::sse::SseLimits::for_wire).
pub fn decoder_with_limits(
    wire: Wire,
    tool_kinds: ToolKinds,
    origin: ReasoningOrigin,
    limits: crate::sse::SseLimits,
) -> Box<dyn StreamDecoder> {
    match wire {
        Wire::Chat => Box::new(chat::ChatDecoder::new(tool_kinds, origin).with_limits(limits)),
        Wire::Responses => {
            Box::new(responses::ResponsesDecoder::new(tool_kinds, origin).with_limits(limits))
        }
        Wire::Messages => {
            Box::new(messages::MessagesDecoder::new(tool_kinds, origin).with_limits(limits))
        }
    }
}

/// Decodes a whole non-streaming reply on `wire` (a request sent with `stream: false`, or a
/// server that ignored `stream: true`) into the events a stream of it would give, ending in
/// `Completed` or an error like a stream.
pub fn decode_reply(
    wire: Wire,
    tool_kinds: ToolKinds,
    origin: ReasoningOrigin,
    body: &[u8],
) -> Vec<Result<StreamEvent, ModelError>> {
    match wire {
        Wire::Chat => chat::decode_reply(body, tool_kinds, origin),
        Wire::Responses => responses::decode_reply(body, tool_kinds, origin),
        Wire::Messages => messages::decode_reply(body, tool_kinds, origin),
    }
}

/// Decodes a whole body at once (for `tack decode`, tests and benches).
pub fn decode_all(
    wire: Wire,
    tool_kinds: ToolKinds,
    origin: ReasoningOrigin,
    body: &[u8],
) -> Vec<Result<StreamEvent, ModelError>> {
    let mut decoder = decoder(wire, tool_kinds, origin);
    let mut out = Vec::new();
    decoder.push(body, &mut out);
    decoder.finish(&mut out);
    out
}

/// The error for a stream that crossed one of its [`SseLimits`](crate::sse::SseLimits): a
/// `format_error` naming the wire, the cap and what was received.
pub(crate) fn oversize_error(wire: Wire, oversize: crate::sse::Oversize) -> ModelError {
    ModelError::new(
        tack_protocol::ErrorKind::FormatError,
        format!("the {wire} stream was stopped: {}", oversize.describe()),
    )
    .with_hint(
        "the provider (or a proxy in front of it) sent far more than a model answer; the \
         inspector shows how the response began",
    )
}

/// `data` as text: borrowed when it is UTF-8, else with every invalid sequence replaced by
/// U+FFFD into `scratch` (and a warning logged). Providers have been seen to cut a
/// multi-byte character in two when they split a token; the rest of the answer is still
/// worth having, so the decoders go on with the replaced text rather than fail the turn.
pub(crate) fn utf8_or_replaced<'a>(data: &'a [u8], scratch: &'a mut String, wire: Wire) -> &'a str {
    match std::str::from_utf8(data) {
        Ok(text) => text,
        Err(e) => {
            tracing::warn!(
                %wire,
                at = e.valid_up_to(),
                bytes = data.len(),
                "invalid UTF-8 in a stream event: replaced with U+FFFD"
            );
            *scratch = String::from_utf8_lossy(data).into_owned();
            scratch.as_str()
        }
    }
}
