//! Messages stream decoding: our own small fixtures for what the real captures do not show,
//! one test per kind of real-provider behaviour (using the shared captures where they show
//! it), and chunking invariance over every fixture.

mod support;

use serde_json::json;
use tack_protocol::{
    ErrorKind, Item, ModelError, ReasoningItem, StopReason, StreamEvent, ToolKind, ToolSpec, Usage,
    Wire,
};
use tack_wire::neutral::to_neutral_lines;
use tack_wire::{ToolKinds, decode_all, decode_reply, decoder, tool_kinds};

type Events = Vec<Result<StreamEvent, ModelError>>;

const WIRE: Wire = Wire::Messages;

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

fn reasoning_items(events: &Events) -> Vec<ReasoningItem> {
    items(events)
        .into_iter()
        .filter_map(|i| match i {
            Item::Reasoning(r) => Some(r),
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
fn crlf_comments_and_data_without_space() {
    let events = decode(&own("crlf-comments-no-space"));
    assert_eq!(text(&events), "Olá ✓");
    assert_eq!(stop_reason(&events), StopReason::EndTurn);
    assert!(matches!(
        &events[0],
        Ok(StreamEvent::Created { response_id: Some(id), model: Some(m) })
            if id == "msg_crlf" && m == "claude-haiku-4-5"
    ));
}

#[test]
fn padded_json_pings_and_split_characters() {
    // Anthropic pads frames with spaces before the closing brace and sends `{"type": "ping"}`
    // between blocks.
    let Some(body) = shared("anthropic-redacted-thinking") else {
        return;
    };
    let whole = decode(&body);
    assert_eq!(stop_reason(&whole), StopReason::EndTurn);
    let text_capture = shared("anthropic-text").unwrap();
    let events = decode(&text_capture);
    assert!(text(&events).starts_with("Olá!"));
    let at = text_capture
        .windows(2)
        .position(|w| w == [0xC3, 0xA1])
        .unwrap()
        + 1;
    assert_eq!(decode_in_pieces(&text_capture, &[at]), events);
}

#[test]
fn data_only_frames() {
    // LiteLLM: no `event:` lines, spaces after every colon.
    let events = decode(&own("litellm-data-only"));
    assert_eq!(
        calls(&events),
        [(
            "call_BdpPmIJC0QdVJ3oiexvwmueTowKnqEkR".into(),
            "run_shell".into(),
            r#"{"command": "ls"}"#.into()
        )]
    );
    let u = usage(&events).unwrap();
    assert_eq!(
        (u.input_tokens, u.cached_input_tokens, u.output_tokens),
        (488, 487, 31)
    );
}

// --- tool calls ----------------------------------------------------------------------------

#[test]
fn tool_use_without_input_and_without_deltas() {
    // llama.cpp: no `input` in `content_block_start`; a call with no deltas at all is `{}`.
    let events = decode(&own("llamacpp-tool-use-without-input"));
    assert_eq!(
        calls(&events),
        [
            (
                "n8LQPZRjsLHXWRvYXiVCNfqqoCzXfSOR".into(),
                "run_shell".into(),
                r#"{"command": "ls"}"#.into()
            ),
            ("toolu_noargs".into(), "list_dir".into(), "{}".into()),
        ]
    );
    assert_eq!(displayed_arguments(&events, "toolu_noargs"), "{}");
    let u = usage(&events).unwrap();
    assert_eq!((u.input_tokens, u.cached_input_tokens), (487, 24));
}

#[test]
fn first_partial_json_empty_and_caller_field() {
    let Some(body) = shared("anthropic-tool-use") else {
        return;
    };
    let events = decode(&body);
    assert_eq!(
        text(&events),
        "I'll get the weather information for Florence, Italy for you."
    );
    assert_eq!(
        calls(&events),
        [(
            "toolu_01N2eM4V43kGCDkq2Lw7ChWQ".into(),
            "weather".into(),
            r#"{"location": "Florence,Italy"}"#.into()
        )]
    );
    let got = items(&events);
    assert!(matches!(&got[0], Item::Message(m) if m.id == "msg_01Kgk6kMJLdJJC26r3uFwpRU-0"));
    assert!(matches!(&got[1], Item::FunctionCall(c) if c.id == "msg_01Kgk6kMJLdJJC26r3uFwpRU-1"));
}

#[test]
fn parallel_tool_uses() {
    for name in [
        "anthropic-parallel-tool-use",
        "anthropic-parallel-tool-use-claude3",
    ] {
        let Some(body) = shared(name) else {
            return;
        };
        let events = decode(&body);
        assert_eq!(calls(&events).len(), 2, "{name}");
        assert_eq!(stop_reason(&events), StopReason::ToolCalls);
    }
}

#[test]
fn blocks_finishing_out_of_order_come_out_in_index_order() {
    let events = decode(&own("out-of-order-stops"));
    let got = items(&events);
    assert!(matches!(&got[0], Item::Reasoning(r) if r.text == "Two reads at once."));
    assert_eq!(
        calls(&events),
        [
            (
                "toolu_a".into(),
                "Read".into(),
                r#"{"file_path":"a.rs"}"#.into()
            ),
            (
                "toolu_b".into(),
                "Read".into(),
                r#"{"file_path":"b.rs"}"#.into()
            ),
        ]
    );
}

#[test]
fn custom_and_namespaced_tools_come_back_through_the_tool_kinds() {
    let tools = vec![
        ToolSpec::freeform("apply_patch", "Apply a patch."),
        ToolSpec {
            namespace: Some("github".into()),
            ..ToolSpec::function("create_issue", "", json!({"type":"object"}))
        },
    ];
    let kinds = tool_kinds(&tools, WIRE);
    assert_eq!(kinds["apply_patch"], ToolKind::Custom);
    let body = own("out-of-order-stops");
    let body = String::from_utf8(body)
        .unwrap()
        .replacen(r#""name":"Read""#, r#""name":"apply_patch""#, 1)
        .replacen(r#""name":"Read""#, r#""name":"github_create_issue""#, 1)
        .replace(
            r#"{\"file_path\":\"a.rs\"}"#,
            r#"{\"input\":\"*** Begin Patch\"}"#,
        );
    let events = decode_all(WIRE, kinds, support::origin_on(WIRE), body.as_bytes());
    let got = items(&events);
    match &got[1] {
        Item::CustomToolCall(c) => assert_eq!(
            (c.name.as_str(), c.input.as_str()),
            ("apply_patch", "*** Begin Patch")
        ),
        other => panic!("{other:?}"),
    }
    match &got[2] {
        Item::FunctionCall(c) => {
            assert_eq!(
                (c.name.as_str(), c.namespace.as_deref()),
                ("create_issue", Some("github"))
            )
        }
        other => panic!("{other:?}"),
    }
}

// --- finish --------------------------------------------------------------------------------

#[test]
fn eof_before_message_stop_is_truncation_without_a_call() {
    let events = decode(&own("eof-mid-tool-use"));
    assert_eq!(text(&events), "Deleting it.");
    let error = last_error(&events);
    assert_eq!(error.kind, ErrorKind::StreamTruncated);
    assert!(error.message.contains("message_stop"));
    assert!(items(&events).is_empty());
    // Complete blocks and even `message_delta` are not enough without `message_stop`.
    if let Some(body) = shared("anthropic-tool-use") {
        let cut = body
            .windows(19)
            .position(|w| w == b"event: message_stop")
            .unwrap();
        let events = decode(&body[..cut]);
        assert_eq!(last_error(&events).kind, ErrorKind::StreamTruncated);
        assert!(items(&events).is_empty());
    }
    assert_eq!(last_error(&decode(b"")).kind, ErrorKind::StreamTruncated);
}

#[test]
fn max_tokens_drops_a_cut_tool_use() {
    let events = decode(&own("max-tokens-cut-tool-use"));
    assert_eq!(stop_reason(&events), StopReason::MaxTokens);
    let got = items(&events);
    assert_eq!(got.len(), 1);
    assert!(matches!(&got[0], Item::Message(m) if m.text() == "Writing the file now."));
}

#[test]
fn stop_reasons_map() {
    assert_eq!(
        stop_reason(&decode(&own("refusal"))),
        StopReason::ContentFilter
    );
    let with = |reason: &str| {
        let body = String::from_utf8(own("refusal"))
            .unwrap()
            .replace("refusal", reason);
        stop_reason(&decode(body.as_bytes()))
    };
    assert_eq!(with("end_turn"), StopReason::EndTurn);
    assert_eq!(with("stop_sequence"), StopReason::EndTurn);
    assert_eq!(with("pause_turn"), StopReason::EndTurn);
    assert_eq!(with("max_tokens"), StopReason::MaxTokens);
    assert_eq!(with("model_context_window_exceeded"), StopReason::MaxTokens);
    // `tool_use` with no call to run ends the turn.
    assert_eq!(with("tool_use"), StopReason::EndTurn);
}

// --- usage ---------------------------------------------------------------------------------

#[test]
fn usage_adds_cache_reads_and_writes_and_takes_running_totals() {
    let events = decode(&own("out-of-order-stops"));
    assert_eq!(
        usage(&events),
        Some(Usage {
            input_tokens: 32_100,
            output_tokens: 88,
            cached_input_tokens: 30_000,
            cache_write_tokens: 2_000,
            reasoning_tokens: 0,
        })
    );
    // Web search: `message_delta.usage` repeats (and raises) the input count.
    if let Some(body) = shared("anthropic-web-search") {
        let u = usage(&decode(&body)).unwrap();
        assert_eq!((u.input_tokens, u.output_tokens), (13_520, 415));
    }
}

// --- errors --------------------------------------------------------------------------------

#[test]
fn overloaded_mid_stream_after_partial_output_is_retryable() {
    let Some(body) = shared("anthropic-error-overloaded-midstream") else {
        return;
    };
    let events = decode(&body);
    assert_eq!(text(&events), "Olá! (That");
    let error = last_error(&events);
    assert_eq!(error.kind, ErrorKind::Overloaded);
    assert!(error.retryable);
    assert!(items(&events).is_empty());
}

#[test]
fn error_types_are_classified() {
    let ptl = decode(&own("error-prompt-too-long"));
    assert_eq!(last_error(&ptl).kind, ErrorKind::ContextLengthExceeded);
    assert!(!last_error(&ptl).retryable);
    let api = decode(&own("error-api-error"));
    assert_eq!(last_error(&api).kind, ErrorKind::ServerError);
    assert!(last_error(&api).retryable);
    let rate = decode(&own("error-rate-limit"));
    assert_eq!(last_error(&rate).kind, ErrorKind::RateLimit);
    let text_error = decode(b"event: error\ndata: upstream connect error\n\n");
    assert_eq!(last_error(&text_error).kind, ErrorKind::ProviderError);
}

// --- reasoning -----------------------------------------------------------------------------

#[test]
fn thinking_signature_and_redacted_thinking_are_kept() {
    if let Some(body) = shared("anthropic-thinking-tool-use") {
        let events = decode(&body);
        let thinking = reasoning_items(&events);
        assert_eq!(thinking.len(), 1);
        assert!(
            thinking[0]
                .text
                .starts_with("The user is asking for weather")
        );
        assert!(
            thinking[0]
                .signature
                .as_deref()
                .is_some_and(|s| s.len() > 100)
        );
        assert_eq!(
            thinking[0].origin.as_ref().unwrap().model.as_deref(),
            Some("claude-sonnet-4-20250514")
        );
        assert_eq!(stop_reason(&events), StopReason::ToolCalls);
    }
    if let Some(body) = shared("anthropic-redacted-thinking") {
        let events = decode(&body);
        let redacted = reasoning_items(&events);
        assert_eq!(redacted.len(), 2);
        for r in &redacted {
            assert!(r.text.is_empty() && r.signature.is_none());
            assert!(r.redacted_data.as_deref().is_some_and(|d| d.len() > 100));
        }
        assert!(matches!(items(&events).last(), Some(Item::Message(_))));
    }
    let events = decode(&own("out-of-order-stops"));
    assert_eq!(
        reasoning_items(&events)[0].signature.as_deref(),
        Some("EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds")
    );
}

#[test]
fn server_tools_are_not_calls_and_text_around_them_is_one_message() {
    let Some(body) = shared("anthropic-web-search") else {
        return;
    };
    let events = decode(&body);
    assert!(calls(&events).is_empty());
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Ok(StreamEvent::ToolCallStarted { .. })))
    );
    let got = items(&events);
    assert_eq!(got.len(), 1);
    assert!(matches!(&got[0], Item::Message(m) if m.text() == text(&events)));
    assert_eq!(stop_reason(&events), StopReason::EndTurn);
}

// --- replies and chunking ------------------------------------------------------------------

#[test]
fn non_streaming_reply_gives_the_same_items() {
    let reply = json!({
        "id": "msg_r", "type": "message", "role": "assistant", "model": "claude-sonnet-4",
        "content": [
            {"type": "thinking", "thinking": "Plan.", "signature": "sig"},
            {"type": "text", "text": "Running it."},
            {"type": "tool_use", "id": "toolu_r", "name": "Bash", "input": {"command": "ls"}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 5, "cache_read_input_tokens": 10, "output_tokens": 7}
    });
    let events = decode_reply(
        WIRE,
        ToolKinds::new(),
        support::origin_on(WIRE),
        reply.to_string().as_bytes(),
    );
    assert_eq!(text(&events), "Running it.");
    assert_eq!(
        calls(&events),
        [(
            "toolu_r".into(),
            "Bash".into(),
            r#"{"command":"ls"}"#.into()
        )]
    );
    assert_eq!(
        reasoning_items(&events)[0].signature.as_deref(),
        Some("sig")
    );
    assert_eq!(usage(&events).unwrap().input_tokens, 15);
    let error =
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let events = decode_reply(
        WIRE,
        ToolKinds::new(),
        support::origin_on(WIRE),
        error.to_string().as_bytes(),
    );
    assert_eq!(last_error(&events).kind, ErrorKind::Overloaded);
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
