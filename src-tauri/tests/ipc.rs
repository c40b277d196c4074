//! The shell's commands over Tauri's real IPC path (mock runtime, no display), against a real
//! HTTP provider on loopback — and the canary check: a provider key set through the UI never
//! appears in any IPC response, any event sent to the webview, or any file Tack writes.
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

const CANARY: &str = "sk-canary-ipc-5d1e8a7b9c3f0246";

struct Harness {
    _dir: tempfile::TempDir,
    webview: tauri::WebviewWindow<MockRuntime>,
    events: Arc<Mutex<Vec<Value>>>,
    paths: Paths,
    workspace: std::path::PathBuf,
    /// Every IPC response body, serialized.
    responses: Mutex<Vec<String>>,
}

impl Harness {
    fn new(base_url: &str) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths {
            config_dir: dir.path().join("config"),
            data_dir: dir.path().join("data"),
        };
        std::fs::create_dir_all(&paths.config_dir).unwrap();
        std::fs::write(
            paths.config_file(),
            format!("[[providers]]\nid = \"test\"\nname = \"Replay\"\nbase_url = \"{base_url}\"\nwire = \"chat\"\nenv_key = \"TACK_IPC_TEST_UNSET_KEY\"\nmodel = \"m\"\nharness = \"minimal\"\n"),
        )
        .unwrap();
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::write(workspace.join("notes.txt"), "hello").unwrap();
        let events: Arc<Mutex<Vec<Value>>> = Arc::default();
        let sink = events.clone();
        let state = AppState::new(
            paths.clone(),
            Arc::new(MemoryStore::default()),
            Arc::new(move |event: AppEvent| {
                let value = match event {
                    AppEvent::Engine(e) => serde_json::to_value(e).unwrap(),
                    AppEvent::Workspace(e) => serde_json::to_value(e).unwrap(),
                    AppEvent::Menu(e) => serde_json::to_value(e).unwrap(),
                };
                sink.lock().unwrap().push(value);
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
        Harness {
            _dir: dir,
            webview,
            events,
            paths,
            workspace: std::fs::canonicalize(workspace).unwrap(),
            responses: Mutex::new(Vec::new()),
        }
    }

    fn invoke(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        let result = get_ipc_response(
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
        .map(|body| body.deserialize::<Value>().unwrap());
        self.responses.lock().unwrap().push(format!("{result:?}"));
        result
    }

    fn wait_for_event(&self, kind: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(e) = self
                .events
                .lock()
                .unwrap()
                .iter()
                .find(|e| e["event"]["type"] == kind)
            {
                return e.clone();
            }
            assert!(
                Instant::now() < deadline,
                "no `{kind}` event: {:?}",
                self.events.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn read_all(dir: &std::path::Path) -> String {
    let mut out = String::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.push_str(&read_all(&p));
            } else {
                out.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

#[test]
fn a_session_through_ipc_never_leaks_the_key() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(chat_sse(&[
            json!({"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"notes.txt\"}"}}]}}]}),
            json!({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        ])),
        ScriptedResponse::sse(chat_sse(&[
            json!({"id": "c2", "model": "m", "choices": [{"index": 0, "delta": {"content": "The note says hello."}}]}),
            json!({"id": "c2", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        ])),
    ]);
    let h = Harness::new(&provider.url("/v1"));

    // The key goes in once; what comes back is only its status.
    let state = h
        .invoke("set_provider_key", json!({"id": "test", "key": CANARY}))
        .unwrap();
    assert_eq!(
        state,
        json!({"set": true, "last4": "0246", "source": "keychain", "needed": true})
    );
    let providers = h.invoke("list_providers", json!({})).unwrap();
    let test = providers
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "test")
        .unwrap();
    assert_eq!(test["key"]["last4"], "0246");

    let view = h
        .invoke(
            "start_session",
            json!({"input": {"cwd": h.workspace, "providerId": "test", "model": null, "harness": null, "approval": "untrusted"}}),
        )
        .unwrap();
    let session_id = view["id"].as_str().unwrap().to_string();
    h.invoke(
        "send_input",
        json!({"sessionId": session_id, "text": "What does notes.txt say?"}),
    )
    .unwrap();
    h.wait_for_event("turn_completed");

    // The provider got the key; the request carried the file content back.
    let requests = provider.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {CANARY}").as_str())
    );
    assert!(requests[1].body_text().contains("hello"));

    // Inspector commands.
    let exchanges = h
        .invoke("list_exchanges", json!({"sessionId": session_id}))
        .unwrap();
    assert_eq!(exchanges.as_array().unwrap().len(), 2);
    let first = exchanges[0]["id"].as_str().unwrap().to_string();
    let exchange = h
        .invoke(
            "get_exchange",
            json!({"sessionId": session_id, "exchangeId": first}),
        )
        .unwrap();
    let auth = exchange["request_headers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "authorization")
        .unwrap();
    assert_eq!(auth["value"], "[REDACTED]");
    let curl = h
        .invoke(
            "exchange_curl",
            json!({"sessionId": session_id, "exchangeId": first}),
        )
        .unwrap();
    assert!(curl.as_str().unwrap().contains("$TACK_API_KEY"));

    // Resume returns the whole history.
    let resumed = h
        .invoke("resume_session", json!({"sessionId": session_id}))
        .unwrap();
    let kinds: Vec<&str> = resumed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        vec!["message", "function_call", "tool_output", "message"]
    );

    // The canary is nowhere: not in IPC responses, not in events, not on disk.
    let responses = h.responses.lock().unwrap().join("\n");
    assert!(
        !responses.contains(CANARY),
        "an IPC response carried the key"
    );
    let events = serde_json::to_string(&*h.events.lock().unwrap()).unwrap();
    assert!(!events.contains(CANARY), "an event carried the key");
    assert!(events.contains("turn_completed"));
    let disk = read_all(&h.paths.data_dir) + &read_all(&h.paths.config_dir);
    assert!(!disk.contains(CANARY), "a file carried the key");
    assert!(disk.contains("[REDACTED]"));
}

#[test]
fn errors_carry_a_message_and_a_hint() {
    let h = Harness::new("http://127.0.0.1:9/v1");
    let err = h
        .invoke(
            "start_session",
            json!({"input": {"cwd": "/definitely/not/here", "providerId": "test", "model": null, "harness": null, "approval": "untrusted"}}),
        )
        .unwrap_err();
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("/definitely/not/here"),
        "{err}"
    );
    assert!(err["hint"].as_str().unwrap().contains("folder"), "{err}");
    let err = h
        .invoke("save_provider", json!({"input": {"id": "bad id", "name": "", "baseUrl": "x", "wire": "chat", "model": "m", "harness": null, "envKey": null}}))
        .unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("id"), "{err}");
    let harnesses = h.invoke("list_harnesses", json!({})).unwrap();
    assert!(
        harnesses
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["id"] == "minimal")
    );
    let inferred = h
        .invoke(
            "infer_harness",
            json!({"providerId": "test", "model": null}),
        )
        .unwrap();
    assert_eq!(inferred["harness"], "minimal");
}
