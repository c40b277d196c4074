//! The `terminal` tool against a real tmux server (tmux must be installed; CI installs it).

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::Path;

use serde_json::{Value, json};
use tack_engine::tools::terminal::{DEFAULT_SIZE, socket_name};
use tack_engine::tools::{
    TerminalTool, ToolAction, ToolContext, ToolHandler, ToolInput, close_session_terminals,
};
use tack_protocol::{ToolOutput, ToolStatus};

/// A context for a fresh session of its own (each test gets its own tmux server).
fn ctx(dir: &Path, name: &str) -> ToolContext {
    let mut ctx = ToolContext::new(dir);
    ctx.session_id = format!("test-{name}-{}", std::process::id());
    ctx
}

async fn run(ctx: &ToolContext, args: Value) -> ToolOutput {
    let tool = TerminalTool::new();
    match tool.prepare(ToolInput::Json(args), ctx) {
        Ok(p) => p.run(ctx.clone()).await,
        Err(out) => out,
    }
}

async fn keys(ctx: &ToolContext, keys: &[(&str, f64)]) -> ToolOutput {
    let commands: Vec<Value> = keys
        .iter()
        .map(|(k, d)| json!({"keystrokes": k, "duration": d}))
        .collect();
    run(ctx, json!({"commands": commands})).await
}

/// Reads the screen until `wanted` has shown up in some output (bounded), returning everything
/// seen. Commands finish at their own pace; this waits for the effect instead of guessing a
/// duration.
async fn seen_until(ctx: &ToolContext, first: &ToolOutput, wanted: &str) -> String {
    let mut seen = first.text.clone();
    for _ in 0..200 {
        if seen.contains(wanted) {
            return seen;
        }
        seen.push_str(&keys(ctx, &[("", 0.05)]).await.text);
    }
    panic!("`{wanted}` never appeared; saw:\n{seen}");
}

fn socket_dir() -> std::path::PathBuf {
    let base =
        std::env::var_os("TMUX_TMPDIR").map_or_else(|| "/tmp".into(), std::path::PathBuf::from);
    base.join(format!("tmux-{}", rustix_uid()))
}

fn rustix_uid() -> u32 {
    let out = std::process::Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

fn server_alive(session_id: &str) -> bool {
    std::process::Command::new("tmux")
        .args(["-L", &socket_name(session_id), "has-session", "-t", "main"])
        .env_remove("TMUX")
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

#[tokio::test]
async fn a_fresh_terminal_shows_the_prompt_the_harness_renders() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path(), "fresh");
    let out = run(&ctx, json!({"commands": []})).await;
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    // Nothing typed: the output starts at the line the next command would be typed on, the
    // prompt (as the agent's incremental output does).
    let cwd = dir.path().display().to_string();
    assert_eq!(out.text, format!("New Terminal Output:\n{cwd}$\n"));
    // `terminus-2` puts exactly this visible screen in its first prompt (`fresh_screen`):
    // the prompt on the first row, the other rows empty.
    let screen = std::process::Command::new("tmux")
        .args([
            "-L",
            &socket_name(&ctx.session_id),
            "capture-pane",
            "-p",
            "-t",
            "main",
        ])
        .env_remove("TMUX")
        .output()
        .unwrap();
    let mut expected = format!("{cwd}$\n");
    for _ in 1..DEFAULT_SIZE.1 {
        expected.push('\n');
    }
    assert_eq!(String::from_utf8_lossy(&screen.stdout), expected);
    close_session_terminals(&ctx.session_id);
}

#[tokio::test]
async fn keystrokes_run_and_new_output_comes_back_incrementally() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hi there\n").unwrap();
    let ctx = ctx(dir.path(), "incremental");
    let out = keys(&ctx, &[("cat hello.txt\n", 0.1)]).await;
    let seen = seen_until(&ctx, &out, "hi there").await;
    assert!(seen.contains("New Terminal Output:\n"), "{seen}");
    assert!(seen.contains("$ cat hello.txt\nhi there\n"), "{seen}");
    // The next call shows only what is new: the earlier command is not repeated.
    let out = keys(&ctx, &[("echo second\n", 0.1)]).await;
    let seen = seen_until(&ctx, &out, "second\n").await;
    assert!(!seen.contains("cat hello.txt"), "{seen}");
    close_session_terminals(&ctx.session_id);
}

#[tokio::test]
async fn the_shell_persists_between_calls_and_keys_are_sent_as_keys() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let ctx = ctx(dir.path(), "persist");
    let out = keys(&ctx, &[("cd sub\n", 0.05), ("export MARK=kept\n", 0.05)]).await;
    seen_until(&ctx, &out, "sub$").await;
    let out = keys(&ctx, &[("echo \"$PWD:$MARK\"\n", 0.1)]).await;
    let expected = format!("{}:kept", dir.path().join("sub").display());
    seen_until(&ctx, &out, &expected).await;

    // A running program is interrupted by the C-c key, and the shell takes input again.
    let out = keys(
        &ctx,
        &[("sleep 1000\n", 0.05), ("C-c", 0.05), ("echo back\n", 0.05)],
    )
    .await;
    let seen = seen_until(&ctx, &out, "\nback\n").await;
    assert!(seen.contains("^C"), "{seen}");

    // Text that starts with a dash is typed, not taken for a tmux option.
    let out = keys(&ctx, &[("-n\n", 0.05)]).await;
    seen_until(&ctx, &out, "-n: command not found").await;
    close_session_terminals(&ctx.session_id);
}

#[tokio::test]
async fn long_keystrokes_are_split_and_typed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path(), "long");
    let word = "y".repeat(20_000);
    let out = keys(&ctx, &[(&format!("printf '%s' '{word}' | wc -c\n"), 0.1)]).await;
    seen_until(&ctx, &out, "\n20000\n").await;
    close_session_terminals(&ctx.session_id);
}

#[tokio::test]
async fn typing_is_an_exec_action_and_reading_is_internal() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path(), "action");
    let tool = TerminalTool::new();
    let typing = tool
        .prepare(
            ToolInput::Json(
                json!({"commands": [{"keystrokes": "ls -la\n"}, {"keystrokes": "C-c"}]}),
            ),
            &ctx,
        )
        .unwrap();
    match typing.action() {
        ToolAction::Exec {
            command,
            cwd,
            escalated,
        } => {
            assert_eq!(command, "ls -la\nC-c");
            assert_eq!(cwd, dir.path());
            assert!(!escalated);
        }
        other => panic!("{other:?}"),
    }
    let reading = tool
        .prepare(
            ToolInput::Json(json!({"commands": [{"keystrokes": ""}]})),
            &ctx,
        )
        .unwrap();
    assert_eq!(reading.action(), &ToolAction::Internal);
    let bad = tool
        .prepare(ToolInput::Json(json!({"commands": [{"keys": "ls"}]})), &ctx)
        .err()
        .unwrap();
    assert_eq!(bad.status, ToolStatus::Failed);
}

#[tokio::test]
async fn closing_a_session_stops_its_tmux_server_and_only_that_one() {
    let dir = tempfile::tempdir().unwrap();
    let a = ctx(dir.path(), "close-a");
    let b = ctx(dir.path(), "close-b");
    assert_eq!(
        run(&a, json!({"commands": []})).await.status,
        ToolStatus::Completed
    );
    assert_eq!(
        run(&b, json!({"commands": []})).await.status,
        ToolStatus::Completed
    );
    assert!(server_alive(&a.session_id) && server_alive(&b.session_id));
    close_session_terminals(&a.session_id);
    assert!(!server_alive(&a.session_id));
    assert!(server_alive(&b.session_id));
    // A closed session's terminal starts afresh on the next call.
    let out = run(
        &a,
        json!({"commands": [{"keystrokes": "echo again\n", "duration": 0.05}]}),
    )
    .await;
    seen_until(&a, &out, "\nagain\n").await;
    assert!(server_alive(&a.session_id));
    close_session_terminals(&a.session_id);
    close_session_terminals(&b.session_id);
    // No socket file is left behind.
    assert!(!socket_dir().join(socket_name(&a.session_id)).exists());
    // Closing twice, or a session that never had a terminal, is harmless.
    close_session_terminals(&a.session_id);
    close_session_terminals("never-opened");
}

/// Not a test on its own: the child process of the next test (it does nothing unless that test
/// started it). Opens a terminal and exits without closing it.
#[tokio::test]
async fn child_opens_a_terminal_and_exits() {
    let Ok(session) = std::env::var("TACK_TERMINAL_CHILD_SESSION") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolContext::new(dir.path());
    ctx.session_id = session;
    assert_eq!(
        run(&ctx, json!({"commands": []})).await.status,
        ToolStatus::Completed
    );
}

#[test]
fn the_tmux_server_dies_with_the_process_that_started_it() {
    let session = format!("test-orphan-{}", std::process::id());
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_opens_a_terminal_and_exits",
            "--test-threads=1",
        ])
        .env("TACK_TERMINAL_CHILD_SESSION", &session)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    // The child is gone; its server's watchdog notices and stops the server (it checks every
    // couple of seconds). Wait for that effect, bounded.
    let mut alive = true;
    for _ in 0..300 {
        alive = server_alive(&session);
        if !alive {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if alive {
        close_session_terminals(&session);
    }
    assert!(
        !alive,
        "the orphaned tmux server of {session} was not stopped"
    );
    assert!(!socket_dir().join(socket_name(&session)).exists());
}
