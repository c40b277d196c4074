//! What the fuzz targets share: turning the fuzzer's bytes into a model reply split into
//! stream deltas, feeding it through a harness's postprocess the way the engine does, and the
//! invariants every postprocessed reply must keep.
//!
//! A target panics (and libFuzzer saves the input under `fuzz/artifacts/<target>/`) when an
//! invariant breaks; that is the only way a target reports a finding.

use serde_json::json;
use tack_harness::prompts::PromptStore;
use tack_harness::{Postprocess, Registry, ShapeEnv};
use tack_protocol::{
    ApprovalPolicy, ContentPart, FunctionCallItem, Item, MessageItem, Prompt, ProviderInfo, Role,
    StepContext, StopReason, StreamEvent, ToolOutput, ToolOutputItem, ToolSpec, Wire,
};

/// A fuzz input read as: one flag byte, one split byte, then the reply text (UTF-8, lossily).
///
/// The split byte sets the delta length (1 to 16 bytes, cut back to a char boundary), so tags
/// and JSON arrive cut at every place a real stream could cut them.
pub struct Reply {
    /// Target-specific switches (e.g. bit 0: a confirmation is pending).
    pub flags: u8,
    /// The reply text, in stream order.
    pub deltas: Vec<String>,
}

impl Reply {
    /// Reads the fuzzer's bytes; `None` when there are fewer than two.
    pub fn from_bytes(data: &[u8]) -> Option<Reply> {
        let (&flags, rest) = data.split_first()?;
        let (&split, text) = rest.split_first()?;
        let text = String::from_utf8_lossy(text).into_owned();
        let size = usize::from(split % 16) + 1;
        let mut deltas = Vec::new();
        let mut start = 0;
        while start < text.len() {
            let mut end = (start + size).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            deltas.push(text[start..end].to_string());
            start = end;
        }
        Some(Reply { flags, deltas })
    }

    /// The whole reply text.
    pub fn text(&self) -> String {
        self.deltas.concat()
    }

    /// The events of this reply as the Chat decoder emits them: `Created`, the text deltas,
    /// the assistant message, `Completed` with `end_turn`.
    pub fn events(&self) -> Vec<StreamEvent> {
        let mut events = vec![StreamEvent::Created {
            response_id: Some("r1".into()),
            model: Some("m".into()),
        }];
        events.extend(self.deltas.iter().map(|d| StreamEvent::TextDelta { text: d.clone() }));
        let text = self.text();
        if !text.is_empty() {
            events.push(StreamEvent::ItemDone {
                item: Item::text("r1-msg", Role::Assistant, text),
            });
        }
        events.push(StreamEvent::Completed {
            stop_reason: StopReason::EndTurn,
            response_id: Some("r1".into()),
        });
        events
    }
}

/// What a postprocessed reply became.
#[derive(Debug)]
pub enum Outcome {
    /// Tool calls (at least one).
    Calls(Vec<Item>),
    /// An injected user message (a correction or a confirmation), by label.
    Injected(String),
    /// Neither: the reply ends the task (or is a plain answer).
    Completion,
}

/// Checks that `events` is a well-formed postprocessed stream and classifies it.
///
/// # Panics
/// When it is not: no `Completed`, more than one, or not last; `tool_calls` as the stop
/// reason without a call, or a call under another stop reason; a call with empty arguments
/// that are not JSON; an empty injected message.
pub fn outcome(events: &[StreamEvent]) -> Outcome {
    let completed: Vec<&StreamEvent> = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Completed { .. }))
        .collect();
    assert_eq!(completed.len(), 1, "exactly one Completed: {events:?}");
    let Some(StreamEvent::Completed { stop_reason, .. }) = events.last() else {
        panic!("Completed must come last: {events:?}");
    };
    let mut calls = Vec::new();
    let mut injected = None;
    for e in events {
        if let StreamEvent::ItemDone { item } = e {
            if item.is_tool_call() {
                if let Item::FunctionCall(f) = item {
                    assert!(
                        serde_json::from_str::<serde_json::Value>(&f.arguments).is_ok(),
                        "a call's arguments must be JSON: {f:?}"
                    );
                }
                calls.push(item.clone());
            } else if let Item::Message(m) = item
                && let Some(label) = &m.injected_by
            {
                assert!(!m.text().trim().is_empty(), "an empty injected message: {m:?}");
                injected.get_or_insert_with(|| label.clone());
            }
        }
    }
    if calls.is_empty() {
        assert_ne!(*stop_reason, StopReason::ToolCalls, "tool_calls without a call: {events:?}");
        match injected {
            Some(label) => Outcome::Injected(label),
            None => Outcome::Completion,
        }
    } else {
        assert_eq!(*stop_reason, StopReason::ToolCalls, "calls under {stop_reason:?}");
        Outcome::Calls(calls)
    }
}

/// Feeds `events` through `post` and its `finish`, collecting what comes out.
pub fn run(post: &mut dyn Postprocess, events: Vec<StreamEvent>) -> Vec<StreamEvent> {
    let mut out = Vec::new();
    for e in events {
        post.event(e, &mut out);
    }
    post.finish(&mut out);
    out
}

/// Shapes `history` for `harness` on the Chat wire and returns its postprocess.
///
/// # Panics
/// When the harness does not route on Chat, fails to shape, or has no postprocess.
pub fn postprocess(harness: &str, history: Vec<Item>) -> Box<dyn Postprocess> {
    let prompts = PromptStore::builtin();
    let route = Registry::builtin()
        .route(Wire::Chat, harness)
        .expect("the harness routes on chat");
    let mut shaped = route
        .harness
        .shape(
            &prompt(history),
            Wire::Chat,
            &ShapeEnv {
                prompts: &prompts,
                emulate_identity: false,
            },
        )
        .expect("the fixed history shapes");
    shaped.postprocess.take().expect("a text-protocol harness has a postprocess")
}

/// A prompt around `history` with a fixed step context and the engine's tools.
pub fn prompt(history: Vec<Item>) -> Prompt {
    Prompt {
        examples: Vec::new(),
        history,
        tools: ["shell", "read_file", "write_file", "edit", "terminal"]
            .into_iter()
            .map(|name| ToolSpec::function(name, format!("engine {name}"), json!({"type": "object"})))
            .collect(),
        instructions: None,
        context: StepContext {
            session_id: "sess_fuzz".into(),
            turn_id: "turn_1".into(),
            step: 0,
            cwd: "/home/dev/project".into(),
            now: "2026-11-29T10:15:00+01:00".into(),
            os: "linux".into(),
            os_version: "Linux 6.18.0".into(),
            shell: "/bin/bash".into(),
            git: None,
            project_docs: Vec::new(),
            listing: Vec::new(),
            model: "gpt-4o".into(),
            provider: ProviderInfo {
                id: "openai".into(),
                name: "OpenAI".into(),
                base_url: "https://api.openai.com/v1".into(),
                wire: Wire::Chat,
            },
            approval: ApprovalPolicy::Untrusted,
        },
    }
}

/// The user's task message.
pub fn task() -> Item {
    Item::text("u1", Role::User, "Fix the off-by-one in counter.py")
}

/// A function call item.
pub fn call(call_id: &str, name: &str, arguments: serde_json::Value) -> Item {
    Item::FunctionCall(FunctionCallItem {
        id: format!("fc-{call_id}"),
        call_id: call_id.into(),
        name: name.into(),
        namespace: None,
        arguments: arguments.to_string(),
    })
}

/// A successful tool output for `call_id`.
pub fn output(call_id: &str, text: &str) -> Item {
    Item::ToolOutput(ToolOutputItem {
        id: format!("out-{call_id}"),
        call_id: call_id.into(),
        output: ToolOutput::ok(text),
    })
}

/// An assistant message.
pub fn assistant(id: &str, text: &str) -> Item {
    Item::text(id, Role::Assistant, text)
}

/// A message a harness injected (a correction or a confirmation request), by label.
pub fn injected(label: &str, text: &str) -> Item {
    Item::Message(MessageItem {
        id: format!("inj-{label}"),
        role: Role::User,
        content: vec![ContentPart::Text { text: text.into() }],
        injected_by: Some(label.into()),
    })
}
