//! Generic history conversion: session items → shaped messages.
//!
//! This is the conversion the `native` and `minimal` harnesses use, and the base other harnesses
//! start from. The rules (restated from the anchor's chat-wire converter, openinterpreter 0.0.40
//! `codex-rs/chat-wire-compat/src/request.rs` `convert_request`, with its flaws fixed):
//! - Assistant output of one response (reasoning, text, tool calls) accumulates into one
//!   assistant message, flushed when the first tool output arrives or another author speaks.
//! - Tool outputs follow their assistant message directly, in the order they were recorded.
//!   A user or developer message that arrives while some calls are still unanswered (e.g.
//!   steering input) is deferred until the last of those outputs, so every wire's adjacency
//!   rule holds.
//! - A call left without output (an interrupted turn, a crash) gets a synthetic `aborted`
//!   output, so the history is always valid to send.
//! - An output whose call is not in the history (an orphan) is dropped.
//! - Reasoning is replayed only where the target accepts it, and only the provider's own.

use tack_protocol::{ContentPart, Item, ReasoningItem, Role, ToolOutput};
use tack_wire::{Block, ResultPart, ShapedMessage, ShapedRole};

/// Text of the synthetic output of a call that never got one.
pub const ABORTED_OUTPUT: &str = "aborted: the call was interrupted before it produced output";

/// How developer messages are rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeveloperMode {
    /// As user messages (most OpenAI-compatible hosts reject `developer`).
    AsUser,
    /// As `developer` messages (OpenAI).
    AsDeveloper,
    /// Dropped (the harness put them in the system prompt).
    Drop,
}

/// Which reasoning items are replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReasoningReplay {
    /// None.
    Drop,
    /// The readable reasoning text of every reasoning item, whichever provider or wire
    /// produced it: for targets whose thinking models require the reasoning of earlier
    /// tool-call turns back (DeepSeek and Kimi `reasoning_content`). A session that moved
    /// there from another provider mid-way still satisfies it: Anthropic thinking text,
    /// another Chat provider's `reasoning_content` and Responses summaries are all sent as
    /// text (signatures and encrypted content stay behind; they mean nothing elsewhere).
    Readable,
    /// Only Anthropic-signed thinking and redacted thinking (Messages), replayed exactly.
    SignedOnly,
}

/// Conversion options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryOptions {
    /// Developer messages.
    pub developer: DeveloperMode,
    /// Keep `system` messages found in history (else dropped; the system prompt is separate).
    pub keep_system: bool,
    /// Reasoning replay.
    pub reasoning: ReasoningReplay,
    /// Keep images (vision models); else they become a short text placeholder.
    pub keep_images: bool,
}

impl Default for HistoryOptions {
    fn default() -> Self {
        HistoryOptions {
            developer: DeveloperMode::AsUser,
            keep_system: false,
            reasoning: ReasoningReplay::Drop,
            keep_images: true,
        }
    }
}

/// Converts history to shaped messages. See the module docs for the rules.
pub fn convert(history: &[Item], opts: &HistoryOptions) -> Vec<ShapedMessage> {
    let mut c = Converter {
        opts,
        out: Vec::new(),
        pending: None,
        open_calls: Vec::new(),
        answered_any: false,
        deferred: Vec::new(),
    };
    for item in history {
        c.item(item);
    }
    c.finish()
}

struct Converter<'a> {
    opts: &'a HistoryOptions,
    out: Vec<ShapedMessage>,
    /// The assistant message being accumulated.
    pending: Option<ShapedMessage>,
    /// Calls of the last flushed (or pending) assistant message still waiting for output.
    open_calls: Vec<String>,
    /// Whether some output of the current call group has been emitted (the assistant message is
    /// then flushed and cannot take more content).
    answered_any: bool,
    /// Non-assistant messages waiting for the open calls to be answered.
    deferred: Vec<ShapedMessage>,
}

impl Converter<'_> {
    fn item(&mut self, item: &Item) {
        match item {
            Item::Message(m) => match m.role {
                Role::Assistant => {
                    let blocks = self.parts(&m.content);
                    if blocks.is_empty() {
                        return;
                    }
                    self.assistant_blocks().extend(blocks);
                }
                Role::User => {
                    let msg = ShapedMessage::new(ShapedRole::User, self.parts(&m.content));
                    self.other(msg);
                }
                Role::Developer => {
                    let role = match self.opts.developer {
                        DeveloperMode::AsUser => ShapedRole::User,
                        DeveloperMode::AsDeveloper => ShapedRole::Developer,
                        DeveloperMode::Drop => return,
                    };
                    let msg = ShapedMessage::new(role, self.parts(&m.content));
                    self.other(msg);
                }
                Role::System => {
                    if self.opts.keep_system {
                        let msg = ShapedMessage::new(ShapedRole::System, self.parts(&m.content));
                        self.other(msg);
                    }
                }
            },
            Item::Reasoning(r) => {
                if let Some(block) = self.reasoning_block(r) {
                    self.assistant_blocks().push(block);
                }
            }
            Item::FunctionCall(call) => {
                let block = Block::ToolCall {
                    call_id: call.call_id.clone(),
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                    custom_input: None,
                };
                self.call(call.call_id.clone(), block);
            }
            Item::CustomToolCall(call) => {
                let arguments = serde_json::json!({ "input": call.input }).to_string();
                let block = Block::ToolCall {
                    call_id: call.call_id.clone(),
                    name: call.name.clone(),
                    arguments,
                    custom_input: Some(call.input.clone()),
                };
                self.call(call.call_id.clone(), block);
            }
            Item::LocalShellCall(call) => {
                let mut args = serde_json::Map::new();
                args.insert(
                    "command".into(),
                    crate::shell_command_text(&call.command).into(),
                );
                if let Some(dir) = &call.workdir {
                    args.insert("workdir".into(), dir.clone().into());
                }
                if let Some(ms) = call.timeout_ms {
                    args.insert("timeout_ms".into(), ms.into());
                }
                let block = Block::ToolCall {
                    call_id: call.call_id.clone(),
                    name: "shell".into(),
                    arguments: serde_json::Value::Object(args).to_string(),
                    custom_input: None,
                };
                self.call(call.call_id.clone(), block);
            }
            Item::ToolOutput(o) => {
                let Some(pos) = self.open_calls.iter().position(|id| *id == o.call_id) else {
                    tracing::debug!(call_id = %o.call_id, "dropping tool output without a call");
                    return;
                };
                self.open_calls.remove(pos);
                self.flush_pending();
                self.answered_any = true;
                let block = self.result_block(&o.call_id, &o.output);
                self.out
                    .push(ShapedMessage::new(ShapedRole::Tool, vec![block]));
                if self.open_calls.is_empty() {
                    self.answered_any = false;
                    self.out.append(&mut self.deferred);
                }
            }
        }
    }

    /// A non-assistant message: deferred while calls are open, else emitted after flushing.
    fn other(&mut self, msg: ShapedMessage) {
        if msg.content.is_empty() {
            return;
        }
        if self.open_calls.is_empty() {
            self.flush_pending();
            self.out.push(msg);
        } else {
            self.deferred.push(msg);
        }
    }

    /// The assistant message to append to, closing the previous call group if it was already
    /// (partly) answered.
    fn assistant_blocks(&mut self) -> &mut Vec<Block> {
        if self.answered_any {
            self.abort_open_calls();
        }
        &mut self
            .pending
            .get_or_insert_with(|| ShapedMessage::new(ShapedRole::Assistant, Vec::new()))
            .content
    }

    fn call(&mut self, call_id: String, block: Block) {
        self.assistant_blocks().push(block);
        self.open_calls.push(call_id);
    }

    fn flush_pending(&mut self) {
        if let Some(p) = self.pending.take()
            && !p.content.is_empty()
        {
            self.out.push(p);
        }
    }

    /// Gives every open call a synthetic aborted output, then releases deferred messages.
    fn abort_open_calls(&mut self) {
        self.flush_pending();
        for id in std::mem::take(&mut self.open_calls) {
            let block = self.result_block(&id, &ToolOutput::aborted(ABORTED_OUTPUT));
            self.out
                .push(ShapedMessage::new(ShapedRole::Tool, vec![block]));
        }
        self.answered_any = false;
        self.out.append(&mut self.deferred);
    }

    fn finish(mut self) -> Vec<ShapedMessage> {
        self.abort_open_calls();
        self.flush_pending();
        self.out
    }

    fn parts(&self, parts: &[ContentPart]) -> Vec<Block> {
        parts
            .iter()
            .filter_map(|p| match p {
                ContentPart::Text { text } if text.is_empty() => None,
                ContentPart::Text { text } => Some(Block::Text {
                    text: text.clone(),
                    cache: false,
                }),
                ContentPart::Image { url, detail } if self.opts.keep_images => Some(Block::Image {
                    url: url.clone(),
                    detail: detail.clone(),
                }),
                ContentPart::Image { .. } => Some(Block::Text {
                    text: "[image omitted: this model does not accept images]".into(),
                    cache: false,
                }),
            })
            .collect()
    }

    fn reasoning_block(&self, r: &ReasoningItem) -> Option<Block> {
        match &self.opts.reasoning {
            ReasoningReplay::Drop => None,
            ReasoningReplay::Readable => {
                let text = r.readable_text();
                (!text.is_empty()).then(|| Block::Thinking {
                    text,
                    signature: None,
                    encrypted_content: None,
                    summary: Vec::new(),
                })
            }
            ReasoningReplay::SignedOnly => {
                if let Some(data) = &r.redacted_data {
                    Some(Block::RedactedThinking { data: data.clone() })
                } else {
                    r.signature.as_ref().map(|sig| Block::Thinking {
                        text: r.text.clone(),
                        signature: Some(sig.clone()),
                        encrypted_content: None,
                        summary: Vec::new(),
                    })
                }
            }
        }
    }

    fn result_block(&self, call_id: &str, output: &ToolOutput) -> Block {
        let mut content = vec![ResultPart::Text {
            text: output.text.clone(),
        }];
        for part in &output.content {
            if let ContentPart::Image { url, .. } = part
                && self.opts.keep_images
            {
                content.push(ResultPart::Image { url: url.clone() });
            }
        }
        Block::ToolResult {
            call_id: call_id.to_string(),
            content,
            is_error: (!output.success()).then_some(true),
            cache: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::{FunctionCallItem, ReasoningOrigin, ToolOutputItem, Wire};

    fn user(text: &str) -> Item {
        Item::text(format!("u-{text}"), Role::User, text)
    }
    fn assistant(text: &str) -> Item {
        Item::text(format!("a-{text}"), Role::Assistant, text)
    }
    fn call(id: &str) -> Item {
        Item::FunctionCall(FunctionCallItem {
            id: format!("fc-{id}"),
            call_id: id.into(),
            name: "shell".into(),
            namespace: None,
            arguments: r#"{"command":"ls"}"#.into(),
        })
    }
    fn output(id: &str, text: &str) -> Item {
        Item::ToolOutput(ToolOutputItem {
            id: format!("out-{id}"),
            call_id: id.into(),
            output: ToolOutput::ok(text),
        })
    }
    fn roles(msgs: &[ShapedMessage]) -> Vec<ShapedRole> {
        msgs.iter().map(|m| m.role).collect()
    }
    fn result_ids(msgs: &[ShapedMessage]) -> Vec<String> {
        msgs.iter()
            .flat_map(|m| m.content.iter())
            .filter_map(|b| match b {
                Block::ToolResult { call_id, .. } => Some(call_id.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn parallel_calls_share_one_assistant_message_and_outputs_follow_in_order() {
        let h = vec![
            user("go"),
            assistant("looking"),
            call("a"),
            call("b"),
            output("a", "A"),
            output("b", "B"),
            assistant("done"),
        ];
        let m = convert(&h, &HistoryOptions::default());
        assert_eq!(
            roles(&m),
            vec![
                ShapedRole::User,
                ShapedRole::Assistant,
                ShapedRole::Tool,
                ShapedRole::Tool,
                ShapedRole::Assistant
            ]
        );
        assert_eq!(m[1].content.len(), 3, "text + two calls in one message");
        assert_eq!(result_ids(&m), vec!["a", "b"]);
    }

    #[test]
    fn user_input_between_outputs_is_deferred_until_the_group_is_answered() {
        let h = vec![
            user("go"),
            call("a"),
            call("b"),
            output("a", "A"),
            user("steer"),
            output("b", "B"),
        ];
        let m = convert(&h, &HistoryOptions::default());
        assert_eq!(
            roles(&m),
            vec![
                ShapedRole::User,
                ShapedRole::Assistant,
                ShapedRole::Tool,
                ShapedRole::Tool,
                ShapedRole::User
            ]
        );
    }

    #[test]
    fn unanswered_calls_get_aborted_outputs_before_later_messages() {
        let h = vec![user("go"), call("a"), user("are you there?")];
        let m = convert(&h, &HistoryOptions::default());
        assert_eq!(
            roles(&m),
            vec![
                ShapedRole::User,
                ShapedRole::Assistant,
                ShapedRole::Tool,
                ShapedRole::User
            ]
        );
        match &m[2].content[0] {
            Block::ToolResult {
                call_id,
                content,
                is_error,
                ..
            } => {
                assert_eq!(call_id, "a");
                assert_eq!(*is_error, Some(true));
                assert!(matches!(&content[0], ResultPart::Text { text } if text == ABORTED_OUTPUT));
            }
            other => panic!("{other:?}"),
        }
        // Also at the very end of history.
        let m = convert(&[user("go"), call("z")], &HistoryOptions::default());
        assert_eq!(result_ids(&m), vec!["z"]);
    }

    #[test]
    fn a_new_response_after_a_partly_answered_group_closes_it() {
        let h = vec![
            user("go"),
            call("a"),
            call("b"),
            output("a", "A"),
            call("c"),
        ];
        let m = convert(&h, &HistoryOptions::default());
        assert_eq!(result_ids(&m), vec!["a", "b", "c"]);
        assert_eq!(
            roles(&m),
            vec![
                ShapedRole::User,
                ShapedRole::Assistant,
                ShapedRole::Tool,
                ShapedRole::Tool,
                ShapedRole::Assistant,
                ShapedRole::Tool
            ]
        );
    }

    #[test]
    fn orphan_outputs_are_dropped() {
        let m = convert(&[user("go"), output("x", "X")], &HistoryOptions::default());
        assert_eq!(roles(&m), vec![ShapedRole::User]);
    }

    #[test]
    fn reasoning_is_replayed_only_for_the_same_provider() {
        let reasoning = |provider: &str| {
            Item::Reasoning(ReasoningItem {
                id: "r".into(),
                text: format!("thinking on {provider}"),
                origin: Some(ReasoningOrigin {
                    wire: Wire::Chat,
                    provider: Some(provider.into()),
                    model: None,
                }),
                ..Default::default()
            })
        };
        let opts = HistoryOptions {
            reasoning: ReasoningReplay::Readable,
            ..Default::default()
        };
        let h = vec![
            user("go"),
            reasoning("deepseek"),
            call("a"),
            output("a", "A"),
        ];
        let m = convert(&h, &opts);
        assert!(
            matches!(&m[1].content[0], Block::Thinking { text, .. } if text == "thinking on deepseek")
        );
        // Recorded on another provider (the session moved): converted, not dropped, since
        // the target needs the reasoning of earlier tool-call turns.
        let h = vec![user("go"), reasoning("openai"), call("a"), output("a", "A")];
        let m = convert(&h, &opts);
        assert!(
            matches!(&m[1].content[0], Block::Thinking { text, signature: None, .. } if text == "thinking on openai")
        );
        let m = convert(&h, &HistoryOptions::default());
        assert!(
            m[1].content
                .iter()
                .all(|b| !matches!(b, Block::Thinking { .. }))
        );
    }

    #[test]
    fn developer_messages_follow_the_mode() {
        let dev = Item::text("d", Role::Developer, "rules");
        let m = convert(std::slice::from_ref(&dev), &HistoryOptions::default());
        assert_eq!(roles(&m), vec![ShapedRole::User]);
        let m = convert(
            std::slice::from_ref(&dev),
            &HistoryOptions {
                developer: DeveloperMode::Drop,
                ..Default::default()
            },
        );
        assert!(m.is_empty());
    }
}
