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

/// Inside the sandbox the login startup files still set things up, but what they complain
/// about (most often a write to the home folder the sandbox refuses) is not the command's
/// output: the model would read it as the command's own.
#[test]
fn login_startup_files_run_quietly_in_the_sandbox() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(tool_call(
            "call_p",
            "shell",
            &json!({"command": "echo \"profile says $TACK_PROFILE_RAN\"; type tack_profile_fn"}),
        )),
        ScriptedResponse::sse(answer("done", "Done.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    // Inside the workspace: the sandbox's /tmp is the session's own, which hides the test's
    // temporary folders. Read-only mode, so the profile's write is refused there too.
    let home = env.workspace.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join(".profile"),
        "export TACK_PROFILE_RAN=yes\n\
         tack_profile_fn() { :; }\n\
         echo 'startup noise' >&2\n\
         touch \"$HOME/.written-by-profile\"\n\
         set -- clobbered\n",
    )
    .unwrap();
    let out = env
        .tack()
        .env("HOME", &home)
        .args([
            "exec",
            "--approval",
            "never",
            "--sandbox",
            "read-only",
            "--cwd",
        ])
        .arg(&env.workspace)
        .arg("check the profile")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outputs = tool_messages(&provider.requests()[1].body_json().unwrap());
    let text = &outputs[0].1;
    assert!(text.contains("profile says yes"), "the profile ran: {text}");
    assert!(
        text.contains("tack_profile_fn is a function"),
        "its functions too: {text}"
    );
    assert!(
        !text.contains("startup noise"),
        "its complaints are not output: {text}"
    );
    assert!(!text.contains("Read-only file system"), "{text}");
    assert!(
        !home.join(".written-by-profile").exists(),
        "and its writes were refused"
    );
}
