//! Tack's wires: the wire-neutral [`ShapedRequest`], rendering per wire, SSE decoding, the
//! HTTP client and error classification.

pub mod shaped;

pub use shaped::*;
