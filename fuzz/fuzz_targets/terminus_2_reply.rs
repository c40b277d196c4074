//! terminus-2: any reply (JSON, JSON in prose or a fence, or neither) is a `terminal` call, the
//! parsing-error re-prompt, or — only when a `task_complete` awaits confirmation — the
//! completion. Flag bit 0: a `task_complete` was already asked to be confirmed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tack_fuzz::{Outcome, Reply, assistant, injected, outcome, postprocess, run, task};
use tack_protocol::Item;

fuzz_target!(|data: &[u8]| {
    let Some(reply) = Reply::from_bytes(data) else { return };
    let pending = reply.flags & 1 == 1;
    let mut history = vec![task()];
    if pending {
        history.push(assistant("a1", r#"{"analysis": "done", "plan": "", "commands": [], "task_complete": true}"#));
        history.push(injected("completion_confirmation", "Are you sure the task is complete?"));
    }
    let mut post = postprocess("terminus-2", history);
    match outcome(&run(post.as_mut(), reply.events())) {
        Outcome::Calls(calls) => {
            assert!(
                calls.iter().all(|c| matches!(c, Item::FunctionCall(f) if f.name == "terminal")),
                "terminus-2 only ever calls the terminal: {calls:?}"
            );
        }
        Outcome::Injected(label) => assert!(
            label == "parse_error" || label == "completion_confirmation",
            "unexpected injected message {label:?}"
        ),
        Outcome::Completion => assert!(pending, "only a confirmed task_complete completes"),
    }
});
