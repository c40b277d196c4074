//! Responses stream decoding: our own small fixtures for what the real captures do not show,
//! one test per kind of real-provider behaviour (using the shared captures where they show
//! it), and chunking invariance over every fixture.

mod support;

use serde_json::json;
use tack_protocol::{
    ErrorKind, Item, ModelError, StopReason, StreamEvent, ToolKind, ToolSpec, Usage, Wire,
};
use tack_wire::neutral::to_neutral_lines;
use tack_wire::{ToolKinds, decode_all, decode_reply, decoder, tool_kinds};

type Events = Vec<Result<StreamEvent, ModelError>>;

const WIRE: Wire = Wire::Responses;

fn own(name: &str) -> Vec<u8> {
    support::own_fixtures(WIRE)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, b)| b)
        .unwrap_or_else(|| panic!("no fixture {name}"))
}

/// A shared capture, or `None` (the test then passes after the skip notice).
fn shared(name: &str) -> Option<Vec<u8>> {
    let fixtures = support::wire_fixtures(WIRE)?;
    Some(
        fixtures
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b)
            .unwrap_or_else(|| panic!("no shared fixture {name}")),
    )
}

fn decode(body: &[u8]) -> Events {
    decode_all(WIRE, ToolKinds::new(), support::origin_on(WIRE), body)
}

fn decode_in_pieces(body: &[u8], cuts: &[usize]) -> Events {
    let mut d = decoder(WIRE, ToolKinds::new(), support::origin_on(WIRE));
    let mut out = Vec::new();
    let mut start = 0;
    for &cut in cuts {
        d.push(&body[start..cut], &mut out);
        start = cut;
    }
    d.push(&body[start..], &mut out);
    d.finish(&mut out);
    out
}

fn items(events: &Events) -> Vec<Item> {
    events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::ItemDone { item }) => Some(item.clone()),
            _ => None,
        })
        .collect()
}

fn last_error(events: &Events) -> &ModelError {
    match events.last() {
        Some(Err(e)) => e,
        other => panic!("expected an error last, got {other:?}"),
    }
}

fn stop_reason(events: &Events) -> StopReason {
    match events.last() {
        Some(Ok(StreamEvent::Completed { stop_reason, .. })) => *stop_reason,
        other => panic!("expected Completed last, got {other:?}"),
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

fn reasoning(events: &Events, summary: bool) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::ReasoningDelta { text, summary: s }) if *s == summary => {
                Some(text.as_str())
            }
            _ => None,
        })
        .collect()
}

fn usage(events: &Events) -> Option<Usage> {
    events.iter().find_map(|e| match e {
        Ok(StreamEvent::Usage { usage }) => Some(*usage),
        _ => None,
    })
}

/// `(call_id, name, arguments)` of every function call item.
fn calls(events: &Events) -> Vec<(String, String, String)> {
    items(events)
        .into_iter()
        .filter_map(|i| match i {
            Item::FunctionCall(c) => Some((c.call_id, c.name, c.arguments)),
            _ => None,
        })
        .collect()
}

/// The tool-call display events concatenated per call id.
fn displayed_arguments(events: &Events, call_id: &str) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::ToolCallDelta { call_id: c, delta }) if c == call_id => {
                Some(delta.as_str())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn own_fixtures_match_their_snapshots() {
    for (name, body) in support::own_fixtures(WIRE) {
        insta::assert_json_snapshot!(format!("own__{name}"), to_neutral_lines(&decode(&body)));
    }
}

// --- framing -------------------------------------------------------------------------------

#[test]
fn data_only_frames_dispatch_on_the_json_type() {
    // OpenRouter: no `event:` lines, comment keep-alives, a trailing `[DONE]`.
    let events = decode(&own("data-only-frames"));
    assert_eq!(text(&events), "Listing files.");
    assert_eq!(
        calls(&events),
        [(
            "call_1".into(),
            "shell".into(),
            r#"{"command":"ls"}"#.into()
        )]
    );
    assert_eq!(stop_reason(&events), StopReason::ToolCalls);
    if let Some(body) = shared("openrouter-reasoning") {
        let events = decode(&body);
        assert_eq!(text(&events), "4");
        assert!(reasoning(&events, false).starts_with("The user asks"));
        assert_eq!(stop_reason(&events), StopReason::EndTurn);
    }
}

#[test]
fn crlf_and_bare_colon_comments_decode_the_same() {
    let body = own("data-only-frames");
    let lf = decode(&body);
    let text = String::from_utf8(body).unwrap();
    let crlf = text
        .replace('\n', "\r\n")
        .replace("\r\n\r\n", "\r\n:\r\n\r\n");
    assert_eq!(decode(crlf.as_bytes()), lf);
    let no_space = text.replace("data: ", "data:");
    assert_eq!(decode(no_space.as_bytes()), lf);
}

#[test]
fn multi_byte_characters_split_across_pushes() {
    let Some(body) = shared("openai-text") else {
        return;
    };
    let whole = decode(&body);
    assert_eq!(text(&whole), "Olá!");
    let at = body.windows(2).position(|w| w == [0xC3, 0xA1]).unwrap() + 1;
    assert_eq!(decode_in_pieces(&body, &[at]), whole);
}

#[test]
fn missing_sequence_numbers_and_output_indexes() {
    // llama.cpp: no `sequence_number`, no `output_index`, no `function_call_arguments.done`.
    let events = decode(&own("llamacpp-no-indexes"));
    assert_eq!(
        calls(&events),
        [(
            "call_cV1A".into(),
            "run_shell".into(),
            r#"{"command": "ls"}"#.into()
        )]
    );
    assert_eq!(usage(&events).unwrap().input_tokens, 487);
    // The 2025-03 OpenAI capture has no `sequence_number` either.
    if let Some(body) = shared("openai-tool-call") {
        assert_eq!(calls(&decode(&body)).len(), 1);
    }
}

#[test]
fn events_without_any_id_or_index_go_to_the_last_item_of_their_kind() {
    let frames = [
        json!({"type":"response.created","response":{"id":"r"}}),
        json!({"type":"response.output_item.added","item":{"type":"message","role":"assistant"}}),
        json!({"type":"response.output_text.delta","delta":"Run"}),
        json!({"type":"response.output_item.added","item":{"type":"function_call","call_id":"c","name":"shell"}}),
        json!({"type":"response.function_call_arguments.delta","delta":"{}"}),
        json!({"type":"response.output_text.delta","delta":"ning."}),
        json!({"type":"response.completed","response":{"id":"r"}}),
    ];
    let body: String = frames.iter().map(|f| format!("data: {f}\n\n")).collect();
    let events = decode(body.as_bytes());
    assert_eq!(text(&events), "Running.");
    let got = items(&events);
    assert!(matches!(&got[0], Item::Message(m) if m.text() == "Running." && m.id == "r-o0"));
    assert_eq!(calls(&events), [("c".into(), "shell".into(), "{}".into())]);
}

// --- tool calls ----------------------------------------------------------------------------

#[test]
fn item_id_is_not_the_call_id() {
    let Some(body) = shared("openai-tool-call") else {
        return;
    };
    let events = decode(&body);
    let got = items(&events);
    match &got[..] {
        [Item::FunctionCall(call)] => {
            assert_eq!(
                call.id,
                "fc_67e554a1de488191af0831d35cbe082e0794405d35281ae2"
            );
            assert_eq!(call.call_id, "call_kL0PCQV7M2WMoVX8V8OtYSAL");
            assert_eq!(call.arguments, r#"{"country":"France"}"#);
        }
        other => panic!("{other:?}"),
    }
    assert!(events.iter().any(|e| matches!(
        e,
        Ok(StreamEvent::ToolCallStarted { call_id, name })
            if call_id == "call_kL0PCQV7M2WMoVX8V8OtYSAL" && name == "get_capital"
    )));
}

#[test]
fn arguments_only_at_done() {
    // LM Studio: `function_call_arguments.done` with no `.delta` before it.
    let events = decode(&own("arguments-done-without-deltas"));
    assert_eq!(
        calls(&events),
        [(
            "call_lm".into(),
            "read_file".into(),
            r#"{"path":"README.md"}"#.into()
        )]
    );
    assert_eq!(
        displayed_arguments(&events, "call_lm"),
        r#"{"path":"README.md"}"#
    );
    if let Some(body) = shared("lmstudio-tool-call") {
        let events = decode(&body);
        let got = calls(&events);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].2, r#"{"location":"San Francisco"}"#);
        assert_eq!(displayed_arguments(&events, &got[0].0), got[0].2);
    }
}

#[test]
fn whole_arguments_in_one_delta_and_parallel_calls() {
    let Some(body) = shared("openai-parallel-tool-calls") else {
        return;
    };
    let events = decode(&body);
    assert_eq!(
        calls(&events),
        [
            (
                "call_NnEvpiwdL8XrZ6F3T9VJyVw7".into(),
                "add".into(),
                r#"{"a":2,"b":3}"#.into()
            ),
            (
                "call_TQ8336oa6YnuT2leYzRDBBLz".into(),
                "multiply".into(),
                r#"{"a":2,"b":3}"#.into()
            ),
        ]
    );
    assert_eq!(stop_reason(&events), StopReason::ToolCalls);
}

#[test]
fn custom_and_namespaced_calls_use_the_tool_kinds() {
    let tools = vec![
        ToolSpec::freeform("apply_patch", "Apply a patch."),
        ToolSpec {
            namespace: Some("github".into()),
            ..ToolSpec::function("create_issue", "Open an issue.", json!({"type":"object"}))
        },
    ];
    let kinds = tool_kinds(&tools, WIRE);
    assert_eq!(kinds["apply_patch"], ToolKind::Custom);
    let events = decode_all(
        WIRE,
        kinds,
        support::origin_on(WIRE),
        &own("custom-and-namespaced-calls"),
    );
    let got = items(&events);
    assert_eq!(got.len(), 3, "{got:?}");
    match &got[0] {
        Item::Reasoning(r) => {
            assert_eq!(r.id, "rs_ns");
            assert_eq!(r.summary, ["**Plan** patch then file an issue"]);
            assert_eq!(r.encrypted_content.as_deref(), Some("gAAAAB-opaque-final"));
            assert_eq!(
                r.origin.as_ref().unwrap().model.as_deref(),
                Some("gpt-5-codex")
            );
        }
        other => panic!("{other:?}"),
    }
    match &got[1] {
        Item::CustomToolCall(c) => {
            assert_eq!(
                (c.call_id.as_str(), c.name.as_str()),
                ("call_patch", "apply_patch")
            );
            assert_eq!(c.input, "*** Begin Patch\n*** End Patch");
        }
        other => panic!("{other:?}"),
    }
    match &got[2] {
        Item::FunctionCall(c) => {
            assert_eq!(c.name, "create_issue");
            assert_eq!(c.namespace.as_deref(), Some("github"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        reasoning(&events, true),
        "**Plan** patch then file an issue"
    );
}

#[test]
fn a_namespace_dropped_by_the_server_is_restored_from_the_tool_kinds() {
    let tools = vec![ToolSpec {
        namespace: Some("github".into()),
        ..ToolSpec::function("create_issue", "", json!({"type":"object"}))
    }];
    let body = own("custom-and-namespaced-calls");
    let body = String::from_utf8(body)
        .unwrap()
        .replace(r#","namespace":"github""#, "");
    let events = decode_all(
        WIRE,
        tool_kinds(&tools, WIRE),
        support::origin_on(WIRE),
        body.as_bytes(),
    );
    match items(&events).last() {
        Some(Item::FunctionCall(c)) => assert_eq!(c.namespace.as_deref(), Some("github")),
        other => panic!("{other:?}"),
    }
}

// --- finish --------------------------------------------------------------------------------

#[test]
fn incomplete_is_max_tokens_and_drops_the_cut_call() {
    let events = decode(&own("incomplete-max-tokens"));
    assert_eq!(stop_reason(&events), StopReason::MaxTokens);
    let got = items(&events);
    assert_eq!(got.len(), 1, "only the message: {got:?}");
    assert!(matches!(&got[0], Item::Message(m) if m.text() == "The answer is"));
    let content_filter = String::from_utf8(own("incomplete-max-tokens"))
        .unwrap()
        .replace("max_output_tokens", "content_filter");
    assert_eq!(
        stop_reason(&decode(content_filter.as_bytes())),
        StopReason::ContentFilter
    );
}

#[test]
fn eof_without_a_terminal_event_is_truncation_without_a_call() {
    let events = decode(&own("truncated-mid-call"));
    let error = last_error(&events);
    assert_eq!(error.kind, ErrorKind::StreamTruncated);
    assert!(error.retryable);
    assert!(items(&events).is_empty());
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Ok(StreamEvent::ToolCallStarted { .. })))
    );
    // A complete stream cut before `response.completed`, and `[DONE]` before it.
    if let Some(body) = shared("openai-tool-call") {
        let cut = body
            .windows(25)
            .position(|w| w == b"event: response.completed")
            .unwrap();
        let events = decode(&body[..cut]);
        assert_eq!(last_error(&events).kind, ErrorKind::StreamTruncated);
        assert!(
            items(&events).is_empty(),
            "the call was complete, the response was not"
        );
    }
    let done_early =
        b"data: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\n\ndata: [DONE]\n\n";
    let events = decode(done_early);
    assert_eq!(last_error(&events).kind, ErrorKind::StreamTruncated);
    assert!(last_error(&events).message.contains("[DONE]"));
    assert_eq!(last_error(&decode(b"")).kind, ErrorKind::StreamTruncated);
    assert_eq!(
        last_error(&decode(b": keep-alive\n\n")).kind,
        ErrorKind::StreamTruncated
    );
}

#[test]
fn an_event_cut_by_the_end_of_the_body_is_truncation_not_format() {
    let events = decode(b"data: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\n\ndata: {\"type\":\"response.output_text.del");
    assert_eq!(last_error(&events).kind, ErrorKind::StreamTruncated);
    let events = decode(b"data: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\n\ndata: {not json}\n\n");
    assert_eq!(last_error(&events).kind, ErrorKind::FormatError);
}

// --- usage ---------------------------------------------------------------------------------

#[test]
fn usage_has_cached_and_reasoning_tokens() {
    let events = decode(&own("data-only-frames"));
    assert_eq!(
        usage(&events),
        Some(Usage {
            input_tokens: 50,
            output_tokens: 12,
            cached_input_tokens: 32,
            cache_write_tokens: 0,
            reasoning_tokens: 4,
        })
    );
    if let Some(body) = shared("openai-reasoning-summary") {
        let u = usage(&decode(&body)).unwrap();
        assert!(u.reasoning_tokens > 0 && u.reasoning_tokens <= u.output_tokens);
    }
    let no_usage = String::from_utf8(own("refusal-and-out-of-order-done")).unwrap();
    assert_eq!(usage(&decode(no_usage.as_bytes())), None);
}

// --- errors --------------------------------------------------------------------------------

#[test]
fn failed_with_context_length_exceeded_is_never_retryable() {
    let events = decode(&own("failed-context-length"));
    let error = last_error(&events);
    assert_eq!(error.kind, ErrorKind::ContextLengthExceeded);
    assert!(!error.retryable);
    assert_eq!(events.iter().filter(|e| e.is_err()).count(), 1);
}

#[test]
fn error_event_after_partial_output() {
    let events = decode(&own("error-event-server-error"));
    assert_eq!(text(&events), "Partial");
    let error = last_error(&events);
    assert_eq!(error.kind, ErrorKind::ServerError);
    assert!(error.retryable);
    assert!(items(&events).is_empty());
    // OpenAI: `error` (insufficient_quota) then `response.failed`: one error, not retryable.
    if let Some(body) = shared("openai-error-insufficient-quota") {
        let events = decode(&body);
        assert_eq!(events.iter().filter(|e| e.is_err()).count(), 1);
        assert_eq!(last_error(&events).kind, ErrorKind::QuotaExhausted);
        assert!(!last_error(&events).retryable);
    }
}

// --- reasoning -----------------------------------------------------------------------------

#[test]
fn reasoning_summary_parts_and_encrypted_content_are_kept() {
    let Some(body) = shared("openai-reasoning-summary") else {
        return;
    };
    let events = decode(&body);
    let summary = reasoning(&events, true);
    assert!(summary.starts_with("**Getting weather info**"));
    match &items(&events)[0] {
        Item::Reasoning(r) => {
            assert!(r.id.starts_with("rs_"));
            assert_eq!(r.summary.concat(), summary);
            assert!(
                r.encrypted_content
                    .as_deref()
                    .is_some_and(|e| e.starts_with("gAAAA"))
            );
            assert!(r.text.is_empty());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn reasoning_text_deltas_are_raw_reasoning() {
    let Some(body) = shared("deepseek-tool-call") else {
        return;
    };
    let events = decode(&body);
    let raw = reasoning(&events, false);
    assert_eq!(
        raw,
        "The user asks about temperature in Tokyo. I'll call the tool."
    );
    match &items(&events)[0] {
        Item::Reasoning(r) => assert_eq!(r.text, raw),
        other => panic!("{other:?}"),
    }
}

#[test]
fn items_come_out_in_output_order_whatever_order_they_finish_in() {
    let events = decode(&own("refusal-and-out-of-order-done"));
    let got = items(&events);
    assert!(matches!(&got[0], Item::Reasoning(r) if r.text == "Should not help."));
    assert!(matches!(&got[1], Item::Message(m) if m.text() == "I can't help with that."));
    assert_eq!(text(&events), "I can't help with that.");
}

// --- replies and chunking ------------------------------------------------------------------

#[test]
fn non_streaming_reply_gives_the_same_items() {
    let reply = json!({
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-4.1",
        "output": [
            {"type": "message", "id": "msg_1", "role": "assistant",
             "content": [{"type": "output_text", "text": "Hi", "annotations": []}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "shell",
             "arguments": "{\"command\":\"ls\"}", "status": "completed"}
        ],
        "usage": {"input_tokens": 3, "output_tokens": 2}
    });
    let events = decode_reply(
        WIRE,
        ToolKinds::new(),
        support::origin_on(WIRE),
        reply.to_string().as_bytes(),
    );
    assert_eq!(text(&events), "Hi");
    assert_eq!(
        calls(&events),
        [(
            "call_1".into(),
            "shell".into(),
            r#"{"command":"ls"}"#.into()
        )]
    );
    assert_eq!(stop_reason(&events), StopReason::ToolCalls);
    let failed = json!({"id": "resp_2", "status": "failed", "output": [],
        "error": {"code": "server_error", "message": "boom"}});
    let events = decode_reply(
        WIRE,
        ToolKinds::new(),
        support::origin_on(WIRE),
        failed.to_string().as_bytes(),
    );
    assert_eq!(last_error(&events).kind, ErrorKind::ServerError);
}

/// Every fixture we can decode: ours, and the shared real captures when present.
fn all_fixtures() -> Vec<(String, Vec<u8>)> {
    let mut all = support::own_fixtures(WIRE);
    if let Some(shared) = support::wire_fixtures(WIRE) {
        all.extend(shared);
    }
    all
}

#[test]
fn byte_by_byte_pushes_give_the_same_events() {
    for (name, body) in all_fixtures() {
        let whole = decode(&body);
        let cuts: Vec<usize> = (1..body.len()).collect();
        assert_eq!(decode_in_pieces(&body, &cuts), whole, "{name}");
    }
}

#[test]
fn displayed_arguments_match_every_call() {
    for (name, body) in all_fixtures() {
        let events = decode(&body);
        for (call_id, _, arguments) in calls(&events) {
            assert_eq!(displayed_arguments(&events, &call_id), arguments, "{name}");
        }
    }
}
