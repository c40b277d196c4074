//! Stream decoders: response bytes → [`StreamEvent`]s, one decoder per wire.
//!
//! A decoder is synchronous and incremental: the client pushes each piece of the body as it
//! arrives and gets back the events it completes, with no task, channel or buffering of the
//! whole body in between. The same decoder runs under `tack decode`, the benches and the
//! client, so what is measured and tested is what users get.
//!
//! Contract of the event sequence (see [`StreamEvent`]): `Created` once, deltas, `ItemDone`
//! for each complete item, `Usage`, then exactly one `Completed`, or an `Err` instead of
//! `Completed`. After `Completed` or an `Err` a decoder emits nothing more.

pub mod chat;
mod chat_schema;

use tack_protocol::{ErrorKind, ModelError, ReasoningOrigin, StreamEvent, Wire};

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
/// Only Chat is implemented; other wires get a decoder that reports a `config` error.
pub fn decoder(
    wire: Wire,
    tool_kinds: ToolKinds,
    origin: ReasoningOrigin,
) -> Box<dyn StreamDecoder> {
    match wire {
        Wire::Chat => Box::new(chat::ChatDecoder::new(tool_kinds, origin)),
        Wire::Responses | Wire::Messages => Box::new(Unsupported {
            wire,
            reported: false,
        }),
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

/// The error every not-yet-implemented wire decodes to.
pub fn unsupported_wire(wire: Wire) -> ModelError {
    ModelError::new(
        ErrorKind::Config,
        format!("decoding the {wire} wire is not implemented yet"),
    )
    .with_hint("use a provider on the chat wire for now")
}

struct Unsupported {
    wire: Wire,
    reported: bool,
}

impl Unsupported {
    fn report(&mut self, out: &mut Vec<Result<StreamEvent, ModelError>>) {
        if !self.reported {
            self.reported = true;
            out.push(Err(unsupported_wire(self.wire)));
        }
    }
}

impl StreamDecoder for Unsupported {
    fn push(&mut self, _bytes: &[u8], out: &mut Vec<Result<StreamEvent, ModelError>>) {
        self.report(out);
    }

    fn finish(&mut self, out: &mut Vec<Result<StreamEvent, ModelError>>) {
        self.report(out);
    }
}
