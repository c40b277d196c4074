//! A session's sandboxed commands share a private `/tmp`: what one command leaves there the
//! next finds (models often stage files in `/tmp` across calls), nothing reaches the host's
//! `/tmp`, and the folder goes with the session.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::{Env, answer, tool_call, tool_messages};
use tack_tests::{ReplayProvider, ScriptedResponse};

#[test]
fn tmp_is_kept_across_a_sessions_commands_and_private_to_it() {
    let name = format!("tack-scratch-{}", std::process::id());
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(tool_call(
            "call_w",
            "shell",
            &json!({"command": format!("echo staged > /tmp/{name}")}),
        )),
        ScriptedResponse::sse(tool_call(
            "call_r",
            "shell",
            &json!({"command": format!("cat /tmp/{name}")}),
        )),
        ScriptedResponse::sse(answer("done", "Done.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let run = env.exec(&["--approval", "never"], "stage a file");
    assert_eq!(run.status, 0, "{}", run.stderr);
    let outputs = tool_messages(&provider.requests()[2].body_json().unwrap());
    assert!(
        outputs[1].1.contains("staged"),
        "the second command found the first one's file: {outputs:?}"
    );
    assert!(
        !std::path::Path::new("/tmp").join(&name).exists(),
        "the host's /tmp was not written"
    );
    let session = run.of("session_configured")[0]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        !std::env::temp_dir()
            .join(format!("tack-session-{session}"))
            .exists(),
        "the scratch folder went with the session"
    );
}
