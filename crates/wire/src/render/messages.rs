//! Anthropic Messages request bodies (`POST /v1/messages`).
//!
//! Shape (field names from the Anthropic Messages API reference, "Messages"), in this order:
//! `model`, `max_tokens` (required by the API: 8192 when the request sets none), `system`,
//! `messages`, `tools`, `tool_choice`, `thinking`, `temperature`, `top_p`, `metadata`,
//! `stream`, `output_config: {effort}` (from the reasoning effort), then
//! [`ShapedRequest::extra_body`] (same-named fields are replaced in place). The
//! `anthropic-version` header is added by [`super::render`]; `anthropic-beta` and other
//! headers come from [`ShapedRequest::headers`].
//!
//! - `system`: the system blocks as `{"type":"text","text"}` blocks, with
//!   `cache_control: {"type":"ephemeral"}` where a block is a cache breakpoint.
//! - `messages`: content is always a list of blocks (a harness that wants a bare string for a
//!   text-only user message can say so in its own shaping):
//!   - text → `{"type":"text","text","cache_control"?}`; empty text blocks are left out (the
//!     API rejects them);
//!   - image → `{"type":"image","source":{"type":"base64","media_type","data"}}` from a
//!     `data:<media type>;base64,` URL, `{"type":"url","url"}` for any other URL (`detail` has
//!     no Messages form);
//!   - tool call → `{"type":"tool_use","id","name","input"}` where `input` is the arguments
//!     object. Arguments that are empty become `{}` (a freeform call with empty arguments
//!     becomes `{"input": <its input>}`, the function form freeform tools take on this wire);
//!     arguments that are not a JSON object (a model's malformed call) become
//!     `{"_raw": "<the text>"}`, so the history stays sendable and the model still sees what
//!     it wrote, next to the tool's error about it;
//!   - tool result → `{"type":"tool_result","tool_use_id","content","is_error"?,
//!     "cache_control"?}` with `content` a string (one text part) or a list of text and image
//!     blocks; empty text parts are left out, and a result with nothing left has no
//!     `content` at all (the API refuses empty text blocks, and documents `content` as
//!     optional);
//!   - reasoning → `{"type":"thinking","thinking","signature"}`, only when it has a signature
//!     (the API rejects unsigned thinking); `redacted_thinking` → `{"type":"redacted_thinking",
//!     "data"}`.
//!
//!   Roles: `tool` messages become `user` messages of `tool_result` blocks; `system` and
//!   `developer` messages become `user` messages (the API has no such roles in `messages`).
//!   **Consecutive messages with the same role are merged** (the API requires user and
//!   assistant to alternate), and in a merged user message the `tool_result` blocks come first
//!   (the API requires them before any other content of the message that follows the calls).
//!   Messages left empty are dropped before merging.
//! - **Tool-call ids.** The API requires `tool_use.id` to match `^[a-zA-Z0-9_-]+$`; other
//!   wires' ids do not (Kimi: `functions.ls:0`). An id that does not match is sent as
//!   [`tool_use_id`]: every other character replaced by `_` (cut to 48 characters), then `_`
//!   and 16 hex digits of the FNV-1a 64 hash of the original id. The mapping is a pure function
//!   of the id, so the `tool_use` and its `tool_result` agree, and so do successive requests
//!   of a session (keeping the provider's prompt cache valid). Should a mapped id ever equal
//!   another id of the same request, later ones get `_2`, `_3`, … in order of first
//!   appearance, so two different calls never share an id.
//! - `tools`: `{"name","description"?,"input_schema"}` (namespaces flattened and freeform
//!   tools carried as `{input: string}` functions, as on Chat: see [`crate::tool_kinds`](mod@crate::tool_kinds)),
//!   `cache_control` on the last one when [`ShapedRequest::cache_tools`] is set.
//! - `tool_choice`: `{"type":"auto"}`, `{"type":"any"}` (required), `{"type":"none"}`,
//!   `{"type":"tool","name"}`; `parallel_tool_calls: false` adds
//!   `"disable_parallel_tool_use": true` (to `auto` when no choice is set).
//! - `thinking`: `{"type":"enabled","budget_tokens"}`, `{"type":"adaptive"}` or
//!   `{"type":"disabled"}`.
//!
//! [`ShapedMessage::extra`](crate::ShapedMessage::extra) is not applied: merged messages have
//! no single source message to take it from.

use std::borrow::Cow;
use std::collections::BTreeSet;

use tack_protocol::Wire;

use super::json::{ObjectWriter, write_str, write_value};
use super::{Body, ListWriter, RenderError, estimate_size, finite, stream_flag};
use crate::tool_kinds::wire_tool_names;
use crate::{Block, ResultPart, ShapedRequest, ShapedRole, ToolChoice};

/// `max_tokens` sent when the request sets no output limit (the API requires one).
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// Longest part of an id kept before the hash suffix when the id has to be rewritten.
const MAX_KEPT_ID_CHARS: usize = 48;

const CACHE_CONTROL: &[u8] = br#","cache_control":{"type":"ephemeral"}"#;

/// Renders the Messages body of `req`.
pub(crate) fn body(req: &ShapedRequest) -> Result<Body, RenderError> {
    let mut out = Vec::with_capacity(estimate_size(req));
    let params = &req.params;
    let ids = CallIds::new(req);
    let turns = turns(req)?;
    let mut obj = ObjectWriter::open(&mut out, Some(&req.extra_body));
    obj.str_field("model", &req.model);
    obj.field(
        "max_tokens",
        &params.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
    )?;
    if req.system.iter().any(|b| !b.text.is_empty()) {
        obj.nested("system", |out| {
            let mut list = ListWriter::open(out);
            for block in req.system.iter().filter(|b| !b.text.is_empty()) {
                write_text(list.item(), &block.text, block.cache);
            }
            list.finish();
            Ok(())
        })?;
    }
    obj.nested("messages", |out| write_turns(out, &turns, &ids))?;
    if !req.tools.is_empty() {
        obj.nested("tools", |out| {
            write_tools(out, req);
            Ok(())
        })?;
    }
    let no_parallel = params.parallel_tool_calls == Some(false);
    match &params.tool_choice {
        Some(choice) => obj.nested("tool_choice", |out| {
            write_tool_choice(out, choice, no_parallel);
            Ok(())
        })?,
        None if no_parallel && !req.tools.is_empty() => obj.nested("tool_choice", |out| {
            write_tool_choice(out, &ToolChoice::Auto, true);
            Ok(())
        })?,
        None => {}
    }
    if let Some(thinking) = &params.thinking {
        obj.field("thinking", thinking)?;
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
    if let Some(effort) = &params.reasoning_effort {
        obj.nested("output_config", |out| {
            let mut config = ObjectWriter::open(out, None);
            config.str_field("effort", effort);
            config.finish();
            Ok(())
        })?;
    }
    obj.finish();
    Ok(Body {
        bytes: out,
        stream: stream_flag(req),
    })
}

/// The id Anthropic accepts for a tool call whose id is `id`: `id` itself when it matches
/// `^[a-zA-Z0-9_-]+$`, else `id` with every other character replaced by `_` (at most 48
/// characters kept), `_`, and the 16 hex digits of the FNV-1a 64-bit hash of `id`.
///
/// A pure function of `id` (stable across requests, processes and versions). Within one
/// request, [`super::render`] additionally guarantees that two different ids never map to the
/// same one.
pub fn tool_use_id(id: &str) -> Cow<'_, str> {
    if is_valid_tool_use_id(id) {
        return Cow::Borrowed(id);
    }
    let mut out: String = id
        .chars()
        .take(MAX_KEPT_ID_CHARS)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    out.push('_');
    out.push_str(&format!("{:016x}", fnv1a64(id.as_bytes())));
    Cow::Owned(out)
}

/// Whether the Messages API accepts `id` as a `tool_use.id` (`^[a-zA-Z0-9_-]+$`).
pub fn is_valid_tool_use_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// FNV-1a, 64 bits: tiny, fixed forever (unlike `std`'s hasher), and good enough to tell ids
/// apart; uniqueness within a request is enforced separately.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The call ids of one request that had to be rewritten, and what they became.
struct CallIds {
    /// (original, sent), in order of first appearance. Empty in the usual case.
    mapped: Vec<(String, String)>,
}

impl CallIds {
    fn new(req: &ShapedRequest) -> Self {
        let all = || {
            req.messages
                .iter()
                .flat_map(|m| &m.content)
                .filter_map(|b| match b {
                    Block::ToolCall { call_id, .. } | Block::ToolResult { call_id, .. } => {
                        Some(call_id.as_str())
                    }
                    _ => None,
                })
        };
        let mut mapped: Vec<(String, String)> = Vec::new();
        if all().all(is_valid_tool_use_id) {
            return CallIds { mapped };
        }
        let kept: BTreeSet<&str> = all().filter(|id| is_valid_tool_use_id(id)).collect();
        for id in all().filter(|id| !is_valid_tool_use_id(id)) {
            if mapped.iter().any(|(original, _)| original == id) {
                continue;
            }
            let base = tool_use_id(id).into_owned();
            let taken = |c: &str| kept.contains(c) || mapped.iter().any(|(_, sent)| sent == c);
            let sent = if taken(&base) {
                (2u32..)
                    .map(|n| format!("{base}_{n}"))
                    .find(|c| !taken(c))
                    .unwrap_or(base)
            } else {
                base
            };
            mapped.push((id.to_string(), sent));
        }
        CallIds { mapped }
    }

    /// The id to send for `id`.
    fn get<'a>(&'a self, id: &'a str) -> &'a str {
        self.mapped
            .iter()
            .find(|(original, _)| original == id)
            .map_or(id, |(_, sent)| sent.as_str())
    }
}

/// A Messages role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
    /// Kept only with [`crate::RenderOptions::messages_system_role`].
    System,
}

/// One message as sent: merged from consecutive shaped messages of the same role. Each block
/// keeps the index of the shaped message it came from, for errors.
struct Turn<'r> {
    role: Role,
    blocks: Vec<(usize, &'r Block)>,
}

/// The shaped messages as alternating turns (see the module docs).
fn turns(req: &ShapedRequest) -> Result<Vec<Turn<'_>>, RenderError> {
    let mut turns: Vec<Turn<'_>> = Vec::with_capacity(req.messages.len());
    for (index, message) in req.messages.iter().enumerate() {
        let invalid = |reason: &str| RenderError::InvalidMessage {
            index,
            reason: reason.to_string(),
        };
        let assistant = message.role == ShapedRole::Assistant;
        let role = if assistant {
            Role::Assistant
        } else if message.role == ShapedRole::System && req.options.messages_system_role {
            Role::System
        } else {
            Role::User
        };
        let mut kept = Vec::with_capacity(message.content.len());
        for block in &message.content {
            match block {
                Block::Text { .. } | Block::Image { .. } if message.role == ShapedRole::Tool => {
                    return Err(invalid(
                        "a tool message may only hold tool results on the messages wire",
                    ));
                }
                Block::Image { .. } if assistant => {
                    return Err(invalid(
                        "an assistant message cannot hold an image on the messages wire",
                    ));
                }
                Block::ToolResult { .. } if assistant => {
                    return Err(invalid("an assistant message cannot hold a tool result"));
                }
                Block::ToolCall { .. } if !assistant => {
                    return Err(invalid("only an assistant message can hold a tool call"));
                }
                Block::Thinking { .. } | Block::RedactedThinking { .. } if !assistant => {
                    return Err(invalid("only an assistant message can hold reasoning"));
                }
                Block::Text { text, .. } if text.is_empty() => {}
                Block::Thinking {
                    signature: None, ..
                } => {}
                _ => kept.push((index, block)),
            }
        }
        if kept.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some(last) if last.role == role => last.blocks.extend(kept),
            _ => turns.push(Turn { role, blocks: kept }),
        }
    }
    for turn in turns.iter_mut().filter(|t| t.role == Role::User) {
        // Stable: results keep their order, and so does the rest.
        turn.blocks
            .sort_by_key(|(_, b)| !matches!(b, Block::ToolResult { .. }));
    }
    Ok(turns)
}

fn write_turns(out: &mut Vec<u8>, turns: &[Turn<'_>], ids: &CallIds) -> Result<(), RenderError> {
    let mut list = ListWriter::open(out);
    for turn in turns {
        let out = list.item();
        out.extend_from_slice(match turn.role {
            Role::User => br#"{"role":"user","content":"#,
            Role::Assistant => br#"{"role":"assistant","content":"#,
            Role::System => br#"{"role":"system","content":"#,
        });
        let mut blocks = ListWriter::open(out);
        for &(index, block) in &turn.blocks {
            write_block(blocks.item(), index, block, ids)?;
        }
        blocks.finish();
        out.push(b'}');
    }
    list.finish();
    Ok(())
}

fn write_block(
    out: &mut Vec<u8>,
    index: usize,
    block: &Block,
    ids: &CallIds,
) -> Result<(), RenderError> {
    match block {
        Block::Text { text, cache } => write_text(out, text, *cache),
        Block::Image { url, .. } => write_image(out, index, url)?,
        Block::ToolCall {
            call_id,
            name,
            arguments,
            custom_input,
        } => {
            out.extend_from_slice(br#"{"type":"tool_use","id":"#);
            write_str(out, ids.get(call_id));
            out.extend_from_slice(br#","name":"#);
            write_str(out, name);
            out.extend_from_slice(br#","input":"#);
            write_input(out, arguments, custom_input.as_deref());
            out.push(b'}');
        }
        Block::ToolResult {
            call_id,
            content,
            is_error,
            cache,
        } => {
            out.extend_from_slice(br#"{"type":"tool_result","tool_use_id":"#);
            write_str(out, ids.get(call_id));
            // Empty text parts are left out: the API refuses empty text blocks (and an
            // empty string content is one); a result with nothing left has no `content`,
            // which the API accepts for a tool that returned nothing.
            let kept = content
                .iter()
                .filter(|p| !matches!(p, ResultPart::Text { text } if text.is_empty()));
            match (kept.clone().count(), kept.clone().next()) {
                (0, _) => {}
                (1, Some(ResultPart::Text { text })) => {
                    out.extend_from_slice(br#","content":"#);
                    write_str(out, text);
                }
                _ => {
                    out.extend_from_slice(br#","content":"#);
                    let mut list = ListWriter::open(out);
                    for part in kept {
                        match part {
                            ResultPart::Text { text } => write_text(list.item(), text, false),
                            ResultPart::Image { url } => write_image(list.item(), index, url)?,
                        }
                    }
                    list.finish();
                }
            }
            if let Some(is_error) = is_error {
                out.extend_from_slice(if *is_error {
                    br#","is_error":true"#
                } else {
                    br#","is_error":false"#
                });
            }
            if *cache {
                out.extend_from_slice(CACHE_CONTROL);
            }
            out.push(b'}');
        }
        Block::Thinking {
            text,
            signature: Some(signature),
            ..
        } => {
            out.extend_from_slice(br#"{"type":"thinking","thinking":"#);
            write_str(out, text);
            out.extend_from_slice(br#","signature":"#);
            write_str(out, signature);
            out.push(b'}');
        }
        // Unsigned thinking is filtered out by `turns`.
        Block::Thinking { .. } => out.extend_from_slice(b"null"),
        Block::RedactedThinking { data } => {
            out.extend_from_slice(br#"{"type":"redacted_thinking","data":"#);
            write_str(out, data);
            out.push(b'}');
        }
    }
    Ok(())
}

fn write_text(out: &mut Vec<u8>, text: &str, cache: bool) {
    out.extend_from_slice(br#"{"type":"text","text":"#);
    write_str(out, text);
    if cache {
        out.extend_from_slice(CACHE_CONTROL);
    }
    out.push(b'}');
}

/// An image block: base64 source from a `data:` URL, URL source otherwise.
fn write_image(out: &mut Vec<u8>, index: usize, url: &str) -> Result<(), RenderError> {
    let Some(rest) = url.strip_prefix("data:") else {
        out.extend_from_slice(br#"{"type":"image","source":{"type":"url","url":"#);
        write_str(out, url);
        out.extend_from_slice(b"}}");
        return Ok(());
    };
    let media_type = rest
        .split_once(',')
        .and_then(|(meta, _)| meta.strip_suffix(";base64"))
        .filter(|media| !media.is_empty());
    let (Some(media_type), Some((_, data))) = (media_type, rest.split_once(',')) else {
        return Err(RenderError::InvalidMessage {
            index,
            reason:
                "an image data URL must be `data:<media type>;base64,<data>` on the messages wire"
                    .to_string(),
        });
    };
    out.extend_from_slice(br#"{"type":"image","source":{"type":"base64","media_type":"#);
    write_str(out, media_type);
    out.extend_from_slice(br#","data":"#);
    write_str(out, data);
    out.extend_from_slice(b"}}");
    Ok(())
}

/// A call's `input` object (see the module docs for empty and malformed arguments).
fn write_input(out: &mut Vec<u8>, arguments: &str, custom_input: Option<&str>) {
    let trimmed = arguments.trim();
    if trimmed.is_empty() {
        match custom_input {
            Some(input) => {
                out.extend_from_slice(br#"{"input":"#);
                write_str(out, input);
                out.push(b'}');
            }
            None => out.extend_from_slice(b"{}"),
        }
    } else if trimmed.starts_with('{')
        && serde_json::from_str::<serde::de::IgnoredAny>(trimmed).is_ok()
    {
        // Valid JSON object text: sent as written (key order and numbers untouched).
        out.extend_from_slice(trimmed.as_bytes());
    } else {
        out.extend_from_slice(br#"{"_raw":"#);
        write_str(out, arguments);
        out.push(b'}');
    }
}

fn write_tools(out: &mut Vec<u8>, req: &ShapedRequest) {
    let names = wire_tool_names(&req.tools, Wire::Messages);
    let mut list = ListWriter::open(out);
    let last = req.tools.len().saturating_sub(1);
    for (i, (tool, name)) in req.tools.iter().zip(&names).enumerate() {
        let out = list.item();
        out.extend_from_slice(br#"{"name":"#);
        write_str(out, name);
        if !tool.description.is_empty() {
            out.extend_from_slice(br#","description":"#);
            write_str(out, &tool.description);
        }
        out.extend_from_slice(br#","input_schema":"#);
        // A `Value` holds only finite numbers; writing into a Vec cannot fail.
        let _ = match &tool.kind {
            tack_protocol::ToolSpecKind::Function { parameters, .. } => {
                write_value(out, parameters)
            }
            tack_protocol::ToolSpecKind::Freeform { .. } => write_value(out, &tool.parameters()),
        };
        if req.cache_tools && i == last {
            out.extend_from_slice(CACHE_CONTROL);
        }
        out.push(b'}');
    }
    list.finish();
}

fn write_tool_choice(out: &mut Vec<u8>, choice: &ToolChoice, no_parallel: bool) {
    match choice {
        ToolChoice::Auto => out.extend_from_slice(br#"{"type":"auto""#),
        ToolChoice::Required => out.extend_from_slice(br#"{"type":"any""#),
        ToolChoice::None => out.extend_from_slice(br#"{"type":"none""#),
        ToolChoice::Tool(name) => {
            out.extend_from_slice(br#"{"type":"tool","name":"#);
            write_str(out, name);
        }
    }
    if no_parallel && *choice != ToolChoice::None {
        out.extend_from_slice(br#","disable_parallel_tool_use":true"#);
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_ids_are_kept_and_others_rewritten_stably() {
        assert_eq!(tool_use_id("toolu_01A-b"), "toolu_01A-b");
        let kimi = tool_use_id("functions.ls:0");
        assert!(kimi.starts_with("functions_ls_0_"));
        assert_eq!(kimi.len(), "functions_ls_0_".len() + 16);
        assert!(is_valid_tool_use_id(&kimi));
        assert_eq!(tool_use_id("functions.ls:0"), kimi, "a pure function");
        assert_ne!(tool_use_id("functions.ls:1"), kimi);
        // Same sanitized text, different ids: the hash tells them apart.
        assert_ne!(tool_use_id("a.b"), tool_use_id("a:b"));
        assert!(is_valid_tool_use_id(&tool_use_id("")));
        assert!(is_valid_tool_use_id(&tool_use_id("é/ü")));
        let long = tool_use_id(&"x.".repeat(100)).into_owned();
        assert_eq!(long.len(), MAX_KEPT_ID_CHARS + 17);
    }

    #[test]
    fn fnv_matches_the_reference_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
