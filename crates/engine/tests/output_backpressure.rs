//! Heavy output stays bounded end to end: real commands through `shell` (the live stream is
//! capped, an endless command is stopped at its output budget, a reader that stops reading
//! holds the command back instead of filling memory), a whole session over real HTTP with the
//! replaying provider (tool output and a flood of tiny model deltas coalesce; completed items
//! are never lost), and the configured longest time limit clamps what the model asks for in
//! `shell` and in the terminal's waits.
//!
//! Nothing here asserts a time: bounds are byte counts and event counts.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use tack_engine::config::{Config, Paths};
use tack_engine::events::{EventReceiver, MAX_OUTPUT_DELTA_BYTES};
use tack_engine::resolve::{SessionRequest, resolve, sandbox_status};
use tack_engine::secrets::MemoryStore;
use tack_engine::session::{Engine, Session};
use tack_engine::tools::{
    CommandLimits, LIVE_OUTPUT_BYTES, ShellTool, TerminalTool, ToolContext, ToolHandler, ToolInput,
    close_session_terminals,
};
use tack_protocol::{
    ApprovalPolicy, EngineEvent, Item, SandboxMode, ToolDetails, ToolOutput, ToolStatus,
};
use tack_tests::{ReplayProvider, ScriptedResponse, chat_sse};

async fn shell(ctx: &ToolContext, args: serde_json::Value) -> ToolOutput {
    match ShellTool::new().prepare(ToolInput::Json(args), ctx) {
        Ok(p) => p.run(ctx.clone()).await,
        Err(out) => out,
    }
}

/// A context whose live output is counted (bytes and calls).
fn counting(dir: &Path) -> (ToolContext, Arc<AtomicUsize>, Arc<Mutex<String>>) {
    let bytes = Arc::new(AtomicUsize::new(0));
    let last = Arc::new(Mutex::new(String::new()));
    let mut ctx = ToolContext::new(dir);
    let (b, l) = (bytes.clone(), last.clone());
    ctx.output = Arc::new(move |chunk: &str| {
        b.fetch_add(chunk.len(), Ordering::Relaxed);
        *l.lock().unwrap() = chunk.to_string();
    });
    (ctx, bytes, last)
}

#[tokio::test]
async fn live_output_stops_at_its_budget_and_says_how_much_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let (ctx, live, last) = counting(dir.path());
    let total = 16 * LIVE_OUTPUT_BYTES;
    let out = shell(&ctx, json!({"command": format!("yes | head -c {total}")})).await;
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    // The model's copy is the capped head and tail, with the count of what it left out.
    assert!(out.text.len() <= ctx.max_output_bytes, "{}", out.text.len());
    assert!(out.text.contains("of output omitted"), "{}", out.text);
    let Some(ToolDetails::Exec {
        truncated_bytes, ..
    }) = out.details
    else {
        panic!("exec details");
    };
    assert!(truncated_bytes as usize > total - ctx.max_output_bytes);
    // The live stream got its budget and, last, a note of the rest.
    let note = last.lock().unwrap().clone();
    let streamed = live.load(Ordering::Relaxed);
    assert!(
        streamed <= LIVE_OUTPUT_BYTES + note.len(),
        "{streamed} bytes streamed"
    );
    let not_shown = total - LIVE_OUTPUT_BYTES;
    assert!(
        note.contains(&format!(
            "{not_shown} more bytes of output were not shown live"
        )),
        "{note}"
    );
}

#[tokio::test]
async fn a_command_that_prints_without_end_is_stopped_at_its_output_budget() {
    let dir = tempfile::tempdir().unwrap();
    let (mut ctx, _, _) = counting(dir.path());
    ctx.limits.max_output_bytes = 8 << 20;
    // `yes` never ends on its own; only the budget (long before the timeout) stops it.
    let pid_file = dir.path().join("pid");
    let command = format!("echo $$ > {}; yes", pid_file.display());
    let out = shell(&ctx, json!({"command": command, "timeout_ms": 600_000})).await;
    assert_eq!(out.status, ToolStatus::Failed, "{}", out.text);
    assert!(
        out.text
            .contains("more than 8388608 bytes of output (max_command_output_bytes"),
        "{}",
        out.text
    );
    assert!(out.text.len() <= ctx.max_output_bytes + 400);
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .unwrap_or_default()
                .contains(") Z"),
        "the command's shell is gone"
    );
}

#[tokio::test]
async fn a_reader_that_stops_reading_holds_the_command_back() {
    let dir = tempfile::tempdir().unwrap();
    let (mut ctx, live, _) = counting(dir.path());
    let open = Arc::new(tokio::sync::Semaphore::new(0));
    let gate = open.clone();
    ctx.output_room = Arc::new(move || {
        let gate = gate.clone();
        Box::pin(async move {
            // Closed until the test opens it: a front end that is not reading.
            let _ = gate.acquire().await.map(|p| p.forget());
        })
    });
    let marker = dir.path().join("finished");
    let command = format!("yes | head -c 100000000; touch {}", marker.display());
    let run = tokio::spawn({
        let ctx = ctx.clone();
        async move { shell(&ctx, json!({"command": command})).await }
    });
    // Give the command every chance to run ahead: it cannot, its pipe is full.
    for _ in 0..20 {
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(!marker.exists(), "the command ran on while nobody read");
    assert_eq!(live.load(Ordering::Relaxed), 0);
    open.add_permits(usize::MAX >> 4);
    let out = run.await.unwrap();
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    assert!(marker.exists());
}

#[tokio::test]
async fn a_longer_time_limit_than_allowed_is_clamped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolContext::new(dir.path());
    ctx.limits = CommandLimits {
        max_timeout_ms: 300,
        ..CommandLimits::default()
    };
    let out = shell(
        &ctx,
        json!({"command": "sleep 30", "timeout_ms": 3_600_000}),
    )
    .await;
    assert_eq!(out.status, ToolStatus::TimedOut, "{}", out.text);
    assert!(
        out.text.contains(
            "the requested time limit of 3600000 ms is more than the maximum of 300 ms \
             (max_command_timeout_ms in config.toml); 300 ms was used"
        ),
        "{}",
        out.text
    );
    assert!(out.text.contains("timed out after 300 ms"), "{}", out.text);
    // Within the limit: no note.
    ctx.limits.max_timeout_ms = 60_000;
    let out = shell(&ctx, json!({"command": "echo hi", "timeout_ms": 30_000})).await;
    assert_eq!(out.text, "hi\n");
}

#[tokio::test]
async fn the_terminals_waits_are_clamped_to_the_longest_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolContext::new(dir.path());
    ctx.session_id = format!("test-clamp-{}", std::process::id());
    ctx.limits.max_timeout_ms = 200;
    let args = json!({"commands": [
        {"keystrokes": "echo one\n", "duration": 60},
        {"keystrokes": "echo two\n", "duration": 60},
    ]});
    let out = match TerminalTool::new().prepare(ToolInput::Json(args), &ctx) {
        Ok(p) => p.run(ctx.clone()).await,
        Err(out) => out,
    };
    close_session_terminals(&ctx.session_id);
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    assert!(
        out.text
            .contains("the requested time limit of 120000 ms is more than the maximum of 200 ms"),
        "{}",
        out.text
    );
}

// ----- whole sessions over real HTTP -----

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
    Folders {
        _root: root,
        paths,
        workspace,
    }
}

fn session(f: &Folders, url: &str) -> (Session, EventReceiver) {
    let engine = Arc::new(Engine::new(f.paths.clone()).unwrap());
    let request = SessionRequest {
        cwd: f.workspace.clone(),
        provider: Some(url.to_string()),
        model: Some("test-model".into()),
        harness: Some("minimal".into()),
        approval: Some(ApprovalPolicy::Never),
        ..Default::default()
    };
    let mut opts = resolve(
        &Config::default(),
        &engine.registry,
        &MemoryStore::default(),
        &request,
    )
    .unwrap()
    .options;
    opts.interactive = false;
    // What is measured is the event path, not containment.
    opts.sandbox = sandbox_status(SandboxMode::DangerFullAccess, false);
    Session::create(engine, opts).unwrap()
}

fn reply(pieces: &[String]) -> ScriptedResponse {
    let mut chunks = vec![
        json!({"id": "r", "model": "test-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
    ];
    chunks.extend(
        pieces
            .iter()
            .map(|p| json!({"id": "r", "choices": [{"index": 0, "delta": {"content": p}}]})),
    );
    chunks
        .push(json!({"id": "r", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    ScriptedResponse::sse(chat_sse(&chunks))
}

fn shell_call(command: &str) -> ScriptedResponse {
    let args = json!({"command": command}).to_string();
    ScriptedResponse::sse(chat_sse(&[
        json!({"id": "c", "model": "test-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "shell", "arguments": args}}]}}]}),
        json!({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ]))
}

async fn all_events(events: &mut EventReceiver) -> Vec<EngineEvent> {
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        let end = matches!(
            event,
            EngineEvent::TurnCompleted { .. } | EngineEvent::TurnAborted { .. }
        );
        seen.push(event);
        if end {
            break;
        }
    }
    seen
}

#[tokio::test]
async fn a_session_whose_front_end_reads_nothing_until_the_end_buffers_a_bounded_amount() {
    let total = 64 << 20;
    let provider = ReplayProvider::start([
        shell_call(&format!("yes | head -c {total}")),
        reply(&["Done.".to_string()]),
    ]);
    let f = folders();
    let (session, mut events) = session(&f, &provider.url("/v1"));
    session.submit("Print a lot.").unwrap();
    // Nobody reads while the turn runs: deltas coalesce, and the turn still finishes.
    session.wait_idle().await;
    let seen = all_events(&mut events).await;
    let stats = events.stats();
    let live: usize = seen
        .iter()
        .map(|e| match e {
            EngineEvent::ToolOutputDelta { chunk, .. } => chunk.len(),
            _ => 0,
        })
        .sum();
    assert!(
        live <= MAX_OUTPUT_DELTA_BYTES + 1024,
        "{live} bytes of deltas were buffered"
    );
    assert!(stats.peak_len < 64, "{stats:?}");
    // Every completed item and the turn's end are there, in order.
    let items: Vec<&Item> = seen
        .iter()
        .filter_map(|e| match e {
            EngineEvent::ItemCompleted { item, .. } => Some(item),
            _ => None,
        })
        .collect();
    let call = items
        .iter()
        .position(|i| matches!(i, Item::FunctionCall(_)))
        .expect("the call");
    let Some(Item::ToolOutput(output)) = items.get(call + 1) else {
        panic!("the call's output follows it: {items:?}");
    };
    assert!(
        matches!(items.last(), Some(Item::Message(m)) if m.role == tack_protocol::Role::Assistant),
        "{items:?}"
    );
    assert!(matches!(
        seen.last(),
        Some(EngineEvent::TurnCompleted { .. })
    ));
    assert_eq!(output.output.status, ToolStatus::Completed);
    assert!(output.output.text.len() <= tack_engine::MAX_TOOL_OUTPUT_BYTES);
}

#[tokio::test]
async fn a_flood_of_tiny_model_deltas_arrives_joined_whole_and_in_order() {
    let pieces: Vec<String> = (0..20_000).map(|i| format!("{} ", i % 10)).collect();
    let text: String = pieces.concat();
    let provider = ReplayProvider::start([reply(&pieces)]);
    let f = folders();
    let (session, mut events) = session(&f, &provider.url("/v1"));
    session.submit("Count.").unwrap();
    let seen = all_events(&mut events).await;
    let deltas: Vec<&str> = seen
        .iter()
        .filter_map(|e| match e {
            EngineEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas.concat(), text);
    assert!(
        deltas.len() < pieces.len() / 10,
        "{} deltas for {} pieces",
        deltas.len(),
        pieces.len()
    );
    // The text came before the message it makes up.
    let last_delta = seen
        .iter()
        .rposition(|e| matches!(e, EngineEvent::TextDelta { .. }))
        .unwrap();
    let message = seen
        .iter()
        .rposition(|e| matches!(e, EngineEvent::ItemCompleted { .. }))
        .unwrap();
    assert!(last_delta < message);
}
