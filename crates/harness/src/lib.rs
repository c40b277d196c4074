//! Tack's harnesses.
//!
//! A harness makes each model request look like the request of a known coding CLI, and
//! translates the model's reply back into engine events. It has two halves:
//! - **shaping** ([`Harness::shape`]): history + tools + instructions → a wire-neutral
//!   [`ShapedRequest`] (system prompt swap, history flattening, tool encoding), plus the
//!   [`ToolKinds`] map the decoder needs, extra requests (e.g. a title request) and a
//!   postprocess;
//! - **back-translation** ([`Postprocess`]): a stream decorator `events → events` applied after
//!   the wire decoder (text → synthetic tool calls, format corrections, confirmations).
//!
//! It also binds the tool calls the model makes under the CLI's names (`Bash`, `Read`, …) to
//! the engine's tools ([`Harness::bind_call`]).
//!
//! Adding a harness is one module in `harnesses/`, one line in [`Registry::builtin`] and one
//! folder in `prompts/`.

mod harnesses;
pub mod history;
pub mod prompts;
pub mod recovery;
mod registry;
pub mod rules;

pub use registry::{HarnessInfo, Registry, Route, RouteError};

use serde_json::Value;
use tack_protocol::{Item, Prompt, StreamEvent, ToolInput, ToolOutput, Wire};
use tack_wire::{ShapedRequest, ToolKinds};

use crate::prompts::PromptStore;

/// A coding-CLI dialect.
pub trait Harness: Send + Sync {
    /// Registry id, e.g. `minimal`, `qwen-code`.
    fn id(&self) -> &'static str;
    /// One line for menus.
    fn description(&self) -> &'static str;
    /// Wires this harness can shape for. Any other wire is a routing error; a harness is never
    /// silently downgraded to another dialect.
    fn wires(&self) -> &'static [Wire];
    /// Shapes one sampling request.
    ///
    /// # Errors
    /// [`ShapeError`] when the history cannot be expressed (e.g. a prompt template fails to
    /// render).
    fn shape(&self, prompt: &Prompt, wire: Wire, env: &ShapeEnv<'_>) -> Result<Shaped, ShapeError>;

    /// Binds a tool call the model made to an engine tool.
    ///
    /// The default binds by name: function calls keep their name and parsed arguments, custom
    /// calls become freeform input, local shell calls become `shell`.
    ///
    /// # Errors
    /// A model-readable tool output (status `failed`) when the call cannot be bound, e.g. its
    /// arguments are not valid JSON.
    #[allow(
        clippy::result_large_err,
        reason = "a model-readable ToolOutput is the designed error"
    )]
    fn bind_call(&self, call: &Item) -> Result<BoundCall, ToolOutput> {
        bind_by_name(call)
    }

    /// Adapts an engine tool's output to what this CLI's tool would have returned (e.g. a
    /// fixed text for an empty result).
    fn adapt_output(&self, _call: &Item, output: ToolOutput) -> ToolOutput {
        output
    }

    /// Whether this call's output ends the turn, the agent's own completion signal (e.g.
    /// mini-swe-agent's completion marker printed by a command). Checked after the output is
    /// recorded; the rest of the response's calls are then closed as aborted.
    fn ends_turn(&self, _call: &Item, _output: &ToolOutput) -> bool {
        false
    }
}

/// What shaping needs besides the prompt.
pub struct ShapeEnv<'a> {
    /// Prompt templates (built-in, or the user's overrides).
    pub prompts: &'a PromptStore,
    /// The user opted into this CLI's identity headers for the target provider. Off by
    /// default: Tack sends its own user-agent.
    pub emulate_identity: bool,
}

/// The result of shaping.
pub struct Shaped {
    /// The main request.
    pub request: ShapedRequest,
    /// How calls to each advertised tool come back.
    pub tool_kinds: ToolKinds,
    /// Requests to send before the main one (their replies are read and discarded).
    pub extra_requests: Vec<ExtraRequest>,
    /// Stream decorator applied after decoding.
    pub postprocess: Option<Box<dyn Postprocess>>,
    /// Where the system prompt came from (`builtin:minimal/system.md`, a file path, …), for
    /// the inspector.
    pub prompt_source: String,
}

/// An additional request a CLI sends (e.g. opencode's title request).
pub struct ExtraRequest {
    /// What it is for, e.g. `title`.
    pub purpose: String,
    /// The request.
    pub request: ShapedRequest,
}

/// A stream decorator: sees every decoded event of one response, may rewrite, drop or add
/// events. Errors never reach it (the engine handles them).
pub trait Postprocess: Send {
    /// Handles one event, pushing zero or more events to `out`.
    fn event(&mut self, event: StreamEvent, out: &mut Vec<StreamEvent>);
    /// Called after the last event; may flush buffered events.
    fn finish(&mut self, _out: &mut Vec<StreamEvent>) {}
}

/// A tool call bound to an engine tool.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundCall {
    /// Engine tool name (`shell`, `read_file`, …).
    pub tool: String,
    /// Input in the engine tool's own schema.
    pub input: ToolInput,
}

/// Why shaping failed.
#[derive(Debug, thiserror::Error)]
pub enum ShapeError {
    /// A prompt template failed to render.
    #[error("prompt template `{name}` failed to render: {message}")]
    Template {
        /// Template name.
        name: String,
        /// Renderer's message.
        message: String,
    },
    /// The history contains something this harness cannot express.
    #[error("{0}")]
    Unsupported(String),
}

/// Default binding: see [`Harness::bind_call`].
///
/// # Errors
/// A failed tool output naming the JSON error when function arguments don't parse, or when the
/// item is not a tool call.
#[allow(
    clippy::result_large_err,
    reason = "a model-readable ToolOutput is the designed error"
)]
pub fn bind_by_name(call: &Item) -> Result<BoundCall, ToolOutput> {
    match call {
        Item::FunctionCall(c) => Ok(BoundCall {
            tool: c.name.clone(),
            input: ToolInput::Json(parse_arguments(&c.name, &c.arguments)?),
        }),
        Item::CustomToolCall(c) => Ok(BoundCall {
            tool: c.name.clone(),
            input: ToolInput::Freeform(c.input.clone()),
        }),
        Item::LocalShellCall(c) => {
            let command = shell_command_text(&c.command);
            let mut args = serde_json::Map::new();
            args.insert("command".into(), Value::String(command));
            if let Some(dir) = &c.workdir {
                args.insert("workdir".into(), Value::String(dir.clone()));
            }
            if let Some(ms) = c.timeout_ms {
                args.insert("timeout_ms".into(), Value::from(ms));
            }
            Ok(BoundCall {
                tool: "shell".into(),
                input: ToolInput::Json(Value::Object(args)),
            })
        }
        _ => Err(ToolOutput::error("internal error: not a tool call")),
    }
}

/// Parses a function call's arguments text. An empty text counts as `{}` (some providers send
/// nothing for argument-less tools).
///
/// # Errors
/// A failed tool output quoting the parse error, so the model can fix its next call.
#[allow(
    clippy::result_large_err,
    reason = "a model-readable ToolOutput is the designed error"
)]
pub fn parse_arguments(tool: &str, arguments: &str) -> Result<Value, ToolOutput> {
    if arguments.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(other) => Err(ToolOutput::error(format!(
            "The arguments for `{tool}` must be a JSON object, got {}. Call the tool again with an object matching its schema.",
            json_type_name(&other)
        ))),
        Err(e) => Err(ToolOutput::error(format!(
            "The arguments for `{tool}` are not valid JSON ({e}). Call the tool again with a valid JSON object matching its schema."
        ))),
    }
}

fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The command line of a local shell call: `["bash", "-lc", cmd]` gives `cmd`; any other argv
/// is joined with shell quoting.
pub fn shell_command_text(argv: &[String]) -> String {
    match argv {
        [shell, flag, cmd] if is_shell(shell) && (flag == "-lc" || flag == "-c") => cmd.clone(),
        _ => argv
            .iter()
            .map(|a| shell_quote(a))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

fn is_shell(s: &str) -> bool {
    matches!(
        s.rsplit('/').next().unwrap_or(s),
        "bash" | "sh" | "zsh" | "dash"
    )
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::{FunctionCallItem, LocalShellCallItem, ToolStatus};

    #[test]
    fn invalid_arguments_become_a_model_readable_error() {
        let call = Item::FunctionCall(FunctionCallItem {
            id: "i".into(),
            call_id: "c".into(),
            name: "shell".into(),
            namespace: None,
            arguments: "{\"command\": ".into(),
        });
        let err = bind_by_name(&call).unwrap_err();
        assert_eq!(err.status, ToolStatus::Failed);
        assert!(err.text.contains("not valid JSON"), "{}", err.text);
        assert!(err.text.contains("`shell`"));
    }

    #[test]
    fn empty_arguments_are_an_empty_object() {
        assert_eq!(parse_arguments("t", " ").unwrap(), serde_json::json!({}));
        assert!(parse_arguments("t", "[1]").is_err());
    }

    #[test]
    fn local_shell_binds_to_shell() {
        let call = Item::LocalShellCall(LocalShellCallItem {
            id: "i".into(),
            call_id: "c".into(),
            command: vec!["bash".into(), "-lc".into(), "ls -la".into()],
            workdir: Some("/tmp".into()),
            timeout_ms: Some(3000),
        });
        let bound = bind_by_name(&call).unwrap();
        assert_eq!(bound.tool, "shell");
        assert_eq!(
            bound.input,
            ToolInput::Json(
                serde_json::json!({"command": "ls -la", "workdir": "/tmp", "timeout_ms": 3000})
            )
        );
        assert_eq!(
            shell_command_text(&["git".into(), "commit".into(), "-m".into(), "a b".into()]),
            "git commit -m 'a b'"
        );
    }
}
