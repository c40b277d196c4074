use serde::{Deserialize, Serialize};

use crate::{SandboxMode, Wire};

/// One entry of session history.
///
/// History is wire-neutral: harnesses shape it into a request for any wire, and decoders turn
/// any wire's stream back into items. The variants mirror the item kinds the OpenAI Responses
/// API uses (`message`, `reasoning`, `function_call`, `custom_tool_call`, `local_shell_call`,
/// `*_output`) because that is the richest of the three wires; the other two are projections.
///
/// Serialized with an internal `type` tag, e.g. `{"type":"message","id":"…","role":"user",…}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Item {
    /// A user, assistant, developer or system message.
    Message(MessageItem),
    /// Model reasoning (chain of thought or its summary), possibly opaque.
    Reasoning(ReasoningItem),
    /// A call of a JSON-schema function tool.
    FunctionCall(FunctionCallItem),
    /// A call of a freeform ("custom") tool whose input is raw text, e.g. `apply_patch`.
    CustomToolCall(CustomToolCallItem),
    /// A shell command the harness parsed out of plain text (text-protocol harnesses).
    LocalShellCall(LocalShellCallItem),
    /// The result of any of the three call kinds, matched by `call_id`.
    ToolOutput(ToolOutputItem),
}

impl Item {
    /// The stable id of this item inside its session.
    pub fn id(&self) -> &str {
        match self {
            Item::Message(m) => &m.id,
            Item::Reasoning(r) => &r.id,
            Item::FunctionCall(c) => &c.id,
            Item::CustomToolCall(c) => &c.id,
            Item::LocalShellCall(c) => &c.id,
            Item::ToolOutput(o) => &o.id,
        }
    }

    /// The `call_id` if this item is a tool call (any kind).
    pub fn call_id(&self) -> Option<&str> {
        match self {
            Item::FunctionCall(c) => Some(&c.call_id),
            Item::CustomToolCall(c) => Some(&c.call_id),
            Item::LocalShellCall(c) => Some(&c.call_id),
            _ => None,
        }
    }

    /// Whether this item asks the engine to run a tool.
    pub fn is_tool_call(&self) -> bool {
        self.call_id().is_some()
    }

    /// Builds a text message with a fresh-looking id given by the caller.
    pub fn text(id: impl Into<String>, role: Role, text: impl Into<String>) -> Item {
        Item::Message(MessageItem {
            id: id.into(),
            role,
            content: vec![ContentPart::Text { text: text.into() }],
            injected_by: None,
        })
    }
}

/// Who wrote a message.
///
/// `developer` is the OpenAI term for instructions from the application (Anthropic has no such
/// role; harnesses fold it into `system` or `user`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The person at the keyboard (or text the engine injects on their behalf).
    User,
    /// The model.
    Assistant,
    /// Instructions from the application.
    Developer,
    /// System instructions.
    System,
}

/// A message in history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MessageItem {
    /// Item id (provider's `msg_…` when known, else assigned by the engine).
    pub id: String,
    /// Author.
    pub role: Role,
    /// Ordered content parts.
    pub content: Vec<ContentPart>,
    /// Set when Tack wrote this message on the user's behalf rather than a person or the
    /// model: the harness or engine rule that produced it, e.g. `format_correction`,
    /// `submit_confirmation`. Shown as a labelled item in the UI; sent to the model like any
    /// user message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injected_by: Option<String>,
}

impl MessageItem {
    /// All text parts joined without separator.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for part in &self.content {
            if let ContentPart::Text { text } = part {
                out.push_str(text);
            }
        }
        out
    }
}

/// One part of a message or of a tool output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    /// Plain text (markdown for assistant messages).
    Text {
        /// The text.
        text: String,
    },
    /// An image, as a `data:<media type>;base64,<data>` URL or an `https:` URL.
    Image {
        /// The image URL.
        url: String,
        /// OpenAI's `detail` hint (`low`, `high`, `auto`), if given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
}

/// Model reasoning.
///
/// Which fields are set depends on the wire it came from: Chat providers stream plain
/// `reasoning_content` (DeepSeek, Kimi, Qwen, llama.cpp); the Responses API gives summary
/// parts, raw `reasoning_text` and an opaque `encrypted_content`; Anthropic gives a `thinking`
/// block with a `signature`, or a `redacted_thinking` block whose `data` is opaque. Replaying
/// reasoning to a provider is a per-provider rule (see the harness crate), so the origin is
/// kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReasoningItem {
    /// Item id.
    pub id: String,
    /// Raw reasoning text (Chat `reasoning_content`, Responses `reasoning_text`, Anthropic
    /// `thinking`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Summary parts (Responses `summary[].text`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summary: Vec<String>,
    /// Anthropic `thinking.signature`: required to replay the block to Anthropic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Anthropic `redacted_thinking.data`: opaque, replayed as is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted_data: Option<String>,
    /// Responses `encrypted_content` (requested with `include: ["reasoning.encrypted_content"]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_content: Option<String>,
    /// Where this reasoning came from, so it is only replayed where it is valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<ReasoningOrigin>,
}

impl ReasoningItem {
    /// The readable text: raw text if any, else the summary parts joined by blank lines.
    pub fn readable_text(&self) -> String {
        if !self.text.is_empty() {
            self.text.clone()
        } else {
            self.summary.join("\n\n")
        }
    }
}

/// The provider and wire a reasoning item was produced on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReasoningOrigin {
    /// Wire of the response that carried it.
    pub wire: Wire,
    /// Provider id from the config (e.g. `deepseek`), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Model that produced it, as the server reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// A call of a JSON-schema function tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FunctionCallItem {
    /// Item id.
    pub id: String,
    /// The id the model gave the call; tool outputs refer to it.
    pub call_id: String,
    /// Tool name as the harness advertised it (e.g. `Bash`, `shell`, `read_file`).
    pub name: String,
    /// Namespace of a namespaced tool (e.g. an MCP server name), when the model called one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The arguments exactly as the model produced them: a JSON text, possibly invalid.
    pub arguments: String,
}

/// A call of a freeform tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CustomToolCallItem {
    /// Item id.
    pub id: String,
    /// Call id.
    pub call_id: String,
    /// Tool name.
    pub name: String,
    /// Raw input text (e.g. a whole `*** Begin Patch` envelope).
    pub input: String,
}

/// A shell command extracted from text by a text-protocol harness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LocalShellCallItem {
    /// Item id.
    pub id: String,
    /// Call id (synthesized by the harness).
    pub call_id: String,
    /// argv, e.g. `["bash", "-lc", "ls"]`.
    pub command: Vec<String>,
    /// Working directory, if the harness tracks one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workdir: Option<String>,
    /// Time limit in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u32>,
}

/// The output of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolOutputItem {
    /// Item id.
    pub id: String,
    /// The call this answers.
    pub call_id: String,
    /// The result.
    pub output: ToolOutput,
}

/// What a tool returned, in a form every wire can carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolOutput {
    /// Model-readable text of the result (what goes back to the model).
    pub text: String,
    /// How the call ended.
    pub status: ToolStatus,
    /// Extra parts (images) for wires and harnesses that can carry them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ContentPart>,
    /// Process exit code, for shell-like tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Wall time of the execution in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u32>,
    /// Structured details for the UI (e.g. the unified diff of a file edit). Never sent to the
    /// model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<ToolDetails>,
}

impl ToolOutput {
    /// A successful text result.
    pub fn ok(text: impl Into<String>) -> Self {
        ToolOutput {
            text: text.into(),
            status: ToolStatus::Completed,
            content: Vec::new(),
            exit_code: None,
            duration_ms: None,
            details: None,
        }
    }

    /// A failed result: the text tells the model what went wrong and how to fix the call.
    pub fn error(text: impl Into<String>) -> Self {
        ToolOutput {
            status: ToolStatus::Failed,
            ..ToolOutput::ok(text)
        }
    }

    /// A result for a call that was interrupted before it finished.
    pub fn aborted(text: impl Into<String>) -> Self {
        ToolOutput {
            status: ToolStatus::Aborted,
            ..ToolOutput::ok(text)
        }
    }

    /// A result for a call the user denied.
    pub fn denied(text: impl Into<String>) -> Self {
        ToolOutput {
            status: ToolStatus::Denied,
            ..ToolOutput::ok(text)
        }
    }

    /// Whether the call succeeded (wires that have an error flag, such as Anthropic's
    /// `tool_result.is_error`, use this).
    pub fn success(&self) -> bool {
        self.status == ToolStatus::Completed
    }
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// Ran and succeeded (for shell: exit code 0).
    Completed,
    /// Ran and failed, or the call itself was invalid (bad arguments, unknown tool).
    Failed,
    /// Exceeded its time limit and was killed.
    TimedOut,
    /// The user denied it.
    Denied,
    /// Interrupted (turn aborted, process killed) before it finished.
    Aborted,
}

/// Structured details of a tool run, for the UI only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolDetails {
    /// Files changed by the call.
    FileChanges {
        /// One entry per file.
        changes: Vec<FileChange>,
    },
    /// The command that ran (after harness translation).
    Exec {
        /// argv.
        command: Vec<String>,
        /// Working directory.
        cwd: String,
        /// Bytes of output dropped by the output cap.
        truncated_bytes: u32,
        /// The sandbox it ran in; `None`: outside any sandbox.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sandbox: Option<SandboxMode>,
        /// What the sandbox refused, when the failure looks like its doing ("write to
        /// /etc/x refused: read-only file system", "network is off in the sandbox").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sandbox_denial: Option<String>,
    },
    /// The todo list after a todo tool call.
    Todos {
        /// Entries in order.
        todos: Vec<TodoEntry>,
    },
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FileChange {
    /// Path relative to the workspace when inside it, else absolute.
    pub path: String,
    /// What happened.
    pub kind: FileChangeKind,
    /// For moves: the new path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_to: Option<String>,
    /// Unified diff (`---`/`+++` headers, `@@` hunks).
    pub diff: String,
}

/// Kind of file change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum FileChangeKind {
    /// File created.
    Add,
    /// File deleted.
    Delete,
    /// File modified (possibly moved).
    Update,
}

/// One todo entry (claude-code `TodoWrite`, kimi `SetTodoList`, qwen `todo_write`, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TodoEntry {
    /// What to do.
    pub content: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
}
