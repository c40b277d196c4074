//! Tack's own process holds provider keys in memory only: `tack exec` takes them out of its
//! environment at start-up (also out of the block `/proc/<pid>/environ` shows), so a command
//! the model runs can't read them from its parent even without the OS sandbox. And a key the
//! model echoes, split across two stream deltas at any position, is redacted from everything
//! Tack writes. URL credentials are redacted in `tack providers` and `tack shape`.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::{CANARY, Env, answer, tool_call, tool_messages};
use tack_tests::{ReplayProvider, ScriptedResponse};

/// The generic key, for a provider given as a base URL.
const URL_CANARY: &str = "sk-url-canary-0b9d3e7a21c4f658";

/// What a model would run to read Tack's environment from a command Tack started.
const READ_PARENT: &str =
    "tr '\\0' '\\n' < /proc/$PPID/environ; echo ---; ps eww -o command= -p $PPID";

#[test]
fn a_command_cannot_read_the_key_from_tacks_environment() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(tool_call(
            "call_env",
            "shell",
            &json!({"command": READ_PARENT}),
        )),
        ScriptedResponse::sse(answer("ok", "That is my parent's environment.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let run = env
        .tack()
        .env("TACK_API_KEY", URL_CANARY)
        .env("TACK_LOG", "debug")
        // Without the OS sandbox: the environment itself must not hold the key.
        .args([
            "exec",
            "--approval",
            "never",
            "--sandbox",
            "danger-full-access",
        ])
        .args(["--provider", &provider.url("/v1"), "--model", "test-model"])
        .arg("--cwd")
        .arg(&env.workspace)
        .arg("show your parent's environment")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let requests = provider.requests();
    assert_eq!(requests.len(), 2, "{stderr}");
    // The key was in memory and sent where it belongs.
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {URL_CANARY}").as_str())
    );
    let printed = &tool_messages(&requests[1].body_json().unwrap())[0].1;
    assert!(
        printed.contains("TACK_HOME=") && printed.contains("---") && printed.contains("tack"),
        "the command read the parent's environment both ways: {printed}"
    );
    for canary in [URL_CANARY, CANARY] {
        assert!(!printed.contains(canary), "{printed}");
        for r in &requests {
            assert!(!r.body_text().contains(canary), "request {}", r.index);
        }
        assert!(!stdout.contains(canary) && !stderr.contains(canary));
        assert!(!env.everything_written().contains(canary));
    }
    // Not even the variable's name is left (the entry was wiped, not emptied).
    assert!(!printed.contains("TACK_API_KEY"), "{printed}");
    assert!(!printed.contains("TACK_TEST_KEY"), "{printed}");
    // Tack wrote its session log, exchanges and diagnostics (which were checked above).
    let dir = env.home.join("sessions");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for ext in [".exchanges.jsonl", ".log"] {
        assert!(names.iter().any(|n| n.ends_with(ext)), "{names:?}");
    }
}

/// Chat chunks of an answer whose text is `a` then `b`.
fn two_deltas(a: &str, b: &str) -> Vec<u8> {
    tack_tests::chat_sse(&[
        json!({"id": "c", "model": "test-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
        json!({"id": "c", "choices": [{"index": 0, "delta": {"content": a}}]}),
        json!({"id": "c", "choices": [{"index": 0, "delta": {"content": b}}]}),
        json!({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}),
    ])
}

#[test]
fn a_key_the_model_echoes_in_two_deltas_is_redacted_at_every_split() {
    let text = format!("Your key is {CANARY}.");
    let start = text.find(CANARY).unwrap();
    for split in start + 1..start + CANARY.len() {
        let (a, b) = text.split_at(split);
        // Every frame in its own read, so the deltas reach Tack (and its event stream) apart.
        let body = two_deltas(a, b);
        let frames: Vec<usize> = body
            .windows(6)
            .enumerate()
            .filter(|(_, w)| *w == b"data: ")
            .map(|(i, _)| i)
            .collect();
        let provider = ReplayProvider::start([ScriptedResponse::sse(body)
            .split_at(&frames)
            // Longer than the event channel's pacing (50 ms), so the deltas are not joined
            // on their way out and the split really reaches the front end.
            .delay_between_chunks(std::time::Duration::from_millis(120))]);
        let env = Env::new(&provider.url("/v1"));
        let run = env.exec(&["--approval", "never"], "what is my key?");
        assert_eq!(run.status, 0, "split {split}: {}", run.stderr);
        let deltas: String = run
            .of("text_delta")
            .iter()
            .map(|e| e["text"].as_str().unwrap())
            .collect();
        assert_eq!(deltas, "Your key is [REDACTED].", "split {split}");
        // They did arrive apart: the text before the key went out before the key was whole.
        assert!(
            run.of("text_delta").len() >= 2,
            "split {split}: {}",
            run.stdout
        );
        let messages = run.items("message");
        let message = messages.iter().find(|m| m["role"] == "assistant").unwrap();
        assert!(
            message.to_string().contains("Your key is [REDACTED]."),
            "split {split}: {message}"
        );
        let written = env.everything_written();
        let (head, tail) = CANARY.split_at(split - start);
        for (what, s) in [
            ("the key", CANARY),
            ("its first part", head),
            ("its last part", tail),
        ] {
            // Pieces too short to tell from ordinary text may stay in the raw stream frames.
            if s.len() < 6 {
                continue;
            }
            assert!(
                !written.contains(s),
                "split {split}: {what} `{s}` was written"
            );
            assert!(
                !run.stdout.contains(s),
                "split {split}: {what} `{s}` in the events"
            );
        }
        assert!(written.contains("Your key is [REDACTED]."), "split {split}");
    }
}

#[test]
fn url_credentials_are_redacted_in_providers_and_shape() {
    let root = tempfile::tempdir().unwrap();
    let config = root.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        r#"[[providers]]
id = "proxy"
name = "Proxy"
base_url = "https://bob:pa55w0rd-canary@proxy.example.test/v1?api_key=q-canary-1&token=t-canary-2&keep=1"
wire = "chat"
model = "m"
"#,
    )
    .unwrap();
    let tack = || {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tack"));
        cmd.env("TACK_CONFIG_DIR", &config)
            .env("TACK_HOME", root.path().join("data"))
            .env_remove("TACK_API_KEY");
        cmd
    };
    let listed = tack().arg("providers").output().unwrap();
    let shaped = tack()
        .args(["shape", "--provider", "proxy", "--prompt", "hi", "--cwd"])
        .arg(root.path())
        .output()
        .unwrap();
    for (what, out) in [("providers", &listed), ("shape", &shaped)] {
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for secret in ["pa55w0rd-canary", "q-canary-1", "t-canary-2", "bob:"] {
            assert!(!stdout.contains(secret), "{what}: {secret} in {stdout}");
        }
        assert!(
            stdout.contains("https://[REDACTED]@proxy.example.test/v1"),
            "{what}: {stdout}"
        );
        assert!(stdout.contains("api_key=[REDACTED]"), "{what}: {stdout}");
        assert!(stdout.contains("keep=1"), "{what}: {stdout}");
    }
}
