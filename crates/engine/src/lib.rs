//! Tack's engine: sessions, the turn loop, tools, approvals and the session log.
//!
//! The way in is [`session::Session`]: create one with [`session::Engine`] and
//! [`session::SessionOptions`] (usually from [`resolve::resolve`]), submit input, and read
//! [`tack_protocol::EngineEvent`]s from the channel it returns. Everything a session does is
//! appended to its log ([`log`]) as it happens.

pub mod approval;
/// The shell-command classifier, which lives in its own crate.
pub use tack_command_safety as command_safety;
pub mod config;
pub mod context;
pub mod diagnostics;
pub mod events;
pub mod export;
pub mod log;
pub mod policy_check;
pub mod resolve;
pub mod rules;
pub mod secrets;
pub mod session;
pub mod tools;
mod turn;

pub use turn::{DEFAULT_TOOL_TIMEOUT_MS, MAX_CORRECTIONS, MAX_STEPS, MAX_TOOL_OUTPUT_BYTES};
