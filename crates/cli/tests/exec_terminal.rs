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
        Self::start_with(env, &[], task)
    }

    /// [`OnTerminal::start`] with more `tack exec` arguments.
    fn start_with(env: &Env, args: &[&str], task: &str) -> OnTerminal {
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
            .args(args)
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
        self.wait_for_text(PROMPT);
    }

    fn wait_for_text(&self, text: &str) {
        let deadline = Instant::now() + PATIENCE;
        while !self.screen().contains(text) {
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

/// A command the classifier lets run under `on-request` (a workspace script) but that writes
/// outside the workspace: the sandbox refuses the write, and Tack asks to run it again
/// outside, saying what was refused.
fn escalation_provider() -> ReplayProvider {
    ReplayProvider::start([
        ScriptedResponse::sse(tool_call(
            "call_py",
            "shell",
            &json!({"command": "python3 write_outside.py"}),
        )),
        ScriptedResponse::sse(answer("done", "Done.")),
    ])
}

/// A file outside the workspace and outside `/tmp` (the sandbox's `/tmp` is private, so a
/// write there succeeds and vanishes instead of being refused), removed when the test ends.
struct Outside(PathBuf);

impl Drop for Outside {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl std::ops::Deref for Outside {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

fn write_outside_script(env: &Env) -> Outside {
    let name = env.root.path().file_name().unwrap().to_string_lossy().to_string();
    let outside = Outside(PathBuf::from(format!("/var/tmp/tack-escalation-{name}.txt")));
    std::fs::write(
        env.workspace.join("write_outside.py"),
        format!(
            "open({:?}, 'w').write('escaped')\n",
            outside.display().to_string()
        ),
    )
    .unwrap();
    outside
}

#[test]
fn a_sandbox_refusal_asks_to_run_again_outside_and_approval_runs_it() {
    if !bwrap_works() {
        return;
    }
    let provider = escalation_provider();
    let env = Env::new(&provider.url("/v1"));
    let outside = write_outside_script(&env);
    let mut term = OnTerminal::start_with(&env, &["--approval", "on-request"], "write the file");
    term.wait_for_prompt();
    let screen = term.screen();
    assert!(screen.contains("the sandbox refused"), "{screen}");
    assert!(screen.contains("WITHOUT a sandbox"), "{screen}");
    assert!(
        !screen.contains("[a] approve for this session"),
        "an escalation is not approved for the session: {screen}"
    );
    assert!(!outside.exists(), "the sandboxed run wrote nothing outside");
    term.type_keys(b"y\n");
    let run = term.finish(&env);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&*outside).unwrap(), "escaped");
    let requests = run.of("approval_requested");
    assert_eq!(requests.len(), 1, "asked once, after the refusal");
    assert!(requests[0]["request"]["escalation"].is_string());
    assert!(requests[0]["request"]["sandbox"].is_null());
    let out = &run.items("tool_output")[0]["output"];
    assert!(
        out["details"]["sandbox"].is_null(),
        "the second run was outside: {out}"
    );
}

#[test]
fn a_sandbox_refusal_denied_keeps_the_failure_and_its_reason() {
    if !bwrap_works() {
        return;
    }
    let provider = escalation_provider();
    let env = Env::new(&provider.url("/v1"));
    let outside = write_outside_script(&env);
    let mut term = OnTerminal::start_with(&env, &["--approval", "on-request"], "write the file");
    term.wait_for_prompt();
    term.type_keys(b"n\n");
    term.wait_for_text("reason (optional) > ");
    term.type_keys(b"\n");
    let run = term.finish(&env);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(!outside.exists());
    let out = &run.items("tool_output")[0]["output"];
    assert_eq!(out["details"]["sandbox"], "workspace-write", "{out}");
    assert!(out["details"]["sandbox_denial"].is_string(), "{out}");
    assert!(
        out["text"].as_str().unwrap().contains("sandbox"),
        "the model reads why it failed: {out}"
    );
}

/// Whether bubblewrap works here; CI has it, so there its absence fails instead of skipping.
fn bwrap_works() -> bool {
    let ok = std::process::Command::new("bwrap")
        .args([
            "--ro-bind",
            "/",
            "/",
            "--unshare-user",
            "--unshare-pid",
            "true",
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "bubblewrap does not work here, and CI must have it"
        );
        eprintln!("skipped: bubblewrap does not work on this machine");
    }
    ok
}
