//! Chat stream decoding: our own small fixtures for the edge cases, the rules for tool kinds,
//! truncation and ids, and chunking invariance over every fixture (ours and the shared real
//! captures).
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::json;
use tack_protocol::{
    ErrorKind, Item, ModelError, ReasoningOrigin, StopReason, StreamEvent, ToolKind, Usage, Wire,
};
use tack_wire::neutral::to_neutral_lines;
use tack_wire::{ToolKinds, decode_all, decoder};

type Events = Vec<Result<StreamEvent, ModelError>>;

fn own_fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/chat");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

fn own(name: &str) -> Vec<u8> {
    own_fixtures()
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, b)| b)
        .unwrap_or_else(|| panic!("no fixture {name}"))
}

fn decode(body: &[u8]) -> Events {
    decode_all(Wire::Chat, ToolKinds::new(), support::origin(), body)
}

fn decode_with(kinds: ToolKinds, body: &[u8]) -> Events {
    decode_all(Wire::Chat, kinds, support::origin(), body)
}

fn decode_in_pieces(body: &[u8], cuts: &[usize]) -> Events {
    let mut d = decoder(Wire::Chat, ToolKinds::new(), support::origin());
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

fn calls(events: &Events) -> Vec<(String, String, String)> {
    items(events)
        .into_iter()
        .filter_map(|i| match i {
            Item::FunctionCall(c) => Some((c.call_id, c.name, c.arguments)),
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

fn sse(chunks: &[serde_json::Value]) -> Vec<u8> {
    let mut body = String::new();
    for c in chunks {
        body.push_str(&format!("data: {c}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    body.into_bytes()
}

#[test]
fn own_fixtures_match_their_snapshots() {
    for (name, body) in own_fixtures() {
        insta::assert_json_snapshot!(format!("own__{name}"), to_neutral_lines(&decode(&body)));
    }
}

#[test]
fn truncated_mid_tool_call_yields_no_items() {
    let events = decode(&own("truncated-mid-tool-call"));
    assert_eq!(last_error(&events).kind, ErrorKind::StreamTruncated);
    assert!(last_error(&events).retryable);
    assert!(
        items(&events).is_empty(),
        "no item from a truncated response"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Ok(StreamEvent::ToolCallStarted { .. })))
    );
}

#[test]
fn malformed_chunk_is_a_format_error_and_ends_the_stream() {
    let events = decode(&own("malformed-chunk"));
    assert_eq!(last_error(&events).kind, ErrorKind::FormatError);
    assert_eq!(
        events.iter().filter(|e| e.is_err()).count(),
        1,
        "nothing after the error"
    );
}

#[test]
fn missing_index_is_keyed_by_id_then_continues_the_last_call() {
    let events = decode(&own("missing-index"));
    assert_eq!(
        calls(&events),
        [
            (
                "call_x".into(),
                "read_file".into(),
                r#"{"path":"a.txt"}"#.into()
            ),
            (
                "call_y".into(),
                "read_file".into(),
                r#"{"path":"b.txt"}"#.into()
            ),
            ("call_chatcmpl-n1_2".into(), "list_dir".into(), "{}".into()),
        ]
    );
    // `finish_reason: "stop"` with calls is still a tool-call stop.
    assert_eq!(stop_reason(&events), StopReason::ToolCalls);
}

#[test]
fn empty_and_null_ids_on_continuations_are_ignored() {
    let events = decode(&own("empty-id-continuations"));
    assert_eq!(
        calls(&events),
        [(
            "call_1".into(),
            "grep".into(),
            r#"{"pattern":"fn main"}"#.into()
        )]
    );
}

#[test]
fn duplicate_and_missing_call_ids_are_made_unique() {
    let events = decode(&own("duplicate-call-ids"));
    let ids: Vec<String> = calls(&events).into_iter().map(|c| c.0).collect();
    assert_eq!(ids, ["call_0", "call_0_2", "call_chatcmpl-d1_2"]);
    let item_ids: Vec<String> = items(&events).iter().map(|i| i.id().to_string()).collect();
    assert_eq!(
        item_ids,
        ["chatcmpl-d1-fc0", "chatcmpl-d1-fc1", "chatcmpl-d1-fc2"]
    );
}

#[test]
fn usage_only_final_chunk_is_mapped() {
    let events = decode(&own("usage-only-final-chunk"));
    let usage = events.iter().find_map(|e| match e {
        Ok(StreamEvent::Usage { usage }) => Some(*usage),
        _ => None,
    });
    assert_eq!(
        usage,
        Some(Usage {
            input_tokens: 1200,
            output_tokens: 40,
            cached_input_tokens: 1024,
            cache_write_tokens: 0,
            reasoning_tokens: 12,
        })
    );
    assert_eq!(stop_reason(&events), StopReason::EndTurn);
}

#[test]
fn done_missing_after_finish_completes() {
    let events = decode(&own("done-missing-after-finish"));
    assert_eq!(stop_reason(&events), StopReason::MaxTokens);
    assert_eq!(items(&events).len(), 1);
}

#[test]
fn done_before_any_finish_reason_is_truncation() {
    let body = sse(&[json!({"id":"c","choices":[{"index":0,"delta":{"content":"par"}}]})]);
    let events = decode(&body);
    assert_eq!(last_error(&events).kind, ErrorKind::StreamTruncated);
    assert!(last_error(&events).message.contains("[DONE]"));
    assert_eq!(decode(b"").len(), 1);
    assert_eq!(last_error(&decode(b"")).kind, ErrorKind::StreamTruncated);
    assert_eq!(
        last_error(&decode(b": keep-alive\n\n")).kind,
        ErrorKind::StreamTruncated
    );
}

#[test]
fn a_chunk_cut_by_the_end_of_the_body_is_truncation_not_format() {
    let events = decode(b"data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"cont");
    assert_eq!(last_error(&events).kind, ErrorKind::StreamTruncated);
}

#[test]
fn tool_kinds_restore_custom_and_namespaced_calls() {
    let mut kinds = ToolKinds::new();
    kinds.insert("apply_patch".into(), ToolKind::Custom);
    kinds.insert(
        "github_create_issue".into(),
        ToolKind::NamespacedFunction {
            name: "create_issue".into(),
            namespace: "github".into(),
        },
    );
    let patch = "*** Begin Patch\n*** End Patch";
    let body = sse(&[
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[
            {"index":0,"id":"c1","type":"function","function":{"name":"apply_patch","arguments":json!({"input": patch}).to_string()}},
            {"index":1,"id":"c2","type":"function","function":{"name":"github_create_issue","arguments":"{\"title\":\"t\"}"}},
            {"index":2,"id":"c3","type":"function","function":{"name":"apply_patch","arguments":"raw text"}}
        ]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
    ]);
    let got = items(&decode_with(kinds, &body));
    match &got[0] {
        Item::CustomToolCall(c) => {
            assert_eq!(
                (c.call_id.as_str(), c.name.as_str(), c.input.as_str()),
                ("c1", "apply_patch", patch)
            );
        }
        other => panic!("{other:?}"),
    }
    match &got[1] {
        Item::FunctionCall(c) => {
            assert_eq!(c.name, "create_issue");
            assert_eq!(c.namespace.as_deref(), Some("github"));
            assert_eq!(c.arguments, r#"{"title":"t"}"#);
        }
        other => panic!("{other:?}"),
    }
    match &got[2] {
        Item::CustomToolCall(c) => assert_eq!(c.input, "raw text"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn length_drops_a_call_cut_by_the_limit() {
    let body = sse(&[
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[
            {"index":0,"id":"c1","function":{"name":"f","arguments":"{\"a\":1}"}},
            {"index":1,"id":"c2","function":{"name":"f","arguments":"{\"a\":"}}
        ]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}),
    ]);
    let events = decode(&body);
    assert_eq!(calls(&events).len(), 1);
    assert_eq!(stop_reason(&events), StopReason::ToolCalls);

    let only_cut = sse(&[
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a"}}]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}),
    ]);
    let events = decode(&only_cut);
    assert!(calls(&events).is_empty());
    assert_eq!(stop_reason(&events), StopReason::MaxTokens);
}

#[test]
fn reasoning_and_message_items_have_deterministic_ids_and_origin() {
    let body = sse(&[
        json!({"id":"r7","model":"deepseek-reasoner","choices":[{"index":0,"delta":{"reasoning_content":"hm","content":null}}]}),
        json!({"id":"r7","choices":[{"index":0,"delta":{"reasoning":"ignored when reasoning_content is set","reasoning_content":"m"}}]}),
        json!({"id":"r7","choices":[{"index":0,"delta":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}),
        json!({"id":"r7","choices":[{"index":0,"delta":{"refusal":"!"},"finish_reason":"stop"}]}),
        json!({"id":"r7","choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}),
    ]);
    let origin = ReasoningOrigin {
        wire: Wire::Chat,
        provider: Some("deepseek".into()),
        model: Some("requested".into()),
    };
    let events = decode_all(Wire::Chat, ToolKinds::new(), origin, &body);
    let got = items(&events);
    match &got[0] {
        Item::Reasoning(r) => {
            assert_eq!(r.id, "r7-rs");
            assert_eq!(r.text, "hmm");
            let origin = r.origin.as_ref().unwrap();
            assert_eq!(origin.model.as_deref(), Some("deepseek-reasoner"));
            assert_eq!(origin.provider.as_deref(), Some("deepseek"));
        }
        other => panic!("{other:?}"),
    }
    match &got[1] {
        Item::Message(m) => {
            assert_eq!(m.id, "r7-msg");
            assert_eq!(m.text(), "ab!");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        &events[0],
        Ok(StreamEvent::Created { response_id: Some(id), model: Some(model) }) if id == "r7" && model == "deepseek-reasoner"
    ));
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Ok(StreamEvent::Created { .. })))
            .count(),
        1
    );
}

#[test]
fn provider_errors_end_the_stream() {
    let events = decode(b"event: error\ndata: upstream reset\n\n");
    assert_eq!(last_error(&events).kind, ErrorKind::ProviderError);
    let events = decode(&sse(&[
        json!({"id":"r","error":{"code":429,"message":"rate limited upstream"},"choices":[]}),
    ]));
    assert_eq!(last_error(&events).kind, ErrorKind::RateLimit);
    let events = decode(&sse(&[
        json!({"error":{"message":"This model's maximum context length is 4096 tokens","code":"context_length_exceeded"}}),
    ]));
    assert_eq!(last_error(&events).kind, ErrorKind::ContextLengthExceeded);
    let events = decode(&sse(&[
        json!({"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"error"}]}),
    ]));
    assert_eq!(last_error(&events).kind, ErrorKind::ProviderError);
}

#[test]
fn other_choices_are_ignored() {
    let body = sse(&[
        json!({"id":"r","choices":[{"index":1,"delta":{"content":"other"}},{"index":0,"delta":{"content":"mine"}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
    ]);
    let lines = to_neutral_lines(&decode(&body));
    assert_eq!(lines[0], json!({"type":"text_delta","text":"mine"}));
}

#[test]
fn same_index_with_a_new_id_is_a_new_call() {
    let body = sse(&[
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{\"x\""}}]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}),
        json!({"id":"r","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
    ]);
    assert_eq!(
        calls(&decode(&body)),
        [
            ("a".into(), "f".into(), "{}".into()),
            ("b".into(), "g".into(), r#"{"x":1}"#.into())
        ]
    );
}

#[test]
fn tool_call_display_events_match_the_final_call() {
    let events = decode(&own("empty-id-continuations"));
    let deltas: String = events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::ToolCallDelta { call_id, delta }) => {
                assert_eq!(call_id, "call_1");
                Some(delta.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(deltas, calls(&events)[0].2);
}

/// Every fixture we can decode: ours, and the shared real captures when present (read once:
/// the property test asks for them on every case).
fn all_fixtures() -> &'static [(String, Vec<u8>)] {
    static ALL: std::sync::OnceLock<Vec<(String, Vec<u8>)>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut all = own_fixtures();
        if let Some(shared) = support::chat_fixtures() {
            all.extend(shared);
        }
        all
    })
}

#[test]
fn byte_by_byte_pushes_give_the_same_events() {
    for (name, body) in all_fixtures() {
        let whole = decode(body);
        let cuts: Vec<usize> = (1..body.len()).collect();
        assert_eq!(decode_in_pieces(body, &cuts), whole, "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn any_chunking_gives_the_same_events(
        pick in any::<prop::sample::Index>(),
        raw_cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..24),
    ) {
        let fixtures = all_fixtures();
        let (name, body) = &fixtures[pick.index(fixtures.len())];
        let mut cuts: Vec<usize> = raw_cuts.iter().map(|i| i.index(body.len() + 1)).collect();
        cuts.sort_unstable();
        let whole = decode(body);
        prop_assert_eq!(decode_in_pieces(body, &cuts), whole, "{} cut at {:?}", name, cuts);
    }
}
