//! Stopping `tack exec` with a signal while a command runs: SIGINT, SIGTERM and SIGHUP stop the
//! command's whole process group, save the aborted output and exit with 128 + the signal; after
//! SIGKILL (which Tack cannot handle) the shell dies with it, and resuming the session says
//! the command may have kept running.
//!
//! These tests watch the command's process group from outside, by host pid, so they run it
//! uncontained (`--sandbox danger-full-access`); the same stops inside the sandbox, where a
//! PID namespace ends everything, are in `exec_signals_sandboxed.rs`.
#![cfg(target_os = "linux")]
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use support::{Env, Run, tool_call};
use tack_engine::log::{LoadedSession, LogRecord};
use tack_protocol::{Item, ToolStatus};
use tack_tests::{ReplayProvider, ScriptedResponse};

/// How long any awaited condition may take before the test fails (a bound, not a measurement).
const PATIENCE: Duration = Duration::from_secs(60);

/// Waits until `ready` holds.
fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One live process, from `/proc/<pid>/stat`.
#[derive(Debug)]
struct Proc {
    pid: i32,
    comm: String,
    state: char,
    pgrp: i32,
}

fn proc_stat(pid: i32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp …`; comm may contain spaces and parentheses.
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let rest: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    Some(Proc {
        pid,
        comm: stat[open + 1..close].to_string(),
        state: rest.first()?.chars().next()?,
        pgrp: rest.get(2)?.parse().ok()?,
    })
}

/// The processes of group `pgid` that are still running (zombies have finished; whether
/// they were reaped yet depends on who adopted them).
fn running_in_group(pgid: i32) -> Vec<Proc> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(proc_stat)
        .filter(|p| p.pgrp == pgid && p.state != 'Z' && p.state != 'X')
        .collect()
}

/// Kills what is left of the command's group when a test ends, failed or not.
struct GroupCleanup(Option<i32>);

impl Drop for GroupCleanup {
    fn drop(&mut self) {
        if let Some(pgid) = self.0 {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{pgid}")])
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// The command the model runs: it records its shell's pid (its process group's id, since the
/// shell leads the group) and sleeps in a child, so the shell is not what sleeps.
fn sleeper(seconds: u32) -> ScriptedResponse {
    ScriptedResponse::sse(tool_call(
        "call_sleep",
        "shell",
        &json!({"command": format!("echo $$ > tool.pid; sleep {seconds}; echo slept")}),
    ))
}

/// Starts `tack exec --approval never` on the sleeper and returns once the `sleep` runs, with
/// the command's process group id.
fn start_sleeping(env: &Env, cleanup: &mut GroupCleanup) -> (Child, i32) {
    let child = env
        .tack()
        .args([
            "exec",
            "--approval",
            "never",
            "--sandbox",
            "danger-full-access",
            "--cwd",
        ])
        .arg(&env.workspace)
        .arg("sleep a while")
        .stdout(Stdio::from(
            std::fs::File::create(env.root.path().join("stdout")).unwrap(),
        ))
        .stderr(Stdio::from(
            std::fs::File::create(env.root.path().join("stderr")).unwrap(),
        ))
        .spawn()
        .unwrap();
    let pid_file = env.workspace.join("tool.pid");
    let mut pgid = 0;
    wait_until("the command to start", || {
        pgid = std::fs::read_to_string(&pid_file)
            .ok()
            .filter(|t| t.ends_with('\n'))
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        pgid > 0
    });
    cleanup.0 = Some(pgid);
    wait_until("`sleep` to run in the command's group", || {
        running_in_group(pgid).iter().any(|p| p.comm == "sleep")
    });
    (child, pgid)
}

fn signal(pid: u32, name: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// Waits for `child` to exit, killing it if it does not.
fn exit_code(child: &mut Child) -> Option<i32> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("tack did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn finished_run(env: &Env, status: i32) -> Run {
    let read = |name: &str| std::fs::read_to_string(env.root.path().join(name)).unwrap();
    let stdout = read("stdout");
    Run {
        status,
        events: stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        stdout,
        stderr: read("stderr"),
    }
}

/// The output the session log holds for the sleeper's call.
fn sleeper_output(log: &Path) -> tack_protocol::ToolOutput {
    LoadedSession::read(log)
        .unwrap()
        .items
        .into_iter()
        .find_map(|i| match i {
            Item::ToolOutput(o) if o.call_id == "call_sleep" => Some(o.output),
            _ => None,
        })
        .expect("an output for call_sleep")
}

/// `name` interrupts the turn like Ctrl-C: the group is gone, the aborted output and the
/// interrupted turn are in the session log, and the exit code is `code`.
fn a_signal_mid_command_stops_its_group(name: &str, code: i32) {
    let provider = ReplayProvider::start([sleeper(30)]);
    let env = Env::new(&provider.url("/v1"));
    let mut cleanup = GroupCleanup(None);
    let (mut child, pgid) = start_sleeping(&env, &mut cleanup);

    signal(child.id(), name);
    let status = exit_code(&mut child).expect("tack exited by itself, not by the signal");
    let run = finished_run(&env, status);
    assert_eq!(
        run.status, code,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(
        running_in_group(pgid).is_empty(),
        "the command's group outlived tack: {:?}",
        running_in_group(pgid)
    );
    assert_eq!(run.last()["type"], "turn_aborted", "{}", run.stdout);
    assert_eq!(run.last()["reason"], "interrupted");

    let output = sleeper_output(&env.session_log());
    assert_eq!(output.status, ToolStatus::Aborted, "{output:?}");
    assert!(
        output.text.ends_with("[aborted by user]"),
        "{}",
        output.text
    );
    assert!(!output.text.contains("slept"), "{}", output.text);
    let loaded = LoadedSession::read(&env.session_log()).unwrap();
    assert_eq!(
        loaded.unfinished_turn, None,
        "the turn is closed in the log"
    );
    assert!(
        loaded
            .records
            .iter()
            .any(|r| matches!(r, LogRecord::TurnEnded { status, .. } if status == "interrupted"))
    );
    // Nothing more was asked of the model after the interrupt.
    assert_eq!(provider.requests().len(), 1);
}

#[test]
fn sigterm_mid_command_stops_its_group_and_exits_143() {
    a_signal_mid_command_stops_its_group("TERM", 143);
}

#[test]
fn sighup_mid_command_stops_its_group_and_exits_129() {
    a_signal_mid_command_stops_its_group("HUP", 129);
}

#[test]
fn sigint_mid_command_stops_its_group_and_exits_130() {
    a_signal_mid_command_stops_its_group("INT", 130);
}

#[test]
fn after_sigkill_the_shell_dies_too_and_resuming_says_the_command_may_have_kept_running() {
    // Long enough that a shell still alive at the end of the wait below is the bug, not the
    // sleep finishing.
    let provider = ReplayProvider::start([sleeper(300)]);
    let env = Env::new(&provider.url("/v1"));
    let mut cleanup = GroupCleanup(None);
    let (mut child, pgid) = start_sleeping(&env, &mut cleanup);

    signal(child.id(), "KILL");
    child.wait().unwrap();
    // The shell (the group's leader) got the parent-death signal. Its `sleep` did not: the
    // kernel gives that setting to the direct child only.
    wait_until("the shell to die with tack", || {
        proc_stat(pgid).is_none_or(|p| p.state == 'Z' || p.state == 'X')
    });
    assert!(
        running_in_group(pgid).iter().all(|p| p.pid != pgid),
        "the shell outlived tack"
    );

    // Resuming without a task only repairs the log: the call gets an honest output.
    let id = LoadedSession::read(&env.session_log()).unwrap().session_id;
    let run = Run::from(env.tack().args(["exec", "--resume", &id]).output().unwrap());
    assert_eq!(
        run.status, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    let output = sleeper_output(&env.session_log());
    assert_eq!(output.status, ToolStatus::Aborted);
    assert!(
        output
            .text
            .contains("while this call was pending or running")
            && output.text.contains("may have kept running")
            && output.text.contains("partial"),
        "{}",
        output.text
    );
}
