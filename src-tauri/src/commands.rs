//! Tauri commands (see `docs/ipc.md`). Each one translates between the webview's types and
//! the engine; none holds agent logic. Blocking work (keychain over D-Bus, file scans) runs on
//! the blocking pool so the async runtime keeps streaming events.
//!
//! Over 1,200 lines because provider-form validation, session deletion and the workspace
//! walk still live here; the structure issue moves them into engine APIs (a session store
//! and a provider edit), after which this file only translates.

use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};
use tack_engine::config::{
    Config, ConfigError, LOCAL_PROVIDER_ID, ProviderConfig, builtin_providers,
};
use tack_engine::export;
use tack_engine::log::{ExchangeLog, LoadedSession, LogRecord, SessionLog};
use tack_engine::resolve::{SessionRequest, resolve, resume_request};
use tack_engine::secrets::{ApiKey, KeySource, resolve_key};
use tack_engine::session::{Session, exchanges_path, log_path};
use tack_protocol::{
    ApprovalDecision, ApprovalPolicy, ApprovalRequest, Exchange, ExchangeSummary, Item,
    QuestionAnswer, QuestionRequest, SessionSettings, Wire,
};
use tauri::State;

use crate::state::{AppState, lock};

/// An error shown to the user: what happened and what to do about it.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct AppError {
    /// What happened.
    pub message: String,
    /// What to do next, when there is something to do.
    pub hint: Option<String>,
    /// The form field the error is about (e.g. `id`), so the window can show it beside that
    /// field; null for errors about the whole request.
    pub field: Option<String>,
}

impl AppError {
    /// An error with an optional hint.
    pub fn new(message: impl Into<String>, hint: Option<&str>) -> AppError {
        AppError {
            message: message.into(),
            hint: hint.map(str::to_string),
            field: None,
        }
    }

    /// The same error, about one form field.
    pub fn on_field(self, field: &str) -> AppError {
        AppError {
            field: Some(field.to_string()),
            ..self
        }
    }

    /// An error from anything displayable.
    pub fn from_display(e: impl fmt::Display) -> AppError {
        AppError::new(e.to_string(), None)
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AppError {}

type CmdResult<T> = Result<T, AppError>;

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> CmdResult<T> {
    tauri::async_runtime::spawn_blocking(f)
        .await
        .map_err(|e| AppError::new(format!("internal task failed: {e}"), None))
}

/// App facts for the settings view.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    /// Tack version.
    pub version: String,
    /// Config file path.
    pub config_path: String,
    /// Data folder (session logs).
    pub data_dir: String,
    /// Keychain availability.
    pub keychain: KeychainStatusView,
    /// Why the config file does not load, when it doesn't (the app then runs with the built-in
    /// providers and refuses to write the file).
    pub config_problem: Option<ConfigProblem>,
    /// What in the config file loads but looks like a mistake (a provider id defined twice, a
    /// built-in provider replaced), one line each with its line number, for the config banner.
    pub config_warnings: Vec<String>,
}

/// A config file that does not load: where, and the parser's own words.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ConfigProblem {
    /// The file.
    pub path: String,
    /// 1-based line of the error, when known.
    pub line: Option<u32>,
    /// 1-based column (characters) of the error, when known.
    pub column: Option<u32>,
    /// One line: what is wrong (e.g. "invalid basic string", "permission denied").
    pub summary: String,
    /// Everything the parser said (it may quote the line and point at the column).
    pub details: String,
}

impl ConfigProblem {
    /// The problem a failed load describes.
    pub fn from_error(path: &std::path::Path, error: &ConfigError) -> ConfigProblem {
        let (line, column, details) = match error {
            ConfigError::Parse {
                message,
                line,
                column,
                ..
            } => (
                line.and_then(|l| u32::try_from(l).ok()),
                column.and_then(|c| u32::try_from(c).ok()),
                message.trim_end().to_string(),
            ),
            ConfigError::Io { source, .. } => (None, None, source.to_string()),
            other => (None, None, other.to_string()),
        };
        // The parser's message ends with its one-line reason, after the quoted line.
        let summary = details
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("it does not load")
            .to_string();
        ConfigProblem {
            path: path.display().to_string(),
            line,
            column,
            summary,
            details,
        }
    }

    /// Where, in words: " at line 1, column 26", or nothing.
    fn location(&self) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!(" at line {l}, column {c}"),
            (Some(l), None) => format!(" at line {l}"),
            _ => String::new(),
        }
    }

    /// The error a settings change gets while the file does not load.
    pub fn refusal(&self) -> AppError {
        AppError {
            message: format!(
                "Not saved: {} has an error{} ({}), and Tack does not overwrite a config file it cannot read.",
                self.path,
                self.location(),
                self.summary
            ),
            hint: Some(format!(
                "Fix the file in an editor, or move it away (e.g. to {}.broken) to start from the built-in settings, then save again.",
                self.path
            )),
            field: None,
        }
    }
}

/// Whether the OS keychain works.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct KeychainStatusView {
    /// Usable.
    pub available: bool,
    /// Why not.
    pub message: Option<String>,
}

/// App facts.
#[tauri::command]
#[specta::specta]
pub async fn app_info(state: State<'_, AppState>) -> CmdResult<AppInfo> {
    let secrets = state.secrets.clone();
    let status = blocking(move || secrets.status()).await?;
    // Read the file now: the user may have fixed (or broken) it since the last look.
    state.config();
    Ok(AppInfo {
        version: env!("CARGO_PKG_VERSION").to_string(),
        config_path: state.paths.config_file().display().to_string(),
        data_dir: state.paths.data_dir.display().to_string(),
        keychain: KeychainStatusView {
            available: status.available,
            message: status.message,
        },
        config_problem: state.config_problem(),
        config_warnings: state.config_warnings(),
    })
}

/// A provider as the settings view shows it. Never contains the key.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderView {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Base URL.
    pub base_url: String,
    /// Wire.
    pub wire: Wire,
    /// Default model.
    pub model: String,
    /// Harness id, or null for auto.
    pub harness: Option<String>,
    /// Env var for the key.
    pub env_key: Option<String>,
    /// Key status.
    pub key: KeyState,
    /// Built into Tack (can be edited, not deleted).
    pub builtin: bool,
    /// A built-in whose settings the config file replaces (deleting the provider resets it to
    /// the built-in settings).
    pub overridden: bool,
    /// The provider a session uses when none is chosen: the config's `default_provider`, or
    /// the built-in `local` when it names none. At most one provider has it (none when
    /// `default_provider` names a provider that does not exist).
    pub is_default: bool,
}

/// Whether a key is set, and where; the value itself never crosses to the webview.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct KeyState {
    /// A key is available.
    pub set: bool,
    /// Its last four characters.
    pub last4: Option<String>,
    /// Where it comes from.
    pub source: KeySourceView,
    /// The provider expects a key (it names an environment variable for one). Local servers
    /// usually don't.
    pub needed: bool,
}

/// Where a key comes from.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum KeySourceView {
    /// The OS keychain.
    Keychain,
    /// The provider's environment variable.
    Env,
    /// No key.
    None,
}

fn key_state(secrets: &dyn tack_engine::secrets::SecretStore, p: &ProviderConfig) -> KeyState {
    let (key, source) = resolve_key(secrets, &p.id, p.env_key.as_deref());
    KeyState {
        set: key.is_some(),
        last4: key.map(|k| k.last4()),
        source: match source {
            KeySource::Keychain => KeySourceView::Keychain,
            KeySource::Env => KeySourceView::Env,
            KeySource::None => KeySourceView::None,
        },
        needed: p.env_key.is_some(),
    }
}

fn provider_view(
    secrets: &dyn tack_engine::secrets::SecretStore,
    config: &Config,
    p: &ProviderConfig,
) -> ProviderView {
    let builtin = is_builtin(&p.id);
    ProviderView {
        id: p.id.clone(),
        name: p.name.clone(),
        base_url: p.base_url.clone(),
        wire: p.wire,
        model: p.model.clone(),
        harness: p.explicit_harness().map(str::to_string),
        env_key: p.env_key.clone(),
        key: key_state(secrets, p),
        builtin,
        overridden: builtin && config.providers.iter().any(|u| u.id == p.id),
        is_default: p.id == default_provider_id(config),
    }
}

/// The provider `resolve` falls back to when a request names none.
fn default_provider_id(config: &Config) -> &str {
    config
        .default_provider
        .as_deref()
        .unwrap_or(LOCAL_PROVIDER_ID)
}

fn is_builtin(id: &str) -> bool {
    builtin_providers().iter().any(|b| b.id == id)
}

/// All providers with their key status.
#[tauri::command]
#[specta::specta]
pub async fn list_providers(state: State<'_, AppState>) -> CmdResult<Vec<ProviderView>> {
    let config = state.config();
    let secrets = state.secrets.clone();
    blocking(move || {
        config
            .providers()
            .iter()
            .map(|p| provider_view(secrets.as_ref(), &config, p))
            .collect()
    })
    .await
}

/// A provider to add or update.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderInput {
    /// Id (letters, digits, `-`, `_`).
    pub id: String,
    /// Name.
    pub name: String,
    /// Base URL.
    pub base_url: String,
    /// Wire.
    pub wire: Wire,
    /// Default model.
    pub model: String,
    /// Harness id, or null for auto.
    pub harness: Option<String>,
    /// Env var for the key.
    pub env_key: Option<String>,
}

/// Adds a provider to the config file (re-read first). Adding never replaces a provider: an id
/// a built-in or an entry of the file already has is refused, with an error on the `id` field.
#[tauri::command]
#[specta::specta]
pub async fn add_provider(
    state: State<'_, AppState>,
    input: ProviderInput,
) -> CmdResult<ProviderView> {
    let (id, input) = checked_input(&state, input)?;
    let config = state.edit_config(|doc| {
        let provider = provider_from_input(&id, input, None);
        doc.add_provider(&provider).map_err(|e| match e {
            ConfigError::ProviderExists(id) => AppError::new(
                format!("a provider with id `{id}` already exists — edit it, or choose another id"),
                None,
            )
            .on_field("id"),
            other => AppError::new(format!("Not saved: {other}"), None),
        })?;
        Ok(true)
    })?;
    saved_view(&state, &config, &id).await
}

/// Updates a provider in the config file: re-reads the file and changes only this provider's
/// entry. A built-in saved unchanged leaves the file alone (or drops an override that now
/// equals it); a changed built-in is stored as an override of it. A provider the file no
/// longer has (removed by hand since the window showed it) is an error, not re-added.
#[tauri::command]
#[specta::specta]
pub async fn save_provider(
    state: State<'_, AppState>,
    input: ProviderInput,
) -> CmdResult<ProviderView> {
    let (id, input) = checked_input(&state, input)?;
    let config = state.edit_config(|doc| {
        // Settings the form doesn't edit are kept from the provider being replaced, as it is
        // in the file now.
        let previous = doc.config().providers().into_iter().find(|p| p.id == id);
        let provider = provider_from_input(&id, input, previous.as_ref());
        let unchanged_builtin = builtin_providers().into_iter().any(|b| {
            b == ProviderConfig {
                builtin: true,
                ..provider.clone()
            }
        });
        if unchanged_builtin {
            // Nothing to store; an override that now equals the built-in goes.
            return doc
                .remove_provider(&id)
                .map_err(|e| AppError::new(format!("Not saved: {e}"), None));
        }
        doc.update_provider(&provider).map_err(|e| match e {
            ConfigError::UnknownProvider(id) => AppError::new(
                format!("Not saved: the config file has no provider `{id}` any more"),
                Some("It was removed from the file since this window showed it; add it again to keep it."),
            ),
            other => AppError::new(format!("Not saved: {other}"), None),
        })?;
        Ok(true)
    })?;
    saved_view(&state, &config, &id).await
}

/// The form's input, checked and tidied: its trimmed id, and the input with a clean base URL
/// and harness (`auto` and empty are none).
fn checked_input(state: &AppState, input: ProviderInput) -> CmdResult<(String, ProviderInput)> {
    let id = input.id.trim().to_string();
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(
            AppError::new("the provider id must be letters, digits, `-` or `_`", None)
                .on_field("id"),
        );
    }
    let base_url = input.base_url.trim().trim_end_matches('/').to_string();
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(AppError::new(
            "the base URL must start with http:// or https://",
            Some("For example https://api.deepseek.com or http://127.0.0.1:8082/v1"),
        ));
    }
    if input.model.trim().is_empty() {
        return Err(AppError::new("a default model is required", None));
    }
    let harness = input.harness.filter(|h| !h.is_empty() && h != "auto");
    if let Some(h) = &harness {
        state
            .engine
            .registry
            .route(input.wire, h)
            .map_err(AppError::from_display)?;
    }
    Ok((
        id,
        ProviderInput {
            harness,
            base_url,
            ..input
        },
    ))
}

/// The view of provider `id` as `config` (just saved) has it.
async fn saved_view(state: &AppState, config: &Config, id: &str) -> CmdResult<ProviderView> {
    let provider = config
        .providers()
        .into_iter()
        .find(|p| p.id == id)
        .ok_or_else(|| AppError::new(format!("`{id}` was not saved"), None))?;
    let secrets = state.secrets.clone();
    let config = config.clone();
    blocking(move || provider_view(secrets.as_ref(), &config, &provider)).await
}

/// The provider the form describes; what the form doesn't show comes from `previous`.
fn provider_from_input(
    id: &str,
    input: ProviderInput,
    previous: Option<&ProviderConfig>,
) -> ProviderConfig {
    ProviderConfig {
        id: id.to_string(),
        name: if input.name.trim().is_empty() {
            id.to_string()
        } else {
            input.name.trim().to_string()
        },
        base_url: input.base_url,
        wire: input.wire,
        env_key: input
            .env_key
            .map(|e| e.trim().to_string())
            .filter(|e| !e.is_empty()),
        model: input.model.trim().to_string(),
        harness: input.harness,
        emulate_identity: previous.is_some_and(|p| p.emulate_identity),
        examples: previous.and_then(|p| p.examples.clone()),
        tools: previous.and_then(|p| p.tools.clone()),
        temperature: previous.and_then(|p| p.temperature),
        recover_text_calls: previous.and_then(|p| p.recover_text_calls),
        builtin: false,
    }
}

/// Removes a user-defined provider from the config file (re-read first), or a built-in's
/// override (the built-in's own settings come back).
#[tauri::command]
#[specta::specta]
pub async fn delete_provider(state: State<'_, AppState>, id: String) -> CmdResult<()> {
    state.edit_config(|doc| {
        if doc
            .remove_provider(&id)
            .map_err(|e| AppError::new(format!("Not deleted: {e}"), None))?
        {
            Ok(true)
        } else if is_builtin(&id) {
            Err(AppError::new(
                format!("`{id}` is a built-in provider and cannot be deleted"),
                Some("Edit it instead, or leave it unused."),
            ))
        } else {
            Err(AppError::new(
                format!("the config file has no provider `{id}`"),
                Some("It may have been removed from the file already."),
            ))
        }
    })?;
    Ok(())
}

fn find_provider(state: &AppState, id: &str) -> CmdResult<ProviderConfig> {
    state
        .config()
        .providers()
        .into_iter()
        .find(|p| p.id == id)
        .ok_or_else(|| AppError::new(format!("unknown provider `{id}`"), None))
}

/// Stores a provider key in the OS keychain. The key is never sent back.
#[tauri::command]
#[specta::specta]
pub async fn set_provider_key(
    state: State<'_, AppState>,
    id: String,
    key: String,
) -> CmdResult<KeyState> {
    let provider = find_provider(&state, &id)?;
    let key = ApiKey::new(key);
    if key.expose().is_empty() {
        return Err(AppError::new("the key is empty", None));
    }
    let secrets = state.secrets.clone();
    blocking(move || {
        secrets.set(&provider.id, &key).map_err(|e| {
            let hint = provider
                .env_key
                .as_ref()
                .map(|v| format!("Set the environment variable {v} before starting Tack instead."));
            AppError {
                message: e.to_string(),
                hint,
                field: None,
            }
        })?;
        Ok(key_state(secrets.as_ref(), &provider))
    })
    .await?
}

/// Removes a provider key from the keychain.
#[tauri::command]
#[specta::specta]
pub async fn clear_provider_key(state: State<'_, AppState>, id: String) -> CmdResult<KeyState> {
    let provider = find_provider(&state, &id)?;
    let secrets = state.secrets.clone();
    blocking(move || {
        secrets
            .delete(&provider.id)
            .map_err(AppError::from_display)?;
        Ok(key_state(secrets.as_ref(), &provider))
    })
    .await?
}

/// A harness as menus show it.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct HarnessInfo {
    /// Id.
    pub id: String,
    /// Supported wires.
    pub wires: Vec<Wire>,
    /// One line.
    pub description: String,
}

/// All harnesses.
#[tauri::command]
#[specta::specta]
pub async fn list_harnesses(state: State<'_, AppState>) -> CmdResult<Vec<HarnessInfo>> {
    Ok(state
        .engine
        .registry
        .list()
        .into_iter()
        .map(|h| HarnessInfo {
            id: h.id.to_string(),
            wires: h.wires,
            description: h.description.to_string(),
        })
        .collect())
}

/// Asks for a workspace folder with the native dialog.
#[tauri::command]
#[specta::specta]
pub async fn pick_workspace(state: State<'_, AppState>) -> CmdResult<Option<String>> {
    let Some(dialogs) = lock(&state.dialogs).clone() else {
        return Err(AppError::new("no dialog support in this window", None));
    };
    // One dialog at a time: a request while one is open is ignored (answers null).
    if state.picking_folder.swap(true, Ordering::AcqRel) {
        return Ok(None);
    }
    let picked = blocking(move || dialogs.pick_folder()).await;
    state.picking_folder.store(false, Ordering::Release);
    Ok(picked?.map(|p| p.display().to_string()))
}

/// The workspace folder the window had open last (kept under the data folder, see
/// [`crate::last_workspace`]), or null when none is remembered or it is no longer a folder.
#[tauri::command]
#[specta::specta]
pub async fn last_workspace(state: State<'_, AppState>) -> CmdResult<Option<String>> {
    let data_dir = state.paths.data_dir.clone();
    let folder = blocking(move || crate::last_workspace::load(&data_dir)).await?;
    Ok(folder.map(|p| p.display().to_string()))
}

/// Remembers the open workspace folder for the next start (`null` forgets it).
///
/// # Errors
/// When the file under the data folder cannot be written.
#[tauri::command]
#[specta::specta]
pub async fn set_last_workspace(state: State<'_, AppState>, cwd: Option<String>) -> CmdResult<()> {
    let data_dir = state.paths.data_dir.clone();
    blocking(move || {
        crate::last_workspace::save(&data_dir, cwd.as_deref().map(std::path::Path::new))
    })
    .await?
    .map_err(|e| {
        AppError::new(
            format!("Could not remember the workspace folder: {e}"),
            Some("Check that Tack's data folder is writable."),
        )
    })
}

/// Most files listed by [`workspace_files`].
pub const WORKSPACE_FILES_LIMIT: usize = 5000;

/// Files of a workspace (gitignore respected), and start watching it for changes.
#[tauri::command]
#[specta::specta]
pub async fn workspace_files(state: State<'_, AppState>, cwd: String) -> CmdResult<Vec<String>> {
    let root = std::fs::canonicalize(&cwd)
        .map_err(|e| AppError::new(format!("{cwd}: {e}"), Some("Pick an existing folder.")))?;
    state.watch(&root);
    blocking(move || {
        ignore::WalkBuilder::new(&root)
            .hidden(true)
            .sort_by_file_path(|a, b| a.cmp(b))
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .take(WORKSPACE_FILES_LIMIT)
            .filter_map(|e| {
                e.path()
                    .strip_prefix(&root)
                    .ok()
                    .map(|p| p.to_string_lossy().replace('\\', "/"))
            })
            .collect()
    })
    .await
}

/// What to start a session with.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct StartSessionInput {
    /// Workspace folder.
    pub cwd: String,
    /// Provider id.
    pub provider_id: String,
    /// Model (null: the provider's default).
    pub model: Option<String>,
    /// Harness id (null or `auto`: inferred).
    pub harness: Option<String>,
    /// Approval policy.
    pub approval: ApprovalPolicy,
    /// Sandbox mode for commands that run without asking (null: config.toml's `sandbox`, else
    /// `workspace-write`).
    pub sandbox: Option<tack_protocol::SandboxMode>,
    /// Whether sandboxed commands may use the network (null: config.toml's `network`, else off).
    pub network: Option<bool>,
}

/// A session as the main view shows it.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    /// Id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Settings.
    pub settings: SessionSettings,
    /// The base URL of an ad-hoc provider (one given as a URL, whose id is the placeholder
    /// `custom`), credentials redacted, as the session log records it; null for a provider with
    /// an id of its own. The header names such a provider by this URL's host.
    pub provider_url: Option<String>,
    /// History.
    pub items: Vec<Item>,
    /// Exchanges so far.
    pub exchanges: Vec<ExchangeSummary>,
    /// A turn is running.
    pub running: bool,
    /// Approvals waiting for the user (a window reopened mid-turn shows them again).
    pub pending_approvals: Vec<ApprovalRequest>,
    /// Questions waiting for the user.
    pub pending_questions: Vec<QuestionRequest>,
    /// Why the session is shown read-only (another process writes it, its provider is gone…),
    /// for the banner over its history; null when it is live.
    pub read_only: Option<String>,
}

fn session_view(session: &Session) -> SessionView {
    let path = session.log_path();
    let loaded = LoadedSession::read(&path).ok();
    let title = loaded
        .as_ref()
        .map_or_else(|| "New session".into(), LoadedSession::display_title);
    let provider_url = loaded.and_then(|l| l.provider_url);
    let exchanges = ExchangeLog::read_all(&exchanges_path(&path))
        .map(|all| all.into_iter().map(|e| e.summary).collect())
        .unwrap_or_default();
    let (pending_approvals, pending_questions) = session.pending();
    SessionView {
        id: session.id().to_string(),
        title,
        settings: session.settings(),
        provider_url,
        items: session.history(),
        exchanges,
        running: session.is_running(),
        pending_approvals,
        pending_questions,
        read_only: None,
    }
}

/// Starts a session.
#[tauri::command]
#[specta::specta]
pub async fn start_session(
    state: State<'_, AppState>,
    input: StartSessionInput,
) -> CmdResult<SessionView> {
    let request = SessionRequest {
        cwd: PathBuf::from(&input.cwd),
        provider: Some(input.provider_id.clone()),
        model: input.model.filter(|m| !m.is_empty()),
        harness: input.harness,
        wire: None,
        approval: Some(input.approval),
        sandbox: input.sandbox,
        network: input.network,
        api_key_env: None,
        instructions: None,
    };
    open_session(&state, request, None, false).await
}

async fn open_session(
    state: &AppState,
    request: SessionRequest,
    resume: Option<PathBuf>,
    accept_changed_header: bool,
) -> CmdResult<SessionView> {
    let config = state.config();
    let engine = state.engine.clone();
    let secrets = state.secrets.clone();
    let resolved = blocking(move || resolve(&config, &engine.registry, secrets.as_ref(), &request))
        .await?
        .map_err(AppError::from_display)?;
    let (session, events) = match &resume {
        Some(path) if accept_changed_header => {
            Session::resume_accepting(state.engine.clone(), path, resolved.options)
        }
        Some(path) => Session::resume(state.engine.clone(), path, resolved.options),
        None => Session::create(state.engine.clone(), resolved.options),
    }
    .map_err(|e| {
        let hint = match &e {
            tack_engine::session::EngineError::Route(_) => {
                Some("Change the harness or the provider's wire in Settings.")
            }
            tack_engine::session::EngineError::Workspace(_) => Some("Pick an existing folder."),
            _ => None,
        };
        AppError::new(e.to_string(), hint)
    })?;
    let cwd = PathBuf::from(session.settings().cwd);
    let view = session_view(&session);
    state.adopt(session, events);
    state.watch(&cwd);
    Ok(view)
}

/// Opens a saved session (or returns the live one). A session that can't be reopened (its
/// provider is no longer known, its folder is gone, another process writes it) still shows
/// its history: the view comes from its log, `read_only` says why, and sending to it says
/// why it can't continue.
///
/// A log whose header was edited since Tack wrote it is not opened until the user accepts
/// the changes: the error has `field` `header_changes` and lists them one per line; the
/// window asks, and calls again with `accept_changed_header` true.
#[tauri::command]
#[specta::specta]
pub async fn resume_session(
    state: State<'_, AppState>,
    session_id: String,
    accept_changed_header: Option<bool>,
) -> CmdResult<SessionView> {
    if let Ok(live) = state.session(&session_id) {
        return Ok(session_view(&live));
    }
    let path = log_path(&state.paths.sessions_dir(), &session_id);
    let loaded = LoadedSession::read(&path).map_err(AppError::from_display)?;
    let accept = accept_changed_header.unwrap_or(false);
    if !loaded.header_changes.is_empty() && !accept {
        return Err(header_changes_error(&loaded.header_changes));
    }
    let request = resume_request(&state.config(), &loaded);
    match open_session(&state, request, Some(path.clone()), accept).await {
        Ok(view) => Ok(view),
        Err(e) => {
            tracing::warn!(session = %session_id, error = %e, "the session opens read-only");
            let mut view = logged_view(&loaded, &path);
            view.read_only = Some(e.message);
            Ok(view)
        }
    }
}

/// The error for an edited header: one change per line after the first, for the dialog.
fn header_changes_error(changes: &[tack_engine::log::HeaderChange]) -> AppError {
    let mut message = "This session's log was edited since Tack wrote it:".to_string();
    for c in changes {
        message.push_str(&format!("\n{}: {} → {}", c.field, c.written, c.now));
    }
    AppError::new(
        message,
        Some("Open it with the settings as they are now, or undo the edit in the file."),
    )
    .on_field("header_changes")
}

/// A saved session as its log shows it, for one that can't be reopened: nothing runs and
/// nothing waits for the user.
fn logged_view(loaded: &LoadedSession, path: &std::path::Path) -> SessionView {
    SessionView {
        id: loaded.session_id.clone(),
        title: loaded.display_title(),
        settings: loaded.settings.clone(),
        provider_url: loaded.provider_url.clone(),
        items: loaded.items.clone(),
        exchanges: ExchangeLog::read_all(&exchanges_path(path))
            .map(|all| all.into_iter().map(|e| e.summary).collect())
            .unwrap_or_default(),
        running: false,
        pending_approvals: Vec::new(),
        pending_questions: Vec::new(),
        read_only: Some("This session can't continue here.".into()),
    }
}

/// Sends user input: starts a turn or steers the running one. A session shown read-only (see
/// [`resume_session`]) is reopened first, in case what stopped it was fixed since; if it still
/// can't be, the error says why.
#[tauri::command]
#[specta::specta]
pub async fn send_input(
    state: State<'_, AppState>,
    session_id: String,
    text: String,
) -> CmdResult<()> {
    let session = match state.session(&session_id) {
        Ok(live) => live,
        Err(not_open) => {
            let path = log_path(&state.paths.sessions_dir(), &session_id);
            let Ok(loaded) = LoadedSession::read(&path) else {
                return Err(not_open);
            };
            let request = resume_request(&state.config(), &loaded);
            open_session(&state, request, Some(path), false)
                .await
                .map_err(|e| {
                    AppError::new(
                        format!("This session can't continue: {}", e.message),
                        Some(&format!(
                            "Its history is shown read-only. {}",
                            e.hint.as_deref().unwrap_or(
                                "Add or fix its provider in Settings and send again, or start a new session."
                            )
                        )),
                    )
                })?;
            state.session(&session_id)?
        }
    };
    session
        .submit(text)
        .map(|_| ())
        .map_err(AppError::from_display)
}

/// Interrupts the running turn.
#[tauri::command]
#[specta::specta]
pub async fn interrupt(state: State<'_, AppState>, session_id: String) -> CmdResult<()> {
    state.session(&session_id)?.interrupt();
    Ok(())
}

/// Answers a pending approval.
#[tauri::command]
#[specta::specta]
pub async fn decide_approval(
    state: State<'_, AppState>,
    session_id: String,
    approval_id: String,
    decision: ApprovalDecision,
) -> CmdResult<()> {
    state
        .session(&session_id)?
        .decide(&approval_id, decision)
        .map_err(AppError::from_display)
}

/// Answers a tool call's questions (`null`: the user dismissed them).
#[tauri::command]
#[specta::specta]
pub async fn answer_question(
    state: State<'_, AppState>,
    session_id: String,
    question_id: String,
    answers: Option<Vec<QuestionAnswer>>,
) -> CmdResult<()> {
    state
        .session(&session_id)?
        .answer(&question_id, answers)
        .map_err(AppError::from_display)
}

/// What "auto" would pick for a provider and model, and why.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct InferredHarness {
    /// The harness "auto" uses.
    pub harness: String,
    /// Why, in words.
    pub reason: String,
}

/// Explains what "auto" picks for a provider (and a model, default: the provider's).
#[tauri::command]
#[specta::specta]
pub async fn infer_harness(
    state: State<'_, AppState>,
    provider_id: String,
    model: Option<String>,
) -> CmdResult<InferredHarness> {
    let provider = find_provider(&state, &provider_id)?;
    if let Some(h) = provider.explicit_harness() {
        return Ok(InferredHarness {
            harness: h.to_string(),
            reason: "set in the provider's settings".into(),
        });
    }
    let model = model
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| provider.model.clone());
    let inferred = tack_engine::config::explain_inference(&provider, &model);
    Ok(match inferred {
        Some(i) if state.engine.registry.get(i.harness).is_some() => InferredHarness {
            harness: i.harness.to_string(),
            reason: i.reason,
        },
        Some(i) => InferredHarness {
            harness: "native".into(),
            reason: format!(
                "{} would suggest `{}`, which this build doesn't have",
                i.reason, i.harness
            ),
        },
        None => InferredHarness {
            harness: "native".into(),
            reason: "no rule matched this provider and model".into(),
        },
    })
}

/// A saved session in the sidebar.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    /// Id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Workspace.
    pub cwd: String,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
    /// History items.
    pub item_count: u32,
}

/// Saved sessions, newest first, optionally of one workspace.
#[tauri::command]
#[specta::specta]
pub async fn list_sessions(
    state: State<'_, AppState>,
    cwd: Option<String>,
) -> CmdResult<Vec<SessionSummary>> {
    let dir = state.paths.sessions_dir();
    // The engine canonicalizes it, and compares a folder that no longer exists as given.
    let filter = cwd.map(PathBuf::from);
    blocking(move || {
        export::list_sessions(&dir, filter.as_deref())
            .into_iter()
            .map(|r| SessionSummary {
                id: r.id,
                title: r.title,
                cwd: r.cwd,
                created_at: r.created_at,
                updated_at: r.updated_at,
                item_count: r.item_count,
            })
            .collect()
    })
    .await
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339()
}

/// Renames a session (appends a `renamed` record to its log).
#[tauri::command]
#[specta::specta]
pub async fn rename_session(
    state: State<'_, AppState>,
    session_id: String,
    title: String,
) -> CmdResult<()> {
    let title = title.trim().to_string();
    if title.is_empty() {
        return Err(AppError::new("the title is empty", None));
    }
    let path = log_path(&state.paths.sessions_dir(), &session_id);
    let record = LogRecord::Renamed { ts: now(), title };
    match state.session(&session_id) {
        Ok(live) => live.append(&record).map_err(AppError::from_display),
        Err(_) => SessionLog::open(&path)
            .and_then(|mut log| log.append(&record))
            .map_err(AppError::from_display),
    }
}

/// Deletes a session's files. A session with a running turn can't be deleted.
#[tauri::command]
#[specta::specta]
pub async fn delete_session(state: State<'_, AppState>, session_id: String) -> CmdResult<()> {
    if let Ok(live) = state.session(&session_id) {
        if live.is_running() {
            return Err(AppError::new(
                "the session is running a turn",
                Some("Stop it first."),
            ));
        }
        lock(&state.sessions).remove(&session_id);
    }
    let path = log_path(&state.paths.sessions_dir(), &session_id);
    if !path.is_file() {
        return Err(AppError::new(format!("no session `{session_id}`"), None));
    }
    for p in [
        path.clone(),
        exchanges_path(&path),
        path.with_extension("log"),
        // Bytes cut from a torn tail, and a stale pid file.
        tack_engine::log::torn_path(&path),
        tack_engine::log::lock_path(&path),
    ] {
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(AppError::new(format!("{}: {e}", p.display()), None)),
        }
    }
    Ok(())
}

/// Export format.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// The session log as is.
    Jsonl,
    /// A readable transcript.
    Markdown,
}

/// Exports a session to a file chosen in the native save dialog; returns its path.
#[tauri::command]
#[specta::specta]
pub async fn export_session(
    state: State<'_, AppState>,
    session_id: String,
    format: ExportFormat,
) -> CmdResult<Option<String>> {
    let path = log_path(&state.paths.sessions_dir(), &session_id);
    let loaded = LoadedSession::read(&path).map_err(AppError::from_display)?;
    let (name, bytes) = match format {
        ExportFormat::Jsonl => (
            format!("{session_id}.jsonl"),
            std::fs::read(&path)
                .map_err(|e| AppError::new(format!("{}: {e}", path.display()), None))?,
        ),
        ExportFormat::Markdown => (
            format!("{session_id}.md"),
            export::markdown(&loaded).into_bytes(),
        ),
    };
    let Some(dialogs) = lock(&state.dialogs).clone() else {
        return Err(AppError::new("no dialog support in this window", None));
    };
    let Some(target) = blocking(move || dialogs.save_file(&name)).await? else {
        return Ok(None);
    };
    std::fs::write(&target, bytes)
        .map_err(|e| AppError::new(format!("{}: {e}", target.display()), None))?;
    Ok(Some(target.display().to_string()))
}

fn read_exchanges(state: &AppState, session_id: &str) -> CmdResult<Vec<Exchange>> {
    let path = exchanges_path(&log_path(&state.paths.sessions_dir(), session_id));
    if !path.is_file() {
        return Ok(Vec::new());
    }
    ExchangeLog::read_all(&path).map_err(AppError::from_display)
}

/// Summaries of every exchange of a session.
#[tauri::command]
#[specta::specta]
pub async fn list_exchanges(
    state: State<'_, AppState>,
    session_id: String,
) -> CmdResult<Vec<ExchangeSummary>> {
    Ok(read_exchanges(&state, &session_id)?
        .into_iter()
        .map(|e| e.summary)
        .collect())
}

fn find_exchange(state: &AppState, session_id: &str, exchange_id: &str) -> CmdResult<Exchange> {
    read_exchanges(state, session_id)?
        .into_iter()
        .find(|e| e.summary.id == exchange_id)
        .ok_or_else(|| AppError::new(format!("no exchange `{exchange_id}`"), None))
}

/// One exchange in full (headers already redacted when recorded).
#[tauri::command]
#[specta::specta]
pub async fn get_exchange(
    state: State<'_, AppState>,
    session_id: String,
    exchange_id: String,
) -> CmdResult<Exchange> {
    find_exchange(&state, &session_id, &exchange_id)
}

/// A `curl` command re-sending an exchange, with `$TACK_API_KEY` where the key goes.
#[tauri::command]
#[specta::specta]
pub async fn exchange_curl(
    state: State<'_, AppState>,
    session_id: String,
    exchange_id: String,
) -> CmdResult<String> {
    Ok(export::curl_command(&find_exchange(
        &state,
        &session_id,
        &exchange_id,
    )?))
}

// ---------------------------------------------------------------------------------------------
// Saved approval rules (`[[rules]]` in config.toml), for Settings. Each command re-reads the
// file and edits it in place; the list returned is the file's rules after the change.

/// A rule as Settings' form gives it: the command as typed.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RuleInput {
    /// Allow or deny.
    pub decision: tack_protocol::RuleDecision,
    /// The command prefix as typed (`npm test`), split as a shell would.
    pub command: String,
    /// The workspace it applies to (absolute), or null for every workspace.
    pub workspace: Option<String>,
}

/// The saved rules, in file order (none when the file does not load: `appInfo` says why).
#[tauri::command]
#[specta::specta]
pub async fn list_rules(state: State<'_, AppState>) -> CmdResult<Vec<tack_protocol::Rule>> {
    Ok(state.config().rules)
}

/// Saves a rule at the end of `[[rules]]`; an exact duplicate changes nothing. A command that
/// does not split into words is an error on the `command` field, a relative workspace one on
/// `workspace`.
#[tauri::command]
#[specta::specta]
pub async fn add_rule(
    state: State<'_, AppState>,
    input: RuleInput,
) -> CmdResult<Vec<tack_protocol::Rule>> {
    let command = tack_engine::rules::parse_command(input.command.trim())
        .map_err(|e| AppError::new(e, None).on_field("command"))?;
    let workspace = input
        .workspace
        .map(|w| w.trim().to_string())
        .filter(|w| !w.is_empty());
    let rule = tack_protocol::Rule {
        decision: input.decision,
        command,
        workspace,
    };
    let field = if rule
        .workspace
        .as_deref()
        .is_some_and(|w| !std::path::Path::new(w).is_absolute())
    {
        "workspace"
    } else {
        "command"
    };
    tack_engine::rules::check_rule(&rule).map_err(|e| AppError::new(e, None).on_field(field))?;
    let config = state.edit_config(|doc| {
        doc.add_rule(&rule)
            .map_err(|e| AppError::new(format!("Not saved: {e}"), None))
    })?;
    Ok(config.rules)
}

/// Deletes every entry that is exactly this rule (by value, not by position: the file may
/// have been edited since the window listed it). A rule the file no longer has is an error.
#[tauri::command]
#[specta::specta]
pub async fn delete_rule(
    state: State<'_, AppState>,
    rule: tack_protocol::Rule,
) -> CmdResult<Vec<tack_protocol::Rule>> {
    let config = state.edit_config(|doc| {
        if doc
            .remove_rule_exact(&rule)
            .map_err(|e| AppError::new(format!("Not deleted: {e}"), None))?
        {
            Ok(true)
        } else {
            Err(AppError::new(
                format!("the config file has no rule {}", rule.describe()),
                Some("It may have been removed from the file already."),
            ))
        }
    })?;
    Ok(config.rules)
}
