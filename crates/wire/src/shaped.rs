//! The wire-neutral request a harness produces and every wire can render.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tack_protocol::ToolSpec;

/// A model request in wire-neutral form: what a harness decided to send, before it is
/// encoded for a particular wire.
///
/// Rendering (see [`crate::render()`]) is pure and deterministic: the same `ShapedRequest`
/// always renders to the same bytes for a given wire, which lets the inspector show one step
/// on every wire side by side and lets golden tests pin exact bodies.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ShapedRequest {
    /// Model slug as sent.
    pub model: String,
    /// System prompt blocks, in order. Chat renders them as one `system` message (blocks
    /// joined by a blank line); Responses as `instructions`; Messages as `system` text blocks
    /// (with `cache_control` where `cache` is set).
    pub system: Vec<SystemBlock>,
    /// Conversation, oldest first.
    pub messages: Vec<ShapedMessage>,
    /// Tools advertised, in order.
    pub tools: Vec<ToolSpec>,
    /// Put a cache breakpoint on the last tool (Messages `cache_control`).
    #[serde(default)]
    pub cache_tools: bool,
    /// Sampling and transport parameters.
    pub params: RequestParams,
    /// Wire-specific rendering choices the harness makes (ignored by other wires).
    #[serde(default)]
    pub options: RenderOptions,
    /// Top-level body fields a harness adds verbatim (e.g. kimi's `thinking: {type, keep}`),
    /// rendered after the standard fields, in insertion order, overriding same-named ones.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra_body: Map<String, Value>,
    /// Extra HTTP headers (e.g. `anthropic-beta`, or identity headers the user opted into).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    /// Extra URL query parameters (e.g. claude-code's `beta=true`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub query: Vec<(String, String)>,
}

/// One system prompt block.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SystemBlock {
    /// Text.
    pub text: String,
    /// Mark as a prompt-cache breakpoint (Messages `cache_control: {type: ephemeral}`).
    #[serde(default)]
    pub cache: bool,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShapedMessage {
    /// Author.
    pub role: ShapedRole,
    /// Content blocks in order.
    pub content: Vec<Block>,
    /// Extra fields rendered on this message verbatim (Chat and Responses; e.g.
    /// `provider_specific_fields`), after the standard ones.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

impl ShapedMessage {
    /// A message with the given role and blocks.
    pub fn new(role: ShapedRole, content: Vec<Block>) -> Self {
        ShapedMessage {
            role,
            content,
            extra: Map::new(),
        }
    }

    /// A one-block text message.
    pub fn text(role: ShapedRole, text: impl Into<String>) -> Self {
        ShapedMessage::new(
            role,
            vec![Block::Text {
                text: text.into(),
                cache: false,
            }],
        )
    }
}

/// Author of a shaped message.
///
/// `Tool` messages hold [`Block::ToolResult`] blocks: Chat renders each as a `role: "tool"`
/// message; Responses as `function_call_output` items; Messages as `tool_result` blocks in a
/// `user` message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapedRole {
    /// In-conversation system message (some providers accept it; Messages rejects it).
    System,
    /// OpenAI developer message.
    Developer,
    /// User.
    User,
    /// Assistant.
    Assistant,
    /// Tool results.
    Tool,
}

/// One content block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// Text.
    Text {
        /// Text.
        text: String,
        /// Cache breakpoint (Messages).
        #[serde(default)]
        cache: bool,
    },
    /// Image by URL (`data:` or `https:`).
    Image {
        /// URL.
        url: String,
        /// OpenAI `detail`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// A tool call made by the assistant.
    ToolCall {
        /// Call id as the target wire should see it.
        call_id: String,
        /// Tool name as advertised on the target wire (already flattened for namespaces).
        name: String,
        /// Arguments JSON text exactly as it should be sent (harnesses may re-serialize it,
        /// e.g. with a fixed key order).
        arguments: String,
        /// For freeform calls on Responses: render as `custom_tool_call` with this input
        /// instead of a function call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        custom_input: Option<String>,
    },
    /// The result of a tool call.
    ToolResult {
        /// The call answered.
        call_id: String,
        /// Text and image parts.
        content: Vec<ResultPart>,
        /// Messages `is_error`; `None` omits the field.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        is_error: Option<bool>,
        /// Cache breakpoint (Messages).
        #[serde(default)]
        cache: bool,
    },
    /// Reasoning to replay: Chat `reasoning_content` on the assistant message, Messages
    /// `thinking` block (only with a signature), Responses `reasoning` item.
    Thinking {
        /// Reasoning text.
        text: String,
        /// Anthropic signature.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        /// Responses `encrypted_content`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<String>,
        /// Responses summary parts.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        summary: Vec<String>,
    },
    /// Anthropic `redacted_thinking` to replay as is.
    RedactedThinking {
        /// Opaque data.
        data: String,
    },
}

/// One part of a tool result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResultPart {
    /// Text.
    Text {
        /// Text.
        text: String,
    },
    /// Image by URL.
    Image {
        /// URL (`data:` base64 for Messages).
        url: String,
    },
}

/// Sampling and transport parameters. `None` omits a field.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RequestParams {
    /// Ask for a streamed (SSE) response.
    pub stream: bool,
    /// Chat `stream_options: {include_usage: true}`.
    #[serde(default)]
    pub include_usage: bool,
    /// Output token limit: Chat `max_tokens` (or `max_completion_tokens`, see
    /// [`RenderOptions::chat_max_tokens_field`]), Responses `max_output_tokens`, Messages
    /// `max_tokens` (required there; renderers use 8192 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Tool choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Allow several tool calls per response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// Reasoning effort (`low`/`medium`/`high`): Chat `reasoning_effort`, Responses
    /// `reasoning.effort`, Messages `output_config.effort`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    /// Responses `reasoning.summary` (`auto`, `concise`, `detailed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_summary: Option<String>,
    /// Messages `thinking`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Thinking>,
    /// Prompt cache key (Chat/Responses `prompt_cache_key`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_key: Option<String>,
    /// `metadata` object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Responses `store`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<bool>,
    /// Responses `include` (e.g. `reasoning.encrypted_content`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<String>,
}

/// Tool choice, neutral.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "name", rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// The model must call some tool.
    Required,
    /// No tool calls.
    None,
    /// The model must call this tool.
    Tool(String),
}

/// Anthropic extended thinking setting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Thinking {
    /// `{type: "enabled", budget_tokens}`.
    Enabled {
        /// Budget in tokens.
        budget_tokens: u32,
    },
    /// `{type: "adaptive"}`.
    Adaptive,
    /// `{type: "disabled"}`.
    Disabled,
}

/// Per-wire rendering choices. Defaults match what OpenAI and Anthropic accept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RenderOptions {
    /// Chat: the `content` of an assistant message that only carries tool calls.
    pub chat_tool_only_content: ToolOnlyContent,
    /// Chat: send replayed reasoning as this assistant-message field (`reasoning_content`
    /// for DeepSeek/Kimi/Qwen); `None` drops [`Block::Thinking`] on Chat.
    pub chat_reasoning_field: Option<String>,
    /// Chat: name of the output-token limit field.
    pub chat_max_tokens_field: String,
    /// Chat: render a tool result's text as `[{type:"text",text}]` instead of a string.
    pub chat_tool_result_parts: bool,
    /// Messages: keep `system` messages inside `messages` with role `system` instead of
    /// folding them into a user turn (Anthropic accepts this only with a beta that allows
    /// mid-conversation system messages, as Claude Code's recent versions send).
    #[serde(default)]
    pub messages_system_role: bool,
    /// Top-level body keys to put first, in this order (keys not listed follow in the
    /// renderer's order). Real CLIs differ in key order; golden comparisons with captures
    /// need it. Empty: the renderer's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub field_order: Vec<String>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            chat_tool_only_content: ToolOnlyContent::Null,
            chat_reasoning_field: None,
            chat_max_tokens_field: "max_tokens".to_string(),
            chat_tool_result_parts: false,
            messages_system_role: false,
            field_order: Vec::new(),
        }
    }
}

/// How Chat renders the `content` of a tool-call-only assistant message. OpenAI accepts
/// `null`; some OpenAI-compatible hosts reject `null` and want `""`; others want no field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolOnlyContent {
    /// `"content": null`.
    Null,
    /// `"content": ""`.
    Empty,
    /// No `content` key.
    Omit,
}
