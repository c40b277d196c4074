//! History → the message list of an Anthropic-style CLI (claude-code, claude-code-bare,
//! zcode).
//!
//! Rules (the anchor, openinterpreter 0.0.40 `codex-rs/core/src/harness/claude_code.rs`
//! `build_messages` and `zcode.rs`, with its flaws fixed; `docs/sources.md`):
//! - Tool results are **buffered** and flushed, sorted into the order of their `tool_use`
//!   blocks, as one user message before the next non-result item (Anthropic requires every
//!   result of an assistant turn in the user message right after it, and the CLI sends them in
//!   call order whatever order they finished in). A call left without a result (an interrupted
//!   turn) gets a synthetic `aborted` result, so the request is always valid; a result whose
//!   call is not in the open group is dropped.
//! - Adjacent messages with the same role are **merged** into one block list (on Messages;
//!   other wires keep results as tool messages, see [`Options::merge`]).
//! - Assistant text → text blocks; reasoning → `thinking` only where [`ReasoningReplay`]
//!   allows (on Messages: signed thinking replayed exactly with its signature, redacted
//!   thinking as is, unsigned reasoning from other providers dropped).
//! - Function calls → `tool_use` with the parsed arguments; for `Edit`, `replace_all: false`
//!   is filled in and trailing spaces/tabs are cut from each line of `new_string`, as the CLI
//!   stores them. Arguments that are not a JSON object are passed on as the model wrote them
//!   (the anchor failed the whole request; the renderer carries them so the model sees its
//!   mistake next to the tool's error). Local shell calls
//!   become `Bash` calls and freeform calls `{input}` calls instead of being dropped with their
//!   results.
//! - User images become image blocks when the model accepts them (the anchor replaced them
//!   with a placeholder); developer messages become `<system-reminder>` text in a user
//!   message instead of being dropped; system messages in history are dropped (the harness
//!   writes its own).
//! - Tool results: `is_error` true on failure, explicitly `false` for a successful `Bash`,
//!   else absent; `Bash` text is trimmed and `TodoWrite` text loses trailing newlines; error
//!   text is wrapped in `<tool_use_error>` unless it is the output of a command that ran (a
//!   non-zero exit is still the command's own output, so it stays as printed).
//! - Todo reminders ([`TodoReminders`]): after 10 tool results and assistant texts with no
//!   `TodoWrite` (claude-code counts both, once per list; zcode counts results, every 10), a
//!   `<system-reminder>` with the current list is appended to the result that crossed the
//!   threshold: inside its text, or as its own block when the result carries images. Derived
//!   from history alone, so the same history always gives the same bytes (and a stable
//!   prompt cache).
//!
//! Left to the Messages renderer (`tack_wire::render::messages`): rewriting call ids the API
//! would refuse, and merging what is still adjacent after this conversion.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;
use tack_protocol::{
    ContentPart, Item, Prompt, ReasoningItem, Role, TodoEntry, ToolDetails, ToolOutput, ToolStatus,
};
use tack_wire::{Block, ResultPart, ShapedMessage, ShapedRole};

use crate::ShapeError;
use crate::history::{ABORTED_OUTPUT, ReasoningReplay};

/// When the todo reminder is added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TodoReminders {
    /// Never (the todo tool is not advertised).
    Off,
    /// claude-code: once per list, after 10 stale tool results and assistant texts.
    OncePerList,
    /// zcode: every 10 stale tool results.
    EveryTenResults,
}

/// The number of stale steps before a todo reminder (the CLI's default).
pub(crate) const TODO_STALENESS: u32 = 10;

/// Renders the todo reminder for a list (`None`: the todo tool was never used).
pub(crate) type RenderReminder<'a> =
    dyn Fn(Option<&[TodoEntry]>) -> Result<String, ShapeError> + 'a;

/// Conversion options.
pub(crate) struct Options<'a> {
    /// Which reasoning is replayed.
    pub(crate) reasoning: ReasoningReplay,
    /// Send user and tool-result images as images (else a placeholder text).
    pub(crate) keep_images: bool,
    /// Merge same-role neighbours and put tool results in user messages (Messages). Without
    /// it, every result is its own tool message, as Chat and Responses expect.
    pub(crate) merge: bool,
    /// Todo reminder policy.
    pub(crate) todo: TodoReminders,
    /// Renders a todo reminder for the current list (`None`: no list yet).
    pub(crate) todo_reminder: &'a RenderReminder<'a>,
}

/// The items to convert: the prompt's examples (few-shot priming from the provider config) as
/// earlier conversation, then the session history.
pub(crate) fn conversation(prompt: &Prompt) -> Cow<'_, [Item]> {
    if prompt.examples.is_empty() {
        Cow::Borrowed(&prompt.history)
    } else {
        Cow::Owned(
            prompt
                .examples
                .iter()
                .chain(&prompt.history)
                .cloned()
                .collect(),
        )
    }
}

/// Converts history (see the module docs).
///
/// # Errors
/// Only when a todo reminder fails to render.
pub(crate) fn build(
    history: &[Item],
    opts: &Options<'_>,
) -> Result<Vec<ShapedMessage>, ShapeError> {
    let mut b = Builder {
        opts,
        out: Vec::new(),
        group: Vec::new(),
        results: HashMap::new(),
        todo: TodoState::default(),
    };
    for item in history {
        b.item(item)?;
    }
    b.flush()?;
    Ok(b.out)
}

/// A call of the current assistant turn.
struct OpenCall {
    id: String,
    name: String,
    arguments: Value,
}

struct Builder<'a, 'o> {
    opts: &'a Options<'o>,
    out: Vec<ShapedMessage>,
    /// Calls of the assistant turn being answered, in call order.
    group: Vec<OpenCall>,
    /// Their outputs so far, by call id.
    results: HashMap<String, ToolOutput>,
    todo: TodoState,
}

impl Builder<'_, '_> {
    fn item(&mut self, item: &Item) -> Result<(), ShapeError> {
        match item {
            Item::ToolOutput(o) => {
                if self.group.iter().any(|c| c.id == o.call_id) {
                    self.results.insert(o.call_id.clone(), o.output.clone());
                } else {
                    tracing::debug!(call_id = %o.call_id, "dropping a tool output without an open call");
                }
                return Ok(());
            }
            Item::FunctionCall(_)
            | Item::LocalShellCall(_)
            | Item::CustomToolCall(_)
            | Item::Reasoning(_) => {
                // Model output after answered calls starts a new assistant turn; before any
                // answer it is part of the same response.
                if !self.results.is_empty() {
                    self.flush()?;
                }
            }
            Item::Message(m) if m.role == Role::Assistant => {
                if !self.results.is_empty() {
                    self.flush()?;
                }
            }
            Item::Message(_) => self.flush()?,
        }
        match item {
            Item::Message(m) => match m.role {
                Role::Assistant => {
                    let blocks = self.parts(&m.content);
                    if blocks.iter().any(|b| matches!(b, Block::Text { .. })) {
                        self.todo.assistant_text(self.opts.todo);
                    }
                    self.push(ShapedRole::Assistant, blocks);
                }
                Role::User => {
                    let blocks = self.parts(&m.content);
                    self.push(ShapedRole::User, blocks);
                }
                Role::Developer => {
                    let text = m.text();
                    if !text.trim().is_empty() {
                        self.push(
                            ShapedRole::User,
                            vec![text_block(format!(
                                "<system-reminder>\n{}\n</system-reminder>",
                                text.trim()
                            ))],
                        );
                    }
                }
                Role::System => {}
            },
            Item::Reasoning(r) => {
                if let Some(block) = self.thinking(r) {
                    self.push(ShapedRole::Assistant, vec![block]);
                }
            }
            Item::FunctionCall(c) => match serde_json::from_str::<Value>(&c.arguments) {
                Ok(v @ Value::Object(_)) => {
                    let v = if c.name == "Edit" {
                        normalize_edit(v)
                    } else {
                        v
                    };
                    let text = v.to_string();
                    self.call(c.call_id.clone(), c.name.clone(), v, text);
                }
                _ => self.call(
                    c.call_id.clone(),
                    c.name.clone(),
                    Value::Null,
                    c.arguments.clone(),
                ),
            },
            Item::LocalShellCall(c) => {
                let mut args = serde_json::Map::new();
                args.insert(
                    "command".into(),
                    crate::shell_command_text(&c.command).into(),
                );
                if let Some(ms) = c.timeout_ms {
                    args.insert("timeout".into(), ms.into());
                }
                let args = Value::Object(args);
                let text = args.to_string();
                self.call(c.call_id.clone(), "Bash".into(), args, text);
            }
            Item::CustomToolCall(c) => {
                let args = serde_json::json!({ "input": c.input });
                let text = args.to_string();
                self.call(c.call_id.clone(), c.name.clone(), args, text);
            }
            Item::ToolOutput(_) => {}
        }
        Ok(())
    }

    /// Records a call: `arguments` parsed (for the todo state), `text` as sent.
    fn call(&mut self, id: String, name: String, arguments: Value, text: String) {
        let block = Block::ToolCall {
            call_id: id.clone(),
            name: name.clone(),
            arguments: text,
            custom_input: None,
        };
        self.push(ShapedRole::Assistant, vec![block]);
        self.group.push(OpenCall {
            id,
            name,
            arguments,
        });
    }

    /// Emits the results of the open group in call order (synthetic `aborted` results for
    /// calls that have none).
    fn flush(&mut self) -> Result<(), ShapeError> {
        if self.group.is_empty() {
            return Ok(());
        }
        let group = std::mem::take(&mut self.group);
        let mut results = std::mem::take(&mut self.results);
        for call in group {
            let output = results
                .remove(&call.id)
                .unwrap_or_else(|| ToolOutput::aborted(ABORTED_OUTPUT));
            let reminder = self.todo.result(&call, &output, self.opts)?;
            let block = self.result_block(&call, &output, reminder);
            let role = if self.opts.merge {
                ShapedRole::User
            } else {
                ShapedRole::Tool
            };
            if self.opts.merge {
                self.push(role, vec![block]);
            } else {
                self.out.push(ShapedMessage::new(role, vec![block]));
            }
        }
        Ok(())
    }

    fn push(&mut self, role: ShapedRole, blocks: Vec<Block>) {
        if blocks.is_empty() {
            return;
        }
        // Assistant blocks always gather into one message (one response); other roles only
        // when merging.
        let mergeable = role == ShapedRole::Assistant || self.opts.merge;
        match self.out.last_mut() {
            Some(last) if last.role == role && mergeable => last.content.extend(blocks),
            _ => self.out.push(ShapedMessage::new(role, blocks)),
        }
    }

    fn parts(&self, parts: &[ContentPart]) -> Vec<Block> {
        parts
            .iter()
            .filter_map(|p| match p {
                ContentPart::Text { text } if text.is_empty() => None,
                ContentPart::Text { text } => Some(text_block(text.clone())),
                ContentPart::Image { url, detail } if self.opts.keep_images => Some(Block::Image {
                    url: url.clone(),
                    detail: detail.clone(),
                }),
                ContentPart::Image { .. } => Some(text_block(IMAGE_PLACEHOLDER.to_string())),
            })
            .collect()
    }

    fn thinking(&self, r: &ReasoningItem) -> Option<Block> {
        match &self.opts.reasoning {
            ReasoningReplay::Drop => None,
            ReasoningReplay::SignedOnly => match (&r.redacted_data, &r.signature) {
                (Some(data), _) => Some(Block::RedactedThinking { data: data.clone() }),
                (None, Some(sig)) => Some(Block::Thinking {
                    text: r.text.clone(),
                    signature: Some(sig.clone()),
                    encrypted_content: None,
                    summary: Vec::new(),
                }),
                (None, None) => None,
            },
            ReasoningReplay::Readable => {
                let text = r.readable_text();
                (!text.is_empty()).then(|| Block::Thinking {
                    text,
                    signature: None,
                    encrypted_content: None,
                    summary: Vec::new(),
                })
            }
        }
    }

    fn result_block(
        &self,
        call: &OpenCall,
        output: &ToolOutput,
        reminder: Option<String>,
    ) -> Block {
        let bash = call.name.eq_ignore_ascii_case("Bash");
        let mut text = if bash {
            output.text.trim().to_string()
        } else if call.name == "TodoWrite" {
            output.text.trim_end_matches('\n').to_string()
        } else {
            output.text.clone()
        };
        // A command that ran and failed is still the command's own output.
        let ran = bash && output.exit_code.is_some() && output.status == ToolStatus::Failed;
        if !output.success() && !ran && !text.starts_with("<tool_use_error>") {
            text = format!("<tool_use_error>{text}</tool_use_error>");
        }
        let images: Vec<&str> = output
            .content
            .iter()
            .filter_map(|p| match p {
                ContentPart::Image { url, .. } => Some(url.as_str()),
                ContentPart::Text { .. } => None,
            })
            .collect();
        let mut content = Vec::with_capacity(2 + images.len());
        match reminder {
            Some(r) if images.is_empty() || !self.opts.keep_images => {
                text = format!("{text}\n\n{r}");
                content.push(ResultPart::Text { text });
            }
            Some(r) => {
                content.push(ResultPart::Text { text });
                content.push(ResultPart::Text { text: r });
            }
            None => content.push(ResultPart::Text { text }),
        }
        for url in images {
            if self.opts.keep_images {
                content.push(ResultPart::Image {
                    url: url.to_string(),
                });
            } else {
                content.push(ResultPart::Text {
                    text: IMAGE_PLACEHOLDER.to_string(),
                });
            }
        }
        let is_error = if !output.success() {
            Some(true)
        } else if bash {
            Some(false)
        } else {
            None
        };
        Block::ToolResult {
            call_id: call.id.clone(),
            content,
            is_error,
            cache: false,
        }
    }
}

/// What a model that cannot read images gets instead of one.
pub(crate) const IMAGE_PLACEHOLDER: &str = "[image omitted: this model does not accept images]";

fn text_block(text: String) -> Block {
    Block::Text { text, cache: false }
}

/// The CLI's stored form of an `Edit` input: `replace_all` present, no trailing blanks on the
/// lines of `new_string`.
fn normalize_edit(mut args: Value) -> Value {
    if let Value::Object(map) = &mut args {
        if let Some(Value::String(new)) = map.get_mut("new_string") {
            *new = new
                .split('\n')
                .map(|line| line.trim_end_matches([' ', '\t']))
                .collect::<Vec<_>>()
                .join("\n");
        }
        map.entry("replace_all").or_insert(Value::Bool(false));
    }
    args
}

/// The todo reminder state machine (see the module docs).
#[derive(Default)]
struct TodoState {
    /// The latest list, if the todo tool was ever used.
    list: Option<Vec<TodoEntry>>,
    /// Tool results (and for claude-code, assistant texts) since the last todo update.
    stale: u32,
    /// A reminder was already given for the current list.
    reminded: bool,
}

impl TodoState {
    fn assistant_text(&mut self, mode: TodoReminders) {
        if mode == TodoReminders::OncePerList {
            self.stale += 1;
        }
    }

    fn result(
        &mut self,
        call: &OpenCall,
        output: &ToolOutput,
        opts: &Options<'_>,
    ) -> Result<Option<String>, ShapeError> {
        if opts.todo == TodoReminders::Off {
            return Ok(None);
        }
        if call.name == "TodoWrite" {
            if output.success() {
                self.list = Some(todo_list(output, &call.arguments));
            }
            self.stale = 0;
            self.reminded = false;
            return Ok(None);
        }
        self.stale += 1;
        let due = match opts.todo {
            TodoReminders::Off => false,
            TodoReminders::OncePerList => self.stale >= TODO_STALENESS && !self.reminded,
            TodoReminders::EveryTenResults => self.stale.is_multiple_of(TODO_STALENESS),
        };
        if !due {
            return Ok(None);
        }
        self.reminded = true;
        (opts.todo_reminder)(self.list.as_deref()).map(Some)
    }
}

/// The list after a todo update: the engine's own record when present, else the call's
/// arguments.
fn todo_list(output: &ToolOutput, arguments: &Value) -> Vec<TodoEntry> {
    if let Some(ToolDetails::Todos { todos }) = &output.details {
        return todos.clone();
    }
    arguments
        .get("todos")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|t| {
                    Some(TodoEntry {
                        content: t.get("content")?.as_str()?.to_string(),
                        status: t.get("status")?.as_str()?.to_string(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Clears every message-level cache flag.
pub(crate) fn clear_cache(messages: &mut [ShapedMessage]) {
    for m in messages {
        for b in &mut m.content {
            match b {
                Block::Text { cache, .. } | Block::ToolResult { cache, .. } => *cache = false,
                _ => {}
            }
        }
    }
}

/// Puts the one message-level cache breakpoint on the last non-empty text block or tool
/// result of the conversation (claude-code; as the anchor's claude_code.rs tests pin it).
pub(crate) fn cache_last_block(messages: &mut [ShapedMessage]) {
    clear_cache(messages);
    for m in messages.iter_mut().rev() {
        for b in m.content.iter_mut().rev() {
            match b {
                Block::Text { text, cache } if !text.is_empty() => {
                    *cache = true;
                    return;
                }
                Block::ToolResult { cache, .. } => {
                    *cache = true;
                    return;
                }
                _ => {}
            }
        }
    }
}

/// Puts the one message-level cache breakpoint on the last text block of the latest user
/// message that has text (zcode: "the latest user prompt").
pub(crate) fn cache_latest_user_text(messages: &mut [ShapedMessage]) {
    clear_cache(messages);
    for m in messages
        .iter_mut()
        .rev()
        .filter(|m| m.role == ShapedRole::User)
    {
        if let Some(Block::Text { cache, .. }) = m
            .content
            .iter_mut()
            .rev()
            .find(|b| matches!(b, Block::Text { text, .. } if !text.is_empty()))
        {
            *cache = true;
            return;
        }
    }
}

/// Adds blocks at the start of the first user message, creating one at the front when the
/// history has none.
pub(crate) fn prepend_to_first_user(messages: &mut Vec<ShapedMessage>, blocks: Vec<Block>) {
    if blocks.is_empty() {
        return;
    }
    match messages.iter_mut().find(|m| m.role == ShapedRole::User) {
        Some(first) => {
            let rest = std::mem::take(&mut first.content);
            first.content = blocks;
            first.content.extend(rest);
        }
        None => messages.insert(0, ShapedMessage::new(ShapedRole::User, blocks)),
    }
}

/// Inserts a message right after the first user message (where the CLIs put their
/// in-conversation `system` message).
pub(crate) fn insert_after_first_user(messages: &mut Vec<ShapedMessage>, message: ShapedMessage) {
    let at = messages
        .iter()
        .position(|m| m.role == ShapedRole::User)
        .map_or(0, |i| i + 1);
    messages.insert(at, message);
}

/// Whether the request must go without extended thinking: Anthropic requires the assistant
/// turn that a tool-result message answers to start with a thinking block when thinking is
/// on, which a turn produced by another provider (or with thinking off) does not. Sending
/// such a history with thinking on is a 400, so the CLI's thinking setting yields.
pub(crate) fn thinking_must_be_off(messages: &[ShapedMessage]) -> bool {
    let Some(last) = messages.last() else {
        return false;
    };
    let answers_tools = last
        .content
        .iter()
        .any(|b| matches!(b, Block::ToolResult { .. }));
    if !answers_tools {
        return false;
    }
    messages
        .iter()
        .rev()
        .find(|m| m.role == ShapedRole::Assistant)
        .is_some_and(|a| {
            !matches!(
                a.content.first(),
                Some(Block::Thinking { .. } | Block::RedactedThinking { .. })
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::{FunctionCallItem, ToolOutputItem};

    fn no_reminder(_: Option<&[TodoEntry]>) -> Result<String, ShapeError> {
        Ok(String::new())
    }

    fn reminder(list: Option<&[TodoEntry]>) -> Result<String, ShapeError> {
        Ok(match list {
            None => "REMIND unused".to_string(),
            Some(l) => format!("REMIND {}", l.len()),
        })
    }

    fn opts(todo: TodoReminders) -> Options<'static> {
        Options {
            reasoning: ReasoningReplay::SignedOnly,
            keep_images: true,
            merge: true,
            todo,
            todo_reminder: if todo == TodoReminders::Off {
                &no_reminder
            } else {
                &reminder
            },
        }
    }

    fn user(text: &str) -> Item {
        Item::text(format!("u-{text}"), Role::User, text)
    }
    fn call(id: &str, name: &str, args: Value) -> Item {
        Item::FunctionCall(FunctionCallItem {
            id: format!("fc-{id}"),
            call_id: id.into(),
            name: name.into(),
            namespace: None,
            arguments: args.to_string(),
        })
    }
    fn out(id: &str, output: ToolOutput) -> Item {
        Item::ToolOutput(ToolOutputItem {
            id: format!("o-{id}"),
            call_id: id.into(),
            output,
        })
    }
    fn result_ids(m: &ShapedMessage) -> Vec<String> {
        m.content
            .iter()
            .filter_map(|b| match b {
                Block::ToolResult { call_id, .. } => Some(call_id.clone()),
                _ => None,
            })
            .collect()
    }
    fn result_text(b: &Block) -> String {
        match b {
            Block::ToolResult { content, .. } => match &content[0] {
                ResultPart::Text { text } => text.clone(),
                ResultPart::Image { url } => url.clone(),
            },
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parallel_tool_results_follow_tool_use_order_and_merge_with_user_text() {
        // As the anchor's claude_code.rs tests: parallel results in tool_use order.
        let h = vec![
            user("go"),
            call("a", "Read", serde_json::json!({"file_path": "x"})),
            call("b", "Bash", serde_json::json!({"command": "ls"})),
            out("b", ToolOutput::ok("  listing \n")),
            out("a", ToolOutput::ok("file")),
            user("and then?"),
        ];
        let m = build(&h, &opts(TodoReminders::Off)).unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(m[2].role, ShapedRole::User);
        assert_eq!(result_ids(&m[2]), vec!["a", "b"]);
        assert!(matches!(&m[2].content[2], Block::Text { text, .. } if text == "and then?"));
        // Bash: trimmed, explicit is_error false; Read: no is_error.
        assert!(matches!(
            &m[2].content[1],
            Block::ToolResult {
                is_error: Some(false),
                ..
            }
        ));
        assert_eq!(result_text(&m[2].content[1]), "listing");
        assert!(matches!(
            &m[2].content[0],
            Block::ToolResult { is_error: None, .. }
        ));
    }

    #[test]
    fn results_stay_separate_tool_messages_without_merging() {
        let h = vec![
            user("go"),
            call("a", "Read", serde_json::json!({})),
            call("b", "Read", serde_json::json!({})),
            out("b", ToolOutput::ok("B")),
            out("a", ToolOutput::ok("A")),
            user("next"),
        ];
        let o = Options {
            merge: false,
            ..opts(TodoReminders::Off)
        };
        let m = build(&h, &o).unwrap();
        let roles: Vec<_> = m.iter().map(|m| m.role).collect();
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
        assert_eq!(result_ids(&m[2]), vec!["a"]);
    }

    #[test]
    fn edit_history_input_is_normalized() {
        // As the anchor's claude_code.rs tests: Edit input normalized.
        let h = vec![
            user("go"),
            call(
                "e",
                "Edit",
                serde_json::json!({"file_path": "f", "old_string": "a", "new_string": "x  \n\ty\t\nz"}),
            ),
            out("e", ToolOutput::ok("ok")),
        ];
        let m = build(&h, &opts(TodoReminders::Off)).unwrap();
        match &m[1].content[0] {
            Block::ToolCall { arguments, .. } => assert_eq!(
                arguments,
                r#"{"file_path":"f","old_string":"a","new_string":"x\n\ty\nz","replace_all":false}"#
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_are_wrapped_except_command_output() {
        let h = vec![
            user("go"),
            call("a", "Read", serde_json::json!({})),
            call("b", "Bash", serde_json::json!({"command": "false"})),
            call("c", "Bash", serde_json::json!({"command": "x"})),
            out("a", ToolOutput::error("no such file")),
            out(
                "b",
                ToolOutput {
                    exit_code: Some(1),
                    ..ToolOutput::error("boom\n[exit code 1]\n")
                },
            ),
            out("c", ToolOutput::denied("the user said no")),
        ];
        let m = build(&h, &opts(TodoReminders::Off)).unwrap();
        let texts: Vec<String> = m[2].content.iter().map(result_text).collect();
        assert_eq!(
            texts,
            vec![
                "<tool_use_error>no such file</tool_use_error>",
                "boom\n[exit code 1]",
                "<tool_use_error>the user said no</tool_use_error>"
            ]
        );
        assert!(m[2].content.iter().all(|b| matches!(
            b,
            Block::ToolResult {
                is_error: Some(true),
                ..
            }
        )));
    }

    #[test]
    fn unanswered_calls_get_aborted_results_and_orphans_are_dropped() {
        let h = vec![
            user("go"),
            call("a", "Bash", serde_json::json!({"command": "sleep 100"})),
            out("zz", ToolOutput::ok("orphan")),
            user("stop"),
        ];
        let m = build(&h, &opts(TodoReminders::Off)).unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(result_ids(&m[2]), vec!["a"]);
        assert!(result_text(&m[2].content[0]).contains("aborted"));
    }

    #[test]
    fn todo_reminder_once_per_list_after_ten_stale_steps() {
        // As the anchor's claude_code.rs tests: the todo reminder.
        let mut h = vec![user("go")];
        for i in 0..12 {
            h.push(call(
                &format!("c{i}"),
                "Bash",
                serde_json::json!({"command": "ls"}),
            ));
            h.push(out(&format!("c{i}"), ToolOutput::ok("x")));
        }
        let m = build(&h, &opts(TodoReminders::OncePerList)).unwrap();
        let reminded: Vec<usize> = m
            .iter()
            .flat_map(|m| m.content.iter())
            .filter(|b| matches!(b, Block::ToolResult { .. }))
            .enumerate()
            .filter(|(_, b)| result_text(b).contains("REMIND"))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(reminded, vec![9]);
        assert!(result_text(&m[20].content[0]).ends_with("x\n\nREMIND unused"));

        // A TodoWrite resets the counter and the next reminder carries the list.
        let mut h = vec![user("go")];
        h.push(call("t", "TodoWrite", serde_json::json!({"todos": [{"content": "a", "status": "pending", "activeForm": "A"}]})));
        h.push(out("t", ToolOutput::ok("ok\n")));
        for i in 0..10 {
            h.push(call(&format!("c{i}"), "Read", serde_json::json!({})));
            h.push(out(&format!("c{i}"), ToolOutput::ok("x")));
        }
        let m = build(&h, &opts(TodoReminders::OncePerList)).unwrap();
        let last = m.last().unwrap();
        assert!(result_text(&last.content[0]).ends_with("REMIND 1"));
    }

    #[test]
    fn zcode_reminds_every_ten_results() {
        let mut h = vec![user("go")];
        for i in 0..25 {
            h.push(call(
                &format!("c{i}"),
                "Bash",
                serde_json::json!({"command": "ls"}),
            ));
            h.push(out(&format!("c{i}"), ToolOutput::ok("x")));
        }
        let m = build(&h, &opts(TodoReminders::EveryTenResults)).unwrap();
        let count = m
            .iter()
            .flat_map(|m| m.content.iter())
            .filter(|b| matches!(b, Block::ToolResult { .. }) && result_text(b).contains("REMIND"))
            .count();
        assert_eq!(count, 2);
    }

    #[test]
    fn reasoning_replay_and_images() {
        let signed = Item::Reasoning(ReasoningItem {
            id: "r1".into(),
            text: "let me think".into(),
            signature: Some("sig".into()),
            ..Default::default()
        });
        let unsigned = Item::Reasoning(ReasoningItem {
            id: "r2".into(),
            text: "deepseek thoughts".into(),
            ..Default::default()
        });
        let image = Item::Message(tack_protocol::MessageItem {
            id: "img".into(),
            role: Role::User,
            content: vec![
                ContentPart::Text {
                    text: "look".into(),
                },
                ContentPart::Image {
                    url: "data:image/png;base64,AAAA".into(),
                    detail: None,
                },
            ],
            injected_by: None,
        });
        let h = vec![
            image,
            unsigned,
            signed,
            Item::text("a", Role::Assistant, "done"),
        ];
        let m = build(&h, &opts(TodoReminders::Off)).unwrap();
        assert!(matches!(&m[0].content[1], Block::Image { .. }));
        assert_eq!(m[1].content.len(), 2);
        assert!(
            matches!(&m[1].content[0], Block::Thinking { signature: Some(s), .. } if s == "sig")
        );
        let no_images = Options {
            keep_images: false,
            ..opts(TodoReminders::Off)
        };
        let m = build(&h, &no_images).unwrap();
        assert!(matches!(&m[0].content[1], Block::Text { text, .. } if text == IMAGE_PLACEHOLDER));
    }

    #[test]
    fn cache_breakpoint_goes_on_the_last_block_only() {
        let h = vec![
            user("one"),
            Item::text("a1", Role::Assistant, "reply"),
            user("two"),
            call("a", "Read", serde_json::json!({})),
            out("a", ToolOutput::ok("content")),
        ];
        let mut m = build(&h, &opts(TodoReminders::Off)).unwrap();
        if let Block::Text { cache, .. } = &mut m[0].content[0] {
            *cache = true;
        }
        cache_last_block(&mut m);
        let flags: Vec<bool> = m
            .iter()
            .flat_map(|m| m.content.iter())
            .filter_map(|b| match b {
                Block::Text { cache, .. } | Block::ToolResult { cache, .. } => Some(*cache),
                _ => None,
            })
            .collect();
        assert_eq!(flags, vec![false, false, false, true]);
        cache_latest_user_text(&mut m);
        assert!(matches!(&m[2].content[0], Block::Text { cache: true, .. }));
    }

    #[test]
    fn thinking_falls_back_when_the_open_tool_loop_has_no_thinking() {
        let h = vec![
            user("go"),
            call("a", "Bash", serde_json::json!({"command": "ls"})),
            out("a", ToolOutput::ok("x")),
        ];
        let m = build(&h, &opts(TodoReminders::Off)).unwrap();
        assert!(thinking_must_be_off(&m));
        let signed = Item::Reasoning(ReasoningItem {
            id: "r".into(),
            text: "t".into(),
            signature: Some("s".into()),
            ..Default::default()
        });
        let h = vec![
            user("go"),
            signed,
            call("a", "Bash", serde_json::json!({"command": "ls"})),
            out("a", ToolOutput::ok("x")),
        ];
        let m = build(&h, &opts(TodoReminders::Off)).unwrap();
        assert!(!thinking_must_be_off(&m));
        assert!(!thinking_must_be_off(
            &build(&[user("hi")], &opts(TodoReminders::Off)).unwrap()
        ));
    }

    #[test]
    fn malformed_arguments_are_passed_on_as_written() {
        let bad = Item::FunctionCall(FunctionCallItem {
            id: "fc".into(),
            call_id: "a".into(),
            name: "Edit".into(),
            namespace: None,
            arguments: "{\"file_path\": ".into(),
        });
        let m = build(
            &[user("go"), bad, out("a", ToolOutput::error("bad json"))],
            &opts(TodoReminders::Off),
        )
        .unwrap();
        assert!(
            matches!(&m[1].content[0], Block::ToolCall { arguments, .. } if arguments == "{\"file_path\": ")
        );
    }
}
