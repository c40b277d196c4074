//! Structural conformance of the chat-native harnesses with the captures of the real CLIs
//! (Qwen Code 0.24.4, Kimi CLI 1.52.0, opencode 1.18.33: their capture files in
//! `../shared/spec/captures/`, test inputs kept outside the repository, "Mechanically derived
//! structure"): for a one-prompt session like the captured one, the same endpoint path, the same
//! top-level body keys in the same order, the same message roles in order, the same scalar options, and every
//! advertised tool present in the capture, in the capture's relative order, with the same
//! parameter names (in order) and required list. Tools the capture has and Tack cannot carry
//! out (agents, web fetch, …) are the only ones allowed to be missing.
//!
//! The captures are read from `$TACK_SHARED` or `<workspace>/../shared`; without them each
//! test prints `skipped: no ../shared` and passes. kimi-code and deepseek-tui have no capture;
//! their structure is pinned against the anchor (openinterpreter 0.0.40,
//! `core/src/harness/kimi_code.rs`, `deepseek_tui.rs`) with hand-encoded facts.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod chat_native_fixture;

use std::path::PathBuf;

use chat_native_fixture as fx;
use serde_json::{Value, json};

const PROMPT: &str = "List the files and tell me what hello.py does";

fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("TACK_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    dir.join("spec/captures").is_dir().then_some(dir)
}

/// One request of a capture's mechanically derived structure.
#[derive(Debug, Default)]
struct Captured {
    path: String,
    keys: Vec<String>,
    /// (role, content): `string` or the number of blocks.
    messages: Vec<(String, String)>,
    /// (name, parameters in order, required).
    tools: Vec<(String, Vec<String>, Vec<String>)>,
}

/// Parses request `number` of the section about `file` (e.g. `requests-yolo.jsonl`).
fn captured(capture: &str, file: &str, number: usize) -> Option<Captured> {
    let root = shared()?;
    let text = std::fs::read_to_string(root.join("spec/captures").join(capture)).ok()?;
    let section = text
        .split("## Mechanically derived structure")
        .find(|s| s.starts_with(&format!(" ({file})")))?;
    let request = section
        .split("### Request #")
        .find(|r| r.starts_with(&format!("{number}:")))?;
    let mut out = Captured::default();
    let mut in_messages = false;
    let mut in_tools = false;
    for line in request.lines() {
        if let Some(rest) = line.strip_prefix(&format!("{number}: POST ")) {
            out.path = rest.trim().to_string();
        } else if let Some(rest) = line.strip_prefix("Top-level body keys (in order): `") {
            out.keys = rest
                .trim_end_matches('`')
                .split(", ")
                .map(str::to_string)
                .collect();
        } else if line.starts_with("`messages`") {
            (in_messages, in_tools) = (true, false);
        } else if line.starts_with("`tools`") {
            (in_messages, in_tools) = (false, true);
        } else if in_messages && line.contains(". role=`") {
            let role = line.split('`').nth(1).unwrap().to_string();
            let content = line.split("content: ").nth(1).unwrap();
            let kind = if content.starts_with("string") {
                "string".to_string()
            } else {
                content.split(' ').next().unwrap().to_string()
            };
            out.messages.push((role, kind));
        } else if in_tools && line.starts_with("- `") {
            let name = line.split('`').nth(1).unwrap().to_string();
            let params = line.split('(').nth(1).unwrap().split(')').next().unwrap();
            let params: Vec<String> = params
                .split(", ")
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect();
            let required = line
                .split("required=[")
                .nth(1)
                .unwrap()
                .trim_end_matches(']');
            let required: Vec<String> = required
                .split(", ")
                .filter(|r| !r.is_empty())
                .map(|r| r.trim_matches('\'').to_string())
                .collect();
            out.tools.push((name, params, required));
        }
    }
    Some(out)
}

fn body(req: &tack_wire::RenderedRequest) -> Value {
    serde_json::from_slice(&req.body).unwrap()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Compares a rendered request with a captured one (see the module docs). `user_blocks`
/// checks the captured user content shape against ours.
fn assert_matches(harness: &str, ours: &tack_wire::RenderedRequest, cap: &Captured) {
    let b = body(ours);
    assert!(
        ours.url.ends_with(&cap.path),
        "{harness}: {} vs {}",
        ours.url,
        cap.path
    );
    let keys: Vec<String> = b.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, cap.keys, "{harness}: top-level keys in order");
    let messages = b["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    let cap_roles: Vec<&str> = cap.messages.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(roles, cap_roles, "{harness}: message roles");
    for (m, (_, kind)) in messages.iter().zip(&cap.messages) {
        if kind == "string" {
            assert!(
                m["content"].is_string(),
                "{harness}: {m} should have string content"
            );
        } else {
            let parts = m["content"].as_array().expect("array content");
            assert!(
                parts.iter().all(|p| p["type"] == "text"),
                "{harness}: text parts"
            );
        }
    }
    if cap.tools.is_empty() {
        assert!(b.get("tools").is_none(), "{harness}: no tools");
        return;
    }
    // Every tool we advertise is in the capture, in the capture's relative order, with the
    // same parameters and required list.
    let tools = b["tools"].as_array().unwrap();
    let mut last_index = None;
    for tool in tools {
        let f = &tool["function"];
        let name = f["name"].as_str().unwrap();
        let index = cap
            .tools
            .iter()
            .position(|(n, _, _)| n == name)
            .unwrap_or_else(|| panic!("{harness}: `{name}` is not in the capture"));
        assert!(
            last_index < Some(index),
            "{harness}: `{name}` is out of the capture's order"
        );
        last_index = Some(index);
        let (_, params, required) = &cap.tools[index];
        let ours: Vec<String> = f["parameters"]["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        assert_eq!(&ours, params, "{harness}: parameters of `{name}`");
        let ours_required: Vec<String> = f["parameters"]["required"]
            .as_array()
            .map(|r| r.iter().map(|v| v.as_str().unwrap().to_string()).collect())
            .unwrap_or_default();
        assert_eq!(&ours_required, required, "{harness}: required of `{name}`");
    }
}

#[test]
fn qwen_code_matches_the_capture() {
    let Some(cap) = captured("qwen-code.md", "requests-yolo.jsonl", 1) else {
        tack_tests::no_shared();
        return;
    };
    let base = "http://127.0.0.1:18002/v1";
    let prompt = fx::single_turn(fx::provider("capture", base), "qwen3-coder-plus", PROMPT);
    let shaped = fx::shape("qwen-code", &prompt, false);
    assert!(shaped.extra_requests.is_empty());
    let req = fx::render_chat(&shaped.request, base);
    assert_matches("qwen-code", &req, &cap);
    let b = body(&req);
    assert_eq!(b["max_tokens"], json!(32768));
    assert_eq!(b["stream"], json!(true));
    assert_eq!(b["stream_options"], json!({"include_usage": true}));
    for absent in ["temperature", "tool_choice", "top_p", "parallel_tool_calls"] {
        assert!(b.get(absent).is_none(), "{absent}");
    }
    // The startup context and the date lead the first user message; the prompt comes last,
    // as the capture's 45-character final part.
    let parts = b["messages"][1]["content"].as_array().unwrap();
    assert!(
        parts[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("<system-reminder>")
    );
    assert!(
        parts[0]["text"]
            .as_str()
            .unwrap()
            .contains("/home/dev/project/\n├───hello.py")
    );
    assert_eq!(parts.last().unwrap()["text"], json!(PROMPT));
    assert_eq!(
        cap.messages[1].1, "5",
        "the capture's user message has 5 parts"
    );
    // The tools the capture shows that Tack carries out are all advertised.
    let names: Vec<&str> = b["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "edit",
            "glob",
            "grep_search",
            "read_file",
            "run_shell_command",
            "write_file"
        ]
    );
}

#[test]
fn kimi_cli_matches_the_capture() {
    let Some(cap) = captured("kimi-cli.md", "requests.jsonl", 1) else {
        tack_tests::no_shared();
        return;
    };
    let base = "http://127.0.0.1:18007/v1";
    let prompt = fx::single_turn(fx::provider("capture", base), "kimi-k2", PROMPT);
    let req = fx::render_chat(&fx::shape("kimi-cli", &prompt, false).request, base);
    assert_matches("kimi-cli", &req, &cap);
    let b = body(&req);
    assert_eq!(b["messages"][1]["content"], json!(PROMPT));
    assert_eq!(b["prompt_cache_key"], json!("ses_fixture"));
    assert_eq!(b["thinking"], json!({"type": "disabled"}));
    // The context window left after the prompt (the capture: 249252 of 262144).
    let max = b["max_completion_tokens"].as_u64().unwrap();
    assert!((240_000..262_144).contains(&max), "{max}");
    assert!(b.get("temperature").is_none());
    let names: Vec<&str> = b["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "AskUserQuestion",
            "SetTodoList",
            "Shell",
            "ReadFile",
            "Glob",
            "Grep",
            "WriteFile",
            "StrReplaceFile"
        ]
    );
}

#[test]
fn opencode_matches_the_capture() {
    let (Some(title_cap), Some(main_cap)) = (
        captured("opencode.md", "requests-qwen3-coder-plus.jsonl", 1),
        captured("opencode.md", "requests-qwen3-coder-plus.jsonl", 2),
    ) else {
        tack_tests::no_shared();
        return;
    };
    let base = "http://127.0.0.1:18011/v1";
    let prompt = fx::single_turn(fx::provider("capture", base), "qwen3-coder-plus", PROMPT);
    let shaped = fx::shape("opencode", &prompt, false);
    // The title request goes first (the engine sends extra requests before the main one).
    assert_eq!(shaped.extra_requests.len(), 1);
    let title = fx::render_chat(&shaped.extra_requests[0].request, base);
    assert_matches("opencode title", &title, &title_cap);
    let tb = body(&title);
    assert_eq!(tb["max_tokens"], json!(32000));
    assert_eq!(
        tb["messages"][2]["content"],
        json!(PROMPT),
        "sent as typed (no argv quoting)"
    );
    let main = fx::render_chat(&shaped.request, base);
    assert_matches("opencode", &main, &main_cap);
    let b = body(&main);
    assert_eq!(b["max_tokens"], json!(32000));
    assert_eq!(b["tool_choice"], json!("auto"));
    assert!(
        b.get("temperature").is_none(),
        "the capture sends no temperature"
    );
    for tool in b["tools"].as_array().unwrap() {
        assert!(
            tool["function"]["parameters"].get("$schema").is_some(),
            "{tool}"
        );
    }
    let system = b["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("<env>") && system.contains("Platform: linux"),
        "{system}"
    );
    assert!(system.contains("Today's date: Sun Nov 29 2026"), "{system}");
    assert!(
        system.contains("capture/qwen3-coder-plus"),
        "the session's own model id"
    );
}

/// No capture: the anchor's tool order (`kimi_code_tools.json`) restricted to the tools Tack carries out.
#[test]
fn kimi_code_follows_the_anchor() {
    let anchor = [
        "Agent",
        "AgentSwarm",
        "AskUserQuestion",
        "Bash",
        "CreateGoal",
        "CronCreate",
        "CronDelete",
        "CronList",
        "Edit",
        "EnterPlanMode",
        "ExitPlanMode",
        "FetchURL",
        "GetGoal",
        "Glob",
        "Grep",
        "Read",
        "ReadMediaFile",
        "SetGoalBudget",
        "Skill",
        "TaskList",
        "TaskOutput",
        "TaskStop",
        "TodoList",
        "UpdateGoal",
        "Write",
    ];
    let (provider, model) = fx::home("kimi-code");
    let base = provider.base_url.clone();
    let prompt = fx::single_turn(provider, model, PROMPT);
    let b = body(&fx::render_chat(
        &fx::shape("kimi-code", &prompt, false).request,
        &base,
    ));
    let names: Vec<&str> = b["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    let positions: Vec<usize> = names
        .iter()
        .map(|n| anchor.iter().position(|a| a == n).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{names:?}");
    assert_eq!(
        names,
        [
            "AskUserQuestion",
            "Bash",
            "Edit",
            "Glob",
            "Grep",
            "Read",
            "TodoList",
            "Write"
        ]
    );
    let bash = &b["tools"][1]["function"]["parameters"];
    let params: Vec<&String> = bash["properties"].as_object().unwrap().keys().collect();
    assert_eq!(
        params,
        [
            "command",
            "cwd",
            "timeout",
            "description",
            "run_in_background",
            "disable_timeout"
        ]
    );
    assert_eq!(b["max_completion_tokens"], json!(32768));
    assert_eq!(b["prompt_cache_key"], json!("session_ses_fixture"));
    assert_eq!(b["thinking"], json!({"type": "enabled", "keep": "all"}));
    assert!(b.get("reasoning_effort").is_none());
    let roles: Vec<&str> = b["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "user"],
        "prompt, then the permission reminder"
    );
    assert!(
        b["messages"][2]["content"]
            .as_str()
            .unwrap()
            .starts_with("<system-reminder>")
    );
}

/// No capture: the anchor's facts (`deepseek_tui_tools.json`) for the tools Tack carries out.
#[test]
fn deepseek_tui_follows_the_anchor() {
    let (provider, model) = fx::home("deepseek-tui");
    let base = provider.base_url.clone();
    let prompt = fx::single_turn(provider, model, PROMPT);
    let b = body(&fx::render_chat(
        &fx::shape("deepseek-tui", &prompt, false).request,
        &base,
    ));
    assert_eq!(b["max_tokens"], json!(64000));
    assert_eq!(b["tool_choice"], json!("auto"));
    let names: Vec<String> = b["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        sorted(names.clone()),
        names,
        "the anchor's alphabetical order"
    );
    for handled in [
        "edit_file",
        "exec_shell",
        "file_search",
        "grep_files",
        "list_dir",
        "read_file",
        "write_file",
    ] {
        assert!(names.iter().any(|n| n == handled), "{handled}");
    }
    let exec = b["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "exec_shell")
        .unwrap();
    assert_eq!(
        exec["function"]["parameters"]["required"],
        json!(["command"])
    );
    let user = b["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.starts_with("<turn_meta>\n") && user.ends_with(PROMPT),
        "{user}"
    );
    assert!(
        user.contains("active_paths: hello.py"),
        "named by the user first: {user}"
    );
}
