//! Saved sessions over Tauri's real IPC path (mock runtime, no display): a session started on
//! a base URL reopens after a restart, one whose provider is gone still shows its history, and
//! the sidebar's folder filter holds for a folder that was moved away.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_app::events::AppEvent;
use tack_app::state::AppState;
use tack_engine::config::Paths;
use tack_engine::log::{LOG_VERSION, LogRecord, SessionLog};
use tack_engine::secrets::MemoryStore;
use tack_protocol::{ApprovalPolicy, Item, Role, SessionSettings, Wire};
use tack_tests::{ReplayProvider, ScriptedResponse, chat_sse};
use tauri::Manager;
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;

/// One run of the app on the given folders.
struct App {
    webview: tauri::WebviewWindow<MockRuntime>,
    events: Arc<Mutex<Vec<Value>>>,
}

impl App {
    fn start(paths: &Paths) -> App {
        let events: Arc<Mutex<Vec<Value>>> = Arc::default();
        let sink = events.clone();
        let state = AppState::new(
            paths.clone(),
            Arc::new(MemoryStore::default()),
            Arc::new(move |event: AppEvent| {
                if let AppEvent::Engine(e) = event {
                    sink.lock().unwrap().push(serde_json::to_value(e).unwrap());
                }
            }),
        )
        .unwrap();
        let app = mock_builder()
            .invoke_handler(tack_app::specta_builder::<MockRuntime>().invoke_handler())
            .build(tauri::generate_context!())
            .unwrap();
        app.manage(state);
        let webview = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .unwrap();
        App { webview, events }
    }

    /// Quits as File → Quit does: running turns end, every session's log is let go.
    fn quit(self) {
        let state = self.webview.state::<AppState>();
        tauri::async_runtime::block_on(state.shutdown(Duration::from_secs(10)));
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

    /// Waits for the `n`-th `turn_completed` event.
    fn wait_for_turns(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let done = self
                .events
                .lock()
                .unwrap()
                .iter()
                .filter(|e| e["event"]["type"] == "turn_completed")
                .count();
            if done >= n {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{:?}",
                self.events.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn folders(root: &Path) -> (Paths, PathBuf) {
    let paths = Paths {
        config_dir: root.join("config"),
        data_dir: root.join("data"),
    };
    std::fs::create_dir_all(&paths.config_dir).unwrap();
    let workspace = root.join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    (paths, std::fs::canonicalize(workspace).unwrap())
}

fn answer(id: &str, text: &str) -> ScriptedResponse {
    ScriptedResponse::sse(chat_sse(&[
        json!({"id": id, "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]}),
        json!({"id": id, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]))
}

/// Writes a session log by hand: its settings and one user message.
fn write_log(paths: &Paths, id: &str, cwd: &str, provider: &str) {
    let path = paths.sessions_dir().join(format!("{id}.jsonl"));
    let mut log = SessionLog::create(
        &path,
        &LogRecord::SessionStarted {
            version: LOG_VERSION,
            session_id: id.into(),
            created_at: "2026-01-01T00:00:00Z".into(),
            settings: SessionSettings {
                cwd: cwd.into(),
                provider: provider.into(),
                model: "m".into(),
                wire: Wire::Chat,
                harness: "minimal".into(),
                approval: ApprovalPolicy::Untrusted,
                sandbox: Default::default(),
            },
            provider_url: None,
            seal: None,
        },
    )
    .unwrap();
    log.append(&LogRecord::Item {
        ts: "2026-01-01T00:00:01Z".into(),
        turn_id: None,
        item: Item::text(format!("msg-{id}"), Role::User, format!("question of {id}")),
    })
    .unwrap();
}

#[test]
fn a_session_started_on_a_base_url_reopens_after_a_restart() {
    let provider = ReplayProvider::start([answer("c1", "First."), answer("c2", "Second.")]);
    let root = tempfile::tempdir().unwrap();
    let (paths, workspace) = folders(root.path());
    let url = provider.url("/v1");

    let app = App::start(&paths);
    let view = app
        .invoke(
            "start_session",
            json!({"input": {"cwd": workspace, "providerId": url, "model": "test-model", "harness": "minimal", "approval": "untrusted"}}),
        )
        .unwrap();
    assert_eq!(view["settings"]["provider"], "custom");
    // The window names such a provider by its URL, which the view carries.
    assert_eq!(view["providerUrl"], url.as_str());
    let id = view["id"].as_str().unwrap().to_string();
    app.invoke("send_input", json!({"sessionId": id, "text": "hello"}))
        .unwrap();
    app.wait_for_turns(1);
    app.quit();

    // A new run of the app knows nothing of that URL but the session's log.
    let app = App::start(&paths);
    let view = app
        .invoke("resume_session", json!({"sessionId": id}))
        .unwrap();
    assert_eq!(view["items"].as_array().unwrap().len(), 2);
    assert_eq!(view["providerUrl"], url.as_str());
    app.invoke("send_input", json!({"sessionId": id, "text": "again"}))
        .unwrap();
    app.wait_for_turns(1);
    let requests = provider.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[1].body_text().contains("First."));
}

#[test]
fn a_session_whose_provider_is_gone_shows_its_history_and_says_why_on_send() {
    let root = tempfile::tempdir().unwrap();
    let (paths, workspace) = folders(root.path());
    write_log(&paths, "s-gone", &workspace.display().to_string(), "gone");

    let app = App::start(&paths);
    let view = app
        .invoke("resume_session", json!({"sessionId": "s-gone"}))
        .unwrap();
    assert_eq!(view["id"], "s-gone");
    assert_eq!(view["settings"]["provider"], "gone");
    assert!(view["providerUrl"].is_null(), "{view}");
    assert_eq!(view["running"], false);
    let items = view["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert!(items[0].to_string().contains("question of s-gone"));

    let err = app
        .invoke("send_input", json!({"sessionId": "s-gone", "text": "more"}))
        .unwrap_err();
    let message = err["message"].as_str().unwrap();
    assert!(message.contains("can't continue"), "{err}");
    assert!(message.contains("unknown provider `gone`"), "{err}");
    assert!(err["hint"].as_str().unwrap().contains("read-only"), "{err}");
    // Nothing was appended to the log by the failed attempts.
    let log = std::fs::read_to_string(paths.sessions_dir().join("s-gone.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 2);
}

#[test]
fn the_folder_filter_holds_for_a_folder_that_was_moved_away() {
    let root = tempfile::tempdir().unwrap();
    let (paths, workspace) = folders(root.path());
    let moved = root.path().join("moved-away");
    write_log(&paths, "s-here", &workspace.display().to_string(), "local");
    write_log(&paths, "s-moved", &moved.display().to_string(), "local");

    let app = App::start(&paths);
    let ids = |cwd: Value| -> Vec<String> {
        let mut ids: Vec<String> = app
            .invoke("list_sessions", json!({"cwd": cwd}))
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(Value::Null), ["s-here", "s-moved"]);
    assert_eq!(ids(json!(workspace)), ["s-here"]);
    assert_eq!(ids(json!(moved)), ["s-moved"]);
    assert!(ids(json!("/no/such/folder")).is_empty());
}
