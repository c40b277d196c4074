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

/// The config file most tests start with: one provider, `test`, at `base_url`.
fn test_config(base_url: &str) -> String {
    format!(
        "[[providers]]\nid = \"test\"\nname = \"Replay\"\nbase_url = \"{base_url}\"\nwire = \"chat\"\nenv_key = \"TACK_IPC_TEST_UNSET_KEY\"\nmodel = \"m\"\nharness = \"minimal\"\n"
    )
}

impl Harness {
    fn new(base_url: &str) -> Harness {
        Harness::with_config(&test_config(base_url))
    }

    /// A window over a config file with exactly this text.
    fn with_config(config: &str) -> Harness {
        Harness::build(config).0
    }

    /// The harness and its app (for tests that run the app's event loop).
    fn build(config: &str) -> (Harness, tauri::App<MockRuntime>) {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths {
            config_dir: dir.path().join("config"),
            data_dir: dir.path().join("data"),
        };
        std::fs::create_dir_all(&paths.config_dir).unwrap();
        std::fs::write(paths.config_file(), config).unwrap();
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
        // The test makes its own window; the config's would open when the event loop runs.
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
        (
            Harness {
                _dir: dir,
                webview,
                events,
                paths,
                workspace: std::fs::canonicalize(workspace).unwrap(),
                responses: Mutex::new(Vec::new()),
            },
            app,
        )
    }

    fn config_text(&self) -> String {
        std::fs::read_to_string(self.paths.config_file()).unwrap()
    }

    fn provider(&self, id: &str) -> Value {
        self.invoke("list_providers", json!({}))
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no provider `{id}`"))
    }

    /// Saves a provider view back as the edit form would (its fields as shown).
    fn save(&self, view: &Value) -> Result<Value, Value> {
        self.invoke("save_provider", Harness::form_input(view))
    }

    /// Adds a provider as the "New provider" form would.
    fn add(&self, view: &Value) -> Result<Value, Value> {
        self.invoke("add_provider", Harness::form_input(view))
    }

    fn form_input(view: &Value) -> Value {
        json!({"input": {
            "id": view["id"], "name": view["name"], "baseUrl": view["baseUrl"],
            "wire": view["wire"], "model": view["model"], "harness": view["harness"],
            "envKey": view["envKey"],
        }})
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
    assert_eq!(err["field"], "id", "{err}");
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

const BROKEN: &str = "default_provider = \"local\n";

#[test]
fn a_broken_config_file_opens_with_the_built_ins_says_where_and_is_never_overwritten() {
    let h = Harness::with_config(BROKEN);
    let info = h.invoke("app_info", json!({})).unwrap();
    let problem = &info["configProblem"];
    assert_eq!(
        problem["path"],
        h.paths.config_file().display().to_string(),
        "{info}"
    );
    assert_eq!(
        (problem["line"].clone(), problem["column"].clone()),
        (json!(1), json!(26))
    );
    assert!(
        problem["summary"]
            .as_str()
            .unwrap()
            .starts_with("invalid basic string"),
        "{problem}"
    );
    assert!(
        problem["details"]
            .as_str()
            .unwrap()
            .contains("default_provider = \"local"),
        "{problem}"
    );
    // The built-ins are there, the local model first.
    let providers = h.invoke("list_providers", json!({})).unwrap();
    assert_eq!(providers[0]["id"], "local");
    assert!(
        providers
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["builtin"] == true)
    );

    // Saving (or deleting) refuses, says why and what to do, and leaves the file alone.
    let local = h.provider("local");
    let err = h.save(&local).unwrap_err();
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains(&h.paths.config_file().display().to_string()),
        "{err}"
    );
    assert!(message.contains("line 1, column 26"), "{err}");
    assert!(message.contains("does not overwrite"), "{err}");
    assert!(
        err["hint"].as_str().unwrap().contains("move it away"),
        "{err}"
    );
    let err = h
        .invoke("delete_provider", json!({"id": "work"}))
        .unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("line 1"), "{err}");
    assert_eq!(h.config_text(), BROKEN);
    // Keys don't touch the file: they still work.
    h.invoke(
        "set_provider_key",
        json!({"id": "openai", "key": "sk-xyz-1234"}),
    )
    .unwrap();

    // Fixed outside Tack: the problem goes and saving works again.
    std::fs::write(h.paths.config_file(), "default_provider = \"local\"\n").unwrap();
    let info = h.invoke("app_info", json!({})).unwrap();
    assert!(info["configProblem"].is_null(), "{info}");
    let mut changed = local.clone();
    changed["model"] = json!("smollm2-360m");
    h.save(&changed).unwrap();
    assert!(
        h.config_text()
            .starts_with("default_provider = \"local\"\n")
    );
    assert!(h.config_text().contains("model = \"smollm2-360m\""));
}

#[test]
fn a_save_rereads_the_file_and_changes_only_its_own_provider() {
    let h = Harness::new("http://127.0.0.1:9/v1");
    // Edited by hand while the app runs.
    let by_hand = format!(
        "# Mine: keep this.\napproval = \"untrusted\"\n\n{}\n[[providers]]\nid = \"extra\"  # added by hand\nname = \"Extra\"\nbase_url = \"http://127.0.0.1:10/v1\"\nwire = \"chat\"\nmodel = \"x\"\n",
        test_config("http://127.0.0.1:9/v1")
    );
    std::fs::write(h.paths.config_file(), &by_hand).unwrap();
    // The window sees the file as it is now.
    assert_eq!(h.provider("extra")["name"], "Extra");

    let mut test = h.provider("test");
    test["model"] = json!("m2");
    let saved = h.save(&test).unwrap();
    assert_eq!(saved["model"], "m2");
    assert_eq!(
        h.config_text(),
        by_hand.replace("model = \"m\"\n", "model = \"m2\"\n")
    );

    // A new provider is appended; deleting one leaves the rest.
    let mut other = test.clone();
    other["id"] = json!("other");
    h.add(&other).unwrap();
    h.invoke("delete_provider", json!({"id": "extra"})).unwrap();
    let text = h.config_text();
    assert!(
        text.starts_with("# Mine: keep this.\napproval = \"untrusted\"\n"),
        "{text}"
    );
    assert!(!text.contains("extra"), "{text}");
    assert!(text.contains("id = \"other\""), "{text}");
    let err = h
        .invoke("delete_provider", json!({"id": "extra"}))
        .unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("extra"), "{err}");
}

#[test]
fn adding_never_replaces_a_provider_and_editing_stays_an_update() {
    let h = Harness::new("http://127.0.0.1:9/v1");
    // `dup` written by hand after the window last listed the providers.
    let by_hand = format!(
        "{}\n[[providers]]\nid = \"dup\"  # mine\nname = \"Dup by hand\"\nbase_url = \"http://127.0.0.1:11/v1\"\nwire = \"chat\"\nmodel = \"hand\"\n",
        test_config("http://127.0.0.1:9/v1")
    );
    std::fs::write(h.paths.config_file(), &by_hand).unwrap();
    let new_dup = json!({
        "id": "dup", "name": "Dup", "baseUrl": "http://127.0.0.1:12/v1", "wire": "chat",
        "model": "new", "harness": null, "envKey": null,
    });
    let err = h.add(&new_dup).unwrap_err();
    assert_eq!(
        err["message"], "a provider with id `dup` already exists — edit it, or choose another id",
        "{err}"
    );
    assert_eq!(err["field"], "id", "{err}");
    assert_eq!(h.config_text(), by_hand);
    assert_eq!(h.provider("dup")["name"], "Dup by hand");
    // A built-in's id is taken as well, with or without an override in the file.
    let mut deepseek = h.provider("deepseek");
    deepseek["model"] = json!("x");
    let err = h.add(&deepseek).unwrap_err();
    assert_eq!(err["field"], "id", "{err}");
    assert_eq!(h.config_text(), by_hand);

    // Editing `dup` updates its entry in place.
    let mut dup = h.provider("dup");
    dup["model"] = json!("edited");
    h.save(&dup).unwrap();
    assert_eq!(
        h.config_text(),
        by_hand.replace("model = \"hand\"", "model = \"edited\"")
    );
    // An edit of a provider removed from the file meanwhile does not bring it back.
    std::fs::write(h.paths.config_file(), test_config("http://127.0.0.1:9/v1")).unwrap();
    let err = h.save(&dup).unwrap_err();
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("no provider `dup`"),
        "{err}"
    );
    assert_eq!(h.config_text(), test_config("http://127.0.0.1:9/v1"));
}

#[test]
fn a_built_in_saved_unchanged_stays_built_in_and_a_changed_one_is_an_override() {
    let h = Harness::new("http://127.0.0.1:9/v1");
    let before = h.config_text();
    let deepseek = h.provider("deepseek");
    assert_eq!(
        (deepseek["builtin"].clone(), deepseek["overridden"].clone()),
        (json!(true), json!(false))
    );

    // Unchanged: the file stays as it was, the provider stays a plain built-in.
    let saved = h.save(&deepseek).unwrap();
    assert_eq!(
        (saved["builtin"].clone(), saved["overridden"].clone()),
        (json!(true), json!(false))
    );
    assert_eq!(h.config_text(), before);

    // Changed: stored as an override, still shown as the built-in.
    let mut changed = deepseek.clone();
    changed["model"] = json!("deepseek-reasoner");
    let saved = h.save(&changed).unwrap();
    assert_eq!(
        (saved["builtin"].clone(), saved["overridden"].clone()),
        (json!(true), json!(true))
    );
    assert!(h.config_text().contains("id = \"deepseek\""));
    let listed = h.provider("deepseek");
    assert_eq!(listed["model"], "deepseek-reasoner");
    assert_eq!(listed["builtin"], true);

    // Saved back to the built-in's values: the override goes.
    h.save(&deepseek).unwrap();
    assert_eq!(h.config_text(), before);

    // Reset to built-in is deleting the override; the built-in itself can't be deleted.
    h.save(&changed).unwrap();
    h.invoke("delete_provider", json!({"id": "deepseek"}))
        .unwrap();
    assert_eq!(h.config_text(), before);
    assert_eq!(h.provider("deepseek")["model"], "deepseek-chat");
    let err = h
        .invoke("delete_provider", json!({"id": "deepseek"}))
        .unwrap_err();
    assert!(
        err["message"].as_str().unwrap().contains("built-in"),
        "{err}"
    );
}

/// A folder dialog that stays open until the test closes it.
struct HeldDialog {
    opened: Mutex<std::sync::mpsc::Sender<()>>,
    close: Mutex<std::sync::mpsc::Receiver<std::path::PathBuf>>,
    count: std::sync::atomic::AtomicUsize,
}

impl tack_app::state::Dialogs for HeldDialog {
    fn pick_folder(&self) -> Option<std::path::PathBuf> {
        self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.opened.lock().unwrap().send(()).unwrap();
        self.close.lock().unwrap().recv().ok()
    }

    fn save_file(&self, _suggested_name: &str) -> Option<std::path::PathBuf> {
        None
    }
}

#[test]
fn a_second_folder_dialog_is_not_opened_while_one_is_open() {
    let h = Harness::new("http://127.0.0.1:9/v1");
    let (opened_tx, opened) = std::sync::mpsc::channel();
    let (close, close_rx) = std::sync::mpsc::channel();
    let dialog = Arc::new(HeldDialog {
        opened: Mutex::new(opened_tx),
        close: Mutex::new(close_rx),
        count: Default::default(),
    });
    h.webview.state::<AppState>().set_dialogs(dialog.clone());
    std::thread::scope(|scope| {
        let first = scope.spawn(|| h.invoke("pick_workspace", json!({})));
        opened.recv().unwrap();
        // While it is open, another request answers "nothing picked" at once.
        assert_eq!(h.invoke("pick_workspace", json!({})).unwrap(), Value::Null);
        close.send(h.workspace.clone()).unwrap();
        assert_eq!(
            first.join().unwrap().unwrap(),
            json!(h.workspace.display().to_string())
        );
    });
    assert_eq!(dialog.count.load(std::sync::atomic::Ordering::SeqCst), 1);
    // Closed: the next request opens it again.
    close.send(h.workspace.clone()).unwrap();
    assert_eq!(
        h.invoke("pick_workspace", json!({})).unwrap(),
        json!(h.workspace.display().to_string())
    );
    assert_eq!(dialog.count.load(std::sync::atomic::Ordering::SeqCst), 2);
}

#[test]
fn quit_closes_the_window_and_a_running_turn_ends_interrupted_in_its_log() {
    // The model never answers: the turn is still running when the user quits.
    let provider = ReplayProvider::start([ScriptedResponse::hang()]);
    let (h, app) = Harness::build(&test_config(&provider.url("/v1")));
    let view = h
        .invoke(
            "start_session",
            json!({"input": {"cwd": h.workspace, "providerId": "test", "model": null, "harness": null, "approval": "untrusted"}}),
        )
        .unwrap();
    let session_id = view["id"].as_str().unwrap().to_string();
    h.invoke(
        "send_input",
        json!({"sessionId": session_id, "text": "hello?"}),
    )
    .unwrap();
    h.wait_for_event("turn_started");

    // File → Quit once the event loop runs: it closes the window, exits, and shuts down on
    // the way out.
    app.run(|handle, event| {
        if let tauri::RunEvent::Ready = event {
            tack_app::quit(handle);
        }
        tack_app::on_run_event(handle, &event);
    });

    let log = std::fs::read_to_string(h.paths.sessions_dir().join(format!("{session_id}.jsonl")))
        .unwrap();
    let ended: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "turn_ended")
        .collect();
    assert_eq!(ended.len(), 1, "{log}");
    assert_eq!(ended[0]["status"], "interrupted", "{log}");
    assert!(log.contains("hello?"));
}

#[test]
fn the_default_provider_is_marked_the_config_default_or_else_local() {
    let defaults = |h: &Harness| -> Vec<String> {
        h.invoke("list_providers", json!({}))
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["isDefault"] == true)
            .map(|p| p["id"].as_str().unwrap().to_string())
            .collect()
    };
    let h = Harness::new("http://127.0.0.1:9/v1");
    assert_eq!(defaults(&h), ["local"]);

    let by_hand = format!(
        "default_provider = \"test\"\n{}",
        test_config("http://127.0.0.1:9/v1")
    );
    std::fs::write(h.paths.config_file(), by_hand).unwrap();
    assert_eq!(defaults(&h), ["test"]);
    // A saved provider's view says so too.
    let saved = h.save(&h.provider("test")).unwrap();
    assert_eq!(saved["isDefault"], true);

    // A default naming no provider marks none (the window then picks the first).
    std::fs::write(
        h.paths.config_file(),
        "default_provider = \"gone\"\n".to_string() + &test_config("http://127.0.0.1:9/v1"),
    )
    .unwrap();
    assert!(defaults(&h).is_empty());
}

#[test]
fn the_last_workspace_is_kept_under_the_data_folder_and_forgotten_when_gone() {
    let h = Harness::new("http://127.0.0.1:9/v1");
    // A fresh data folder remembers nothing.
    assert_eq!(h.invoke("last_workspace", json!({})).unwrap(), Value::Null);

    let folder = h.workspace.display().to_string();
    h.invoke("set_last_workspace", json!({"cwd": folder}))
        .unwrap();
    assert_eq!(
        h.invoke("last_workspace", json!({})).unwrap(),
        json!(folder)
    );
    let file = h.paths.data_dir.join(tack_app::last_workspace::FILE_NAME);
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(stored["lastWorkspace"], json!(folder));

    // Another window over another data folder does not see it.
    let other = Harness::new("http://127.0.0.1:9/v1");
    assert_eq!(
        other.invoke("last_workspace", json!({})).unwrap(),
        Value::Null
    );

    // A folder that no longer exists is not offered.
    let gone = h.paths.data_dir.parent().unwrap().join("gone");
    std::fs::create_dir_all(&gone).unwrap();
    h.invoke(
        "set_last_workspace",
        json!({"cwd": gone.display().to_string()}),
    )
    .unwrap();
    std::fs::remove_dir(&gone).unwrap();
    assert_eq!(h.invoke("last_workspace", json!({})).unwrap(), Value::Null);

    // Forgetting it.
    h.invoke("set_last_workspace", json!({"cwd": folder}))
        .unwrap();
    h.invoke("set_last_workspace", json!({"cwd": null}))
        .unwrap();
    assert_eq!(h.invoke("last_workspace", json!({})).unwrap(), Value::Null);
}
