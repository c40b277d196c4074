//! Plumbing shared by the text-protocol harnesses (`swe-agent`, `mini-swe-agent`,
//! `terminus-2`): harnesses whose model writes its action in prose, and whose replies Tack
//! must answer the way that agent would.
//!
//! Three rules keep these harnesses honest and restart-safe:
//! - **Everything is derived from history.** A postprocess is built at shaping time from the
//!   prompt's history, so "is a confirmation pending?", "which request kind is this?" and "what
//!   is the next call id?" are pure functions of recorded items, never process-global counters
//!   (the anchor's call-id atomics and prefix matching, openinterpreter 0.0.40
//!   `core/src/harness/swe_agent.rs`, `mini_swe_agent.rs`, `terminus_2.rs`).
//! - **Tack's own messages are labelled.** A message a postprocess injects (a format correction,
//!   a confirmation, a hand-off prompt) is a user message with
//!   [`MessageItem::injected_by`] set; shaping finds them by label, not by their wording.
//! - **Raw text stays in history.** The assistant message a call was parsed from is recorded
//!   unchanged next to the synthesized call, so the UI can link a tool card to the text it came
//!   from; shaping decides what the model sees again.

use serde::Serialize;
use serde_json::{Map, Value, json};
use tack_protocol::{ContentPart, Item, MessageItem, Role, StreamEvent, ToolOutput, ToolSpec};
use tack_wire::ShapedMessage;

use crate::ShapeError;
use crate::prompts::{PromptStore, Template, TemplateVars};

/// Label of an injected message asking the model to fix the format of its reply.
pub(crate) const FORMAT_CORRECTION: &str = "format_correction";

/// A user message written by Tack on the model's behalf, labelled with the rule that wrote it.
/// The id is left empty: the engine assigns a fresh one when it records the item.
pub(crate) fn injected(label: &str, text: impl Into<String>) -> Item {
    Item::Message(MessageItem {
        id: String::new(),
        role: Role::User,
        content: vec![ContentPart::Text { text: text.into() }],
        injected_by: Some(label.to_string()),
    })
}

/// The label of an injected user message, if `item` is one.
pub(crate) fn label(item: &Item) -> Option<&str> {
    match item {
        Item::Message(m) if m.role == Role::User => m.injected_by.as_deref(),
        _ => None,
    }
}

/// Whether `item` is a message a person typed (not one Tack injected).
pub(crate) fn is_person(item: &Item) -> bool {
    matches!(item, Item::Message(m) if m.role == Role::User && m.injected_by.is_none())
}

/// Whether `item` is an assistant message.
pub(crate) fn is_assistant(item: &Item) -> bool {
    matches!(item, Item::Message(m) if m.role == Role::Assistant)
}

/// Text of a message item (empty for other items).
pub(crate) fn text_of(item: &Item) -> String {
    match item {
        Item::Message(m) => m.text(),
        _ => String::new(),
    }
}

/// Index of the first message a person typed: the task these agents are given once, wrapped
/// in their instance template.
pub(crate) fn task_index(history: &[Item]) -> Option<usize> {
    history.iter().position(is_person)
}

/// Index of the last message a person typed.
pub(crate) fn last_person_index(history: &[Item]) -> Option<usize> {
    history.iter().rposition(is_person)
}

/// A call id for the `n`-th call a harness synthesizes, numbered from the calls already in
/// history so ids stay stable across restarts (the session makes them unique anyway).
pub(crate) fn call_id(prefix: &str, history: &[Item], offset: usize) -> String {
    let n = history.iter().filter(|i| i.is_tool_call()).count() + offset + 1;
    format!("{prefix}-{n}")
}

/// The output recorded for `call_id`, if any.
pub(crate) fn output_of<'h>(history: &'h [Item], call_id: &str) -> Option<&'h ToolOutput> {
    history.iter().find_map(|i| match i {
        Item::ToolOutput(o) if o.call_id == call_id => Some(&o.output),
        _ => None,
    })
}

/// Renders a template with the step's variables plus harness-specific ones (`extra` must be
/// a JSON object; its keys sit beside the standard ones). Same settings as
/// [`crate::prompts::render`]: undefined variables are errors, blocks trim their newlines.
///
/// # Errors
/// [`ShapeError::Template`] naming the template's source.
pub(crate) fn render(
    template: &Template,
    step: &TemplateVars<'_>,
    extra: Value,
) -> Result<String, ShapeError> {
    #[derive(Serialize)]
    struct Vars<'a> {
        #[serde(flatten)]
        step: &'a TemplateVars<'a>,
        #[serde(flatten)]
        extra: Map<String, Value>,
    }
    let extra = match extra {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(true);
    let err = |e: minijinja::Error| ShapeError::Template {
        name: template.source.clone(),
        message: e.to_string(),
    };
    env.add_template("t", &template.text).map_err(err)?;
    let tmpl = env.get_template("t").map_err(err)?;
    tmpl.render(Vars { step, extra }).map_err(err)
}

/// Looks up and renders `<harness>/<file>`.
///
/// # Errors
/// [`ShapeError::Template`] when the template is missing or fails to render.
pub(crate) fn render_file(
    prompts: &PromptStore,
    harness: &str,
    file: &str,
    step: &TemplateVars<'_>,
    extra: Value,
) -> Result<String, ShapeError> {
    render(&prompts.get(harness, file)?, step, extra)
}

/// The tools a harness advertises, from `<harness>/tools.json`: a JSON list of Tack tool specs
/// or of Chat `{type: "function", function: {name, description, parameters}}` entries. Keeping
/// them beside the prompts lets a user change (or, with `[]`, remove) the tool surface the same
/// way they change a prompt.
///
/// # Errors
/// [`ShapeError::Template`] when the file is missing or is not such a list.
pub(crate) fn load_tools(
    prompts: &PromptStore,
    harness: &str,
) -> Result<Vec<ToolSpec>, ShapeError> {
    let template = prompts.get(harness, "tools.json")?;
    let bad = |message: String| ShapeError::Template {
        name: template.source.clone(),
        message,
    };
    let value: Value =
        serde_json::from_str(&template.text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let Value::Array(list) = value else {
        return Err(bad("expected a JSON list of tools".into()));
    };
    list.into_iter()
        .map(|entry| {
            if let Some(f) = entry.get("function") {
                let field = |k: &str| {
                    f.get(k)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                let parameters = f
                    .get("parameters")
                    .cloned()
                    .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
                return Ok(ToolSpec::function(
                    field("name"),
                    field("description"),
                    parameters,
                ));
            }
            serde_json::from_value::<ToolSpec>(entry).map_err(|e| bad(format!("not a tool: {e}")))
        })
        .collect()
}

/// Marks a Chat message's text as a prompt-cache breakpoint the way litellm-based agents send
/// it even to OpenAI-compatible hosts: `content: [{type: "text", text, cache_control: {type:
/// "ephemeral"}}]`. The Chat renderer has no such field, so it goes in as a `content` override
/// (the shaped block keeps the plain text for the inspector).
pub(crate) fn with_cache_control(mut message: ShapedMessage, text: &str) -> ShapedMessage {
    message.extra.insert(
        "content".into(),
        json!([{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]),
    );
    message
}

/// Keeps the first and last `max_bytes / 2` bytes of `text` (on character boundaries) when it
/// is longer than `max_bytes`; `note` gets the number of bytes left out and returns the line
/// put between the two halves.
pub(crate) fn head_tail(text: &str, max_bytes: usize, note: impl Fn(usize) -> String) -> String {
    if text.len() <= max_bytes {
        return text.to_string();
    }
    let half = max_bytes / 2;
    let mut head_end = half;
    while !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = text.len() - half;
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    let omitted = tail_start - head_end;
    format!(
        "{}{}{}",
        &text[..head_end],
        note(omitted),
        &text[tail_start..]
    )
}

/// Splits the engine `shell` tool's trailing status notes (`[exit code 2]`, `[timed out after
/// …]`, `[killed by signal 9]`, …) from the command's own output, so a harness can present exit
/// status its agent's way.
pub(crate) fn split_shell_notes(text: &str) -> (&str, Vec<&str>) {
    let mut body = text;
    let mut notes = Vec::new();
    loop {
        let trimmed = body.strip_suffix('\n').unwrap_or(body);
        let start = trimmed.rfind('\n').map_or(0, |i| i + 1);
        let line = &trimmed[start..];
        let is_note = line.starts_with('[')
            && line.ends_with(']')
            && [
                "[exit code ",
                "[killed by signal ",
                "[timed out after ",
                "[aborted by user",
                "[background processes ",
                "[reading output failed",
                "[waiting for bash failed",
            ]
            .iter()
            .any(|p| line.starts_with(p));
        if !is_note || line.is_empty() {
            break;
        }
        notes.push(line);
        body = &trimmed[..start];
        if body.is_empty() {
            break;
        }
    }
    notes.reverse();
    (body, notes)
}

/// What one response contained, as a postprocess sees it go by.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// Text of the assistant message(s).
    pub text: String,
    /// Whether an assistant message was completed.
    pub message: bool,
    /// Tool calls the wire decoded (native function calling).
    pub calls: usize,
}

impl Seen {
    /// Notes an event.
    pub(crate) fn observe(&mut self, event: &StreamEvent) {
        if let StreamEvent::ItemDone { item } = event {
            match item {
                Item::Message(m) if m.role == Role::Assistant => {
                    self.message = true;
                    self.text.push_str(&m.text());
                }
                i if i.is_tool_call() => self.calls += 1,
                _ => {}
            }
        }
    }
}

/// Decodes the five predefined XML entities and numeric character references; anything else
/// that looks like an entity is kept as written.
pub(crate) fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find('&') {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        let end = rest[1..].find(';').map(|i| i + 1).filter(|&i| i <= 10);
        let decoded = end.and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => {
                    let code = if let Some(hex) =
                        name.strip_prefix("#x").or_else(|| name.strip_prefix("#X"))
                    {
                        u32::from_str_radix(hex, 16).ok()
                    } else {
                        name.strip_prefix('#').and_then(|d| d.parse::<u32>().ok())
                    };
                    code.and_then(char::from_u32)
                }
            }?;
            Some((c, end + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_notes_are_split_from_the_output() {
        assert_eq!(
            split_shell_notes("a\nb\n[exit code 2]"),
            ("a\nb\n", vec!["[exit code 2]"])
        );
        assert_eq!(
            split_shell_notes("[exit code 1]"),
            ("", vec!["[exit code 1]"])
        );
        assert_eq!(split_shell_notes("plain [x]\n"), ("plain [x]\n", vec![]));
        assert_eq!(
            split_shell_notes("out\n[timed out after 30000 ms; stopped]"),
            ("out\n", vec!["[timed out after 30000 ms; stopped]"])
        );
    }

    #[test]
    fn head_tail_keeps_both_ends_on_char_boundaries() {
        let text = "é".repeat(20);
        let cut = head_tail(&text, 9, |n| format!("[{n}]"));
        assert!(cut.starts_with("éé") && cut.ends_with("éé"), "{cut}");
        assert_eq!(head_tail("short", 10, |_| "x".into()), "short");
    }

    #[test]
    fn entities_decode_and_unknown_ones_stay() {
        assert_eq!(
            decode_entities("a &lt;b&gt; &amp;&amp; &quot;c&quot; &#65;&#x42; &nope; &"),
            "a <b> && \"c\" AB &nope; &"
        );
    }
}
