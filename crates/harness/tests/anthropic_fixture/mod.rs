//! One fixed multi-turn history and step context for the golden and structural tests of the
//! Anthropic-style harnesses (claude-code, claude-code-bare, zcode): text, a user image, signed
//! reasoning, parallel tool calls whose results arrive out of order, a command that fails, a
//! tool error, an edit, and a follow-up question. Time is an input (`StepContext.now`), so
//! every run renders the same bytes.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use tack_protocol::{
    ApprovalPolicy, ContentPart, FunctionCallItem, GitState, Item, MessageItem, ProjectDoc, Prompt,
    ProviderInfo, ReasoningItem, ReasoningOrigin, Role, StepContext, ToolOutput, ToolOutputItem,
    ToolSpec, Wire,
};

/// A 1×1 transparent PNG.
pub const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// The engine tools a step offers (only the names matter to these harnesses).
pub fn engine_tools() -> Vec<ToolSpec> {
    [
        "shell",
        "read_file",
        "write_file",
        "edit",
        "apply_patch",
        "list_dir",
        "glob",
        "grep",
        "todo_write",
        "ask_user",
    ]
    .into_iter()
    .map(|name| ToolSpec::function(name, format!("engine {name}"), json!({"type": "object"})))
    .collect()
}

pub fn context(model: &str, provider: ProviderInfo) -> StepContext {
    StepContext {
        session_id: "sess_0193".into(),
        turn_id: "turn_2".into(),
        step: 3,
        cwd: "/home/dev/project".into(),
        now: "2026-11-29T10:15:00+01:00".into(),
        os: "linux".into(),
        os_version: "Linux 6.18.0".into(),
        shell: "/bin/bash".into(),
        git: Some(GitState {
            branch: "fix-parse".into(),
            main_branch: "main".into(),
            user_name: Some("Dev".into()),
            status: " M src/main.rs\n".into(),
            recent_commits: "a1b2c3d Parse the config file\n0f9e8d7 Initial commit\n".into(),
        }),
        project_docs: vec![ProjectDoc {
            path: "/home/dev/project/AGENTS.md".into(),
            content: "Run `cargo test` before you finish.".into(),
        }],
        listing: Vec::new(),
        model: model.into(),
        provider,
        approval: ApprovalPolicy::OnRequest,
    }
}

pub fn anthropic() -> ProviderInfo {
    ProviderInfo {
        id: "anthropic".into(),
        name: "Anthropic".into(),
        base_url: "https://api.anthropic.com".into(),
        wire: Wire::Messages,
    }
}

pub fn zai() -> ProviderInfo {
    ProviderInfo {
        id: "zai".into(),
        name: "Z.AI".into(),
        base_url: "https://api.z.ai/api/anthropic".into(),
        wire: Wire::Messages,
    }
}

fn message(id: &str, role: Role, parts: Vec<ContentPart>) -> Item {
    Item::Message(MessageItem {
        id: id.into(),
        role,
        content: parts,
        injected_by: None,
    })
}

fn text(t: &str) -> ContentPart {
    ContentPart::Text { text: t.into() }
}

fn call(call_id: &str, name: &str, args: serde_json::Value) -> Item {
    Item::FunctionCall(FunctionCallItem {
        id: format!("fc_{call_id}"),
        call_id: call_id.into(),
        name: name.into(),
        namespace: None,
        arguments: args.to_string(),
    })
}

fn output(call_id: &str, output: ToolOutput) -> Item {
    Item::ToolOutput(ToolOutputItem {
        id: format!("out_{call_id}"),
        call_id: call_id.into(),
        output,
    })
}

fn thinking(id: &str, text: &str, signature: &str) -> Item {
    Item::Reasoning(ReasoningItem {
        id: id.into(),
        text: text.into(),
        signature: Some(signature.into()),
        origin: Some(ReasoningOrigin {
            wire: Wire::Messages,
            provider: Some("anthropic".into()),
            model: Some("claude-opus-4-6".into()),
        }),
        ..Default::default()
    })
}

/// The history: two user turns, the second still in its tool loop.
pub fn history(tool: fn(&str) -> &'static str) -> Vec<Item> {
    vec![
        message(
            "msg_u1",
            Role::User,
            vec![
                text("The build fails with the error in this screenshot. Can you fix it?"),
                ContentPart::Image {
                    url: PNG.into(),
                    detail: None,
                },
            ],
        ),
        thinking(
            "rs_1",
            "The screenshot shows a type error in main.rs. Read it and run the build.",
            "EqQBsig1==",
        ),
        message(
            "msg_a1",
            Role::Assistant,
            vec![text("I'll read the file and run the build.")],
        ),
        call(
            "toolu_01",
            tool("Read"),
            json!({"file_path": "/home/dev/project/src/main.rs"}),
        ),
        call(
            "toolu_02",
            tool("Bash"),
            json!({"command": "cargo build 2>&1 | tail -5", "description": "Build the project"}),
        ),
        // The build finished first: results are recorded out of call order.
        output(
            "toolu_02",
            ToolOutput {
                exit_code: Some(101),
                ..ToolOutput::error(
                    "error[E0308]: mismatched types\n --> src/main.rs:2:18\n[exit code 101]\n",
                )
            },
        ),
        output(
            "toolu_01",
            ToolOutput::ok(
                "     1\tfn main() {\n     2\t    let port: u16 = \"8080\";\n     3\t}\n",
            ),
        ),
        thinking(
            "rs_2",
            "The literal is a string; make it a number.",
            "EqQBsig2==",
        ),
        call(
            "toolu_03",
            tool("Edit"),
            json!({"file_path": "/home/dev/project/src/main.rs", "old_string": "\"8080\"", "new_string": "8080;   "}),
        ),
        output(
            "toolu_03",
            ToolOutput::ok("Edited src/main.rs (1 replacement)."),
        ),
        call(
            "toolu_04",
            tool("Read"),
            json!({"file_path": "/home/dev/project/missing.rs"}),
        ),
        output(
            "toolu_04",
            ToolOutput::error("/home/dev/project/missing.rs does not exist."),
        ),
        message(
            "msg_a2",
            Role::Assistant,
            vec![text(
                "Fixed: `port` was a string literal; it is a number now.",
            )],
        ),
        message(
            "msg_u2",
            Role::User,
            vec![text("Thanks. Now run the tests.")],
        ),
        thinking("rs_3", "Run cargo test.", "EqQBsig3=="),
        call("toolu_05", tool("Bash"), json!({"command": "cargo test"})),
        output(
            "toolu_05",
            ToolOutput::ok("running 3 tests\n...\ntest result: ok. 3 passed\n\n"),
        ),
    ]
}

/// Claude Code's tool names.
pub fn cli_names(name: &str) -> &'static str {
    match name {
        "Read" => "Read",
        "Bash" => "Bash",
        "Edit" => "Edit",
        _ => "Write",
    }
}

pub fn prompt(model: &str, provider: ProviderInfo) -> Prompt {
    Prompt {
        examples: Vec::new(),
        history: history(cli_names),
        tools: engine_tools(),
        instructions: Some("Answer in English.".into()),
        context: context(model, provider),
    }
}
