//! Configuration: folders, the provider catalog (built-ins plus the user's own), harness
//! auto-inference, and resolving a provider for a session.
//!
//! Over 1,200 lines because four jobs share this file: the catalog, loading with located
//! errors and warnings, in-place editing (`ConfigDocument`, providers and rules) and
//! resolution. They are to split along those lines with the structure issue (harness
//! inference moves onto the harnesses there); until then they stay together so one change
//! to the file format is one change here.
//!
//! The config file is TOML at `$TACK_CONFIG_DIR/config.toml`, default
//! `~/.config/tack/config.toml` (overridable per command with `--config`):
//!
//! ```toml
//! default_provider = "deepseek"
//! approval = "untrusted"           # untrusted | on-request | never
//! instructions = "Answer in English."
//!
//! [[providers]]
//! id = "work"
//! name = "Work gateway"
//! base_url = "https://llm.example.com/v1"
//! wire = "chat"                    # chat | responses | messages
//! env_key = "WORK_LLM_KEY"
//! model = "qwen3-coder-plus"
//! harness = "auto"                 # or a harness id; "auto" infers from provider and model
//! emulate_identity = false         # opt in to the emulated CLI's identity headers
//!
//! [[rules]]                        # saved approval decisions (see crate::rules)
//! decision = "allow"               # allow | deny
//! command = "npm test"             # a command prefix: words split as a shell would, or
//!                                  # an array of words (["npm", "test"])
//! workspace = "/home/me/app"       # optional; absent = every workspace
//! ```
//!
//! The catalog lives here rather than in the wire crate because it is configuration (names,
//! URLs, env vars, defaults), not protocol: the wire crate only needs a base URL and a wire.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tack_protocol::{ApprovalPolicy, ProviderInfo, SandboxMode, Wire};

/// A provider as configured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderConfig {
    /// Id used on the command line and in session logs.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Base URL (`…/v1` for OpenAI-style hosts; the host root for Anthropic).
    pub base_url: String,
    /// Wire the provider speaks.
    pub wire: Wire,
    /// Environment variable holding the key, if the provider needs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_key: Option<String>,
    /// Default model.
    pub model: String,
    /// Harness id, or `None`/`"auto"` to infer it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<String>,
    /// Send the emulated CLI's identity headers to this provider (off by default).
    #[serde(default, skip_serializing_if = "is_false")]
    pub emulate_identity: bool,
    /// Example exchanges sent before every conversation, for small models that imitate rather
    /// than follow instructions: `builtin:<name>` (see `prompts/examples/`) or a path to a JSON
    /// Lines file of items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub examples: Option<String>,
    /// Only these engine tools are offered to this provider's models (all when absent). Small
    /// models do better, and answer much faster, with a short tool list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Sampling temperature sent to this provider, overriding the harness's (e.g. 0 for
    /// reproducible answers from a local model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Recover tool calls the model writes into its text instead of the API's tool-call
    /// fields (`<function=…>`, `<invoke name=…>`, `<tool_call>{…}</tool_call>` markup; see
    /// `tack_harness::recovery`), for harnesses that read native tool calls. Absent: on for
    /// servers on this machine and the Qwen3-Coder family, where such leaks are common.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recover_text_calls: Option<bool>,
    /// Built into Tack (not from the config file).
    #[serde(skip)]
    pub builtin: bool,
}

impl ProviderConfig {
    /// The facts harnesses see.
    pub fn info(&self) -> ProviderInfo {
        ProviderInfo {
            id: self.id.clone(),
            name: self.name.clone(),
            base_url: self.base_url.clone(),
            wire: self.wire,
        }
    }

    /// The explicit harness choice, if any (`"auto"` and empty mean none).
    pub fn explicit_harness(&self) -> Option<&str> {
        self.harness
            .as_deref()
            .filter(|h| !h.is_empty() && *h != "auto")
    }
}

/// The config file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Provider used when none is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_provider: Option<String>,
    /// Default approval policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalPolicy>,
    /// Default sandbox mode for commands (`read-only`, `workspace-write` — the default —
    /// or `danger-full-access`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxMode>,
    /// Whether sandboxed commands may use the network (default: off). A provider's own
    /// `network` wins for its sessions, a session's choice wins over both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<bool>,
    /// Folders besides the workspace that `workspace-write` commands may change (absolute).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writable_roots: Vec<PathBuf>,
    /// Extra instructions for every session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// User-defined providers (same id as a built-in replaces it).
    #[serde(default)]
    pub providers: Vec<ProviderConfig>,
    /// Saved approval rules (`[[rules]]`), in file order; see [`crate::rules`].
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "rule_entries")]
    pub rules: Vec<tack_protocol::Rule>,
    /// Longest time limit a command may be given, in milliseconds (default 10 minutes): a
    /// model asking for more gets this, with a note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_command_timeout_ms: Option<u64>,
    /// Most output one command may write, in bytes, before it is stopped (default 1 GiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_command_output_bytes: Option<u64>,
}

impl Config {
    /// The command limits in force: the file's, else the defaults.
    pub fn command_limits(&self) -> crate::tools::CommandLimits {
        let defaults = crate::tools::CommandLimits::default();
        crate::tools::CommandLimits {
            max_timeout_ms: self
                .max_command_timeout_ms
                .unwrap_or(defaults.max_timeout_ms),
            max_output_bytes: self
                .max_command_output_bytes
                .unwrap_or(defaults.max_output_bytes),
        }
    }
}

/// Errors loading or saving config.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Read/write failure.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Invalid TOML or unknown fields.
    #[error("{path}: {message}")]
    Parse {
        /// File.
        path: PathBuf,
        /// Parser message (line and column).
        message: String,
        /// 1-based line of the error, when the parser points at one.
        line: Option<usize>,
        /// 1-based column (in characters) of the error, when the parser points at one.
        column: Option<usize>,
    },
    /// No such provider.
    #[error("unknown provider `{0}`; run `tack providers` to list them, or pass a base URL")]
    UnknownProvider(String),
    /// A provider to add has the id of one that exists (built in, or in the config file):
    /// adding never replaces a provider ([`ConfigDocument::add_provider`]).
    #[error("a provider with id `{0}` already exists")]
    ProviderExists(String),
    /// A base URL whose credential was redacted when it was logged (a session started with a
    /// key in its URL); the URL must be given again.
    #[error(
        "the base URL `{0}` held a credential, which Tack does not store; pass the full URL again with --provider"
    )]
    RedactedUrl(String),
    /// A rule to save is not well formed (no words, a relative workspace, …).
    #[error("{0}")]
    InvalidRule(String),
}

impl Config {
    /// Loads the config file; a missing file is an empty config.
    ///
    /// # Errors
    /// [`ConfigError`] for unreadable or invalid files.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        parse_config(path, &read_config_text(path)?)
    }

    /// Writes the config file (creating its folder), atomically via a temporary file.
    ///
    /// # Errors
    /// [`ConfigError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), ConfigError> {
        let text = toml::to_string_pretty(self).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
            line: None,
            column: None,
        })?;
        write_atomically(path, &text)
    }

    /// Built-ins overlaid with the user's providers.
    pub fn providers(&self) -> Vec<ProviderConfig> {
        let mut all = builtin_providers();
        for p in &self.providers {
            match all.iter_mut().find(|b| b.id == p.id) {
                Some(slot) => *slot = p.clone(),
                None => all.push(p.clone()),
            }
        }
        all
    }

    /// Finds a provider by id, or builds an ad-hoc one from a base URL (`http…`), which speaks
    /// `wire` (default chat) and takes its key from `TACK_API_KEY`.
    ///
    /// # Errors
    /// [`ConfigError::UnknownProvider`].
    pub fn provider(
        &self,
        id_or_url: &str,
        wire: Option<Wire>,
    ) -> Result<ProviderConfig, ConfigError> {
        if id_or_url.starts_with("http://") || id_or_url.starts_with("https://") {
            if id_or_url.contains(tack_protocol::REDACTED) {
                return Err(ConfigError::RedactedUrl(id_or_url.to_string()));
            }
            return Ok(ProviderConfig {
                id: "custom".into(),
                // The name is shown and logged; the URL may carry a key.
                name: tack_wire::client::redact_url(id_or_url),
                base_url: id_or_url.trim_end_matches('/').to_string(),
                wire: wire.unwrap_or(Wire::Chat),
                env_key: Some("TACK_API_KEY".into()),
                model: String::new(),
                harness: None,
                emulate_identity: false,
                examples: None,
                tools: None,
                temperature: None,
                recover_text_calls: None,
                builtin: false,
            });
        }
        let mut p = self
            .providers()
            .into_iter()
            .find(|p| p.id == id_or_url)
            .ok_or_else(|| ConfigError::UnknownProvider(id_or_url.to_string()))?;
        if let Some(w) = wire {
            p.wire = w;
        }
        Ok(p)
    }
}

/// Id of the embedded local model server's provider.
pub const LOCAL_PROVIDER_ID: &str = "local";

fn builtin(
    id: &str,
    name: &str,
    base_url: &str,
    wire: Wire,
    env_key: Option<&str>,
    model: &str,
    harness: Option<&str>,
) -> ProviderConfig {
    ProviderConfig {
        id: id.into(),
        name: name.into(),
        base_url: base_url.into(),
        wire,
        env_key: env_key.map(Into::into),
        model: model.into(),
        harness: harness.map(Into::into),
        emulate_identity: false,
        examples: None,
        tools: None,
        temperature: None,
        recover_text_calls: None,
        builtin: true,
    }
}

/// The built-in catalog. Base URLs and env var names are each provider's documented ones.
pub fn builtin_providers() -> Vec<ProviderConfig> {
    use Wire::*;
    let mut local = builtin(
        LOCAL_PROVIDER_ID,
        "Local model (llama.cpp, embedded)",
        "http://127.0.0.1:8082/v1",
        Chat,
        None,
        "smollm2-135m",
        Some("minimal"),
    );
    // The embedded 135M model only calls tools after seeing a few calls (prompts/examples/).
    local.examples = Some("builtin:tool-use".into());
    // …and prefill on a laptop CPU is slow: three tools keep each request small.
    local.tools = Some(vec!["shell".into(), "read_file".into(), "list_dir".into()]);
    // Greedy decoding: the same question gets the same answer (llama.cpp's default is 0.8).
    local.temperature = Some(0.0);
    vec![
        local,
        builtin(
            "openai",
            "OpenAI",
            "https://api.openai.com/v1",
            // OpenAI's own agents use Responses: reasoning items round-trip there.
            Responses,
            Some("OPENAI_API_KEY"),
            "gpt-5",
            None,
        ),
        builtin(
            "anthropic",
            "Anthropic",
            "https://api.anthropic.com",
            Messages,
            Some("ANTHROPIC_API_KEY"),
            "claude-sonnet-4-5",
            None,
        ),
        builtin(
            "deepseek",
            "DeepSeek",
            "https://api.deepseek.com",
            Chat,
            Some("DEEPSEEK_API_KEY"),
            "deepseek-chat",
            None,
        ),
        builtin(
            "moonshot",
            "Moonshot / Kimi",
            "https://api.moonshot.ai/v1",
            Chat,
            Some("MOONSHOT_API_KEY"),
            "kimi-k2-0905-preview",
            None,
        ),
        builtin(
            "dashscope",
            "DashScope / Qwen",
            "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
            Chat,
            Some("DASHSCOPE_API_KEY"),
            "qwen3-coder-plus",
            None,
        ),
        builtin(
            "zai",
            "Z.ai",
            "https://api.z.ai/api/paas/v4",
            Chat,
            Some("ZAI_API_KEY"),
            "glm-4.6",
            None,
        ),
        builtin(
            "openrouter",
            "OpenRouter",
            "https://openrouter.ai/api/v1",
            Chat,
            Some("OPENROUTER_API_KEY"),
            "openai/gpt-4o-mini",
            None,
        ),
        builtin(
            "groq",
            "Groq",
            "https://api.groq.com/openai/v1",
            Chat,
            Some("GROQ_API_KEY"),
            "openai/gpt-oss-120b",
            None,
        ),
        builtin(
            "ollama",
            "Ollama",
            "http://127.0.0.1:11434/v1",
            Chat,
            None,
            "llama3.1",
            None,
        ),
        builtin(
            "lmstudio",
            "LM Studio",
            "http://127.0.0.1:1234/v1",
            Chat,
            None,
            "local-model",
            None,
        ),
        builtin(
            "vllm",
            "vLLM",
            "http://127.0.0.1:8000/v1",
            Chat,
            None,
            "default",
            None,
        ),
    ]
}

/// Infers a harness from the provider and model when the user chose "auto".
///
/// Rules (first match wins; all comparisons lowercase), after the anchor's
/// `default_harness_for_provider_model` (`../shared/spec/harness-spec.md` §1.3):
/// 1. `claude-code` when the wire is `messages`, the model names `claude` or `anthropic/`, or
///    the provider id/name says `anthropic`, or the base URL is `api.anthropic.com`;
/// 2. `kimi-code` for `kimi`/`moonshot` models, provider ids/names, or the Kimi/Moonshot API
///    hosts;
/// 3. `qwen-code` for `qwen` models, models starting with `qwq` or containing `/qwq`,
///    `qwen`/`dashscope` providers, or DashScope's compatible-mode URLs;
/// 4. `claude-code-bare` for DeepSeek models, providers or `api.deepseek.com`;
/// 5. otherwise `None` (the caller uses `native`).
pub fn infer_harness(provider: &ProviderConfig, model: &str) -> Option<&'static str> {
    explain_inference(provider, model).map(|i| i.harness)
}

/// A harness inferred from provider and model, and the rule that chose it (for the UI's
/// "auto (…)" label).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inference {
    /// Harness id.
    pub harness: &'static str,
    /// Why, e.g. "the model name contains `qwen`".
    pub reason: String,
}

/// [`infer_harness`] with the reason. See there for the rules.
pub fn explain_inference(provider: &ProviderConfig, model: &str) -> Option<Inference> {
    let model_l = model.to_ascii_lowercase();
    let id = provider.id.to_ascii_lowercase();
    let name = provider.name.to_ascii_lowercase();
    let url = provider.base_url.to_ascii_lowercase();
    let found = |harness: &'static str, reason: String| Some(Inference { harness, reason });
    let in_model =
        |needles: &[&'static str]| needles.iter().find(|n| model_l.contains(**n)).copied();
    let in_provider = |needles: &[&'static str]| {
        needles
            .iter()
            .find(|n| id.contains(**n) || name.contains(**n))
            .copied()
    };
    let in_url = |needles: &[&'static str]| needles.iter().find(|n| url.contains(**n)).copied();

    if provider.wire == Wire::Messages {
        return found(
            "claude-code",
            "the provider speaks the Anthropic Messages wire".into(),
        );
    }
    if let Some(n) = in_model(&["anthropic/", "claude"]) {
        return found("claude-code", format!("the model name contains `{n}`"));
    }
    if let Some(n) = in_provider(&["anthropic"]) {
        return found("claude-code", format!("the provider is named `{n}`"));
    }
    if let Some(n) = in_url(&["api.anthropic.com"]) {
        return found("claude-code", format!("the base URL is {n}"));
    }
    if let Some(n) = in_model(&["kimi", "moonshot"]) {
        return found("kimi-code", format!("the model name contains `{n}`"));
    }
    if let Some(n) = in_provider(&["kimi", "moonshot"]) {
        return found("kimi-code", format!("the provider is named `{n}`"));
    }
    if let Some(n) = in_url(&["api.kimi.com", "api.moonshot.ai", "api.moonshot.cn"]) {
        return found("kimi-code", format!("the base URL is {n}"));
    }
    if let Some(n) = in_model(&["qwen", "/qwq"]) {
        return found("qwen-code", format!("the model name contains `{n}`"));
    }
    if model_l.starts_with("qwq") {
        return found("qwen-code", "the model name starts with `qwq`".into());
    }
    if let Some(n) = in_provider(&["qwen", "dashscope"]) {
        return found("qwen-code", format!("the provider is named `{n}`"));
    }
    if let Some(n) = in_url(&[
        "dashscope.aliyuncs.com/compatible-mode",
        "dashscope-intl.aliyuncs.com/compatible-mode",
    ]) {
        return found("qwen-code", format!("the base URL is {n}"));
    }
    if let Some(n) = in_model(&["deepseek"]) {
        return found("claude-code-bare", format!("the model name contains `{n}`"));
    }
    if let Some(n) = in_provider(&["deepseek"]) {
        return found("claude-code-bare", format!("the provider is named `{n}`"));
    }
    if let Some(n) = in_url(&["api.deepseek.com"]) {
        return found("claude-code-bare", format!("the base URL is {n}"));
    }
    None
}

/// Folders Tack uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// Config folder (`config.toml`, `prompts/`).
    pub config_dir: PathBuf,
    /// Data folder (`sessions/`).
    pub data_dir: PathBuf,
}

impl Paths {
    /// `$TACK_CONFIG_DIR` or `<os config dir>/tack`; `$TACK_HOME` or `<os data dir>/tack`.
    pub fn from_env() -> Paths {
        let config_dir = std::env::var_os("TACK_CONFIG_DIR")
            .map(PathBuf::from)
            .or_else(|| dirs::config_dir().map(|d| d.join("tack")))
            .unwrap_or_else(|| PathBuf::from(".tack/config"));
        let data_dir = std::env::var_os("TACK_HOME")
            .map(PathBuf::from)
            .or_else(|| dirs::data_dir().map(|d| d.join("tack")))
            .unwrap_or_else(|| PathBuf::from(".tack/data"));
        Paths {
            config_dir,
            data_dir,
        }
    }

    /// `config.toml`.
    pub fn config_file(&self) -> PathBuf {
        self.config_dir.join("config.toml")
    }

    /// Prompt overrides folder.
    pub fn prompts_dir(&self) -> PathBuf {
        self.config_dir.join("prompts")
    }

    /// Session logs folder.
    pub fn sessions_dir(&self) -> PathBuf {
        self.data_dir.join("sessions")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(id: &str, url: &str, wire: Wire) -> ProviderConfig {
        builtin(id, id, url, wire, None, "", None)
    }

    #[test]
    fn inference_follows_the_rule_order() {
        // A Claude model on a Kimi provider picks claude-code (rule 1 before rule 2).
        assert_eq!(
            infer_harness(
                &p("kimi", "https://api.kimi.com/coding/v1", Wire::Chat),
                "claude-sonnet-4"
            ),
            Some("claude-code")
        );
        assert_eq!(
            infer_harness(
                &p(
                    "kimi-for-coding",
                    "https://api.kimi.com/coding/v1",
                    Wire::Chat
                ),
                "k3"
            ),
            Some("kimi-code")
        );
        assert_eq!(
            infer_harness(
                &p("moonshotai", "https://api.moonshot.ai/v1", Wire::Chat),
                "kimi-k3"
            ),
            Some("kimi-code")
        );
        assert_eq!(
            infer_harness(
                &p(
                    "x",
                    "https://dashscope.aliyuncs.com/compatible-mode/v1",
                    Wire::Chat
                ),
                "m"
            ),
            Some("qwen-code")
        );
        assert_eq!(
            infer_harness(&p("x", "http://h", Wire::Chat), "QwQ-32B"),
            Some("qwen-code")
        );
        assert_eq!(
            infer_harness(
                &p("deepseek", "https://api.deepseek.com", Wire::Chat),
                "deepseek-chat"
            ),
            Some("claude-code-bare")
        );
        assert_eq!(
            infer_harness(&p("x", "http://h", Wire::Messages), "m"),
            Some("claude-code")
        );
        assert_eq!(
            infer_harness(
                &p("openai", "https://api.openai.com/v1", Wire::Chat),
                "gpt-5"
            ),
            None
        );
    }

    #[test]
    fn user_providers_override_builtins_and_unknown_fields_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            r#"
default_provider = "deepseek"
[[providers]]
id = "deepseek"
name = "DeepSeek via proxy"
base_url = "http://proxy/v1"
wire = "chat"
model = "deepseek-reasoner"
"#,
        )
        .unwrap();
        let cfg = Config::load(&path).unwrap();
        let ds = cfg.provider("deepseek", None).unwrap();
        assert_eq!(ds.base_url, "http://proxy/v1");
        assert!(cfg.provider("nope", None).is_err());
        let adhoc = cfg
            .provider("http://127.0.0.1:9/v1/", Some(Wire::Chat))
            .unwrap();
        assert_eq!(adhoc.base_url, "http://127.0.0.1:9/v1");
        std::fs::write(&path, "bogus = 1\n").unwrap();
        let err = Config::load(&path).unwrap_err().to_string();
        assert!(err.contains("bogus"), "{err}");
        // Round trip.
        cfg.save(&path).unwrap();
        assert_eq!(Config::load(&path).unwrap(), cfg);
    }
}

/// Built-in example sets (`builtin:<name>`), our own, in `prompts/examples/`.
const BUILTIN_EXAMPLES: &[(&str, &str)] = &[(
    "tool-use",
    include_str!("../../../prompts/examples/tool-use.jsonl"),
)];

/// Loads a provider's example exchanges (see [`ProviderConfig::examples`]).
///
/// # Errors
/// A message naming the unknown built-in set, or the file and line that is not an item.
pub fn load_examples(spec: &str) -> Result<Vec<tack_protocol::Item>, String> {
    let (origin, text) = match spec.strip_prefix("builtin:") {
        Some(name) => {
            let text = BUILTIN_EXAMPLES
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, t)| (*t).to_string())
                .ok_or_else(|| {
                    let known: Vec<&str> = BUILTIN_EXAMPLES.iter().map(|(n, _)| *n).collect();
                    format!(
                        "unknown example set `{name}`; built-in sets: {}",
                        known.join(", ")
                    )
                })?;
            (spec.to_string(), text)
        }
        None => (
            spec.to_string(),
            std::fs::read_to_string(spec).map_err(|e| format!("examples file {spec}: {e}"))?,
        ),
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str::<tack_protocol::Item>(l)
                .map_err(|e| format!("{origin}:{}: not an item: {e}", i + 1))
        })
        .collect()
}

#[cfg(test)]
mod example_tests {
    use super::*;

    #[test]
    fn the_builtin_tool_use_examples_load_and_pair_calls_with_outputs() {
        let items = load_examples("builtin:tool-use").unwrap();
        assert_eq!(items.len(), 12);
        let calls: Vec<&str> = items.iter().filter_map(|i| i.call_id()).collect();
        assert_eq!(calls.len(), 3);
        assert!(
            load_examples("builtin:nope")
                .unwrap_err()
                .contains("tool-use")
        );
        assert!(
            load_examples("/nonexistent/x.jsonl")
                .unwrap_err()
                .contains("/nonexistent/x.jsonl")
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Reading, and editing the file in place (the desktop's Settings).
//
// Settings change one thing at a time. Each change re-reads the file, edits only that entry
// and leaves everything else as the user wrote it: other providers, settings, comments, key
// order and formatting (`toml_edit` keeps them). A file that does not load is never written.

fn is_false(b: &bool) -> bool {
    !*b
}

/// The file's text; a missing file is empty.
fn read_config_text(path: &Path) -> Result<String, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(source) => Err(ConfigError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Parses config text, locating the error (line and column) when there is one. A provider's
/// base URL that is not an `http`/`https` URL is an error here, where the file can point at
/// it, rather than when the first request fails.
fn parse_config(path: &Path, text: &str) -> Result<Config, ConfigError> {
    let config: Config = parse_toml(path, text)?;
    for (i, p) in config.providers.iter().enumerate() {
        if let Err(why) = check_base_url(&p.base_url) {
            let (line, column) = provider_field_span(text, i, "base_url")
                .map(|at| line_and_column(text, at))
                .map_or((None, None), |(l, c)| (Some(l), Some(c)));
            let place = line.map_or_else(String::new, |l| {
                format!("line {l}, column {}: ", column.unwrap_or(1))
            });
            return Err(ConfigError::Parse {
                path: path.to_path_buf(),
                message: format!(
                    "{place}provider `{}`: base_url `{}` {why}",
                    p.id,
                    tack_wire::client::redact_url(&p.base_url)
                ),
                line,
                column,
            });
        }
    }
    Ok(config)
}

/// Why `url` is not a base URL Tack can send requests to (`Err`), if it is not.
fn check_base_url(url: &str) -> Result<(), String> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err("is not a URL (expected `http://host…` or `https://host…`)".into());
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(format!(
            "has the scheme `{scheme}`; only `http` and `https` are supported"
        ));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    let host_only = if host.starts_with('[') {
        host.split(']').next().map(|h| h.trim_start_matches('['))
    } else {
        host.split(':').next()
    };
    if host_only.is_none_or(str::is_empty) {
        return Err("has no host".into());
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("contains spaces or control characters".into());
    }
    if let Some(port) = host.strip_prefix('[').map_or_else(
        || host.split_once(':').map(|(_, p)| p),
        |h| h.split_once("]:").map(|(_, p)| p),
    ) && port.parse::<u16>().is_err()
    {
        return Err(format!("has an invalid port `{port}`"));
    }
    Ok(())
}

/// Byte offset of field `key` of the `index`-th provider (`[[providers]]` or an inline
/// `providers = [ {…} ]`), for an error's line and column.
fn provider_field_span(text: &str, index: usize, key: &str) -> Option<usize> {
    let doc = toml_edit::Document::parse(text).ok()?;
    let providers = doc.get("providers")?;
    let span = if let Some(tables) = providers.as_array_of_tables() {
        tables.get(index)?.get(key)?.span()
    } else {
        providers
            .as_array()?
            .get(index)?
            .as_inline_table()?
            .get(key)?
            .span()
    };
    span.map(|r| r.start)
}

/// Something in the config that loads but is probably not what the user meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// 1-based line it is about, when known.
    pub line: Option<usize>,
    /// What, naming both parties.
    pub message: String,
}

impl std::fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl Config {
    /// [`Config::load`], with the warnings for what loads but may be a mistake: two user
    /// providers with one id (the later one wins), a user provider that replaces a built-in.
    ///
    /// # Errors
    /// As for [`Config::load`].
    pub fn load_with_warnings(path: &Path) -> Result<(Config, Vec<ConfigWarning>), ConfigError> {
        let text = read_config_text(path)?;
        let config = parse_config(path, &text)?;
        let warnings = provider_warnings(&config, &text);
        Ok((config, warnings))
    }
}

/// The warnings of [`Config::load_with_warnings`].
fn provider_warnings(config: &Config, text: &str) -> Vec<ConfigWarning> {
    let builtins = builtin_providers();
    let line_of =
        |i: usize| provider_field_span(text, i, "id").map(|at| line_and_column(text, at).0);
    let mut out = Vec::new();
    for (i, p) in config.providers.iter().enumerate() {
        if let Some(j) = config.providers[..i].iter().position(|q| q.id == p.id) {
            let first = line_of(j).map_or_else(String::new, |l| format!(" (line {l})"));
            out.push(ConfigWarning {
                line: line_of(i),
                message: format!(
                    "provider id `{}` is defined twice: `{}`{first} and `{}`; the later one is used",
                    p.id, config.providers[j].name, p.name
                ),
            });
        } else if let Some(b) = builtins.iter().find(|b| b.id == p.id) {
            out.push(ConfigWarning {
                line: line_of(i),
                message: format!(
                    "provider `{}` (`{}`, {}) replaces the built-in provider `{}` (`{}`, {})",
                    p.id,
                    p.name,
                    tack_wire::client::redact_url(&p.base_url),
                    b.id,
                    b.name,
                    b.base_url
                ),
            });
        }
    }
    out
}

/// TOML to `T`, locating the error (line and column) when there is one.
fn parse_toml<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, ConfigError> {
    toml::from_str(text).map_err(|e| {
        let (line, column) = match e.span() {
            Some(span) => {
                let (line, column) = line_and_column(text, span.start);
                (Some(line), Some(column))
            }
            None => (None, None),
        };
        ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
            line,
            column,
        }
    })
}

/// 1-based line and column (in characters) of byte offset `at` in `text`.
fn line_and_column(text: &str, at: usize) -> (usize, usize) {
    let at = text
        .char_indices()
        .map(|(i, _)| i)
        .take_while(|i| *i <= at)
        .last()
        .unwrap_or(0);
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// Writes `text` to `path` (creating its folder) through a temporary file and a rename, so a
/// reader never sees half a file.
fn write_atomically(path: &Path, text: &str) -> Result<(), ConfigError> {
    let io = |source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// The keys of a `[[providers]]` entry that [`ProviderConfig`] reads. Keys an entry has beyond
/// these are left alone by edits.
const PROVIDER_KEYS: [&str; 11] = [
    "id",
    "name",
    "base_url",
    "wire",
    "env_key",
    "model",
    "harness",
    "emulate_identity",
    "examples",
    "tools",
    "temperature",
];

/// The config file, read for one edit: its settings and its text as a document that keeps
/// comments and formatting. Load it right before the edit (never from a copy read earlier:
/// the user may have edited the file since), change one thing, [`save`](Self::save).
#[derive(Debug, Clone)]
pub struct ConfigDocument {
    path: PathBuf,
    doc: toml_edit::DocumentMut,
    config: Config,
}

impl ConfigDocument {
    /// Reads the file at `path`; a missing file is an empty document.
    ///
    /// # Errors
    /// [`ConfigError::Io`] for an unreadable file, [`ConfigError::Parse`] (with line and column)
    /// for one that does not load as a [`Config`]: such a file must not be overwritten.
    pub fn load(path: &Path) -> Result<ConfigDocument, ConfigError> {
        let text = read_config_text(path)?;
        let config = parse_config(path, &text)?;
        let doc = text
            .parse::<toml_edit::DocumentMut>()
            .map_err(|e| ConfigError::Parse {
                path: path.to_path_buf(),
                message: e.to_string(),
                line: None,
                column: None,
            })?;
        Ok(ConfigDocument {
            path: path.to_path_buf(),
            doc,
            config,
        })
    }

    /// The settings as the document now stands.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The document's text as it would be saved.
    pub fn text(&self) -> String {
        self.doc.to_string()
    }

    /// Whether the file has a `[[providers]]` entry with this id (for a built-in: an
    /// override).
    pub fn has_provider(&self, id: &str) -> bool {
        self.config.providers.iter().any(|p| p.id == id)
    }

    /// Adds a `[[providers]]` entry for a new provider, at the end of the list. Adding never
    /// replaces anything: an id that a built-in or an entry of the file already has is refused
    /// (edit that provider with [`update_provider`](Self::update_provider) instead).
    ///
    /// # Errors
    /// [`ConfigError::ProviderExists`] for a taken id; [`ConfigError::Parse`] when the
    /// `providers` key is not a list of tables, or the edited document would not load.
    pub fn add_provider(&mut self, provider: &ProviderConfig) -> Result<(), ConfigError> {
        let id = provider.id.as_str();
        if self.has_provider(id) || builtin_providers().iter().any(|b| b.id == id) {
            return Err(ConfigError::ProviderExists(provider.id.clone()));
        }
        self.put_provider(provider)
    }

    /// Updates the provider with `provider`'s id: its entry in the file (the last one, which
    /// is the one that counts, if the file repeats an id), or, for a built-in the file doesn't
    /// override yet, a new entry that overrides it. Only keys whose value differs change,
    /// keeping their comments; keys the provider no longer has are removed; keys Tack doesn't
    /// know stay.
    ///
    /// # Errors
    /// [`ConfigError::UnknownProvider`] when neither the file nor the built-ins have the id
    /// (e.g. the entry was removed from the file since it was shown); [`ConfigError::Parse`]
    /// as for [`add_provider`](Self::add_provider).
    pub fn update_provider(&mut self, provider: &ProviderConfig) -> Result<(), ConfigError> {
        let id = provider.id.as_str();
        if !self.has_provider(id) && !builtin_providers().iter().any(|b| b.id == id) {
            return Err(ConfigError::UnknownProvider(provider.id.clone()));
        }
        self.put_provider(provider)
    }

    /// Writes `provider` into the document: updates the (last) entry with its id, or appends
    /// one.
    fn put_provider(&mut self, provider: &ProviderConfig) -> Result<(), ConfigError> {
        let fresh = self.provider_table(provider)?;
        let path = self.path.clone();
        let not_a_list = || ConfigError::Parse {
            path: path.clone(),
            message: "`providers` is not a list of provider tables".into(),
            line: None,
            column: None,
        };
        match self.doc.as_table_mut().get_mut("providers") {
            None => {
                let mut list = toml_edit::ArrayOfTables::new();
                list.push(fresh);
                self.doc
                    .as_table_mut()
                    .insert("providers", toml_edit::Item::ArrayOfTables(list));
            }
            Some(toml_edit::Item::ArrayOfTables(list)) => {
                match list
                    .iter_mut()
                    .filter(|t| entry_id(&**t) == Some(provider.id.as_str()))
                    .last()
                {
                    Some(entry) => update_entry(entry, &fresh),
                    None => list.push(fresh),
                }
            }
            Some(toml_edit::Item::Value(toml_edit::Value::Array(list))) => {
                match list
                    .iter_mut()
                    .filter_map(toml_edit::Value::as_inline_table_mut)
                    .filter(|t| entry_id(&**t) == Some(provider.id.as_str()))
                    .last()
                {
                    Some(entry) => update_entry(entry, &fresh),
                    None => list.push(fresh.into_inline_table()),
                }
            }
            Some(_) => return Err(not_a_list()),
        }
        self.reparse()
    }

    /// Removes every `[[providers]]` entry with this id; `false` when there was none. Removing
    /// a built-in's override brings the built-in back.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] when the edited document would not load.
    pub fn remove_provider(&mut self, id: &str) -> Result<bool, ConfigError> {
        if !self.has_provider(id) {
            return Ok(false);
        }
        match self.doc.as_table_mut().get_mut("providers") {
            Some(toml_edit::Item::ArrayOfTables(list)) => {
                list.retain(|t| entry_id(t) != Some(id));
                if list.is_empty() {
                    self.doc.as_table_mut().remove("providers");
                }
            }
            Some(toml_edit::Item::Value(toml_edit::Value::Array(list))) => {
                list.retain(|v| v.as_inline_table().and_then(|t| entry_id(t)) != Some(id));
            }
            _ => {}
        }
        self.reparse()?;
        Ok(true)
    }

    /// Writes the document back, atomically.
    ///
    /// # Errors
    /// [`ConfigError::Io`].
    pub fn save(&self) -> Result<(), ConfigError> {
        write_atomically(&self.path, &self.doc.to_string())
    }

    /// `provider` as a table, the way `toml` writes it (only the keys it has).
    fn provider_table(&self, provider: &ProviderConfig) -> Result<toml_edit::Table, ConfigError> {
        let bad = |message: String| ConfigError::Parse {
            path: self.path.clone(),
            message,
            line: None,
            column: None,
        };
        let text = toml::to_string(provider).map_err(|e| bad(e.to_string()))?;
        let doc = text
            .parse::<toml_edit::DocumentMut>()
            .map_err(|e| bad(e.to_string()))?;
        let mut table = doc.as_table().clone();
        table.set_implicit(false);
        table.set_position(None);
        // The entry a user would write: one blank line before `[[providers]]`.
        table.decor_mut().set_prefix("\n");
        for (mut key, _) in table.iter_mut() {
            key.leaf_decor_mut().clear();
        }
        Ok(table)
    }

    /// Re-reads the settings from the edited document, so an edit can't leave a file that
    /// doesn't load.
    fn reparse(&mut self) -> Result<(), ConfigError> {
        self.config = parse_config(&self.path, &self.doc.to_string())?;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// `[[rules]]`: saved approval decisions.
//
// In the file, `command` is what a person would type (`"npm test"`, split as a shell would)
// or an array of words; in memory it is always words ([`Rule::command`]). Edits write the
// string form, quoted by `shell-words` so it splits back to the same words.

use tack_protocol::Rule;

impl ConfigDocument {
    /// The rules as the document now stands, in file order (the index [`remove_rule`]
    /// takes).
    ///
    /// [`remove_rule`]: Self::remove_rule
    pub fn rules(&self) -> &[Rule] {
        &self.config.rules
    }

    /// Appends a `[[rules]]` entry; `false` (nothing changed) when the file has this exact
    /// rule already.
    ///
    /// # Errors
    /// [`ConfigError::InvalidRule`] for a rule that is not well formed
    /// ([`crate::rules::check_rule`]); [`ConfigError::Parse`] when the `rules` key is not a
    /// list of tables, or the edited document would not load.
    pub fn add_rule(&mut self, rule: &Rule) -> Result<bool, ConfigError> {
        crate::rules::check_rule(rule).map_err(ConfigError::InvalidRule)?;
        if self.config.rules.contains(rule) {
            return Ok(false);
        }
        let fresh = rule_table(rule);
        match self.doc.as_table_mut().get_mut("rules") {
            None => {
                let mut list = toml_edit::ArrayOfTables::new();
                list.push(fresh);
                self.doc
                    .as_table_mut()
                    .insert("rules", toml_edit::Item::ArrayOfTables(list));
            }
            Some(toml_edit::Item::ArrayOfTables(list)) => list.push(fresh),
            Some(toml_edit::Item::Value(toml_edit::Value::Array(list))) => {
                list.push(fresh.into_inline_table());
            }
            Some(_) => {
                return Err(ConfigError::Parse {
                    path: self.path.clone(),
                    message: "`rules` must be a list of tables ([[rules]])".to_string(),
                    line: None,
                    column: None,
                });
            }
        }
        self.reparse()?;
        Ok(true)
    }

    /// Removes the rule at `index` (in [`rules`](Self::rules) order) and returns it; `None`
    /// when there is no such rule.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] when the edited document would not load.
    pub fn remove_rule(&mut self, index: usize) -> Result<Option<Rule>, ConfigError> {
        let Some(rule) = self.config.rules.get(index).cloned() else {
            return Ok(None);
        };
        // Every element of the list is one rule (a bad one fails the load), so the index in
        // the loaded rules is the index in the document.
        match self.doc.as_table_mut().get_mut("rules") {
            Some(toml_edit::Item::ArrayOfTables(list)) => {
                list.remove(index);
                if list.is_empty() {
                    self.doc.as_table_mut().remove("rules");
                }
            }
            Some(toml_edit::Item::Value(toml_edit::Value::Array(list))) => {
                list.remove(index);
            }
            _ => return Ok(None),
        }
        self.reparse()?;
        Ok(Some(rule))
    }

    /// Removes every entry that is exactly `rule` (written as a string or as words alike);
    /// `false` when there was none.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] when the edited document would not load.
    pub fn remove_rule_exact(&mut self, rule: &Rule) -> Result<bool, ConfigError> {
        let at: Vec<usize> = (0..self.config.rules.len())
            .filter(|&i| self.config.rules[i] == *rule)
            .collect();
        // From the back, so the indexes still to remove stay valid.
        for &i in at.iter().rev() {
            self.remove_rule(i)?;
        }
        Ok(!at.is_empty())
    }
}

/// A rule as the `[[rules]]` entry a person would write.
fn rule_table(rule: &Rule) -> toml_edit::Table {
    let mut table = toml_edit::Table::new();
    table.insert("decision", toml_edit::value(decision_name(rule.decision)));
    table.insert(
        "command",
        toml_edit::value(shell_words::join(&rule.command)),
    );
    if let Some(ws) = &rule.workspace {
        table.insert("workspace", toml_edit::value(ws.as_str()));
    }
    // One blank line before `[[rules]]`, as for providers.
    table.decor_mut().set_prefix("\n");
    table
}

/// `allow` or `deny`, as the file spells it.
fn decision_name(decision: tack_protocol::RuleDecision) -> &'static str {
    match decision {
        tack_protocol::RuleDecision::Allow => "allow",
        tack_protocol::RuleDecision::Deny => "deny",
    }
}

/// (De)serializing `rules`: entries with `command` as a string or as words.
mod rule_entries {
    use std::fmt;

    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use serde::{Deserialize, Serialize, Serializer};
    use tack_protocol::{Rule, RuleDecision};

    /// One entry as read.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Entry {
        decision: RuleDecision,
        #[serde(deserialize_with = "command_words")]
        command: Vec<String>,
        #[serde(default, deserialize_with = "workspace")]
        workspace: Option<String>,
    }

    /// One entry as written: the command as one string.
    #[derive(Serialize)]
    struct Written<'a> {
        decision: RuleDecision,
        command: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        workspace: Option<&'a str>,
    }

    pub(super) fn serialize<S: Serializer>(rules: &[Rule], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(rules.iter().map(|r| Written {
            decision: r.decision,
            command: shell_words::join(&r.command),
            workspace: r.workspace.as_deref(),
        }))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Rule>, D::Error> {
        Ok(Vec::<Entry>::deserialize(d)?
            .into_iter()
            .map(|e| Rule {
                decision: e.decision,
                command: e.command,
                workspace: e.workspace,
            })
            .collect())
    }

    /// `"npm test"` (split as a shell would) or `["npm", "test"]`; never empty, since an
    /// empty prefix would match every command.
    fn command_words<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        struct Words;
        impl<'de> Visitor<'de> for Words {
            type Value = Vec<String>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a command as a string (\"npm test\") or an array of words")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<String>, E> {
                shell_words::split(v).map_err(|e| {
                    E::custom(format!(
                        "the rule's command `{v}` does not split into words: {e}"
                    ))
                })
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
                let mut words = Vec::new();
                while let Some(w) = seq.next_element::<String>()? {
                    words.push(w);
                }
                Ok(words)
            }
        }
        let words = d.deserialize_any(Words)?;
        if words.is_empty() {
            return Err(de::Error::custom(
                "a rule's command needs at least one word (an empty one would match every command)",
            ));
        }
        if words.iter().any(String::is_empty) {
            return Err(de::Error::custom("a rule's command has an empty word"));
        }
        Ok(words)
    }

    /// An absolute folder: a relative one would mean a different folder in every session.
    fn workspace<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        let ws = String::deserialize(d)?;
        if !std::path::Path::new(&ws).is_absolute() {
            return Err(de::Error::custom(format!(
                "a rule's workspace must be an absolute path, not `{ws}`"
            )));
        }
        Ok(Some(ws))
    }
}

/// The `id` of a provider entry.
fn entry_id(entry: &dyn toml_edit::TableLike) -> Option<&str> {
    entry.get("id").and_then(toml_edit::Item::as_str)
}

/// Brings `entry` to `fresh`'s values, touching only keys that changed.
fn update_entry(entry: &mut dyn toml_edit::TableLike, fresh: &toml_edit::Table) {
    for (key, item) in fresh.iter() {
        let Some(value) = item.as_value() else {
            continue;
        };
        match entry.get_mut(key) {
            Some(old) => {
                if old.as_value().is_some_and(|o| same_value(o, value)) {
                    continue;
                }
                let mut value = value.clone();
                if let Some(o) = old.as_value() {
                    // Keep what surrounds the value: spacing and a trailing comment.
                    *value.decor_mut() = o.decor().clone();
                }
                *old = toml_edit::Item::Value(value);
            }
            None => {
                entry.insert(key, toml_edit::Item::Value(value.clone()));
            }
        }
    }
    for key in PROVIDER_KEYS {
        if !fresh.contains_key(key) {
            entry.remove(key);
        }
    }
}

/// Whether two TOML values are equal, whatever their spelling (`'a'` and `"a"`, `1.0` and
/// `1.00`).
fn same_value(a: &toml_edit::Value, b: &toml_edit::Value) -> bool {
    use toml_edit::Value as V;
    match (a, b) {
        (V::String(a), V::String(b)) => a.value() == b.value(),
        (V::Integer(a), V::Integer(b)) => a.value() == b.value(),
        (V::Float(a), V::Float(b)) => a.value() == b.value(),
        (V::Boolean(a), V::Boolean(b)) => a.value() == b.value(),
        (V::Array(a), V::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b.iter()).all(|(a, b)| same_value(a, b))
        }
        _ => a.to_string().trim() == b.to_string().trim(),
    }
}

#[cfg(test)]
mod edit_tests {
    use super::*;

    const USER_FILE: &str = r#"# My Tack settings.
default_provider = "work"
approval = "untrusted"   # ask first

[[providers]]
# The office gateway.
id = "work"
name = "Work gateway"
base_url = "https://llm.example.com/v1"
wire = "chat"            # chat | responses | messages
env_key = "WORK_LLM_KEY"
model = "qwen3-coder-plus"

[[providers]]
id = "lab"
name = "Lab box"
base_url = "http://10.0.0.2:8000/v1"
wire = "chat"
model = "m"
"#;

    fn file(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    fn work() -> ProviderConfig {
        let cfg: Config = toml::from_str(USER_FILE).unwrap();
        cfg.providers[0].clone()
    }

    #[test]
    fn updating_one_provider_keeps_everything_else_as_written() {
        let (_dir, path) = file(USER_FILE);
        let mut doc = ConfigDocument::load(&path).unwrap();
        let mut p = work();
        p.model = "qwen3-coder-next".into();
        p.wire = Wire::Chat;
        doc.update_provider(&p).unwrap();
        doc.save().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            USER_FILE.replace("\"qwen3-coder-plus\"", "\"qwen3-coder-next\"")
        );
        // A value that changed keeps its trailing comment.
        p.wire = Wire::Responses;
        let mut doc = ConfigDocument::load(&path).unwrap();
        doc.update_provider(&p).unwrap();
        assert!(
            doc.text()
                .contains("wire = \"responses\"            # chat | responses | messages\n"),
            "{}",
            doc.text()
        );
        // A field the provider no longer has goes; the others stay.
        p.env_key = None;
        doc.update_provider(&p).unwrap();
        assert!(!doc.text().contains("WORK_LLM_KEY"));
        assert!(doc.text().contains("# The office gateway."));
        assert_eq!(doc.config().providers.len(), 2);
        assert_eq!(doc.config().approval, Some(ApprovalPolicy::Untrusted));
    }

    #[test]
    fn a_new_provider_is_appended_and_a_missing_file_is_created() {
        let (_dir, path) = file(USER_FILE);
        let mut doc = ConfigDocument::load(&path).unwrap();
        let mut p = work();
        p.id = "third".into();
        p.tools = Some(vec!["shell".into()]);
        p.temperature = Some(0.0);
        doc.add_provider(&p).unwrap();
        doc.save().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(USER_FILE), "{text}");
        assert!(
            text.ends_with("\n\n[[providers]]\nid = \"third\"\nname = \"Work gateway\"\nbase_url = \"https://llm.example.com/v1\"\nwire = \"chat\"\nenv_key = \"WORK_LLM_KEY\"\nmodel = \"qwen3-coder-plus\"\ntools = [\"shell\"]\ntemperature = 0.0\n"),
            "{text}"
        );
        let loaded = Config::load(&path).unwrap();
        assert_eq!(loaded.providers.len(), 3);
        assert_eq!(loaded.providers[2], p);

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("config.toml");
        let mut doc = ConfigDocument::load(&path).unwrap();
        assert!(!doc.remove_provider("work").unwrap());
        doc.add_provider(&p).unwrap();
        doc.save().unwrap();
        assert_eq!(Config::load(&path).unwrap().providers, vec![p]);
    }

    #[test]
    fn removing_a_provider_leaves_the_others_and_the_comments() {
        let (_dir, path) = file(USER_FILE);
        let mut doc = ConfigDocument::load(&path).unwrap();
        assert!(doc.remove_provider("lab").unwrap());
        assert!(!doc.remove_provider("lab").unwrap());
        let text = doc.text();
        assert!(!text.contains("Lab box"));
        assert!(text.contains("approval = \"untrusted\"   # ask first"));
        assert!(text.contains("# The office gateway."));
        assert_eq!(doc.config().providers.len(), 1);
        assert!(doc.remove_provider("work").unwrap());
        assert!(!doc.text().contains("[[providers]]"), "{}", doc.text());
        assert!(doc.text().starts_with("# My Tack settings."));
    }

    #[test]
    fn adding_refuses_an_id_that_exists_and_updating_one_that_does_not() {
        let (_dir, path) = file(USER_FILE);
        let mut doc = ConfigDocument::load(&path).unwrap();
        // An entry written by hand: adding under its id leaves it as it is.
        let mut dup = work();
        dup.name = "Replacement".into();
        dup.model = "other".into();
        let err = doc.add_provider(&dup).unwrap_err();
        assert!(
            matches!(&err, ConfigError::ProviderExists(id) if id == "work"),
            "{err}"
        );
        assert_eq!(err.to_string(), "a provider with id `work` already exists");
        assert_eq!(doc.text(), USER_FILE);
        // A built-in's id is taken too, even without an entry in the file.
        let mut deepseek = work();
        deepseek.id = "deepseek".into();
        assert!(matches!(
            doc.add_provider(&deepseek).unwrap_err(),
            ConfigError::ProviderExists(_)
        ));
        assert_eq!(doc.text(), USER_FILE);
        // Updating is what changes an existing provider…
        doc.update_provider(&dup).unwrap();
        assert_eq!(doc.config().providers[0].name, "Replacement");
        assert_eq!(doc.config().providers.len(), 2);
        // …and it does not add one that isn't there (any more).
        let mut gone = work();
        gone.id = "gone".into();
        assert!(matches!(
            doc.update_provider(&gone).unwrap_err(),
            ConfigError::UnknownProvider(id) if id == "gone"
        ));
        assert_eq!(doc.config().providers.len(), 2);
    }

    #[test]
    fn an_override_of_a_built_in_replaces_it_and_removing_it_restores_the_built_in() {
        let (_dir, path) = file("approval = \"never\"\n");
        let builtin = builtin_providers()
            .into_iter()
            .find(|p| p.id == "deepseek")
            .unwrap();
        let mut changed = builtin.clone();
        changed.model = "deepseek-reasoner".into();
        let mut doc = ConfigDocument::load(&path).unwrap();
        doc.update_provider(&changed).unwrap();
        assert!(doc.has_provider("deepseek"));
        let merged = doc.config().provider("deepseek", None).unwrap();
        assert_eq!(merged.model, "deepseek-reasoner");
        assert_eq!(merged.base_url, builtin.base_url);
        assert!(doc.remove_provider("deepseek").unwrap());
        let restored = doc.config().provider("deepseek", None).unwrap();
        assert_eq!(restored, builtin);
        assert_eq!(doc.text(), "approval = \"never\"\n");
    }

    #[test]
    fn inline_provider_lists_are_edited_too() {
        let (_dir, path) = file(
            "providers = [ { id = \"a\", name = \"A\", base_url = \"http://a/v1\", wire = \"chat\", model = \"m\" } ]\n",
        );
        let mut doc = ConfigDocument::load(&path).unwrap();
        let mut a = doc.config().providers[0].clone();
        a.model = "n".into();
        doc.update_provider(&a).unwrap();
        let mut b = a.clone();
        b.id = "b".into();
        doc.add_provider(&b).unwrap();
        assert_eq!(doc.config().providers, vec![a, b]);
        assert!(doc.remove_provider("a").unwrap());
        assert_eq!(doc.config().providers.len(), 1);
    }

    #[test]
    fn a_file_that_does_not_load_is_an_error_with_its_line_and_column() {
        let (_dir, path) = file("approval = \"never\"\ndefault_provider = \"local\n");
        let err = ConfigDocument::load(&path).unwrap_err();
        match &err {
            ConfigError::Parse {
                line,
                column,
                path: p,
                ..
            } => {
                assert_eq!((*line, *column), (Some(2), Some(26)));
                assert_eq!(p, &path);
            }
            other => panic!("{other}"),
        }
        assert!(err.to_string().contains("line 2, column 26"), "{err}");
        let err = Config::load(&path).unwrap_err();
        assert!(matches!(err, ConfigError::Parse { line: Some(2), .. }));
        // Unknown settings are located too.
        std::fs::write(&path, "approval = \"never\"\nbogus = 1\n").unwrap();
        assert!(matches!(
            ConfigDocument::load(&path).unwrap_err(),
            ConfigError::Parse {
                line: Some(2),
                column: Some(1),
                ..
            }
        ));
    }

    #[test]
    fn provider_keys_name_every_field_of_a_provider() {
        let mut p = work();
        p.harness = Some("minimal".into());
        p.emulate_identity = true;
        p.examples = Some("builtin:tool-use".into());
        p.tools = Some(vec![]);
        p.temperature = Some(0.5);
        let table: toml::Table = toml::from_str(&toml::to_string(&p).unwrap()).unwrap();
        let mut keys: Vec<&str> = table.keys().map(String::as_str).collect();
        let mut known = PROVIDER_KEYS.to_vec();
        keys.sort_unstable();
        known.sort_unstable();
        assert_eq!(keys, known);
    }

    #[test]
    fn line_and_column_count_characters() {
        assert_eq!(line_and_column("ab\ncdé\nx", 8), (3, 1));
        assert_eq!(line_and_column("é = 1", 3), (1, 3));
        assert_eq!(line_and_column("", 0), (1, 1));
    }
}
