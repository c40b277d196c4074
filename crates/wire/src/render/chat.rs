//! OpenAI Chat Completions request bodies (`POST /chat/completions`).
//!
//! Shape (field names from the OpenAI Chat Completions API reference), in this order:
//! `model`, `messages`, `tools`, `tool_choice`, `parallel_tool_calls`, `stream`,
//! `stream_options.include_usage`, the output limit (`max_tokens` or the field named by
//! [`RenderOptions::chat_max_tokens_field`], e.g. `max_completion_tokens`), `temperature`,
//! `top_p`, `reasoning_effort`, `prompt_cache_key`, `metadata`, then
//! [`ShapedRequest::extra_body`] (same-named fields are replaced in place).
//!
//! Messages:
//! - system blocks → one leading `{"role":"system","content"}` message, blocks joined by a
//!   blank line;
//! - `system`/`developer`/`user` messages → `content` as a string when it is a single text
//!   block, else an array of `{"type":"text","text"}` / `{"type":"image_url","image_url":{"url",
//!   "detail"?}}` parts;
//! - assistant messages → `content` (as above; for tool-call-only messages `null`, `""` or no
//!   key per [`RenderOptions::chat_tool_only_content`]; `""` when there is nothing at all),
//!   replayed reasoning under [`RenderOptions::chat_reasoning_field`] (dropped when unset),
//!   `tool_calls: [{"id","type":"function","function":{"name","arguments"}}]`;
//! - every tool result → its own `{"role":"tool","tool_call_id","content"}` message, in order.
//!   Content is a string (text parts joined by `\n`), or parts when
//!   [`RenderOptions::chat_tool_result_parts`] is set or the result has images (a string cannot
//!   carry them). Tool results inside a user message are rendered the same way, before that
//!   message's other content.
//! - [`ShapedMessage::extra`] is applied to every message a shaped message renders to.
//!
//! Anthropic `redacted_thinking` has no Chat form and is dropped.

use serde_json::{Map, Value};
use tack_protocol::ToolSpecKind;

use super::json::{ObjectWriter, write_str, write_value};
use super::{Body, RenderError};
use crate::tool_kinds::wire_tool_names;
use crate::{
    Block, RenderOptions, ResultPart, ShapedMessage, ShapedRequest, ShapedRole, ToolChoice,
    ToolOnlyContent,
};

/// Renders the Chat Completions body of `req`.
pub(crate) fn body(req: &ShapedRequest) -> Result<Body, RenderError> {
    // Rough size guess: avoids most regrowth for long histories.
    let mut out = Vec::with_capacity(estimate_size(req));
    let params = &req.params;
    let mut obj = ObjectWriter::open(&mut out, Some(&req.extra_body));
    obj.str_field("model", &req.model);
    obj.nested("messages", |out| write_messages(out, req))?;
    if !req.tools.is_empty() {
        obj.nested("tools", |out| {
            write_tools(out, req);
            Ok(())
        })?;
    }
    if let Some(choice) = &params.tool_choice {
        obj.nested("tool_choice", |out| {
            write_tool_choice(out, choice);
            Ok(())
        })?;
    }
    if let Some(parallel) = params.parallel_tool_calls {
        obj.field("parallel_tool_calls", &parallel)?;
    }
    if params.stream {
        obj.field("stream", &true)?;
        if params.include_usage {
            obj.nested("stream_options", |out| {
                out.extend_from_slice(br#"{"include_usage":true}"#);
                Ok(())
            })?;
        }
    }
    if let Some(max) = params.max_tokens {
        obj.field(&req.options.chat_max_tokens_field, &max)?;
    }
    if let Some(t) = params.temperature {
        obj.field("temperature", &finite("temperature", t)?)?;
    }
    if let Some(p) = params.top_p {
        obj.field("top_p", &finite("top_p", p)?)?;
    }
    if let Some(effort) = &params.reasoning_effort {
        obj.str_field("reasoning_effort", effort);
    }
    if let Some(key) = &params.cache_key {
        obj.str_field("prompt_cache_key", key);
    }
    if let Some(metadata) = &params.metadata {
        obj.field("metadata", metadata)?;
    }
    obj.finish();
    let stream = match req.extra_body.get("stream") {
        Some(v) => v == &Value::Bool(true),
        None => params.stream,
    };
    Ok(Body { bytes: out, stream })
}

fn finite(name: &str, v: f64) -> Result<f64, RenderError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(RenderError::InvalidParam(format!(
            "{name} must be a finite number, got {v}"
        )))
    }
}

fn estimate_size(req: &ShapedRequest) -> usize {
    let mut n = 256 + req.system.iter().map(|b| b.text.len()).sum::<usize>();
    for m in &req.messages {
        n += 48;
        for b in &m.content {
            n += 32
                + match b {
                    Block::Text { text, .. } => text.len(),
                    Block::Image { url, .. } => url.len(),
                    Block::ToolCall { arguments, .. } => 64 + arguments.len(),
                    Block::ToolResult { content, .. } => content
                        .iter()
                        .map(|p| match p {
                            ResultPart::Text { text } => text.len(),
                            ResultPart::Image { url } => url.len(),
                        })
                        .sum(),
                    Block::Thinking { text, .. } => text.len(),
                    Block::RedactedThinking { .. } => 0,
                };
        }
    }
    n += req.tools.len() * 512;
    // Escaping grows text (code has many quotes and newlines); a quarter of slack saves
    // regrowing (and copying) the whole body once it is nearly written.
    n + n / 4
}

fn write_messages(out: &mut Vec<u8>, req: &ShapedRequest) -> Result<(), RenderError> {
    out.push(b'[');
    let mut first = true;
    let mut sep = |out: &mut Vec<u8>| {
        if !first {
            out.push(b',');
        }
        first = false;
    };
    if !req.system.is_empty() {
        sep(out);
        let mut obj = ObjectWriter::open(out, None);
        obj.str_field("role", "system");
        if let [block] = req.system.as_slice() {
            obj.str_field("content", &block.text);
            obj.finish();
        } else {
            write_joined_system(obj, req);
        }
    }
    for (index, message) in req.messages.iter().enumerate() {
        write_message(out, index, message, &req.options, &mut sep)?;
    }
    out.push(b']');
    Ok(())
}

fn write_joined_system(mut obj: ObjectWriter<'_>, req: &ShapedRequest) {
    let mut text = String::new();
    for (i, block) in req.system.iter().enumerate() {
        if i > 0 {
            text.push_str("\n\n");
        }
        text.push_str(&block.text);
    }
    obj.str_field("content", &text);
    obj.finish();
}

/// The content blocks of one message, sorted by what they render to.
#[derive(Default)]
struct Parts<'m> {
    /// Text and image blocks, in order.
    content: Vec<&'m Block>,
    /// Tool call blocks (assistant only).
    calls: Vec<&'m Block>,
    /// Thinking text (assistant only).
    thinking: Vec<&'m str>,
}

fn write_message(
    out: &mut Vec<u8>,
    index: usize,
    message: &ShapedMessage,
    options: &RenderOptions,
    sep: &mut impl FnMut(&mut Vec<u8>),
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
    let mut parts = Parts::default();
    let mut results = 0usize;
    for block in &message.content {
        match block {
            Block::Text { .. } | Block::Image { .. } if message.role != ShapedRole::Tool => {
                parts.content.push(block)
            }
            Block::Text { .. } | Block::Image { .. } => {
                return Err(invalid(
                    "a tool message may only hold tool results on the chat wire",
                ));
            }
            Block::ToolResult {
                call_id, content, ..
            } => {
                if assistant {
                    return Err(invalid("an assistant message cannot hold a tool result"));
                }
                results += 1;
                sep(out);
                write_tool_result(out, call_id, content, options, &message.extra)?;
            }
            Block::ToolCall { .. } if assistant => parts.calls.push(block),
            Block::Thinking { text, .. } if assistant => parts.thinking.push(text),
            Block::RedactedThinking { .. } if assistant => {}
            Block::ToolCall { .. } => {
                return Err(invalid("only an assistant message can hold a tool call"));
            }
            Block::Thinking { .. } | Block::RedactedThinking { .. } => {
                return Err(invalid("only an assistant message can hold reasoning"));
            }
        }
    }
    if message.role == ShapedRole::Tool || (results > 0 && parts.content.is_empty()) {
        return Ok(());
    }
    sep(out);
    let mut obj = ObjectWriter::open(out, Some(&message.extra));
    obj.str_field("role", role);
    if !parts.content.is_empty() {
        obj.nested("content", |out| {
            write_content(out, &parts.content);
            Ok(())
        })?;
    } else if !parts.calls.is_empty() {
        match options.chat_tool_only_content {
            ToolOnlyContent::Null => obj.field("content", &())?,
            ToolOnlyContent::Empty => obj.str_field("content", ""),
            ToolOnlyContent::Omit => {}
        }
    } else {
        obj.str_field("content", "");
    }
    if let Some(field) = &options.chat_reasoning_field {
        let reasoning: Vec<&str> = parts
            .thinking
            .iter()
            .copied()
            .filter(|t| !t.is_empty())
            .collect();
        if !reasoning.is_empty() {
            obj.str_field(field, &reasoning.join("\n\n"));
        }
    }
    if !parts.calls.is_empty() {
        obj.nested("tool_calls", |out| {
            write_tool_calls(out, &parts.calls);
            Ok(())
        })?;
    }
    obj.finish();
    Ok(())
}

/// `content`: a string for one text block, else an array of parts.
fn write_content(out: &mut Vec<u8>, blocks: &[&Block]) {
    if let [Block::Text { text, .. }] = blocks {
        write_str(out, text);
        return;
    }
    out.push(b'[');
    for (i, block) in blocks.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match block {
            Block::Text { text, .. } => write_text_part(out, text),
            Block::Image { url, detail } => write_image_part(out, url, detail.as_deref()),
            // `Parts::content` holds only text and images.
            _ => out.extend_from_slice(b"null"),
        }
    }
    out.push(b']');
}

fn write_text_part(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(br#"{"type":"text","text":"#);
    write_str(out, text);
    out.push(b'}');
}

fn write_image_part(out: &mut Vec<u8>, url: &str, detail: Option<&str>) {
    out.extend_from_slice(br#"{"type":"image_url","image_url":{"url":"#);
    write_str(out, url);
    if let Some(detail) = detail {
        out.extend_from_slice(br#","detail":"#);
        write_str(out, detail);
    }
    out.extend_from_slice(b"}}");
}

fn write_tool_calls(out: &mut Vec<u8>, calls: &[&Block]) {
    out.push(b'[');
    for (i, block) in calls.iter().enumerate() {
        let Block::ToolCall {
            call_id,
            name,
            arguments,
            custom_input,
        } = block
        else {
            continue;
        };
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"id":"#);
        write_str(out, call_id);
        out.extend_from_slice(br#","type":"function","function":{"name":"#);
        write_str(out, name);
        out.extend_from_slice(br#","arguments":"#);
        match custom_input {
            // A freeform call whose harness left `arguments` empty: Chat carries freeform tools
            // as functions taking `{"input": <text>}`.
            Some(input) if arguments.is_empty() => {
                let mut wrapped = Map::new();
                wrapped.insert("input".to_string(), Value::String(input.clone()));
                let text = Value::Object(wrapped).to_string();
                write_str(out, &text);
            }
            _ => write_str(out, arguments),
        }
        out.extend_from_slice(b"}}");
    }
    out.push(b']');
}

fn write_tool_result(
    out: &mut Vec<u8>,
    call_id: &str,
    content: &[ResultPart],
    options: &RenderOptions,
    extra: &Map<String, Value>,
) -> Result<(), RenderError> {
    let mut obj = ObjectWriter::open(out, Some(extra));
    obj.str_field("role", "tool");
    obj.str_field("tool_call_id", call_id);
    let has_image = content
        .iter()
        .any(|p| matches!(p, ResultPart::Image { .. }));
    if options.chat_tool_result_parts || has_image {
        obj.nested("content", |out| {
            out.push(b'[');
            for (i, part) in content.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                match part {
                    ResultPart::Text { text } => write_text_part(out, text),
                    ResultPart::Image { url } => write_image_part(out, url, None),
                }
            }
            out.push(b']');
            Ok(())
        })?;
    } else if let [ResultPart::Text { text }] = content {
        obj.str_field("content", text);
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
        obj.str_field("content", &text);
    }
    obj.finish();
    Ok(())
}

fn write_tools(out: &mut Vec<u8>, req: &ShapedRequest) {
    let names = wire_tool_names(&req.tools, tack_protocol::Wire::Chat);
    out.push(b'[');
    for (i, (tool, name)) in req.tools.iter().zip(&names).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"type":"function","function":{"name":"#);
        write_str(out, name);
        if !tool.description.is_empty() {
            out.extend_from_slice(br#","description":"#);
            write_str(out, &tool.description);
        }
        out.extend_from_slice(br#","parameters":"#);
        match &tool.kind {
            ToolSpecKind::Function { parameters, strict } => {
                // A `Value` holds only finite numbers; writing into a Vec cannot fail.
                let _ = write_value(out, parameters);
                if let Some(strict) = strict {
                    out.extend_from_slice(br#","strict":"#);
                    out.extend_from_slice(if *strict { b"true" } else { b"false" });
                }
            }
            ToolSpecKind::Freeform { .. } => {
                let _ = write_value(out, &tool.parameters());
            }
        }
        out.extend_from_slice(b"}}");
    }
    out.push(b']');
}

fn write_tool_choice(out: &mut Vec<u8>, choice: &ToolChoice) {
    match choice {
        ToolChoice::Auto => write_str(out, "auto"),
        ToolChoice::Required => write_str(out, "required"),
        ToolChoice::None => write_str(out, "none"),
        ToolChoice::Tool(name) => {
            out.extend_from_slice(br#"{"type":"function","function":{"name":"#);
            write_str(out, name);
            out.extend_from_slice(b"}}");
        }
    }
}
