//! The chat message builder shared by the chat-native harnesses: kimi-cli, kimi-code,
//! deepseek-tui and qwen-code (the anchor's `build_messages_with_options`, openinterpreter 0.0.40
//! `codex-rs/core/src/harness/kimi_cli.rs`), and
//! opencode, whose AI-SDK conversion has the same shape.
//!
//! It starts from the generic conversion ([`history::convert`]), which already does what the
//! anchor's builder does: tool calls accumulate with the assistant's text and reasoning into one
//! assistant message that is flushed when the first output arrives; outputs follow in call
//! order; an output whose call is not in the history (an orphan) is dropped. Where the anchor
//! builder was wrong this one is not:
//! - a call left without an output is answered with the CLI's own "aborted" result instead of
//!   being silently dropped, so the history stays valid for providers that require every
//!   `tool_calls` entry to be answered (OpenAI, DeepSeek, Moonshot);
//! - user input that arrives while calls are open is deferred until after their outputs rather
//!   than discarding the calls;
//! - reasoning goes back as `reasoning_content` only to a provider that takes it (DeepSeek,
//!   Moonshot/Kimi; see [`crate::rules`]) and only the provider's own, decided per request.
//!
//! A [`ChatStyle`] then applies each CLI's conventions (the anchor's option sets in `kimi_cli.rs`, corrected
//! by the captures where they differ):
//! - tool-call arguments as recorded (kimi-cli), compact JSON in the model's key order
//!   (kimi-code, deepseek-tui, qwen-code: qwen's converter re-serializes the parsed arguments
//!   with `JSON.stringify`), or compact in the tool schema's key order with unknown keys dropped
//!   (opencode: the AI SDK stores the zod-validated input, and zod rebuilds objects in schema
//!   order);
//! - tool-call ids as recorded, or with `:` replaced by `_` (kimi-code);
//! - tool results framed the kimi way (`<system>ERROR: …</system>` for failures, `<system>Tool
//!   output is empty.</system>` for empty output, leading `<system>` notes as separate content
//!   parts, as kosong sends them) or plain;
//! - images in tool results moved to a user message after the tool messages (kimi-cli,
//!   qwen-code), since many OpenAI-compatible servers reject images in `role: "tool"`;
//! - user content always as an array of parts (qwen-code, per the capture), trailing newlines
//!   trimmed (kimi-cli, deepseek-tui);
//! - a reasoning placeholder on tool-call turns (deepseek-tui: DeepSeek's thinking mode wants
//!   `reasoning_content` back on every tool-call turn) or an empty `reasoning_content` on every
//!   assistant message (kimi-code).

use std::collections::HashMap;

use serde_json::{Map, Value};
use tack_protocol::{Item, LocalShellCallItem, ProviderInfo, ToolOutput};
use tack_wire::{Block, ResultPart, ShapedMessage, ShapedRole};

use crate::history::{self, DeveloperMode, HistoryOptions, ReasoningReplay};
use crate::rules;

/// How tool-call arguments are sent back.
#[derive(Clone, Copy)]
pub(crate) enum Arguments {
    /// Exactly as the model produced them.
    AsRecorded,
    /// Parsed and re-serialized compactly, keys in the model's order.
    Compact,
    /// Parsed and re-serialized compactly with the keys in the order `order(tool)` gives; keys
    /// the schema does not name are dropped. Tools without an order are sent compact.
    SchemaOrder(fn(&str) -> Option<&'static [&'static str]>),
}

/// How tool-call ids are sent back.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallIds {
    /// As recorded.
    AsRecorded,
    /// `:` replaced by `_` (Kimi's ids look like `functions.Bash:0`).
    ColonToUnderscore,
}

/// How tool results are framed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// The result text as is.
    Plain,
    /// kimi (kosong): failures wrapped as `<system>ERROR: …</system>` unless the harness already
    /// framed them, leading `<system>…</system>` notes sent as their own content parts.
    KimiSystem,
}

/// Where images found in tool results go.
#[derive(Clone, Copy)]
pub(crate) enum ToolMedia {
    /// Inside the tool message (as `image_url` parts).
    InResult,
    /// Into one user message after the group's tool messages.
    FollowingUserMessage {
        /// Appended to a tool result that lost images.
        note: &'static str,
        /// Text part leading the user message.
        lead: &'static str,
    },
}

/// A CLI's message conventions.
#[derive(Clone, Copy)]
pub(crate) struct ChatStyle {
    /// Developer messages in history.
    pub(crate) developer: DeveloperMode,
    /// Tool-call arguments.
    pub(crate) arguments: Arguments,
    /// Tool-call ids.
    pub(crate) call_ids: CallIds,
    /// Trim trailing newlines off user text.
    pub(crate) trim_user_newlines: bool,
    /// Send user content as an array of parts even when it is one text.
    pub(crate) user_parts: bool,
    /// Tool-result framing.
    pub(crate) framing: Framing,
    /// Text of an empty tool result (`None`: leave it empty).
    pub(crate) empty_result: Option<&'static str>,
    /// Text of the result given to a call that never got one.
    pub(crate) aborted_result: &'static str,
    /// Send tool-result text as an array of text parts (`""` when empty).
    pub(crate) result_parts: bool,
    /// Images in tool results.
    pub(crate) tool_media: ToolMedia,
    /// The CLI sends the assistant's reasoning back (only done where the provider takes it).
    pub(crate) replay_reasoning: bool,
    /// Put `reasoning_content: ""` on assistant messages that have no reasoning.
    pub(crate) empty_reasoning: bool,
    /// Reasoning text for a tool-call message that has none.
    pub(crate) reasoning_placeholder: Option<&'static str>,
    /// `content: ""` (not `null`) on a tool-call message that carries reasoning.
    pub(crate) empty_content_with_reasoning: bool,
    /// The CLI's shell tool for a recorded local shell call: (name, arguments).
    pub(crate) local_shell: fn(&LocalShellCallItem) -> (&'static str, Value),
}

/// Builds the conversation messages (everything after the system prompt).
pub(crate) fn build(
    history: &[Item],
    provider: &ProviderInfo,
    style: &ChatStyle,
) -> Vec<ShapedMessage> {
    let replay = style.replay_reasoning && rules::for_provider(provider).replay_reasoning;
    let opts = HistoryOptions {
        developer: style.developer,
        keep_system: false,
        reasoning: if replay {
            ReasoningReplay::Readable
        } else {
            ReasoningReplay::Drop
        },
        keep_images: true,
    };
    let converted = history::convert(history, &opts);
    let mut calls: HashMap<&str, &Item> = HashMap::new();
    let mut outputs: HashMap<&str, &ToolOutput> = HashMap::new();
    for item in history {
        if let Some(id) = item.call_id() {
            calls.entry(id).or_insert(item);
        }
        if let Item::ToolOutput(o) = item {
            outputs.entry(o.call_id.as_str()).or_insert(&o.output);
        }
    }
    let builder = Builder {
        style,
        replay,
        calls,
        outputs,
    };
    let mut out = Vec::with_capacity(converted.len());
    let mut media: Vec<Block> = Vec::new();
    for mut msg in converted {
        if msg.role != ShapedRole::Tool && !media.is_empty() {
            out.push(builder.media_message(std::mem::take(&mut media)));
        }
        match msg.role {
            ShapedRole::User => builder.user(&mut msg),
            ShapedRole::Assistant => builder.assistant(&mut msg),
            ShapedRole::Tool => builder.tool(&mut msg, &mut media),
            ShapedRole::System | ShapedRole::Developer => {}
        }
        out.push(msg);
    }
    if !media.is_empty() {
        out.push(builder.media_message(media));
    }
    out
}

struct Builder<'a> {
    style: &'a ChatStyle,
    replay: bool,
    calls: HashMap<&'a str, &'a Item>,
    outputs: HashMap<&'a str, &'a ToolOutput>,
}

impl Builder<'_> {
    fn call_id(&self, id: &str) -> String {
        match self.style.call_ids {
            CallIds::AsRecorded => id.to_string(),
            CallIds::ColonToUnderscore => id.replace(':', "_"),
        }
    }

    fn user(&self, msg: &mut ShapedMessage) {
        if self.style.trim_user_newlines
            && let Some(Block::Text { text, .. }) = msg
                .content
                .iter_mut()
                .rev()
                .find(|b| matches!(b, Block::Text { .. }))
        {
            let kept = text.trim_end_matches(['\n', '\r']).len();
            text.truncate(kept);
        }
        if self.style.user_parts {
            force_parts(msg);
        }
    }

    fn assistant(&self, msg: &mut ShapedMessage) {
        let mut has_calls = false;
        let mut has_thinking = false;
        let mut has_text = false;
        for block in &mut msg.content {
            match block {
                Block::ToolCall {
                    call_id,
                    name,
                    arguments,
                    custom_input,
                } => {
                    has_calls = true;
                    if let Some(Item::LocalShellCall(local)) = self.calls.get(call_id.as_str()) {
                        let (cli_name, args) = (self.style.local_shell)(local);
                        *name = cli_name.to_string();
                        *arguments = Value::Object(args_object(args)).to_string();
                    } else if custom_input.is_none() {
                        *arguments = rewrite_arguments(self.style.arguments, name, arguments);
                    }
                    *call_id = self.call_id(call_id);
                }
                Block::Thinking { .. } => has_thinking = true,
                Block::Text { text, .. } if !text.is_empty() => has_text = true,
                _ => {}
            }
        }
        if !self.replay {
            return;
        }
        if has_calls
            && !has_thinking
            && let Some(placeholder) = self.style.reasoning_placeholder
        {
            msg.content.insert(
                0,
                Block::Thinking {
                    text: placeholder.to_string(),
                    signature: None,
                    encrypted_content: None,
                    summary: Vec::new(),
                },
            );
            has_thinking = true;
        }
        if !has_thinking && self.style.empty_reasoning {
            msg.extra
                .insert("reasoning_content".into(), Value::String(String::new()));
        }
        if has_calls && has_thinking && !has_text && self.style.empty_content_with_reasoning {
            msg.extra
                .insert("content".into(), Value::String(String::new()));
        }
    }

    fn tool(&self, msg: &mut ShapedMessage, media: &mut Vec<Block>) {
        for block in &mut msg.content {
            let Block::ToolResult {
                call_id, content, ..
            } = block
            else {
                continue;
            };
            let recorded = self.outputs.get(call_id.as_str()).copied();
            *call_id = self.call_id(call_id);
            let mut images: Vec<String> = Vec::new();
            let mut text = String::new();
            for part in content.drain(..) {
                match part {
                    ResultPart::Text { text: t } => text.push_str(&t),
                    ResultPart::Image { url } => images.push(url),
                }
            }
            let mut parts = self.result_text(text, recorded);
            if let ToolMedia::FollowingUserMessage { note, .. } = self.style.tool_media
                && !images.is_empty()
            {
                parts.push(note.to_string());
                media.extend(
                    images
                        .drain(..)
                        .map(|url| Block::Image { url, detail: None }),
                );
            }
            let multi = parts.len() > 1;
            content.extend(parts.iter().map(|t| ResultPart::Text { text: t.clone() }));
            content.extend(images.into_iter().map(|url| ResultPart::Image { url }));
            // The Chat renderer sends one text as a string and joins several; kosong sends a
            // list of parts, and qwen-code always does. Say exactly what to send.
            let has_images = content
                .iter()
                .any(|p| matches!(p, ResultPart::Image { .. }));
            if !has_images && (multi || self.style.result_parts) {
                let value = if parts.iter().all(String::is_empty) && self.style.result_parts {
                    Value::String(String::new())
                } else {
                    Value::Array(parts.iter().map(|t| text_part(t)).collect())
                };
                msg.extra.insert("content".into(), value);
            }
        }
    }

    /// The text parts of one tool result.
    fn result_text(&self, text: String, recorded: Option<&ToolOutput>) -> Vec<String> {
        let Some(output) = recorded else {
            // The call never got an output (an interrupted turn): the CLI's own aborted result.
            return vec![self.style.aborted_result.to_string()];
        };
        if text.is_empty() {
            return vec![self.style.empty_result.unwrap_or("").to_string()];
        }
        match self.style.framing {
            Framing::Plain => vec![text],
            Framing::KimiSystem => {
                if !output.success() && !text.starts_with("<system>") {
                    return vec![format!("<system>ERROR: {text}</system>")];
                }
                split_system_notes(&text)
            }
        }
    }

    fn media_message(&self, images: Vec<Block>) -> ShapedMessage {
        let lead = match self.style.tool_media {
            ToolMedia::FollowingUserMessage { lead, .. } => lead,
            ToolMedia::InResult => "",
        };
        let mut content = Vec::with_capacity(images.len() + 1);
        if !lead.is_empty() {
            content.push(Block::Text {
                text: lead.to_string(),
                cache: false,
            });
        }
        content.extend(images);
        let mut msg = ShapedMessage::new(ShapedRole::User, content);
        if self.style.user_parts {
            force_parts(&mut msg);
        }
        msg
    }
}

/// Splits leading `<system>…</system>` notes off a result text, each as its own part, the way
/// kimi-cli builds a tool message (`[system(message), output]`).
pub(crate) fn split_system_notes(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut rest = text;
    while rest.starts_with("<system>") {
        let Some(end) = rest.find("</system>") else {
            break;
        };
        let cut = end + "</system>".len();
        parts.push(rest[..cut].to_string());
        rest = &rest[cut..];
    }
    if !rest.is_empty() || parts.is_empty() {
        parts.push(rest.to_string());
    }
    parts
}

fn text_part(text: &str) -> Value {
    let mut part = Map::new();
    part.insert("type".into(), Value::String("text".into()));
    part.insert("text".into(), Value::String(text.to_string()));
    Value::Object(part)
}

/// Makes the Chat renderer send a message's content as an array of parts even when it is a
/// single text (qwen-code always sends arrays).
pub(crate) fn force_parts(msg: &mut ShapedMessage) {
    let mut parts = Vec::new();
    for block in &msg.content {
        match block {
            Block::Text { text, .. } => parts.push(text_part(text)),
            Block::Image { url, detail } => {
                let mut image = Map::new();
                image.insert("url".into(), Value::String(url.clone()));
                if let Some(d) = detail {
                    image.insert("detail".into(), Value::String(d.clone()));
                }
                let mut part = Map::new();
                part.insert("type".into(), Value::String("image_url".into()));
                part.insert("image_url".into(), Value::Object(image));
                parts.push(Value::Object(part));
            }
            _ => {}
        }
    }
    if !parts.is_empty() {
        msg.extra.insert("content".into(), Value::Array(parts));
    }
}

fn args_object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// Re-serializes a tool call's arguments per `style`; text that is not a JSON object is sent
/// as recorded (the model's own mistake stays visible to it).
pub(crate) fn rewrite_arguments(style: Arguments, tool: &str, arguments: &str) -> String {
    let parsed = match style {
        Arguments::AsRecorded => return arguments.to_string(),
        _ => match serde_json::from_str::<Value>(arguments) {
            Ok(Value::Object(map)) => map,
            _ => return arguments.to_string(),
        },
    };
    let ordered = match style {
        Arguments::SchemaOrder(order) => match order(tool) {
            Some(keys) => {
                let mut map = parsed;
                let mut out = Map::new();
                for key in keys {
                    if let Some(v) = map.remove(*key) {
                        out.insert((*key).to_string(), v);
                    }
                }
                out
            }
            None => parsed,
        },
        _ => parsed,
    };
    Value::Object(ordered).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tack_protocol::{
        FunctionCallItem, ReasoningItem, ReasoningOrigin, Role, ToolOutputItem, Wire,
    };

    fn provider(id: &str, base: &str) -> ProviderInfo {
        ProviderInfo {
            id: id.into(),
            name: id.into(),
            base_url: base.into(),
            wire: Wire::Chat,
        }
    }

    fn call(id: &str, name: &str, args: &str) -> Item {
        Item::FunctionCall(FunctionCallItem {
            id: format!("fc-{id}"),
            call_id: id.into(),
            name: name.into(),
            namespace: None,
            arguments: args.into(),
        })
    }

    fn output(id: &str, out: ToolOutput) -> Item {
        Item::ToolOutput(ToolOutputItem {
            id: format!("o-{id}"),
            call_id: id.into(),
            output: out,
        })
    }

    fn no_shell(_: &LocalShellCallItem) -> (&'static str, Value) {
        ("Shell", json!({}))
    }

    const KIMI: ChatStyle = ChatStyle {
        developer: DeveloperMode::Drop,
        arguments: Arguments::AsRecorded,
        call_ids: CallIds::ColonToUnderscore,
        trim_user_newlines: true,
        user_parts: false,
        framing: Framing::KimiSystem,
        empty_result: Some("<system>Tool output is empty.</system>"),
        aborted_result: "<system>ERROR: interrupted</system>",
        result_parts: false,
        tool_media: ToolMedia::FollowingUserMessage {
            note: "<system>images follow</system>",
            lead: "",
        },
        replay_reasoning: true,
        empty_reasoning: false,
        reasoning_placeholder: Some("(reasoning omitted)"),
        empty_content_with_reasoning: false,
        local_shell: no_shell,
    };

    #[test]
    fn kimi_framing_marks_errors_and_empty_output_and_splits_notes() {
        let h = vec![
            Item::text("u", Role::User, "go\n\n"),
            call("functions.Shell:0", "Shell", "{\"command\": \"x\"}"),
            call("functions.Shell:1", "Shell", "{}"),
            call("c3", "Shell", "{}"),
            output("functions.Shell:0", ToolOutput::error("boom")),
            output("functions.Shell:1", ToolOutput::ok("")),
            output("c3", ToolOutput::ok("<system>done</system>out")),
        ];
        let m = build(&h, &provider("local", "http://x"), &KIMI);
        assert!(matches!(&m[0].content[0], Block::Text { text, .. } if text == "go"));
        let Block::ToolCall {
            call_id, arguments, ..
        } = &m[1].content[0]
        else {
            panic!()
        };
        assert_eq!(call_id, "functions.Shell_0");
        assert_eq!(arguments, "{\"command\": \"x\"}", "kept as recorded");
        let texts: Vec<Vec<String>> = m[2..]
            .iter()
            .map(|msg| match &msg.content[0] {
                Block::ToolResult {
                    content, call_id, ..
                } => {
                    assert!(!call_id.contains(':'));
                    content
                        .iter()
                        .map(|p| match p {
                            ResultPart::Text { text } => text.clone(),
                            ResultPart::Image { url } => url.clone(),
                        })
                        .collect()
                }
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(texts[0], vec!["<system>ERROR: boom</system>"]);
        assert_eq!(texts[1], vec!["<system>Tool output is empty.</system>"]);
        assert_eq!(texts[2], vec!["<system>done</system>", "out"]);
        assert_eq!(
            m[4].extra.get("content"),
            Some(
                &json!([{"type":"text","text":"<system>done</system>"},{"type":"text","text":"out"}])
            )
        );
    }

    #[test]
    fn unanswered_calls_get_the_cli_aborted_result() {
        let h = vec![
            Item::text("u", Role::User, "go"),
            call("a", "Shell", "{}"),
            Item::text("u2", Role::User, "stop"),
        ];
        let m = build(&h, &provider("local", "http://x"), &KIMI);
        let roles: Vec<ShapedRole> = m.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            vec![
                ShapedRole::User,
                ShapedRole::Assistant,
                ShapedRole::Tool,
                ShapedRole::User
            ]
        );
        assert!(matches!(&m[2].content[0], Block::ToolResult { content, .. }
            if matches!(&content[0], ResultPart::Text { text } if text == "<system>ERROR: interrupted</system>")));
    }

    #[test]
    fn reasoning_placeholder_only_for_providers_that_take_reasoning() {
        let h = vec![
            Item::text("u", Role::User, "go"),
            call("a", "Shell", "{}"),
            output("a", ToolOutput::ok("x")),
        ];
        let m = build(&h, &provider("deepseek", "https://api.deepseek.com"), &KIMI);
        assert!(
            matches!(&m[1].content[0], Block::Thinking { text, .. } if text == "(reasoning omitted)")
        );
        let m = build(&h, &provider("openai", "https://api.openai.com/v1"), &KIMI);
        assert!(
            m[1].content
                .iter()
                .all(|b| !matches!(b, Block::Thinking { .. }))
        );
        // The provider's own reasoning is replayed as is.
        let mut h2 = h.clone();
        h2.insert(
            1,
            Item::Reasoning(ReasoningItem {
                id: "r".into(),
                text: "think".into(),
                origin: Some(ReasoningOrigin {
                    wire: Wire::Chat,
                    provider: Some("deepseek".into()),
                    model: None,
                }),
                ..Default::default()
            }),
        );
        let m = build(
            &h2,
            &provider("deepseek", "https://api.deepseek.com"),
            &KIMI,
        );
        assert!(matches!(&m[1].content[0], Block::Thinking { text, .. } if text == "think"));
    }

    #[test]
    fn tool_images_move_to_a_user_message_after_the_group() {
        let mut with_image = ToolOutput::ok("see");
        with_image.content.push(tack_protocol::ContentPart::Image {
            url: "data:image/png;base64,AA".into(),
            detail: None,
        });
        let h = vec![
            Item::text("u", Role::User, "go"),
            call("a", "ReadMediaFile", "{}"),
            call("b", "Shell", "{}"),
            output("a", with_image),
            output("b", ToolOutput::ok("ok")),
        ];
        let m = build(&h, &provider("local", "http://x"), &KIMI);
        let roles: Vec<ShapedRole> = m.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            vec![
                ShapedRole::User,
                ShapedRole::Assistant,
                ShapedRole::Tool,
                ShapedRole::Tool,
                ShapedRole::User
            ]
        );
        assert!(matches!(&m[4].content[0], Block::Image { .. }));
    }

    #[test]
    fn schema_order_sorts_known_keys_and_drops_the_rest() {
        fn order(tool: &str) -> Option<&'static [&'static str]> {
            (tool == "write").then_some(&["content", "filePath"][..])
        }
        let out = rewrite_arguments(
            Arguments::SchemaOrder(order),
            "write",
            r#"{"filePath":"a","junk":1,"content":"x"}"#,
        );
        assert_eq!(out, r#"{"content":"x","filePath":"a"}"#);
        let out = rewrite_arguments(Arguments::Compact, "x", "{ \"b\": 1, \"a\": 2 }");
        assert_eq!(out, r#"{"b":1,"a":2}"#);
        assert_eq!(rewrite_arguments(Arguments::Compact, "x", "{oops"), "{oops");
    }
}
