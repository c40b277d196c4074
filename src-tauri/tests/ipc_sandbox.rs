//! The sandbox over Tauri's real IPC path (mock runtime, no display): `sandbox_info` reports the
//! probe's mechanism and config.toml's defaults, and `start_session` passes the start panel's
//! mode and network through to the session (its choice wins over the config's).
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::{Value, json};
use tack_app::state::AppState;
use tack_engine::config::Paths;
use tack_engine::secrets::MemoryStore;
use tauri::Manager;
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;

struct Window {
    _dir: tempfile::TempDir,
    webview: tauri::WebviewWindow<MockRuntime>,
    workspace: String,
}

impl Window {
    fn new(config: &str) -> Window {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths {
            config_dir: dir.path().join("config"),
            data_dir: dir.path().join("data"),
        };
        std::fs::create_dir_all(&paths.config_dir).unwrap();
        std::fs::write(paths.config_file(), config).unwrap();
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&workspace).unwrap();
        let state =
            AppState::new(paths, Arc::new(MemoryStore::default()), Arc::new(|_| {})).unwrap();
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
            webview,
            workspace: std::fs::canonicalize(workspace)
                .unwrap()
                .display()
                .to_string(),
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

    fn start(&self, sandbox: Value, network: Value) -> Value {
        self.invoke(
            "start_session",
            json!({"input": {
                "cwd": self.workspace,
                "providerId": "test",
                "model": null,
                "harness": null,
                "approval": "on-request",
                "sandbox": sandbox,
                "network": network,
            }}),
        )
        .unwrap()
    }
}

/// A provider nothing is sent to (no turn runs), and the config's sandbox defaults.
const CONFIG: &str = "sandbox = \"read-only\"\nnetwork = true\nwritable_roots = [\"/opt/tack-cache\"]\n\n[[providers]]\nid = \"test\"\nname = \"Test\"\nbase_url = \"http://127.0.0.1:9/v1\"\nwire = \"chat\"\nmodel = \"m\"\nharness = \"minimal\"\n";

#[test]
fn sandbox_info_reports_the_probe_and_the_config_defaults() {
    let window = Window::new(CONFIG);
    let info = window.invoke("sandbox_info", json!({})).unwrap();
    assert_eq!(info["defaultMode"], "read-only");
    assert_eq!(info["defaultNetwork"], true);
    assert_eq!(info["writableRoots"], json!(["/opt/tack-cache"]));
    let mechanism = info["mechanism"].as_str().unwrap();
    assert!(
        ["bubblewrap", "landlock-seccomp", "none"].contains(&mechanism),
        "{info}"
    );
    let summary = info["summary"].as_str().unwrap();
    // The probe's own line, whichever mode a session would pick.
    if mechanism == "none" {
        assert!(summary.starts_with("no sandbox: "), "{summary}");
    } else {
        assert!(!summary.contains("danger-full-access"), "{summary}");
        assert!(summary.starts_with("bubblewrap "), "{summary}");
    }

    // Without a config file's settings: workspace-write, network off.
    let bare = Window::new("");
    let info = bare.invoke("sandbox_info", json!({})).unwrap();
    assert_eq!(info["defaultMode"], "workspace-write");
    assert_eq!(info["defaultNetwork"], false);
    assert_eq!(info["writableRoots"], json!([]));
}

#[test]
fn start_session_passes_the_chosen_sandbox_and_network() {
    let window = Window::new(CONFIG);
    let view = window.start(json!("workspace-write"), json!(false));
    let sandbox = &view["settings"]["sandbox"];
    assert_eq!(sandbox["mode"], "workspace-write", "{view}");
    assert_eq!(sandbox["network"], false, "{view}");

    let full = window.start(json!("danger-full-access"), json!(null));
    assert_eq!(full["settings"]["sandbox"]["mode"], "danger-full-access");
    assert_eq!(
        full["settings"]["sandbox"]["summary"],
        "danger-full-access: commands run without a sandbox"
    );

    // Null: the config's defaults.
    let defaults = window.start(json!(null), json!(null));
    assert_eq!(defaults["settings"]["sandbox"]["mode"], "read-only");
    assert_eq!(defaults["settings"]["sandbox"]["network"], true);
}
