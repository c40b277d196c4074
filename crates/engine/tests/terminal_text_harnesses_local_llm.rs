//! `swe-agent` and `terminus-2` end to end against a real local model (llama.cpp serving
//! SmolLM2-135M, `scripts/local-llm.sh`): the model's text action is parsed, passes the
//! approval gate, runs (a shell command; keystrokes into a real tmux), the observation goes back
//! in the agent's format, and the turn ends on the agent's own completion signal (the
//! confirming `submit`; the confirmed `task_complete`).
//!
//! Gated: runs only with `TACK_LOCAL_LLM=1` (prints `skipped: TACK_LOCAL_LLM not set`
//! otherwise); the server's base URL comes from `TACK_LOCAL_LLM_URL` (default
//! `http://127.0.0.1:8082`). A 135M model does not follow instructions, it imitates: each test
//! seeds the session with earlier turns in the agent's exact format, which the model copies.
//! swe-agent asks for `temperature: 0` (as the real agent), so its run is deterministic;
//! terminus-2 sends no temperature (as the real agent), so the server samples, and the seed
//! repeats the episode to make the pattern dominant.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use tack_engine::config::{Config, Paths};
use tack_engine::resolve::{SessionRequest, resolve};
use tack_engine::secrets::MemoryStore;
use tack_engine::session::{Engine, Session};
use tack_engine::tools::close_session_terminals;
use tack_protocol::{ApprovalDecision, ApprovalPolicy, EngineEvent, Item, Role};

fn base_url() -> Option<String> {
    if std::env::var("TACK_LOCAL_LLM").as_deref() != Ok("1") {
        println!("skipped: TACK_LOCAL_LLM not set");
        return None;
    }
    Some(std::env::var("TACK_LOCAL_LLM_URL").unwrap_or_else(|_| "http://127.0.0.1:8082".into()))
}

/// A workspace (a git repository with `hello.py`) and config/data folders for `name`. The
/// workspace path appears in the prompts, so it is fixed (under the temp folder) rather than
/// random: the same request then gets the same greedy reply on every run.
fn setup(name: &str) -> (std::path::PathBuf, Paths) {
    let root = std::env::temp_dir().join("tack-local-llm").join(name);
    let _ = std::fs::remove_dir_all(&root);
    let ws = root.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("hello.py"), "print(\"hello\")\n").unwrap();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&ws)
            .output()
            .unwrap()
    };
    git(&["init", "-q", "."]);
    git(&["add", "hello.py"]);
    git(&["commit", "-qm", "init"]);
    let paths = Paths {
        config_dir: root.join("config"),
        data_dir: root.join("data"),
    };
    (std::fs::canonicalize(&ws).unwrap(), paths)
}

/// A config file with the local provider (no key, no examples) next to the data folder.
fn write_config(paths: &Paths, base: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(&paths.config_dir).unwrap();
    let file = paths.config_dir.join("config.toml");
    std::fs::write(
        &file,
        format!(
            "[[providers]]\nid = \"local\"\nname = \"Local\"\nbase_url = \"{base}/v1\"\nwire = \"chat\"\nmodel = \"smollm2-135m\"\n"
        ),
    )
    .unwrap();
    file
}

fn msg(id: &str, role: &str, text: &str, label: Option<&str>) -> Value {
    let mut m = json!({"type": "message", "id": id, "role": role, "content": [{"type": "text", "text": text}]});
    if let Some(l) = label {
        m["injected_by"] = json!(l);
    }
    m
}

/// Runs one turn, approving every call the gate asks about; returns the final history and
/// whether the gate asked.
async fn run(
    paths: Paths,
    ws: &Path,
    base: &str,
    harness: &str,
    seed: Vec<Value>,
    task: &str,
) -> (Vec<Item>, String) {
    let config = Config::load(&write_config(&paths, base)).unwrap();
    let engine = Arc::new(Engine::new(paths).unwrap());
    let request = SessionRequest {
        cwd: ws.to_path_buf(),
        provider: Some("local".into()),
        model: None,
        harness: Some(harness.into()),
        wire: None,
        approval: Some(ApprovalPolicy::Untrusted),
        ..Default::default()
    };
    let opts = resolve(&config, &engine.registry, &MemoryStore::default(), &request)
        .unwrap()
        .options;
    let (session, mut events) = Session::create(engine, opts).unwrap();
    let items: Vec<Item> = seed
        .into_iter()
        .map(|v| serde_json::from_value(v).unwrap())
        .collect();
    session.seed(items).unwrap();
    session.submit(task).unwrap();
    let mut end = String::new();
    while let Some(ev) = events.recv().await {
        match ev {
            EngineEvent::ApprovalRequested { request, .. } => {
                session
                    .decide(&request.id, ApprovalDecision::ApproveOnce)
                    .unwrap();
            }
            EngineEvent::TurnCompleted { .. } => {
                end = "completed".into();
                break;
            }
            EngineEvent::Error { error, .. } => end = format!("error: {}", error.message),
            EngineEvent::TurnAborted { .. } => break,
            _ => {}
        }
    }
    close_session_terminals(session.id());
    (session.history(), end)
}

fn dump(history: &[Item]) -> String {
    history
        .iter()
        .map(|i| serde_json::to_string(i).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn swe_agent_text_action_runs_and_submit_ends_the_task() {
    let Some(base) = base_url() else { return };
    let (ws, paths) = setup("swe-agent");
    // The text variant (SWE-agent's thought-action parser): no tools in the request.
    std::fs::create_dir_all(paths.prompts_dir().join("swe-agent")).unwrap();
    std::fs::write(paths.prompts_dir().join("swe-agent/tools.json"), "[]").unwrap();
    let seed = vec![
        msg("s1", "user", "Show the files in this folder.", None),
        msg(
            "s2",
            "assistant",
            "DISCUSSION\nI will list the files.\n```bash\nls\n```",
            None,
        ),
        json!({"type": "local_shell_call", "id": "s3", "call_id": "seed-1", "command": ["bash", "-lc", "ls"], "timeout_ms": 30000}),
        json!({"type": "tool_output", "id": "s4", "call_id": "seed-1", "output": {"text": "hello.py\n", "status": "completed", "exit_code": 0}}),
        msg(
            "s5",
            "assistant",
            "DISCUSSION\nThe files are listed, so I submit.\n```bash\nsubmit\n```",
            None,
        ),
        json!({"type": "function_call", "id": "s6", "call_id": "seed-2", "name": "submit", "arguments": "{}"}),
        json!({"type": "tool_output", "id": "s7", "call_id": "seed-2", "output": {"text": "", "status": "completed", "exit_code": 0}}),
        msg(
            "s8",
            "assistant",
            "DISCUSSION\nI reviewed it and confirm.\n```bash\nsubmit\n```",
            None,
        ),
    ];
    let (history, end) = run(
        paths,
        &ws,
        &base,
        "swe-agent",
        seed,
        "Show the files in this folder.",
    )
    .await;
    assert_eq!(end, "completed", "{}", dump(&history));
    let turn = &history[9..];
    // A shell command parsed from the reply's text ran, next to the text it came from.
    let shell = turn
        .iter()
        .position(|i| matches!(i, Item::LocalShellCall(_)))
        .unwrap_or_else(|| panic!("no parsed shell call:\n{}", dump(turn)));
    assert!(
        matches!(&turn[shell - 1], Item::Message(m) if m.role == Role::Assistant && m.text().contains("```"))
    );
    let call_id = turn[shell].call_id().unwrap();
    assert!(turn.iter().any(|i| matches!(i, Item::ToolOutput(o) if o.call_id == call_id && o.output.text.contains("hello.py"))));
    // The review ran once, then the confirming submit ended the task (no call after it).
    assert!(
        turn.iter()
            .any(|i| matches!(i, Item::FunctionCall(c) if c.name == "submit"))
    );
    let Item::Message(last) = turn.last().unwrap() else {
        panic!("{}", dump(turn))
    };
    assert!(last.role == Role::Assistant && last.text().contains("submit"));
}

#[tokio::test]
async fn terminus_2_keystrokes_run_in_tmux_and_task_complete_ends_the_task() {
    let Some(base) = base_url() else { return };
    // Example screens from an earlier session elsewhere.
    let cwd = "/home/user/project";
    let confirm = "Do you really want to mark the task as complete? Your solution will then be graded, and you will not be able to change anything afterwards. If you are sure, include \"task_complete\": true in your JSON response once more.";
    let reply = json!({"analysis": "The terminal is ready.", "plan": "Run ls and finish.", "commands": [{"keystrokes": "ls\n", "duration": 0.1}], "task_complete": true}).to_string();
    let mut seed = Vec::new();
    for n in 0..3 {
        seed.extend([
            msg(&format!("u{n}"), "user", "List the files.", None),
            msg(&format!("a{n}"), "assistant", &reply, None),
            json!({"type": "function_call", "id": format!("f{n}"), "call_id": format!("seed-{n}"), "name": "terminal",
                   "arguments": json!({"commands": [{"keystrokes": "ls\n", "duration": 0.1}], "width": 160, "height": 40}).to_string()}),
            msg(&format!("q{n}"), "user", confirm, Some("completion_confirmation")),
            json!({"type": "tool_output", "id": format!("o{n}"), "call_id": format!("seed-{n}"),
                   "output": {"text": format!("New Terminal Output:\n{cwd}$ ls\nhello.py\n{cwd}$\n"), "status": "completed"}}),
            msg(&format!("b{n}"), "assistant", &reply, None),
        ]);
    }
    let seeded = seed.len();
    // The request has no temperature (as the real agent's), so the server samples: a few
    // attempts, each a fresh session. Every attempt must end cleanly — on the completion
    // signal, or on the engine's correction limit with its clear error — and one must show
    // the whole loop.
    let mut attempts = Vec::new();
    for attempt in 0..3 {
        let (ws, paths) = setup(&format!("terminus-2-{attempt}"));
        let (history, end) = run(
            paths,
            &ws,
            &base,
            "terminus-2",
            seed.clone(),
            "List the files.",
        )
        .await;
        assert!(
            end == "completed" || end.contains("corrections"),
            "attempt {attempt} ended badly ({end}):\n{}",
            dump(&history)
        );
        if end == "completed" && full_loop(&history[seeded + 1..]) {
            return;
        }
        attempts.push(format!(
            "attempt {attempt} ({end}):\n{}",
            dump(&history[seeded..])
        ));
    }
    panic!("no attempt ran the whole loop:\n{}", attempts.join("\n\n"));
}

/// Keystrokes parsed from a JSON reply went to the real terminal, its screen came back,
/// completion was asked once and then confirmed.
fn full_loop(turn: &[Item]) -> bool {
    let Some(call) = turn
        .iter()
        .find(|i| matches!(i, Item::FunctionCall(c) if c.name == "terminal" && c.arguments.contains("keystrokes")))
    else {
        return false;
    };
    let call_id = call.call_id().unwrap_or_default();
    let screen_ok = turn.iter().any(|i| {
        matches!(i, Item::ToolOutput(o) if o.call_id == call_id
            && o.output.text.starts_with("New Terminal Output:\n")
            && o.output.text.contains("hello.py"))
    });
    let asked = turn
        .iter()
        .any(|i| matches!(i, Item::Message(m) if m.injected_by.as_deref() == Some("completion_confirmation")));
    let confirmed = matches!(turn.last(), Some(Item::Message(m)) if m.role == Role::Assistant && m.text().contains("task_complete"));
    screen_ok && asked && confirmed
}
