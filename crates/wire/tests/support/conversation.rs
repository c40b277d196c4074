//! One shaped conversation that exercises every block kind, every wire can render: the golden
//! bodies of `render_wires.rs` are this request on each wire, side by side.

use serde_json::json;
use tack_protocol::ToolSpec;
use tack_wire::{
    Block, ResultPart, ShapedMessage, ShapedRequest, ShapedRole, SystemBlock, ToolChoice,
};

pub fn text(text: &str) -> Block {
    Block::Text {
        text: text.into(),
        cache: false,
    }
}

pub fn call(id: &str, name: &str, arguments: &str) -> Block {
    Block::ToolCall {
        call_id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
        custom_input: None,
    }
}

pub fn result(id: &str, text: &str) -> Block {
    Block::ToolResult {
        call_id: id.into(),
        content: vec![ResultPart::Text { text: text.into() }],
        is_error: None,
        cache: false,
    }
}

/// The tools: a function, a function without description, a freeform tool, and a namespaced
/// function.
pub fn tools() -> Vec<ToolSpec> {
    vec![
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
    ]
}

/// A conversation with images, signed / redacted / encrypted reasoning, parallel calls and
/// their results, a freeform call, a namespaced call, a Kimi-style call id, a failed result,
/// cache breakpoints and a developer note.
pub fn conversation() -> ShapedRequest {
    let mut req = ShapedRequest {
        model: "model-x".into(),
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
                    Block::Image {
                        url: "https://example.com/diagram.png".into(),
                        detail: None,
                    },
                ],
            ),
            ShapedMessage::new(
                ShapedRole::Assistant,
                vec![
                    Block::Thinking {
                        text: "I should list the files and read the README.".into(),
                        signature: Some("EqQBCgIYAhIMsig".into()),
                        encrypted_content: Some("gAAAAB-encrypted".into()),
                        summary: vec!["**Listing** files".into()],
                    },
                    Block::RedactedThinking {
                        data: "EmwKAhgBEgy-redacted".into(),
                    },
                    text("Let me look."),
                    call("call_1", "shell", r#"{"cmd": "ls"}"#),
                    call(
                        "functions.read_file:1",
                        "read_file",
                        r#"{"path":"README.md"}"#,
                    ),
                ],
            ),
            ShapedMessage::new(ShapedRole::Tool, vec![result("call_1", "README.md\nsrc")]),
            ShapedMessage::new(
                ShapedRole::Tool,
                vec![Block::ToolResult {
                    call_id: "functions.read_file:1".into(),
                    content: vec![
                        ResultPart::Text {
                            text: "# Demo".into(),
                        },
                        ResultPart::Image {
                            url: "data:image/jpeg;base64,/9j/4AAQ".into(),
                        },
                    ],
                    is_error: Some(false),
                    cache: true,
                }],
            ),
            ShapedMessage::new(
                ShapedRole::Assistant,
                vec![
                    Block::Thinking {
                        text: "Unsigned reasoning from another provider.".into(),
                        signature: None,
                        encrypted_content: None,
                        summary: Vec::new(),
                    },
                    Block::ToolCall {
                        call_id: "call_3".into(),
                        name: "apply_patch".into(),
                        arguments: String::new(),
                        custom_input: Some("*** Begin Patch\n*** End Patch".into()),
                    },
                    call("call_4", "github_create_issue", r#"{"title":"Flaky"}"#),
                ],
            ),
            ShapedMessage::new(
                ShapedRole::Tool,
                vec![
                    Block::ToolResult {
                        call_id: "call_3".into(),
                        content: vec![ResultPart::Text {
                            text: "patch does not apply".into(),
                        }],
                        is_error: Some(true),
                        cache: false,
                    },
                    result("call_4", "issue #7"),
                ],
            ),
            ShapedMessage::text(ShapedRole::Developer, "Keep answers short."),
            ShapedMessage::new(
                ShapedRole::User,
                vec![Block::Text {
                    text: "Thanks, summarize.".into(),
                    cache: true,
                }],
            ),
        ],
        tools: tools(),
        cache_tools: true,
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
    req.params.reasoning_summary = Some("auto".into());
    req.params.cache_key = Some("session-42".into());
    req.params.metadata = Some(json!({"user_id":"u-42"}));
    req.params.store = Some(false);
    req.params.include = vec!["reasoning.encrypted_content".into()];
    req.headers.push((
        "anthropic-beta".into(),
        "interleaved-thinking-2025-05-14".into(),
    ));
    req
}
