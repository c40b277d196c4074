//! The shell's state: the engine, live sessions, config, the keychain, workspace watchers.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tack_engine::config::{Config, ConfigDocument, Paths};
use tack_engine::secrets::{KeychainStore, SecretStore};
use tack_engine::events::EventReceiver;
use tack_engine::session::{Engine, Session};

use crate::commands::{AppError, ConfigProblem};
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
    config: Mutex<LoadedConfig>,
    pub(crate) sessions: Mutex<HashMap<String, Session>>,
    pub(crate) watchers: Mutex<HashMap<PathBuf, WorkspaceWatcher>>,
    pub(crate) dialogs: Mutex<Option<Arc<dyn Dialogs>>>,
    /// A folder dialog is open: a second request is ignored (the dialog is not modal on every
    /// platform).
    pub(crate) picking_folder: AtomicBool,
    emit: Emit,
}

/// The settings last read from the config file, and why the latest read failed, if it did.
#[derive(Default)]
struct LoadedConfig {
    config: Config,
    problem: Option<ConfigProblem>,
    /// What loads but looks like a mistake (a duplicate provider id, a built-in replaced).
    warnings: Vec<String>,
}

/// How long quitting waits for running turns to write their end to their logs.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

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
    /// A config file that does not load is not an error here: the app runs with the built-in
    /// providers and reports the problem ([`AppState::config_problem`]) so the window can say
    /// what to fix.
    ///
    /// # Errors
    /// When the engine cannot start.
    pub fn new(
        paths: Paths,
        secrets: Arc<dyn SecretStore>,
        emit: Emit,
    ) -> Result<AppState, AppError> {
        let engine = Arc::new(Engine::new(paths.clone()).map_err(AppError::from_display)?);
        let state = AppState {
            engine,
            paths,
            secrets,
            config: Mutex::new(LoadedConfig::default()),
            sessions: Mutex::new(HashMap::new()),
            watchers: Mutex::new(HashMap::new()),
            dialogs: Mutex::new(None),
            picking_folder: AtomicBool::new(false),
            emit,
        };
        state.config();
        if let Some(problem) = state.config_problem() {
            tracing::warn!(path = %problem.path, error = %problem.details, "the config file does not load; using the built-in providers");
        }
        Ok(state)
    }

    /// The settings, read from the file now (the user may edit it while Tack runs). When the
    /// file does not load, the last settings that did (at startup: none, so the built-in
    /// providers) and [`AppState::config_problem`] says why.
    pub fn config(&self) -> Config {
        let path = self.paths.config_file();
        let read = Config::load_with_warnings(&path);
        let mut loaded = lock(&self.config);
        match read {
            Ok((config, warnings)) => {
                loaded.config = config;
                loaded.problem = None;
                loaded.warnings = warnings.iter().map(ToString::to_string).collect();
            }
            Err(e) => loaded.problem = Some(ConfigProblem::from_error(&path, &e)),
        }
        loaded.config.clone()
    }

    /// The warnings of the last read of the config file that loaded.
    pub fn config_warnings(&self) -> Vec<String> {
        lock(&self.config).warnings.clone()
    }

    /// Why the config file did not load the last time it was read, if it didn't.
    pub fn config_problem(&self) -> Option<ConfigProblem> {
        lock(&self.config).problem.clone()
    }

    /// Applies one change to the config file: re-reads it, lets `change` edit the document
    /// (returning whether it changed anything), writes it back when it did. A file that does
    /// not load is never written: the change is refused with an error saying where the file
    /// is broken and what to do.
    ///
    /// # Errors
    /// The refusal above, `change`'s own error, or a failed write.
    pub(crate) fn edit_config(
        &self,
        change: impl FnOnce(&mut ConfigDocument) -> Result<bool, AppError>,
    ) -> Result<Config, AppError> {
        let path = self.paths.config_file();
        let mut doc = match ConfigDocument::load(&path) {
            Ok(doc) => doc,
            Err(e) => {
                let problem = ConfigProblem::from_error(&path, &e);
                let refusal = problem.refusal();
                lock(&self.config).problem = Some(problem);
                return Err(refusal);
            }
        };
        if change(&mut doc)? {
            doc.save().map_err(|e| {
                AppError::new(
                    format!("Settings were not saved: {e}"),
                    Some("Check that the config folder is writable."),
                )
            })?;
        }
        let config = doc.config().clone();
        let mut loaded = lock(&self.config);
        loaded.config = config.clone();
        loaded.problem = None;
        Ok(config)
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
    pub(crate) fn adopt(&self, session: Session, mut events: EventReceiver) {
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

    /// What closing the window does, and File → Quit: interrupts every running turn and waits
    /// (at most `grace`) until each has closed its turn in its session log, so a reopened
    /// session shows the turn as interrupted with everything it had finished; then lets go of
    /// every session.
    pub async fn shutdown(&self, grace: Duration) {
        let live: Vec<Session> = lock(&self.sessions).values().cloned().collect();
        let running: Vec<Session> = live.into_iter().filter(Session::is_running).collect();
        for session in &running {
            session.interrupt();
        }
        let deadline = tokio::time::Instant::now() + grace;
        for session in &running {
            if tokio::time::timeout_at(deadline, session.wait_idle())
                .await
                .is_err()
            {
                tracing::warn!(session = %session.id(), "the turn did not stop in time; quitting anyway");
            }
        }
        // Closed: each session's log is released (its lock with it), so another process,
        // or this app reopened, can write it.
        lock(&self.sessions).clear();
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
