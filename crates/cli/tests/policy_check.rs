//! `tack policy check` prints the gate's verdict, and it is the verdict `tack exec` acts on:
//! for each command and policy, a session that meets the same call asks exactly when the
//! check says `ask`, runs it in the sandbox the check names when it says `run`, and refuses
//! it without asking when it says `reject`.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Value, json};
use support::{Env, answer, tool_call};
use tack_tests::{ReplayProvider, ScriptedResponse};

/// Commands across the verdicts: read-only, writes inside, reads and writes outside,
/// dangerous, code the classifier cannot see, and a saved rule's allow and deny.
const COMMANDS: &[&str] = &[
    "ls -la",
    "git status",
    "cat /etc/hostname",
    "echo hi > out.txt",
    "mkdir -p build && touch build/x",
    "rm -rf build",
    "echo x >> ~/.bashrc-tack-test",
    "python3 -c 'print(1)'",
    "npm test",
    "npm test; rm -rf /",
    "curl http://127.0.0.1:9/x",
];

fn check(env: &Env, policy: &str, command: &str) -> Value {
    let out = env
        .tack()
        .args(["policy", "check", "--policy", policy, "--cwd"])
        .arg(&env.workspace)
        .arg("--")
        .arg(command)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn with_rules(env: &Env) {
    let path = env.config.join("config.toml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(
        "\n[[rules]]\ndecision = \"allow\"\ncommand = \"npm test\"\n\n[[rules]]\ndecision = \"deny\"\ncommand = \"curl\"\n",
    );
    std::fs::write(path, text).unwrap();
}

/// What `tack exec` did with the one call: (asked, ran in which sandbox, refused unasked).
fn acted(run: &support::Run) -> (bool, Option<Value>, bool) {
    let asked = !run.of("approval_requested").is_empty();
    let output = run
        .items("tool_output")
        .first()
        .map(|o| o["output"].clone())
        .unwrap_or_else(|| panic!("no tool output; stderr: {}", run.stderr));
    let details = &output["details"];
    let ran = details["type"] == "exec";
    let sandbox = ran.then(|| details.get("sandbox").cloned().unwrap_or(Value::Null));
    let refused = !asked && output["status"] == "denied";
    (asked, sandbox, refused)
}

#[test]
fn policy_check_agrees_with_exec_under_untrusted() {
    agrees_with_exec("untrusted");
}

#[test]
fn policy_check_agrees_with_exec_under_on_request() {
    agrees_with_exec("on-request");
}

#[test]
fn policy_check_agrees_with_exec_under_never() {
    agrees_with_exec("never");
}

fn agrees_with_exec(policy: &str) {
    {
        for command in COMMANDS {
            let provider = ReplayProvider::start([
                ScriptedResponse::sse(tool_call("call_1", "shell", &json!({ "command": command }))),
                ScriptedResponse::sse(answer("done", "Done.")),
            ]);
            let env = Env::new(&provider.url("/v1"));
            with_rules(&env);
            let verdict = check(&env, policy, command);
            let run = env.exec(&["--approval", policy], "run the command");
            let (asked, sandbox, refused) = acted(&run);
            let what = format!("{policy} `{command}`: check said {verdict}");
            match verdict["decision"].as_str().unwrap() {
                "ask" => assert!(asked, "{what}, but exec did not ask"),
                "reject" => assert!(refused, "{what}, but exec did not refuse it unasked"),
                "run" => {
                    assert!(!asked, "{what}, but exec asked");
                    let expected = match verdict["sandbox"].as_str().unwrap() {
                        "none" => Value::Null,
                        mode => Value::String(mode.to_string()),
                    };
                    assert_eq!(sandbox, Some(expected), "{what}");
                }
                other => panic!("unknown decision {other}"),
            }
        }
    }
}

#[test]
fn bad_usage_exits_2() {
    let env = Env::new("http://127.0.0.1:9/v1");
    for args in [
        vec!["policy", "check"],
        vec!["policy", "check", "--tool", "shell", "--args", "[1]"],
        vec![
            "policy", "check", "--tool", "shell", "--args", "{", "--", "ls",
        ],
        vec!["policy", "check", "--policy", "sometimes", "--", "ls"],
    ] {
        let out = env.tack().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn tool_calls_are_judged_through_the_harness_binding() {
    let env = Env::new("http://127.0.0.1:9/v1");
    let run = |tool: &str, args: Value, harness: &str| -> Value {
        let out = env
            .tack()
            .args(["policy", "check", "--harness", harness, "--cwd"])
            .arg(&env.workspace)
            .args(["--tool", tool, "--args", &args.to_string()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // claude-code's Bash binds to the shell: a read-only command runs, read-only sandboxed.
    let v = run("Bash", json!({"command": "ls"}), "claude-code");
    assert_eq!(v["decision"], "run", "{v}");
    assert_eq!(v["sandbox"], "read-only", "{v}");
    // A file write outside the workspace asks under every policy.
    let v = run(
        "write_file",
        json!({"path": "/etc/x", "content": "x"}),
        "native",
    );
    assert_eq!(v["decision"], "ask", "{v}");
    assert_eq!(v["risk"], "high", "{v}");
    // A call the tool rejects never runs.
    let v = run("shell", json!({"nope": 1}), "native");
    assert_eq!(v["decision"], "reject", "{v}");
}
