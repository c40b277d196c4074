//! The `shell` tool with `ToolContext::sandbox` set: real `bwrap`, real processes. Skipped
//! (with a printed reason) where no sandbox works, except under `CI=true`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use tack_engine::tools::{ShellTool, ToolContext, ToolHandler, ToolInput};
use tack_protocol::{SandboxMechanism, SandboxMode, ToolDetails, ToolOutput, ToolStatus};
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

/// A workspace outside /tmp (private inside the sandbox), next to an outside folder.
fn dirs() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let parent = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let ws = parent.path().join("ws");
    let out = parent.path().join("out");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    (parent, ws, out)
}

fn ctx(ws: &Path, mode: SandboxMode) -> ToolContext {
    let mut ctx = ToolContext::new(ws);
    ctx.sandbox = Some(SandboxPolicy::new(mode, ws));
    ctx
}

async fn run(ctx: &ToolContext, args: serde_json::Value) -> ToolOutput {
    match ShellTool::new().prepare(ToolInput::Json(args), ctx) {
        Ok(p) => p.run(ctx.clone()).await,
        Err(out) => out,
    }
}

fn exec_details(out: &ToolOutput) -> (Option<SandboxMode>, Option<String>) {
    match &out.details {
        Some(ToolDetails::Exec {
            sandbox,
            sandbox_denial,
            ..
        }) => (*sandbox, sandbox_denial.clone()),
        other => panic!("not exec details: {other:?}"),
    }
}

#[tokio::test]
async fn a_contained_command_writes_the_workspace_but_not_outside() {
    if !sandbox_works() {
        return;
    }
    let (_parent, ws, out) = dirs();
    let ctx = ctx(&ws, SandboxMode::WorkspaceWrite);
    let ok = run(&ctx, json!({"command": "echo inside > f && cat f"})).await;
    assert_eq!(ok.status, ToolStatus::Completed, "{}", ok.text);
    // A login shell's profile may complain about read-only folders first (pyenv does).
    assert!(ok.text.ends_with("inside\n"), "{}", ok.text);
    assert_eq!(exec_details(&ok), (Some(SandboxMode::WorkspaceWrite), None));

    let target = out.join("escaped");
    let refused = run(
        &ctx,
        json!({"command": format!("echo x > {}", target.display())}),
    )
    .await;
    assert_eq!(refused.status, ToolStatus::Failed);
    assert!(!target.exists());
    let (mode, denial) = exec_details(&refused);
    assert_eq!(mode, Some(SandboxMode::WorkspaceWrite));
    let denial = denial.unwrap();
    assert!(
        denial.starts_with(&format!("write to {} refused", target.display())),
        "{denial}"
    );
    assert!(
        refused
            .text
            .ends_with(&format!("[the sandbox refused this: {denial}]")),
        "{}",
        refused.text
    );
}

#[tokio::test]
async fn read_only_mode_refuses_workspace_writes() {
    if !sandbox_works() {
        return;
    }
    let (_parent, ws, _out) = dirs();
    let ctx = ctx(&ws, SandboxMode::ReadOnly);
    let out = run(&ctx, json!({"command": "ls; echo x > f"})).await;
    assert_eq!(out.status, ToolStatus::Failed, "{}", out.text);
    assert!(!ws.join("f").exists());
    let (mode, denial) = exec_details(&out);
    assert_eq!(mode, Some(SandboxMode::ReadOnly));
    assert!(denial.unwrap().contains("the sandbox is read-only"));
}

#[tokio::test]
async fn the_provider_key_and_tack_are_invisible() {
    if !sandbox_works() {
        return;
    }
    let (_parent, ws, _out) = dirs();
    let ctx = ctx(&ws, SandboxMode::WorkspaceWrite);
    let me = std::process::id();
    // Whatever is in Tack's environment (PATH at least) must not be readable through the
    // parent; the sandbox's own processes are all there is.
    let out = run(
        &ctx,
        json!({"command": format!(
            "echo counts: $(tr '\\0' '\\n' < /proc/$PPID/environ | grep -c CARGO_MANIFEST_DI[R]) \
             $(ps axeww | grep -c CARGO_PKG_NAM[E]) \
             $(env | grep -c -e SSH_AUTH_SOC[K] -e DBUS_SESSIO[N]); \
             kill -0 {me} || echo no-signal"
        )}),
    )
    .await;
    // `cargo` sets CARGO_MANIFEST_DIR and CARGO_PKG_NAME for this test; neither got in.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    assert!(out.text.contains("counts: 0 0 0\n"), "{}", out.text);
    assert!(out.text.contains("no-signal"), "{}", out.text);
}

#[tokio::test]
async fn a_timed_out_contained_command_leaves_nothing_running() {
    if !sandbox_works() {
        return;
    }
    let (_parent, ws, _out) = dirs();
    let ctx = ctx(&ws, SandboxMode::WorkspaceWrite);
    let started = std::time::Instant::now();
    let out = run(
        &ctx,
        json!({
            "command": "setsid sleep 1003.3 >/dev/null 2>&1 & (sleep 1003.4 &) ; while :; do sleep 100.515 & sleep 0.01; done",
            "timeout_ms": 800
        }),
    )
    .await;
    assert_eq!(out.status, ToolStatus::TimedOut, "{}", out.text);
    assert!(started.elapsed() < Duration::from_secs(10));
    for arg in ["1003.3", "1003.4", "100.515"] {
        let mut alive = true;
        for _ in 0..300 {
            alive = running_with_arg(arg);
            if !alive {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(!alive, "sleep {arg} survived the timeout");
    }
}

#[tokio::test]
async fn a_fork_loop_is_bounded_and_stopped_at_the_timeout() {
    if !sandbox_works() {
        return;
    }
    let (_parent, ws, _out) = dirs();
    let ctx = ctx(&ws, SandboxMode::WorkspaceWrite);
    let started = std::time::Instant::now();
    let out = run(
        &ctx,
        json!({"command": "while :; do sleep 100.717 & done", "timeout_ms": 3000}),
    )
    .await;
    assert_eq!(out.status, ToolStatus::TimedOut, "{}", out.text);
    assert!(started.elapsed() < Duration::from_secs(15));
    if tack_sandbox::probe().process_limit != tack_sandbox::ProcessLimit::Unenforced {
        // bash reports the refused fork (and retries until the timeout).
        assert!(
            out.text.contains("Resource temporarily unavailable"),
            "{}",
            out.text
        );
    }
    let mut alive = true;
    for _ in 0..300 {
        alive = running_with_arg("100.717");
        if !alive {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!alive, "the fork loop survived the timeout");
}

#[tokio::test]
async fn an_interrupted_contained_command_leaves_nothing_running() {
    if !sandbox_works() {
        return;
    }
    let (_parent, ws, _out) = dirs();
    let ctx = ctx(&ws, SandboxMode::WorkspaceWrite);
    let cancel = ctx.cancel.clone();
    let task = tokio::spawn({
        let ctx = ctx.clone();
        async move {
            run(
                &ctx,
                json!({"command": "setsid sleep 1004.1 >/dev/null 2>&1 & sleep 1004.2"}),
            )
            .await
        }
    });
    for _ in 0..500 {
        if running_with_arg("1004.1") && running_with_arg("1004.2") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    cancel.cancel();
    let out = task.await.unwrap();
    assert_eq!(out.status, ToolStatus::Aborted);
    for arg in ["1004.1", "1004.2"] {
        let mut alive = true;
        for _ in 0..300 {
            alive = running_with_arg(arg);
            if !alive {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(!alive, "sleep {arg} survived the interrupt");
    }
}

#[tokio::test]
async fn danger_full_access_runs_uncontained() {
    let (_parent, ws, out) = dirs();
    let ctx = ctx(&ws, SandboxMode::DangerFullAccess);
    let target = out.join("allowed");
    let done = run(
        &ctx,
        json!({"command": format!("echo x > {}", target.display())}),
    )
    .await;
    assert_eq!(done.status, ToolStatus::Completed, "{}", done.text);
    assert!(target.exists());
    assert_eq!(exec_details(&done), (None, None));
}

/// Whether a live process runs `sleep <arg>`.
fn running_with_arg(arg: &str) -> bool {
    let wanted = format!("sleep\0{arg}\0");
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        let path = e.path();
        std::fs::read(path.join("cmdline")).is_ok_and(|c| c == wanted.as_bytes())
            && !std::fs::read_to_string(path.join("stat"))
                .unwrap_or_default()
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
    })
}

/// Without a working sandbox a contained call fails closed: it never runs uncontained.
/// (Checked in a copy of this test binary started with `TACK_SANDBOX=none`, since the probe is
/// once per process.)
#[tokio::test]
async fn without_a_sandbox_a_contained_call_does_not_run() {
    if std::env::var_os("TACK_SANDBOX").is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "without_a_sandbox_a_contained_call_does_not_run",
                "--exact",
                "--nocapture",
            ])
            .env("TACK_SANDBOX", "none")
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{text}");
        assert!(text.contains("1 passed"), "{text}");
        return;
    }
    let (_parent, ws, _out) = dirs();
    let ctx = ctx(&ws, SandboxMode::WorkspaceWrite);
    let out = run(&ctx, json!({"command": "echo ran > f"})).await;
    assert_eq!(out.status, ToolStatus::Failed);
    assert!(
        out.text
            .contains("the sandbox is unavailable: no sandbox: TACK_SANDBOX=none"),
        "{}",
        out.text
    );
    assert!(!ws.join("f").exists());
}
