//! Golden snapshots of the exact Chat request each chat-native harness renders for one fixed
//! multi-turn history (text, an image, reasoning, parallel tool calls, a failed command, a
//! follow-up; see `chat_native_fixture`): qwen-code, kimi-cli, kimi-code, opencode and
//! deepseek-tui, each on its home provider. These harnesses support the Chat wire only, and
//! the other two wires are routing errors (checked below).
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod chat_native_fixture;

use chat_native_fixture as fx;
use tack_harness::{Registry, RouteError};
use tack_protocol::Wire;

fn golden(harness: &str) -> String {
    let prompt = fx::prompt(harness);
    let shaped = fx::shape(harness, &prompt, false);
    let req = fx::render_chat(&shaped.request, &prompt.context.provider.base_url);
    format!(
        "prompt_source: {}\n{}",
        shaped.prompt_source,
        fx::describe(&req)
    )
}

#[test]
fn qwen_code_chat() {
    insta::assert_snapshot!(golden("qwen-code"));
}

#[test]
fn kimi_cli_chat() {
    insta::assert_snapshot!(golden("kimi-cli"));
}

#[test]
fn kimi_code_chat() {
    insta::assert_snapshot!(golden("kimi-code"));
}

#[test]
fn opencode_chat() {
    insta::assert_snapshot!(golden("opencode"));
}

#[test]
fn deepseek_tui_chat() {
    insta::assert_snapshot!(golden("deepseek-tui"));
}

#[test]
fn opencode_title_request_on_the_first_turn() {
    let (provider, model) = fx::home("opencode");
    let base = provider.base_url.clone();
    let prompt = fx::single_turn(
        provider,
        model,
        "List the files and tell me what hello.py does",
    );
    let shaped = fx::shape("opencode", &prompt, false);
    assert_eq!(shaped.extra_requests.len(), 1);
    assert_eq!(shaped.extra_requests[0].purpose, "title");
    let req = fx::render_chat(&shaped.extra_requests[0].request, &base);
    insta::assert_snapshot!(fx::describe(&req));
    // Later turns of the same session (assistant output in history) send no title request.
    let later = fx::prompt("opencode");
    assert!(
        fx::shape("opencode", &later, false)
            .extra_requests
            .is_empty()
    );
}

#[test]
fn identity_headers_only_when_opted_in() {
    for harness in fx::HARNESSES {
        let prompt = fx::prompt(harness);
        let plain = fx::render_chat(&fx::shape(harness, &prompt, false).request, "http://x/v1");
        let names: Vec<&str> = plain.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            vec!["content-type", "accept"],
            "{harness} sends only Tack's own headers"
        );
    }
    let header = |harness: &str, name: &str| {
        let prompt = fx::prompt(harness);
        let req = fx::render_chat(&fx::shape(harness, &prompt, true).request, "http://x/v1");
        req.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        header("kimi-cli", "user-agent").as_deref(),
        Some("KimiCLI/1.52.0")
    );
    assert_eq!(
        header("kimi-cli", "x-msh-platform").as_deref(),
        Some("kimi_cli")
    );
    assert_eq!(
        header("kimi-cli", "x-msh-device-id"),
        None,
        "never a device id"
    );
    assert!(
        header("qwen-code", "user-agent")
            .unwrap()
            .starts_with("QwenCode/0.24.4 (linux; ")
    );
    assert!(
        header("opencode", "user-agent")
            .unwrap()
            .starts_with("opencode/1.18.33 ai-sdk/")
    );
    assert_eq!(
        header("opencode", "x-session-id").as_deref(),
        Some("ses_fixture")
    );
}

#[test]
fn other_wires_are_routing_errors() {
    let registry = Registry::builtin();
    for harness in fx::HARNESSES {
        for wire in [Wire::Responses, Wire::Messages] {
            let err = registry.route(wire, harness).unwrap_err();
            assert!(
                matches!(err, RouteError::UnsupportedWire { .. }),
                "{harness} on {wire}: {err}"
            );
        }
        assert!(registry.route(Wire::Chat, harness).is_ok());
    }
}
