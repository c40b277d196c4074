//! Empty tool results render as something the provider accepts: the Messages API refuses
//! empty text blocks (an empty string `content` is one), so empty text parts are left out and
//! a result with nothing left has no `content` at all, which the API documents as optional.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use tack_protocol::Wire;
use tack_wire::{Block, Endpoint, ResultPart, ShapedMessage, ShapedRequest, ShapedRole, render};

fn text(t: &str) -> ResultPart {
    ResultPart::Text { text: t.into() }
}

const PNG: &str = "data:image/png;base64,iVBORw0KGgo=";

fn request(content: Vec<ResultPart>) -> ShapedRequest {
    ShapedRequest {
        model: "m".into(),
        messages: vec![
            ShapedMessage::text(ShapedRole::User, "go"),
            ShapedMessage::new(
                ShapedRole::Assistant,
                vec![Block::ToolCall {
                    call_id: "toolu_1".into(),
                    name: "shell".into(),
                    arguments: "{}".into(),
                    custom_input: None,
                }],
            ),
            ShapedMessage::new(
                ShapedRole::Tool,
                vec![Block::ToolResult {
                    call_id: "toolu_1".into(),
                    content,
                    is_error: None,
                    cache: false,
                }],
            ),
        ],
        ..ShapedRequest::default()
    }
}

fn tool_result(body: &Value) -> &Value {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .find(|b| b["type"] == "tool_result")
        .unwrap()
}

#[test]
fn no_empty_text_block_in_any_shape_of_empty_result() {
    let endpoint = Endpoint::new("https://api.anthropic.com");
    let cases: Vec<(Vec<ResultPart>, Option<Value>)> = vec![
        (vec![], None),
        (vec![text("")], None),
        (vec![text(""), text("")], None),
        (vec![text(""), text("ok")], Some(Value::String("ok".into()))),
        (
            vec![text(""), ResultPart::Image { url: PNG.into() }],
            Some(
                serde_json::json!([{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]),
            ),
        ),
    ];
    for (content, expected) in cases {
        let rendered = render(&request(content.clone()), Wire::Messages, &endpoint).unwrap();
        let body: Value = serde_json::from_slice(&rendered.body).unwrap();
        let result = tool_result(&body);
        assert_eq!(
            result.get("content").cloned(),
            expected,
            "{content:?}: {result}"
        );
        let raw = String::from_utf8(rendered.body.to_vec()).unwrap();
        assert!(!raw.contains(r#""text":"""#), "{raw}");
        assert!(!raw.contains(r#""content":"""#), "{raw}");
    }
}
