//! `tack exec` against the real local model (llama.cpp + SmolLM2-135M, started by
//! scripts/local-llm.sh): the model calls `shell` with `ls`, the call passes the approval gate
//! and runs, its output goes back, and the model's answer ends the turn. Opt-in with
//! `TACK_LOCAL_LLM=1` (scripts/test.sh sets it).
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use tack_tests::{LocalLlm, local_llm_or_skip};

#[test]
fn a_real_model_lists_the_files_through_the_shell_tool() {
    let llm: LocalLlm = local_llm_or_skip!();
    let base = format!("{}/v1", llm.base_url().trim_end_matches('/'));
    let env = support::Env::new(&base);
    // The built-in `local` provider carries the few-shot examples the 135M model needs;
    // point it at this server.
    std::fs::write(
        env.config.join("config.toml"),
        format!(
            "default_provider = \"local\"\n\n[[providers]]\nid = \"local\"\nname = \"Local\"\nbase_url = \"{base}\"\nwire = \"chat\"\nmodel = \"{}\"\nharness = \"minimal\"\nexamples = \"builtin:tool-use\"\ntools = [\"shell\", \"read_file\", \"list_dir\"]\ntemperature = 0.0\n",
            llm.model()
        ),
    )
    .unwrap();
    std::fs::write(env.workspace.join("alpha.txt"), "a").unwrap();
    std::fs::write(env.workspace.join("beta.txt"), "b").unwrap();
    // `untrusted` is the default policy: `ls` is a known read-only command and passes the gate.
    let run = env.exec(&[], "List the files in the current directory.");
    assert_eq!(
        run.status, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    let calls = run.items("function_call");
    assert_eq!(calls.len(), 1, "{:?}", run.events);
    assert_eq!(calls[0]["name"], "shell");
    let args: serde_json::Value =
        serde_json::from_str(calls[0]["arguments"].as_str().unwrap()).unwrap();
    assert!(
        args["command"].as_str().unwrap().trim().starts_with("ls"),
        "{args}"
    );
    assert!(
        run.of("approval_requested").is_empty(),
        "ls needs no approval under untrusted"
    );
    let out = &run.items("tool_output")[0]["output"];
    assert_eq!(out["status"], "completed");
    let listing = out["text"].as_str().unwrap();
    assert!(
        listing.contains("alpha.txt") && listing.contains("beta.txt"),
        "{listing}"
    );
    // The listing went back to the model, whose answer ended the turn.
    assert_eq!(run.of("exchange_recorded").len(), 2);
    assert!(
        !run.items("message")
            .iter()
            .filter(|m| m["role"] == "assistant")
            .collect::<Vec<_>>()
            .is_empty()
    );
    assert_eq!(run.last()["type"], "turn_completed");
}
