//! The real local model server (llama.cpp with SmolLM2-135M-Instruct, see
//! `scripts/local-llm.sh`) and the few-shot seed that makes it call the `shell` tool.
//!
//! Tests that talk to it are opt-in, because the first run installs ~130 MB into the cache:
//! they run when `TACK_LOCAL_LLM=1` (as `scripts/test.sh` sets) and otherwise print
//! `skipped: TACK_LOCAL_LLM not set` and pass. Use
//! [`local_llm_or_skip!`](crate::local_llm_or_skip).

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

use crate::workspace_dir;

/// The model name the local server answers to (set by `scripts/serve_llama.py`).
pub const LOCAL_LLM_MODEL: &str = "smollm2-135m";

/// A running local model server.
#[derive(Clone, Debug)]
pub struct LocalLlm {
    base_url: String,
}

impl LocalLlm {
    /// The server if local-model tests are enabled, else `None` after printing
    /// `skipped: TACK_LOCAL_LLM not set`.
    ///
    /// Enabled means `TACK_LOCAL_LLM=1`. Then `TACK_LOCAL_LLM_URL`, if set, names a server
    /// that is already running; otherwise `scripts/local-llm.sh ensure` installs and starts
    /// one (once per test process; the script serialises concurrent callers with a lock, so
    /// parallel test processes share one server). The server is left running for later tests;
    /// `scripts/test.sh` stops it at the end.
    ///
    /// # Panics
    /// When enabled but the server cannot be started: the script's own error is in the
    /// message.
    pub fn from_env() -> Option<LocalLlm> {
        if std::env::var("TACK_LOCAL_LLM").as_deref() != Ok("1") {
            println!("skipped: TACK_LOCAL_LLM not set");
            return None;
        }
        static STARTED: OnceLock<Result<String, String>> = OnceLock::new();
        match STARTED.get_or_init(find_or_start) {
            Ok(base_url) => Some(LocalLlm {
                base_url: base_url.clone(),
            }),
            Err(message) => panic!("{message}"),
        }
    }

    /// E.g. `http://127.0.0.1:8082`, no trailing slash. The wires live under `/v1`
    /// (`/v1/chat/completions`, `/v1/responses`, `/v1/messages`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The value for the request's `model` field.
    pub fn model(&self) -> &'static str {
        LOCAL_LLM_MODEL
    }
}

fn find_or_start() -> Result<String, String> {
    if let Ok(url) = std::env::var("TACK_LOCAL_LLM_URL")
        && !url.is_empty()
    {
        return Ok(url.trim_end_matches('/').to_string());
    }
    let script = workspace_dir().join("scripts").join("local-llm.sh");
    let output = Command::new("bash")
        .arg(&script)
        .arg("ensure")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!(
            "{} ensure failed ({}):\n{stderr}",
            script.display(),
            output.status
        ));
    }
    let url = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if !url.starts_with("http://") {
        return Err(format!(
            "{} ensure printed no base URL (stdout {url:?}):\n{stderr}",
            script.display()
        ));
    }
    Ok(url)
}

/// Evaluates to a [`LocalLlm`], or prints `skipped: TACK_LOCAL_LLM not set` and returns from
/// the enclosing test (which must return `()`).
#[macro_export]
macro_rules! local_llm_or_skip {
    () => {
        match $crate::LocalLlm::from_env() {
            Some(llm) => llm,
            None => return,
        }
    };
}

/// Path of the few-shot seed: `tests/fixtures/local-llm/seed-history.json`.
pub fn seed_path() -> PathBuf {
    workspace_dir()
        .join("tests")
        .join("fixtures")
        .join("local-llm")
        .join("seed-history.json")
}

/// The few-shot seed, in a wire-neutral form, with which SmolLM2-135M calls `shell` with
/// `{"command": "ls"}` (findings in `scripts/local-llm/README.md`).
#[derive(Clone, Debug, Deserialize)]
pub struct Seed {
    /// System prompt the seed was verified with. The model also made the expected call with
    /// other short system prompts; see the README.
    pub system: String,
    /// Tools advertised while verifying: `shell`, `read_file`, `list_dir`.
    pub tools: Vec<SeedTool>,
    /// The three past exchanges: user ask, assistant `shell` call, tool output, assistant
    /// `Done: …` text.
    pub messages: Vec<SeedMessage>,
    /// The user message to append after `messages`.
    pub question: String,
    /// The call the model makes in reply.
    pub expect: SeedCall,
}

/// A tool advertised with the seed.
#[derive(Clone, Debug, Deserialize)]
pub struct SeedTool {
    /// Tool name.
    pub name: String,
    /// Description shown to the model.
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
}

/// One message of the seed history.
#[derive(Clone, Debug, Deserialize)]
pub struct SeedMessage {
    /// `user`, `assistant` or `tool`.
    pub role: String,
    /// Text; `None` for an assistant message that only calls tools.
    pub content: Option<String>,
    /// Tool calls of an assistant message.
    #[serde(default)]
    pub tool_calls: Vec<SeedToolCall>,
    /// For `tool` messages: the id of the call this is the output of.
    pub tool_call_id: Option<String>,
}

/// A tool call inside the seed history.
#[derive(Clone, Debug, Deserialize)]
pub struct SeedToolCall {
    /// Call id, matched by the tool message's `tool_call_id`.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments as JSON text, the way a model emits them.
    pub arguments: String,
}

/// The expected reply.
#[derive(Clone, Debug, Deserialize)]
pub struct SeedCall {
    /// Tool name.
    pub name: String,
    /// Parsed arguments.
    pub arguments: Value,
}

/// Reads and parses [`seed_path`].
///
/// # Panics
/// If the file is missing or malformed (it is part of this repository).
pub fn seed() -> Seed {
    let path = seed_path();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("malformed {}: {e}", path.display()))
}
