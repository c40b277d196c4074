//! `tack exec`: a headless session. Engine events go to stdout as JSON Lines; approvals are
//! asked on the terminal, or denied when stdin is not a terminal (unless `--approval never`).
//!
//! SIGINT, SIGTERM and SIGHUP interrupt the turn alike (a running command's process group is
//! stopped and its output saved) and exit with 130, 143 or 129; Ctrl-C or end of input at an
//! approval prompt aborts the turn.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use tack_engine::config::Paths;
use tack_engine::log::LoadedSession;
use tack_engine::log::{HeaderChange, LogError};
use tack_engine::resolve::SessionRequest;
use tack_engine::secrets::{KeySource, KeychainStore};
use tack_engine::session::{Engine, EngineError, Session, log_path};
use tack_protocol::{
    ApprovalAction, ApprovalDecision, ApprovalPolicy, ApprovalRequest, EngineEvent, Item, Wire,
};

use crate::ProviderArgs;

pub(crate) struct ExecArgs {
    pub config: Option<PathBuf>,
    pub provider: ProviderArgs,
    pub wire: Option<Wire>,
    pub approval: Option<ApprovalPolicy>,
    /// Sandbox mode for commands (`None`: the config's, else workspace-write).
    pub sandbox: Option<tack_protocol::SandboxMode>,
    /// Network for sandboxed commands (`None`: the config's, else off).
    pub network: Option<bool>,
    pub cwd: PathBuf,
    pub resume: Option<String>,
    /// Resume even though the log's header was edited by hand.
    pub accept_changed_header: bool,
    pub seed: Option<PathBuf>,
    pub instructions: Option<String>,
    pub task: Option<String>,
    /// Most model requests per turn (`None`: the engine's default).
    pub max_steps: Option<u32>,
}

pub(crate) async fn run(args: ExecArgs) -> Result<ExitCode, String> {
    // Installed first: a SIGTERM from here on interrupts the turn instead of killing Tack
    // with a command still running.
    let mut stops = StopSignals::install()?;
    let paths = Paths::from_env();
    let config_file = crate::config_path(args.config.clone());
    let config = crate::load_config(Some(config_file.clone()))?;
    let engine = Arc::new(Engine::new(paths.clone()).map_err(|e| e.to_string())?);

    // Resuming: take the logged settings unless flags override them.
    let resume_path = args
        .resume
        .as_deref()
        .map(|r| resolve_session_path(&paths, r))
        .transpose()?;
    let logged = resume_path
        .as_deref()
        .map(|p| LoadedSession::read(p).map_err(|e| e.to_string()))
        .transpose()?;
    if let (Some(p), Some(l)) = (&resume_path, &logged) {
        // Before anything else: another writer, or a header edited by hand, stops here.
        if let Some(pid) = tack_engine::log::SessionLog::writer(p) {
            return Err(locked_message(&l.session_id, pid));
        }
        if !l.header_changes.is_empty() && !args.accept_changed_header {
            return Err(changed_header_message(&l.session_id, &l.header_changes));
        }
    }
    let mut req = SessionRequest {
        cwd: args.cwd.clone(),
        provider: args.provider.provider.clone(),
        model: args.provider.model.clone(),
        harness: args.provider.harness.clone(),
        wire: args.wire,
        approval: args.approval,
        sandbox: args.sandbox,
        network: args.network,
        api_key_env: args.provider.api_key_env.clone(),
        instructions: args.instructions.clone(),
    };
    if let Some(l) = &logged {
        let s = &l.settings;
        if args.cwd == Path::new(".") {
            req.cwd = PathBuf::from(&s.cwd);
        }
        // A provider given as a base URL comes back from the URL the log recorded.
        let logged_provider = tack_engine::resolve::logged_provider(&config, l);
        req.provider.get_or_insert_with(|| logged_provider.clone());
        req.model.get_or_insert_with(|| s.model.clone());
        req.harness.get_or_insert_with(|| s.harness.clone());
        req.approval.get_or_insert(s.approval);
        req.sandbox.get_or_insert(s.sandbox.mode);
        req.network.get_or_insert(s.sandbox.network);
        if req.wire.is_none() && req.provider.as_deref() == Some(logged_provider.as_str()) {
            req.wire = Some(s.wire);
        }
    }
    let resolved = crate::resolve_session(
        &config,
        &config_file,
        &engine.registry,
        &KeychainStore,
        &req,
    )?;
    if resolved.key_source == KeySource::None
        && let Some(var) =
            req.api_key_env
                .as_deref()
                .or(resolved.options.provider.env_key.as_deref())
    {
        let provider = &resolved.options.provider.id;
        // A base URL given on the command line may well be a local server without keys: its
        // generic $TACK_API_KEY is optional unless the user named a variable.
        let ad_hoc = req
            .provider
            .as_deref()
            .is_some_and(|p| p.starts_with("http://") || p.starts_with("https://"));
        if ad_hoc && req.api_key_env.is_none() {
            eprintln!(
                "tack: no API key for `{}` (${var} is not set); requests will be sent without one",
                resolved.options.provider.base_url
            );
        } else if args.task.is_some() {
            // Nothing is sent without a task (a resume that only repairs the log).
            return Err(format!(
                "provider `{provider}` needs an API key and none was found: set ${var} (e.g. `export {var}=…`), \
                 or store the key in the OS keychain from the desktop app (File → Providers and Keys…)"
            ));
        }
    }
    let approval = resolved.options.approval;
    let interactive = std::io::stdin().is_terminal();
    let mut resolved = resolved;
    resolved.options.interactive = interactive;
    if let Some(max_steps) = args.max_steps {
        resolved.options.max_steps = max_steps;
    }

    let (session, mut events) = match &resume_path {
        Some(p) if args.accept_changed_header => {
            Session::resume_accepting(engine.clone(), p, resolved.options)
        }
        Some(p) => Session::resume(engine.clone(), p, resolved.options),
        None => Session::create(engine.clone(), resolved.options),
    }
    .map_err(|e| match e {
        // Lost the race with another writer after the check above.
        EngineError::Log(LogError::Locked { session, pid, .. }) => locked_message(&session, pid),
        EngineError::HeaderChanged(changes) => changed_header_message(
            logged.as_ref().map_or("", |l| l.session_id.as_str()),
            &changes,
        ),
        e => e.to_string(),
    })?;
    init_tracing(&session.log_path());
    // The turn's tasks may outlive this function (the runtime is shut down in the
    // background), so the session's scratch folder and terminals are freed here.
    let _release = Release(session.clone());
    eprintln!(
        "tack: session {} ({})",
        session.id(),
        session.log_path().display()
    );
    // Which containment commands get, before anything runs (also in the first event,
    // `session_configured`, as `settings.sandbox`).
    let sandbox = session.settings().sandbox;
    eprintln!(
        "tack: sandbox: {} ({}, network {}) · approval: {}",
        sandbox.mode,
        sandbox.summary,
        if sandbox.network { "on" } else { "off" },
        session.settings().approval
    );

    if let Some(seed) = &args.seed {
        let items = read_items(seed)?;
        session.seed(items).map_err(|e| e.to_string())?;
    }

    let Some(task) = args.task.clone() else {
        // Resume without a task: the log was repaired (interrupted calls closed); report it.
        while let Some(ev) = events.try_recv() {
            print_event(&ev);
        }
        return Ok(ExitCode::SUCCESS);
    };
    session.submit(task).map_err(|e| e.to_string())?;

    // The first SIGINT/SIGTERM/SIGHUP interrupts the turn (a running command's process group
    // is stopped and its output saved); the turn's end then exits with 128 + the signal's
    // number. A second one exits at once.
    let mut stopped: Option<Stop> = None;
    let exit = |stopped: Option<Stop>, otherwise: u8| {
        ExitCode::from(stopped.map_or(otherwise, Stop::exit_code))
    };
    loop {
        tokio::select! {
            ev = events.recv() => {
                let Some(ev) = ev else { return Ok(exit(stopped, 1)) };
                print_event(&ev);
                match &ev {
                    EngineEvent::ApprovalRequested { request, .. } => {
                        let decision = tokio::select! {
                            decision = decide(request, interactive, approval) => decision,
                            stop = stops.recv() => {
                                // Ctrl-C at the prompt is the `q` answer.
                                eprintln!("\ntack: {} at the approval prompt; aborting the turn", stop.name());
                                stopped = Some(stop);
                                ApprovalDecision::AbortTurn
                            }
                        };
                        if let Err(e) = session.decide(&request.id, decision) {
                            eprintln!("tack: {e}");
                        }
                    }
                    EngineEvent::QuestionAsked { request, .. } => {
                        let request = request.clone();
                        let asked = tokio::task::spawn_blocking(move || ask_questions(&request.questions));
                        tokio::select! {
                            answers = asked => {
                                if let Err(e) = session.answer(&request_id(&ev), answers.unwrap_or(None)) {
                                    eprintln!("tack: {e}");
                                }
                            }
                            stop = stops.recv() => {
                                eprintln!("\ntack: {}; interrupting the turn", stop.name());
                                stopped = Some(stop);
                                session.interrupt();
                            }
                        }
                    }
                    // stdout is the JSON event stream; people read stderr.
                    EngineEvent::Error { error, .. } => {
                        eprintln!("tack: {}", error.message);
                        if let Some(hint) = &error.hint {
                            eprintln!("tack: {hint}");
                        }
                    }
                    EngineEvent::TurnCompleted { .. } => return Ok(exit(stopped, 0)),
                    EngineEvent::TurnAborted { .. } => return Ok(exit(stopped, 1)),
                    _ => {}
                }
            }
            stop = stops.recv() => {
                if stopped.is_some() {
                    return Ok(ExitCode::from(stop.exit_code()));
                }
                stopped = Some(stop);
                eprintln!("tack: {}: interrupting the turn (send it again to quit at once)", stop.name());
                session.interrupt();
            }
        }
    }
}

/// A signal that stops `tack exec`.
#[derive(Clone, Copy, Debug)]
enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM (`kill`, service managers).
    Terminate,
    /// SIGHUP (the terminal went away).
    Hangup,
}

impl Stop {
    fn name(self) -> &'static str {
        match self {
            Stop::Interrupt => "SIGINT",
            Stop::Terminate => "SIGTERM",
            Stop::Hangup => "SIGHUP",
        }
    }

    /// The shell's convention for a process ended by a signal: 128 + its number.
    fn exit_code(self) -> u8 {
        match self {
            Stop::Interrupt => 130,
            Stop::Terminate => 143,
            Stop::Hangup => 129,
        }
    }
}

/// Listeners for the stopping signals, installed once so that a signal arriving while
/// nothing polls them (at a prompt, say) is still delivered on the next [`StopSignals::recv`].
struct StopSignals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
    hangup: tokio::signal::unix::Signal,
}

impl StopSignals {
    fn install() -> Result<StopSignals, String> {
        use tokio::signal::unix::{SignalKind, signal};
        let listen =
            |kind: SignalKind| signal(kind).map_err(|e| format!("cannot listen for signals: {e}"));
        Ok(StopSignals {
            interrupt: listen(SignalKind::interrupt())?,
            terminate: listen(SignalKind::terminate())?,
            hangup: listen(SignalKind::hangup())?,
        })
    }

    /// The next stopping signal.
    async fn recv(&mut self) -> Stop {
        tokio::select! {
            Some(()) = self.interrupt.recv() => Stop::Interrupt,
            Some(()) = self.terminate.recv() => Stop::Terminate,
            Some(()) = self.hangup.recv() => Stop::Hangup,
            // The signal driver is gone (the runtime is shutting down): nothing will come.
            else => std::future::pending().await,
        }
    }
}

/// Frees the session's resources when `run` returns, whichever way.
struct Release(Session);

impl Drop for Release {
    fn drop(&mut self) {
        self.0.release();
    }
}

fn print_event(ev: &EngineEvent) {
    let line = serde_json::to_string(ev)
        .unwrap_or_else(|e| format!("{{\"type\":\"error\",\"message\":\"{e}\"}}"));
    let mut out = std::io::stdout().lock();
    // A closed stdout (e.g. `| head`) must not kill the session mid-turn.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

async fn decide(
    request: &ApprovalRequest,
    interactive: bool,
    policy: ApprovalPolicy,
) -> ApprovalDecision {
    if !interactive {
        return ApprovalDecision::Deny {
            reason: format!(
                "No terminal to ask the user for approval ({}); the call was not run. The session runs with --approval {policy}.",
                request.reason
            ),
        };
    }
    let request = request.clone();
    tokio::task::spawn_blocking(move || ask_on_terminal(&request))
        .await
        .unwrap_or(ApprovalDecision::AbortTurn)
}

/// Writes `text` to stderr at once. The lock is never held while a prompt waits for input:
/// a signal arriving meanwhile is reported on stderr from another thread.
fn show(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

fn ask_on_terminal(request: &ApprovalRequest) -> ApprovalDecision {
    // Everything the model had a hand in (command, paths, diff, reason) goes through
    // `visible`: an escape sequence in a command would otherwise redraw this very prompt.
    let mut prompt = format!(
        "\n── approval needed ({:?} risk): {}\n",
        request.risk,
        shown(&request.reason, "   ")
    );
    match &request.action {
        ApprovalAction::Exec { command, cwd } => {
            prompt.push_str(&format!(
                "   in {}\n   $ {}\n",
                shown(cwd, "     "),
                shown(command, "     ")
            ));
        }
        ApprovalAction::FileWrite { paths, diff } => {
            let paths: Vec<String> = paths.iter().map(|p| shown(p, "     ")).collect();
            prompt.push_str(&format!(
                "   write {}\n{}\n",
                paths.join(", "),
                shown_diff(diff)
            ));
        }
    }
    // Where it runs once approved: the answer means something different inside and out.
    prompt.push_str(&match (&request.escalation, request.sandbox) {
        (Some(refused), _) => format!(
            "   the sandbox refused: {}\n   approving runs it again WITHOUT a sandbox\n",
            shown(refused, "     ")
        ),
        (None, Some(mode)) => format!("   runs in the {mode} sandbox\n"),
        (None, None) => "   runs WITHOUT a sandbox\n".to_string(),
    });
    prompt.push_str(if request.offer_session {
        "   [y] approve once  [a] approve for this session  [n] deny  [q] abort turn > "
    } else {
        "   [y] approve once  [n] deny  [q] abort turn > "
    });
    show(&prompt);
    // Only a clear answer decides: anything else ("Yes!", a stray Enter) asks again, so a
    // typo neither runs the command nor denies it.
    let answer = loop {
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) => {
                // Ctrl-D: nobody is left to answer, so nothing runs and nothing more is asked.
                show("\ntack: end of input at the approval prompt; aborting the turn\n");
                return ApprovalDecision::AbortTurn;
            }
            Ok(_) => {}
            Err(e) => {
                show(&format!(
                    "\ntack: cannot read the answer ({e}); aborting the turn\n"
                ));
                return ApprovalDecision::AbortTurn;
            }
        }
        match parse_answer(&line) {
            // High-risk actions are not offered "for this session": `a` is no answer then.
            Some('a') if !request.offer_session => show("   answer y, n or q > "),
            Some(answer) => break answer,
            None if request.offer_session => show("   answer y, a, n or q > "),
            None => show("   answer y, n or q > "),
        }
    };
    match answer {
        'y' => ApprovalDecision::ApproveOnce,
        'a' => ApprovalDecision::ApproveForSession,
        'q' => ApprovalDecision::AbortTurn,
        _ => {
            show("   reason (optional) > ");
            let mut reason = String::new();
            let _ = std::io::stdin().lock().read_line(&mut reason);
            ApprovalDecision::Deny {
                reason: reason.trim().to_string(),
            }
        }
    }
}

/// `text` as [`tack_protocol::visible`] shows it, with the lines after the first indented by
/// `indent` so a multi-line command stays inside its block instead of passing for prompt text.
fn shown(text: &str, indent: &str) -> String {
    tack_protocol::visible(text).replace('\n', &format!("\n{indent}"))
}

/// A diff line by line through [`tack_protocol::visible`]: its own line breaks stay line
/// breaks (they are the diff's structure), everything else in a line is shown, not
/// interpreted.
fn shown_diff(diff: &str) -> String {
    diff.split('\n')
        .map(tack_protocol::visible)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The approval prompt's answer in `line`: `y`/`yes`, `a`/`always`, `n`/`no`, `q`/`quit`/
/// `abort` (any case, surrounding spaces ignored) as `'y'`, `'a'`, `'n'`, `'q'`; `None` for
/// anything else.
fn parse_answer(line: &str) -> Option<char> {
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Some('y'),
        "a" | "always" => Some('a'),
        "n" | "no" => Some('n'),
        "q" | "quit" | "abort" => Some('q'),
        _ => None,
    }
}

fn request_id(ev: &EngineEvent) -> String {
    match ev {
        EngineEvent::QuestionAsked { request, .. } => request.id.clone(),
        _ => String::new(),
    }
}

/// Asks questions on the terminal; an empty line for every question counts as dismissing.
fn ask_questions(
    questions: &[tack_protocol::Question],
) -> Option<Vec<tack_protocol::QuestionAnswer>> {
    let mut answers = Vec::new();
    for q in questions {
        let mut prompt = format!("\n── question: {}\n", shown(&q.question, "   "));
        for (i, o) in q.options.iter().enumerate() {
            prompt.push_str(&format!(
                "   {}. {}{}\n",
                i + 1,
                shown(&o.label, "      "),
                o.description
                    .as_deref()
                    .map(|d| format!(" — {}", shown(d, "      ")))
                    .unwrap_or_default()
            ));
        }
        prompt.push_str(&format!(
            "   answer (number{} or text) > ",
            if q.multi_select {
                "s separated by commas"
            } else {
                ""
            }
        ));
        show(&prompt);
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line).is_err() {
            return None;
        }
        let picked: Vec<String> = line
            .trim()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| match s.parse::<usize>() {
                Ok(n) if n >= 1 && n <= q.options.len() => q.options[n - 1].label.clone(),
                _ => s.to_string(),
            })
            .collect();
        answers.push(tack_protocol::QuestionAnswer {
            question: q.question.clone(),
            answers: picked,
        });
    }
    if answers.iter().all(|a| a.answers.is_empty()) {
        None
    } else {
        Some(answers)
    }
}

/// A session log path, or a session id under the sessions folder.
fn resolve_session_path(paths: &Paths, arg: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(arg);
    if p.is_file() {
        return Ok(p);
    }
    let by_id = log_path(&paths.sessions_dir(), arg);
    if by_id.is_file() {
        return Ok(by_id);
    }
    Err(format!(
        "no session log at `{arg}` nor a session with that id in {}",
        paths.sessions_dir().display()
    ))
}

/// Items from a JSON Lines file: either bare items, or a session log (its `item` records).
pub(crate) fn read_items(path: &Path) -> Result<Vec<Item>, String> {
    if let Ok(loaded) = LoadedSession::read(path) {
        return Ok(loaded.items);
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str::<Item>(l)
                .map_err(|e| format!("{}:{}: not an item: {e}", path.display(), i + 1))
        })
        .collect()
}

/// Diagnostics go to `<session>.log` beside the session log (`TACK_LOG` sets the filter,
/// default `info`). Secrets never reach it: headers are redacted before they are logged and
/// keys are only held in types that format as `[REDACTED]`.
fn init_tracing(session_log: &Path) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let Some(dir) = session_log.parent() else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("TACK_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(tack_engine::diagnostics::SessionLogLayer::new(dir))
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::parse_answer;

    #[test]
    fn only_clear_answers_decide() {
        for (line, want) in [
            ("y\n", Some('y')),
            (" YES ", Some('y')),
            ("a", Some('a')),
            ("always", Some('a')),
            ("n\n", Some('n')),
            ("No", Some('n')),
            ("q", Some('q')),
            ("abort", Some('q')),
            ("", None),
            ("\n", None),
            ("Yes!", None),
            ("zzz", None),
        ] {
            assert_eq!(parse_answer(line), want, "{line:?}");
        }
    }
}

/// The error for a session another process writes: who, and what to do.
fn locked_message(session: &str, pid: Option<u32>) -> String {
    let who = pid.map_or_else(String::new, |p| format!(" (pid {p})"));
    let stop = pid.map_or_else(
        || "stop it".to_string(),
        |p| format!("stop it (`kill -INT {p}` interrupts its turn)"),
    );
    format!(
        "session {session} is open in another process{who}: one process at a time writes a session. \
         Wait for it to finish or {stop}, or close it in the window, then resume again; \
         `tack sessions` and the window can read it meanwhile"
    )
}

/// The error for a log whose header was edited: each change, and the flag that accepts them.
fn changed_header_message(session: &str, changes: &[HeaderChange]) -> String {
    let mut out = format!(
        "the header of session {session} was edited since Tack wrote it; not resuming with settings nobody approved:"
    );
    for c in changes {
        out.push_str(&format!("\n  {c}"));
    }
    out.push_str(
        "\nundo the edit, or resume with --accept-changed-header to take the settings as they are now",
    );
    out
}
