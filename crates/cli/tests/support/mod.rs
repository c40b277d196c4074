//! Running the real `tack` binary against a real HTTP provider on loopback, in throwaway
//! folders: its own config, data folder and workspace per test.

// Each test binary uses part of this module; a failed unwrap is a failed test.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// A canary key: it must never appear in anything Tack writes.
pub const CANARY: &str = "sk-canary-7f3a9c2e51d04b8e";

/// One test's folders and provider configuration.
pub struct Env {
    pub root: tempfile::TempDir,
    pub workspace: PathBuf,
    pub home: PathBuf,
    pub config: PathBuf,
}

impl Env {
    /// Folders plus a `config.toml` whose `test` provider (chat wire, key from
    /// `TACK_TEST_KEY`) points at `base_url`, default for every session.
    pub fn new(base_url: &str) -> Env {
        let root = tempfile::tempdir().unwrap();
        let workspace = root.path().join("workspace");
        let home = root.path().join("data");
        let config = root.path().join("config");
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(
            config.join("config.toml"),
            format!(
                r#"default_provider = "test"

[[providers]]
id = "test"
name = "Replay"
base_url = "{base_url}"
wire = "chat"
env_key = "TACK_TEST_KEY"
model = "test-model"
harness = "minimal"
"#
            ),
        )
        .unwrap();
        let workspace = std::fs::canonicalize(&workspace).unwrap();
        Env {
            root,
            workspace,
            home,
            config,
        }
    }

    /// `tack` with this env's folders and the canary key.
    pub fn tack(&self) -> Command {
        self.command(env!("CARGO_BIN_EXE_tack"))
    }

    /// `program` (`tack`, or a wrapper that runs it) with the environment of [`Env::tack`].
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("TACK_HOME", &self.home)
            .env("TACK_CONFIG_DIR", &self.config)
            .env("TACK_TEST_KEY", CANARY)
            .env_remove("TACK_LOG")
            .stdin(Stdio::null());
        cmd
    }

    /// Runs `tack exec` with `args` then the task, in the workspace, and collects its output.
    pub fn exec(&self, args: &[&str], task: &str) -> Run {
        let mut cmd = self.tack();
        cmd.arg("exec")
            .arg("--cwd")
            .arg(&self.workspace)
            .args(args)
            .arg(task);
        Run::from(cmd.output().unwrap())
    }

    /// Every file Tack wrote under its data folder, concatenated (session logs, exchange
    /// records, diagnostics).
    pub fn everything_written(&self) -> String {
        let mut out = String::new();
        for entry in walk(&self.home) {
            out.push_str(&String::from_utf8_lossy(&std::fs::read(&entry).unwrap()));
        }
        out
    }

    /// The single session log written so far.
    pub fn session_log(&self) -> PathBuf {
        let dir = self.home.join("sessions");
        let logs: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let n = p.file_name().unwrap().to_string_lossy().to_string();
                n.ends_with(".jsonl") && !n.ends_with(".exchanges.jsonl")
            })
            .collect();
        assert_eq!(logs.len(), 1, "{logs:?}");
        logs[0].clone()
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// A finished `tack` process.
pub struct Run {
    pub status: i32,
    pub events: Vec<Value>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        let events = stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .collect();
        Run {
            status: o.status.code().unwrap_or(-1),
            events,
            stdout,
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

impl Run {
    /// Events of one `type`.
    pub fn of(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["type"] == kind).collect()
    }

    /// Completed items of one item `type`.
    pub fn items(&self, kind: &str) -> Vec<&Value> {
        self.of("item_completed")
            .into_iter()
            .map(|e| &e["item"])
            .filter(|i| i["type"] == kind)
            .collect()
    }

    /// The last event.
    pub fn last(&self) -> &Value {
        self.events
            .last()
            .unwrap_or_else(|| panic!("no events; stderr: {}", self.stderr))
    }
}

/// Chat chunks of one tool call, arguments split in two fragments like real providers do.
pub fn tool_call(id: &str, name: &str, args: &Value) -> Vec<u8> {
    let text = args.to_string();
    let (a, b) = text.split_at(text.len() / 2);
    tack_tests::chat_sse(&[
        json!({"id": format!("chatcmpl-{id}"), "model": "test-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}}]}),
        json!({"id": format!("chatcmpl-{id}"), "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": a}}]}}]}),
        json!({"id": format!("chatcmpl-{id}"), "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": b}}]}}]}),
        json!({"id": format!("chatcmpl-{id}"), "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"id": format!("chatcmpl-{id}"), "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}),
    ])
}

/// Chat chunks of a plain text answer, in three pieces.
pub fn answer(id: &str, text: &str) -> Vec<u8> {
    let words: Vec<&str> = text.splitn(3, ' ').collect();
    let mut chunks = vec![
        json!({"id": format!("chatcmpl-{id}"), "model": "test-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
    ];
    for (i, w) in words.iter().enumerate() {
        let piece = if i + 1 < words.len() {
            format!("{w} ")
        } else {
            (*w).to_string()
        };
        chunks.push(json!({"id": format!("chatcmpl-{id}"), "choices": [{"index": 0, "delta": {"content": piece}}]}));
    }
    chunks.push(json!({"id": format!("chatcmpl-{id}"), "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    tack_tests::chat_sse(&chunks)
}

/// The tool messages of a recorded Chat request body, by `tool_call_id`.
pub fn tool_messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            let content = match &m["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (
                m["tool_call_id"].as_str().unwrap_or_default().to_string(),
                content,
            )
        })
        .collect()
}
