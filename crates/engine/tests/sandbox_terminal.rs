//! The `terminal` tool with `ToolContext::sandbox` set: the tmux server runs inside real
//! `bwrap`, and what is typed into its shell is contained. Skipped (with a printed reason)
//! where no sandbox works, except under `CI=true`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tack_engine::tools::{
    TerminalTool, ToolContext, ToolHandler, ToolInput, close_session_terminals,
};
use tack_protocol::{SandboxMechanism, SandboxMode, ToolOutput, ToolStatus};
use tack_sandbox::SandboxPolicy;

fn sandbox_works() -> bool {
    let found = tack_sandbox::probe();
    if found.mechanism == SandboxMechanism::None {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI must have a working sandbox: {}",
            found.summary
        );
        println!("skipped: {}", found.summary);
        return false;
    }
    true
}

fn ctx(ws: &Path, name: &str, sandbox: Option<SandboxMode>) -> ToolContext {
    let mut ctx = ToolContext::new(ws);
    ctx.session_id = format!("sandbox-{name}-{}", std::process::id());
    ctx.sandbox = sandbox.map(|mode| SandboxPolicy::new(mode, ws));
    ctx
}

async fn keys(ctx: &ToolContext, keys: &str) -> ToolOutput {
    let args: Value = json!({"commands": [{"keystrokes": keys, "duration": 0.1}]});
    match TerminalTool::new().prepare(ToolInput::Json(args), ctx) {
        Ok(p) => p.run(ctx.clone()).await,
        Err(out) => out,
    }
}

/// Reads the screen until `wanted` shows up (bounded), returning everything seen.
async fn seen_until(ctx: &ToolContext, first: &ToolOutput, wanted: &str) -> String {
    let mut seen = first.text.clone();
    for _ in 0..200 {
        if seen.contains(wanted) {
            return seen;
        }
        seen.push_str(&keys(ctx, "").await.text);
    }
    panic!("`{wanted}` never appeared; saw:\n{seen}");
}

/// Pids of live host processes whose command line contains `needle`.
fn processes_containing(needle: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .filter(|e| {
            std::fs::read(e.path().join("cmdline")).is_ok_and(|c| {
                String::from_utf8_lossy(&c)
                    .replace('\0', " ")
                    .contains(needle)
            })
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[tokio::test]
async fn the_terminal_shell_runs_in_the_sandbox() {
    if !sandbox_works() {
        return;
    }
    let parent = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let ws = parent.path().join("ws");
    let outside = parent.path().join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let ctx = ctx(&ws, "contained", Some(SandboxMode::WorkspaceWrite));
    let me = std::process::id();

    let out = keys(
        &ctx,
        &format!(
            "echo x > {}/escaped; echo inside > f; kill -0 {me} || echo no-si''gnal; \
             tmux -L default ls 2>&1 | head -1; echo fin''ished\n",
            outside.display()
        ),
    )
    .await;
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    let seen = seen_until(&ctx, &out, "finished").await;
    assert!(seen.contains("Read-only file system"), "{seen}");
    assert!(seen.contains("no-signal"), "{seen}");
    assert!(!outside.join("escaped").exists());
    assert_eq!(std::fs::read_to_string(ws.join("f")).unwrap(), "inside\n");

    // The server is inside bwrap: the tmux process is a child of the sandbox, not of Tack.
    let socket_dir = std::env::temp_dir().join(format!(
        "tack-tmux-{}",
        String::from_utf8_lossy(
            &std::process::Command::new("id")
                .arg("-u")
                .output()
                .unwrap()
                .stdout
        )
        .trim()
    ));
    assert!(!processes_containing(&socket_dir.display().to_string()).is_empty());

    close_session_terminals(&ctx.session_id);
    for _ in 0..300 {
        if processes_containing(&ctx.session_id).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        processes_containing(&ctx.session_id).is_empty(),
        "the contained terminal outlived close_session_terminals"
    );
}

#[tokio::test]
async fn an_uncontained_terminal_is_restarted_in_the_sandbox() {
    if !sandbox_works() {
        return;
    }
    let parent = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let ws = parent.path().to_path_buf();
    let open = ctx(&ws, "restart", None);
    let first = keys(&open, "echo open\n").await;
    seen_until(&open, &first, "open").await;

    let mut contained = open.clone();
    contained.sandbox = Some(SandboxPolicy::new(SandboxMode::ReadOnly, &ws));
    let out = keys(&contained, "echo x > g; echo af''ter\n").await;
    assert!(
        out.text
            .starts_with("[the terminal was restarted inside the sandbox"),
        "{}",
        out.text
    );
    let seen = seen_until(&contained, &out, "after").await;
    assert!(seen.contains("Read-only file system"), "{seen}");
    assert!(!ws.join("g").exists());
    close_session_terminals(&open.session_id);
}

#[tokio::test]
async fn a_swapped_socket_never_reaches_an_outside_server() {
    if !sandbox_works() {
        return;
    }
    let parent = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let ws = parent.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let marker = parent.path().join("reached-outside");
    // An uncontained tmux server of the user's, with a shell in a session called `main`.
    let victim = format!("tack-victim-{}", std::process::id());
    let started = std::process::Command::new("tmux")
        .args([
            "-L",
            &victim,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "main",
        ])
        .env_remove("TMUX")
        .status()
        .unwrap();
    assert!(started.success());
    let victim_socket = String::from_utf8(
        std::process::Command::new("tmux")
            .args(["-L", &victim, "display-message", "-p", "#{socket_path}"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .to_string();

    let ctx = ctx(&ws, "swap", Some(SandboxMode::WorkspaceWrite));
    // The shell in the terminal replaces its own server's socket with a link to the victim's.
    let out = keys(
        &ctx,
        &format!(
            "s=${{TMUX%%,*}}; rm -f \"$s\" && ln -s {victim_socket} \"$s\" && echo swa''pped\n"
        ),
    )
    .await;
    // Its own server is unreachable now: the call may fail or show the last screen.
    let _ = out;
    // Whatever Tack types next must not land in the victim's shell.
    let out = keys(&ctx, &format!("touch {}\n", marker.display())).await;
    // A fresh contained shell took the keystrokes (and refused the write).
    let seen = seen_until(&ctx, &out, "Read-only file system").await;
    assert!(seen.contains("touch"), "{seen}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let _ = std::process::Command::new("tmux")
        .args(["-L", &victim, "kill-server"])
        .status();
    close_session_terminals(&ctx.session_id);
    assert!(
        !marker.exists(),
        "keystrokes reached the outside server: {}",
        out.text
    );
}
