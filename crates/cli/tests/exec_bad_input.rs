//! Bad input from the provider or the model gets a clear error and loses nothing: every test
//! runs the real `tack exec` against a real HTTP server on loopback.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::{CANARY, Env, answer, tool_call, tool_messages};
use tack_engine::log::LoadedSession;
use tack_tests::{ReplayProvider, ScriptedResponse, chat_sse};

/// The turn failed with an `error` event of `kind`, the user's input is in the session log and
/// the turn is closed there.
fn assert_failed_cleanly(env: &Env, run: &support::Run, kind: &str) -> serde_json::Value {
    assert_eq!(
        run.status, 1,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    let errors = run.of("error");
    assert_eq!(errors.len(), 1, "{:?}", run.events);
    let error = errors[0]["error"].clone();
    assert_eq!(error["kind"], kind, "{error}");
    assert!(!error["message"].as_str().unwrap().is_empty());
    // People read stderr: the reason is there too, not only in the JSON on stdout.
    assert!(
        run.stderr.contains(error["message"].as_str().unwrap()),
        "stderr: {}",
        run.stderr
    );
    assert_eq!(run.last()["type"], "turn_aborted");
    let loaded = LoadedSession::read(&env.session_log()).unwrap();
    assert!(
        loaded
            .items
            .iter()
            .any(|i| matches!(i, tack_protocol::Item::Message(m) if m.text() == "go"))
    );
    assert_eq!(
        loaded.unfinished_turn, None,
        "the turn is closed in the log"
    );
    assert!(!env.everything_written().contains(CANARY));
    error
}

#[test]
fn malformed_json_in_a_chunk_is_a_format_error() {
    let body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hel\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\n\ndata: [DONE]\n\n".to_vec();
    let provider = ReplayProvider::start([ScriptedResponse::sse(body)]);
    let env = Env::new(&provider.url("/v1"));
    let run = env.exec(&[], "go");
    assert_failed_cleanly(&env, &run, "format_error");
    // Output that arrived before the bad chunk was shown, and nothing half-parsed was run.
    assert!(run.of("text_delta").iter().any(|e| e["text"] == "hel"));
    assert!(run.items("function_call").is_empty());
}

#[test]
fn invalid_tool_arguments_go_back_to_the_model_and_the_turn_continues() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(tool_call("call_bad", "shell", &json!({"command": 42}))),
        ScriptedResponse::sse(answer("ok", "Sorry, I will pass a string.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let run = env.exec(&["--approval", "never"], "go");
    assert_eq!(run.status, 0, "{}", run.stderr);
    let out = &run.items("tool_output")[0]["output"];
    assert_eq!(out["status"], "failed");
    let text = out["text"].as_str().unwrap();
    assert!(text.contains("command"), "{text}");
    // The model saw the error as the tool's output.
    let second = provider.requests()[1].body_json().unwrap();
    assert_eq!(
        tool_messages(&second),
        vec![("call_bad".to_string(), text.to_string())]
    );
}

#[test]
fn an_unknown_tool_is_reported_to_the_model_with_the_available_names() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(tool_call("call_x", "teleport", &json!({"to": "mars"}))),
        ScriptedResponse::sse(answer("ok", "I will use the shell instead.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let run = env.exec(&["--approval", "never"], "go");
    assert_eq!(run.status, 0, "{}", run.stderr);
    let text = run.items("tool_output")[0]["output"]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.starts_with("Unknown tool `teleport`. Available tools: shell, read_file"),
        "{text}"
    );
    assert_eq!(provider.requests().len(), 2);
}

#[test]
fn a_stream_cut_mid_tool_call_runs_nothing_and_says_truncated() {
    let full = tool_call(
        "call_rm",
        "shell",
        &json!({"command": "touch SHOULD_NOT_EXIST"}),
    );
    // Cut inside the arguments, before any finish_reason.
    let cut = full.len() / 2;
    let provider = ReplayProvider::start([ScriptedResponse::sse(full).truncate_after(cut)]);
    let env = Env::new(&provider.url("/v1"));
    let run = env.exec(&["--approval", "never"], "go");
    assert_failed_cleanly(&env, &run, "stream_truncated");
    assert!(run.items("function_call").is_empty());
    assert!(!env.workspace.join("SHOULD_NOT_EXIST").exists());
    // No retry after the first body byte.
    assert_eq!(provider.requests().len(), 1);
}

#[test]
fn http_401_is_an_auth_error_with_a_fix_and_is_not_retried() {
    let provider = ReplayProvider::start([ScriptedResponse::json(
        401,
        &json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}),
    )]);
    let env = Env::new(&provider.url("/v1"));
    let run = env.exec(&[], "go");
    let error = assert_failed_cleanly(&env, &run, "auth");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("Incorrect API key"),
        "{error}"
    );
    assert!(
        error["hint"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("key"),
        "{error}"
    );
    assert_eq!(provider.requests().len(), 1);
}

#[test]
fn http_429_with_retry_after_is_retried_then_succeeds() {
    let provider = ReplayProvider::start([
        ScriptedResponse::json(
            429,
            &json!({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}),
        )
        .with_header("retry-after", "0"),
        ScriptedResponse::sse(answer("ok", "Hello there friend.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let run = env.exec(&[], "go");
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(provider.requests().len(), 2);
    // Both attempts are recorded as exchanges.
    let outcomes: Vec<String> = run
        .of("exchange_recorded")
        .iter()
        .map(|e| e["exchange"]["outcome"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(outcomes, vec!["rate_limit", "ok"]);
}

#[test]
fn http_500_is_retried_then_succeeds() {
    let provider = ReplayProvider::start([
        ScriptedResponse::json(500, &json!({"error": {"message": "internal"}})),
        ScriptedResponse::sse(answer("ok", "Recovered just fine.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let run = env.exec(&[], "go");
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(provider.requests().len(), 2);
    assert_eq!(
        run.items("message").last().unwrap()["content"][0]["text"],
        "Recovered just fine."
    );
}

#[test]
fn an_unreachable_host_says_so_and_what_to_check() {
    // A port nothing listens on: bind, note the port, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let env = Env::new(&format!("http://127.0.0.1:{port}/v1"));
    let run = env.exec(&[], "go");
    let error = assert_failed_cleanly(&env, &run, "unreachable");
    assert!(
        error["hint"].as_str().unwrap().contains("base URL"),
        "{error}"
    );
}

#[test]
fn a_denied_approval_reaches_the_model_as_the_tool_output() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(tool_call(
            "call_rm",
            "shell",
            &json!({"command": "rm -rf build"}),
        )),
        ScriptedResponse::sse(answer("ok", "Understood, I will not delete it.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    std::fs::create_dir(env.workspace.join("build")).unwrap();
    // stdin is not a terminal: approvals are denied with an explanation.
    let run = env.exec(&["--approval", "on-request"], "go");
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(env.workspace.join("build").exists());
    let request = &run.of("approval_requested")[0]["request"];
    assert_eq!(request["risk"], "high");
    assert_eq!(request["action"]["command"], "rm -rf build");
    let out = &run.items("tool_output")[0]["output"];
    assert_eq!(out["status"], "denied");
    let second = provider.requests()[1].body_json().unwrap();
    assert!(
        tool_messages(&second)[0].1.contains("No terminal to ask"),
        "{second}"
    );
}

#[test]
fn mid_stream_provider_errors_keep_what_was_said() {
    let body = chat_sse(&[
        json!({"id": "c1", "choices": [{"index": 0, "delta": {"content": "Partial answer"}}]}),
        json!({"id": "c1", "error": {"code": 502, "message": "Upstream overloaded"}}),
    ]);
    let provider = ReplayProvider::start([ScriptedResponse::sse(body)]);
    let env = Env::new(&provider.url("/v1"));
    let run = env.exec(&[], "go");
    assert_eq!(run.status, 1);
    assert!(
        run.of("text_delta")
            .iter()
            .any(|e| e["text"] == "Partial answer")
    );
    let error = &run.of("error")[0]["error"];
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("Upstream overloaded"),
        "{error}"
    );
}
