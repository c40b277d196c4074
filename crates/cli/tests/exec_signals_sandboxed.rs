//! Stopping `tack exec` while a *contained* command runs: nothing the command started survives,
//! not even what it moved to a session of its own (`setsid`) — after SIGINT, and after SIGKILL
//! too (Tack cannot clean up then; `bwrap` dies with it and the kernel empties the sandbox's
//! PID namespace). Skipped where no sandbox works, except under `CI=true`.
#![cfg(target_os = "linux")]
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use support::{Env, tool_call};
use tack_protocol::SandboxMechanism;
use tack_tests::{ReplayProvider, ScriptedResponse};

/// How long any awaited condition may take before the test fails (a bound, not a measurement).
const PATIENCE: Duration = Duration::from_secs(60);

fn sandbox_works() -> bool {
    let status = tack_engine::resolve::sandbox_status(Default::default(), false);
    if status.mechanism == SandboxMechanism::None {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI must have a working sandbox: {}",
            status.summary
        );
        println!("skipped: {}", status.summary);
        return false;
    }
    true
}

fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a live (not zombie) process runs `sleep <arg>`.
fn sleeping(arg: &str) -> bool {
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

/// `tack exec --approval never` (commands run in the default workspace-write sandbox) on a
/// command that starts a `setsid` sleeper and sleeps itself; returns once both sleep.
fn start(env: &Env, tag: &str) -> Child {
    let child = env
        .tack()
        .args([
            "exec",
            "--approval",
            "never",
            "--sandbox",
            "workspace-write",
            "--cwd",
        ])
        .arg(&env.workspace)
        .arg("sleep a while")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_until("both sleeps to run", || {
        sleeping(&format!("1006.{tag}1")) && sleeping(&format!("1006.{tag}2"))
    });
    child
}

fn sleeper(tag: &str) -> ScriptedResponse {
    ScriptedResponse::sse(tool_call(
        "call_sleep",
        "shell",
        &json!({"command": format!(
            "setsid sleep 1006.{tag}1 >/dev/null 2>&1 < /dev/null & sleep 1006.{tag}2; echo slept"
        )}),
    ))
}

fn signal(pid: u32, name: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

fn nothing_survives(signal_name: &str, tag: &str) {
    let provider = ReplayProvider::start([sleeper(tag)]);
    let env = Env::new(&provider.url("/v1"));
    let mut child = start(&env, tag);
    signal(child.id(), signal_name);
    child.wait().unwrap();
    for arg in [format!("1006.{tag}1"), format!("1006.{tag}2")] {
        wait_until(&format!("`sleep {arg}` to die with the sandbox"), || {
            !sleeping(&arg)
        });
    }
}

#[test]
fn after_sigint_nothing_the_contained_command_started_survives() {
    if sandbox_works() {
        nothing_survives("INT", "3");
    }
}

#[test]
fn after_sigkill_nothing_the_contained_command_started_survives() {
    if sandbox_works() {
        nothing_survives("KILL", "4");
    }
}
