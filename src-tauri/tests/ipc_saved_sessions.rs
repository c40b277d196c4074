//! Saved sessions over Tauri's real IPC path (mock runtime, no display): a session started on
//! a base URL reopens after a restart, one whose provider is gone still shows its history, and
//! the sidebar's folder filter holds for a folder that was moved away.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use tack_tests::ReplayProvider;

mod support;

use support::{App, answer, folders, write_log};

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
