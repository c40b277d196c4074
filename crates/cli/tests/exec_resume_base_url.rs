//! `tack exec` with a provider given as a base URL: the session resumes by id (the log
//! recorded the URL), and `--max-steps` stops a turn with its own error kind.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::{Env, answer, tool_call};
use tack_engine::log::LoadedSession;
use tack_tests::{ReplayProvider, ScriptedResponse};

#[test]
fn a_session_started_on_a_base_url_resumes_by_id() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(answer("c1", "First answer here.")),
        ScriptedResponse::sse(answer("c2", "Second answer here.")),
    ]);
    let env = Env::new("http://127.0.0.1:9/v1");
    let url = provider.url("/v1");
    let first = env.exec(
        &[
            "--provider",
            &url,
            "--model",
            "test-model",
            "--harness",
            "minimal",
        ],
        "hello",
    );
    assert_eq!(first.status, 0, "{}", first.stderr);
    let log = env.session_log();
    let loaded = LoadedSession::read(&log).unwrap();
    assert_eq!(loaded.settings.provider, "custom");
    assert_eq!(loaded.provider_url.as_deref(), Some(url.as_str()));

    let again = env.exec(&["--resume", &loaded.session_id], "and again");
    assert_eq!(again.status, 0, "{}", again.stderr);
    assert!(
        !again.stderr.contains("unknown provider"),
        "{}",
        again.stderr
    );
    let requests = provider.requests();
    assert_eq!(requests.len(), 2, "both turns went to the URL's server");
    assert!(requests[1].body_text().contains("First answer here."));
    assert_eq!(LoadedSession::read(&log).unwrap().items.len(), 4);
}

#[test]
fn max_steps_stops_the_turn_with_step_limit() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(tool_call(
            "call_1",
            "shell",
            &json!({"command": "echo one"}),
        )),
        ScriptedResponse::sse(answer("never", "This request must not be sent.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let run = env.exec(&["--approval", "never", "--max-steps", "1"], "count");
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert_eq!(provider.requests().len(), 1);
    let errors = run.of("error");
    assert_eq!(errors.len(), 1, "{}", run.stdout);
    assert_eq!(errors[0]["error"]["kind"], "step_limit");
    assert_eq!(run.last()["type"], "turn_aborted");

    let zero = env.exec(&["--max-steps", "0"], "count");
    assert_eq!(zero.status, 2, "{}", zero.stderr);
}
