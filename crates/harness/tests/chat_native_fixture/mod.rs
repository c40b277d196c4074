//! One fixed multi-turn history for the chat-native harnesses (qwen-code, kimi-cli, kimi-code,
//! opencode, deepseek-tui), written with each CLI's own tool names and arguments, as the engine
//! would record it: tool outputs pass through the harness's `adapt_output` exactly as the turn
//! loop does. It has text, an image, reasoning, two parallel tool calls, a failed command, and
//! a final user follow-up; time, workspace and session are fixed inputs.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use tack_harness::prompts::PromptStore;
use tack_harness::{Harness, Registry, ShapeEnv, Shaped};
use tack_protocol::{
    ApprovalPolicy, ContentPart, FunctionCallItem, GitState, Item, ListingEntry, MessageItem,
    ProjectDoc, Prompt, ProviderInfo, ReasoningItem, ReasoningOrigin, Role, StepContext,
    ToolDetails, ToolOutput, ToolOutputItem, ToolSpec, ToolStatus, Wire,
};
use tack_wire::{Endpoint, RenderedRequest, render};

/// The harnesses these fixtures cover.
pub const HARNESSES: [&str; 5] = [
    "qwen-code",
    "kimi-cli",
    "kimi-code",
    "opencode",
    "deepseek-tui",
];

/// A provider as the harness sees it.
pub fn provider(id: &str, base_url: &str) -> ProviderInfo {
    ProviderInfo {
        id: id.into(),
        name: id.into(),
        base_url: base_url.into(),
        wire: Wire::Chat,
    }
}

/// Each harness's home provider and a model it is used with.
pub fn home(harness: &str) -> (ProviderInfo, &'static str) {
    match harness {
        "qwen-code" => (
            provider(
                "dashscope",
                "https://dashscope.aliyuncs.com/compatible-mode/v1",
            ),
            "qwen3-coder-plus",
        ),
        "kimi-cli" => (
            provider("moonshot", "https://api.moonshot.ai/v1"),
            "kimi-k2",
        ),
        "kimi-code" => (
            provider("kimi", "https://api.kimi.com/coding/v1"),
            "kimi-for-coding",
        ),
        "deepseek-tui" => (
            provider("deepseek", "https://api.deepseek.com"),
            "deepseek-chat",
        ),
        _ => (
            provider("openrouter", "https://openrouter.ai/api/v1"),
            "qwen/qwen3-coder",
        ),
    }
}

/// The engine's tools as a step lists them (names are what harnesses check).
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
    .map(|name| ToolSpec::function(name, "engine tool", json!({"type": "object"})))
    .collect()
}

/// The frozen step context of the fixture.
pub fn context(provider: ProviderInfo, model: &str) -> StepContext {
    StepContext {
        session_id: "ses_fixture".into(),
        turn_id: "turn_2".into(),
        step: 0,
        cwd: "/home/dev/project".into(),
        now: "2026-11-29T10:27:57+00:00".into(),
        os: "linux".into(),
        os_version: "Linux 6.1.0".into(),
        shell: "/bin/bash".into(),
        git: Some(GitState {
            branch: "main".into(),
            main_branch: "main".into(),
            user_name: Some("Dev".into()),
            status: " M hello.py".into(),
            recent_commits: "a1b2c3d init".into(),
        }),
        project_docs: vec![ProjectDoc {
            path: "/home/dev/project/AGENTS.md".into(),
            content: "Run the tests with `pytest -q`.".into(),
        }],
        listing: vec![
            entry("README.md", false),
            entry("hello.py", false),
            entry("tests", true),
            entry("tests/test_hello.py", false),
        ],
        model: model.into(),
        provider,
        approval: ApprovalPolicy::OnRequest,
    }
}

fn entry(path: &str, is_dir: bool) -> ListingEntry {
    ListingEntry {
        path: path.into(),
        is_dir,
    }
}

/// One harness's tool calls in the fixture: (shell name, shell args for a command, read name,
/// read args for a path).
struct Names {
    shell: &'static str,
    read: &'static str,
}

fn names(harness: &str) -> Names {
    match harness {
        "qwen-code" => Names {
            shell: "run_shell_command",
            read: "read_file",
        },
        "kimi-cli" => Names {
            shell: "Shell",
            read: "ReadFile",
        },
        "kimi-code" => Names {
            shell: "Bash",
            read: "Read",
        },
        "opencode" => Names {
            shell: "bash",
            read: "read",
        },
        _ => Names {
            shell: "exec_shell",
            read: "read_file",
        },
    }
}

/// Arguments of a shell call running `command`, as that CLI's model writes them.
pub fn shell_args(harness: &str, command: &str) -> Value {
    match harness {
        "qwen-code" => json!({"command": command, "is_background": false, "description": "run it"}),
        "opencode" => json!({"description": "run it", "command": command}),
        _ => json!({"command": command}),
    }
}

fn read_args(harness: &str, path: &str) -> Value {
    match harness {
        "qwen-code" => json!({"file_path": path}),
        "opencode" => json!({"limit": 50, "filePath": path}),
        "kimi-cli" | "kimi-code" => json!({"path": path, "n_lines": 50}),
        _ => json!({"path": path, "max_lines": 50}),
    }
}

fn call_id(harness: &str, n: u32) -> String {
    match harness {
        "kimi-cli" | "kimi-code" => format!("functions.call:{n}"),
        _ => format!("call_{n}"),
    }
}

fn function_call(harness: &str, n: u32, name: &str, args: &Value) -> Item {
    Item::FunctionCall(FunctionCallItem {
        id: format!("fc_{n}"),
        call_id: call_id(harness, n),
        name: name.into(),
        namespace: None,
        // Recorded exactly as a model might stream it (spaces included).
        arguments: serde_json::to_string_pretty(args)
            .unwrap()
            .replace('\n', " "),
    })
}

fn shell_output(text: &str, status: ToolStatus, exit: i32) -> ToolOutput {
    ToolOutput {
        text: text.into(),
        status,
        content: vec![],
        exit_code: Some(exit),
        duration_ms: Some(12),
        details: Some(ToolDetails::Exec {
            command: vec!["bash".into(), "-lc".into()],
            cwd: "/home/dev/project".into(),
            truncated_bytes: 0,
            sandbox: None,
            sandbox_denial: None,
        }),
    }
}

fn recorded(harness: &dyn Harness, call: &Item, output: ToolOutput) -> Item {
    let output = harness.adapt_output(call, output);
    Item::ToolOutput(ToolOutputItem {
        id: format!("out_{}", call.id()),
        call_id: call.call_id().unwrap().to_string(),
        output,
    })
}

/// A tiny PNG as a data URL.
pub const IMAGE: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// The fixture history for `harness`, recorded from `provider` (reasoning origin).
pub fn history(harness_id: &str, provider_id: &str) -> Vec<Item> {
    let registry = Registry::builtin();
    let harness = registry.get(harness_id).expect("harness");
    let n = names(harness_id);
    let list = function_call(harness_id, 1, n.shell, &shell_args(harness_id, "ls"));
    let read = function_call(
        harness_id,
        2,
        n.read,
        &read_args(harness_id, "/home/dev/project/hello.py"),
    );
    let test = function_call(harness_id, 3, n.shell, &shell_args(harness_id, "pytest -q"));
    let reasoning = |id: &str, text: &str| {
        Item::Reasoning(ReasoningItem {
            id: id.into(),
            text: text.into(),
            origin: Some(ReasoningOrigin {
                wire: Wire::Chat,
                provider: Some(provider_id.into()),
                model: None,
            }),
            ..Default::default()
        })
    };
    vec![
        Item::Message(MessageItem {
            id: "u1".into(),
            role: Role::User,
            content: vec![
                ContentPart::Text {
                    text: "Here is the error I get. Which files are in the project, and what does hello.py do?\n".into(),
                },
                ContentPart::Image {
                    url: IMAGE.into(),
                    detail: None,
                },
            ],
            injected_by: None,
        }),
        reasoning("r1", "I should list the files and read hello.py."),
        Item::text("a1", Role::Assistant, "Let me look at the project."),
        list.clone(),
        read.clone(),
        recorded(
            &*harness,
            &list,
            shell_output("README.md\nhello.py\ntests\n", ToolStatus::Completed, 0),
        ),
        recorded(
            &*harness,
            &read,
            ToolOutput::ok("     1\tdef greet(name):\n     2\t    return f\"Hello, {name}\"\n"),
        ),
        reasoning("r2", "Now run the tests."),
        test.clone(),
        recorded(
            &*harness,
            &test,
            shell_output(
                "E   NameError: name 'greet' is not defined\n[exit code 1]",
                ToolStatus::Failed,
                1,
            ),
        ),
        Item::text(
            "a2",
            Role::Assistant,
            "`hello.py` defines `greet(name)`. The test run fails: `greet` is not imported in the tests.",
        ),
        Item::text("u2", Role::User, "Thanks. Please fix the import in tests/test_hello.py."),
    ]
}

/// The fixture prompt of `harness` on its home provider.
pub fn prompt(harness: &str) -> Prompt {
    let (provider, model) = home(harness);
    let provider_id = provider.id.clone();
    Prompt {
        examples: Vec::new(),
        history: history(harness, &provider_id),
        tools: engine_tools(),
        instructions: Some("Prefer small, reviewable changes.".into()),
        context: context(provider, model),
    }
}

/// A one-message prompt (the shape of the captured requests).
pub fn single_turn(provider: ProviderInfo, model: &str, text: &str) -> Prompt {
    Prompt {
        examples: Vec::new(),
        history: vec![Item::text("u1", Role::User, text)],
        tools: engine_tools(),
        instructions: None,
        context: context(provider, model),
    }
}

/// Shapes `prompt` with `harness` on the Chat wire.
pub fn shape(harness: &str, prompt: &Prompt, identity: bool) -> Shaped {
    let registry = Registry::builtin();
    let route = registry.route(Wire::Chat, harness).expect("route");
    let prompts = PromptStore::builtin();
    route
        .harness
        .shape(
            prompt,
            Wire::Chat,
            &ShapeEnv {
                prompts: &prompts,
                emulate_identity: identity,
            },
        )
        .expect("shape")
}

/// Renders a shaped request for the Chat wire at `base_url`.
pub fn render_chat(request: &tack_wire::ShapedRequest, base_url: &str) -> RenderedRequest {
    render(request, Wire::Chat, &Endpoint::new(base_url)).expect("render")
}

/// `POST url`, the headers, a blank line, then the body pretty-printed (key order as sent).
pub fn describe(req: &RenderedRequest) -> String {
    let body: Value = serde_json::from_slice(&req.body).expect("body is JSON");
    let mut out = format!("{} {}\n", req.method, req.url);
    for (name, value) in &req.headers {
        out.push_str(&format!("{name}: {value}\n"));
    }
    out.push('\n');
    out.push_str(&serde_json::to_string_pretty(&body).expect("pretty"));
    out
}
