//! The rules commands over Tauri's real IPC path (mock runtime, no display): Settings lists,
//! adds and deletes `[[rules]]` in config.toml, which is re-read and edited in place.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::{Value, json};
use tack_app::state::AppState;
use tack_engine::config::{Config, Paths};
use tack_engine::secrets::MemoryStore;
use tauri::Manager;
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;

struct Window {
    _dir: tempfile::TempDir,
    _app: tauri::App<MockRuntime>,
    webview: tauri::WebviewWindow<MockRuntime>,
    paths: Paths,
}

impl Window {
    /// A window over a config file with exactly this text.
    fn over(config: &str) -> Window {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths {
            config_dir: dir.path().join("config"),
            data_dir: dir.path().join("data"),
        };
        std::fs::create_dir_all(&paths.config_dir).unwrap();
        std::fs::write(paths.config_file(), config).unwrap();
        let state = AppState::new(
            paths.clone(),
            Arc::new(MemoryStore::default()),
            Arc::new(|_| {}),
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
        Window {
            _dir: dir,
            _app: app,
            webview,
            paths,
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

    fn config_text(&self) -> String {
        std::fs::read_to_string(self.paths.config_file()).unwrap()
    }
}

const FILE: &str = "# mine\napproval = \"untrusted\"  # ask\n\n[[rules]]\ndecision = \"allow\"\ncommand = \"npm test\"\n";

#[test]
fn settings_lists_adds_and_deletes_rules_in_the_file() {
    let w = Window::over(FILE);
    assert_eq!(
        w.invoke("list_rules", json!({})).unwrap(),
        json!([{"decision": "allow", "command": ["npm", "test"]}])
    );
    let rules = w
        .invoke(
            "add_rule",
            json!({"input": {"decision": "deny", "command": "  git push --force ", "workspace": "/home/me/app"}}),
        )
        .unwrap();
    assert_eq!(
        rules[1],
        json!({"decision": "deny", "command": ["git", "push", "--force"], "workspace": "/home/me/app"})
    );
    assert!(w.config_text().starts_with(FILE), "{}", w.config_text());
    assert!(
        w.config_text()
            .ends_with("\n[[rules]]\ndecision = \"deny\"\ncommand = \"git push --force\"\nworkspace = \"/home/me/app\"\n"),
        "{}",
        w.config_text()
    );
    // A duplicate changes nothing; a blank workspace means every workspace.
    w.invoke(
        "add_rule",
        json!({"input": {"decision": "deny", "command": "git push --force", "workspace": "/home/me/app"}}),
    )
    .unwrap();
    let rules = w
        .invoke(
            "add_rule",
            json!({"input": {"decision": "allow", "command": "grep -e 'a b'", "workspace": " "}}),
        )
        .unwrap();
    assert_eq!(rules.as_array().unwrap().len(), 3);
    assert_eq!(
        rules[2],
        json!({"decision": "allow", "command": ["grep", "-e", "a b"]})
    );
    // Deleting is by value; what the file loads afterwards is what the command answered.
    let rules = w
        .invoke(
            "delete_rule",
            json!({"rule": {"decision": "allow", "command": ["npm", "test"]}}),
        )
        .unwrap();
    assert_eq!(
        serde_json::to_value(Config::load(&w.paths.config_file()).unwrap().rules).unwrap(),
        rules
    );
    assert!(
        w.config_text()
            .starts_with("# mine\napproval = \"untrusted\"  # ask\n")
    );
    let err = w
        .invoke(
            "delete_rule",
            json!({"rule": {"decision": "allow", "command": ["npm", "test"]}}),
        )
        .unwrap_err();
    assert!(
        err["message"].as_str().unwrap().contains("no rule"),
        "{err}"
    );
}

#[test]
fn bad_rules_are_refused_on_their_field_and_a_broken_file_is_never_written() {
    let w = Window::over(FILE);
    let err = w
        .invoke(
            "add_rule",
            json!({"input": {"decision": "allow", "command": "echo 'unclosed", "workspace": null}}),
        )
        .unwrap_err();
    assert_eq!(err["field"], "command", "{err}");
    let err = w
        .invoke(
            "add_rule",
            json!({"input": {"decision": "allow", "command": "   ", "workspace": null}}),
        )
        .unwrap_err();
    assert_eq!(err["field"], "command", "{err}");
    let err = w
        .invoke(
            "add_rule",
            json!({"input": {"decision": "allow", "command": "ls", "workspace": "relative/dir"}}),
        )
        .unwrap_err();
    assert_eq!(err["field"], "workspace", "{err}");
    assert_eq!(w.config_text(), FILE);

    let broken = "[[rules]]\ndecision = \"allow\"\ncommand = \"\"\n";
    std::fs::write(w.paths.config_file(), broken).unwrap();
    let err = w
        .invoke(
            "add_rule",
            json!({"input": {"decision": "allow", "command": "ls", "workspace": null}}),
        )
        .unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("line 3"), "{err}");
    assert_eq!(w.config_text(), broken);
}
