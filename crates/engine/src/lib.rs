//! Tack's engine: sessions, the turn loop, tools, approvals and the session log.

pub mod command_safety;
pub mod tools;
