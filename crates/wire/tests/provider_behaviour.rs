//! One test per kind of real-provider behaviour every decoder must handle, across the wires,
//! using the shared real captures where they show it (the Chat-only and wire-specific rules
//! have their own files: `decode_chat.rs`, `decode_responses.rs`, `decode_messages.rs`).
//! HTTP-level behaviour (429 with `Retry-After` in seconds or as a date, quota exhausted,
//! overload) goes through the real client against a server on loopback, on the Responses and
//! Messages wires.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use support::server::{Reply, TestServer, http, sse};
use tack_protocol::{ErrorKind, Item, ModelError, StopReason, StreamEvent, Wire};
use tack_wire::client::{ClientConfig, ExchangeMeta, ModelClient, RetryPolicy, Sampling};
use tack_wire::render::messages::is_valid_tool_use_id;
use tack_wire::{
    Block, Endpoint, ResultPart, ShapedMessage, ShapedRequest, ShapedRole, ToolKinds, decode_all,
    render,
};
use tokio_util::sync::CancellationToken;

type Events = Vec<Result<StreamEvent, ModelError>>;

/// A shared capture, or `None` (the test then passes after the skip notice).
fn capture(wire: Wire, name: &str) -> Option<Vec<u8>> {
    let fixtures = support::wire_fixtures(wire)?;
    Some(
        fixtures
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b)
            .unwrap_or_else(|| panic!("no shared fixture {wire}/{name}")),
    )
}

fn decode(wire: Wire, body: &[u8]) -> Events {
    decode_all(wire, ToolKinds::new(), support::origin_on(wire), body)
}

fn sse_of(chunks: &[serde_json::Value]) -> Vec<u8> {
    let mut body = String::new();
    for c in chunks {
        body.push_str(&format!("data: {c}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    body.into_bytes()
}

fn calls(events: &Events) -> Vec<(String, String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::ItemDone {
                item: Item::FunctionCall(c),
            }) => Some((c.call_id.clone(), c.name.clone(), c.arguments.clone())),
            _ => None,
        })
        .collect()
}

fn usages(events: &Events) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Ok(StreamEvent::Usage { .. })))
        .count()
}

fn stop_reason(events: &Events) -> StopReason {
    match events.last() {
        Some(Ok(StreamEvent::Completed { stop_reason, .. })) => *stop_reason,
        other => panic!("expected Completed last, got {other:?}"),
    }
}

fn last_error(events: &Events) -> &ModelError {
    match events.last() {
        Some(Err(e)) => e,
        other => panic!("expected an error last, got {other:?}"),
    }
}

fn text(events: &Events) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::TextDelta { text }) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

// --- tool-call fragments -------------------------------------------------------------------

#[test]
fn index_missing_on_later_fragments_continues_the_call() {
    let body = sse_of(&[
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"shell","arguments":"{\"cmd\""}}]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":":\"ls\"}"}}]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
    ]);
    assert_eq!(
        calls(&decode(Wire::Chat, &body)),
        [("c1".into(), "shell".into(), r#"{"cmd":"ls"}"#.into())]
    );
}

#[test]
fn name_repeated_on_every_fragment_is_one_call() {
    let body = sse_of(&[
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"shell","arguments":"{\"cmd\""}}]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"shell","arguments":":\"ls\"}"}}]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
    ]);
    assert_eq!(
        calls(&decode(Wire::Chat, &body)),
        [("c1".into(), "shell".into(), r#"{"cmd":"ls"}"#.into())]
    );
}

#[test]
fn interleaved_parallel_fragments_are_kept_apart() {
    let body = sse_of(&[
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[
            {"index":0,"id":"a","function":{"name":"read_file","arguments":"{\"path\":"}},
            {"index":1,"id":"b","function":{"name":"read_file","arguments":"{\"path\":"}}]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"b.rs\"}"}}]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a.rs\"}"}}]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
    ]);
    assert_eq!(
        calls(&decode(Wire::Chat, &body)),
        [
            ("a".into(), "read_file".into(), r#"{"path":"a.rs"}"#.into()),
            ("b".into(), "read_file".into(), r#"{"path":"b.rs"}"#.into()),
        ]
    );
}

#[test]
fn whole_arguments_in_the_first_fragment() {
    if let Some(body) = capture(Wire::Chat, "groq-kimi-parallel-tool-calls") {
        let got = calls(&decode(Wire::Chat, &body));
        assert_eq!(got.len(), 2);
        assert!(got.iter().all(|(id, _, args)| id.starts_with("functions.")
            && serde_json::from_str::<serde_json::Value>(args).is_ok()));
    }
    if let Some(body) = capture(Wire::Responses, "openai-parallel-tool-calls") {
        assert_eq!(calls(&decode(Wire::Responses, &body)).len(), 2);
    }
}

#[test]
fn kimi_call_ids_survive_a_switch_to_the_messages_wire() {
    // Decoded on Chat (OpenRouter → Kimi: `functions.weather:0`), replayed on Messages.
    let Some(body) = capture(Wire::Chat, "openrouter-kimi-tool-call") else {
        return;
    };
    let got = calls(&decode(Wire::Chat, &body));
    let (call_id, name, arguments) = got[0].clone();
    assert!(!is_valid_tool_use_id(&call_id), "{call_id}");
    let req = ShapedRequest {
        model: "claude-sonnet-4".into(),
        messages: vec![
            ShapedMessage::text(ShapedRole::User, "Weather in Florence?"),
            ShapedMessage::new(
                ShapedRole::Assistant,
                vec![Block::ToolCall {
                    call_id: call_id.clone(),
                    name,
                    arguments,
                    custom_input: None,
                }],
            ),
            ShapedMessage::new(
                ShapedRole::Tool,
                vec![Block::ToolResult {
                    call_id,
                    content: vec![ResultPart::Text {
                        text: "sunny".into(),
                    }],
                    is_error: None,
                    cache: false,
                }],
            ),
        ],
        ..ShapedRequest::default()
    };
    let out = render(
        &req,
        Wire::Messages,
        &Endpoint::new("https://api.anthropic.com"),
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.body).unwrap();
    let id = v["messages"][1]["content"][0]["id"].as_str().unwrap();
    assert!(is_valid_tool_use_id(id));
    assert_eq!(v["messages"][2]["content"][0]["tool_use_id"], json!(id));
}

// --- finish --------------------------------------------------------------------------------

#[test]
fn stop_although_tool_calls_were_sent() {
    let Some(body) = capture(Wire::Chat, "ollama-tool-call") else {
        return;
    };
    let events = decode(Wire::Chat, &body);
    assert_eq!(calls(&events).len(), 1);
    assert_eq!(stop_reason(&events), StopReason::ToolCalls);
}

#[test]
fn finish_reason_on_several_chunks_completes_once() {
    let Some(body) = capture(Wire::Chat, "openrouter-kimi-tool-call") else {
        return;
    };
    let events = decode(Wire::Chat, &body);
    let completed = events
        .iter()
        .filter(|e| matches!(e, Ok(StreamEvent::Completed { .. })))
        .count();
    assert_eq!(completed, 1);
    assert_eq!(calls(&events).len(), 1);
}

#[test]
fn eof_without_a_terminal_event_is_truncation_on_every_wire() {
    for (wire, name) in [
        (Wire::Chat, "openai-tool-call"),
        (Wire::Responses, "openai-tool-call"),
        (Wire::Messages, "anthropic-tool-use"),
    ] {
        let Some(body) = capture(wire, name) else {
            return;
        };
        // Cut after the last tool-call fragment, before the finish.
        let marker: &[u8] = match wire {
            Wire::Chat => b"\"finish_reason\":\"tool_calls\"",
            Wire::Responses => b"event: response.output_item.done",
            Wire::Messages => {
                b"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1"
            }
        };
        let at = body
            .windows(marker.len())
            .position(|w| w == marker)
            .unwrap();
        let cut = body[..at].iter().rposition(|&b| b == b'\n').unwrap();
        let events = decode(wire, &body[..cut]);
        assert_eq!(
            last_error(&events).kind,
            ErrorKind::StreamTruncated,
            "{wire}"
        );
        assert!(calls(&events).is_empty(), "{wire}: no half call");
    }
}

// --- usage ---------------------------------------------------------------------------------

#[test]
fn usage_on_a_final_chunk_with_empty_choices() {
    let Some(body) = capture(Wire::Chat, "openai-text-usage") else {
        return;
    };
    let events = decode(Wire::Chat, &body);
    assert_eq!(usages(&events), 1);
    assert_eq!(stop_reason(&events), StopReason::EndTurn);
}

#[test]
fn usage_on_the_finish_chunk() {
    let Some(body) = capture(Wire::Chat, "deepseek-reasoning-tool-call") else {
        return;
    };
    let events = decode(Wire::Chat, &body);
    let usage = events
        .iter()
        .find_map(|e| match e {
            Ok(StreamEvent::Usage { usage }) => Some(*usage),
            _ => None,
        })
        .unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (339, 83));
    assert_eq!(usage.cached_input_tokens, 320);
}

#[test]
fn usage_never_sent() {
    let Some(body) = capture(Wire::Chat, "ollama-text") else {
        return;
    };
    let events = decode(Wire::Chat, &body);
    assert_eq!(usages(&events), 0);
    assert_eq!(stop_reason(&events), StopReason::EndTurn);
}

// --- framing -------------------------------------------------------------------------------

#[test]
fn comments_bare_colons_crlf_and_data_without_space_on_every_wire() {
    for (wire, name) in [
        (Wire::Chat, "openrouter-reasoning"),
        (Wire::Responses, "openrouter-reasoning"),
        (Wire::Messages, "anthropic-thinking-tool-use"),
    ] {
        let Some(body) = capture(wire, name) else {
            return;
        };
        let plain = decode(wire, &body);
        let text = String::from_utf8(body).unwrap();
        let noisy = text
            .replace("data: ", "data:")
            .replace("\n\n", "\n:\n: keep-alive\n\n")
            .replace('\n', "\r\n");
        assert_eq!(decode(wire, noisy.as_bytes()), plain, "{wire}");
    }
}

#[test]
fn multi_byte_characters_split_across_reads_on_every_wire() {
    for (wire, name) in [
        (Wire::Chat, "deepseek-reasoning"),
        (Wire::Responses, "openai-text"),
        (Wire::Messages, "anthropic-text"),
    ] {
        let Some(body) = capture(wire, name) else {
            return;
        };
        let whole = decode(wire, &body);
        // Cut inside every multi-byte character, one read per cut.
        let cuts: Vec<usize> = (1..body.len())
            .filter(|&i| (body[i] & 0xC0) == 0x80)
            .collect();
        assert!(
            !cuts.is_empty(),
            "{wire}/{name} has no multi-byte character"
        );
        let mut d = tack_wire::decoder(wire, ToolKinds::new(), support::origin_on(wire));
        let mut out = Vec::new();
        let mut start = 0;
        for cut in cuts {
            d.push(&body[start..cut], &mut out);
            start = cut;
        }
        d.push(&body[start..], &mut out);
        d.finish(&mut out);
        assert_eq!(out, whole, "{wire}");
    }
}

#[test]
fn named_error_frame_in_a_chat_stream() {
    let Some(body) = capture(Wire::Chat, "groq-error-tool-use-failed") else {
        return;
    };
    let events = decode(Wire::Chat, &body);
    let error = last_error(&events);
    assert_eq!(error.kind, ErrorKind::ProviderError, "tool_use_failed");
    assert!(!error.retryable);
    assert!(error.message.contains("Tool call validation failed"));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Ok(StreamEvent::ReasoningDelta { .. })))
    );
}

#[test]
fn error_object_inside_an_ordinary_chunk() {
    let Some(body) = capture(Wire::Chat, "openrouter-error-midstream") else {
        return;
    };
    let events = decode(Wire::Chat, &body);
    assert!(last_error(&events).message.contains("Token limit reached"));
    assert_eq!(
        events.iter().filter(|e| e.is_err()).count(),
        1,
        "the [DONE] after it adds nothing"
    );
}

// --- errors mid-stream ---------------------------------------------------------------------

#[test]
fn errors_after_partial_output_keep_the_deltas_and_drop_the_items() {
    for (wire, name, kind) in [
        (
            Wire::Chat,
            "groq-error-tool-use-failed",
            ErrorKind::ProviderError,
        ),
        (
            Wire::Messages,
            "anthropic-error-overloaded-midstream",
            ErrorKind::Overloaded,
        ),
        (
            Wire::Responses,
            "openai-error-insufficient-quota",
            ErrorKind::QuotaExhausted,
        ),
    ] {
        let Some(body) = capture(wire, name) else {
            return;
        };
        let events = decode(wire, &body);
        assert_eq!(last_error(&events).kind, kind, "{wire}");
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, Ok(StreamEvent::ItemDone { .. }))),
            "{wire}"
        );
    }
}

// --- reasoning -----------------------------------------------------------------------------

#[test]
fn reasoning_in_four_spellings() {
    for (wire, name) in [
        (Wire::Chat, "deepseek-reasoning"),          // `reasoning_content`
        (Wire::Chat, "openrouter-reasoning"),        // `reasoning` + `reasoning_details`
        (Wire::Responses, "deepseek-tool-call"),     // `response.reasoning_text.delta`
        (Wire::Messages, "anthropic-thinking-text"), // `thinking` + `thinking_delta`
    ] {
        let Some(body) = capture(wire, name) else {
            return;
        };
        let events = decode(wire, &body);
        let deltas: String = events
            .iter()
            .filter_map(|e| match e {
                Ok(StreamEvent::ReasoningDelta { text, summary }) => {
                    assert!(!summary, "{wire}/{name}: raw reasoning");
                    Some(text.as_str())
                }
                _ => None,
            })
            .collect();
        let item = events
            .iter()
            .find_map(|e| match e {
                Ok(StreamEvent::ItemDone {
                    item: Item::Reasoning(r),
                }) => Some(r.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{wire}/{name}: no reasoning item"));
        assert!(!deltas.is_empty(), "{wire}/{name}");
        assert_eq!(item.text, deltas, "{wire}/{name}");
        assert_eq!(item.origin.unwrap().wire, wire);
    }
}

// --- HTTP ----------------------------------------------------------------------------------

fn client() -> ModelClient {
    ModelClient::new(ClientConfig {
        retry: RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_secs(5),
        },
        idle_timeout: Duration::from_secs(20),
        ..ClientConfig::default()
    })
    .unwrap()
}

async fn open_on(
    wire: Wire,
    server: &TestServer,
) -> Result<tack_wire::client::ResponseStream, ModelError> {
    let mut shaped = ShapedRequest {
        model: "m".into(),
        messages: vec![ShapedMessage::text(ShapedRole::User, "hi")],
        ..ShapedRequest::default()
    };
    shaped.params.stream = true;
    let request = render(&shaped, wire, &Endpoint::new(server.base_url())).unwrap();
    let kinds = ToolKinds::new();
    let origin = support::origin_on(wire);
    let meta = ExchangeMeta::default();
    let sampling = Sampling {
        request: &request,
        auth: None,
        wire,
        tool_kinds: &kinds,
        origin: &origin,
        meta: &meta,
    };
    client()
        .open(sampling, Arc::new(|_| {}), CancellationToken::new())
        .await
}

const MESSAGES_OK: &[u8] = b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

const RESPONSES_OK: &[u8] = b"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"model\":\"m\"}}\n\nevent: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"item_id\":\"msg_1\",\"content_index\":0,\"delta\":\"ok\"}\n\nevent: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n";

async fn drain(stream: &mut tack_wire::client::ResponseStream) -> Events {
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    events
}

#[tokio::test]
async fn rate_limit_with_retry_after_seconds_then_overload_then_success_on_messages() {
    let overloaded =
        br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let limited = br#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#;
    let server = TestServer::start(vec![
        Reply::Raw(http(
            "429 Too Many Requests",
            &[("retry-after", "0")],
            limited,
        )),
        Reply::Raw(http("529 Overloaded", &[], overloaded)),
        Reply::Raw(sse(MESSAGES_OK)),
    ])
    .await;
    let mut stream = open_on(Wire::Messages, &server).await.unwrap();
    let events = drain(&mut stream).await;
    assert_eq!(text(&events), "ok");
    assert_eq!(stop_reason(&events), StopReason::EndTurn);
    let received = server.received();
    assert_eq!(received.len(), 3);
    assert_eq!(received[0].request_line, "POST /v1/messages HTTP/1.1");
    assert_eq!(received[0].header("anthropic-version"), Some("2023-06-01"));
}

#[tokio::test]
async fn rate_limit_with_retry_after_as_an_http_date_on_responses() {
    // A date in the past: retry at once.
    let server = TestServer::start(vec![
        Reply::Raw(http(
            "429 Too Many Requests",
            &[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")],
            br#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
        )),
        Reply::Raw(sse(RESPONSES_OK)),
    ])
    .await;
    let mut stream = open_on(Wire::Responses, &server).await.unwrap();
    let events = drain(&mut stream).await;
    assert_eq!(text(&events), "ok");
    assert_eq!(server.received().len(), 2);
    assert_eq!(
        server.received()[0].request_line,
        "POST /v1/responses HTTP/1.1"
    );
}

#[tokio::test]
async fn quota_exhausted_is_not_retried() {
    let server = TestServer::start(vec![
        Reply::Raw(http(
            "429 Too Many Requests",
            &[("retry-after", "1")],
            br#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
        )),
        Reply::Raw(sse(RESPONSES_OK)),
    ])
    .await;
    let error = open_on(Wire::Responses, &server).await.err().unwrap();
    assert_eq!(error.kind, ErrorKind::QuotaExhausted);
    assert!(!error.retryable);
    assert_eq!(server.received().len(), 1);
}
