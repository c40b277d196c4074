//! The shell's state: the engine, live sessions, config, the keychain, workspace watchers.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use tack_engine::config::{Config, Paths};
use tack_engine::secrets::{KeychainStore, SecretStore};
use tack_engine::session::{Engine, Session};
use tack_protocol::EngineEvent;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::commands::AppError;
use crate::events::{AppEvent, EngineEventEnvelope};
use crate::watch::WorkspaceWatcher;

/// Sends an event to the webview.
pub type Emit = Arc<dyn Fn(AppEvent) + Send + Sync>;

/// Native dialogs, injected so commands stay runtime-agnostic (and testable without a
/// display).
pub trait Dialogs: Send + Sync {
    /// Asks for a folder.
    fn pick_folder(&self) -> Option<PathBuf>;
    /// Asks where to save a file, suggesting a name.
    fn save_file(&self, suggested_name: &str) -> Option<PathBuf>;
}

/// Shared state of the desktop app.
pub struct AppState {
    /// The engine.
    pub engine: Arc<Engine>,
    /// Folders.
    pub paths: Paths,
    /// Where keys live.
    pub secrets: Arc<dyn SecretStore>,
    pub(crate) config: Mutex<Config>,
    pub(crate) sessions: Mutex<HashMap<String, Session>>,
    pub(crate) watchers: Mutex<HashMap<PathBuf, WorkspaceWatcher>>,
    pub(crate) dialogs: Mutex<Option<Arc<dyn Dialogs>>>,
    emit: Emit,
}

impl AppState {
    /// State for the real app: folders from the environment, the OS keychain.
    ///
    /// # Errors
    /// When the engine cannot start or the config file is invalid.
    pub fn from_env(emit: Emit) -> Result<AppState, AppError> {
        AppState::new(Paths::from_env(), Arc::new(KeychainStore), emit)
    }

    /// State with explicit folders and key store (tests).
    ///
    /// # Errors
    /// When the engine cannot start or the config file is invalid.
    pub fn new(
        paths: Paths,
        secrets: Arc<dyn SecretStore>,
        emit: Emit,
    ) -> Result<AppState, AppError> {
        let config = Config::load(&paths.config_file()).map_err(AppError::from_display)?;
        let engine = Arc::new(Engine::new(paths.clone()).map_err(AppError::from_display)?);
        Ok(AppState {
            engine,
            paths,
            secrets,
            config: Mutex::new(config),
            sessions: Mutex::new(HashMap::new()),
            watchers: Mutex::new(HashMap::new()),
            dialogs: Mutex::new(None),
            emit,
        })
    }

    /// Installs native dialogs.
    pub fn set_dialogs(&self, dialogs: Arc<dyn Dialogs>) {
        *lock(&self.dialogs) = Some(dialogs);
    }

    /// Sends an event to the webview.
    pub fn emit(&self, event: AppEvent) {
        (self.emit)(event);
    }

    /// A live session.
    pub(crate) fn session(&self, id: &str) -> Result<Session, AppError> {
        lock(&self.sessions).get(id).cloned().ok_or_else(|| {
            AppError::new(
                format!("session `{id}` is not open"),
                Some("Open it from the sidebar first."),
            )
        })
    }

    /// Registers a live session and forwards its events to the webview as they happen.
    pub(crate) fn adopt(&self, session: Session, mut events: UnboundedReceiver<EngineEvent>) {
        let id = session.id().to_string();
        lock(&self.sessions).insert(id.clone(), session);
        let emit = self.emit.clone();
        tauri::async_runtime::spawn(async move {
            while let Some(event) = events.recv().await {
                emit(AppEvent::Engine(Box::new(EngineEventEnvelope {
                    session_id: id.clone(),
                    event,
                })));
            }
        });
    }

    /// Starts watching a workspace (idempotent).
    pub(crate) fn watch(&self, cwd: &Path) {
        let mut watchers = lock(&self.watchers);
        if watchers.contains_key(cwd) {
            return;
        }
        match WorkspaceWatcher::start(cwd, self.emit.clone()) {
            Ok(w) => {
                watchers.insert(cwd.to_path_buf(), w);
            }
            Err(e) => tracing::warn!(cwd = %cwd.display(), error = %e, "cannot watch workspace"),
        }
    }
}

/// Locks a mutex, recovering from poisoning (the guarded data stays consistent: every critical
/// section is short and does not panic).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
