//! The neutral event schema printed by `tack decode`: one JSON object per line, the same for
//! every wire, so decoders of different wires (and of different implementations) can be
//! compared line by line.
//!
//! | event | line |
//! |---|---|
//! | [`StreamEvent::TextDelta`] | `{"type":"text_delta","text"}` |
//! | [`StreamEvent::ReasoningDelta`] | `{"type":"reasoning_delta","text"}` |
//! | `ItemDone` of a function call | `{"type":"tool_call","call_id","name","arguments"}` (+ `"namespace"` when set) |
//! | `ItemDone` of a custom tool call | `{"type":"tool_call","call_id","name","arguments":<the input text>}` |
//! | [`StreamEvent::Usage`] | `{"type":"usage","input_tokens","output_tokens"}` |
//! | [`StreamEvent::Completed`] | `{"type":"completed","stop_reason"}` |
//! | an error | `{"type":"error","kind","retryable","message"}` |
//!
//! `arguments` is the parsed JSON when the arguments are valid JSON, else the raw string.
//! Every delta keeps its own line (no coalescing), so the output is faithful to the stream.
//! `Created`, `ToolCallStarted`, `ToolCallDelta` and the `ItemDone` of messages and reasoning
//! have no line: their content is already carried by the deltas.

use serde_json::{Map, Value, json};
use tack_protocol::{Item, ModelError, StopReason, StreamEvent};

/// The neutral line of one decoded event, or `None` for events the schema leaves out.
pub fn to_neutral(event: &Result<StreamEvent, ModelError>) -> Option<Value> {
    let event = match event {
        Ok(event) => event,
        Err(error) => {
            return Some(json!({
                "type": "error",
                "kind": error.kind.as_str(),
                "retryable": error.retryable,
                "message": error.message,
            }));
        }
    };
    match event {
        StreamEvent::TextDelta { text } => Some(json!({"type": "text_delta", "text": text})),
        StreamEvent::ReasoningDelta { text, .. } => {
            Some(json!({"type": "reasoning_delta", "text": text}))
        }
        StreamEvent::ItemDone { item } => match item {
            Item::FunctionCall(call) => {
                let mut line = Map::new();
                line.insert("type".into(), "tool_call".into());
                line.insert("call_id".into(), call.call_id.clone().into());
                line.insert("name".into(), call.name.clone().into());
                if let Some(namespace) = &call.namespace {
                    line.insert("namespace".into(), namespace.clone().into());
                }
                line.insert("arguments".into(), parsed_or_raw(&call.arguments));
                Some(Value::Object(line))
            }
            Item::CustomToolCall(call) => Some(json!({
                "type": "tool_call",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": call.input,
            })),
            _ => None,
        },
        StreamEvent::Usage { usage } => Some(json!({
            "type": "usage",
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
        })),
        StreamEvent::Completed { stop_reason, .. } => Some(json!({
            "type": "completed",
            "stop_reason": stop_reason_name(*stop_reason),
        })),
        StreamEvent::Created { .. }
        | StreamEvent::ToolCallStarted { .. }
        | StreamEvent::ToolCallDelta { .. } => None,
    }
}

/// The neutral lines of a decoded stream, in order.
pub fn to_neutral_lines(events: &[Result<StreamEvent, ModelError>]) -> Vec<Value> {
    events.iter().filter_map(to_neutral).collect()
}

/// The neutral lines as JSON Lines text (each line ends with `\n`).
pub fn to_jsonl(events: &[Result<StreamEvent, ModelError>]) -> String {
    let mut out = String::new();
    for line in to_neutral_lines(events) {
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

/// The schema name of a stop reason (the snake_case serde name).
pub fn stop_reason_name(reason: StopReason) -> &'static str {
    match reason {
        StopReason::EndTurn => "end_turn",
        StopReason::ToolCalls => "tool_calls",
        StopReason::MaxTokens => "max_tokens",
        StopReason::ContentFilter => "content_filter",
    }
}

fn parsed_or_raw(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::{ErrorKind, FunctionCallItem};

    #[test]
    fn arguments_are_parsed_or_kept_raw() {
        let call = |arguments: &str| {
            Ok(StreamEvent::ItemDone {
                item: Item::FunctionCall(FunctionCallItem {
                    id: "i".into(),
                    call_id: "c".into(),
                    name: "f".into(),
                    namespace: None,
                    arguments: arguments.into(),
                }),
            })
        };
        assert_eq!(
            to_neutral(&call(r#"{"a":1}"#)).unwrap(),
            json!({"type":"tool_call","call_id":"c","name":"f","arguments":{"a":1}})
        );
        assert_eq!(
            to_neutral(&call(r#"{"a":"#)).unwrap()["arguments"],
            json!(r#"{"a":"#)
        );
    }

    #[test]
    fn errors_and_completion() {
        let err = Err(ModelError::new(ErrorKind::StreamTruncated, "cut"));
        assert_eq!(
            to_jsonl(&[
                err,
                Ok(StreamEvent::Completed {
                    stop_reason: StopReason::MaxTokens,
                    response_id: None
                })
            ]),
            "{\"type\":\"error\",\"kind\":\"stream_truncated\",\"retryable\":true,\"message\":\"cut\"}\n{\"type\":\"completed\",\"stop_reason\":\"max_tokens\"}\n"
        );
    }
}
