//! `tack shape --wire all`, run as the real binary: one request per wire for the same prompt,
//! unsupported wires listed with the routing error, and the single-wire output equal to the
//! matching entry.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use serde_json::Value;

const CANARY: &str = "sk-canary-shape-5d1e";

/// Runs `tack shape` in `dir` (also the config folder) against an ad-hoc provider URL.
fn shape(dir: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tack"))
        .arg("shape")
        .args(["--provider", "https://api.example.test/v1", "--model", "m"])
        .args(["--cwd", dir.to_str().unwrap()])
        .args(args)
        .current_dir(dir)
        .env("TACK_CONFIG_DIR", dir.join("config"))
        .env("TACK_HOME", dir.join("data"))
        .env("TACK_API_KEY", CANARY)
        .output()
        .unwrap()
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(!text.contains(CANARY), "the key never appears");
    serde_json::from_str(&text).unwrap()
}

fn keys(body: &Value) -> Vec<&str> {
    body.as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

fn header<'a>(entry: &'a Value, name: &str) -> Vec<&'a str> {
    entry["headers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["name"] == name)
        .map(|h| h["value"].as_str().unwrap())
        .collect()
}

#[test]
fn every_wire_a_harness_supports_gets_its_own_request() {
    let dir = tempfile::tempdir().unwrap();
    let all = json(&shape(
        dir.path(),
        &[
            "--harness",
            "claude-code",
            "--wire",
            "all",
            "--prompt",
            "hi",
        ],
    ));
    let entries = all.as_array().unwrap();
    let wires: Vec<&str> = entries
        .iter()
        .map(|e| e["wire"].as_str().unwrap())
        .collect();
    assert_eq!(wires, ["chat", "responses", "messages"]);
    for e in entries {
        let wire = e["wire"].as_str().unwrap();
        assert_eq!(e["route"], format!("{wire}/claude-code"));
        assert_eq!(e["method"], "POST");
        assert!(e.get("error").is_none(), "{e}");
    }
    let [chat, responses, messages] = &entries[..] else {
        unreachable!()
    };
    assert_eq!(chat["url"], "https://api.example.test/v1/chat/completions");
    assert_eq!(responses["url"], "https://api.example.test/v1/responses");
    assert_eq!(
        messages["url"],
        "https://api.example.test/v1/messages?beta=true"
    );

    // Each body is that wire's own shape of the same prompt.
    assert_eq!(chat["body"]["messages"][0]["role"], "system");
    assert!(responses["body"]["instructions"].is_string());
    assert_eq!(
        keys(&messages["body"])[..4],
        ["model", "messages", "system", "tools"],
        "the captured key order on Messages"
    );
    let roles: Vec<&str> = messages["body"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "system"],
        "the environment message stays a system turn"
    );
    assert_eq!(header(chat, "accept"), ["text/event-stream"]);
    assert_eq!(header(messages, "accept"), ["application/json"]);
}

#[test]
fn unsupported_wires_are_listed_with_the_routing_error() {
    let dir = tempfile::tempdir().unwrap();
    let all = json(&shape(
        dir.path(),
        &["--harness", "qwen-code", "--wire", "all", "--prompt", "hi"],
    ));
    let entries = all.as_array().unwrap();
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[0]["route"], "chat/qwen-code");
    assert!(entries[0]["body"]["tools"].is_array());
    for (e, wire) in entries[1..].iter().zip(["responses", "messages"]) {
        assert_eq!(keys(e), ["wire", "error"], "{e}");
        assert_eq!(e["wire"], wire);
        let error = e["error"].as_str().unwrap();
        assert!(
            error.contains(&format!(
                "harness `qwen-code` does not support the `{wire}` wire"
            )),
            "{error}"
        );
    }
}

#[test]
fn one_wire_prints_the_same_request_as_its_entry_in_all() {
    let dir = tempfile::tempdir().unwrap();
    // A prompt override without the date, so two runs render the same bytes.
    let prompts = dir.path().join("config/prompts/minimal");
    std::fs::create_dir_all(&prompts).unwrap();
    std::fs::write(prompts.join("system.md"), "Work in {{ cwd }}.\n").unwrap();
    let all = json(&shape(
        dir.path(),
        &["--harness", "minimal", "--wire", "all", "--prompt", "hi"],
    ));
    for (i, wire) in ["chat", "responses", "messages"].into_iter().enumerate() {
        let one = json(&shape(
            dir.path(),
            &["--harness", "minimal", "--wire", wire, "--prompt", "hi"],
        ));
        let mut entry = all[i].clone();
        assert_eq!(entry["wire"], wire);
        entry.as_object_mut().unwrap().shift_remove("wire");
        // Compared as text: the same keys in the same order, the same values.
        assert_eq!(entry.to_string(), one.to_string(), "{wire}");
        assert!(
            one["prompt_source"].as_str().unwrap().starts_with("file:"),
            "the override is used: {one}"
        );
    }
}

#[test]
fn an_unknown_harness_or_wire_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = shape(
        dir.path(),
        &["--harness", "nope", "--wire", "all", "--prompt", "hi"],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown harness `nope`"), "{stderr}");
    assert!(out.stdout.is_empty());

    let out = shape(dir.path(), &["--wire", "every", "--prompt", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("expected one of chat, responses, messages, or all"),
        "{stderr}"
    );
}
