//! A session that changes provider mid-way must still satisfy the new one. For every ordered
//! pair of the catalog's reasoning providers (DeepSeek and Moonshot/Kimi on Chat, whose
//! thinking models require the reasoning of earlier tool-call turns back as
//! `reasoning_content`; Anthropic on Messages, which takes only its own signed thinking;
//! OpenAI on Responses, which takes no foreign reasoning), a history recorded on the first is
//! shaped and rendered for the second by every harness that routes there, and the request
//! body is checked: reasoning converted where it is required, absent where it is refused.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod chat_native_fixture;

use serde_json::{Value, json};
use tack_harness::prompts::PromptStore;
use tack_harness::{Registry, ShapeEnv};
use tack_protocol::{
    FunctionCallItem, Item, Prompt, ProviderInfo, ReasoningItem, ReasoningOrigin, Role, ToolOutput,
    ToolOutputItem, Wire,
};
use tack_wire::{Endpoint, render};

/// The catalog's reasoning providers: id, base URL (as in the engine's catalog), wire.
const PROVIDERS: [(&str, &str, Wire); 4] = [
    ("deepseek", "https://api.deepseek.com", Wire::Chat),
    ("moonshot", "https://api.moonshot.ai/v1", Wire::Chat),
    ("anthropic", "https://api.anthropic.com", Wire::Messages),
    ("openai", "https://api.openai.com/v1", Wire::Responses),
];

fn info(id: &str, base_url: &str, wire: Wire) -> ProviderInfo {
    ProviderInfo {
        id: id.into(),
        name: id.into(),
        base_url: base_url.into(),
        wire,
    }
}

/// The reasoning item `provider` records for one tool-call turn, in its own form.
fn recorded_reasoning(provider: &str, wire: Wire, n: usize) -> ReasoningItem {
    let text = format!("thought {n} on {provider}");
    let mut r = ReasoningItem {
        id: format!("rs_{provider}_{n}"),
        origin: Some(ReasoningOrigin {
            wire,
            provider: Some(provider.into()),
            model: None,
        }),
        ..ReasoningItem::default()
    };
    match wire {
        Wire::Chat => r.text = text,
        Wire::Messages => {
            r.text = text;
            r.signature = Some(format!("sig_{provider}_{n}"));
        }
        Wire::Responses => {
            r.summary = vec![text];
            r.encrypted_content = Some(format!("enc_{provider}_{n}"));
        }
    }
    r
}

/// Two tool-call turns on `from`, then a user message for `to`.
fn history(from: &str, from_wire: Wire) -> Vec<Item> {
    let mut h = vec![Item::text("u1", Role::User, "fix the test")];
    for n in 0..2 {
        h.push(Item::Reasoning(recorded_reasoning(from, from_wire, n)));
        h.push(Item::FunctionCall(FunctionCallItem {
            id: format!("fc{n}"),
            call_id: format!("call_{n}"),
            name: "shell".into(),
            arguments: json!({"command": format!("step {n}")}).to_string(),
            namespace: None,
        }));
        h.push(Item::ToolOutput(ToolOutputItem {
            id: format!("out{n}"),
            call_id: format!("call_{n}"),
            output: ToolOutput::ok(format!("done {n}")),
        }));
    }
    h.push(Item::text("a1", Role::Assistant, "Fixed."));
    h.push(Item::text("u2", Role::User, "now on the other provider"));
    h
}

fn harnesses_for(wire: Wire) -> Vec<&'static str> {
    let registry = Registry::builtin();
    [
        "native",
        "minimal",
        "kimi-cli",
        "kimi-code",
        "qwen-code",
        "opencode",
        "deepseek-tui",
        "claude-code",
        "zcode",
    ]
    .into_iter()
    .filter(|h| registry.route(wire, h).is_ok())
    .collect()
}

fn body_for(harness: &str, prompt: &Prompt, wire: Wire) -> Value {
    let registry = Registry::builtin();
    let route = registry.route(wire, harness).unwrap();
    let prompts = PromptStore::builtin();
    let shaped = route
        .harness
        .shape(
            prompt,
            wire,
            &ShapeEnv {
                prompts: &prompts,
                emulate_identity: false,
            },
        )
        .unwrap_or_else(|e| panic!("{harness} on {wire}: {e}"));
    let rendered = render(
        &shaped.request,
        wire,
        &Endpoint::new(&prompt.context.provider.base_url),
    )
    .unwrap();
    serde_json::from_slice(&rendered.body).unwrap()
}

/// Every string under `v`, for "never sees it" checks.
fn all_text(v: &Value, out: &mut String) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                for (k, v) in map {
                    out.push_str(k);
                    out.push('\n');
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
}

#[test]
fn every_ordered_pair_of_reasoning_providers_gets_what_it_accepts() {
    let mut checked = 0;
    for (from, _, from_wire) in PROVIDERS {
        for (to, to_url, to_wire) in PROVIDERS {
            let h = history(from, from_wire);
            let mut prompt = chat_native_fixture::prompt("kimi-cli");
            prompt.history = h;
            prompt.context = chat_native_fixture::context(info(to, to_url, to_wire), "m");
            for harness in harnesses_for(to_wire) {
                let body = body_for(harness, &prompt, to_wire);
                let mut text = String::new();
                all_text(&body, &mut text);
                let what = format!("{from} → {to} ({harness})");
                match to {
                    "deepseek" | "moonshot" => {
                        // Every assistant message with tool calls carries the turn's
                        // reasoning, converted to text whatever its origin.
                        let calls: Vec<&Value> = body["messages"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .filter(|m| m["role"] == "assistant" && m.get("tool_calls").is_some())
                            .collect();
                        assert!(!calls.is_empty(), "{what}: no tool-call turns?");
                        for (n, m) in calls.iter().enumerate() {
                            let expected = format!("thought {n} on {from}");
                            assert_eq!(
                                m["reasoning_content"].as_str(),
                                Some(expected.as_str()),
                                "{what}: {m}"
                            );
                        }
                        assert!(!text.contains("sig_"), "{what}: a signature leaked");
                        assert!(!text.contains("enc_"), "{what}: encrypted content leaked");
                    }
                    "anthropic" => {
                        // Only Anthropic's own signed thinking goes back; nothing else.
                        let thinking: Vec<&Value> = body["messages"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .filter_map(|m| m["content"].as_array())
                            .flatten()
                            .filter(|b| b["type"] == "thinking")
                            .collect();
                        if from == "anthropic" {
                            assert_eq!(thinking.len(), 2, "{what}: {body}");
                            for b in thinking {
                                assert!(b["signature"].is_string(), "{what}: {b}");
                            }
                        } else {
                            assert!(thinking.is_empty(), "{what}: {thinking:?}");
                            assert!(!text.contains(&format!("on {from}")), "{what}: {body}");
                        }
                        assert!(!text.contains("enc_"), "{what}");
                    }
                    "openai" => {
                        // No foreign reasoning at all (and Responses needs none).
                        if from != "openai" {
                            assert!(!text.contains(&format!("on {from}")), "{what}: {body}");
                            assert!(!text.contains("sig_"), "{what}");
                        }
                    }
                    _ => unreachable!(),
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 16, "{checked}");
}
