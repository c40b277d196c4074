//! `tack diff-request` and `tack import-prompt`, run as the real binary on real files.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::json;

fn tack(args: &[&str], cwd: &Path, config: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tack"))
        .args(args)
        .current_dir(cwd)
        .env("TACK_CONFIG_DIR", config)
        .env("TACK_HOME", config.join("data"))
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A Claude Code style capture: billing block, identity, main prompt; Bash, Read and Agent.
fn capture() -> serde_json::Value {
    json!({
        "model": "claude-opus-5-5",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "List the files"}]}],
        "system": [
            {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.332; cc_entrypoint=sdk-cli;"},
            {"type": "text", "text": "Captured identity.", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Captured main prompt with {{ braces }}.", "cache_control": {"type": "ephemeral"}}
        ],
        "tools": [
            {"name": "Agent", "description": "sub agents", "input_schema": {"type": "object", "properties": {"prompt": {"type": "string"}}}},
            {"name": "Bash", "description": "captured bash", "input_schema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"], "additionalProperties": false}},
            {"name": "Read", "description": "captured read", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}
        ],
        "max_tokens": 128000,
        "stream": true
    })
}

#[test]
fn diff_request_exits_one_and_reports_differences() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.jsonl");
    std::fs::write(&a, capture().to_string()).unwrap();
    let mut other = capture();
    other["max_tokens"] = json!(64000);
    other["tools"].as_array_mut().unwrap().remove(0);
    let exchange = json!({"url": "https://api.anthropic.com/v1/messages", "request_headers": [], "request_body": other.to_string()});
    std::fs::write(&b, format!("{}\n{}\n", json!({"model": "x"}), exchange)).unwrap();
    let out = tack(
        &[
            "diff-request",
            a.to_str().unwrap(),
            &format!("{}#2", b.display()),
        ],
        dir.path(),
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("~ max_tokens: 128000 → 64000"), "{t}");
    assert!(t.contains("- Agent"), "{t}");
    let same = tack(
        &["diff-request", a.to_str().unwrap(), a.to_str().unwrap()],
        dir.path(),
        dir.path(),
    );
    assert_eq!(same.status.code(), Some(0), "{}", text(&same));
    assert!(text(&same).contains("no differences"));
    let missing = tack(
        &["diff-request", a.to_str().unwrap(), "nope.json"],
        dir.path(),
        dir.path(),
    );
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn import_prompt_installs_overrides_that_shape_uses() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let file = dir.path().join("capture.json");
    std::fs::write(&file, capture().to_string()).unwrap();
    let out = tack(
        &[
            "import-prompt",
            "--harness",
            "claude-code",
            file.to_str().unwrap(),
            "--config-dir",
            config.to_str().unwrap(),
        ],
        dir.path(),
        &config,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("tools advertised: Bash, Read"), "{t}");
    assert!(
        t.contains("not advertised (Tack has no handler for them"),
        "{t}"
    );
    assert!(t.contains("Agent"), "{t}");
    let folder = config.join("prompts/claude-code");
    assert_eq!(
        std::fs::read_to_string(folder.join("identity.md")).unwrap(),
        "Captured identity."
    );
    assert!(
        std::fs::read_to_string(folder.join("system.md"))
            .unwrap()
            .starts_with("{% raw %}")
    );

    // `tack shape` now uses them, and says so.
    let shaped = tack(
        &[
            "shape",
            "--harness",
            "claude-code",
            "--wire",
            "messages",
            "--prompt",
            "hi",
        ],
        dir.path(),
        &config,
    );
    assert_eq!(shaped.status.code(), Some(0), "{}", text(&shaped));
    let v: serde_json::Value = serde_json::from_slice(&shaped.stdout).unwrap();
    let source = v["prompt_source"].as_str().unwrap();
    assert!(
        source.starts_with("file:") && source.contains("tools.json"),
        "{source}"
    );
    assert_eq!(
        v["body"]["system"][1]["text"],
        "Captured main prompt with {{ braces }}."
    );
    assert_eq!(v["body"]["tools"][0]["description"], "captured bash");
}

#[test]
fn import_prompt_refuses_to_write_into_a_repository() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let file = dir.path().join("capture.json");
    std::fs::write(&file, capture().to_string()).unwrap();
    let inside = repo.join("cfg");
    let out = tack(
        &[
            "import-prompt",
            "--harness",
            "claude-code",
            file.to_str().unwrap(),
            "--config-dir",
            inside.to_str().unwrap(),
        ],
        &repo,
        &inside,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("inside the repository"),
        "{}",
        text(&out)
    );
    assert!(!inside.exists());
}
