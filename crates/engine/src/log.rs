//! The session log: one JSON Lines file per session, appended the moment something is
//! complete, so a crash (even SIGKILL) loses nothing that was committed.
//!
//! Layout under the data folder (see [`crate::config::Paths::sessions_dir`]):
//! - `sessions/<session id>.jsonl`: [`LogRecord`]s, first a `session_started` record;
//! - `sessions/<session id>.exchanges.jsonl`: one [`Exchange`] per line;
//! - `sessions/<session id>.log`: diagnostics (tracing), redacted.
//!
//! Known keys are redacted from every line before it is written
//! ([`crate::secrets::redact`]); exchanges also have keys split across stream pieces
//! redacted ([`crate::secrets::redact_exchange`]).
//!
//! Each record is written with a single `write` call followed by `sync_data`, so a reader never
//! sees a record half-written except possibly the very last line after a power loss; the
//! reader skips such a torn final line and says so.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tack_protocol::{Exchange, Item, ModelError, SessionSettings, Usage};

/// Format version written in `session_started`.
pub const LOG_VERSION: u32 = 1;

/// One line of a session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LogRecord {
    /// First record of every log.
    SessionStarted {
        /// Format version.
        version: u32,
        /// Session id.
        session_id: String,
        /// RFC 3339.
        created_at: String,
        /// Settings at creation.
        settings: SessionSettings,
        /// Base URL of a provider given as a URL (`--provider https://…`) rather than by a
        /// catalog or config id: with `settings` (wire, model, harness) it is what resuming
        /// needs to rebuild that provider. Absent for providers with an id; never a key.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_url: Option<String>,
    },
    /// The session was reopened (possibly with other settings).
    Resumed {
        /// RFC 3339.
        ts: String,
        /// Settings from now on.
        settings: SessionSettings,
        /// As in `session_started`, for the settings from now on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_url: Option<String>,
    },
    /// A turn began.
    TurnStarted {
        /// RFC 3339.
        ts: String,
        /// Turn id.
        turn_id: String,
    },
    /// A complete history item.
    Item {
        /// RFC 3339.
        ts: String,
        /// Turn it was produced in.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_id: Option<String>,
        /// The item.
        item: Item,
    },
    /// A turn ended.
    TurnEnded {
        /// RFC 3339.
        ts: String,
        /// Turn id.
        turn_id: String,
        /// `completed`, `interrupted`, `aborted` or `failed`.
        status: String,
        /// Tokens used.
        usage: Usage,
        /// Why a `failed` turn stopped (the same error the front end was sent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ModelError>,
    },
    /// The user renamed the session.
    Renamed {
        /// RFC 3339.
        ts: String,
        /// New title.
        title: String,
    },
}

/// Appends records to a session log file.
#[derive(Debug)]
pub struct SessionLog {
    path: PathBuf,
    file: File,
}

/// Errors reading or writing logs.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// File system error, with the path.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A line that is not a valid record (not the torn last line).
    #[error("{path}:{line}: not a session log record: {message}")]
    Corrupt {
        /// File.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// Parser message.
        message: String,
    },
    /// The file does not start with a `session_started` record.
    #[error("{0}: not a Tack session log (no session_started record)")]
    NotASessionLog(PathBuf),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> LogError + '_ {
    move |source| LogError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl SessionLog {
    /// Creates a new log (fails if it exists) and writes its first record.
    ///
    /// # Errors
    /// [`LogError::Io`] if the folder cannot be created or the file exists.
    pub fn create(path: &Path, first: &LogRecord) -> Result<Self, LogError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        }
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(path)
            .map_err(io_err(path))?;
        let mut log = SessionLog {
            path: path.to_path_buf(),
            file,
        };
        log.append(first)?;
        Ok(log)
    }

    /// Opens an existing log for appending.
    ///
    /// # Errors
    /// [`LogError::Io`] if it cannot be opened.
    pub fn open(path: &Path) -> Result<Self, LogError> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(io_err(path))?;
        Ok(SessionLog {
            path: path.to_path_buf(),
            file,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record durably (one write, then `sync_data`).
    ///
    /// # Errors
    /// [`LogError::Io`] on a write or sync failure (e.g. disk full).
    pub fn append(&mut self, record: &LogRecord) -> Result<(), LogError> {
        append_json_line(&mut self.file, &self.path, record)
    }
}

/// Appends one JSON value as a line, durably.
pub(crate) fn append_json_line<T: Serialize>(
    file: &mut File,
    path: &Path,
    value: &T,
) -> Result<(), LogError> {
    let line = serde_json::to_string(value).map_err(|e| LogError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    // The last line of defence: no key Tack knows reaches a file, whatever record holds it.
    let mut line = crate::secrets::redact(&line).into_owned().into_bytes();
    line.push(b'\n');
    file.write_all(&line).map_err(io_err(path))?;
    file.sync_data().map_err(io_err(path))
}

/// The exchange log beside a session log.
#[derive(Debug)]
pub struct ExchangeLog {
    path: PathBuf,
    file: File,
}

impl ExchangeLog {
    /// Opens (creating if needed) the exchange log at `path`.
    ///
    /// # Errors
    /// [`LogError::Io`].
    pub fn open(path: &Path) -> Result<Self, LogError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io_err(path))?;
        Ok(ExchangeLog {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Appends one exchange.
    ///
    /// # Errors
    /// [`LogError::Io`].
    pub fn append(&mut self, exchange: &Exchange) -> Result<(), LogError> {
        // Keys split across deltas or response chunks are whole only across records' pieces.
        let mut exchange = exchange.clone();
        crate::secrets::redact_exchange(&mut exchange);
        append_json_line(&mut self.file, &self.path, &exchange)
    }

    /// Reads every exchange in a file (a torn last line is skipped).
    ///
    /// # Errors
    /// [`LogError`] on I/O or a corrupt line.
    pub fn read_all(path: &Path) -> Result<Vec<Exchange>, LogError> {
        read_lines(path)
    }
}

/// A session log read back.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSession {
    /// Session id.
    pub session_id: String,
    /// RFC 3339 creation time.
    pub created_at: String,
    /// Latest settings (from `session_started` or the last `resumed`).
    pub settings: SessionSettings,
    /// Base URL of the latest provider when it was given as a URL (from the same record as
    /// `settings`); `None` for catalog and config providers and for logs written before
    /// Tack recorded it.
    pub provider_url: Option<String>,
    /// Latest title, if renamed.
    pub title: Option<String>,
    /// History items in order.
    pub items: Vec<Item>,
    /// A turn that started but never ended (the process died mid-turn).
    pub unfinished_turn: Option<String>,
    /// Whether a torn final line was skipped.
    pub torn_tail: bool,
    /// All records, in order.
    pub records: Vec<LogRecord>,
}

impl LoadedSession {
    /// Reads a session log.
    ///
    /// # Errors
    /// [`LogError`] if the file can't be read, a line other than the last is corrupt, or it
    /// is not a session log.
    pub fn read(path: &Path) -> Result<Self, LogError> {
        let (records, torn_tail) = read_lines_with_tail::<LogRecord>(path)?;
        let mut iter = records.iter();
        let Some(LogRecord::SessionStarted {
            session_id,
            created_at,
            settings,
            provider_url,
            ..
        }) = iter.next()
        else {
            return Err(LogError::NotASessionLog(path.to_path_buf()));
        };
        let mut loaded = LoadedSession {
            session_id: session_id.clone(),
            created_at: created_at.clone(),
            settings: settings.clone(),
            provider_url: provider_url.clone(),
            title: None,
            items: Vec::new(),
            unfinished_turn: None,
            torn_tail,
            records: Vec::new(),
        };
        for record in iter {
            match record {
                LogRecord::SessionStarted { .. } => {}
                LogRecord::Resumed {
                    settings,
                    provider_url,
                    ..
                } => {
                    loaded.settings = settings.clone();
                    loaded.provider_url = provider_url.clone();
                }
                LogRecord::TurnStarted { turn_id, .. } => {
                    loaded.unfinished_turn = Some(turn_id.clone());
                }
                LogRecord::TurnEnded { turn_id, .. } => {
                    if loaded.unfinished_turn.as_deref() == Some(turn_id) {
                        loaded.unfinished_turn = None;
                    }
                }
                LogRecord::Item { item, .. } => loaded.items.push(item.clone()),
                LogRecord::Renamed { title, .. } => loaded.title = Some(title.clone()),
            }
        }
        loaded.records = records;
        Ok(loaded)
    }

    /// A title for lists: the rename, else the first user message's first line (≤ 80 chars).
    pub fn display_title(&self) -> String {
        if let Some(t) = &self.title {
            return t.clone();
        }
        for item in &self.items {
            if let Item::Message(m) = item
                && m.role == tack_protocol::Role::User
            {
                let text = m.text();
                let line = text.lines().next().unwrap_or("").trim();
                if !line.is_empty() {
                    return line.chars().take(80).collect();
                }
            }
        }
        "New session".to_string()
    }
}

fn read_lines<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>, LogError> {
    read_lines_with_tail(path).map(|(v, _)| v)
}

fn read_lines_with_tail<T: for<'de> Deserialize<'de>>(
    path: &Path,
) -> Result<(Vec<T>, bool), LogError> {
    let file = File::open(path).map_err(io_err(path))?;
    let mut lines = Vec::new();
    for line in BufReader::new(file).split(b'\n') {
        lines.push(line.map_err(io_err(path))?);
    }
    let mut out = Vec::with_capacity(lines.len());
    let mut torn = false;
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<T>(line) {
            Ok(v) => out.push(v),
            Err(e) if i == last => {
                tracing::warn!(path = %path.display(), error = %e, "skipping torn last line");
                torn = true;
            }
            Err(e) => {
                return Err(LogError::Corrupt {
                    path: path.to_path_buf(),
                    line: i + 1,
                    message: e.to_string(),
                });
            }
        }
    }
    Ok((out, torn))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::{ApprovalPolicy, Role, Wire};

    fn settings() -> SessionSettings {
        SessionSettings {
            cwd: "/w".into(),
            provider: "local".into(),
            model: "m".into(),
            wire: Wire::Chat,
            harness: "minimal".into(),
            approval: ApprovalPolicy::Untrusted,
            sandbox: Default::default(),
        }
    }

    #[test]
    fn round_trip_and_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut log = SessionLog::create(
            &path,
            &LogRecord::SessionStarted {
                version: LOG_VERSION,
                session_id: "s1".into(),
                created_at: "2026-01-01T00:00:00Z".into(),
                settings: settings(),
                provider_url: None,
            },
        )
        .unwrap();
        log.append(&LogRecord::TurnStarted {
            ts: "t".into(),
            turn_id: "t1".into(),
        })
        .unwrap();
        log.append(&LogRecord::Item {
            ts: "t".into(),
            turn_id: Some("t1".into()),
            item: Item::text("i1", Role::User, "fix the bug\nplease"),
        })
        .unwrap();
        drop(log);
        // Simulate a crash in the middle of writing the next record.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"type":"item","ts":"t","item":{"type":"mess"#)
            .unwrap();
        let loaded = LoadedSession::read(&path).unwrap();
        assert_eq!(loaded.items.len(), 1);
        assert!(loaded.torn_tail);
        assert_eq!(loaded.unfinished_turn.as_deref(), Some("t1"));
        assert_eq!(loaded.display_title(), "fix the bug");
    }

    #[test]
    fn corrupt_middle_line_is_an_error_with_its_line_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"type\":\"nope\"}\n{}\n").unwrap();
        let err = LoadedSession::read(&path).unwrap_err();
        assert!(err.to_string().contains(":1:"), "{err}");
    }

    #[test]
    fn create_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "x").unwrap();
        let first = LogRecord::Renamed {
            ts: "t".into(),
            title: "x".into(),
        };
        assert!(SessionLog::create(&path, &first).is_err());
    }
}
