//! Shared helpers for the text-protocol harness tests (`swe-agent`, `mini-swe-agent`,
//! `terminus-2`, and the leaked-call recovery): a fixed step context, history builders, shaping
//! through the public registry, and feeding a reply through a harness's postprocess.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use tack_harness::prompts::PromptStore;
use tack_harness::{Postprocess, Registry, ShapeEnv, Shaped};
use tack_protocol::{
    ApprovalPolicy, ContentPart, FunctionCallItem, Item, LocalShellCallItem, MessageItem, Prompt,
    ProviderInfo, Role, StepContext, StopReason, StreamEvent, ToolOutput, ToolOutputItem, ToolSpec,
    Wire,
};
use tack_wire::{Endpoint, render};

pub const CWD: &str = "/home/dev/project";

pub fn provider() -> ProviderInfo {
    ProviderInfo {
        id: "openai".into(),
        name: "OpenAI".into(),
        base_url: "https://api.openai.com/v1".into(),
        wire: Wire::Chat,
    }
}

pub fn context() -> StepContext {
    StepContext {
        session_id: "sess_text".into(),
        turn_id: "turn_1".into(),
        step: 0,
        cwd: CWD.into(),
        now: "2026-11-29T10:15:00+01:00".into(),
        os: "linux".into(),
        os_version: "Linux 6.18.0".into(),
        shell: "/bin/bash".into(),
        git: None,
        project_docs: Vec::new(),
        listing: Vec::new(),
        model: "gpt-4o".into(),
        provider: provider(),
        approval: ApprovalPolicy::Untrusted,
    }
}

/// The engine tools a step offers (these harnesses advertise their own).
pub fn engine_tools() -> Vec<ToolSpec> {
    ["shell", "read_file", "write_file", "edit", "terminal"]
        .into_iter()
        .map(|name| ToolSpec::function(name, format!("engine {name}"), json!({"type": "object"})))
        .collect()
}

pub fn prompt(history: Vec<Item>) -> Prompt {
    Prompt {
        examples: Vec::new(),
        history,
        tools: engine_tools(),
        instructions: None,
        context: context(),
    }
}

pub fn user(id: &str, text: &str) -> Item {
    Item::text(id, Role::User, text)
}

pub fn assistant(id: &str, text: &str) -> Item {
    Item::text(id, Role::Assistant, text)
}

pub fn injected(label: &str, text: &str) -> Item {
    Item::Message(MessageItem {
        id: format!("inj-{label}"),
        role: Role::User,
        content: vec![ContentPart::Text { text: text.into() }],
        injected_by: Some(label.into()),
    })
}

pub fn call(call_id: &str, name: &str, arguments: Value) -> Item {
    Item::FunctionCall(FunctionCallItem {
        id: format!("fc-{call_id}"),
        call_id: call_id.into(),
        name: name.into(),
        namespace: None,
        arguments: arguments.to_string(),
    })
}

pub fn shell_call(call_id: &str, command: &str) -> Item {
    Item::LocalShellCall(LocalShellCallItem {
        id: format!("ls-{call_id}"),
        call_id: call_id.into(),
        command: vec!["bash".into(), "-lc".into(), command.into()],
        workdir: None,
        timeout_ms: Some(30_000),
    })
}

pub fn output(call_id: &str, out: ToolOutput) -> Item {
    Item::ToolOutput(ToolOutputItem {
        id: format!("out-{call_id}"),
        call_id: call_id.into(),
        output: out,
    })
}

pub fn shape_with(harness: &str, prompt: &Prompt, prompts: &PromptStore) -> Shaped {
    let route = Registry::builtin().route(Wire::Chat, harness).unwrap();
    route
        .harness
        .shape(
            prompt,
            Wire::Chat,
            &ShapeEnv {
                prompts,
                emulate_identity: false,
            },
        )
        .unwrap()
}

pub fn shape(harness: &str, history: Vec<Item>) -> Shaped {
    shape_with(harness, &prompt(history), &PromptStore::builtin())
}

/// The Chat body a shaped request renders to, and the request path.
pub fn body(shaped: &Shaped) -> (String, Value) {
    let rendered = render(
        &shaped.request,
        Wire::Chat,
        &Endpoint::new("http://127.0.0.1:9/v1"),
    )
    .unwrap();
    let path = rendered
        .url
        .split("127.0.0.1:9")
        .nth(1)
        .unwrap()
        .to_string();
    (path, serde_json::from_slice(&rendered.body).unwrap())
}

/// The events of a plain text reply, split into the given deltas, as the Chat decoder emits
/// them: `Created`, the deltas, the message item, `Completed`.
pub fn text_reply(deltas: &[&str]) -> Vec<StreamEvent> {
    let mut events = vec![StreamEvent::Created {
        response_id: Some("r1".into()),
        model: Some("m".into()),
    }];
    for d in deltas {
        events.push(StreamEvent::TextDelta {
            text: (*d).to_string(),
        });
    }
    let text: String = deltas.concat();
    if !text.is_empty() {
        events.push(StreamEvent::ItemDone {
            item: assistant("r1-msg", &text),
        });
    }
    events.push(StreamEvent::Completed {
        stop_reason: StopReason::EndTurn,
        response_id: Some("r1".into()),
    });
    events
}

/// Feeds `events` through `post`, collecting what comes out.
pub fn run_post(post: &mut dyn Postprocess, events: Vec<StreamEvent>) -> Vec<StreamEvent> {
    let mut out = Vec::new();
    for e in events {
        post.event(e, &mut out);
    }
    post.finish(&mut out);
    out
}

/// Shapes `history` for `harness` and feeds a text reply through its postprocess.
pub fn reply(harness: &str, history: Vec<Item>, text: &str) -> Vec<StreamEvent> {
    let mut shaped = shape(harness, history);
    let mut post = shaped.postprocess.take().expect("a postprocess");
    run_post(post.as_mut(), text_reply(&[text]))
}

/// What a reply turned into.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Tool calls (items), the assistant text kept.
    Calls(Vec<Item>),
    /// An injected message: (label, text).
    Injected(String, String),
    /// Neither: the reply ends the task.
    Completion,
}

/// Classifies a postprocessed stream, checking it is well formed on the way: one `Completed`,
/// last; `tool_calls` as the stop reason exactly when a call was produced; never both a
/// correction-only and a call outcome mixed except for confirmations.
pub fn outcome(events: &[StreamEvent]) -> Outcome {
    let last = events.last().expect("events");
    let StreamEvent::Completed { stop_reason, .. } = last else {
        panic!("not completed last: {events:?}")
    };
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, StreamEvent::Completed { .. }))
            .count(),
        1
    );
    let calls: Vec<Item> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ItemDone { item } if item.is_tool_call() => Some(item.clone()),
            _ => None,
        })
        .collect();
    let injected: Vec<(String, String)> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ItemDone {
                item: Item::Message(m),
            } => m.injected_by.clone().map(|l| (l, m.text())),
            _ => None,
        })
        .collect();
    if !calls.is_empty() {
        assert_eq!(*stop_reason, StopReason::ToolCalls, "{events:?}");
        return Outcome::Calls(calls);
    }
    assert_ne!(*stop_reason, StopReason::ToolCalls, "{events:?}");
    match injected.into_iter().next() {
        Some((label, text)) => Outcome::Injected(label, text),
        None => Outcome::Completion,
    }
}

/// The `command` argument of a shell-like call.
pub fn command_of(item: &Item) -> String {
    match item {
        Item::LocalShellCall(c) => c.command[2].clone(),
        Item::FunctionCall(c) => serde_json::from_str::<Value>(&c.arguments).unwrap()["command"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        other => panic!("not a shell call: {other:?}"),
    }
}

pub fn arguments(item: &Item) -> Value {
    match item {
        Item::FunctionCall(c) => serde_json::from_str(&c.arguments).unwrap(),
        other => panic!("not a function call: {other:?}"),
    }
}

/// The capture file `name` from `$TACK_SHARED` or `<repo>/../shared`, if present.
pub fn capture(name: &str) -> Option<String> {
    let shared = std::env::var_os("TACK_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
        });
    std::fs::read_to_string(shared.join("spec/captures").join(name)).ok()
}
