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
        /// `settings` and `provider_url` as written, hex-encoded JSON ([`seal`]): a hand edit
        /// of the readable fields (a widened sandbox, another cwd) shows as a difference
        /// ([`LoadedSession::header_changes`]) instead of being taken silently. Hex, so a
        /// search-and-replace over the file does not change both copies. Absent in logs
        /// written before Tack sealed headers.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seal: Option<String>,
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
        /// As in `session_started`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seal: Option<String>,
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
    /// Streamed text of a response not yet complete, appended as it arrives (coalesced, see
    /// [`crate::turn`]): what a crash, an interrupt or a failed stream would otherwise lose.
    /// The item that completes it supersedes it; one left without that item is read back as
    /// a cut-off answer ([`LoadedSession::read`]). Redacted like every record.
    TextProgress {
        /// RFC 3339.
        ts: String,
        /// Turn it was streamed in.
        turn_id: String,
        /// Which stream: the answer's text or the model's reasoning.
        stream: ProgressStream,
        /// The text since the previous `text_progress` record of this stream.
        text: String,
    },
    /// The user renamed the session.
    Renamed {
        /// RFC 3339.
        ts: String,
        /// New title.
        title: String,
    },
}

/// Which stream a [`LogRecord::TextProgress`] belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProgressStream {
    /// The assistant's answer.
    Text,
    /// The model's reasoning.
    Reasoning,
}

/// Appends records to a session log file: the one writer of that log.
///
/// Holding a `SessionLog` holds an exclusive advisory lock on the file (`flock` on Unix,
/// `LockFileEx` on Windows, through std's [`File::try_lock`]) until it is dropped, so two
/// processes (the window and `tack exec --resume`, or two `exec`s) never interleave records.
/// The holder's pid is written beside it ([`lock_path`]) for the error the second one gets;
/// the kernel releases the lock when the holder dies, however it dies, so a stale pid file
/// never blocks anyone.
#[derive(Debug)]
pub struct SessionLog {
    path: PathBuf,
    file: File,
}

impl Drop for SessionLog {
    fn drop(&mut self) {
        // Removed while the lock is still held (the file closes after this), so it never
        // deletes the pid file of the next holder.
        let _ = std::fs::remove_file(lock_path(&self.path));
    }
}

/// The file beside a session log naming the pid of the process that writes it.
pub fn lock_path(log: &Path) -> PathBuf {
    with_suffix(log, ".lock")
}

/// The side file where torn tails cut from a session log are kept (appended to).
pub fn torn_path(log: &Path) -> PathBuf {
    with_suffix(log, ".torn")
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// What [`SessionLog::open`] cut from the end of a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// Byte offset the log was truncated to (the end of its last complete record).
    pub offset: u64,
    /// How many bytes were cut (and appended to [`torn_path`]).
    pub len: u64,
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
    /// Another process holds the log's lock (it is writing the session).
    #[error("session {session} is open in another process{}", pid.map(|p| format!(" (pid {p})")).unwrap_or_default())]
    Locked {
        /// Session id (the file's stem).
        session: String,
        /// The holder's pid, from [`lock_path`], when it could be read.
        pid: Option<u32>,
        /// The log.
        path: PathBuf,
    },
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
        let mut log = Self::locked(path, file)?;
        log.append(first)?;
        Ok(log)
    }

    /// Opens an existing log for appending: takes its lock, then repairs a torn tail (see
    /// [`SessionLog::open_repairing`], whose report this drops).
    ///
    /// # Errors
    /// [`LogError::Locked`] if another process writes it; [`LogError::Io`] if it cannot be
    /// opened or repaired.
    pub fn open(path: &Path) -> Result<Self, LogError> {
        Self::open_repairing(path).map(|(log, _)| log)
    }

    /// [`SessionLog::open`], saying what was cut. A last line that is not a complete record
    /// (power loss, SIGKILL mid-write, with or without its newline) is cut off and its bytes
    /// appended to [`torn_path`]; appending after it instead would bury it mid-file, where it
    /// makes every later read fail. A complete last record that only lacks its newline gets
    /// one. Only the tail is read, so this costs the same for any log size.
    ///
    /// # Errors
    /// As for [`SessionLog::open`].
    pub fn open_repairing(path: &Path) -> Result<(Self, Option<TornTail>), LogError> {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(io_err(path))?;
        let mut log = Self::locked(path, file)?;
        let torn = repair_tail(&mut log.file, path)?;
        Ok((log, torn))
    }

    /// Takes the exclusive lock on `file` and records this process as the writer.
    fn locked(path: &Path, file: File) -> Result<Self, LogError> {
        // A holder in this very process is a session being dropped (its last turn task
        // winding down) as it is reopened: worth a short wait. Another process's is not.
        let mut waits = 0;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) => {
                    let pid: Option<u32> = std::fs::read_to_string(lock_path(path))
                        .ok()
                        .and_then(|s| s.trim().parse().ok());
                    if pid == Some(std::process::id()) && waits < 200 {
                        waits += 1;
                        std::thread::sleep(std::time::Duration::from_millis(10));
                        continue;
                    }
                    return Err(LogError::Locked {
                        session: session_of(path),
                        pid,
                        path: path.to_path_buf(),
                    });
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io_err(path)(e)),
            }
        }
        // Best effort: the lock is what excludes; the pid only makes the error helpful.
        if let Err(e) = std::fs::write(lock_path(path), format!("{}\n", std::process::id())) {
            tracing::warn!(path = %path.display(), error = %e, "could not write the lock's pid file");
        }
        Ok(SessionLog {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Whether another process writes the log at `path` now (its pid, when known), without
    /// taking the lock; `None` when nobody does (or the file cannot be opened).
    pub fn writer(path: &Path) -> Option<Option<u32>> {
        let file = File::open(path).ok()?;
        match file.try_lock_shared() {
            Ok(()) => None,
            Err(std::fs::TryLockError::WouldBlock) => Some(
                std::fs::read_to_string(lock_path(path))
                    .ok()
                    .and_then(|s| s.trim().parse().ok()),
            ),
            Err(std::fs::TryLockError::Error(_)) => None,
        }
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

/// The session id a log path names (its file stem).
fn session_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Cuts an incomplete last line off `file` (see [`SessionLog::open_repairing`]).
fn repair_tail(file: &mut File, path: &Path) -> Result<Option<TornTail>, LogError> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata().map_err(io_err(path))?.len();
    if len == 0 {
        return Ok(None);
    }
    // Read backwards in chunks until the start of the last line (the byte after the last
    // newline that is not the file's final byte) is in the buffer.
    const CHUNK: u64 = 64 * 1024;
    let mut start = len;
    let mut tail: Vec<u8> = Vec::new();
    let line_start = loop {
        let from = start.saturating_sub(CHUNK);
        let mut chunk = vec![0u8; usize::try_from(start - from).unwrap_or(0)];
        file.seek(SeekFrom::Start(from)).map_err(io_err(path))?;
        file.read_exact(&mut chunk).map_err(io_err(path))?;
        chunk.extend_from_slice(&tail);
        tail = chunk;
        start = from;
        // Ignore a final newline: it ends the last line rather than starting one.
        let body = tail.strip_suffix(b"\n").unwrap_or(&tail);
        if let Some(i) = memchr::memrchr(b'\n', body) {
            break start + i as u64 + 1;
        }
        if start == 0 {
            break 0;
        }
    };
    let last = &tail[usize::try_from(line_start - start).unwrap_or(0)..];
    let has_newline = last.ends_with(b"\n");
    let body = last.strip_suffix(b"\n").unwrap_or(last);
    if body.iter().all(u8::is_ascii_whitespace) && has_newline {
        return Ok(None);
    }
    if serde_json::from_slice::<LogRecord>(body).is_ok() {
        if !has_newline {
            // A whole record whose newline never reached the disk: finish it.
            file.write_all(b"\n").map_err(io_err(path))?;
            file.sync_data().map_err(io_err(path))?;
        }
        return Ok(None);
    }
    // Keep the torn bytes (they may hold the last words of an answer) before cutting them,
    // so a crash between the two steps loses nothing.
    let side = torn_path(path);
    let mut keep = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&side)
        .map_err(io_err(&side))?;
    let mut bytes = last.to_vec();
    if !has_newline {
        bytes.push(b'\n');
    }
    keep.write_all(&bytes).map_err(io_err(&side))?;
    keep.sync_data().map_err(io_err(&side))?;
    file.set_len(line_start).map_err(io_err(path))?;
    file.sync_data().map_err(io_err(path))?;
    tracing::warn!(path = %path.display(), offset = line_start, bytes = last.len(), "cut a torn last line (kept in {})", side.display());
    Ok(Some(TornTail {
        offset: line_start,
        len: last.len() as u64,
    }))
}

/// The hex-encoded JSON of a header's settings, as written in its `seal` field.
pub fn seal(settings: &SessionSettings, provider_url: Option<&str>) -> String {
    let json = serde_json::json!({ "settings": settings, "provider_url": provider_url });
    let mut out = String::new();
    for b in json.to_string().bytes() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The settings a `seal` holds (`None` if it is not one).
fn unseal(seal: &str) -> Option<(SessionSettings, Option<String>)> {
    let bytes: Option<Vec<u8>> = (0..seal.len())
        .step_by(2)
        .map(|i| {
            seal.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect();
    #[derive(Deserialize)]
    struct Sealed {
        settings: SessionSettings,
        provider_url: Option<String>,
    }
    let sealed: Sealed = serde_json::from_slice(&bytes?).ok()?;
    Some((sealed.settings, sealed.provider_url))
}

/// One field of a header that differs from what Tack wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderChange {
    /// 1-based line of the record (`session_started` or `resumed`).
    pub line: usize,
    /// The field, as a dotted path (`settings.sandbox.mode`, `provider_url`).
    pub field: String,
    /// As written by Tack (JSON).
    pub written: String,
    /// As the file has it now (JSON).
    pub now: String,
}

impl std::fmt::Display for HeaderChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}: {}: {} → {}",
            self.line, self.field, self.written, self.now
        )
    }
}

/// The fields of a header record that differ from its seal (empty when it has none).
fn header_changes(
    line: usize,
    settings: &SessionSettings,
    provider_url: Option<&String>,
    seal: Option<&String>,
) -> Vec<HeaderChange> {
    let Some(seal) = seal else {
        return Vec::new();
    };
    let now = serde_json::json!({ "settings": settings, "provider_url": provider_url });
    let Some((s, u)) = unseal(seal) else {
        return vec![HeaderChange {
            line,
            field: "seal".into(),
            written: "(a copy of the settings)".into(),
            now: "(not readable)".into(),
        }];
    };
    let written = serde_json::json!({ "settings": s, "provider_url": u });
    let mut out = Vec::new();
    diff_json("", &written, &now, line, &mut out);
    out
}

fn diff_json(
    at: &str,
    a: &serde_json::Value,
    b: &serde_json::Value,
    line: usize,
    out: &mut Vec<HeaderChange>,
) {
    use serde_json::Value;
    if let (Value::Object(x), Value::Object(y)) = (a, b) {
        let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            let path = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            diff_json(
                &path,
                x.get(k).unwrap_or(&Value::Null),
                y.get(k).unwrap_or(&Value::Null),
                line,
                out,
            );
        }
    } else if a != b {
        out.push(HeaderChange {
            line,
            field: at.to_string(),
            written: a.to_string(),
            now: b.to_string(),
        });
    }
}

/// Most time streamed text waits before it is written as a [`LogRecord::TextProgress`].
pub const PROGRESS_INTERVAL: std::time::Duration = std::time::Duration::from_millis(250);

/// Most streamed bytes held before they are written (whichever of this and
/// [`PROGRESS_INTERVAL`] comes first).
pub const PROGRESS_BYTES: usize = 4 * 1024;

/// Coalesces a response's text and reasoning deltas into [`LogRecord::TextProgress`]
/// records: one `sync_data` per delta would cost a disk flush per token, one per
/// [`PROGRESS_INTERVAL`] or [`PROGRESS_BYTES`] bounds both the cost and what a crash loses.
///
/// Deltas pass through an [`crate::secrets::EventRedactor`] of its own: a delta may end in
/// the first characters of a key, which must not reach the file before the rest of it can be
/// redacted, so that text waits for the next delta.
#[derive(Debug)]
pub struct ProgressWriter {
    turn_id: String,
    redactor: crate::secrets::EventRedactor,
    /// Released by the redactor, not yet written.
    text: String,
    reasoning: String,
    /// When the oldest unwritten text arrived.
    since: Option<std::time::Instant>,
    /// Everything streamed since the last completed item (what a cut-off item holds).
    all_text: String,
    all_reasoning: String,
}

impl ProgressWriter {
    /// A writer for one turn's responses.
    pub fn new(turn_id: &str) -> Self {
        ProgressWriter {
            turn_id: turn_id.to_string(),
            redactor: crate::secrets::EventRedactor::default(),
            text: String::new(),
            reasoning: String::new(),
            since: None,
            all_text: String::new(),
            all_reasoning: String::new(),
        }
    }

    /// Takes a delta; returns the records to append now (when a bound is reached).
    pub fn push(&mut self, stream: ProgressStream, delta: &str) -> Vec<LogRecord> {
        match stream {
            ProgressStream::Text => self.all_text.push_str(delta),
            ProgressStream::Reasoning => self.all_reasoning.push_str(delta),
        }
        let event = match stream {
            ProgressStream::Text => tack_protocol::EngineEvent::TextDelta {
                turn_id: self.turn_id.clone(),
                text: delta.to_string(),
            },
            ProgressStream::Reasoning => tack_protocol::EngineEvent::ReasoningDelta {
                turn_id: self.turn_id.clone(),
                text: delta.to_string(),
            },
        };
        let released = self.redactor.pass(event);
        self.take(released);
        let now = std::time::Instant::now();
        if self.text.len() + self.reasoning.len() >= PROGRESS_BYTES
            || self
                .since
                .is_some_and(|t| now.duration_since(t) >= PROGRESS_INTERVAL)
        {
            return self.records();
        }
        Vec::new()
    }

    fn take(&mut self, released: Vec<tack_protocol::EngineEvent>) {
        for ev in released {
            match ev {
                tack_protocol::EngineEvent::TextDelta { text, .. } => self.text.push_str(&text),
                tack_protocol::EngineEvent::ReasoningDelta { text, .. } => {
                    self.reasoning.push_str(&text);
                }
                _ => {}
            }
        }
        if self.since.is_none() && !(self.text.is_empty() && self.reasoning.is_empty()) {
            self.since = Some(std::time::Instant::now());
        }
    }

    /// When unwritten text is due (`None`: nothing waits).
    pub fn due(&self) -> Option<std::time::Instant> {
        self.since.map(|t| t + PROGRESS_INTERVAL)
    }

    /// The records for what is released and unwritten (held-back key prefixes stay).
    pub fn records(&mut self) -> Vec<LogRecord> {
        self.since = None;
        let mut out = Vec::new();
        for (stream, text) in [
            (
                ProgressStream::Reasoning,
                std::mem::take(&mut self.reasoning),
            ),
            (ProgressStream::Text, std::mem::take(&mut self.text)),
        ] {
            if !text.is_empty() {
                out.push(LogRecord::TextProgress {
                    ts: crate::session::now(),
                    turn_id: self.turn_id.clone(),
                    stream,
                    text,
                });
            }
        }
        out
    }

    /// A completed item arrived: it supersedes the progress of its stream (the same rule
    /// [`LoadedSession::read`] applies), which need not be written any more.
    pub fn superseded(&mut self, item: &Item) {
        let all = match item {
            Item::Reasoning(_) => false,
            Item::Message(m) if m.role == tack_protocol::Role::Assistant => true,
            i if i.is_tool_call() => true,
            _ => return,
        };
        self.reasoning.clear();
        self.all_reasoning.clear();
        if all {
            self.text.clear();
            self.all_text.clear();
            // Held-back text belongs to the finished item too.
            let _ = self.redactor.flush();
        }
        if self.text.is_empty() && self.reasoning.is_empty() {
            self.since = None;
        }
    }

    /// The response was cut off: the items holding what was streamed since the last
    /// completed item (see [`cut_off_items`]); `id` names them.
    pub fn cut_off(&mut self, why: CutOff, id: &str) -> Vec<Item> {
        let _ = self.redactor.flush();
        self.text.clear();
        self.reasoning.clear();
        self.since = None;
        let items = cut_off_items(&self.all_text, &self.all_reasoning, why, id);
        self.all_text.clear();
        self.all_reasoning.clear();
        items
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
    /// Fields of the latest header record (`session_started` or the last `resumed`, whose
    /// settings take effect) that differ from what Tack wrote: the file was edited by hand. Resuming refuses such a log unless the user
    /// accepts the changes.
    pub header_changes: Vec<HeaderChange>,
    /// Ids of the items in `items` that are answers cut off mid-stream (interrupted, failed,
    /// or Tack stopped): their text ends with a note saying so, for the model and the reader.
    pub cut_off: Vec<String>,
    /// All records, in order.
    pub records: Vec<LogRecord>,
}

/// Why a streamed answer was cut off, for the note that ends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutOff {
    /// The user interrupted the turn.
    Interrupted,
    /// The response stream failed.
    Failed,
    /// Tack stopped (killed, crashed, power loss) before the answer finished.
    Stopped,
}

impl CutOff {
    fn from_status(status: &str) -> CutOff {
        match status {
            "interrupted" | "aborted" => CutOff::Interrupted,
            "failed" => CutOff::Failed,
            _ => CutOff::Stopped,
        }
    }

    /// Whether `text` ends with one of the notes: the answer was cut off.
    pub fn is_marked(text: &str) -> bool {
        [CutOff::Interrupted, CutOff::Failed, CutOff::Stopped]
            .iter()
            .any(|c| text.ends_with(c.note()))
    }

    /// The note appended to a cut-off answer: the next request must show the model that the
    /// answer is incomplete, not let it pass for a finished one.
    pub fn note(self) -> &'static str {
        match self {
            CutOff::Interrupted => {
                "[Tack: this answer was cut off: the user interrupted it; it is incomplete.]"
            }
            CutOff::Failed => {
                "[Tack: this answer was cut off: the response stream failed; it is incomplete.]"
            }
            CutOff::Stopped => {
                "[Tack: this answer was cut off: Tack stopped before it finished; it is incomplete.]"
            }
        }
    }
}

/// The history items for streamed text left without its completed item: the reasoning (if
/// any), then the answer so far with the note (if any text); `id` makes their ids.
pub fn cut_off_items(text: &str, reasoning: &str, why: CutOff, id: &str) -> Vec<Item> {
    let mut out = Vec::new();
    if !reasoning.is_empty() {
        out.push(Item::Reasoning(tack_protocol::ReasoningItem {
            id: format!("{id}_reasoning"),
            text: format!("{reasoning}\n\n{}", why.note()),
            summary: Vec::new(),
            signature: None,
            redacted_data: None,
            encrypted_content: None,
            origin: None,
        }));
    }
    if !text.is_empty() || !reasoning.is_empty() {
        let body = if text.is_empty() {
            why.note().to_string()
        } else {
            format!("{text}\n\n{}", why.note())
        };
        out.push(Item::text(
            format!("{id}_text"),
            tack_protocol::Role::Assistant,
            body,
        ));
    }
    out
}

/// Progress records not yet superseded by their items, while reading.
#[derive(Default)]
struct Pending {
    text: String,
    reasoning: String,
    /// Line of the first progress record: names the items made from it.
    line: usize,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.text.is_empty() && self.reasoning.is_empty()
    }

    /// Turns what is pending into cut-off items of `loaded`.
    fn settle(&mut self, why: CutOff, loaded: &mut LoadedSession) {
        if self.is_empty() {
            return;
        }
        let items = cut_off_items(
            &self.text,
            &self.reasoning,
            why,
            &format!("cut_{}", self.line),
        );
        for item in items {
            if matches!(&item, Item::Message(_)) {
                loaded.cut_off.push(item.id().to_string());
            }
            loaded.items.push(item);
        }
        *self = Pending::default();
    }
}

impl LoadedSession {
    /// Reads a session log.
    ///
    /// # Errors
    /// [`LogError`] if the file can't be read, a line other than the last is corrupt, or it
    /// is not a session log.
    pub fn read(path: &Path) -> Result<Self, LogError> {
        let (numbered, torn_tail) = read_numbered::<LogRecord>(path)?;
        let mut iter = numbered.iter();
        let Some((
            first_line,
            LogRecord::SessionStarted {
                session_id,
                created_at,
                settings,
                provider_url,
                seal,
                ..
            },
        )) = iter.next()
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
            header_changes: header_changes(
                *first_line,
                settings,
                provider_url.as_ref(),
                seal.as_ref(),
            ),
            cut_off: Vec::new(),
            records: Vec::new(),
        };
        let mut pending = Pending::default();
        for (line, record) in iter {
            match record {
                LogRecord::SessionStarted { .. } => {}
                LogRecord::Resumed {
                    settings,
                    provider_url,
                    seal,
                    ..
                } => {
                    // The process that streamed it is gone: whatever it left is cut off.
                    pending.settle(CutOff::Stopped, &mut loaded);
                    // Only the latest header's settings take effect, so only its edits
                    // matter; a resume that accepted them seals the new settings anew.
                    loaded.header_changes =
                        header_changes(*line, settings, provider_url.as_ref(), seal.as_ref());
                    loaded.settings = settings.clone();
                    loaded.provider_url = provider_url.clone();
                }
                LogRecord::TurnStarted { turn_id, .. } => {
                    pending.settle(CutOff::Stopped, &mut loaded);
                    loaded.unfinished_turn = Some(turn_id.clone());
                }
                LogRecord::TurnEnded {
                    turn_id, status, ..
                } => {
                    if status == "completed" {
                        // Every response of the turn completed: its items say it all.
                        pending = Pending::default();
                    } else {
                        pending.settle(CutOff::from_status(status), &mut loaded);
                    }
                    if loaded.unfinished_turn.as_deref() == Some(turn_id) {
                        loaded.unfinished_turn = None;
                    }
                }
                LogRecord::TextProgress { stream, text, .. } => {
                    if pending.is_empty() {
                        pending.line = *line;
                    }
                    match stream {
                        ProgressStream::Text => pending.text.push_str(text),
                        ProgressStream::Reasoning => pending.reasoning.push_str(text),
                    }
                }
                LogRecord::Item { item, .. } => {
                    // The completed item supersedes the progress of its stream. Text a
                    // harness turned into tool calls is superseded by the calls.
                    match item {
                        Item::Reasoning(_) => pending.reasoning.clear(),
                        Item::Message(m) if m.role == tack_protocol::Role::Assistant => {
                            pending = Pending::default();
                        }
                        i if i.is_tool_call() => pending = Pending::default(),
                        _ => {}
                    }
                    // One the live session recorded when its stream was cut.
                    if let Item::Message(m) = item
                        && m.role == tack_protocol::Role::Assistant
                        && CutOff::is_marked(&m.text())
                    {
                        loaded.cut_off.push(m.id.clone());
                    }
                    loaded.items.push(item.clone());
                }
                LogRecord::Renamed { title, .. } => loaded.title = Some(title.clone()),
            }
        }
        pending.settle(CutOff::Stopped, &mut loaded);
        loaded.records = numbered.into_iter().map(|(_, r)| r).collect();
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
    read_numbered(path).map(|(v, torn)| (v.into_iter().map(|(_, r)| r).collect(), torn))
}

/// Each record with its 1-based line, and whether a torn last line was skipped.
fn read_numbered<T: for<'de> Deserialize<'de>>(
    path: &Path,
) -> Result<(Vec<(usize, T)>, bool), LogError> {
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
            Ok(v) => out.push((i + 1, v)),
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
                seal: None,
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
