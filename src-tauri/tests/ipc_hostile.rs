//! The desktop app survives hostile input in one session while another works: two sessions
//! over Tauri's real IPC path (mock runtime), one fed something hostile, the other asked a
//! plain question that must complete. One test per kind of hostile input:
//! - a provider that streams a single 100 MB SSE line;
//! - a command with endless output (`yes`);
//! - a command nested 10,000 levels deep (the classifier must not overflow its stack);
//! - a provider that never answers.
//!
//! Each ends with the hostile session interrupted, and the app still answering IPC.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_app::events::AppEvent;
use tack_app::state::AppState;
use tack_engine::config::Paths;
use tack_engine::secrets::MemoryStore;
use tack_tests::{ReplayProvider, ScriptedResponse, chat_sse};
use tauri::Manager;
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;

/// How long an awaited event may take before the test fails (a bound, not a measurement).
const PATIENCE: Duration = Duration::from_secs(120);

struct Harness {
    _dir: tempfile::TempDir,
    webview: tauri::WebviewWindow<MockRuntime>,
    events: Arc<Mutex<Vec<Value>>>,
    workspace: std::path::PathBuf,
}

impl Harness {
    /// Providers `good` and `hostile`, each at its own replaying server.
    fn new(good: &str, hostile: &str) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths {
            config_dir: dir.path().join("config"),
            data_dir: dir.path().join("data"),
        };
        std::fs::create_dir_all(&paths.config_dir).unwrap();
        let provider = |id: &str, url: &str| {
            format!(
                "[[providers]]\nid = \"{id}\"\nname = \"{id}\"\nbase_url = \"{url}\"\nwire = \"chat\"\nenv_key = \"TACK_IPC_TEST_UNSET_KEY\"\nmodel = \"m\"\nharness = \"minimal\"\n\n"
            )
        };
        std::fs::write(
            paths.config_file(),
            provider("good", good) + &provider("hostile", hostile),
        )
        .unwrap();
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&workspace).unwrap();
        let events: Arc<Mutex<Vec<Value>>> = Arc::default();
        let sink = events.clone();
        let state = AppState::new(
            paths.clone(),
            Arc::new(MemoryStore::default()),
            Arc::new(move |event: AppEvent| {
                if let AppEvent::Engine(e) = event {
                    // Deltas are dropped here: the hostile ones can be huge, and the test
                    // looks only at turn ends and approvals.
                    let v = serde_json::to_value(e).unwrap();
                    let kind = v["event"]["type"].as_str().unwrap_or("").to_string();
                    if !kind.ends_with("_delta") {
                        sink.lock().unwrap().push(v);
                    }
                }
            }),
        )
        .unwrap();
        let mut context = tauri::generate_context!();
        context.config_mut().app.windows.clear();
        let app = mock_builder()
            .invoke_handler(tack_app::specta_builder::<MockRuntime>().invoke_handler())
            .build(context)
            .unwrap();
        app.manage(state);
        let webview = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .unwrap();
        // The app is kept alive by its window for the test's length.
        std::mem::forget(app);
        Harness {
            _dir: dir,
            webview,
            events,
            workspace: std::fs::canonicalize(workspace).unwrap(),
        }
    }

    fn invoke(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        get_ipc_response(
            &self.webview,
            InvokeRequest {
                cmd: cmd.into(),
                callback: tauri::ipc::CallbackFn(0),
                error: tauri::ipc::CallbackFn(1),
                url: "tauri://localhost".parse().unwrap(),
                body: tauri::ipc::InvokeBody::Json(args),
                headers: Default::default(),
                invoke_key: INVOKE_KEY.to_string(),
            },
        )
        .map(|body| body.deserialize::<Value>().unwrap())
    }

    fn start(&self, provider: &str, approval: &str) -> String {
        let view = self
            .invoke(
                "start_session",
                json!({"input": {"cwd": self.workspace, "providerId": provider, "model": null, "harness": null, "approval": approval, "sandbox": "danger-full-access"}}),
            )
            .unwrap();
        view["id"].as_str().unwrap().to_string()
    }

    fn send(&self, session: &str, text: &str) {
        self.invoke("send_input", json!({"sessionId": session, "text": text}))
            .unwrap();
    }

    /// Waits for an event of `kind` in `session`; returns it.
    fn wait_for(&self, session: &str, kind: &str) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(e) = self
                .events
                .lock()
                .unwrap()
                .iter()
                .find(|e| e["sessionId"] == session && e["event"]["type"] == kind)
            {
                return e.clone();
            }
            assert!(Instant::now() < deadline, "no `{kind}` event in {session}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn answer(text: &str) -> ScriptedResponse {
    ScriptedResponse::sse(chat_sse(&[
        json!({"id": "g", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]}),
        json!({"id": "g", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]))
}

fn shell_call(command: &str) -> ScriptedResponse {
    let args = json!({"command": command}).to_string();
    ScriptedResponse::sse(chat_sse(&[
        json!({"id": "h", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "shell", "arguments": args}}]}}]}),
        json!({"id": "h", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ]))
}

/// Runs the scenario: the hostile session is sent its input first, then the good one must
/// complete a turn; then the hostile one is interrupted (or denied) and the app still
/// answers.
fn survive(hostile: Vec<ScriptedResponse>, approval: &str) {
    let good = ReplayProvider::start([answer("All good.")]);
    let bad = ReplayProvider::start(hostile);
    let h = Harness::new(&good.url("/v1"), &bad.url("/v1"));
    let hostile_id = h.start("hostile", approval);
    let good_id = h.start("good", "untrusted");
    h.send(&hostile_id, "do the hostile thing");
    // Let the hostile input arrive before the good session starts.
    let deadline = Instant::now() + PATIENCE;
    while bad.requests().is_empty() {
        assert!(Instant::now() < deadline, "the hostile request never came");
        std::thread::sleep(Duration::from_millis(20));
    }
    h.send(&good_id, "a plain question");
    h.wait_for(&good_id, "turn_completed");
    let view = h
        .invoke("resume_session", json!({"sessionId": good_id}))
        .unwrap();
    let last = view["items"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["content"][0]["text"], "All good.", "{last}");

    // A pending approval (the nested command) is denied; anything running is interrupted.
    if let Some(req) = h
        .events
        .lock()
        .unwrap()
        .iter()
        .find(|e| e["sessionId"] == hostile_id && e["event"]["type"] == "approval_requested")
        .cloned()
    {
        let id = req["event"]["request"]["id"].as_str().unwrap().to_string();
        let _ = h.invoke(
            "decide_approval",
            json!({"sessionId": hostile_id, "approvalId": id, "decision": {"type": "abort_turn"}}),
        );
    }
    h.invoke("interrupt", json!({"sessionId": hostile_id}))
        .unwrap();
    let deadline = Instant::now() + PATIENCE;
    loop {
        let ended = h.events.lock().unwrap().iter().any(|e| {
            e["sessionId"] == hostile_id
                && (e["event"]["type"] == "turn_aborted" || e["event"]["type"] == "turn_completed")
        });
        if ended {
            break;
        }
        assert!(Instant::now() < deadline, "the hostile turn never ended");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Still answering.
    h.invoke("list_sessions", json!({})).unwrap();
}

#[test]
fn a_100_mb_sse_line_in_one_session_leaves_the_other_working() {
    let mut body =
        b"data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"".to_vec();
    body.resize(body.len() + 100 * 1024 * 1024, b'a');
    body.extend_from_slice(b"\"}}]}\n\n");
    survive(
        vec![ScriptedResponse::sse(body).split_every(1024 * 1024)],
        "untrusted",
    );
}

#[test]
fn endless_command_output_in_one_session_leaves_the_other_working() {
    survive(vec![shell_call("yes"), answer("done")], "never");
}

#[test]
fn a_command_nested_10000_deep_leaves_the_other_working() {
    let nested = format!("{}true{}", "$(".repeat(10_000), ")".repeat(10_000));
    survive(vec![shell_call(&nested), answer("done")], "untrusted");
}

#[test]
fn a_provider_that_hangs_in_one_session_leaves_the_other_working() {
    survive(vec![ScriptedResponse::hang()], "untrusted");
}
