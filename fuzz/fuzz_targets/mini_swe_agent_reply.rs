//! mini-swe-agent: a reply without a tool call is always the format correction; a reply with
//! its one `bash` call stays that call, whatever text comes with it, unless the call is the
//! agent's completion command (`echo` of its marker), which ends the task without running.
//! Flag bit 0: the reply also carries a native `bash` call (its command is the text's first line).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tack_fuzz::{Outcome, Reply, call, outcome, postprocess, run, task};
use tack_protocol::{StopReason, StreamEvent};

fuzz_target!(|data: &[u8]| {
    let Some(reply) = Reply::from_bytes(data) else { return };
    let with_call = reply.flags & 1 == 1;
    let text = reply.text();
    let command = text.lines().next().unwrap_or_default().to_string();
    let mut events = reply.events();
    if with_call {
        // As the Chat decoder reports a call: the item, then `tool_calls` as the stop reason.
        events.pop();
        events.push(StreamEvent::ItemDone { item: call("c1", "bash", json!({ "command": command })) });
        events.push(StreamEvent::Completed { stop_reason: StopReason::ToolCalls, response_id: None });
    }
    let mut post = postprocess("mini-swe-agent", vec![task()]);
    match outcome(&run(post.as_mut(), events)) {
        Outcome::Calls(calls) => assert!(with_call && calls.len() == 1, "the one call, kept"),
        Outcome::Injected(label) => {
            assert!(!with_call, "a call was made");
            assert_eq!(label, "format_correction");
        }
        // The harness reads the command as the shell would (quotes and escapes removed).
        Outcome::Completion => assert!(
            with_call && command.replace(['\\', '\'', '"'], "").contains("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
            "only the completion command completes: {command:?}"
        ),
    }
});
