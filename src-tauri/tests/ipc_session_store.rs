//! The session store as the window sees it, over Tauri's real IPC path (mock runtime): a
//! session another process writes opens read-only with the reason for its banner, and a log
//! whose header was edited by hand is opened only once the user accepts the listed changes.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code, unused_imports)]

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

fn turn(app: &App, workspace: &Path, url: &str) -> String {
    let view = app
        .invoke(
            "start_session",
            json!({"input": {"cwd": workspace, "providerId": url, "model": "test-model", "harness": "minimal", "approval": "untrusted"}}),
        )
        .unwrap();
    let id = view["id"].as_str().unwrap().to_string();
    app.invoke("send_input", json!({"sessionId": id, "text": "hello"}))
        .unwrap();
    app.wait_for_turns(1);
    id
}

#[test]
fn a_session_another_process_writes_opens_read_only_with_the_reason() {
    let provider = ReplayProvider::start([answer("c1", "First.")]);
    let root = tempfile::tempdir().unwrap();
    let (paths, workspace) = folders(root.path());
    let app = App::start(&paths);
    let id = turn(&app, &workspace, &provider.url("/v1"));

    // Another writer (here: the log held open as `tack exec` would hold it).
    let log = tack_engine::session::log_path(&paths.sessions_dir(), &id);
    let other = App::start(&paths);
    app.quit();
    let holder = SessionLog::open(&log).unwrap();
    let view = other
        .invoke("resume_session", json!({"sessionId": id}))
        .unwrap();
    let reason = view["readOnly"].as_str().unwrap();
    assert!(
        reason.contains(&format!(
            "session {id} is open in another process (pid {})",
            std::process::id()
        )),
        "{reason}"
    );
    assert_eq!(view["items"].as_array().unwrap().len(), 2);
    let before = std::fs::read(&log).unwrap();
    assert!(
        other
            .invoke("send_input", json!({"sessionId": id, "text": "more"}))
            .is_err()
    );
    assert_eq!(
        std::fs::read(&log).unwrap(),
        before,
        "a read-only view wrote"
    );
    drop(holder);
}

#[test]
fn an_edited_header_is_listed_and_opens_only_when_accepted() {
    let provider = ReplayProvider::start([answer("c1", "First.")]);
    let root = tempfile::tempdir().unwrap();
    let (paths, workspace) = folders(root.path());
    let app = App::start(&paths);
    let id = turn(&app, &workspace, &provider.url("/v1"));
    app.quit();
    let log = tack_engine::session::log_path(&paths.sessions_dir(), &id);
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(
        &log,
        text.replacen("\"approval\":\"untrusted\"", "\"approval\":\"never\"", 1),
    )
    .unwrap();

    let app = App::start(&paths);
    let err = app
        .invoke("resume_session", json!({"sessionId": id}))
        .unwrap_err();
    assert_eq!(err["field"], "header_changes", "{err}");
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains("settings.approval: \"untrusted\" → \"never\""),
        "{message}"
    );
    let view = app
        .invoke(
            "resume_session",
            json!({"sessionId": id, "acceptChangedHeader": true}),
        )
        .unwrap();
    assert!(view["readOnly"].is_null(), "{view}");
    assert_eq!(view["settings"]["approval"], "never");
}

#[test]
fn config_warnings_reach_the_window_with_both_names() {
    let root = tempfile::tempdir().unwrap();
    let (paths, _workspace) = folders(root.path());
    std::fs::create_dir_all(&paths.config_dir).unwrap();
    std::fs::write(
        paths.config_file(),
        "[[providers]]\nid = \"openai\"\nname = \"Proxy\"\nbase_url = \"http://proxy/v1\"\nwire = \"chat\"\nmodel = \"m\"\n",
    )
    .unwrap();
    let app = App::start(&paths);
    let info = app.invoke("app_info", json!({})).unwrap();
    assert!(info["configProblem"].is_null(), "{info}");
    let warnings = info["configWarnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{info}");
    let w = warnings[0].as_str().unwrap();
    assert!(
        w.starts_with("line 2: provider `openai` (`Proxy`, http://proxy/v1) replaces the built-in provider `openai`"),
        "{w}"
    );

    // A base URL that is no http(s) URL is a config problem with its line and column.
    std::fs::write(
        paths.config_file(),
        "[[providers]]\nid = \"x\"\nname = \"X\"\nbase_url = \"file:///etc\"\nwire = \"chat\"\nmodel = \"m\"\n",
    )
    .unwrap();
    let info = app.invoke("app_info", json!({})).unwrap();
    assert_eq!(info["configProblem"]["line"], 4, "{info}");
    assert_eq!(info["configProblem"]["column"], 12, "{info}");
}
