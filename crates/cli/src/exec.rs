//! `tack exec`: a headless session. Engine events go to stdout as JSON Lines; approvals are
//! asked on the terminal, or denied when stdin is not a terminal (unless `--approval never`).

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use tack_engine::config::Paths;
use tack_engine::log::LoadedSession;
use tack_engine::resolve::{SessionRequest, resolve};
use tack_engine::secrets::{KeySource, KeychainStore};
use tack_engine::session::{Engine, Session, log_path};
use tack_protocol::{
    ApprovalAction, ApprovalDecision, ApprovalPolicy, ApprovalRequest, EngineEvent, Item, Wire,
};

use crate::ProviderArgs;

pub(crate) struct ExecArgs {
    pub config: Option<PathBuf>,
    pub provider: ProviderArgs,
    pub wire: Option<Wire>,
    pub approval: Option<ApprovalPolicy>,
    pub cwd: PathBuf,
    pub resume: Option<String>,
    pub seed: Option<PathBuf>,
    pub instructions: Option<String>,
    pub task: Option<String>,
}

pub(crate) async fn run(args: ExecArgs) -> Result<ExitCode, String> {
    let paths = Paths::from_env();
    let config = crate::load_config(args.config.clone())?;
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
    let mut req = SessionRequest {
        cwd: args.cwd.clone(),
        provider: args.provider.provider.clone(),
        model: args.provider.model.clone(),
        harness: args.provider.harness.clone(),
        wire: args.wire,
        approval: args.approval,
        api_key_env: args.provider.api_key_env.clone(),
        instructions: args.instructions.clone(),
    };
    if let Some(l) = &logged {
        let s = &l.settings;
        if args.cwd == Path::new(".") {
            req.cwd = PathBuf::from(&s.cwd);
        }
        req.provider.get_or_insert_with(|| s.provider.clone());
        req.model.get_or_insert_with(|| s.model.clone());
        req.harness.get_or_insert_with(|| s.harness.clone());
        req.approval.get_or_insert(s.approval);
        if req.wire.is_none() && req.provider.as_deref() == Some(s.provider.as_str()) {
            req.wire = Some(s.wire);
        }
    }
    let resolved =
        resolve(&config, &engine.registry, &KeychainStore, &req).map_err(|e| e.to_string())?;
    if resolved.key_source == KeySource::None && resolved.options.provider.env_key.is_some() {
        eprintln!(
            "tack: no API key for provider `{}` (keychain or ${}); requests will be sent without one",
            resolved.options.provider.id,
            resolved.options.provider.env_key.as_deref().unwrap_or("")
        );
    }
    let approval = resolved.options.approval;
    let interactive = std::io::stdin().is_terminal();
    let mut resolved = resolved;
    resolved.options.interactive = interactive;

    let (session, mut events) = match &resume_path {
        Some(p) => Session::resume(engine.clone(), p, resolved.options),
        None => Session::create(engine.clone(), resolved.options),
    }
    .map_err(|e| e.to_string())?;
    init_tracing(&session.log_path());
    eprintln!(
        "tack: session {} ({})",
        session.id(),
        session.log_path().display()
    );

    if let Some(seed) = &args.seed {
        let items = read_items(seed)?;
        session.seed(items).map_err(|e| e.to_string())?;
    }

    let Some(task) = args.task.clone() else {
        // Resume without a task: the log was repaired (interrupted calls closed); report it.
        while let Ok(ev) = events.try_recv() {
            print_event(&ev);
        }
        return Ok(ExitCode::SUCCESS);
    };
    session.submit(task).map_err(|e| e.to_string())?;

    let mut interrupted_once = false;
    loop {
        tokio::select! {
            ev = events.recv() => {
                let Some(ev) = ev else { return Ok(ExitCode::from(1)) };
                print_event(&ev);
                match &ev {
                    EngineEvent::ApprovalRequested { request, .. } => {
                        let decision = decide(request, interactive, approval).await;
                        if let Err(e) = session.decide(&request.id, decision) {
                            eprintln!("tack: {e}");
                        }
                    }
                    EngineEvent::QuestionAsked { request, .. } => {
                        let request = request.clone();
                        let answers = tokio::task::spawn_blocking(move || ask_questions(&request.questions))
                            .await
                            .unwrap_or(None);
                        if let Err(e) = session.answer(&request_id(&ev), answers) {
                            eprintln!("tack: {e}");
                        }
                    }
                    EngineEvent::TurnCompleted { .. } => return Ok(ExitCode::SUCCESS),
                    EngineEvent::TurnAborted { .. } => return Ok(ExitCode::from(1)),
                    _ => {}
                }
            }
            _ = tokio::signal::ctrl_c() => {
                if interrupted_once {
                    return Ok(ExitCode::from(130));
                }
                interrupted_once = true;
                eprintln!("tack: interrupting (press Ctrl-C again to quit)");
                session.interrupt();
            }
        }
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

fn ask_on_terminal(request: &ApprovalRequest) -> ApprovalDecision {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "\n── approval needed ({:?} risk): {}",
        request.risk, request.reason
    );
    match &request.action {
        ApprovalAction::Exec { command, cwd } => {
            let _ = writeln!(err, "   in {cwd}\n   $ {command}");
        }
        ApprovalAction::FileWrite { paths, diff } => {
            let _ = writeln!(err, "   write {}\n{diff}", paths.join(", "));
        }
    }
    let _ = write!(
        err,
        "   [y] approve once  [a] approve for this session  [n] deny  [q] abort turn > "
    );
    let _ = err.flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return ApprovalDecision::AbortTurn;
    }
    match line.trim() {
        "y" | "Y" | "yes" => ApprovalDecision::ApproveOnce,
        "a" | "A" => ApprovalDecision::ApproveForSession,
        "q" | "Q" => ApprovalDecision::AbortTurn,
        _ => {
            let _ = write!(err, "   reason (optional) > ");
            let _ = err.flush();
            let mut reason = String::new();
            let _ = std::io::stdin().lock().read_line(&mut reason);
            ApprovalDecision::Deny {
                reason: reason.trim().to_string(),
            }
        }
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
    let mut err = std::io::stderr().lock();
    let mut answers = Vec::new();
    for q in questions {
        let _ = writeln!(err, "\n── question: {}", q.question);
        for (i, o) in q.options.iter().enumerate() {
            let _ = writeln!(
                err,
                "   {}. {}{}",
                i + 1,
                o.label,
                o.description
                    .as_deref()
                    .map(|d| format!(" — {d}"))
                    .unwrap_or_default()
            );
        }
        let _ = write!(
            err,
            "   answer (number{} or text) > ",
            if q.multi_select {
                "s separated by commas"
            } else {
                ""
            }
        );
        let _ = err.flush();
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
