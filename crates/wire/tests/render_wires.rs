//! Rendering on every wire: golden bodies of one conversation on Chat, Responses and Messages
//! side by side, determinism, and the rules of the Responses and Messages renderers.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Map, Value, json};
use support::conversation::{call, conversation, result, text};
use tack_protocol::{ToolSpec, Wire};
use tack_wire::render::messages::{is_valid_tool_use_id, tool_use_id};
use tack_wire::{
    Block, Endpoint, RenderError, RenderedRequest, ShapedMessage, ShapedRequest, ShapedRole,
    Thinking, ToolChoice, render,
};

fn rendered(req: &ShapedRequest, wire: Wire) -> RenderedRequest {
    let base = match wire {
        Wire::Messages => "https://api.anthropic.com",
        _ => "https://api.openai.com/v1",
    };
    render(req, wire, &Endpoint::new(base)).unwrap()
}

fn body(req: &ShapedRequest, wire: Wire) -> Value {
    serde_json::from_slice(&rendered(req, wire).body).unwrap()
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

fn request(messages: Vec<ShapedMessage>) -> ShapedRequest {
    ShapedRequest {
        model: "m".into(),
        messages,
        ..ShapedRequest::default()
    }
}

#[test]
fn golden_bodies_on_every_wire() {
    let req = conversation();
    for wire in Wire::ALL {
        insta::assert_json_snapshot!(format!("conversation__{wire}"), body(&req, wire));
    }
}

#[test]
fn rendering_is_deterministic() {
    let req = conversation();
    for wire in Wire::ALL {
        let first = rendered(&req, wire);
        assert_eq!(rendered(&req, wire), first, "{wire}");
        assert_eq!(rendered(&req.clone(), wire).body, first.body, "{wire}");
        // The same request after a serde round trip (as the inspector stores it).
        let copy: ShapedRequest =
            serde_json::from_str(&serde_json::to_string(&req).unwrap()).unwrap();
        assert_eq!(rendered(&copy, wire).body, first.body, "{wire}");
    }
}

#[test]
fn urls_and_headers_per_wire() {
    let req = conversation();
    let responses = rendered(&req, Wire::Responses);
    assert_eq!(responses.url, "https://api.openai.com/v1/responses");
    assert!(responses.stream);
    let messages = rendered(&req, Wire::Messages);
    assert_eq!(messages.url, "https://api.anthropic.com/v1/messages");
    assert_eq!(
        messages.headers,
        [
            ("content-type".to_string(), "application/json".to_string()),
            ("accept".to_string(), "text/event-stream".to_string()),
            ("anthropic-version".to_string(), "2023-06-01".to_string()),
            (
                "anthropic-beta".to_string(),
                "interleaved-thinking-2025-05-14".to_string()
            ),
        ]
    );
}

// --- Responses -----------------------------------------------------------------------------

#[test]
fn responses_field_order_and_extra_body() {
    let mut req = conversation();
    let mut extra = Map::new();
    extra.insert("temperature".into(), json!(1));
    extra.insert("text".into(), json!({"verbosity": "low"}));
    req.extra_body = extra;
    let v = body(&req, Wire::Responses);
    assert_eq!(
        keys(&v),
        [
            "model",
            "instructions",
            "input",
            "tools",
            "tool_choice",
            "parallel_tool_calls",
            "reasoning",
            "store",
            "include",
            "prompt_cache_key",
            "max_output_tokens",
            "temperature",
            "top_p",
            "metadata",
            "stream",
            "text"
        ]
    );
    assert_eq!(v["temperature"], json!(1));
    assert_eq!(
        v["instructions"],
        json!("You are a coding agent.\n\nWork in /repo.")
    );
    assert_eq!(v["reasoning"], json!({"effort": "high", "summary": "auto"}));
}

#[test]
fn responses_items_always_have_a_type_and_calls_pair_with_outputs() {
    let v = body(&conversation(), Wire::Responses);
    let input = v["input"].as_array().unwrap();
    assert!(
        input.iter().all(|item| item["type"].is_string()),
        "llama.cpp needs `type`"
    );
    let by_type = |t: &str| -> Vec<&Value> { input.iter().filter(|i| i["type"] == t).collect() };
    let calls = by_type("function_call");
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[2]["name"], json!("create_issue"));
    assert_eq!(calls[2]["namespace"], json!("github"));
    assert_eq!(calls[0]["arguments"], json!(r#"{"cmd": "ls"}"#));
    let custom = by_type("custom_tool_call");
    assert_eq!(custom[0]["input"], json!("*** Begin Patch\n*** End Patch"));
    let custom_output = by_type("custom_tool_call_output");
    assert_eq!(custom_output.len(), 1);
    assert_eq!(custom_output[0]["call_id"], json!("call_3"));
    assert_eq!(custom_output[0]["output"], json!("patch does not apply"));
    let outputs = by_type("function_call_output");
    assert_eq!(outputs.len(), 3);
    // A result with an image is a list of parts.
    assert_eq!(
        outputs[1]["output"],
        json!([
            {"type": "input_text", "text": "# Demo"},
            {"type": "input_image", "image_url": "data:image/jpeg;base64,/9j/4AAQ"}
        ])
    );
    // Only reasoning with encrypted content is replayed.
    let reasoning = by_type("reasoning");
    assert_eq!(reasoning.len(), 1);
    assert_eq!(
        *reasoning[0],
        json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Listing** files"}],
               "encrypted_content": "gAAAAB-encrypted"})
    );
    let developer = input.iter().find(|i| i["role"] == "developer").unwrap();
    assert_eq!(
        developer["content"][0],
        json!({"type": "input_text", "text": "Keep answers short."})
    );
    let assistant_text = input.iter().find(|i| i["role"] == "assistant").unwrap();
    assert_eq!(assistant_text["content"][0]["type"], json!("output_text"));
}

#[test]
fn responses_tools_are_native() {
    let v = body(&conversation(), Wire::Responses);
    assert_eq!(
        v["tools"],
        json!([
            {"type": "function", "name": "shell", "description": "Run a command.",
             "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]},
             "strict": false},
            {"type": "function", "name": "read_file",
             "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
             "strict": false},
            {"type": "custom", "name": "apply_patch", "description": "Apply a patch."},
            {"type": "namespace", "name": "github", "description": "", "tools": [
                {"type": "function", "name": "create_issue", "description": "Open an issue.",
                 "parameters": {"type": "object", "properties": {"title": {"type": "string"}}},
                 "strict": false}
            ]}
        ])
    );
    let mut req = conversation();
    req.params.tool_choice = Some(ToolChoice::Tool("apply_patch".into()));
    assert_eq!(
        body(&req, Wire::Responses)["tool_choice"],
        json!({"type": "custom", "name": "apply_patch"})
    );
    req.params.tool_choice = Some(ToolChoice::Tool("shell".into()));
    assert_eq!(
        body(&req, Wire::Responses)["tool_choice"],
        json!({"type": "function", "name": "shell"})
    );
    req.params.tool_choice = Some(ToolChoice::Required);
    assert_eq!(
        body(&req, Wire::Responses)["tool_choice"],
        json!("required")
    );
}

#[test]
fn responses_namespace_groups_members_and_keeps_a_set_strict_flag() {
    let mut strict = ToolSpec::function("search", "", json!({"type": "object"}));
    strict.namespace = Some("gh".into());
    if let tack_protocol::ToolSpecKind::Function { strict: s, .. } = &mut strict.kind {
        *s = Some(true);
    }
    let mut other = ToolSpec::function("open", "", json!({"type": "object"}));
    other.namespace = Some("gh".into());
    let req = ShapedRequest {
        tools: vec![strict, ToolSpec::function("plain", "", json!({})), other],
        ..request(vec![ShapedMessage::text(ShapedRole::User, "hi")])
    };
    let tools = body(&req, Wire::Responses)["tools"].clone();
    assert_eq!(tools.as_array().unwrap().len(), 2);
    assert_eq!(tools[0]["type"], json!("namespace"));
    assert_eq!(tools[0]["tools"][0]["strict"], json!(true));
    assert_eq!(tools[0]["tools"][1]["name"], json!("open"));
    assert_eq!(tools[1]["name"], json!("plain"));
}

// --- Messages ------------------------------------------------------------------------------

#[test]
fn messages_field_order_and_defaults() {
    let mut req = conversation();
    req.params.thinking = Some(Thinking::Enabled {
        budget_tokens: 2048,
    });
    let v = body(&req, Wire::Messages);
    assert_eq!(
        keys(&v),
        [
            "model",
            "max_tokens",
            "system",
            "messages",
            "tools",
            "tool_choice",
            "thinking",
            "temperature",
            "top_p",
            "metadata",
            "stream",
            "output_config"
        ]
    );
    assert_eq!(
        v["thinking"],
        json!({"type": "enabled", "budget_tokens": 2048})
    );
    assert_eq!(v["output_config"], json!({"effort": "high"}));
    assert_eq!(
        v["system"],
        json!([
            {"type": "text", "text": "You are a coding agent.", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Work in /repo."}
        ])
    );
    let plain = request(vec![ShapedMessage::text(ShapedRole::User, "hi")]);
    let v = body(&plain, Wire::Messages);
    assert_eq!(v["max_tokens"], json!(8192));
    assert_eq!(keys(&v), ["model", "max_tokens", "messages"]);
    assert_eq!(
        v["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}])
    );
}

#[test]
fn messages_alternate_and_tool_results_come_first() {
    let v = body(&conversation(), Wire::Messages);
    let messages = v["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant", "user"]);
    for pair in roles.windows(2) {
        assert_ne!(pair[0], pair[1]);
    }
    // The last user turn: two results, then the developer note and the user text, merged.
    let last = messages[4]["content"].as_array().unwrap();
    let types: Vec<&str> = last.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["tool_result", "tool_result", "text", "text"]);
    assert_eq!(last[0]["is_error"], json!(true));
    assert_eq!(
        last[3],
        json!({"type": "text", "text": "Thanks, summarize.", "cache_control": {"type": "ephemeral"}})
    );
    // A user message whose text comes before a tool result is reordered.
    let req = request(vec![
        ShapedMessage::new(ShapedRole::Assistant, vec![call("c1", "shell", "{}")]),
        ShapedMessage::text(ShapedRole::User, "also this"),
        ShapedMessage::new(ShapedRole::Tool, vec![result("c1", "ok")]),
    ]);
    let v = body(&req, Wire::Messages);
    assert_eq!(v["messages"][1]["content"][0]["type"], json!("tool_result"));
    assert_eq!(v["messages"][1]["content"][1]["text"], json!("also this"));
}

#[test]
fn messages_blocks() {
    let v = body(&conversation(), Wire::Messages);
    let user = v["messages"][0]["content"].clone();
    assert_eq!(
        user[1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}})
    );
    assert_eq!(
        user[2],
        json!({"type": "image", "source": {"type": "url", "url": "https://example.com/diagram.png"}})
    );
    let assistant = v["messages"][1]["content"].as_array().unwrap();
    assert_eq!(
        assistant[0],
        json!({"type": "thinking", "thinking": "I should list the files and read the README.", "signature": "EqQBCgIYAhIMsig"})
    );
    assert_eq!(
        assistant[1],
        json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy-redacted"})
    );
    assert_eq!(assistant[3]["input"], json!({"cmd": "ls"}));
    // Unsigned thinking is dropped; a freeform call's input is wrapped.
    let second = v["messages"][3]["content"].as_array().unwrap();
    assert_eq!(second.len(), 2);
    assert_eq!(
        second[0]["input"],
        json!({"input": "*** Begin Patch\n*** End Patch"})
    );
    let results = v["messages"][2]["content"].as_array().unwrap();
    assert_eq!(
        results[1],
        json!({"type": "tool_result", "tool_use_id": tool_use_id("functions.read_file:1"),
               "content": [{"type": "text", "text": "# Demo"},
                           {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}}],
               "is_error": false, "cache_control": {"type": "ephemeral"}})
    );
    let tools = v["tools"].as_array().unwrap();
    assert_eq!(tools[3]["name"], json!("github_create_issue"));
    assert_eq!(tools[3]["cache_control"], json!({"type": "ephemeral"}));
    assert!(tools[..3].iter().all(|t| t.get("cache_control").is_none()));
    assert_eq!(tools[2]["input_schema"]["required"], json!(["input"]));
}

#[test]
fn messages_tool_arguments_that_are_not_an_object_stay_sendable() {
    let req = request(vec![
        ShapedMessage::new(
            ShapedRole::Assistant,
            vec![
                call("c1", "f", ""),
                call("c2", "f", r#"{"a": "#),
                call("c3", "f", "[1, 2]"),
                call("c4", "f", "  {\"b\":1}\n"),
            ],
        ),
        ShapedMessage::new(
            ShapedRole::Tool,
            vec![
                result("c1", "-"),
                result("c2", "-"),
                result("c3", "-"),
                result("c4", "-"),
            ],
        ),
    ]);
    let v = body(&req, Wire::Messages);
    let inputs: Vec<Value> = v["messages"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["input"].clone())
        .collect();
    assert_eq!(
        inputs,
        [
            json!({}),
            json!({"_raw": r#"{"a": "#}),
            json!({"_raw": "[1, 2]"}),
            json!({"b": 1})
        ]
    );
}

#[test]
fn messages_rewrites_call_ids_anthropic_rejects_consistently() {
    let kimi = "functions.ls:0";
    let req = request(vec![
        ShapedMessage::new(ShapedRole::Assistant, vec![call(kimi, "ls", "{}")]),
        ShapedMessage::new(ShapedRole::Tool, vec![result(kimi, "a b")]),
        ShapedMessage::new(ShapedRole::Assistant, vec![call("toolu_ok-1", "ls", "{}")]),
        ShapedMessage::new(ShapedRole::Tool, vec![result("toolu_ok-1", "c")]),
    ]);
    let v = body(&req, Wire::Messages);
    let use_id = v["messages"][0]["content"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let result_id = v["messages"][1]["content"][0]["tool_use_id"]
        .as_str()
        .unwrap();
    assert_eq!(use_id, result_id);
    assert!(is_valid_tool_use_id(&use_id));
    assert_eq!(use_id, tool_use_id(kimi));
    assert_eq!(
        v["messages"][2]["content"][0]["id"],
        json!("toolu_ok-1"),
        "valid ids are kept"
    );
    // The same id maps the same way in a later, longer request (prompt caching holds).
    let mut longer = req.clone();
    longer
        .messages
        .push(ShapedMessage::text(ShapedRole::User, "more"));
    assert_eq!(
        body(&longer, Wire::Messages)["messages"][0]["content"][0]["id"],
        json!(use_id)
    );
    // Other wires send ids untouched.
    assert_eq!(
        body(&req, Wire::Chat)["messages"][0]["tool_calls"][0]["id"],
        json!(kimi)
    );
}

#[test]
fn messages_call_ids_never_collide() {
    // A valid id that happens to equal what an invalid id maps to, and two invalid ids that
    // sanitize to the same text.
    let taken = tool_use_id("x.y").into_owned();
    let req = request(vec![
        ShapedMessage::new(
            ShapedRole::Assistant,
            vec![
                call(&taken, "f", "{}"),
                call("x.y", "f", "{}"),
                call("x:y", "f", "{}"),
            ],
        ),
        ShapedMessage::new(
            ShapedRole::Tool,
            vec![result("x:y", "3"), result("x.y", "2"), result(&taken, "1")],
        ),
    ]);
    let v = body(&req, Wire::Messages);
    let ids: Vec<String> = v["messages"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids[0], taken);
    assert_eq!(ids[1], format!("{taken}_2"));
    assert!(ids[2].starts_with("x_y_") && ids[2] != ids[0] && ids[2] != ids[1]);
    assert!(ids.iter().all(|id| is_valid_tool_use_id(id)));
    let results: Vec<(&str, &str)> = v["messages"][1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["tool_use_id"].as_str().unwrap(),
                b["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [
            (ids[2].as_str(), "3"),
            (ids[1].as_str(), "2"),
            (ids[0].as_str(), "1")
        ]
    );
}

#[test]
fn messages_tool_choice_and_parallel_calls() {
    let mut req = conversation();
    let choice = |req: &ShapedRequest| body(req, Wire::Messages)["tool_choice"].clone();
    assert_eq!(choice(&req), json!({"type": "auto"}));
    req.params.tool_choice = Some(ToolChoice::Required);
    assert_eq!(choice(&req), json!({"type": "any"}));
    req.params.tool_choice = Some(ToolChoice::None);
    assert_eq!(choice(&req), json!({"type": "none"}));
    req.params.tool_choice = Some(ToolChoice::Tool("shell".into()));
    req.params.parallel_tool_calls = Some(false);
    assert_eq!(
        choice(&req),
        json!({"type": "tool", "name": "shell", "disable_parallel_tool_use": true})
    );
    req.params.tool_choice = None;
    assert_eq!(
        choice(&req),
        json!({"type": "auto", "disable_parallel_tool_use": true})
    );
}

#[test]
fn messages_extra_body_and_empty_blocks() {
    let mut req = request(vec![
        ShapedMessage::new(ShapedRole::User, vec![text(""), text("a")]),
        ShapedMessage::new(ShapedRole::Assistant, vec![text("")]),
        ShapedMessage::text(ShapedRole::System, "b"),
    ]);
    let mut extra = Map::new();
    extra.insert("max_tokens".into(), json!(100));
    extra.insert("context_management".into(), json!({"edits": []}));
    req.extra_body = extra;
    let v = body(&req, Wire::Messages);
    assert_eq!(
        keys(&v),
        ["model", "max_tokens", "messages", "context_management"]
    );
    assert_eq!(v["max_tokens"], json!(100));
    // The empty assistant turn is dropped, so the user turns around it merge.
    assert_eq!(
        v["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])
    );
}

// --- errors --------------------------------------------------------------------------------

#[test]
fn misplaced_blocks_are_errors_on_every_wire() {
    let bad = |role, block| request(vec![ShapedMessage::new(role, vec![block])]);
    for wire in Wire::ALL {
        for req in [
            bad(ShapedRole::User, call("c", "f", "{}")),
            bad(ShapedRole::Tool, text("x")),
            bad(ShapedRole::Assistant, result("c", "x")),
            bad(
                ShapedRole::User,
                Block::RedactedThinking { data: "x".into() },
            ),
        ] {
            assert!(
                matches!(
                    render(&req, wire, &Endpoint::new("http://h")),
                    Err(RenderError::InvalidMessage { index: 0, .. })
                ),
                "{wire}"
            );
        }
        let mut nan = bad(ShapedRole::User, text("x"));
        nan.params.temperature = Some(f64::INFINITY);
        assert!(matches!(
            render(&nan, wire, &Endpoint::new("http://h")),
            Err(RenderError::InvalidParam(_))
        ));
    }
    let not_base64 = bad(
        ShapedRole::User,
        Block::Image {
            url: "data:image/svg+xml,%3Csvg%3E".into(),
            detail: None,
        },
    );
    assert!(matches!(
        render(&not_base64, Wire::Messages, &Endpoint::new("http://h")),
        Err(RenderError::InvalidMessage { index: 0, .. })
    ));
}
