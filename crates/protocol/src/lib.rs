//! Tack's vocabulary, shared by every other crate and by the desktop shell.
//!
//! This crate holds data only: no I/O, no async, no HTTP. Every type serializes with serde in
//! the shape used on disk (session logs, exchange records) and over the desktop IPC; with the
//! `specta` feature the same types export to TypeScript.
//!
//! The words follow `DESIGN.md`:
//! - an [`Item`] is one entry of session history;
//! - a [`StreamEvent`] is one step of a decoded model response stream;
//! - an [`EngineEvent`] is what the engine tells a front end while a turn runs;
//! - a [`Wire`] is an HTTP API dialect;
//! - an [`Exchange`] is one recorded HTTP round trip.
//!
//! Numbers that cross the IPC boundary are `u32`/`i64`-free on purpose: TypeScript has no
//! 64-bit integers, so counts and milliseconds are `u32` (49 days of milliseconds is enough
//! for one request) and byte offsets that may exceed 4 GiB are not part of this vocabulary.

mod approval;
mod error;
mod event;
mod exchange;
mod item;
mod prompt;
mod sandbox;
mod tool;
mod usage;
mod visible;
mod wire;

pub use approval::*;
pub use error::*;
pub use event::*;
pub use exchange::*;
pub use item::*;
pub use prompt::*;
pub use sandbox::*;
pub use tool::*;
pub use usage::*;
pub use visible::{has_hidden, visible};
pub use wire::*;
