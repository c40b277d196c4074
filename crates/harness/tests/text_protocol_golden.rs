//! Golden Chat bodies of the text-protocol harnesses for fixed histories (insta snapshots):
//! the exact bytes each harness sends, so any change to shaping shows up in review.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod text_protocol_support;

use serde_json::json;
use tack_harness::prompts::PromptStore;
use tack_protocol::{Item, ReasoningItem, ToolOutput};
use text_protocol_support::*;

fn pretty(shaped: &tack_harness::Shaped) -> String {
    let (path, body) = body(shaped);
    format!(
        "POST {path}\n{}",
        serde_json::to_string_pretty(&body).unwrap()
    )
}

fn reasoning(text: &str) -> Item {
    Item::Reasoning(ReasoningItem {
        id: "r".into(),
        text: text.into(),
        ..Default::default()
    })
}

fn swe_history(text_mode: bool) -> Vec<Item> {
    let ls = "Let me see what is in the repository.\n```bash\nls\n```";
    let view = "Now the counter.\n```\nstr_replace_editor view /home/dev/project/counter.py\n```";
    let mut h = vec![
        user("u1", "count(3) should return 3 items, not 2"),
        reasoning("private thoughts, never replayed"),
        assistant("a1", ls),
    ];
    if text_mode {
        h.push(shell_call("swe-agent-1", "ls"));
    } else {
        h.push(call("swe-agent-1", "bash", json!({"command": "ls"})));
    }
    h.push(output(
        "swe-agent-1",
        ToolOutput::ok("README.md\ncounter.py\n"),
    ));
    h.push(assistant("a2", view));
    h.push(call(
        "swe-agent-2",
        "str_replace_editor",
        json!({"command": "view", "path": "/home/dev/project/counter.py"}),
    ));
    h.push(output(
        "swe-agent-2",
        ToolOutput::ok("     1\tdef count(n):\n     2\t    return list(range(n - 1))\n"),
    ));
    h.push(assistant("a3", "I think I understand now."));
    h.push(injected(
        "format_correction",
        "Your previous reply had no command in it, so nothing was run.",
    ));
    h
}

#[test]
fn swe_agent_function_calling() {
    insta::assert_snapshot!(pretty(&shape("swe-agent", swe_history(false))));
}

#[test]
fn swe_agent_thought_action() {
    let mut store = PromptStore::builtin();
    store.import("swe-agent", "tools.json", "[]");
    insta::assert_snapshot!(pretty(&shape_with(
        "swe-agent",
        &prompt(swe_history(true)),
        &store
    )));
}

#[test]
fn mini_swe_agent() {
    let mut failed =
        ToolOutput::error("grep: nothing.py: No such file or directory\n[exit code 2]");
    failed.exit_code = Some(2);
    let h = vec![
        user("u1", "count(3) should return 3 items, not 2"),
        assistant("a1", "THOUGHT: find the function first."),
        call(
            "call_1",
            "bash",
            json!({"command": "grep -n 'def count' *.py nothing.py"}),
        ),
        output("call_1", failed),
        assistant("a2", "I believe the fix is simple."),
        injected(
            "format_correction",
            "Your reply called no tool. Every reply has to include at least one tool call.",
        ),
        assistant("a3", "THOUGHT: fix the range."),
        shell_call("call_2", "sed -i 's/range(n - 1)/range(n)/' counter.py"),
        output("call_2", ToolOutput::ok("")),
    ];
    insta::assert_snapshot!(pretty(&shape("mini-swe-agent", h)));
}

#[test]
fn terminus_2() {
    let act = json!({
        "analysis": "Fresh shell in the project.",
        "plan": "List the files.",
        "commands": [{"keystrokes": "ls\n", "duration": 0.1}],
        "task_complete": false
    })
    .to_string();
    let done = r#"{"analysis": "Done.", "plan": "", "commands": [], "task_complete": true}"#;
    let h = vec![
        user("u1", "Create hello.txt containing hi"),
        assistant("a1", &act),
        call(
            "terminus-2-1",
            "terminal",
            json!({"commands": [{"keystrokes": "ls\n", "duration": 0.1}]}),
        ),
        output(
            "terminus-2-1",
            ToolOutput::ok(
                "New Terminal Output:\n/home/dev/project$ ls\nREADME.md\n/home/dev/project$\n",
            ),
        ),
        assistant("a2", "I will now create the file."),
        injected(
            "parse_error",
            "Your previous response could not be read:\nERROR: No valid JSON found in response\nWARNINGS: - No valid JSON object found\n\nFix these problems and answer again with one valid JSON object in the format described at the start.",
        ),
        assistant("a3", done),
        call("terminus-2-2", "terminal", json!({"commands": []})),
        injected(
            "completion_confirmation",
            "Do you really want to mark the task as complete?",
        ),
        output(
            "terminus-2-2",
            ToolOutput::ok("New Terminal Output:\n/home/dev/project$\n"),
        ),
    ];
    insta::assert_snapshot!(pretty(&shape("terminus-2", h)));
}
