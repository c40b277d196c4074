//! `swe-agent`: the request and reply dialect of SWE-agent 1.1 (`sweagent run`, default
//! config).
//!
//! Sources: a captured run of SWE-agent 1.1.0 (`sweagent`, with SWE-ReX 1.4.0) and the anchor
//! (openinterpreter 0.0.40, `codex-rs/core/src/harness/swe_agent.rs`; `docs/sources.md`). **Where they differ, the capture wins**:
//!
//! | | capture (followed) | anchor |
//! |---|---|---|
//! | tools | function calling: `bash`, `str_replace_editor`, `submit` | none |
//! | sampling | `temperature: 0.0`, `top_p: 1.0` | `temperature: 1.0`, `top_p: 0.95` |
//! | body keys | `model, messages, temperature, top_p, tools`, in this order; no `stream` | no tools, no `stream` |
//! | task message | a one-block content array with `cache_control` | a string |
//!
//! SWE-agent's other action parser (`thought_action`: no tools, the command in a fenced block)
//! is one setting away: a `prompts/swe-agent/tools.json` override containing `[]` turns the tools
//! off, and the instance template then describes the text format instead.
//!
//! **Shaping.** The short system message; the first message the person typed is wrapped in the
//! instance template (`<uploaded_files>`, `<pr_description>`, the five steps) with the
//! workspace as the repository path; tool outputs come back as `OBSERVATION:` messages (tool
//! messages with function calling, user messages without), with SWE-agent's fixed sentence for
//! a silent success and for a command that ran out of its 30 seconds. The last two user/tool
//! messages carry `cache_control` (SWE-agent's `cache_control` history processor, which the
//! capture shows even towards OpenAI-style hosts). A failed attempt and its format correction
//! are left out once a later reply exists, so each re-query shows only the latest pair — the
//! capture's request #3 has the same four messages as #2. Found by the `format_correction`
//! label, not by the correction's wording (the anchor matched text).
//!
//! **Back-translation** (a stream decorator). Native tool calls pass through. A reply without
//! one is searched for an action written in text (see [`action`]): a shell command becomes a
//! `local_shell_call` (`bash -lc`, 30 s, SWE-agent's default execution timeout), an editor
//! command a `str_replace_editor` call, `submit` a `submit` call. The assistant text stays in
//! history beside the call. No action → the format correction goes back as a user message
//! labelled `format_correction` and the engine samples again (bounded by its correction limit).
//!
//! **Submit and its review.** As with SWE-agent's `review_on_submit_m` bundle, the first
//! `submit` of a task runs the review: it is bound to a read-only `git status --short; git
//! diff` and its output comes back inside the review message (our words, same structure: four
//! steps, then the changes between `<diff>` tags). A `submit` while that review is pending —
//! the task's history already holds an answered `submit` call — ends the task: the call is not
//! run and the turn completes with the reply. Pending is read from history, so it survives
//! restarts; the anchor's text flag could not tell a review from a quote of it.
//!
//! **Tool binding.** `bash` → the engine's `shell`; `str_replace_editor` → the file tools (see
//! [`editor`]; the anchor advertised it with no handler); `submit` → `shell` as above.

mod action;
mod editor;

use std::collections::HashSet;

use serde_json::{Value, json};
use tack_protocol::{
    FunctionCallItem, Item, LocalShellCallItem, Prompt, Role, StopReason, StreamEvent, ToolInput,
    ToolOutput, ToolOutputItem, ToolStatus, Wire,
};
use tack_wire::{
    RenderOptions, RequestParams, ShapedMessage, ShapedRequest, ShapedRole, SystemBlock,
};

use self::action::Action;
use super::text_protocol::{self as tp, FORMAT_CORRECTION, Seen};
use crate::history::{self, DeveloperMode, HistoryOptions, ReasoningReplay};
use crate::prompts::TemplateVars;
use crate::{BoundCall, Harness, Postprocess, ShapeEnv, ShapeError, Shaped, bind_by_name};

const ID: &str = "swe-agent";

/// Top-level body keys in the captured order: the sampling fields before `tools`.
const BODY_KEY_ORDER: [&str; 5] = ["model", "messages", "temperature", "top_p", "tools"];

/// SWE-agent's default per-command execution timeout (`tools.execution_timeout`), in ms.
pub(crate) const COMMAND_TIMEOUT_MS: u32 = 30_000;

/// What the first `submit` of a task runs: the changes to review. Read-only, so the approval
/// gate lets it through without asking.
pub(crate) const REVIEW_COMMAND: &str = "git status --short; git --no-pager diff";

/// The observation for a command that printed nothing (SWE-agent's
/// `next_step_no_output_template`, in our words).
const NO_OUTPUT: &str = "The command finished without printing anything.";

/// The `swe-agent` harness.
pub(crate) struct SweAgent;

impl Harness for SweAgent {
    fn id(&self) -> &'static str {
        ID
    }
    fn description(&self) -> &'static str {
        "SWE-agent 1.1: bash, str_replace_editor and submit, with submit review"
    }
    fn wires(&self) -> &'static [Wire] {
        &[Wire::Chat]
    }

    fn shape(
        &self,
        prompt: &Prompt,
        _wire: Wire,
        env: &ShapeEnv<'_>,
    ) -> Result<Shaped, ShapeError> {
        let ctx = &prompt.context;
        let tools = tp::load_tools(env.prompts, ID)?;
        let function_calling = !tools.is_empty();
        let vars = TemplateVars::new(ctx, prompt.instructions.as_deref());
        let flags = json!({ "function_calling": function_calling });
        let system_template = env.prompts.get(ID, "system.md")?;
        let system = tp::render(&system_template, &vars, flags.clone())?;
        let correction = tp::render_file(env.prompts, ID, "format_error.md", &vars, flags)?;
        let messages = messages(prompt, env, &vars, function_calling)?;

        let request = ShapedRequest {
            model: ctx.model.clone(),
            system: vec![SystemBlock {
                text: system.trim_end().to_string(),
                cache: false,
            }],
            messages,
            tools,
            params: RequestParams {
                stream: false,
                temperature: Some(0.0),
                top_p: Some(1.0),
                ..RequestParams::default()
            },
            options: RenderOptions {
                field_order: BODY_KEY_ORDER.map(String::from).to_vec(),
                ..RenderOptions::default()
            },
            headers: if env.emulate_identity {
                vec![("user-agent".into(), "swe-agent/1.1.0".into())]
            } else {
                Vec::new()
            },
            ..ShapedRequest::default()
        };
        let history = &prompt.history;
        Ok(Shaped {
            tool_kinds: tack_wire::tool_kinds(&request.tools, Wire::Chat),
            request,
            extra_requests: Vec::new(),
            postprocess: Some(Box::new(SwePostprocess {
                review_pending: review_pending(history),
                correction,
                first_call: tp::call_id(ID, history, 0),
                seen: Seen::default(),
                ended_by_submit: false,
            })),
            prompt_source: system_template.source,
        })
    }

    fn bind_call(&self, call: &Item) -> Result<BoundCall, ToolOutput> {
        let Item::FunctionCall(c) = call else {
            return bind_by_name(call);
        };
        match c.name.as_str() {
            "bash" => {
                let args = crate::parse_arguments("bash", &c.arguments)?;
                let command = args
                    .get("command")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if command.trim().is_empty() {
                    return Err(ToolOutput::error(
                        "bash: missing `command`; give the command line to run.",
                    ));
                }
                Ok(shell(command))
            }
            editor::NAME => editor::bind(&c.arguments),
            "submit" => Ok(shell(REVIEW_COMMAND)),
            _ => bind_by_name(call),
        }
    }
}

fn shell(command: &str) -> BoundCall {
    BoundCall {
        tool: "shell".into(),
        input: ToolInput::Json(json!({"command": command, "timeout_ms": COMMAND_TIMEOUT_MS})),
    }
}

/// Whether the current task's review is pending: since the last message a person typed, a
/// `submit` call ran and its output (the review) reached the model. A submit the user denied,
/// or that was interrupted, showed no review.
fn review_pending(history: &[Item]) -> bool {
    let from = tp::last_person_index(history).unwrap_or(0);
    history[from..].iter().any(|item| match item {
        Item::FunctionCall(c) if c.name == "submit" => tp::output_of(history, &c.call_id)
            .is_some_and(|o| !matches!(o.status, ToolStatus::Denied | ToolStatus::Aborted)),
        _ => false,
    })
}

/// Builds the conversation (see the module docs).
fn messages(
    prompt: &Prompt,
    env: &ShapeEnv<'_>,
    vars: &TemplateVars<'_>,
    function_calling: bool,
) -> Result<Vec<ShapedMessage>, ShapeError> {
    let h = &prompt.history;
    let task = tp::task_index(h);
    let skip = pruned_retries(h);
    let mut items: Vec<Item> = Vec::with_capacity(h.len());
    let mut trailing_correction = false;
    for (i, item) in h.iter().enumerate() {
        if skip.contains(&i) {
            continue;
        }
        trailing_correction = false;
        match item {
            Item::Message(m) => match m.role {
                Role::User if Some(i) == task => {
                    let text = tp::render_file(
                        env.prompts,
                        ID,
                        "instance.md",
                        vars,
                        json!({"task": m.text(), "function_calling": function_calling}),
                    )?;
                    items.push(Item::text(m.id.clone(), Role::User, text.trim_end()));
                }
                Role::User => {
                    trailing_correction = m.injected_by.as_deref() == Some(FORMAT_CORRECTION);
                    items.push(item.clone());
                }
                Role::Assistant => items.push(item.clone()),
                // SWE-agent has no place for application instructions mid-conversation.
                Role::Developer | Role::System => {}
            },
            Item::Reasoning(_) => {}
            Item::FunctionCall(_) | Item::CustomToolCall(_) if function_calling => {
                items.push(item.clone())
            }
            Item::LocalShellCall(c) if function_calling => {
                items.push(Item::FunctionCall(FunctionCallItem {
                    id: c.id.clone(),
                    call_id: c.call_id.clone(),
                    name: "bash".into(),
                    namespace: None,
                    arguments: json!({"command": crate::shell_command_text(&c.command)})
                        .to_string(),
                }))
            }
            Item::FunctionCall(_) | Item::CustomToolCall(_) | Item::LocalShellCall(_) => {}
            Item::ToolOutput(o) => {
                let call = h.iter().find(|c| c.call_id() == Some(o.call_id.as_str()));
                let text = observation(call, &o.output, env, vars)?;
                if function_calling {
                    items.push(Item::ToolOutput(ToolOutputItem {
                        id: o.id.clone(),
                        call_id: o.call_id.clone(),
                        output: ToolOutput {
                            text,
                            ..o.output.clone()
                        },
                    }));
                } else {
                    items.push(Item::text(o.id.clone(), Role::User, text));
                }
            }
        }
    }
    let mut messages = history::convert(
        &items,
        &HistoryOptions {
            developer: DeveloperMode::Drop,
            keep_system: false,
            reasoning: ReasoningReplay::Drop,
            keep_images: false,
        },
    );
    mark_cache_control(&mut messages, trailing_correction);
    Ok(messages)
}

/// Indices of failed attempts and their corrections that a later reply superseded.
fn pruned_retries(h: &[Item]) -> HashSet<usize> {
    let mut skip = HashSet::new();
    for (i, item) in h.iter().enumerate() {
        if tp::label(item) != Some(FORMAT_CORRECTION) || !h[i + 1..].iter().any(tp::is_assistant) {
            continue;
        }
        skip.insert(i);
        if let Some(j) = h[..i].iter().rposition(tp::is_assistant) {
            skip.extend((j..i).filter(|&k| {
                matches!(h[k], Item::Message(_) | Item::Reasoning(_)) && !tp::is_person(&h[k])
            }));
        }
    }
    skip
}

/// `cache_control` on the last two user/tool messages, not counting a trailing correction
/// (SWE-agent appends re-query messages after its history processors run).
fn mark_cache_control(messages: &mut [ShapedMessage], trailing_correction: bool) {
    let end = messages.len() - usize::from(trailing_correction && !messages.is_empty());
    let mut marked = 0;
    for message in messages[..end].iter_mut().rev() {
        if marked == 2 {
            break;
        }
        let text = match (message.role, message.content.as_slice()) {
            (ShapedRole::User, [tack_wire::Block::Text { text, .. }]) => text.clone(),
            (ShapedRole::Tool, [tack_wire::Block::ToolResult { content, .. }]) => {
                match content.as_slice() {
                    [tack_wire::ResultPart::Text { text }] => text.clone(),
                    _ => continue,
                }
            }
            _ => continue,
        };
        *message = tp::with_cache_control(
            std::mem::replace(message, ShapedMessage::text(ShapedRole::User, "")),
            &text,
        );
        marked += 1;
    }
}

/// What SWE-agent would show the model for a tool output.
fn observation(
    call: Option<&Item>,
    output: &ToolOutput,
    env: &ShapeEnv<'_>,
    vars: &TemplateVars<'_>,
) -> Result<String, ShapeError> {
    let (body, notes) = tp::split_shell_notes(&output.text);
    if matches!(call, Some(Item::FunctionCall(c)) if c.name == "submit")
        && output.status != ToolStatus::Denied
    {
        let review = tp::render_file(
            env.prompts,
            ID,
            "submit_review.md",
            vars,
            json!({"diff": body.trim_end()}),
        )?;
        return Ok(format!("OBSERVATION:\n{}", review.trim_end()));
    }
    if output.status == ToolStatus::TimedOut {
        let command = match call {
            Some(Item::LocalShellCall(c)) => crate::shell_command_text(&c.command),
            Some(Item::FunctionCall(c)) => serde_json::from_str::<Value>(&c.arguments)
                .ok()
                .and_then(|v| v.get("command").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_default(),
            _ => String::new(),
        };
        return Ok(format!(
            "The command '{command}' was stopped after {} seconds without finishing. Try a command that finishes sooner, or run it in the background with its output sent to a file.",
            COMMAND_TIMEOUT_MS / 1000
        ));
    }
    // A persistent SWE-agent shell reports `bash: cmd: …`; `bash -lc` adds `line N: `.
    let body = shorten_bash_errors(body);
    let kept: Vec<&str> = notes
        .into_iter()
        .filter(|n| !n.starts_with("[exit code "))
        .collect();
    if body.trim().is_empty() && kept.is_empty() && output.success() {
        return Ok(NO_OUTPUT.to_string());
    }
    let mut text = format!("OBSERVATION:\n{body}");
    for note in kept {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(note);
    }
    Ok(text)
}

fn shorten_bash_errors(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match line
            .strip_prefix("bash: line ")
            .and_then(|r| r.split_once(": "))
        {
            Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => {
                out.push_str("bash: ");
                out.push_str(rest);
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// The stream decorator (see the module docs).
struct SwePostprocess {
    review_pending: bool,
    correction: String,
    /// Call id for a call parsed from text.
    first_call: String,
    seen: Seen,
    /// A native `submit` ended the task.
    ended_by_submit: bool,
}

impl SwePostprocess {
    /// The items a reply without native calls turns into, and whether they are calls.
    fn parse_reply(&self) -> (Option<Item>, bool) {
        let call_id = self.first_call.clone();
        match action::parse(&self.seen.text) {
            None => (
                Some(tp::injected(FORMAT_CORRECTION, self.correction.trim_end())),
                false,
            ),
            Some(Action::Submit) if self.review_pending => (None, false),
            Some(Action::Submit) => (Some(function_call(call_id, "submit", "{}".into())), true),
            Some(Action::Shell(command)) => (
                Some(Item::LocalShellCall(LocalShellCallItem {
                    id: String::new(),
                    call_id,
                    command: vec!["bash".into(), "-lc".into(), command],
                    workdir: None,
                    timeout_ms: Some(COMMAND_TIMEOUT_MS),
                })),
                true,
            ),
            Some(Action::Editor(args)) => {
                let args = match args {
                    Ok(map) => Value::Object(map),
                    Err(reason) => json!({ (editor::UNREADABLE): reason }),
                };
                (
                    Some(function_call(call_id, editor::NAME, args.to_string())),
                    true,
                )
            }
        }
    }
}

fn function_call(call_id: String, name: &str, arguments: String) -> Item {
    Item::FunctionCall(FunctionCallItem {
        id: String::new(),
        call_id,
        name: name.into(),
        namespace: None,
        arguments,
    })
}

impl Postprocess for SwePostprocess {
    fn event(&mut self, event: StreamEvent, out: &mut Vec<StreamEvent>) {
        match event {
            StreamEvent::ItemDone {
                item: Item::FunctionCall(c),
            } if c.name == "submit" && self.review_pending => {
                // The confirming submit: the task ends here, nothing runs.
                self.seen.calls += 1;
                self.ended_by_submit = true;
            }
            StreamEvent::Completed {
                stop_reason,
                response_id,
            } => {
                let mut stop_reason = stop_reason;
                if self.seen.calls == 0 && !self.ended_by_submit {
                    let (item, is_call) = self.parse_reply();
                    if let Some(item) = item {
                        out.push(StreamEvent::ItemDone { item });
                    }
                    if is_call {
                        stop_reason = StopReason::ToolCalls;
                    }
                } else if self.ended_by_submit && self.seen.calls == 1 {
                    stop_reason = StopReason::EndTurn;
                }
                out.push(StreamEvent::Completed {
                    stop_reason,
                    response_id,
                });
            }
            other => {
                self.seen.observe(&other);
                out.push(other);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_denied_or_interrupted_submit_showed_no_review() {
        let submit = |status: ToolStatus| {
            vec![
                Item::text("u", Role::User, "task"),
                function_call("s1".into(), "submit", "{}".into()),
                Item::ToolOutput(ToolOutputItem {
                    id: "o".into(),
                    call_id: "s1".into(),
                    output: ToolOutput {
                        status,
                        ..ToolOutput::ok("diff")
                    },
                }),
            ]
        };
        assert!(review_pending(&submit(ToolStatus::Completed)));
        assert!(!review_pending(&submit(ToolStatus::Denied)));
        assert!(!review_pending(&submit(ToolStatus::Aborted)));
        assert!(!review_pending(&[Item::text("u", Role::User, "task")]));
    }

    #[test]
    fn bash_line_numbers_are_dropped_like_a_persistent_shell() {
        assert_eq!(
            shorten_bash_errors("bash: line 1: nope: command not found\nok\n"),
            "bash: nope: command not found\nok\n"
        );
        assert_eq!(shorten_bash_errors("bash: line x: y"), "bash: line x: y");
    }
}
