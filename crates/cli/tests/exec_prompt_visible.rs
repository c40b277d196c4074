//! The terminal approval prompt of `tack exec` shows a command exactly as written: escape
//! sequences, carriage returns, bidi overrides and zero-width characters in it are shown as
//! tokens, never sent to the terminal, so a command can't redraw the prompt to look harmless.
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
use support::{Env, answer, tool_call};
use tack_tests::{ReplayProvider, ScriptedResponse};

const PATIENCE: Duration = Duration::from_secs(60);
const PROMPT: &str = "[q] abort turn > ";

/// A command that, printed raw, erases its own line and the risk line above it, then draws
/// a harmless `$ ls` and a low risk in their place.
const SPOOF: &str = "rm -rf ~/projects #\u{1b}[2K\u{1b}[1A\u{1b}[2K\r── approval needed (Low risk): reads a file\n\u{1b}[2K\r   $ ls\u{9b}2K\u{202e}txt.\u{200b}";

#[test]
fn a_command_with_escape_sequences_cannot_redraw_the_prompt() {
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(tool_call("call_spoof", "shell", &json!({"command": SPOOF}))),
        ScriptedResponse::sse(answer("done", "Understood, not deleting.")),
    ]);
    let env = Env::new(&provider.url("/v1"));
    let master = rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
    rustix::pty::grantpt(&master).unwrap();
    rustix::pty::unlockpt(&master).unwrap();
    let name = rustix::pty::ptsname(&master, Vec::new()).unwrap();
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(rustix::fs::OFlags::NOCTTY.bits() as i32)
        .open(PathBuf::from(std::ffi::OsStr::from_bytes(name.as_bytes())))
        .unwrap();
    // `setsid --ctty` execs tack in place with the terminal as its controlling terminal.
    let mut cmd = env.command("setsid");
    cmd.arg("--ctty")
        .arg(env!("CARGO_BIN_EXE_tack"))
        .args(["exec", "--cwd"])
        .arg(&env.workspace)
        .arg("Tidy up my home folder.")
        .stdin(slave.try_clone().unwrap())
        .stderr(slave)
        .stdout(File::create(env.root.path().join("stdout")).unwrap());
    let mut child = cmd.spawn().unwrap();
    drop(cmd);
    let mut master = File::from(master);
    let screen = Arc::new(Mutex::new(Vec::<u8>::new()));
    let reader = {
        let mut master = master.try_clone().unwrap();
        let screen = screen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = master.read(&mut buf) {
                if n == 0 {
                    break;
                }
                screen.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        })
    };
    let text = || String::from_utf8_lossy(&screen.lock().unwrap()).into_owned();
    let deadline = Instant::now() + PATIENCE;
    while !text().contains(PROMPT) {
        assert!(Instant::now() < deadline, "no prompt; screen:\n{}", text());
        std::thread::sleep(Duration::from_millis(20));
    }
    let prompt = screen.lock().unwrap().clone();
    // Deny, with no reason.
    master.write_all(b"n\n\n").unwrap();
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("tack did not exit; screen:\n{}", text());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    reader.join().unwrap();

    let shown = String::from_utf8_lossy(&prompt).into_owned();
    // Not one control byte of the command reached the terminal: no ESC, no CR (the terminal
    // driver turns each `\n` into `\r\n`, so a CR not followed by `\n` is the command's), no
    // C1 CSI, no bidi override, no zero-width space.
    assert!(!prompt.contains(&0x1b), "ESC on the terminal:\n{shown:?}");
    assert!(
        !prompt.windows(2).any(|w| w[0] == b'\r' && w[1] != b'\n'),
        "{shown:?}"
    );
    for hidden in ['\u{9b}', '\u{202e}', '\u{200b}'] {
        assert!(!shown.contains(hidden), "{hidden:?} in {shown:?}");
    }
    // The whole command is there, its controls spelled out, and the real risk above it.
    assert!(shown.contains("(High risk)"), "{shown}");
    assert!(
        shown.contains(
            "$ rm -rf ~/projects #⟨\\e⟩[2K⟨\\e⟩[1A⟨\\e⟩[2K⟨\\r⟩── approval needed (Low risk): reads a file⟨\\n⟩"
        ),
        "{shown}"
    );
    // The command's second line stays indented inside the approval block.
    assert!(
        shown.contains("\n     ⟨\\e⟩[2K⟨\\r⟩   $ ls⟨U+009B⟩2K⟨U+202E⟩txt.⟨U+200B⟩"),
        "{shown}"
    );
    assert_eq!(status.code(), Some(0), "{}", text());
    // Denied: nothing ran and the model was told.
    let second = provider.requests()[1].body_json().unwrap();
    let results = support::tool_messages(&second);
    assert_eq!(results.len(), 1, "{results:?}");
}
