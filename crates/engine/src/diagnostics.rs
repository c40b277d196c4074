//! Diagnostics: a `tracing` layer that writes each session's events to its own log file,
//! `<sessions>/<session id>.log`, beside the session log.
//!
//! The engine opens a `turn` span with a `session` field for every turn; sampling requests and
//! tool calls are spans inside it. This layer finds the `session` field in an event's span
//! scope and appends one line (`time level target: message key=value …`) to that session's
//! file. Events outside any session go nowhere (the process's own subscriber decides). No
//! secret reaches these lines: the engine never logs header values or keys, keys are held
//! in types that format as `[REDACTED]`, and every line has the keys Tack knows redacted
//! before it is written.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// Writes events to per-session log files.
pub struct SessionLogLayer {
    dir: PathBuf,
    files: Mutex<HashMap<String, File>>,
}

impl SessionLogLayer {
    /// A layer writing into `dir` (the sessions folder).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        SessionLogLayer {
            dir: dir.into(),
            files: Mutex::new(HashMap::new()),
        }
    }

    fn write(&self, session: &str, line: &str) {
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        if !files.contains_key(session) {
            let path = self.dir.join(format!("{session}.log"));
            match OpenOptions::new().create(true).append(true).open(&path) {
                Ok(f) => {
                    files.insert(session.to_string(), f);
                }
                Err(_) => return,
            }
        }
        if let Some(f) = files.get_mut(session) {
            // A key can reach a message through an error text a server echoed.
            let _ = f.write_all(crate::secrets::redact(line).as_bytes());
        }
    }
}

/// The `session` field of a span, stored in its extensions.
struct SessionField(String);

#[derive(Default)]
struct FieldText {
    session: Option<String>,
    message: String,
    rest: String,
}

impl Visit for FieldText {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "session" => self.session = Some(value.to_string()),
            "message" => self.message.push_str(value),
            name => {
                let _ = write!(self.rest, " {name}={value:?}");
            }
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "session" => self.session = Some(format!("{value:?}")),
            "message" => {
                let _ = write!(self.message, "{value:?}");
            }
            name => {
                let _ = write!(self.rest, " {name}={value:?}");
            }
        }
    }
}

impl<S> Layer<S> for SessionLogLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = FieldText::default();
        attrs.record(&mut fields);
        if let (Some(session), Some(span)) = (fields.session, ctx.span(id)) {
            span.extensions_mut().insert(SessionField(session));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let Some(scope) = ctx.event_scope(event) else {
            return;
        };
        let mut session = None;
        let mut spans = Vec::new();
        for span in scope.from_root() {
            if let Some(SessionField(s)) = span.extensions().get::<SessionField>() {
                session = Some(s.clone());
            }
            spans.push(span.name());
        }
        let Some(session) = session else { return };
        let mut fields = FieldText::default();
        event.record(&mut fields);
        let meta = event.metadata();
        let line = format!(
            "{} {:5} {} [{}]: {}{}\n",
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            meta.level(),
            meta.target(),
            spans.join(">"),
            fields.message,
            fields.rest
        );
        self.write(&session, &line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    #[test]
    fn events_inside_a_session_span_land_in_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let subscriber = tracing_subscriber::registry().with(SessionLogLayer::new(dir.path()));
        tracing::subscriber::with_default(subscriber, || {
            let turn = tracing::info_span!("turn", session = "s1", turn = "t1");
            let _g = turn.enter();
            let inner = tracing::info_span!("tool_call", tool = "shell");
            let _g2 = inner.enter();
            tracing::warn!(exit = 3, "command failed");
            drop(_g2);
            drop(_g);
            tracing::info!("outside any session");
        });
        let text = std::fs::read_to_string(dir.path().join("s1.log")).unwrap();
        assert!(text.contains("turn>tool_call"), "{text}");
        assert!(text.contains("command failed exit=3"), "{text}");
        assert!(!text.contains("outside any session"));
    }
}
