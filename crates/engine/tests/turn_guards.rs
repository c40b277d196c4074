//! The turn loop's guards against a model that goes round in circles, over real HTTP against
//! the replaying provider: the same call denied (or failing the same way) three times stops the
//! turn with `repeated_tool_call`, and the session's step limit stops it with `step_limit`.
//! Also: a session started with a base URL as its provider is resumed from its log.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use tack_engine::config::{Config, Paths};
use tack_engine::events::EventReceiver;
use tack_engine::log::{LoadedSession, LogRecord};
use tack_engine::resolve::{SessionRequest, resolve, resume_request};
use tack_engine::secrets::MemoryStore;
use tack_engine::session::{Engine, Session, SessionOptions};
use tack_protocol::{
    AbortReason, ApprovalDecision, ApprovalPolicy, EngineEvent, ErrorKind, Item, ModelError,
    ToolStatus,
};
use tack_tests::{ReplayProvider, ScriptedResponse, chat_sse};

/// Throwaway folders: config, data, and a workspace.
struct Folders {
    _root: tempfile::TempDir,
    paths: Paths,
    workspace: PathBuf,
}

fn folders() -> Folders {
    let root = tempfile::tempdir().unwrap();
    let paths = Paths {
        config_dir: root.path().join("config"),
        data_dir: root.path().join("data"),
    };
    let workspace = root.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let workspace = std::fs::canonicalize(workspace).unwrap();
    Folders {
        _root: root,
        paths,
        workspace,
    }
}

/// Options for a session on `base_url` (an ad-hoc provider) with the minimal harness, run
/// headless as `tack exec` without a terminal runs it.
fn options(f: &Folders, base_url: &str, approval: ApprovalPolicy) -> SessionOptions {
    let request = SessionRequest {
        cwd: f.workspace.clone(),
        provider: Some(base_url.to_string()),
        model: Some("test-model".into()),
        harness: Some("minimal".into()),
        approval: Some(approval),
        ..Default::default()
    };
    let engine = Engine::new(f.paths.clone()).unwrap();
    let mut options = resolve(
        &Config::default(),
        &engine.registry,
        &MemoryStore::default(),
        &request,
    )
    .unwrap()
    .options;
    options.interactive = false;
    options
}

/// Chat chunks of one tool call, its arguments exactly `arguments` (split in two fragments).
fn tool_call(id: &str, name: &str, arguments: &str) -> ScriptedResponse {
    let (a, b) = arguments.split_at(arguments.len() / 2);
    ScriptedResponse::sse(chat_sse(&[
        json!({"id": id, "model": "test-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}}]}),
        json!({"id": id, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": a}}]}}]}),
        json!({"id": id, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": b}}]}}]}),
        json!({"id": id, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ]))
}

fn answer(id: &str, text: &str) -> ScriptedResponse {
    ScriptedResponse::sse(chat_sse(&[
        json!({"id": id, "model": "test-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]}),
        json!({"id": id, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]))
}

/// Submits `task` and collects the events until the turn ends; every approval is denied the
/// way `tack exec` denies it when there is no terminal to ask.
async fn run_turn(session: &Session, events: &mut EventReceiver, task: &str) -> Vec<EngineEvent> {
    session.submit(task).unwrap();
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        if let EngineEvent::ApprovalRequested { request, .. } = &event {
            session
                .decide(
                    &request.id,
                    ApprovalDecision::Deny {
                        reason: "No terminal to ask the user for approval; the call was not run."
                            .into(),
                    },
                )
                .unwrap();
        }
        let end = matches!(
            event,
            EngineEvent::TurnCompleted { .. } | EngineEvent::TurnAborted { .. }
        );
        seen.push(event);
        if end {
            break;
        }
    }
    session.wait_idle().await;
    seen
}

fn the_error(events: &[EngineEvent]) -> ModelError {
    let errors: Vec<&ModelError> = events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::Error { error, .. } => Some(error),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1, "{events:#?}");
    errors[0].clone()
}

fn aborted_as_failed(events: &[EngineEvent]) -> bool {
    matches!(
        events.last(),
        Some(EngineEvent::TurnAborted {
            reason: AbortReason::Failed,
            ..
        })
    )
}

/// The `turn_ended` record of the log's only turn.
fn turn_ended(loaded: &LoadedSession) -> (String, Option<ModelError>) {
    let ended: Vec<(String, Option<ModelError>)> = loaded
        .records
        .iter()
        .filter_map(|r| match r {
            LogRecord::TurnEnded { status, error, .. } => Some((status.clone(), error.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(ended.len(), 1, "{:#?}", loaded.records);
    ended[0].clone()
}

fn outputs(items: &[Item]) -> Vec<(ToolStatus, String)> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::ToolOutput(o) => Some((o.output.status, o.output.text.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_call_denied_three_times_stops_the_turn_and_the_log_keeps_everything() {
    // What a small local model did headless: the same denied `mkdir` again and again. The
    // second call has its keys in another order: calls are compared as parsed JSON.
    let args = r#"{"command":"mkdir","timeout_ms":10}"#;
    let provider = ReplayProvider::start([
        tool_call("call_1", "shell", args),
        tool_call(
            "call_2",
            "shell",
            r#"{"timeout_ms": 10, "command": "mkdir"}"#,
        ),
        tool_call("call_3", "shell", args),
        answer("never", "This request must not be sent."),
    ]);
    let f = folders();
    let engine = Arc::new(Engine::new(f.paths.clone()).unwrap());
    let (session, mut events) = Session::create(
        engine,
        options(&f, &provider.url("/v1"), ApprovalPolicy::Untrusted),
    )
    .unwrap();
    let seen = run_turn(&session, &mut events, "Make a directory named build.").await;

    assert_eq!(
        provider.requests().len(),
        3,
        "no request after the third denial"
    );
    let approvals = seen
        .iter()
        .filter(|e| matches!(e, EngineEvent::ApprovalRequested { .. }))
        .count();
    assert_eq!(approvals, 3);
    assert!(
        !seen
            .iter()
            .any(|e| matches!(e, EngineEvent::ToolStarted { .. }))
    );
    let error = the_error(&seen);
    assert_eq!(error.kind, ErrorKind::RepeatedToolCall);
    assert_eq!(
        error.message,
        r#"the model repeated the denied call `shell {"command":"mkdir","timeout_ms":10}` 3 times; the turn stopped"#
    );
    assert_eq!(
        error.hint.as_deref(),
        Some("Approve it, change the approval policy, or rephrase the request.")
    );
    assert!(!error.retryable);
    assert!(aborted_as_failed(&seen));

    // The model was told before the last chance: the second denial's output, as sent in the
    // third request, says that one more stops the turn.
    let third: Value = provider.requests()[2].body_json().unwrap();
    let tool_messages: Vec<String> = third["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .collect();
    assert_eq!(tool_messages.len(), 2);
    assert!(!tool_messages[0].contains("stops the turn"));
    assert!(
        tool_messages[1].contains("denied 2 times in this turn"),
        "{}",
        tool_messages[1]
    );

    // The log holds the whole turn: the task, three calls, three denied outputs, and why it
    // ended.
    let loaded = LoadedSession::read(&session.log_path()).unwrap();
    let kinds: Vec<&str> = loaded
        .items
        .iter()
        .map(|i| match i {
            Item::Message(_) => "message",
            Item::FunctionCall(_) => "call",
            Item::ToolOutput(_) => "output",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "message", "call", "output", "call", "output", "call", "output"
        ]
    );
    let outs = outputs(&loaded.items);
    assert!(
        outs.iter().all(|(s, _)| *s == ToolStatus::Denied),
        "{outs:?}"
    );
    let (status, logged) = turn_ended(&loaded);
    assert_eq!(status, "failed");
    assert_eq!(logged, Some(error));
    assert!(loaded.unfinished_turn.is_none());
}

#[tokio::test]
async fn a_call_failing_the_same_way_three_times_stops_the_turn() {
    // `exit 3` fails identically every time; a different failing command in between does not
    // break the count (it is another call), and the first call's count is its own.
    let same = r#"{"command":"echo nope; exit 3"}"#;
    let provider = ReplayProvider::start([
        tool_call("call_1", "shell", same),
        tool_call("call_2", "shell", r#"{"command":"exit 4"}"#),
        tool_call("call_3", "shell", same),
        tool_call("call_4", "shell", same),
        answer("never", "This request must not be sent."),
    ]);
    let f = folders();
    let engine = Arc::new(Engine::new(f.paths.clone()).unwrap());
    let (session, mut events) = Session::create(
        engine,
        options(&f, &provider.url("/v1"), ApprovalPolicy::Never),
    )
    .unwrap();
    let seen = run_turn(&session, &mut events, "Run the check.").await;

    assert_eq!(provider.requests().len(), 4);
    let error = the_error(&seen);
    assert_eq!(error.kind, ErrorKind::RepeatedToolCall);
    assert!(
        error.message.starts_with(
            r#"the model repeated the call `shell {"command":"echo nope; exit 3"}` 3 times and it failed the same way each time"#
        ),
        "{}",
        error.message
    );
    let loaded = LoadedSession::read(&session.log_path()).unwrap();
    let outs = outputs(&loaded.items);
    assert_eq!(outs.len(), 4);
    assert!(
        outs.iter().all(|(s, _)| *s == ToolStatus::Failed),
        "{outs:?}"
    );
    assert_eq!(
        turn_ended(&loaded).1.map(|e| e.kind),
        Some(ErrorKind::RepeatedToolCall)
    );
}

#[tokio::test]
async fn the_step_limit_stops_the_turn_with_its_own_kind() {
    let provider = ReplayProvider::start([
        tool_call("call_1", "shell", r#"{"command":"echo one"}"#),
        tool_call("call_2", "shell", r#"{"command":"echo two"}"#),
        answer("never", "This request must not be sent."),
    ]);
    let f = folders();
    let engine = Arc::new(Engine::new(f.paths.clone()).unwrap());
    let mut opts = options(&f, &provider.url("/v1"), ApprovalPolicy::Never);
    assert_eq!(opts.max_steps, tack_engine::MAX_STEPS);
    opts.max_steps = 2;
    let (session, mut events) = Session::create(engine, opts).unwrap();
    let seen = run_turn(&session, &mut events, "Count.").await;

    assert_eq!(
        provider.requests().len(),
        2,
        "the limit is two model requests"
    );
    let error = the_error(&seen);
    assert_eq!(error.kind, ErrorKind::StepLimit);
    assert_eq!(
        serde_json::to_value(error.kind).unwrap(),
        json!("step_limit")
    );
    assert!(
        error.message.contains("after 2 model requests"),
        "{}",
        error.message
    );
    assert!(aborted_as_failed(&seen));
    // Both calls ran: the limit counts requests, not failures.
    let loaded = LoadedSession::read(&session.log_path()).unwrap();
    let outs = outputs(&loaded.items);
    assert_eq!(outs.len(), 2);
    assert!(
        outs.iter().all(|(s, _)| *s == ToolStatus::Completed),
        "{outs:?}"
    );
    let (status, logged) = turn_ended(&loaded);
    assert_eq!(status, "failed");
    assert_eq!(logged.map(|e| e.kind), Some(ErrorKind::StepLimit));
}

#[tokio::test]
async fn a_session_on_a_base_url_provider_resumes_from_its_log() {
    let provider = ReplayProvider::start([
        answer("c1", "First answer."),
        answer("c2", "Second answer."),
    ]);
    let f = folders();
    let url = provider.url("/v1");
    let engine = Arc::new(Engine::new(f.paths.clone()).unwrap());
    let (session, mut events) =
        Session::create(engine.clone(), options(&f, &url, ApprovalPolicy::Untrusted)).unwrap();
    run_turn(&session, &mut events, "hello").await;
    let path = session.log_path();
    drop(session);
    drop(events);

    // The log says how to reach the provider (and nothing secret).
    let loaded = LoadedSession::read(&path).unwrap();
    assert_eq!(loaded.settings.provider, "custom");
    assert_eq!(loaded.provider_url.as_deref(), Some(url.as_str()));

    // Reopening it with only the log and an empty config reaches the same server.
    let request = resume_request(&Config::default(), &loaded);
    let resolved = resolve(
        &Config::default(),
        &engine.registry,
        &MemoryStore::default(),
        &request,
    )
    .unwrap();
    assert_eq!(resolved.options.provider.base_url, url);
    assert_eq!(resolved.options.model, "test-model");
    assert_eq!(resolved.options.harness, "minimal");
    let (session, mut events) = Session::resume(engine, &path, resolved.options).unwrap();
    let seen = run_turn(&session, &mut events, "and again").await;
    assert!(
        matches!(seen.last(), Some(EngineEvent::TurnCompleted { .. })),
        "{seen:#?}"
    );
    let requests = provider.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[1].body_text().contains("First answer."));

    // Resumed again, still the URL (the `resumed` record carries it too).
    let reread = LoadedSession::read(&path).unwrap();
    assert_eq!(reread.provider_url.as_deref(), Some(url.as_str()));
    assert_eq!(reread.items.len(), 4);
}
