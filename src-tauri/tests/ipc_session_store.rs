//! The session store as the window sees it, over Tauri's real IPC path (mock runtime): a
//! session another process writes opens read-only with the reason for its banner, and a log
//! whose header was edited by hand is opened only once the user accepts the listed changes.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use serde_json::json;
use tack_engine::log::SessionLog;
use tack_tests::ReplayProvider;

mod support;

use support::{App, answer, folders};

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
