//! swe-agent: any reply, cut into any deltas, is one action (a tool call), the format
//! correction, or — only while a `submit` awaits confirmation — the completion.
//! Flag bit 0: a `submit` was already made (its review is pending).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tack_fuzz::{Outcome, Reply, call, outcome, output, postprocess, run, task};

fuzz_target!(|data: &[u8]| {
    let Some(reply) = Reply::from_bytes(data) else { return };
    let pending = reply.flags & 1 == 1;
    let mut history = vec![task()];
    if pending {
        history.push(call("s1", "submit", json!({})));
        history.push(output("s1", "diff --git a/counter.py b/counter.py"));
    }
    let mut post = postprocess("swe-agent", history);
    match outcome(&run(post.as_mut(), reply.events())) {
        Outcome::Calls(calls) => assert_eq!(calls.len(), 1, "one action per reply"),
        Outcome::Injected(label) => assert_eq!(label, "format_correction"),
        Outcome::Completion => assert!(pending, "only a confirming submit completes"),
    }
});
