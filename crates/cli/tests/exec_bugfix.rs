//! A scripted end-to-end task over real HTTP: the replaying provider plays a model that reads
//! a buggy file, patches it, runs its test and finishes. Tack executes every call for real in
//! a temporary git repository, and every request it sent is checked.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;

use serde_json::json;
use support::{CANARY, Env, answer, tool_call, tool_messages};
use tack_tests::{ReplayProvider, ScriptedResponse};

const BUGGY: &str = "def add(a, b):\n    return a - b\n";
const TEST: &str = "import unittest\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";
const PATCH: &str = "*** Begin Patch\n*** Update File: calc.py\n@@ def add(a, b):\n-    return a - b\n+    return a + b\n*** End Patch";

fn git(dir: &std::path::Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn the_model_fixes_a_real_bug_and_every_request_is_recorded() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(tool_call(
            "call_read",
            "read_file",
            &json!({"path": "calc.py"}),
        ))
        .split_every(13),
        ScriptedResponse::sse(tool_call(
            "call_patch",
            "apply_patch",
            &json!({"input": PATCH}),
        ))
        .split_every(29),
        ScriptedResponse::sse(tool_call(
            "call_test",
            "shell",
            &json!({"command": "python3 -m unittest -q test_calc 2>&1"}),
        )),
        ScriptedResponse::sse(answer(
            "done",
            "Fixed: add() subtracted instead of adding; the test passes now.",
        ))
        .split_every(5),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let ws = &env.workspace;
    std::fs::write(ws.join("calc.py"), BUGGY).unwrap();
    std::fs::write(ws.join("test_calc.py"), TEST).unwrap();
    git(ws, &["init", "-q"]);
    git(ws, &["add", "."]);
    git(ws, &["commit", "-qm", "buggy"]);

    let run = env.exec(
        &["--approval", "on-request"],
        "The add test fails. Fix the bug.",
    );
    assert_eq!(
        run.status, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_eq!(run.last()["type"], "turn_completed");

    // The fix is on disk, and git sees exactly that change.
    assert_eq!(
        std::fs::read_to_string(ws.join("calc.py")).unwrap(),
        "def add(a, b):\n    return a + b\n"
    );
    let diff = Command::new("git")
        .args(["diff", "--stat"])
        .current_dir(ws)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&diff.stdout).contains("calc.py | 2 +-"));

    // Four sampling requests, each to the Chat endpoint with the key and the tools.
    let requests = provider.requests();
    assert_eq!(requests.len(), 4);
    for r in &requests {
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, "/v1/chat/completions");
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {CANARY}").as_str())
        );
        let body = r.body_json().unwrap();
        assert_eq!(body["model"], "test-model");
        assert_eq!(body["stream"], true);
        let tools: Vec<&str> = body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        for t in ["shell", "read_file", "apply_patch"] {
            assert!(tools.contains(&t), "{tools:?}");
        }
    }
    let bodies: Vec<_> = requests.iter().map(|r| r.body_json().unwrap()).collect();
    // 1: the task. 2: the numbered file. 3: the patch result. 4: the passing test run.
    assert_eq!(
        bodies[0]["messages"].as_array().unwrap().last().unwrap()["content"],
        "The add test fails. Fix the bug."
    );
    let read = tool_messages(&bodies[1]);
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].0, "call_read");
    assert!(read[0].1.contains("return a - b"), "{}", read[0].1);
    let patched = tool_messages(&bodies[2]);
    assert_eq!(patched[1].0, "call_patch");
    assert!(patched[1].1.contains("calc.py"), "{}", patched[1].1);
    let tested = tool_messages(&bodies[3]);
    assert_eq!(tested[2].0, "call_test");
    assert!(tested[2].1.contains("OK"), "{}", tested[2].1);
    // The assistant's tool calls are replayed with their ids and arguments.
    let replayed: Vec<&str> = bodies[3]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(replayed, vec!["call_read", "call_patch", "call_test"]);

    // Events: three tool outputs, all successful, then the answer.
    let outputs = run.items("tool_output");
    assert_eq!(outputs.len(), 3);
    assert!(
        outputs.iter().all(|o| o["output"]["status"] == "completed"),
        "{outputs:?}"
    );
    assert_eq!(run.of("exchange_recorded").len(), 4);

    // Nothing Tack wrote contains the key; the exchange records show it redacted.
    let written = env.everything_written();
    assert!(!written.contains(CANARY));
    assert!(written.contains("[REDACTED]"));
    assert!(!run.stdout.contains(CANARY) && !run.stderr.contains(CANARY));
}
