//! Behaviour of claude-code, claude-code-bare and zcode through the public `Harness` trait:
//! the anchor's tested behaviours that concern them (openinterpreter 0.0.40, the tests in
//! `codex-rs/core/src/harness/claude_code.rs` and `zcode.rs`; `docs/sources.md`), the
//! tool binding round trip from a decoded Messages stream, overrides and identity.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod anthropic_fixture;

use std::sync::Arc;

use anthropic_fixture::{anthropic, context, engine_tools, zai};
use serde_json::{Value, json};
use tack_harness::prompts::PromptStore;
use tack_harness::{BoundCall, Harness, Registry, ShapeEnv, Shaped};
use tack_protocol::{
    FunctionCallItem, Item, Prompt, ReasoningOrigin, Role, StreamEvent, ToolInput, ToolOutput,
    ToolOutputItem, Wire,
};
use tack_wire::{Block, Endpoint, ShapedRole, Thinking, render};

fn harness(id: &str) -> Arc<dyn Harness> {
    Registry::builtin().get(id).expect("registered")
}

fn prompt(model: &str, history: Vec<Item>) -> Prompt {
    Prompt {
        examples: Vec::new(),
        history,
        tools: engine_tools(),
        instructions: None,
        context: context(model, anthropic()),
    }
}

fn shape_with(id: &str, p: &Prompt, wire: Wire, store: &PromptStore) -> Shaped {
    harness(id)
        .shape(
            p,
            wire,
            &ShapeEnv {
                prompts: store,
                emulate_identity: false,
            },
        )
        .expect("shape")
}

fn shape(id: &str, p: &Prompt, wire: Wire) -> Shaped {
    shape_with(id, p, wire, &PromptStore::builtin())
}

fn body(shaped: &Shaped, wire: Wire) -> Value {
    let r = render(
        &shaped.request,
        wire,
        &Endpoint::new("https://api.anthropic.com"),
    )
    .expect("render");
    serde_json::from_slice(&r.body).expect("json")
}

fn user(text: &str) -> Item {
    Item::text(format!("u_{text}"), Role::User, text)
}

fn call(id: &str, name: &str, args: Value) -> Item {
    Item::FunctionCall(FunctionCallItem {
        id: format!("fc_{id}"),
        call_id: id.into(),
        name: name.into(),
        namespace: None,
        arguments: args.to_string(),
    })
}

fn output(id: &str, text: &str) -> Item {
    Item::ToolOutput(ToolOutputItem {
        id: format!("o_{id}"),
        call_id: id.into(),
        output: ToolOutput::ok(text),
    })
}

#[test]
fn thinking_follows_model_family_and_version() {
    // The anchor's thinking-by-model tests, with the capture's 5.x row.
    let p = |m: &str| prompt(m, vec![user("hi")]);
    for (model, adaptive, max) in [
        ("claude-opus-4-6", true, 64_000),
        ("anthropic/claude-sonnet-4.6", true, 32_000),
        ("claude-opus-5-5", true, 128_000),
        ("claude-sonnet-4-5-20250929", false, 32_000),
        ("claude-opus-4-1", false, 32_000),
    ] {
        let s = shape("claude-code", &p(model), Wire::Messages);
        let params = &s.request.params;
        assert_eq!(params.max_tokens, Some(max), "{model}");
        if adaptive {
            assert_eq!(params.thinking, Some(Thinking::Adaptive), "{model}");
            assert_eq!(
                s.request.extra_body["thinking"],
                json!({"type": "adaptive", "display": "omitted"})
            );
        } else {
            assert_eq!(
                params.thinking,
                Some(Thinking::Enabled {
                    budget_tokens: max - 1
                }),
                "{model}"
            );
            assert!(s.request.extra_body.get("thinking").is_none());
        }
        assert!(
            s.request.extra_body.contains_key("context_management"),
            "{model}"
        );
    }
}

#[test]
fn thinking_is_left_off_when_the_open_tool_loop_started_without_it() {
    // A tool loop begun by another provider (no signed thinking) cannot continue with
    // thinking on: the API would reject the request.
    let history = vec![
        user("list"),
        call("c1", "Bash", json!({"command": "ls"})),
        output("c1", "a\nb"),
    ];
    let s = shape(
        "claude-code",
        &prompt("claude-opus-4-6", history),
        Wire::Messages,
    );
    assert_eq!(s.request.params.thinking, None);
    assert!(
        s.request.extra_body.is_empty(),
        "{:?}",
        s.request.extra_body
    );
}

#[test]
fn bare_profile_is_short_with_three_tools_and_high_effort() {
    // The anchor's claude_code.rs tests: effort none.
    let s = shape(
        "claude-code-bare",
        &prompt("deepseek-chat", vec![user("hi")]),
        Wire::Messages,
    );
    let names: Vec<&str> = s.request.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["Bash", "Edit", "Read"]);
    assert_eq!(s.request.params.reasoning_effort.as_deref(), Some("high"));
    assert_eq!(s.request.system.len(), 2);
    assert!(
        s.request.system[1]
            .text
            .starts_with("CWD: /home/dev/project\nDate: 2026-11-29")
    );
    assert!(
        s.request.system[1].text.len() < 1000,
        "{}",
        s.request.system[1].text
    );
    assert!(
        s.request
            .messages
            .iter()
            .all(|m| m.role != ShapedRole::System)
    );
    // Calls to tools bare does not have are refused, not run.
    let refused = harness("claude-code-bare").bind_call(&call(
        "c",
        "Write",
        json!({"file_path": "a", "content": ""}),
    ));
    assert!(refused.is_err());
}

#[test]
fn full_profile_layout_follows_the_capture() {
    let s = shape(
        "claude-code",
        &prompt("claude-opus-5-5", vec![user("hi")]),
        Wire::Messages,
    );
    let r = &s.request;
    assert_eq!(r.query, [("beta".to_string(), "true".to_string())]);
    assert_eq!(r.params.reasoning_effort.as_deref(), Some("medium"));
    assert_eq!(r.messages.len(), 2);
    assert_eq!(r.messages[1].role, ShapedRole::System);
    // One message-level breakpoint: the last block (here the environment message).
    let cached: Vec<(usize, usize)> = r
        .messages
        .iter()
        .enumerate()
        .flat_map(|(i, m)| {
            m.content
                .iter()
                .enumerate()
                .filter_map(move |(j, b)| match b {
                    Block::Text { cache: true, .. } | Block::ToolResult { cache: true, .. } => {
                        Some((i, j))
                    }
                    _ => None,
                })
        })
        .collect();
    assert_eq!(cached, [(1, 0)]);
    assert!(r.system.iter().all(|b| b.cache));
    assert!(
        s.extra_requests.is_empty(),
        "no preflight, no title request"
    );
    assert!(s.postprocess.is_none());
    let b = body(&s, Wire::Messages);
    assert!(
        b["metadata"]["user_id"]
            .as_str()
            .is_some_and(|u| !u.contains("device"))
    );
}

#[test]
fn git_status_is_the_sessions_first_snapshot() {
    let h = harness("claude-code");
    let store = PromptStore::builtin();
    let env = ShapeEnv {
        prompts: &store,
        emulate_identity: false,
    };
    let mut p = prompt("claude-opus-4-6", vec![user("hi")]);
    let first = h.shape(&p, Wire::Messages, &env).expect("shape");
    if let Some(git) = p.context.git.as_mut() {
        git.status = " M a\n M b\n?? c\n".into();
    }
    let later = h.shape(&p, Wire::Messages, &env).expect("shape");
    assert_eq!(
        first.request.messages[0], later.request.messages[0],
        "stable prefix"
    );
    p.context.session_id = "another".into();
    let other = h.shape(&p, Wire::Messages, &env).expect("shape");
    assert_ne!(first.request.messages[0], other.request.messages[0]);
}

#[test]
fn claude_code_renders_on_chat_and_responses_from_the_same_shaping() {
    let history = vec![user("hi")];
    let mut p = prompt("gpt-5", history);
    p.context.provider.base_url = "https://api.openai.com/v1".into();
    let messages = shape("claude-code", &p, Wire::Messages);
    for wire in [Wire::Chat, Wire::Responses] {
        let s = shape("claude-code", &p, wire);
        let names: Vec<&str> = s.request.tools.iter().map(|t| t.name.as_str()).collect();
        let on_messages: Vec<&str> = messages
            .request
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(names, on_messages, "{wire}");
        // Same main prompt; the environment is a second system block there.
        assert_eq!(
            s.request.system[0].text, messages.request.system[1].text,
            "{wire}"
        );
        assert!(s.request.system[1].text.starts_with("# Environment"));
        assert!(
            s.request
                .messages
                .iter()
                .all(|m| m.role != ShapedRole::System)
        );
        assert!(s.request.headers.is_empty() && s.request.query.is_empty());
        let b = body(&s, wire);
        assert!(b.to_string().contains("\"Bash\""));
        assert!(
            !b.to_string().contains("json-schema.org"),
            "{wire}: no $schema off Messages"
        );
    }
}

#[test]
fn zcode_request_shape() {
    // The anchor's compaction test (the compaction request is not implemented: the engine has no
    // compaction yet).
    let mut p = prompt("zai/glm-4.6", vec![user("hi")]);
    p.context = context("zai/glm-4.6", zai());
    let s = shape("zcode", &p, Wire::Messages);
    let r = &s.request;
    assert_eq!(r.model, "glm-4.6");
    assert_eq!(r.system.len(), 3);
    assert!(r.system.iter().all(|b| b.cache));
    assert_eq!(r.params.max_tokens, Some(64_000));
    assert_eq!(r.params.thinking, None);
    assert_eq!(r.params.metadata, None);
    let names: Vec<&str> = r.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "AskUserQuestion",
            "Bash",
            "Edit",
            "Read",
            "TodoWrite",
            "Write"
        ]
    );
    let b = body(&s, Wire::Messages);
    assert_eq!(b["tool_choice"], json!({"type": "auto"}));
    // The project instructions ride in the in-conversation system message slot.
    assert_eq!(r.messages[1].role, ShapedRole::System);
    // No beta outside api.anthropic.com; with it when the same request goes there.
    assert!(!r.headers.iter().any(|(k, _)| k == "anthropic-beta"));
    p.context.provider = anthropic();
    let s = shape("zcode", &p, Wire::Messages);
    assert!(
        s.request
            .headers
            .iter()
            .any(|(k, v)| k == "anthropic-beta" && v.contains("mid-conversation"))
    );
    // Empty command output reads the ZCode way.
    let z = harness("zcode");
    let c = call("c", "Bash", json!({"command": "true"}));
    assert_eq!(
        z.adapt_output(&c, ToolOutput::ok("")).text,
        "Command executed successfully."
    );
    // Nothing is written into the workspace (the anchor's `.zcode/` cache).
    assert!(!std::path::Path::new("/home/dev/project/.zcode").exists());
}

#[test]
fn tools_json_override_replaces_the_surface_and_reports_its_source() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("claude-code");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(
        folder.join("tools.json"),
        json!([
            {"name": "Agent", "description": "no handler", "input_schema": {"type": "object"}},
            {"name": "Bash", "description": "my bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}},
            {"name": "Read", "description": "my read", "input_schema": {"type": "object"}}
        ])
        .to_string(),
    )
    .expect("write");
    std::fs::write(folder.join("system.md"), "Custom prompt for {{ cwd }}.").expect("write");
    let store = PromptStore::with_override_dir(dir.path());
    let s = shape_with(
        "claude-code",
        &prompt("claude-opus-4-6", vec![user("hi")]),
        Wire::Messages,
        &store,
    );
    let names: Vec<&str> = s.request.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["Bash", "Read"]);
    assert_eq!(s.request.tools[0].description, "my bash");
    assert_eq!(
        s.request.system[1].text,
        "Custom prompt for /home/dev/project."
    );
    let system = folder.join("system.md").display().to_string();
    let tools = folder.join("tools.json").display().to_string();
    assert_eq!(s.prompt_source, format!("file:{system}, file:{tools}"));
    let builtin = shape(
        "claude-code",
        &prompt("claude-opus-4-6", vec![user("hi")]),
        Wire::Messages,
    );
    assert_eq!(builtin.prompt_source, "builtin:claude-code/system.md");
}

fn bound(h: &dyn Harness, name: &str, args: Value) -> (String, Value) {
    match h.bind_call(&call("toolu_9", name, args)) {
        Ok(BoundCall {
            tool,
            input: ToolInput::Json(v),
        }) => (tool, v),
        Ok(other) => panic!("{other:?}"),
        Err(e) => panic!("{}", e.text),
    }
}

#[test]
fn decoded_messages_stream_binds_to_engine_tools() {
    // The anchor's Messages SSE tests (`codex-api/src/sse/anthropic.rs`): a tool_use whose start has `input: {}` and whose arguments stream
    // as input_json_delta, next to a text block that finishes later; the decoded call binds.
    let sse = concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-opus-4-6\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":0}}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Listing.\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_A\",\"name\":\"Bash\",\"input\":{}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\": \\\"ls -la\\\", \"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"timeout\\\": 5000}\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":20}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    let s = shape(
        "claude-code",
        &prompt("claude-opus-4-6", vec![user("ls")]),
        Wire::Messages,
    );
    let origin = ReasoningOrigin {
        wire: Wire::Messages,
        provider: Some("anthropic".into()),
        model: None,
    };
    let events =
        tack_wire::decode_all(Wire::Messages, s.tool_kinds.clone(), origin, sse.as_bytes());
    let calls: Vec<Item> = events
        .into_iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::ItemDone { item }) if item.is_tool_call() => Some(item),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 1);
    let bound = harness("claude-code").bind_call(&calls[0]).expect("bind");
    assert_eq!(bound.tool, "shell");
    assert_eq!(
        bound.input,
        ToolInput::Json(json!({"command": "ls -la", "timeout_ms": 5000}))
    );
}

#[test]
fn every_cli_tool_binds_to_its_engine_tool() {
    let h = harness("claude-code");
    let h = h.as_ref();
    assert_eq!(bound(h, "Read", json!({"file_path": "/a"})).0, "read_file");
    assert_eq!(
        bound(h, "Write", json!({"file_path": "/a", "content": "x"})).0,
        "write_file"
    );
    assert_eq!(
        bound(
            h,
            "Edit",
            json!({"file_path": "/a", "old_string": "x", "new_string": "y"})
        )
        .0,
        "edit"
    );
    assert_eq!(bound(h, "Glob", json!({"pattern": "**/*.rs"})).0, "glob");
    assert_eq!(bound(h, "Grep", json!({"pattern": "fn"})).0, "grep");
    assert_eq!(bound(h, "TodoWrite", json!({"todos": []})).0, "todo_write");
    assert_eq!(
        bound(h, "AskUserQuestion", json!({"questions": [{"question": "Which?", "header": "Pick", "options": [{"label": "A", "description": "a"}, {"label": "B", "description": "b"}], "multiSelect": false}]})).0,
        "ask_user"
    );
    assert_eq!(bound(h, "bash", json!({"command": "ls"})).0, "shell");
    let err = h
        .bind_call(&call("c", "Bash", json!({"cmd": "ls"})))
        .expect_err("refused");
    assert!(err.text.contains("`command` is missing"), "{}", err.text);
}

#[test]
fn provider_examples_come_first_as_earlier_conversation() {
    let mut p = prompt("claude-opus-4-6", vec![user("the real question")]);
    p.examples = vec![
        user("example question"),
        call("ex1", "Bash", json!({"command": "date"})),
        output("ex1", "Sun Nov 29"),
        Item::text("ex_a", Role::Assistant, "Done: Sun Nov 29"),
    ];
    for id in ["claude-code", "zcode"] {
        let s = shape(id, &p, Wire::Messages);
        let texts: Vec<String> = s
            .request
            .messages
            .iter()
            .flat_map(|m| m.content.iter())
            .filter_map(|b| match b {
                Block::Text { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect();
        let example = texts.iter().position(|t| t == "example question");
        let question = texts.iter().position(|t| t == "the real question");
        assert!(example.is_some() && example < question, "{id}: {texts:?}");
    }
}
