//! `tack exec` asking for approval on a real terminal (a pseudo-terminal that is the process's
//! controlling terminal, so Ctrl-C is a SIGINT from the terminal driver, as for a user): an
//! answer is taken, Ctrl-C aborts the turn like `q`, and end of input (Ctrl-D) aborts it too
//! instead of counting as a denial.
#![cfg(target_os = "linux")]
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::pty::OpenptFlags;
use serde_json::json;
use support::{Env, Run, answer, tool_call};
use tack_tests::{ReplayProvider, ScriptedResponse};

const PATIENCE: Duration = Duration::from_secs(60);
const PROMPT: &str = "[q] abort turn > ";

/// `tack exec` (default policy: `mkdir` asks) running on a pseudo-terminal: its stdin and
/// stderr are the terminal, its stdout (the events) a file.
struct OnTerminal {
    master: File,
    screen: Arc<Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
    child: std::process::Child,
}

impl OnTerminal {
    fn start(env: &Env, task: &str) -> OnTerminal {
        let master = rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
        rustix::pty::grantpt(&master).unwrap();
        rustix::pty::unlockpt(&master).unwrap();
        let name = rustix::pty::ptsname(&master, Vec::new()).unwrap();
        let slave_path = PathBuf::from(std::ffi::OsStr::from_bytes(name.as_bytes()));
        let slave = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(rustix::fs::OFlags::NOCTTY.bits() as i32)
            .open(&slave_path)
            .unwrap();
        // `setsid --ctty`: a new session whose controlling terminal is stdin, the terminal;
        // `setsid` execs tack in place, so the child is tack itself.
        let mut cmd = env.command("setsid");
        cmd.arg("--ctty")
            .arg(env!("CARGO_BIN_EXE_tack"))
            .args(["exec", "--cwd"])
            .arg(&env.workspace)
            .arg(task)
            .stdin(slave.try_clone().unwrap())
            .stderr(slave)
            .stdout(File::create(env.root.path().join("stdout")).unwrap());
        let child = cmd.spawn().unwrap();
        // Only tack holds the terminal now, so the reader sees its end when tack exits.
        drop(cmd);
        let master = File::from(master);
        let screen = Arc::new(Mutex::new(Vec::new()));
        let reader = {
            let mut master = master.try_clone().unwrap();
            let screen = screen.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                // EIO once the last holder of the terminal's other side is gone.
                while let Ok(n) = master.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    screen.lock().unwrap().extend_from_slice(&buf[..n]);
                }
            })
        };
        OnTerminal {
            master,
            screen,
            reader,
            child,
        }
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).into_owned()
    }

    fn wait_for_prompt(&self) {
        let deadline = Instant::now() + PATIENCE;
        while !self.screen().contains(PROMPT) {
            assert!(
                Instant::now() < deadline,
                "no approval prompt; the terminal shows:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Types `keys` on the terminal.
    fn type_keys(&mut self, keys: &[u8]) {
        self.master.write_all(keys).unwrap();
        self.master.flush().unwrap();
    }

    /// Waits for tack to exit; returns the run (stderr: what the terminal showed).
    fn finish(mut self, env: &Env) -> Run {
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("tack did not exit; the terminal shows:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        self.reader.join().unwrap();
        let screen = String::from_utf8_lossy(&self.screen.lock().unwrap()).into_owned();
        let stdout = std::fs::read_to_string(env.root.path().join("stdout")).unwrap();
        Run {
            status: status.code().unwrap_or(-1),
            events: stdout
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect(),
            stdout,
            stderr: screen,
        }
    }
}

fn mkdir_build() -> ScriptedResponse {
    ScriptedResponse::sse(tool_call(
        "call_mkdir",
        "shell",
        &json!({"command": "mkdir build"}),
    ))
}

#[test]
fn an_answer_typed_at_the_prompt_is_taken() {
    let provider = ReplayProvider::start([
        mkdir_build(),
        ScriptedResponse::sse(answer("done", "Made the build directory.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let mut term = OnTerminal::start(&env, "Make a directory named build.");
    term.wait_for_prompt();
    term.type_keys(b"y\n");
    let run = term.finish(&env);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(env.workspace.join("build").is_dir());
    assert_eq!(run.last()["type"], "turn_completed");
}

#[test]
fn ctrl_c_at_the_prompt_aborts_the_turn() {
    let provider = ReplayProvider::start([mkdir_build()]);
    let env = Env::new(&provider.url("/v1"));
    let mut term = OnTerminal::start(&env, "Make a directory named build.");
    term.wait_for_prompt();
    term.type_keys(b"\x03");
    let run = term.finish(&env);
    assert_eq!(run.status, 130, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("SIGINT at the approval prompt; aborting the turn"),
        "{}",
        run.stderr
    );
    assert_eq!(run.last()["type"], "turn_aborted", "{}", run.stdout);
    assert_eq!(run.last()["reason"], "approval_aborted");
    assert!(!env.workspace.join("build").exists());
    assert_eq!(provider.requests().len(), 1);
}

#[test]
fn end_of_input_at_the_prompt_aborts_the_turn_without_asking_for_a_reason() {
    let provider = ReplayProvider::start([mkdir_build()]);
    let env = Env::new(&provider.url("/v1"));
    let mut term = OnTerminal::start(&env, "Make a directory named build.");
    term.wait_for_prompt();
    term.type_keys(b"\x04");
    let run = term.finish(&env);
    assert_eq!(run.status, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("end of input at the approval prompt; aborting the turn"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("reason (optional)"), "{}", run.stderr);
    assert_eq!(run.last()["type"], "turn_aborted", "{}", run.stdout);
    assert_eq!(run.last()["reason"], "approval_aborted");
    assert!(!env.workspace.join("build").exists());
    assert_eq!(provider.requests().len(), 1);
}

#[test]
fn an_unclear_answer_asks_again_and_decides_nothing() {
    let provider = ReplayProvider::start([
        mkdir_build(),
        ScriptedResponse::sse(answer("done", "Fine, no build directory.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let mut term = OnTerminal::start(&env, "Make a directory named build.");
    term.wait_for_prompt();
    // A typo is neither a yes nor a no: the prompt asks again; then a clear "no".
    term.type_keys(b"Yes!\n");
    term.type_keys(b"no\n");
    term.type_keys(b"not now\n");
    let run = term.finish(&env);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("answer y, a, n or q"), "{}", run.stderr);
    assert!(!env.workspace.join("build").exists());
    let second = provider.requests()[1].body_json().unwrap();
    let results = support::tool_messages(&second);
    assert!(results[0].1.contains("not now"), "{results:?}");
}
