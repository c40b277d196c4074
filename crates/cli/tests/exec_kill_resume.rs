//! Killing `tack exec` with SIGKILL mid-turn loses no completed item, and the session resumes.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::{Env, answer, tool_call};
use tack_engine::log::LoadedSession;
use tack_protocol::{Item, ToolStatus};
use tack_tests::{ReplayProvider, ScriptedResponse};

#[test]
fn sigkill_mid_turn_loses_nothing_and_the_session_resumes() {
    // The model runs a command, then the provider hangs on the next request: Tack is killed
    // while waiting for it.
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(tool_call(
            "call_1",
            "shell",
            &json!({"command": "echo hello > marker.txt"}),
        )),
        ScriptedResponse::hang(),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let mut child = env
        .tack()
        .args(["exec", "--approval", "never", "--cwd"])
        .arg(&env.workspace)
        .arg("write a marker")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the second request is in flight: the tool output is then on disk.
    let deadline = Instant::now() + Duration::from_secs(60);
    while provider.requests().len() < 2 {
        assert!(Instant::now() < deadline, "the second request never came");
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    child.wait().unwrap();

    let log = env.session_log();
    let before = LoadedSession::read(&log).unwrap();
    let kinds: Vec<&str> = before
        .items
        .iter()
        .map(|i| match i {
            Item::Message(_) => "message",
            Item::FunctionCall(_) => "function_call",
            Item::ToolOutput(_) => "tool_output",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, vec!["message", "function_call", "tool_output"]);
    assert!(
        before.unfinished_turn.is_some(),
        "the kill left the turn open"
    );
    let Item::ToolOutput(out) = &before.items[2] else {
        unreachable!()
    };
    assert_eq!(out.output.status, ToolStatus::Completed);
    assert_eq!(
        std::fs::read_to_string(env.workspace.join("marker.txt")).unwrap(),
        "hello\n"
    );

    // Resume with a new task: the interrupted turn is closed, and the history goes back to
    // the model whole.
    let provider2 =
        ReplayProvider::start([ScriptedResponse::sse(answer("r", "The marker says hello."))]);
    let id = before.session_id.clone();
    let config = env.config.join("config.toml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace(&provider.url("/v1"), &provider2.url("/v1"));
    std::fs::write(&config, text).unwrap();
    let run = support::Run::from(
        env.tack()
            .args(["exec", "--resume", &id, "what does the marker say?"])
            .output()
            .unwrap(),
    );
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    let body = provider2.requests()[0].body_json().unwrap();
    let messages = body["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, vec!["system", "user", "assistant", "tool", "user"]);
    assert_eq!(messages[2]["tool_calls"][0]["id"], "call_1");
    assert!(
        messages[3]["content"].as_str().unwrap().is_empty()
            || messages[3]["tool_call_id"] == "call_1"
    );

    let after = LoadedSession::read(&log).unwrap();
    assert_eq!(after.session_id, id);
    assert_eq!(&after.items[..3], &before.items[..]);
    assert_eq!(after.unfinished_turn, None);
    assert!(after.records.iter().any(|r| matches!(r, tack_engine::log::LogRecord::TurnEnded { status, .. } if status == "interrupted")));
}
