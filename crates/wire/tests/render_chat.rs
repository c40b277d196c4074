//! Golden Chat request bodies rendered from a ShapedRequest.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Map, Value, json};
use tack_protocol::{ToolKind, ToolSpec, Wire};
use tack_wire::{
    Block, Endpoint, RenderError, RenderOptions, RenderedRequest, ResultPart, ShapedMessage,
    ShapedRequest, ShapedRole, SystemBlock, ToolChoice, ToolOnlyContent, render, tool_kinds,
};

fn text(text: &str) -> Block {
    Block::Text {
        text: text.into(),
        cache: false,
    }
}

fn call(id: &str, name: &str, arguments: &str) -> Block {
    Block::ToolCall {
        call_id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
        custom_input: None,
    }
}

fn result(id: &str, parts: Vec<ResultPart>) -> Block {
    Block::ToolResult {
        call_id: id.into(),
        content: parts,
        is_error: None,
        cache: false,
    }
}

fn conversation() -> ShapedRequest {
    let mut req = ShapedRequest {
        model: "gpt-4.1".into(),
        system: vec![
            SystemBlock {
                text: "You are a coding agent.".into(),
                cache: true,
            },
            SystemBlock {
                text: "Work in /repo.".into(),
                cache: false,
            },
        ],
        messages: vec![
            ShapedMessage::new(
                ShapedRole::User,
                vec![
                    text("What is in this screenshot, and how many files are there?"),
                    Block::Image {
                        url: "data:image/png;base64,iVBORw0KGgo=".into(),
                        detail: Some("high".into()),
                    },
                ],
            ),
            ShapedMessage::new(
                ShapedRole::Assistant,
                vec![
                    Block::Thinking {
                        text: "I should list the files and read the README.".into(),
                        signature: None,
                        encrypted_content: None,
                        summary: Vec::new(),
                    },
                    text("Let me look."),
                    call("call_1", "shell", r#"{"cmd":"ls"}"#),
                    call("call_2", "read_file", r#"{"path":"README.md"}"#),
                ],
            ),
            ShapedMessage::new(
                ShapedRole::Tool,
                vec![
                    result(
                        "call_1",
                        vec![ResultPart::Text {
                            text: "README.md\nsrc".into(),
                        }],
                    ),
                    result(
                        "call_2",
                        vec![ResultPart::Text {
                            text: "# Demo".into(),
                        }],
                    ),
                ],
            ),
            ShapedMessage::new(
                ShapedRole::Assistant,
                vec![Block::ToolCall {
                    call_id: "call_3".into(),
                    name: "apply_patch".into(),
                    arguments: String::new(),
                    custom_input: Some("*** Begin Patch\n*** End Patch".into()),
                }],
            ),
            ShapedMessage::new(
                ShapedRole::Tool,
                vec![result(
                    "call_3",
                    vec![ResultPart::Text {
                        text: "Done!".into(),
                    }],
                )],
            ),
            ShapedMessage::text(ShapedRole::Developer, "Keep answers short."),
        ],
        tools: vec![
            ToolSpec::function(
                "shell",
                "Run a command.",
                json!({"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}),
            ),
            ToolSpec::function(
                "read_file",
                "",
                json!({"type":"object","properties":{"path":{"type":"string"}}}),
            ),
            ToolSpec::freeform("apply_patch", "Apply a patch."),
            ToolSpec {
                namespace: Some("github".into()),
                ..ToolSpec::function(
                    "create_issue",
                    "Open an issue.",
                    json!({"type":"object","properties":{"title":{"type":"string"}}}),
                )
            },
        ],
        ..ShapedRequest::default()
    };
    req.params.stream = true;
    req.params.include_usage = true;
    req.params.max_tokens = Some(4096);
    req.params.temperature = Some(0.2);
    req.params.top_p = Some(0.95);
    req.params.tool_choice = Some(ToolChoice::Auto);
    req.params.parallel_tool_calls = Some(true);
    req.params.reasoning_effort = Some("high".into());
    req.params.cache_key = Some("session-42".into());
    req.params.metadata = Some(json!({"session":"42"}));
    req
}

fn rendered(req: &ShapedRequest) -> RenderedRequest {
    render(
        req,
        Wire::Chat,
        &Endpoint::new("https://api.example.com/v1/"),
    )
    .unwrap()
}

fn body(req: &ShapedRequest) -> Value {
    serde_json::from_slice(&rendered(req).body).unwrap()
}

#[test]
fn full_conversation_without_reasoning_field() {
    let req = conversation();
    let out = rendered(&req);
    assert_eq!(out.url, "https://api.example.com/v1/chat/completions");
    assert_eq!(out.method, "POST");
    assert!(out.stream);
    assert_eq!(
        out.headers,
        [
            ("content-type".to_string(), "application/json".to_string()),
            ("accept".to_string(), "text/event-stream".to_string()),
        ]
    );
    assert_eq!(rendered(&req).body, out.body, "same input, same bytes");
    insta::assert_json_snapshot!("chat_full_no_reasoning_field", body(&req));
}

#[test]
fn full_conversation_with_reasoning_field_and_options() {
    let mut req = conversation();
    req.options = RenderOptions {
        chat_tool_only_content: ToolOnlyContent::Empty,
        chat_reasoning_field: Some("reasoning_content".into()),
        chat_max_tokens_field: "max_completion_tokens".into(),
        chat_tool_result_parts: true,
        ..RenderOptions::default()
    };
    insta::assert_json_snapshot!("chat_full_reasoning_field", body(&req));
}

#[test]
fn tool_only_content_variants() {
    let mut req = conversation();
    let assistant = |v: &Value| v["messages"][5].clone();
    req.options.chat_tool_only_content = ToolOnlyContent::Null;
    assert_eq!(assistant(&body(&req))["content"], Value::Null);
    req.options.chat_tool_only_content = ToolOnlyContent::Empty;
    assert_eq!(assistant(&body(&req))["content"], json!(""));
    req.options.chat_tool_only_content = ToolOnlyContent::Omit;
    assert!(assistant(&body(&req)).get("content").is_none());
}

#[test]
fn extra_body_overrides_in_place_and_appends() {
    let mut req = conversation();
    let mut extra = Map::new();
    extra.insert("thinking".into(), json!({"type":"enabled","keep":"all"}));
    extra.insert("temperature".into(), json!(1));
    extra.insert("stream".into(), json!(false));
    req.extra_body = extra;
    req.messages[0].extra.insert("name".into(), json!("alice"));
    req.query.push(("beta".into(), "true".into()));
    req.headers.push(("X-Title".into(), "Tack".into()));
    let out = rendered(&req);
    assert_eq!(
        out.url,
        "https://api.example.com/v1/chat/completions?beta=true"
    );
    assert!(!out.stream, "extra_body decides the final stream flag");
    assert_eq!(
        out.headers.last().unwrap(),
        &("x-title".to_string(), "Tack".to_string())
    );
    let v: Value = serde_json::from_slice(&out.body).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "model",
            "messages",
            "tools",
            "tool_choice",
            "parallel_tool_calls",
            "stream",
            "stream_options",
            "max_tokens",
            "temperature",
            "top_p",
            "reasoning_effort",
            "prompt_cache_key",
            "metadata",
            "thinking"
        ]
    );
    assert_eq!(v["temperature"], json!(1));
    assert_eq!(v["stream"], json!(false));
    assert_eq!(v["messages"][1]["name"], json!("alice"));
}

#[test]
fn tool_results_with_images_use_parts_and_user_results_come_first() {
    let req = ShapedRequest {
        model: "m".into(),
        messages: vec![ShapedMessage::new(
            ShapedRole::User,
            vec![
                result(
                    "c1",
                    vec![
                        ResultPart::Text { text: "see".into() },
                        ResultPart::Image {
                            url: "data:image/png;base64,AA==".into(),
                        },
                    ],
                ),
                text("and now?"),
            ],
        )],
        ..ShapedRequest::default()
    };
    assert_eq!(
        body(&req)["messages"],
        json!([
            {"role":"tool","tool_call_id":"c1","content":[
                {"type":"text","text":"see"},
                {"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}
            ]},
            {"role":"user","content":"and now?"}
        ])
    );
}

#[test]
fn misplaced_blocks_are_errors() {
    let bad = |role, block| ShapedRequest {
        model: "m".into(),
        messages: vec![ShapedMessage::new(role, vec![block])],
        ..ShapedRequest::default()
    };
    for req in [
        bad(ShapedRole::User, call("c", "f", "{}")),
        bad(ShapedRole::Tool, text("x")),
        bad(ShapedRole::Assistant, result("c", vec![])),
        bad(
            ShapedRole::User,
            Block::RedactedThinking { data: "x".into() },
        ),
    ] {
        assert!(matches!(
            render(&req, Wire::Chat, &Endpoint::new("http://h")),
            Err(RenderError::InvalidMessage { index: 0, .. })
        ));
    }
    let mut nan = bad(ShapedRole::User, text("x"));
    nan.params.temperature = Some(f64::NAN);
    assert!(matches!(
        render(&nan, Wire::Chat, &Endpoint::new("http://h")),
        Err(RenderError::InvalidParam(_))
    ));
}

#[test]
fn tool_names_match_tool_kinds() {
    let req = conversation();
    let v = body(&req);
    let names: Vec<String> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    let kinds = tool_kinds(&req.tools, Wire::Chat);
    assert_eq!(
        names,
        ["shell", "read_file", "apply_patch", "github_create_issue"]
    );
    assert!(names.iter().all(|n| kinds.contains_key(n)));
    assert_eq!(kinds["apply_patch"], ToolKind::Custom);
}
