//! Golden snapshots of the exact request each Anthropic-style harness renders on each wire it
//! supports, for one fixed history (see `anthropic_fixture`): claude-code and claude-code-bare
//! on Messages, Chat and Responses; zcode on Messages.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod anthropic_fixture;

use anthropic_fixture::{anthropic, prompt, zai};
use tack_harness::prompts::PromptStore;
use tack_harness::{Registry, ShapeEnv};
use tack_protocol::{Prompt, Wire};
use tack_wire::{Endpoint, render};

/// `POST url`, the headers, a blank line, then the body pretty-printed (key order as sent).
fn rendered(harness: &str, wire: Wire, prompt: &Prompt, identity: bool) -> String {
    let registry = Registry::builtin();
    let route = registry.route(wire, harness).expect("route");
    let prompts = PromptStore::builtin();
    let shaped = route
        .harness
        .shape(
            prompt,
            wire,
            &ShapeEnv {
                prompts: &prompts,
                emulate_identity: identity,
            },
        )
        .expect("shape");
    let endpoint = Endpoint::new(prompt.context.provider.base_url.clone());
    let req = render(&shaped.request, wire, &endpoint).expect("render");
    let body: serde_json::Value = serde_json::from_slice(&req.body).expect("body is JSON");
    let mut out = format!(
        "{} {}\nprompt_source: {}\n",
        req.method, req.url, shaped.prompt_source
    );
    for (name, value) in &req.headers {
        out.push_str(&format!("{name}: {value}\n"));
    }
    out.push('\n');
    out.push_str(&serde_json::to_string_pretty(&body).expect("pretty"));
    out
}

fn claude_prompt(model: &str) -> Prompt {
    let mut p = prompt(model, anthropic());
    if model.starts_with("gpt") {
        p.context.provider.id = "openai".into();
        p.context.provider.base_url = "https://api.openai.com/v1".into();
    }
    p
}

#[test]
fn claude_code_messages() {
    insta::assert_snapshot!(rendered(
        "claude-code",
        Wire::Messages,
        &claude_prompt("claude-opus-4-6"),
        false
    ));
}

#[test]
fn claude_code_messages_with_identity() {
    // Only the headers differ from the plain request.
    let text = rendered(
        "claude-code",
        Wire::Messages,
        &claude_prompt("claude-opus-4-6"),
        true,
    );
    let headers: String = text.split("\n\n").next().unwrap_or_default().to_string();
    insta::assert_snapshot!(
        headers
            .replace(tack_arch(), "<arch>")
            .replace(tack_os(), "<os>")
    );
}

fn tack_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    }
}

fn tack_os() -> &'static str {
    match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "MacOS",
        "windows" => "Windows",
        other => other,
    }
}

#[test]
fn claude_code_chat() {
    insta::assert_snapshot!(rendered(
        "claude-code",
        Wire::Chat,
        &claude_prompt("gpt-5"),
        false
    ));
}

#[test]
fn claude_code_responses() {
    insta::assert_snapshot!(rendered(
        "claude-code",
        Wire::Responses,
        &claude_prompt("gpt-5"),
        false
    ));
}

#[test]
fn claude_code_bare_messages() {
    insta::assert_snapshot!(rendered(
        "claude-code-bare",
        Wire::Messages,
        &claude_prompt("claude-haiku-4-5"),
        false
    ));
}

#[test]
fn claude_code_bare_chat() {
    insta::assert_snapshot!(rendered(
        "claude-code-bare",
        Wire::Chat,
        &claude_prompt("gpt-5"),
        false
    ));
}

#[test]
fn claude_code_bare_responses() {
    insta::assert_snapshot!(rendered(
        "claude-code-bare",
        Wire::Responses,
        &claude_prompt("gpt-5"),
        false
    ));
}

#[test]
fn zcode_messages() {
    insta::assert_snapshot!(rendered(
        "zcode",
        Wire::Messages,
        &prompt("zai/glm-4.6", zai()),
        false
    ));
}

#[test]
fn zcode_messages_with_identity_headers() {
    let text = rendered("zcode", Wire::Messages, &prompt("zai/glm-4.6", zai()), true);
    insta::assert_snapshot!(text.split("\n\n").next().unwrap_or_default().to_string());
}
