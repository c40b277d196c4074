//! The desktop app on Tauri's real IPC path (mock runtime) for the saved-session tests: one run
//! of the app on given folders, and logs written the way the engine writes them.
// Each test binary uses part of this module; a failed unwrap is a failed test.
#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used)]

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
pub struct App {
    pub webview: tauri::WebviewWindow<MockRuntime>,
    pub events: Arc<Mutex<Vec<Value>>>,
}

impl App {
    pub fn start(paths: &Paths) -> App {
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
    pub fn quit(self) {
        let state = self.webview.state::<AppState>();
        tauri::async_runtime::block_on(state.shutdown(Duration::from_secs(10)));
    }

    pub fn invoke(&self, cmd: &str, args: Value) -> Result<Value, Value> {
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
    pub fn wait_for_turns(&self, n: usize) {
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

pub fn folders(root: &Path) -> (Paths, PathBuf) {
    let paths = Paths {
        config_dir: root.join("config"),
        data_dir: root.join("data"),
    };
    std::fs::create_dir_all(&paths.config_dir).unwrap();
    let workspace = root.join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    (paths, std::fs::canonicalize(workspace).unwrap())
}

pub fn answer(id: &str, text: &str) -> ScriptedResponse {
    ScriptedResponse::sse(chat_sse(&[
        json!({"id": id, "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]}),
        json!({"id": id, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]))
}

/// Writes a session log by hand: its settings and one user message.
pub fn write_log(paths: &Paths, id: &str, cwd: &str, provider: &str) {
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
