//! Model-controlled nesting never costs stack: JSON nested far past any real tool call, as
//! tool-call arguments (kept as text) and as the event's own JSON (serde_json's recursion
//! limit of 128 makes it a clear `format_error`), on every wire, and through the record's
//! key scrubbing.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use tack_protocol::{ErrorKind, Item, StreamEvent, Wire};
use tack_wire::{ToolKinds, decode_all};

const DEPTH: usize = 100_000;

fn deep() -> String {
    format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH))
}

/// A complete stream whose one tool call has `arguments` (a JSON text) as its arguments.
fn call_stream(wire: Wire, arguments: &str) -> Vec<u8> {
    let a = serde_json::to_string(arguments).unwrap();
    match wire {
        Wire::Chat => format!(
            "data: {{\"id\":\"c\",\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"id\":\"call_1\",\"function\":{{\"name\":\"shell\",\"arguments\":{a}}}}}]}}}}]}}\n\n\
data: {{\"id\":\"c\",\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"tool_calls\"}}]}}\n\ndata: [DONE]\n\n"
        ),
        Wire::Responses => format!(
            "data: {{\"type\":\"response.created\",\"response\":{{\"id\":\"r\",\"output\":[]}}}}\n\n\
data: {{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{{\"type\":\"function_call\",\"id\":\"fc\",\"call_id\":\"call_1\",\"name\":\"shell\",\"arguments\":{a}}}}}\n\n\
data: {{\"type\":\"response.completed\",\"response\":{{\"id\":\"r\",\"status\":\"completed\",\"output\":[{{\"type\":\"function_call\",\"id\":\"fc\",\"call_id\":\"call_1\",\"name\":\"shell\",\"arguments\":{a}}}]}}}}\n\n"
        ),
        Wire::Messages => format!(
            "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"id\":\"m\",\"content\":[],\"usage\":{{\"input_tokens\":1,\"output_tokens\":1}}}}}}\n\n\
event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"shell\",\"input\":{{}}}}}}\n\n\
event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":{a}}}}}\n\n\
event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n\
event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"tool_use\"}},\"usage\":{{\"output_tokens\":1}}}}\n\n\
event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
        ),
    }
    .into_bytes()
}

#[test]
fn deeply_nested_arguments_text_decodes_without_recursing() {
    let arguments = deep();
    for wire in [Wire::Chat, Wire::Responses, Wire::Messages] {
        let events = decode_all(
            wire,
            ToolKinds::new(),
            support::origin_on(wire),
            &call_stream(wire, &arguments),
        );
        assert!(
            matches!(events.last(), Some(Ok(StreamEvent::Completed { .. }))),
            "{wire}: {:?}",
            events.last()
        );
        let call = events.iter().find_map(|e| match e {
            Ok(StreamEvent::ItemDone {
                item: Item::FunctionCall(c),
            }) => Some(c),
            _ => None,
        });
        // Kept as the model wrote it (Messages may normalize the JSON text of `input`);
        // the tool's own validation answers it.
        assert!(call.is_some(), "{wire}: no call");
    }
}

#[test]
fn deeply_nested_event_json_is_a_format_error() {
    // Z.ai-style arguments as a JSON value, nested past serde_json's limit.
    let body = format!(
        "data: {{\"id\":\"c\",\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"id\":\"call_1\",\"function\":{{\"name\":\"shell\",\"arguments\":{}}}}}]}}}}]}}\n\n",
        deep()
    );
    let events = decode_all(
        Wire::Chat,
        ToolKinds::new(),
        support::origin(),
        body.as_bytes(),
    );
    match events.last() {
        Some(Err(e)) => {
            assert_eq!(e.kind, ErrorKind::FormatError);
            assert!(e.message.contains("recursion limit"), "{}", e.message);
        }
        other => panic!("{other:?}"),
    }
}
