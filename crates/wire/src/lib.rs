//! Tack's wires: the wire-neutral [`ShapedRequest`], rendering per wire, SSE decoding, the
//! HTTP client and error classification.
//!
//! The path of one sampling request through this crate:
//! 1. [`render()`] turns a [`ShapedRequest`] into a [`RenderedRequest`] (pure, deterministic,
//!    no credentials), recording nothing;
//! 2. [`client::ModelClient::open`] sends it with the auth header, retries where it is safe
//!    (before the first body byte), and records every attempt as an
//!    [`Exchange`](tack_protocol::Exchange);
//! 3. the returned [`client::ResponseStream`] pushes body bytes through the wire's
//!    [`StreamDecoder`] (SSE framing in [`sse`], chunk decoding in [`decode`]) and yields
//!    [`StreamEvent`](tack_protocol::StreamEvent)s as they complete;
//! 4. [`neutral`] projects events to the line schema `tack decode` prints.
//!
//! [`tool_kinds()`] records, while shaping, how each advertised tool name comes back;
//! [`errors`] classifies HTTP, stream and transport failures into
//! [`ModelError`](tack_protocol::ModelError)s.

pub mod client;
pub mod decode;
pub mod errors;
pub mod neutral;
pub mod render;
pub mod shaped;
pub mod sse;
pub mod tool_kinds;

pub use decode::{StreamDecoder, decode_all, decode_reply, decoder, decoder_with_limits};
pub use render::{Endpoint, RenderError, RenderedRequest, render};
pub use shaped::*;
pub use tool_kinds::{ToolKinds, tool_kinds};
