//! Provider keys: the OS keychain first, then the provider's environment variable.
//!
//! Keys are held in [`ApiKey`], whose `Debug` and `Display` never print the value, so a key
//! cannot leak through a log line or an error message by accident. The keychain is reached
//! through the `keyring` crate (Secret Service on Linux, Keychain on macOS, Credential Manager
//! on Windows). When no keychain is available (e.g. a headless machine without a Secret
//! Service), [`SecretStore::status`] says so and keys come from environment variables only:
//! Tack never falls back to a plaintext file.
//!
//! Keys from environment variables are taken out of the environment at start-up
//! ([`take_keys_from_environment`], first thing in `main`): kept in memory here and removed
//! from the process environment, including the copy the kernel shows other processes in
//! `/proc/<pid>/environ`, so a command the model runs can't read Tack's keys from its parent.
//! Keys from the keychain never enter any environment.
//!
//! Every key Tack has handled is also remembered for redaction: [`redact`] and its relatives
//! replace it by `[REDACTED]` in whatever Tack writes (session log, exchange records, the
//! diagnostics log, the event stream), including a key the model echoes split across two
//! stream deltas ([`StreamRedactor`], [`EventRedactor`], [`redact_pieces`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, RwLock};

use tack_protocol::{EngineEvent, Exchange, Item, REDACTED, StreamEvent};

/// A provider key. Its formatting never shows the value.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key (surrounding whitespace removed).
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into().trim().to_string())
    }
    /// The secret value, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
    /// The last four characters, for "key set ••••abcd" displays.
    pub fn last4(&self) -> String {
        let n = self.0.chars().count();
        self.0.chars().skip(n.saturating_sub(4)).collect()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([REDACTED])")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[REDACTED]")
    }
}

/// Why a keychain operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// No keychain service is reachable; the service's reason (e.g. `Secret Service: no
    /// result found`). What to do instead (the provider's environment variable) is the
    /// caller's to say, once, in its own words.
    #[error("the OS keychain is not available ({0})")]
    Unavailable(String),
    /// The keychain refused or failed.
    #[error("keychain error: {0}")]
    Failed(String),
}

/// Whether a keychain is usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeychainStatus {
    /// Usable.
    pub available: bool,
    /// Why not, when not: the keychain's own reason (e.g. `Secret Service: no result found`),
    /// without advice, so a caller can put it in its own sentence.
    pub message: Option<String>,
}

/// Where keys are stored, per provider id.
pub trait SecretStore: Send + Sync {
    /// Reads a provider's key; `Ok(None)` when none is stored.
    ///
    /// # Errors
    /// [`SecretError`] when the store cannot be reached.
    fn get(&self, provider: &str) -> Result<Option<ApiKey>, SecretError>;
    /// Stores a provider's key, replacing any previous one.
    ///
    /// # Errors
    /// [`SecretError`].
    fn set(&self, provider: &str, key: &ApiKey) -> Result<(), SecretError>;
    /// Deletes a provider's key (no error if there was none).
    ///
    /// # Errors
    /// [`SecretError`].
    fn delete(&self, provider: &str) -> Result<(), SecretError>;
    /// Whether the store is usable.
    fn status(&self) -> KeychainStatus;
}

/// Keychain service name under which Tack stores keys (`user` = provider id).
pub const KEYCHAIN_SERVICE: &str = "dev.tack.provider-keys";

/// The OS keychain through `keyring`.
#[derive(Debug, Default)]
pub struct KeychainStore;

impl KeychainStore {
    fn entry(provider: &str) -> Result<keyring::Entry, SecretError> {
        keyring::Entry::new(KEYCHAIN_SERVICE, provider).map_err(map_keyring)
    }
}

fn map_keyring(e: keyring::Error) -> SecretError {
    match e {
        keyring::Error::PlatformFailure(inner) => SecretError::Unavailable(inner.to_string()),
        keyring::Error::NoStorageAccess(inner) => SecretError::Unavailable(inner.to_string()),
        other => SecretError::Failed(other.to_string()),
    }
}

impl SecretStore for KeychainStore {
    fn get(&self, provider: &str) -> Result<Option<ApiKey>, SecretError> {
        match Self::entry(provider)?.get_password() {
            Ok(k) => Ok(Some(ApiKey::new(k))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(map_keyring(e)),
        }
    }

    fn set(&self, provider: &str, key: &ApiKey) -> Result<(), SecretError> {
        Self::entry(provider)?
            .set_password(key.expose())
            .map_err(map_keyring)
    }

    fn delete(&self, provider: &str) -> Result<(), SecretError> {
        match Self::entry(provider)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(map_keyring(e)),
        }
    }

    fn status(&self) -> KeychainStatus {
        // A read of a name nobody uses tells whether the service answers at all.
        match self.get("__tack_probe__") {
            Ok(_) => KeychainStatus {
                available: true,
                message: None,
            },
            Err(SecretError::Unavailable(reason) | SecretError::Failed(reason)) => KeychainStatus {
                available: false,
                message: Some(reason),
            },
        }
    }
}

/// An in-memory store (tests, and machines where the user declined the keychain).
#[derive(Debug, Default)]
pub struct MemoryStore {
    keys: Mutex<HashMap<String, ApiKey>>,
}

impl SecretStore for MemoryStore {
    fn get(&self, provider: &str) -> Result<Option<ApiKey>, SecretError> {
        Ok(self
            .keys
            .lock()
            .map_err(|_| SecretError::Failed("store poisoned".into()))?
            .get(provider)
            .cloned())
    }
    fn set(&self, provider: &str, key: &ApiKey) -> Result<(), SecretError> {
        self.keys
            .lock()
            .map_err(|_| SecretError::Failed("store poisoned".into()))?
            .insert(provider.to_string(), key.clone());
        Ok(())
    }
    fn delete(&self, provider: &str) -> Result<(), SecretError> {
        self.keys
            .lock()
            .map_err(|_| SecretError::Failed("store poisoned".into()))?
            .remove(provider);
        Ok(())
    }
    fn status(&self) -> KeychainStatus {
        KeychainStatus {
            available: true,
            message: None,
        }
    }
}

/// Where a resolved key came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    /// The OS keychain.
    Keychain,
    /// An environment variable.
    Env,
    /// No key.
    None,
}

/// Resolves a provider's key: keychain first, then `env_key` (if given). A keychain that is
/// unavailable is not an error here (the env var still works); it is logged once at debug.
pub fn resolve_key(
    store: &dyn SecretStore,
    provider: &str,
    env_key: Option<&str>,
) -> (Option<ApiKey>, KeySource) {
    match store.get(provider) {
        Ok(Some(k)) if !k.expose().is_empty() => return (Some(k), KeySource::Keychain),
        Ok(_) => {}
        Err(e) => tracing::debug!(provider, error = %e, "keychain lookup failed; trying env"),
    }
    if let Some(var) = env_key
        && let Some(key) = env_key_value(var)
    {
        remember(&key);
        return (Some(key), KeySource::Env);
    }
    (None, KeySource::None)
}

// ----- keys taken out of the environment -----

/// Keys read from the environment at start-up, by variable name.
static ENV_KEYS: Mutex<BTreeMap<String, ApiKey>> = Mutex::new(BTreeMap::new());

/// The generic key variable: the key of a provider given as a base URL.
pub const GENERIC_KEY_VARIABLE: &str = "TACK_API_KEY";

/// Every environment variable Tack reads a provider key from: [`GENERIC_KEY_VARIABLE`], the
/// `env_key` of every built-in and configured provider, and `extra` (e.g. `--api-key-env`).
pub fn provider_key_variables(config: &crate::config::Config, extra: Option<&str>) -> Vec<String> {
    let mut names: Vec<String> = std::iter::once(GENERIC_KEY_VARIABLE.to_string())
        .chain(config.providers().into_iter().filter_map(|p| p.env_key))
        .chain(extra.map(str::to_string))
        .filter(|n| !n.is_empty() && !n.contains(['=', '\0']))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Reads each variable of `names` into memory (for [`env_key_value`] and [`resolve_key`])
/// and removes it from the process environment, so that no process Tack starts inherits it
/// and none can read it from Tack's `/proc/<pid>/environ` (on Linux the environment block
/// the process started with is overwritten too: the kernel shows that block, whatever
/// `environ` says later).
///
/// # Safety
/// Call it before any other thread exists, first thing in `main`: it changes the process
/// environment, which another thread could be reading (the contract of
/// [`std::env::remove_var`]), and writes the initial environment block, which nothing else
/// writes.
#[allow(unsafe_code)]
pub unsafe fn take_keys_from_environment(names: &[String]) {
    let mut taken = Vec::new();
    for name in names {
        let Some(value) = std::env::var_os(name) else {
            continue;
        };
        if let Some(v) = value.to_str()
            && !v.trim().is_empty()
        {
            let key = ApiKey::new(v);
            remember(&key);
            lock_env_keys().insert(name.clone(), key);
        }
        // SAFETY: single-threaded by this function's contract.
        unsafe { std::env::remove_var(name) };
        taken.push(name.as_str());
    }
    #[cfg(target_os = "linux")]
    if !taken.is_empty() {
        // SAFETY: single-threaded by this function's contract; see `wipe_initial_entries`.
        unsafe { wipe_initial_entries(&taken) };
    }
}

fn lock_env_keys() -> std::sync::MutexGuard<'static, BTreeMap<String, ApiKey>> {
    ENV_KEYS.lock().unwrap_or_else(|p| p.into_inner())
}

/// The key in environment variable `name`: the copy taken at start-up, else (a variable
/// Tack did not know about then, e.g. a provider added in the desktop app since) the
/// environment itself. Empty values count as unset.
pub fn env_key_value(name: &str) -> Option<ApiKey> {
    if let Some(key) = lock_env_keys().get(name) {
        return Some(key.clone());
    }
    std::env::var(name)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .map(ApiKey::new)
}

/// Where the initial environment block lies: fields 50 and 51 (`env_start`, `env_end`) of
/// `/proc/self/stat`, counted after the parenthesised command name (which may hold spaces).
#[cfg(target_os = "linux")]
fn initial_environment_block() -> Option<(usize, usize)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // `after_name` starts at field 3 (state).
    let start: usize = fields.get(50 - 3)?.parse().ok()?;
    let end: usize = fields.get(51 - 3)?.parse().ok()?;
    (start != 0 && end > start).then_some((start, end))
}

/// Zeroes the `NAME=value` strings of `names` in the environment block the process started
/// with, which is what `/proc/<pid>/environ` (and `ps e`) show to other processes.
///
/// # Safety
/// Single-threaded, and only after the variables were removed from `environ`, so no live
/// pointer of the C library refers to the bytes written.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
unsafe fn wipe_initial_entries(names: &[&str]) {
    let Some((start, end)) = initial_environment_block() else {
        return;
    };
    let mut hits = Vec::new();
    {
        // SAFETY: [start, end) is this process's initial environment block as the kernel
        // reports it: mapped and readable for the life of the process (it lies on the main
        // thread's stack above `main`'s frame), and nothing writes it while we read.
        let block = unsafe { std::slice::from_raw_parts(start as *const u8, end - start) };
        let mut offset = 0;
        for entry in block.split(|b| *b == 0) {
            let is_taken = names.iter().any(|name| {
                entry.len() > name.len()
                    && entry.starts_with(name.as_bytes())
                    && entry[name.len()] == b'='
            });
            if is_taken {
                hits.push((offset, entry.len()));
            }
            offset += entry.len() + 1;
        }
    }
    for (offset, len) in hits {
        // SAFETY: inside the block (found by the scan above), which is writable stack
        // memory; the entries were removed from `environ`, so nothing reads them any more.
        unsafe { std::ptr::write_bytes((start + offset) as *mut u8, 0, len) };
    }
}

// ----- redaction -----

/// Shortest key that is redacted (shorter strings would match ordinary text; real keys are
/// far longer).
pub const MIN_REDACTED_LEN: usize = 8;

/// Every key Tack has handled, longest first (so a key containing another is replaced
/// whole).
static KNOWN: RwLock<Vec<Arc<str>>> = RwLock::new(Vec::new());

/// Remembers `key` so that [`redact`] and its relatives replace it from now on.
pub fn remember(key: &ApiKey) {
    let value = key.expose();
    if value.len() < MIN_REDACTED_LEN {
        return;
    }
    let mut known = KNOWN.write().unwrap_or_else(|p| p.into_inner());
    if !known.iter().any(|k| &**k == value) {
        known.push(Arc::from(value));
        known.sort_by_key(|k| std::cmp::Reverse(k.len()));
    }
}

/// The keys [`remember`]ed so far, longest first.
pub fn known_keys() -> Vec<Arc<str>> {
    KNOWN.read().unwrap_or_else(|p| p.into_inner()).clone()
}

/// `text` with every known key replaced by `[REDACTED]`.
pub fn redact(text: &str) -> Cow<'_, str> {
    redact_with(text, &known_keys())
}

fn redact_with<'a>(text: &'a str, keys: &[Arc<str>]) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for key in keys {
        if out.contains(&**key) {
            out = Cow::Owned(out.replace(&**key, REDACTED));
        }
    }
    out
}

/// Redacts every string inside a JSON value.
fn redact_value(value: &mut serde_json::Value, keys: &[Arc<str>]) {
    match value {
        serde_json::Value::String(s) => {
            if let Cow::Owned(clean) = redact_with(s, keys) {
                *s = clean;
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| redact_value(v, keys)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|v| redact_value(v, keys)),
        _ => {}
    }
}

/// Redacts every known key in any serializable value (its strings, through JSON); values
/// without a key are left untouched.
fn redact_serde<T: serde::Serialize + serde::de::DeserializeOwned>(value: &mut T) {
    let keys = known_keys();
    if keys.is_empty() {
        return;
    }
    let Ok(text) = serde_json::to_string(value) else {
        return;
    };
    if !keys.iter().any(|k| text.contains(&**k)) {
        return;
    }
    let Ok(mut json) = serde_json::to_value(&*value) else {
        return;
    };
    redact_value(&mut json, &keys);
    if let Ok(clean) = serde_json::from_value(json) {
        *value = clean;
    }
}

/// Redacts an assembled history item (a message the model finished, a tool's whole
/// output): where a key split across deltas is whole again.
pub fn redact_item(item: &mut Item) {
    redact_serde(item);
}

/// Redacts a key in the concatenation of `pieces` (stream deltas, response chunks), also one
/// that spans pieces: it is replaced by `[REDACTED]` in the piece where it starts and removed
/// from the following ones, so joining the pieces gives the redacted text.
pub fn redact_pieces(pieces: &mut [&mut String], keys: &[Arc<str>]) {
    let joined: String = pieces.iter().map(|p| p.as_str()).collect();
    let mut hits: Vec<(usize, usize)> = Vec::new();
    for key in keys {
        for (at, _) in joined.match_indices(&**key) {
            hits.push((at, at + key.len()));
        }
    }
    redact_ranges(pieces, &joined, hits);
}

/// Replaces the byte ranges `hits` of `joined` (the concatenation of `pieces`, ranges on
/// character boundaries) as [`redact_pieces`] does.
fn redact_ranges(pieces: &mut [&mut String], joined: &str, mut hits: Vec<(usize, usize)>) {
    if hits.is_empty() {
        return;
    }
    // Overlapping hits merge into one redaction.
    hits.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in hits {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    let mut start = 0;
    for piece in pieces.iter_mut() {
        let end = start + piece.len();
        let mut rebuilt = String::with_capacity(piece.len());
        let mut pos = start;
        for &(hit, hit_end) in &merged {
            if hit_end <= start || hit >= end {
                continue;
            }
            let from = hit.max(start);
            if from > pos {
                rebuilt.push_str(&joined[pos..from]);
            }
            if hit >= start {
                rebuilt.push_str(REDACTED);
            }
            pos = pos.max(hit_end.min(end));
        }
        if pos < end {
            rebuilt.push_str(&joined[pos..end]);
        }
        **piece = rebuilt;
        start = end;
    }
}

/// Fragments shorter than this of a key split across stream frames are left in raw
/// response chunks (where they can't be told from ordinary text); the longer part of every
/// split is redacted.
const MIN_FRAGMENT_LEN: usize = 6;

/// Redacts known keys from a recorded exchange before it is stored: its decoded events, with
/// keys split across deltas (per stream: text, reasoning, each tool call's arguments), and
/// its raw response chunks, where a key the model wrote in two deltas sits in two frames:
/// the end of one JSON string and the start of the next.
pub fn redact_exchange(exchange: &mut Exchange) {
    let keys = known_keys();
    if keys.is_empty() {
        return;
    }
    let mut streams: BTreeMap<(u8, String), Vec<&mut String>> = BTreeMap::new();
    for event in &mut exchange.events {
        match event {
            StreamEvent::TextDelta { text } => {
                streams.entry((0, String::new())).or_default().push(text);
            }
            StreamEvent::ReasoningDelta { text, .. } => {
                streams.entry((1, String::new())).or_default().push(text);
            }
            StreamEvent::ToolCallDelta { call_id, delta } => {
                streams.entry((2, call_id.clone())).or_default().push(delta);
            }
            _ => {}
        }
    }
    for pieces in streams.values_mut() {
        redact_pieces(pieces, &keys);
    }
    let mut chunks: Vec<&mut String> = exchange
        .response_chunks
        .iter_mut()
        .map(|c| &mut c.data)
        .collect();
    let joined: String = chunks.iter().map(|p| p.as_str()).collect();
    let mut hits = Vec::new();
    for key in &keys {
        for (at, _) in joined.match_indices(&**key) {
            hits.push((at, at + key.len()));
        }
        hits.extend(split_key_fragments(&joined, key));
    }
    redact_ranges(&mut chunks, &joined, hits);
    redact_serde(exchange);
}

/// Where `raw` (stream frames) holds a piece of `key` split across two frames' JSON strings:
/// a beginning of the key right before a closing `"`, or an end of it right after an
/// opening `"`, at least [`MIN_FRAGMENT_LEN`] long.
fn split_key_fragments(raw: &str, key: &str) -> Vec<(usize, usize)> {
    let mut hits = Vec::new();
    for k in (1..key.len()).filter(|k| key.is_char_boundary(*k)) {
        let (head, tail) = key.split_at(k);
        if head.len() >= MIN_FRAGMENT_LEN {
            let pattern = format!("{head}\"");
            for (at, _) in raw.match_indices(&pattern) {
                hits.push((at, at + head.len()));
            }
        }
        if tail.len() >= MIN_FRAGMENT_LEN {
            let pattern = format!("\"{tail}");
            for (at, _) in raw.match_indices(&pattern) {
                hits.push((at + 1, at + 1 + tail.len()));
            }
        }
    }
    hits
}

/// Redacts one stream of text pieces as they arrive: text that could still turn out to be
/// the start of a key is held back until the next piece (or [`StreamRedactor::finish`])
/// decides, so a key split across pieces never leaves in the clear. At most the longest
/// key's length less one character is held.
#[derive(Debug, Default)]
pub struct StreamRedactor {
    held: String,
}

impl StreamRedactor {
    /// Takes the next piece; returns what can be passed on now (redacted).
    pub fn push(&mut self, piece: &str) -> String {
        self.push_with(piece, &known_keys())
    }

    fn push_with(&mut self, piece: &str, keys: &[Arc<str>]) -> String {
        self.held.push_str(piece);
        let text = redact_with(&self.held, keys).into_owned();
        // The longest end of `text` that is the beginning of a key waits for the next piece.
        let hold = keys
            .iter()
            .filter_map(|key| {
                (1..key.len().min(text.len() + 1))
                    .rev()
                    .filter(|k| key.is_char_boundary(*k))
                    .find(|k| text.ends_with(&key[..*k]))
            })
            .max()
            .unwrap_or(0);
        let cut = text.len() - hold;
        self.held = text[cut..].to_string();
        text[..cut].to_string()
    }

    /// The end of the stream: whatever is still held (it is not a key).
    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }
}

/// Redacts a session's event stream: deltas (assistant text, reasoning, each tool's output)
/// go through a [`StreamRedactor`] per stream, whose held-back text is released, as a last
/// delta, before the next event of any other kind; other events are redacted whole.
#[derive(Debug, Default)]
pub struct EventRedactor {
    streams: Vec<(DeltaStream, StreamRedactor)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum DeltaStream {
    Text(String),
    Reasoning(String),
    ToolOutput(String, String),
}

impl DeltaStream {
    fn event(&self, text: String) -> EngineEvent {
        match self {
            DeltaStream::Text(turn_id) => EngineEvent::TextDelta {
                turn_id: turn_id.clone(),
                text,
            },
            DeltaStream::Reasoning(turn_id) => EngineEvent::ReasoningDelta {
                turn_id: turn_id.clone(),
                text,
            },
            DeltaStream::ToolOutput(turn_id, call_id) => EngineEvent::ToolOutputDelta {
                turn_id: turn_id.clone(),
                call_id: call_id.clone(),
                chunk: text,
            },
        }
    }
}

impl EventRedactor {
    /// The events to pass on in place of `event` (none while a delta is held back).
    pub fn pass(&mut self, event: EngineEvent) -> Vec<EngineEvent> {
        let keys = known_keys();
        if keys.is_empty() && self.streams.is_empty() {
            return vec![event];
        }
        let (stream, text) = match event {
            EngineEvent::TextDelta { turn_id, text } => (DeltaStream::Text(turn_id), text),
            EngineEvent::ReasoningDelta { turn_id, text } => {
                (DeltaStream::Reasoning(turn_id), text)
            }
            EngineEvent::ToolOutputDelta {
                turn_id,
                call_id,
                chunk,
            } => (DeltaStream::ToolOutput(turn_id, call_id), chunk),
            mut other => {
                let mut out = self.flush();
                redact_serde(&mut other);
                out.push(other);
                return out;
            }
        };
        let slot = match self.streams.iter().position(|(s, _)| *s == stream) {
            Some(i) => i,
            None => {
                self.streams
                    .push((stream.clone(), StreamRedactor::default()));
                self.streams.len() - 1
            }
        };
        let ready = self.streams[slot].1.push_with(&text, &keys);
        if ready.is_empty() {
            Vec::new()
        } else {
            vec![stream.event(ready)]
        }
    }

    /// Releases every held-back delta.
    pub fn flush(&mut self) -> Vec<EngineEvent> {
        std::mem::take(&mut self.streams)
            .into_iter()
            .filter_map(|(stream, mut r)| {
                let rest = r.finish();
                (!rest.is_empty()).then(|| stream.event(rest))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_formatting_never_shows_the_value() {
        let k = ApiKey::new(" sk-canary-123456 ");
        assert_eq!(format!("{k}"), "[REDACTED]");
        assert_eq!(format!("{k:?}"), "ApiKey([REDACTED])");
        assert_eq!(k.last4(), "3456");
        assert_eq!(k.expose(), "sk-canary-123456");
    }

    fn keys(k: &[&str]) -> Vec<Arc<str>> {
        k.iter().map(|k| Arc::from(*k)).collect()
    }

    #[test]
    fn a_key_split_at_every_position_across_two_pieces_never_passes() {
        let key = "sk-canary-7f3a9c2e51d04b8e";
        let keys = keys(&[key]);
        let text = format!("the key is {key}, see");
        let at_key = text.find(key).unwrap();
        for split in 0..=text.len() {
            let (a, b) = text.split_at(split);
            let mut r = StreamRedactor::default();
            let first = r.push_with(a, &keys);
            let second = r.push_with(b, &keys);
            let last = r.finish();
            let all = format!("{first}{second}{last}");
            assert_eq!(all, "the key is [REDACTED], see", "split at {split}");
            for part in [&first, &second, &last] {
                // No piece passed on holds more than a stranger could guess: nothing of the
                // key beyond what preceded the split.
                assert!(
                    !part.contains(&key[..MIN_REDACTED_LEN]),
                    "split {split}: {part:?}"
                );
            }
            if split > at_key && split < at_key + key.len() {
                assert!(!first.contains("sk-"), "held back at {split}: {first:?}");
            }
            // The same split in recorded pieces.
            let (mut p1, mut p2) = (a.to_string(), b.to_string());
            redact_pieces(&mut [&mut p1, &mut p2], &keys);
            assert_eq!(format!("{p1}{p2}"), "the key is [REDACTED], see");
            assert!(
                !p1.contains(&key[..MIN_REDACTED_LEN])
                    && !p2.contains(&key[key.len() - MIN_REDACTED_LEN..])
            );
        }
    }

    #[test]
    fn held_back_deltas_are_released_before_the_next_event_and_redacted() {
        let key = "sk-event-redactor-9d1c55e0";
        remember(&ApiKey::new(key));
        let mut r = EventRedactor::default();
        let delta = |text: &str| EngineEvent::TextDelta {
            turn_id: "t".into(),
            text: text.into(),
        };
        let output = |chunk: &str| EngineEvent::ToolOutputDelta {
            turn_id: "t".into(),
            call_id: "c".into(),
            chunk: chunk.into(),
        };
        let mut passed = Vec::new();
        passed.extend(r.pass(delta("key: sk-event-")));
        passed.extend(r.pass(output("out sk-ev")));
        passed.extend(r.pass(delta("redactor-9d1c55e0!")));
        passed.extend(r.pass(EngineEvent::TurnCompleted {
            turn_id: "t".into(),
            usage: Default::default(),
        }));
        let text: String = passed
            .iter()
            .filter_map(|e| match e {
                EngineEvent::TextDelta { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "key: [REDACTED]!");
        // The tool output's held-back end came out (it was not a key) before the turn ended.
        let n = passed.len();
        assert!(
            matches!(&passed[n - 2], EngineEvent::ToolOutputDelta { chunk, .. } if chunk == "sk-ev"),
            "{passed:?}"
        );
        assert!(matches!(passed[n - 1], EngineEvent::TurnCompleted { .. }));
        let printed = serde_json::to_string(&passed).unwrap();
        assert!(!printed.contains("sk-event-r"), "{printed}");
    }

    #[test]
    fn text_that_only_looks_like_a_key_start_is_released_at_the_end() {
        let keys = keys(&["sk-canary-7f3a9c2e51d04b8e"]);
        let mut r = StreamRedactor::default();
        assert_eq!(r.push_with("price: sk-", &keys), "price: ");
        assert_eq!(r.push_with("can", &keys), "");
        assert_eq!(r.push_with("dy", &keys), "sk-candy");
        assert_eq!(r.push_with(" sk", &keys), " ");
        assert_eq!(r.finish(), "sk");
    }

    #[test]
    fn keychain_wins_over_env() {
        let store = MemoryStore::default();
        let (k, src) = resolve_key(&store, "p", Some("TACK_TEST_UNSET_VAR_XYZ"));
        assert!(k.is_none());
        assert_eq!(src, KeySource::None);
        store.set("p", &ApiKey::new("from-keychain")).unwrap();
        let (k, src) = resolve_key(&store, "p", Some("PATH"));
        assert_eq!(k.unwrap().expose(), "from-keychain");
        assert_eq!(src, KeySource::Keychain);
        store.delete("p").unwrap();
        let (k, src) = resolve_key(&store, "p", Some("PATH"));
        assert!(k.is_some());
        assert_eq!(src, KeySource::Env);
    }
}
