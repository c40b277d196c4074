//! Rendering choices harnesses make for fidelity with real CLIs: top-level key order,
//! in-conversation system messages on Messages, and headers that replace defaults.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use tack_protocol::Wire;
use tack_wire::{
    Endpoint, RenderOptions, RequestParams, ShapedMessage, ShapedRequest, ShapedRole, render,
};

fn request() -> ShapedRequest {
    ShapedRequest {
        model: "m".into(),
        messages: vec![
            ShapedMessage::text(ShapedRole::User, "hi"),
            ShapedMessage::text(ShapedRole::System, "env facts"),
        ],
        params: RequestParams {
            stream: true,
            max_tokens: Some(10),
            ..RequestParams::default()
        },
        ..ShapedRequest::default()
    }
}

fn keys(body: &[u8]) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(body).unwrap();
    v.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn field_order_puts_listed_keys_first_and_keeps_the_rest() {
    let mut req = request();
    let plain = render(&req, Wire::Messages, &Endpoint::new("http://h")).unwrap();
    req.options = RenderOptions {
        field_order: vec!["messages".into(), "model".into()],
        ..RenderOptions::default()
    };
    let ordered = render(&req, Wire::Messages, &Endpoint::new("http://h")).unwrap();
    let k = keys(&ordered.body);
    assert_eq!(&k[..2], ["messages", "model"]);
    let mut a = keys(&plain.body);
    let mut b = k.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b, "same keys, only the order changes");
    // Values are untouched.
    let pv: serde_json::Value = serde_json::from_slice(&plain.body).unwrap();
    let ov: serde_json::Value = serde_json::from_slice(&ordered.body).unwrap();
    assert_eq!(pv, ov);
}

#[test]
fn system_messages_stay_system_on_messages_only_when_asked() {
    let mut req = request();
    let folded = render(&req, Wire::Messages, &Endpoint::new("http://h")).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&folded.body).unwrap();
    assert_eq!(
        v["messages"].as_array().unwrap().len(),
        1,
        "folded into the user turn"
    );
    req.options.messages_system_role = true;
    let kept = render(&req, Wire::Messages, &Endpoint::new("http://h")).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&kept.body).unwrap();
    let roles: Vec<&str> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "system"]);
}

#[test]
fn request_headers_replace_the_defaults() {
    let mut req = request();
    req.headers
        .push(("Accept".into(), "application/json".into()));
    let r = render(&req, Wire::Messages, &Endpoint::new("http://h")).unwrap();
    let accepts: Vec<&str> = r
        .headers
        .iter()
        .filter(|(n, _)| n == "accept")
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(accepts, ["application/json"]);
}
