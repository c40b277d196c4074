//! The `shell` tool against real processes in temp dirs.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::json;
use tack_engine::tools::{ShellTool, ToolAction, ToolContext, ToolHandler, ToolInput};
use tack_protocol::{ToolDetails, ToolOutput, ToolStatus};

fn ctx(dir: &Path) -> ToolContext {
    ToolContext::new(dir)
}

async fn run(ctx: &ToolContext, args: serde_json::Value) -> ToolOutput {
    let tool = ShellTool::new();
    let prepared = match tool.prepare(ToolInput::Json(args), ctx) {
        Ok(p) => p,
        Err(out) => return out,
    };
    prepared.run(ctx.clone()).await
}

/// Whether a process is gone: no /proc entry, or a zombie (dead, waiting for its reaper).
fn process_is_dead(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            // The state follows the parenthesised command name.
            let state = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .chars()
                .next();
            matches!(state, Some('Z') | Some('X'))
        }
    }
}

/// Polls until the process is dead, up to a generous bound (exit is asynchronous to EOF).
async fn wait_dead(pid: i32) -> bool {
    for _ in 0..500 {
        if process_is_dead(pid) {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    process_is_dead(pid)
}

#[tokio::test]
async fn exit_code_zero_is_completed() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&ctx(dir.path()), json!({"command": "echo hello"})).await;
    assert_eq!(out.status, ToolStatus::Completed);
    assert_eq!(out.exit_code, Some(0));
    assert_eq!(out.text, "hello\n");
    assert!(out.duration_ms.is_some());
    match out.details {
        Some(ToolDetails::Exec {
            command,
            cwd,
            truncated_bytes,
            ..
        }) => {
            assert_eq!(command, vec!["bash", "-lc", "echo hello"]);
            assert_eq!(Path::new(&cwd), std::fs::canonicalize(dir.path()).unwrap());
            assert_eq!(truncated_bytes, 0);
        }
        other => panic!("unexpected details {other:?}"),
    }
}

#[tokio::test]
async fn non_zero_exit_is_failed_with_the_code() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        &ctx(dir.path()),
        json!({"command": "echo oops >&2; exit 3"}),
    )
    .await;
    assert_eq!(out.status, ToolStatus::Failed);
    assert_eq!(out.exit_code, Some(3));
    assert!(out.text.starts_with("oops\n"), "{}", out.text);
    assert!(out.text.contains("[exit code 3]"), "{}", out.text);
}

#[tokio::test]
async fn stdout_and_stderr_are_merged_in_write_order() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        &ctx(dir.path()),
        json!({"command": "echo 1; echo 2 >&2; echo 3; echo 4 >&2; printf 5"}),
    )
    .await;
    assert_eq!(out.text, "1\n2\n3\n4\n5");
}

#[tokio::test]
async fn runs_in_workdir_resolved_against_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let c = ctx(dir.path());
    let tool = ShellTool::new();
    let prepared = tool
        .prepare(
            ToolInput::Json(json!({"command": "pwd", "workdir": "sub"})),
            &c,
        )
        .unwrap();
    let real = std::fs::canonicalize(dir.path().join("sub")).unwrap();
    assert_eq!(
        prepared.action(),
        &ToolAction::Exec {
            command: "pwd".into(),
            cwd: real.clone(),
            escalated: false
        }
    );
    let out = prepared.run(c).await;
    assert_eq!(out.text.trim_end(), real.to_string_lossy());
}

#[tokio::test]
async fn bad_arguments_are_model_readable_errors() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let out = run(&c, json!({"cmd": "ls"})).await;
    assert_eq!(out.status, ToolStatus::Failed);
    assert!(out.text.contains("`command` is missing"), "{}", out.text);
    let out = run(&c, json!({"command": "ls", "timeout_ms": "fast"})).await;
    assert!(out.text.contains("`timeout_ms`"), "{}", out.text);
    let out = run(&c, json!({"command": "ls", "workdir": "nope"})).await;
    assert!(
        out.text.contains("no such file or directory"),
        "{}",
        out.text
    );
}

#[tokio::test]
async fn chunks_stream_before_the_command_exits() {
    let dir = tempfile::tempdir().unwrap();
    // The command prints, then blocks until the test has seen the chunk and created `go`.
    let (seen_tx, seen_rx) = tokio::sync::oneshot::channel::<String>();
    let seen_tx = Mutex::new(Some(seen_tx));
    let so_far = Mutex::new(String::new());
    let mut c = ctx(dir.path());
    c.output = Arc::new(move |chunk: &str| {
        let mut text = so_far.lock().unwrap();
        text.push_str(chunk);
        if text.contains("started\n")
            && let Some(tx) = seen_tx.lock().unwrap().take()
        {
            let _ = tx.send(text.clone());
        }
    });
    let go = dir.path().join("go");
    let command = format!(
        "echo started; while [ ! -e '{}' ]; do sleep 0.01; done; echo done",
        go.display()
    );
    let task = tokio::spawn({
        let c = c.clone();
        async move { run(&c, json!({"command": command})).await }
    });
    let streamed = seen_rx.await.unwrap();
    assert!(streamed.ends_with("started\n"), "{streamed:?}");
    assert!(!task.is_finished());
    std::fs::write(&go, "").unwrap();
    let out = task.await.unwrap();
    assert_eq!(out.text, "started\ndone\n");
}

#[tokio::test]
async fn timeout_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let command = format!(
        "sleep 300 & echo $! > '{}'; echo waiting; wait",
        pidfile.display()
    );
    let out = run(
        &ctx(dir.path()),
        json!({"command": command, "timeout_ms": 1500}),
    )
    .await;
    assert_eq!(out.status, ToolStatus::TimedOut);
    assert_eq!(out.exit_code, None);
    assert!(out.text.starts_with("waiting\n"), "{}", out.text);
    assert!(out.text.contains("timed out after 1500 ms"), "{}", out.text);
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        wait_dead(pid).await,
        "child sleep {pid} survived the timeout"
    );
}

#[tokio::test]
async fn a_term_ignoring_command_is_killed_too() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        &ctx(dir.path()),
        json!({"command": "trap '' TERM; echo armed; while true; do sleep 0.05; done", "timeout_ms": 1500}),
    )
    .await;
    assert_eq!(out.status, ToolStatus::TimedOut);
    assert!(out.text.starts_with("armed\n"), "{}", out.text);
}

#[tokio::test]
async fn cancellation_aborts_with_output_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let c = ctx(dir.path());
    let cancel = c.cancel.clone();
    let mut c2 = c.clone();
    c2.output = Arc::new(move |chunk: &str| {
        if chunk.contains("ready") {
            cancel.cancel();
        }
    });
    let command = format!(
        "sleep 300 & echo $! > '{}'; echo ready; wait",
        pidfile.display()
    );
    let out = run(&c2, json!({"command": command})).await;
    assert_eq!(out.status, ToolStatus::Aborted);
    assert!(out.text.starts_with("ready\n"), "{}", out.text);
    assert!(out.text.ends_with("[aborted by user]"), "{}", out.text);
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(wait_dead(pid).await, "child sleep {pid} survived the abort");
}

#[tokio::test]
async fn a_background_child_holding_the_pipe_does_not_hang_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let command = format!("sleep 300 & echo $! > '{}'; echo bye", pidfile.display());
    let out = run(&ctx(dir.path()), json!({"command": command})).await;
    assert_eq!(out.status, ToolStatus::Completed);
    assert!(out.text.starts_with("bye\n"), "{}", out.text);
    assert!(
        out.text
            .contains("background processes still held the output open"),
        "{}",
        out.text
    );
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(wait_dead(pid).await);
}

#[tokio::test]
async fn a_background_child_with_redirected_output_keeps_running() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let command = format!(
        "sleep 300 > /dev/null 2>&1 & echo $! > '{}'; echo bye",
        pidfile.display()
    );
    let out = run(&ctx(dir.path()), json!({"command": command})).await;
    assert_eq!(out.status, ToolStatus::Completed);
    assert_eq!(out.text, "bye\n");
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!process_is_dead(pid));
    let _ = rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid).unwrap(),
        rustix::process::Signal::KILL,
    );
}

#[tokio::test]
async fn output_cap_marker_counts_the_omitted_bytes_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = ctx(dir.path());
    c.max_output_bytes = 1000;
    // 2000 lines of 10 bytes each: "line 0000\n" … "line 1999\n".
    let out = run(
        &c,
        json!({"command": "for i in $(seq 0 1999); do printf 'line %04d\\n' $i; done"}),
    )
    .await;
    assert_eq!(out.status, ToolStatus::Completed);
    assert!(out.text.len() <= 1000, "{}", out.text.len());
    assert!(out.text.starts_with("line 0000\n"));
    assert!(out.text.ends_with("line 1999\n"));
    let marker = out.text.lines().find(|l| l.starts_with("[…")).unwrap();
    let shown_lines = out.text.lines().filter(|l| l.starts_with("line ")).count();
    let omitted_lines = 2000 - shown_lines;
    assert_eq!(
        marker,
        format!(
            "[… {} bytes ({omitted_lines} lines) of output omitted …]",
            omitted_lines * 10
        )
    );
    match out.details {
        Some(ToolDetails::Exec {
            truncated_bytes, ..
        }) => {
            assert_eq!(truncated_bytes as usize, omitted_lines * 10)
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn non_utf8_output_is_decoded_lossily() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        &ctx(dir.path()),
        json!({"command": "printf 'a\\377b\\n\\303\\251\\n'"}),
    )
    .await;
    assert_eq!(out.text, "a\u{FFFD}b\né\n");
}

#[tokio::test]
async fn stdin_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&ctx(dir.path()), json!({"command": "cat; echo end"})).await;
    assert_eq!(out.text, "end\n");
}
