//! The leaked tool-call recovery: whatever markup the text holds and wherever the stream cuts
//! it, the stream stays well formed, every recovered call names an advertised tool with JSON
//! arguments, and text is never lost: what is shown plus what became calls accounts for it
//! (a reply without a recovered call comes out byte for byte). Markup in a code fence is never
//! a call: the same reply opened by a fence (and holding no fence of its own) comes out as text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tack_fuzz::{Outcome, Reply, outcome, run};
use tack_harness::recovery::TextCallRecovery;
use tack_protocol::{Item, StreamEvent, ToolSpec};

fuzz_target!(|data: &[u8]| {
    let Some(reply) = Reply::from_bytes(data) else {
        return;
    };
    let tools = [
        ToolSpec::function(
            "shell",
            "run a command",
            json!({"type": "object", "properties": {
                "command": {"type": "string"},
                "timeout_ms": {"type": "integer"},
                "background": {"type": "boolean"},
            }, "required": ["command"]}),
        ),
        ToolSpec::function(
            "read_file",
            "read a file",
            json!({"type": "object", "properties": {
                "path": {"type": "string"},
                "offset": {"type": ["integer", "null"]},
                "ranges": {"type": "array", "items": {"type": "integer"}},
            }, "required": ["path"]}),
        ),
    ];
    let text = reply.text();
    if !text.contains(['`', '~']) {
        let fenced = Reply {
            flags: reply.flags,
            deltas: std::iter::once("```\n".to_string())
                .chain(reply.deltas.iter().cloned())
                .collect(),
        };
        let events = run(&mut TextCallRecovery::new(&tools), fenced.events());
        let shown: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            matches!(outcome(&events), Outcome::Completion),
            "a call in a fence: {events:?}"
        );
        assert_eq!(shown, fenced.text(), "fenced text comes out unchanged");
    }
    let mut post = TextCallRecovery::new(&tools);
    let events = run(&mut post, reply.events());
    let shown: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    match outcome(&events) {
        Outcome::Calls(calls) => {
            for c in &calls {
                let Item::FunctionCall(f) = c else {
                    panic!("a recovered call is a function call: {c:?}")
                };
                assert!(
                    f.name == "shell" || f.name == "read_file",
                    "not an advertised tool: {f:?}"
                );
            }
            assert!(
                shown.len() <= reply.text().len(),
                "text appeared from nowhere"
            );
        }
        Outcome::Injected(label) => panic!("the recovery injects nothing, got {label:?}"),
        Outcome::Completion => assert_eq!(
            shown,
            reply.text(),
            "text without a call comes out unchanged"
        ),
    }
});
