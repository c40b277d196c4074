//! A session: one conversation in one workspace with one provider, harness and approval
//! policy, persisted as it happens.
//!
//! A [`Session`] is a cheap handle (clone it freely). Input goes in with
//! [`Session::submit`]: it starts a turn, or, while a turn runs, is queued and joins that
//! turn's next sampling request (steering). [`Session::interrupt`] cancels the running turn:
//! the in-flight HTTP request is dropped, a running tool's process group is killed, and every
//! tool call left without output gets an `aborted` output so the history stays valid.
//! Everything that happens is reported on the [`EngineEvent`] channel returned at creation.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use tack_harness::prompts::PromptStore;
use tack_harness::{Registry, Route};
use tack_protocol::{
    ApprovalDecision, ApprovalPolicy, ApprovalRequest, EngineEvent, Exchange, Item, ModelError,
    QuestionAnswer, QuestionRequest, Role, SandboxStatus, SessionSettings, ToolOutput,
    ToolOutputItem,
};
use tack_wire::client::{ClientConfig, ModelClient};
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

use crate::approval::SessionApprovals;
use crate::config::{Paths, ProviderConfig};
use crate::events::{EventReceiver, EventSender};
use crate::log::{
    ExchangeLog, HeaderChange, LOG_VERSION, LoadedSession, LogError, LogRecord, SessionLog,
};
use crate::secrets::ApiKey;
use crate::tools::{ToolHandler, builtin_tools};
use crate::turn;

/// Process-wide services shared by every session.
pub struct Engine {
    /// Harness registry.
    pub registry: Registry,
    /// Prompt templates (built-ins + the user's overrides).
    pub prompts: PromptStore,
    /// HTTP client for providers.
    pub client: ModelClient,
    /// Engine tools.
    pub tools: Vec<Arc<dyn ToolHandler>>,
    /// Folders.
    pub paths: Paths,
}

impl Engine {
    /// The standard engine: built-in harnesses and tools, prompt overrides from the config
    /// folder, default HTTP client.
    ///
    /// # Errors
    /// [`EngineError::Setup`] when the HTTP client cannot be built (TLS roots).
    pub fn new(paths: Paths) -> Result<Engine, EngineError> {
        Ok(Engine {
            registry: Registry::builtin(),
            prompts: PromptStore::with_override_dir(paths.prompts_dir()),
            client: ModelClient::new(ClientConfig::default())
                .map_err(|e| EngineError::Setup(e.to_string()))?,
            tools: builtin_tools(),
            paths,
        })
    }

    /// Looks up an engine tool by name.
    pub fn tool(&self, name: &str) -> Option<Arc<dyn ToolHandler>> {
        self.tools.iter().find(|t| t.name() == name).cloned()
    }
}

/// What a session runs with.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// Workspace folder (made absolute).
    pub cwd: PathBuf,
    /// Provider.
    pub provider: ProviderConfig,
    /// Model slug.
    pub model: String,
    /// Harness id (already resolved from "auto").
    pub harness: String,
    /// Approval policy.
    pub approval: ApprovalPolicy,
    /// The sandbox commands run in (mechanism probed at start-up, mode and network from the
    /// config, the session or the command line).
    pub sandbox: SandboxStatus,
    /// Folders besides the workspace that `workspace-write` commands may change.
    pub writable_roots: Vec<PathBuf>,
    /// Saved approval rules (`[[rules]]` in config.toml) the session starts with; "Always …"
    /// answers add to them.
    pub rules: crate::rules::RuleSet,
    /// Extra instructions.
    pub instructions: Option<String>,
    /// The provider key, if it needs one. Never persisted.
    pub api_key: Option<ApiKey>,
    /// Someone can answer questions (`ask_user`); headless runs set `false` so the model is
    /// told to decide on its own instead of waiting.
    pub interactive: bool,
    /// Example exchanges sent before the history of every request (from the provider's
    /// config); never written to the session log.
    pub examples: Vec<Item>,
    /// Most model requests in one turn (default [`crate::MAX_STEPS`]); a turn that reaches it
    /// while the model still calls tools fails with `step_limit`. `0` counts as 1.
    pub max_steps: u32,
    /// Time and output limits on the commands the model runs (from config.toml).
    pub limits: crate::tools::CommandLimits,
}

impl SessionOptions {
    /// The persisted/displayed part.
    pub fn settings(&self) -> SessionSettings {
        SessionSettings {
            cwd: self.cwd.display().to_string(),
            provider: self.provider.id.clone(),
            model: self.model.clone(),
            wire: self.provider.wire,
            harness: self.harness.clone(),
            approval: self.approval,
            sandbox: self.sandbox.clone(),
        }
    }

    /// The base URL to record for an ad-hoc provider (one given as a URL, id
    /// [`crate::resolve::CUSTOM_PROVIDER_ID`]), which resuming needs to rebuild it; `None` for
    /// providers with an id, which resuming finds again by that id.
    pub fn provider_url(&self) -> Option<String> {
        // Redacted: a URL can carry a credential (`?key=…`, `user:key@host`), and the log must
        // never hold one. Such a session resumes only with the URL given again.
        (self.provider.id == crate::resolve::CUSTOM_PROVIDER_ID)
            .then(|| tack_wire::client::redact_url(&self.provider.base_url))
    }
}

/// Engine failures that are not about a single model request.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The engine could not start.
    #[error("engine setup failed: {0}")]
    Setup(String),
    /// Routing (wire × harness) failed.
    #[error(transparent)]
    Route(#[from] tack_harness::RouteError),
    /// The session log failed.
    #[error(transparent)]
    Log(#[from] LogError),
    /// The workspace is not a folder.
    #[error("workspace {0} is not a folder")]
    Workspace(PathBuf),
    /// No approval with that id is pending.
    #[error("no pending approval `{0}` (it may have been decided or the turn ended)")]
    NotPending(String),
    /// A new session needs text.
    #[error("empty input")]
    EmptyInput,
    /// The log's header (settings of `session_started`/`resumed`) was changed after Tack
    /// wrote it; resuming takes it only when the user accepts the changes.
    #[error("the session log's header was edited since Tack wrote it: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    HeaderChanged(Vec<HeaderChange>),
}

/// Whether submitted input started a turn or joined the running one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submitted {
    /// A new turn started.
    Started {
        /// Its id.
        turn_id: String,
    },
    /// Queued for the running turn's next sampling request.
    Queued {
        /// The running turn.
        turn_id: String,
    },
}

/// A live session handle.
#[derive(Clone)]
pub struct Session {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) engine: Arc<Engine>,
    pub(crate) id: String,
    pub(crate) opts: SessionOptions,
    pub(crate) route: Route,
    /// Bounded and coalescing (see [`crate::events`]).
    pub(crate) events: EventSender,
    pub(crate) state: Mutex<State>,
    pub(crate) log: Mutex<SessionLog>,
    pub(crate) exchanges: Mutex<ExchangeLog>,
    pub(crate) running: watch::Sender<bool>,
    /// The session's scratch folder, mounted as `/tmp` in its sandboxed commands (made on
    /// first use, removed with the session).
    pub(crate) scratch: std::sync::OnceLock<Option<PathBuf>>,
    /// Keeps keys out of the event stream, also when split across deltas.
    pub(crate) redactor: Mutex<crate::secrets::EventRedactor>,
}

/// A question put to the user and where its answers go (`None`: dismissed).
pub(crate) type PendingQuestion = (
    QuestionRequest,
    oneshot::Sender<Option<Vec<QuestionAnswer>>>,
);

pub(crate) struct State {
    pub(crate) history: Vec<Item>,
    pub(crate) turn: Option<RunningTurn>,
    pub(crate) queued: Vec<String>,
    /// Pending approvals: what was asked (so a reopened window can show it again) and where
    /// the answer goes.
    pub(crate) approvals: HashMap<String, (ApprovalRequest, oneshot::Sender<ApprovalDecision>)>,
    /// Pending questions, likewise.
    pub(crate) questions: HashMap<String, PendingQuestion>,
    pub(crate) approved: SessionApprovals,
    /// Saved rules in force (the config's at start, plus this session's "Always …" answers).
    pub(crate) rules: crate::rules::RuleSet,
    pub(crate) ids: HashSet<String>,
    pub(crate) call_ids: HashSet<String>,
    pub(crate) next_id: u64,
}

pub(crate) struct RunningTurn {
    pub(crate) id: String,
    pub(crate) cancel: CancellationToken,
}

impl Drop for Inner {
    /// The session is gone: stop the terminals its tools started (terminus-2's tmux).
    fn drop(&mut self) {
        crate::tools::close_session_terminals(&self.id);
        if let Some(Some(dir)) = self.scratch.get() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Session {
    /// Frees what the session holds outside its files: its terminals (terminus-2's tmux) and
    /// its scratch folder. A front end calls it when it is done with the session (a process
    /// may exit without dropping it); dropping the last handle does the same.
    pub fn release(&self) {
        crate::tools::close_session_terminals(&self.inner.id);
        if let Some(Some(dir)) = self.inner.scratch.get() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    /// The folder this session's sandboxed commands see as `/tmp`: private to the session
    /// (mode 0700, under the system's temporary folder), kept across its commands so a file
    /// one command leaves in `/tmp` is there for the next, removed when the session goes.
    /// `None` if it cannot be made (commands then get an empty `/tmp` each).
    pub(crate) fn scratch_dir(&self) -> Option<PathBuf> {
        self.inner
            .scratch
            .get_or_init(|| {
                use std::os::unix::fs::DirBuilderExt;
                let dir = std::env::temp_dir().join(format!("tack-session-{}", self.inner.id));
                match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                    Ok(()) => Some(dir),
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        // Only reuse a folder that is ours and private (a leftover of this
                        // session after a crash), never one someone else made.
                        let meta = std::fs::symlink_metadata(&dir).ok()?;
                        use std::os::unix::fs::MetadataExt;
                        let ours = meta.is_dir()
                            && meta.uid() == rustix::process::getuid().as_raw()
                            && meta.mode() & 0o077 == 0;
                        ours.then_some(dir)
                    }
                    Err(e) => {
                        tracing::warn!("no scratch folder for the session: {e}");
                        None
                    }
                }
            })
            .clone()
    }
}

/// The log file of session `id` in `dir`.
pub fn log_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.jsonl"))
}

/// The exchange file beside a session log.
pub fn exchanges_path(log: &Path) -> PathBuf {
    log.with_extension("exchanges.jsonl")
}

impl Session {
    /// Starts a new session and writes its log header.
    ///
    /// # Errors
    /// [`EngineError`] for a bad workspace, an unroutable (wire, harness) pair, or a log
    /// that can't be created.
    pub fn create(
        engine: Arc<Engine>,
        mut opts: SessionOptions,
    ) -> Result<(Session, EventReceiver), EngineError> {
        opts.cwd = absolute_dir(&opts.cwd)?;
        let route = engine.registry.route(opts.provider.wire, &opts.harness)?;
        let id = new_session_id();
        let path = log_path(&engine.paths.sessions_dir(), &id);
        let (settings, provider_url) = (opts.settings(), opts.provider_url());
        let log = SessionLog::create(
            &path,
            &LogRecord::SessionStarted {
                version: LOG_VERSION,
                session_id: id.clone(),
                created_at: now(),
                seal: Some(crate::log::seal(&settings, provider_url.as_deref())),
                settings,
                provider_url,
            },
        )?;
        Self::start(engine, id, opts, route, log, Vec::new())
    }

    /// Reopens a session from its log. Settings come from `opts` (the caller may keep the
    /// logged ones); a turn that was cut off by a crash is closed: its unanswered tool calls
    /// get `aborted` outputs and a `turn_ended` record is written.
    ///
    ///
    /// The log is locked for this process first (a second writer gets
    /// [`LogError::Locked`]) and a torn last line is cut off (kept in
    /// [`crate::log::torn_path`]); streamed text left without its item comes back as a
    /// cut-off answer ([`LoadedSession::cut_off`]).
    ///
    /// # Errors
    /// [`EngineError`] as for [`Session::create`], or when the log can't be read;
    /// [`EngineError::HeaderChanged`] when its header was edited (see
    /// [`Session::resume_accepting`]).
    pub fn resume(
        engine: Arc<Engine>,
        path: &Path,
        opts: SessionOptions,
    ) -> Result<(Session, EventReceiver), EngineError> {
        Self::resume_with(engine, path, opts, false)
    }

    /// [`Session::resume`] that takes a hand-edited header (the user saw the changes and
    /// accepted them); the new `resumed` record seals the settings from now on.
    ///
    /// # Errors
    /// As for [`Session::resume`], except [`EngineError::HeaderChanged`].
    pub fn resume_accepting(
        engine: Arc<Engine>,
        path: &Path,
        opts: SessionOptions,
    ) -> Result<(Session, EventReceiver), EngineError> {
        Self::resume_with(engine, path, opts, true)
    }

    fn resume_with(
        engine: Arc<Engine>,
        path: &Path,
        mut opts: SessionOptions,
        accept_changed_header: bool,
    ) -> Result<(Session, EventReceiver), EngineError> {
        // Lock, then repair, then read: the repair must not race another writer, and the
        // read must see the repaired file.
        let (mut log, torn) = SessionLog::open_repairing(path)?;
        if let Some(t) = &torn {
            tracing::warn!(
                offset = t.offset,
                bytes = t.len,
                "the session log had a torn last line; cut it"
            );
        }
        let loaded = LoadedSession::read(path)?;
        if !loaded.header_changes.is_empty() && !accept_changed_header {
            return Err(EngineError::HeaderChanged(loaded.header_changes));
        }
        opts.cwd = absolute_dir(&opts.cwd)?;
        let route = engine.registry.route(opts.provider.wire, &opts.harness)?;
        let (settings, provider_url) = (opts.settings(), opts.provider_url());
        log.append(&LogRecord::Resumed {
            ts: now(),
            seal: Some(crate::log::seal(&settings, provider_url.as_deref())),
            settings,
            provider_url,
        })?;
        let (session, rx) = Self::start(
            engine,
            loaded.session_id.clone(),
            opts,
            route,
            log,
            loaded.items.clone(),
        )?;
        session.close_calls_as(loaded.unfinished_turn.as_deref(), ENDED_WHILE_RUNNING)?;
        if let Some(turn_id) = &loaded.unfinished_turn {
            session.append_record(&LogRecord::TurnEnded {
                ts: now(),
                turn_id: turn_id.clone(),
                status: "interrupted".into(),
                usage: Default::default(),
                error: None,
            })?;
        }
        Ok((session, rx))
    }

    fn start(
        engine: Arc<Engine>,
        id: String,
        opts: SessionOptions,
        route: Route,
        log: SessionLog,
        history: Vec<Item>,
    ) -> Result<(Session, EventReceiver), EngineError> {
        let exchanges = ExchangeLog::open(&exchanges_path(log.path()))?;
        if let Some(key) = &opts.api_key {
            crate::secrets::remember(key);
        }
        let (tx, rx) = crate::events::channel();
        let mut ids = HashSet::new();
        let mut call_ids = HashSet::new();
        for item in &history {
            ids.insert(item.id().to_string());
            if let Some(c) = item.call_id() {
                call_ids.insert(c.to_string());
            }
        }
        let settings = opts.settings();
        let rules = opts.rules.clone();
        let inner = Arc::new(Inner {
            engine,
            id: id.clone(),
            opts,
            route,
            events: tx,
            state: Mutex::new(State {
                history,
                turn: None,
                queued: Vec::new(),
                approvals: HashMap::new(),
                questions: HashMap::new(),
                approved: SessionApprovals::default(),
                rules,
                ids,
                call_ids,
                next_id: 0,
            }),
            log: Mutex::new(log),
            exchanges: Mutex::new(exchanges),
            running: watch::channel(false).0,
            scratch: std::sync::OnceLock::new(),
            redactor: Mutex::new(crate::secrets::EventRedactor::default()),
        });
        let session = Session { inner };
        session.emit(EngineEvent::SessionConfigured {
            session_id: id,
            settings,
        });
        Ok((session, rx))
    }

    /// Session id.
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// Settings.
    pub fn settings(&self) -> SessionSettings {
        self.inner.opts.settings()
    }

    /// Path of the session log.
    pub fn log_path(&self) -> PathBuf {
        lock(&self.inner.log).path().to_path_buf()
    }

    /// A copy of the history.
    pub fn history(&self) -> Vec<Item> {
        lock(&self.inner.state).history.clone()
    }

    /// Whether a turn is running.
    pub fn is_running(&self) -> bool {
        lock(&self.inner.state).turn.is_some()
    }

    /// Appends items to history without running a turn (seeding a conversation, importing).
    ///
    /// # Errors
    /// [`EngineError::Log`].
    pub fn seed(&self, items: Vec<Item>) -> Result<(), EngineError> {
        for item in items {
            self.record(None, item)?;
        }
        Ok(())
    }

    /// Submits user input: starts a turn, or queues it for the running turn.
    ///
    /// # Errors
    /// [`EngineError::EmptyInput`] for blank text; [`EngineError::Log`] if the input can't be
    /// persisted.
    pub fn submit(&self, text: impl Into<String>) -> Result<Submitted, EngineError> {
        let text = text.into();
        if text.trim().is_empty() {
            return Err(EngineError::EmptyInput);
        }
        let (turn_id, cancel) = {
            let mut state = lock(&self.inner.state);
            if let Some(turn) = &state.turn {
                let turn_id = turn.id.clone();
                state.queued.push(text.clone());
                drop(state);
                self.emit(EngineEvent::InputQueued {
                    turn_id: turn_id.clone(),
                    text,
                });
                return Ok(Submitted::Queued { turn_id });
            }
            let turn_id = format!("turn_{}", uuid::Uuid::now_v7().simple());
            let cancel = CancellationToken::new();
            state.turn = Some(RunningTurn {
                id: turn_id.clone(),
                cancel: cancel.clone(),
            });
            (turn_id, cancel)
        };
        self.inner.running.send_replace(true);
        if let Err(e) = self.append_record(&LogRecord::TurnStarted {
            ts: now(),
            turn_id: turn_id.clone(),
        }) {
            lock(&self.inner.state).turn = None;
            self.inner.running.send_replace(false);
            return Err(e);
        }
        self.emit(EngineEvent::TurnStarted {
            turn_id: turn_id.clone(),
        });
        let item = self.new_user_item(text);
        if let Err(e) = self.record(Some(&turn_id), item) {
            lock(&self.inner.state).turn = None;
            self.inner.running.send_replace(false);
            return Err(e);
        }
        let session = self.clone();
        let id = turn_id.clone();
        tokio::spawn(async move {
            turn::run(session, id, cancel).await;
        });
        Ok(Submitted::Started { turn_id })
    }

    /// Interrupts the running turn, if any.
    pub fn interrupt(&self) {
        let state = lock(&self.inner.state);
        if let Some(turn) = &state.turn {
            turn.cancel.cancel();
        }
    }

    /// Answers a pending approval.
    ///
    /// # Errors
    /// [`EngineError::NotPending`] if it is not pending.
    pub fn decide(&self, approval_id: &str, decision: ApprovalDecision) -> Result<(), EngineError> {
        let (_, tx) = lock(&self.inner.state)
            .approvals
            .remove(approval_id)
            .ok_or_else(|| EngineError::NotPending(approval_id.to_string()))?;
        tx.send(decision)
            .map_err(|_| EngineError::NotPending(approval_id.to_string()))
    }

    /// Answers pending questions (`None`: the user dismissed them).
    ///
    /// # Errors
    /// [`EngineError::NotPending`] if no such question is pending.
    pub fn answer(
        &self,
        question_id: &str,
        answers: Option<Vec<QuestionAnswer>>,
    ) -> Result<(), EngineError> {
        let (_, tx) = lock(&self.inner.state)
            .questions
            .remove(question_id)
            .ok_or_else(|| EngineError::NotPending(question_id.to_string()))?;
        tx.send(answers)
            .map_err(|_| EngineError::NotPending(question_id.to_string()))
    }

    /// Approvals and questions waiting for the user, oldest first (for a window that opens
    /// while a turn waits).
    pub fn pending(&self) -> (Vec<ApprovalRequest>, Vec<QuestionRequest>) {
        let state = lock(&self.inner.state);
        let mut approvals: Vec<ApprovalRequest> =
            state.approvals.values().map(|(r, _)| r.clone()).collect();
        let mut questions: Vec<QuestionRequest> =
            state.questions.values().map(|(r, _)| r.clone()).collect();
        // Ids are time-ordered (UUID v7), so sorting by id is sorting by age.
        approvals.sort_by(|a, b| a.id.cmp(&b.id));
        questions.sort_by(|a, b| a.id.cmp(&b.id));
        (approvals, questions)
    }

    /// Waits until no turn is running.
    pub async fn wait_idle(&self) {
        let mut rx = self.inner.running.subscribe();
        // `wait_for` returns immediately when the value already matches.
        let _ = rx.wait_for(|running| !*running).await;
    }

    /// Appends a record to the session log (e.g. a rename).
    ///
    /// # Errors
    /// [`EngineError::Log`].
    pub fn append(&self, record: &LogRecord) -> Result<(), EngineError> {
        self.append_record(record)
    }

    // ----- internals used by the turn loop -----

    pub(crate) fn emit(&self, event: EngineEvent) {
        // Deltas that could be the start of a key wait for the next event; a closed
        // receiver means nobody listens any more (the log still has everything).
        for event in lock(&self.inner.redactor).pass(event) {
            self.inner.events.send(event);
        }
    }

    /// Waits while the event queue is full and someone reads it (see
    /// [`crate::events::EventSender::room`]): producers that can wait call this, so a front end
    /// that falls behind slows them instead of filling memory.
    pub(crate) async fn event_room(&self) {
        self.inner.events.room().await;
    }

    /// What the event channel has done so far (coalesced deltas, bytes not shown live).
    pub fn event_stats(&self) -> crate::events::ChannelStats {
        self.inner.events.stats()
    }

    pub(crate) fn append_record(&self, record: &LogRecord) -> Result<(), EngineError> {
        lock(&self.inner.log).append(record)?;
        Ok(())
    }

    pub(crate) fn new_id(&self, prefix: &str) -> String {
        let mut state = lock(&self.inner.state);
        loop {
            state.next_id += 1;
            let id = format!("{prefix}_{}", uuid::Uuid::now_v7().simple());
            if state.ids.insert(id.clone()) {
                return id;
            }
        }
    }

    pub(crate) fn new_user_item(&self, text: String) -> Item {
        Item::text(self.new_id("msg"), Role::User, text)
    }

    /// Makes a decoded item's ids unique in the session (providers reuse ids such as
    /// `functions.ls:0` across responses), persists it, adds it to history and reports it.
    pub(crate) fn record(
        &self,
        turn_id: Option<&str>,
        mut item: Item,
    ) -> Result<Item, EngineError> {
        {
            let mut state = lock(&self.inner.state);
            let id = item.id().to_string();
            if id.is_empty() || state.ids.contains(&id) {
                drop(state);
                let fresh = self.new_id("item");
                set_item_id(&mut item, fresh);
                state = lock(&self.inner.state);
            } else {
                state.ids.insert(id);
            }
            if let Some(call_id) = item.call_id().map(str::to_string) {
                let unique = unique_call_id(&state.call_ids, &call_id);
                state.call_ids.insert(unique.clone());
                if unique != call_id {
                    set_call_id(&mut item, unique);
                }
            }
        }
        // The assembled item: a key the model echoed in pieces is whole here.
        crate::secrets::redact_item(&mut item);
        self.append_record(&LogRecord::Item {
            ts: now(),
            turn_id: turn_id.map(str::to_string),
            item: item.clone(),
        })?;
        lock(&self.inner.state).history.push(item.clone());
        if let Some(turn_id) = turn_id {
            self.emit(EngineEvent::ItemCompleted {
                turn_id: turn_id.to_string(),
                item: item.clone(),
            });
        }
        Ok(item)
    }

    pub(crate) fn record_exchange(&self, exchange: Exchange) {
        let summary = exchange.summary.clone();
        if let Err(e) = lock(&self.inner.exchanges).append(&exchange) {
            tracing::error!(error = %e, "failed to persist an exchange");
            self.emit(EngineEvent::Error {
                turn_id: Some(summary.turn_id.clone()),
                error: ModelError::new(
                    tack_protocol::ErrorKind::Config,
                    format!("could not save the exchange record: {e}"),
                ),
            });
        }
        self.emit(EngineEvent::ExchangeRecorded {
            turn_id: summary.turn_id.clone(),
            exchange: summary,
        });
    }

    /// Gives every tool call in history without an output an `aborted` output.
    pub(crate) fn close_unanswered_calls(&self, turn_id: Option<&str>) -> Result<(), EngineError> {
        self.close_calls_as(
            turn_id,
            "aborted: the session ended before this call produced output",
        )
    }

    /// [`Session::close_unanswered_calls`] with `text` as the outputs' text.
    fn close_calls_as(&self, turn_id: Option<&str>, text: &str) -> Result<(), EngineError> {
        let unanswered: Vec<String> = {
            let state = lock(&self.inner.state);
            let answered: HashSet<&str> = state
                .history
                .iter()
                .filter_map(|i| match i {
                    Item::ToolOutput(o) => Some(o.call_id.as_str()),
                    _ => None,
                })
                .collect();
            state
                .history
                .iter()
                .filter_map(Item::call_id)
                .filter(|c| !answered.contains(c))
                .map(str::to_string)
                .collect()
        };
        for call_id in unanswered {
            let item = Item::ToolOutput(ToolOutputItem {
                id: self.new_id("out"),
                call_id,
                output: ToolOutput::aborted(text),
            });
            self.record(turn_id, item)?;
        }
        Ok(())
    }

    pub(crate) fn take_queued(&self) -> Vec<String> {
        std::mem::take(&mut lock(&self.inner.state).queued)
    }

    pub(crate) fn has_queued(&self) -> bool {
        !lock(&self.inner.state).queued.is_empty()
    }

    pub(crate) fn finish_turn(&self) {
        let mut state = lock(&self.inner.state);
        state.turn = None;
        // Anything still waiting belonged to the turn that just ended.
        state.approvals.clear();
        state.questions.clear();
        drop(state);
        self.inner.running.send_replace(false);
    }
}

/// The output a resumed session gives a call left without one: Tack stopped (killed, crashed)
/// while the call waited or ran, and a command it had started may have outlived it.
const ENDED_WHILE_RUNNING: &str = "aborted: the session ended while this call was pending or \
     running, so its output was never recorded. If it had started, its command may have kept \
     running after that and its effects may be partial; check the workspace before relying \
     on them.";

/// Locks a mutex, recovering from poisoning: the data is plain state that stays consistent
/// because every critical section is short and panic-free.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// RFC 3339 UTC timestamp with milliseconds.
pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn new_session_id() -> String {
    format!(
        "{}-{}",
        chrono::Local::now().format("%Y%m%d-%H%M%S"),
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}

fn absolute_dir(dir: &Path) -> Result<PathBuf, EngineError> {
    let abs = std::fs::canonicalize(dir).map_err(|_| EngineError::Workspace(dir.to_path_buf()))?;
    if abs.is_dir() {
        Ok(abs)
    } else {
        Err(EngineError::Workspace(dir.to_path_buf()))
    }
}

fn unique_call_id(taken: &HashSet<String>, id: &str) -> String {
    let base = if id.is_empty() { "call" } else { id };
    if !taken.contains(base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}_{n}"))
        .find(|c| !taken.contains(c))
        .unwrap_or_else(|| base.to_string())
}

fn set_item_id(item: &mut Item, id: String) {
    match item {
        Item::Message(m) => m.id = id,
        Item::Reasoning(r) => r.id = id,
        Item::FunctionCall(c) => c.id = id,
        Item::CustomToolCall(c) => c.id = id,
        Item::LocalShellCall(c) => c.id = id,
        Item::ToolOutput(o) => o.id = id,
    }
}

fn set_call_id(item: &mut Item, id: String) {
    match item {
        Item::FunctionCall(c) => c.call_id = id,
        Item::CustomToolCall(c) => c.call_id = id,
        Item::LocalShellCall(c) => c.call_id = id,
        _ => {}
    }
}
