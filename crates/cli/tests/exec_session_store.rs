//! The session store with real `tack exec` processes: two processes on one session (the second
//! is refused with the first's pid), `kill -9` and SIGINT mid-answer (what was streamed is
//! kept, marked cut off, and the next request shows it so), a torn tail repaired on resume,
//! and a hand-edited header refused without `--accept-changed-header`.
#![cfg(unix)]
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use support::{Env, Run, answer};
use tack_engine::log::{LoadedSession, torn_path};
use tack_protocol::{Item, Role};
use tack_tests::{ReplayProvider, ScriptedResponse};

/// How long any awaited condition may take before the test fails (a bound, not a measurement).
const PATIENCE: Duration = Duration::from_secs(60);

fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A long answer streamed one word per chunk, slowly: a process can be stopped mid-answer.
fn slow_answer(id: &str, words: usize) -> ScriptedResponse {
    let mut chunks = vec![
        json!({"id": id, "model": "test-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
    ];
    for i in 0..words {
        chunks.push(
            json!({"id": id, "choices": [{"index": 0, "delta": {"content": format!("word{i} ")}}]}),
        );
    }
    chunks.push(json!({"id": id, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    let body = tack_tests::chat_sse(&chunks);
    // One SSE frame per chunk.
    let text = String::from_utf8(body.clone()).unwrap();
    let cuts: Vec<usize> = text.match_indices("\n\n").map(|(i, _)| i + 2).collect();
    ScriptedResponse::sse(body)
        .split_at(&cuts)
        .delay_between_chunks(Duration::from_millis(100))
}

fn spawn_exec(env: &Env, args: &[&str]) -> Child {
    env.tack()
        .arg("exec")
        .arg("--cwd")
        .arg(&env.workspace)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn signal(child: &Child, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// Points the config's provider at another replaying server.
fn repoint(env: &Env, from: &str, to: &str) {
    let config = env.config.join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap().replace(from, to);
    std::fs::write(config, text).unwrap();
}

fn last_assistant_text(items: &[Item]) -> String {
    items
        .iter()
        .rev()
        .find_map(|i| match i {
            Item::Message(m) if m.role == Role::Assistant => Some(m.text()),
            _ => None,
        })
        .unwrap()
}

/// Waits until the log holds streamed text (a `text_progress` record with `word3`).
fn wait_for_streamed_text(log: &Path) {
    wait_until("streamed text in the log", || {
        std::fs::read_to_string(log)
            .is_ok_and(|l| l.contains("text_progress") && l.contains("word3"))
    });
}

#[test]
fn a_second_process_on_a_session_is_refused_with_the_first_ones_pid() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(answer("a", "The first answer.")),
        slow_answer("b", 400),
        ScriptedResponse::sse(answer("c", "After the other one.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let first = env.exec(&[], "start");
    assert_eq!(first.status, 0, "{}", first.stderr);
    let log = env.session_log();
    let id = LoadedSession::read(&log).unwrap().session_id;

    // Process A resumes the session and streams slowly.
    let mut a = spawn_exec(&env, &["--resume", &id, "a long answer please"]);
    wait_for_streamed_text(&log);
    let before = std::fs::read(&log).unwrap();

    // Process B on the same session is refused, naming A, and writes nothing.
    let b = env.exec(&["--resume", &id], "something else");
    assert_ne!(b.status, 0, "{}", b.stderr);
    assert!(
        b.stderr.contains(&format!(
            "session {id} is open in another process (pid {})",
            a.id()
        )),
        "{}",
        b.stderr
    );
    assert!(b.stderr.contains("Wait for it to finish"), "{}", b.stderr);
    let now = std::fs::read(&log).unwrap();
    assert!(now.starts_with(&before), "B wrote into the log");
    assert_eq!(provider.requests().len(), 2, "B sent a request");

    // A stops (SIGINT); then B's turn is its own, and the history reads whole.
    signal(&a, "-INT");
    assert_eq!(a.wait().unwrap().code(), Some(130));
    let b = env.exec(&["--resume", &id], "something else");
    assert_eq!(b.status, 0, "{}", b.stderr);
    let loaded = LoadedSession::read(&log).unwrap();
    assert!(!loaded.torn_tail);
    assert_eq!(last_assistant_text(&loaded.items), "After the other one.");
}

#[test]
fn kill_9_mid_answer_keeps_what_was_streamed_and_the_model_sees_it_cut_off() {
    let provider = ReplayProvider::start([slow_answer("a", 400)]);
    let env = Env::new(&provider.url("/v1"));
    let mut child = spawn_exec(&env, &["explain everything"]);
    wait_until("a session log", || {
        std::fs::read_dir(env.home.join("sessions")).is_ok_and(|d| d.count() > 0)
    });
    let log = env.session_log();
    wait_for_streamed_text(&log);
    signal(&child, "-KILL");
    child.wait().unwrap();

    let loaded = LoadedSession::read(&log).unwrap();
    let text = last_assistant_text(&loaded.items);
    assert!(text.starts_with("word0 word1 word2 word3 "), "{text}");
    assert!(
        text.ends_with(
            "[Tack: this answer was cut off: Tack stopped before it finished; it is incomplete.]"
        ),
        "{text}"
    );
    assert_eq!(loaded.cut_off.len(), 1);

    // Resumed: the model is sent the partial answer with its note.
    let provider2 = ReplayProvider::start([ScriptedResponse::sse(answer("b", "Picking up."))]);
    repoint(&env, &provider.url("/v1"), &provider2.url("/v1"));
    let run = env.exec(&["--resume", &loaded.session_id], "go on");
    assert_eq!(run.status, 0, "{}", run.stderr);
    let body = provider2.requests()[0].body_json().unwrap();
    let messages = body["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, vec!["system", "user", "assistant", "user"]);
    let sent = messages[2]["content"].as_str().unwrap();
    assert!(sent.starts_with("word0 word1 word2 word3 "), "{sent}");
    assert!(sent.contains("cut off"), "{sent}");
    // Read again after the resume: the same partial answer, once.
    let after = LoadedSession::read(&log).unwrap();
    assert_eq!(after.cut_off.len(), 1);
    assert_eq!(
        after
            .items
            .iter()
            .filter(|i| matches!(i, Item::Message(m) if m.role == Role::Assistant))
            .count(),
        2
    );
}

#[test]
fn sigint_mid_answer_keeps_what_was_streamed() {
    let provider = ReplayProvider::start([slow_answer("a", 400)]);
    let env = Env::new(&provider.url("/v1"));
    let mut child = spawn_exec(&env, &["explain everything"]);
    wait_until("a session log", || {
        std::fs::read_dir(env.home.join("sessions")).is_ok_and(|d| d.count() > 0)
    });
    let log = env.session_log();
    wait_for_streamed_text(&log);
    signal(&child, "-INT");
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let loaded = LoadedSession::read(&log).unwrap();
    let text = last_assistant_text(&loaded.items);
    assert!(text.starts_with("word0 word1 word2 word3 "), "{text}");
    assert!(text.contains("the user interrupted it"), "{text}");
    assert_eq!(loaded.cut_off.len(), 1);
}

#[test]
fn a_torn_tail_left_by_a_crash_is_repaired_on_resume() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(answer("a", "The first answer.")),
        ScriptedResponse::sse(answer("b", "The second answer.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    assert_eq!(env.exec(&[], "start").status, 0);
    let log = env.session_log();
    let id = LoadedSession::read(&log).unwrap().session_id;
    // The bytes a process killed mid-write leaves: a record without its end.
    let torn = br#"{"type":"item","ts":"2026-01-01T00:00:00.000Z","turn_id":"t","item":{"type":"message","id":"m","role":"assistant","content":[{"type":"text","text":"half"#;
    let mut bytes = std::fs::read(&log).unwrap();
    bytes.extend_from_slice(torn);
    std::fs::write(&log, bytes).unwrap();

    let run = env.exec(&["--resume", &id], "again");
    assert_eq!(run.status, 0, "{}", run.stderr);
    let loaded = LoadedSession::read(&log).unwrap();
    assert!(!loaded.torn_tail);
    assert_eq!(last_assistant_text(&loaded.items), "The second answer.");
    let mut kept = torn.to_vec();
    kept.push(b'\n');
    assert_eq!(std::fs::read(torn_path(&log)).unwrap(), kept);
    // And it stays alive: a third resume reads it as well.
    let run = Run::from(env.tack().args(["exec", "--resume", &id]).output().unwrap());
    assert_eq!(run.status, 0, "{}", run.stderr);
}

#[test]
fn a_hand_edited_header_is_refused_without_the_flag() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(answer("a", "The first answer.")),
        ScriptedResponse::sse(answer("b", "Accepted.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    assert_eq!(env.exec(&[], "start").status, 0);
    let log = env.session_log();
    let id = LoadedSession::read(&log).unwrap().session_id;
    let text = std::fs::read_to_string(&log).unwrap();
    let edited = text.replacen(
        "\"mode\":\"workspace-write\"",
        "\"mode\":\"danger-full-access\"",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&log, &edited).unwrap();

    let run = env.exec(&["--resume", &id], "again");
    assert_ne!(run.status, 0);
    assert!(
        run.stderr.contains("was edited since Tack wrote it"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "line 1: settings.sandbox.mode: \"workspace-write\" → \"danger-full-access\""
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("--accept-changed-header"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        edited,
        "refused, yet written"
    );
    assert_eq!(provider.requests().len(), 1);

    let run = env.exec(&["--resume", &id, "--accept-changed-header"], "again");
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(LoadedSession::read(&log).unwrap().header_changes.is_empty());
}

#[test]
fn config_warnings_go_to_stderr_and_bad_base_urls_stop_at_load() {
    let env = Env::new("http://127.0.0.1:9/v1");
    let config = env.config.join("config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("\n[[providers]]\nid = \"openai\"\nname = \"Proxy\"\nbase_url = \"http://proxy/v1\"\nwire = \"chat\"\nmodel = \"m\"\n");
    std::fs::write(&config, &text).unwrap();
    let run = Run::from(env.tack().arg("providers").output().unwrap());
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stderr.contains("warning:"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("replaces the built-in provider `openai`"),
        "{}",
        run.stderr
    );

    std::fs::write(
        &config,
        text.replace("http://proxy/v1", "file:///etc/passwd"),
    )
    .unwrap();
    let run = env.exec(&[], "hello");
    assert_ne!(run.status, 0);
    assert!(run.stderr.contains("line 15, column 12"), "{}", run.stderr);
    assert!(run.stderr.contains("the scheme `file`"), "{}", run.stderr);
}
