//! Credentials stay out of what the model can see and what Tack writes: a command the model
//! runs does not inherit key variables, and a key in a provider's base URL is not logged.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::{CANARY, Env, answer, tool_call, tool_messages};
use tack_tests::{ReplayProvider, ScriptedResponse};

#[test]
fn a_command_the_model_runs_does_not_see_key_variables() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(tool_call("call_env", "shell", &json!({"command": "env"}))),
        ScriptedResponse::sse(answer("ok", "That is the environment.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let run = env
        .tack()
        .env("OTHER_SERVICE_TOKEN", "tok-canary-0987654321")
        .args(["exec", "--approval", "never", "--cwd"])
        .arg(&env.workspace)
        .arg("show the environment")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let second = provider.requests()[1].body_json().unwrap();
    let results = tool_messages(&second);
    let printed = &results[0].1;
    assert!(
        printed.contains("PATH="),
        "the command ran and printed its environment: {printed}"
    );
    assert!(!printed.contains("TACK_TEST_KEY"), "{printed}");
    assert!(!printed.contains(CANARY), "{printed}");
    assert!(!printed.contains("tok-canary-0987654321"), "{printed}");
    assert!(!env.everything_written().contains(CANARY));
}

#[test]
fn a_key_in_a_base_url_is_not_logged() {
    let provider = ReplayProvider::start([ScriptedResponse::sse(answer("ok", "Hello."))]);
    let env = Env::new(&provider.url("/v1"));
    let url = format!("{}?key=sk-url-canary-13579", provider.url("/v1"));
    let run = env
        .tack()
        .args(["exec", "--provider", &url, "--model", "m", "--cwd"])
        .arg(&env.workspace)
        .arg("hi")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        provider.requests().len(),
        1,
        "the request went out with its URL"
    );
    let written = env.everything_written();
    assert!(
        written.contains("[REDACTED]"),
        "the URL is logged, redacted"
    );
    assert!(!written.contains("sk-url-canary-13579"));

    // Resuming can't rebuild a URL whose key was not stored, and says what to do.
    let stderr = String::from_utf8_lossy(&run.stderr).to_string();
    let id = stderr
        .split_whitespace()
        .skip_while(|w| *w != "session")
        .nth(1)
        .unwrap_or_else(|| panic!("no session id in {stderr}"))
        .to_string();
    let resumed = env
        .tack()
        .args(["exec", "--resume", &id, "again"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&resumed.stderr);
    assert!(!resumed.status.success());
    assert!(
        said.contains("held a credential") && said.contains("--provider"),
        "{said}"
    );
    assert_eq!(provider.requests().len(), 1, "nothing was sent");
}
