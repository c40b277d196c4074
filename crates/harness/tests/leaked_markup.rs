//! Everything a leaked call's markup spans belongs to the call: the wrapper and its closing
//! tag, a closing tag left unpaired by a model that dropped the opening one, and
//! vendor-namespaced variants of the closing wrapper; none of it is left in the displayed or
//! recorded text, whatever the deltas' split. A closing tag that is not a wrapper's stays text.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod text_protocol_support;

use serde_json::{Value, json};
use tack_harness::recovery::TextCallRecovery;
use tack_protocol::{Item, StreamEvent, ToolSpec};
use text_protocol_support::*;

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec::function(
        "shell",
        "run",
        json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
    )]
}

fn recover(deltas: &[&str]) -> (String, Option<String>, Vec<(String, Value)>) {
    let mut post = TextCallRecovery::new(&tools());
    let events = run_post(&mut post, text_reply(deltas));
    let mut shown = String::new();
    let mut message = None;
    let mut calls = Vec::new();
    for e in events {
        match e {
            StreamEvent::TextDelta { text } => shown.push_str(&text),
            StreamEvent::ItemDone {
                item: Item::Message(m),
            } => message = Some(m.text()),
            StreamEvent::ItemDone {
                item: Item::FunctionCall(c),
            } => calls.push((c.name.clone(), serde_json::from_str(&c.arguments).unwrap())),
            _ => {}
        }
    }
    (shown, message, calls)
}

const QWEN: &str = "<function=shell>\n<parameter=command>\nls\n</parameter>\n</function>";
const INVOKE: &str =
    "<invoke name=\"shell\">\n<parameter name=\"command\">ls</parameter>\n</invoke>";

#[test]
fn every_form_of_wrapper_goes_with_the_call() {
    let cases: Vec<String> = vec![
        format!("<tool_call>\n{QWEN}\n</tool_call>"),
        // The model dropped the opening wrapper: the closing one is still the call's.
        format!("{QWEN}\n</tool_call>"),
        format!("{INVOKE}\n</function_calls>"),
        format!("<function_calls>\n{INVOKE}\n</function_calls>"),
        // Vendor-namespaced closing wrappers (MiniMax's `minimax:`, other prefixes).
        format!("{QWEN}\n</minimax:tool_call>"),
        format!("{INVOKE}\n</vendor:function_calls>"),
        // Several closers in a row (a model closing both forms).
        format!("{INVOKE}\n</function_calls>\n</tool_call>"),
    ];
    for call in cases {
        let text = format!("Let me look.\n{call}\nDone.");
        let (shown, message, calls) = recover(&[&text]);
        assert_eq!(
            calls,
            vec![("shell".into(), json!({"command": "ls"}))],
            "{text}"
        );
        for t in [&shown, message.as_ref().unwrap()] {
            assert!(!t.contains('<') && !t.contains('>'), "{text:?} left {t:?}");
            assert!(
                t.starts_with("Let me look.") && t.trim_end().ends_with("Done."),
                "{t:?}"
            );
        }
        // Split at every byte: the same.
        for i in 1..text.len() {
            if !text.is_char_boundary(i) {
                continue;
            }
            let split = recover(&[&text[..i], &text[i..]]);
            assert_eq!(split.2, calls, "{text:?} split {i}");
            assert_eq!(split.1, message, "{text:?} split {i}");
        }
    }
}

#[test]
fn other_closing_tags_after_a_call_stay_text() {
    let text = format!("{QWEN}\n</div> and more");
    let (shown, _, calls) = recover(&[&text]);
    assert_eq!(calls.len(), 1);
    assert_eq!(shown, "\n</div> and more");
}
