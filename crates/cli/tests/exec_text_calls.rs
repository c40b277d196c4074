//! Tool calls a model writes into its text (markup the server's tool parser missed) are
//! recovered for a native-tool harness and run like the API's own calls: on by default for a
//! server on this machine, off with `recover_text_calls = false`. Real `tack exec` against a
//! real HTTP server on loopback.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::{Env, answer, tool_messages};
use tack_tests::{ReplayProvider, ScriptedResponse, chat_sse};

/// A text reply holding a Qwen3-Coder style call, cut inside its tags across chunks.
fn leaked_call() -> Vec<u8> {
    text_reply(&[
        "Let me look.\n<func",
        "tion=shell>\n<parameter=com",
        "mand>\nls\n</parameter>\n</fun",
        "ction>",
    ])
}

/// A Chat stream whose text arrives in `pieces`.
fn text_reply(pieces: &[&str]) -> Vec<u8> {
    let mut chunks = vec![
        json!({"id": "chatcmpl-t", "model": "test-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
    ];
    for p in pieces {
        chunks
            .push(json!({"id": "chatcmpl-t", "choices": [{"index": 0, "delta": {"content": p}}]}));
    }
    chunks.push(json!({"id": "chatcmpl-t", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    chat_sse(&chunks)
}

#[test]
fn a_call_leaked_into_text_runs_and_its_output_goes_back() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(leaked_call()),
        ScriptedResponse::sse(answer("done", "Two files here.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    std::fs::write(env.workspace.join("hello.txt"), "hi\n").unwrap();
    let run = env.exec(&[], "List the files.");
    assert_eq!(run.status, 0, "{}", run.stderr);
    let calls = run.items("function_call");
    assert_eq!(calls.len(), 1, "{:?}", run.events);
    assert_eq!(calls[0]["name"], "shell");
    let args: serde_json::Value =
        serde_json::from_str(calls[0]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args["command"], "ls");
    // The markup is not shown as prose; the text around it is.
    let shown: String = run
        .of("text_delta")
        .iter()
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    assert!(shown.contains("Let me look."), "{shown}");
    assert!(!shown.contains("<function"), "{shown}");
    // The output went back to the model as the call's result.
    let second = provider.requests()[1].body_json().unwrap();
    let results = tool_messages(&second);
    assert_eq!(results.len(), 1, "{second}");
    assert!(results[0].1.contains("hello.txt"), "{results:?}");
}

#[test]
fn markup_in_a_code_fence_is_shown_not_run() {
    let reply = [
        "To delete it you would write:\n`",
        "``\n<function=shell>\n<parameter=command>\nrm -r d3\n</parameter>\n</function>\n``",
        "`\nbut I will not do that.",
    ];
    let provider = ReplayProvider::start([ScriptedResponse::sse(text_reply(&reply))]);
    let env = Env::new(&provider.url("/v1"));
    std::fs::create_dir(env.workspace.join("d3")).unwrap();
    let run = env.exec(&["--approval", "never"], "How would I delete d3?");
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.items("function_call").is_empty(), "{:?}", run.events);
    assert!(env.workspace.join("d3").is_dir(), "d3 was deleted");
    let shown: String = run
        .of("text_delta")
        .iter()
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(shown, reply.concat());
    assert_eq!(provider.requests().len(), 1, "the turn ended with the text");
}

#[test]
fn recovery_can_be_turned_off_per_provider() {
    let provider = ReplayProvider::start([ScriptedResponse::sse(leaked_call())]);
    let env = Env::new(&provider.url("/v1"));
    let config = env.config.join("config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("recover_text_calls = false\n");
    std::fs::write(&config, text).unwrap();
    let run = env.exec(&[], "List the files.");
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.items("function_call").is_empty(), "{:?}", run.events);
    assert_eq!(provider.requests().len(), 1, "the turn ended with the text");
}
