//! `terminus-2`: the JSON keystroke protocol of harbor's Terminus-2 agent (2.0.0, harbor
//! 0.26), driving a real terminal.
//!
//! Sources: a captured run of Terminus-2 2.0.0 (PyPI `harbor` 0.26.0) and the anchor
//! (openinterpreter 0.0.40, `codex-rs/core/src/harness/terminus_2.rs`; `docs/sources.md`). **Where they differ, the capture wins**: the body is `{model,
//! messages}` — no `temperature` (the anchor sent 0.7), no tools, no `stream` — and the first
//! request is a single user message (no system message) holding the whole instructions, the
//! task and the terminal screen.
//!
//! **The turn.** The model answers with JSON (`analysis`, `plan`, `commands[{keystrokes,
//! duration}]`, `task_complete`; see [`parse`]). Its keystrokes go to the engine's `terminal`
//! tool — a real tmux pane (160×40 by default, as the agent's), one per Tack session — which
//! waits each command's duration and returns what the screen shows, in the agent's own
//! observation format (`New Terminal Output:` with what appeared since last time, else
//! `Current Terminal Screen:`). The anchor instead ran a generated shell script through the
//! shell tool and left a tmux session and state files behind. Every readable reply runs
//! one `terminal` call, even with no commands, because the agent always answers with the
//! screen. The assistant's JSON text stays in history; the call carries the parsed commands.
//!
//! **Corrections and confirmation.** An unreadable reply gets the agent's parsing-error
//! message (labelled `parse_error`) and the engine samples again, bounded. `task_complete`
//! asks once (`completion_confirmation`, with the screen); a second `task_complete` right after
//! that question ends the task — its commands, if any, are not run, because the engine ends a
//! turn only on a reply without calls. Warnings of a readable reply are put in front of the
//! next observation, as the agent does.
//!
//! **Request kinds from session state.** Action, summary, questions, answer questions and
//! hand-off are chosen from the labels of Tack's earlier injected messages (pure, survives
//! restarts), never from the opening words of earlier prompts (the anchor's prefix matching). When the conversation nears the context window (`settings.json`:
//! `context_window_tokens`, `summarize_below_free_tokens`, like the agent's proactive
//! summarization at 8,000 free tokens), the chain runs as in the agent:
//! 1. *summary* — the conversation plus the summary request (recorded as `summary_request`);
//!    the reply is followed by a `terminal` call with no keys, to capture the screen;
//! 2. *questions* — a fresh context: task, summary and screen (recorded as
//!    `handoff_questions`); the model's questions go to
//! 3. *answer questions* — the full conversation, the summary exchange and the questions
//!    (recorded as `answer_questions`); the answers become
//! 4. *hand-off* — from then on the conversation is the first prompt, the questions prompt,
//!    the questions and the hand-off message (recorded as `handoff`), plus what follows.
//!
//! Token counts are estimated (4 characters per token); the agent asks litellm's tokenizer.

pub(crate) mod parse;

use serde::Deserialize;
use serde_json::{Value, json};
use tack_protocol::{
    FunctionCallItem, Item, Prompt, Role, StopReason, StreamEvent, ToolOutput, Wire,
};
use tack_wire::{RenderOptions, RequestParams, ShapedMessage, ShapedRequest, ShapedRole};

use super::text_protocol::{self as tp, Seen};
use crate::prompts::{Template, TemplateVars};
use crate::{Harness, Postprocess, ShapeEnv, ShapeError, Shaped};

const ID: &str = "terminus-2";

/// Top-level body keys in the captured order: only these two.
const BODY_KEY_ORDER: [&str; 2] = ["model", "messages"];

/// Engine tool the keystrokes go to.
pub(crate) const TERMINAL_TOOL: &str = "terminal";

/// Observations are cut to this many bytes (first and last half kept), as the agent's
/// `_limit_output_length`.
const OUTPUT_LIMIT_BYTES: usize = 10_000;

/// Characters per token in the context estimate.
const CHARS_PER_TOKEN: usize = 4;

/// Free tokens the agent keeps when it trims the conversation for a summary.
const UNWIND_FREE_TOKENS: u64 = 4_000;

/// Labels of the messages this harness injects.
pub(crate) mod labels {
    /// The reply could not be read.
    pub const PARSE_ERROR: &str = "parse_error";
    /// "Are you sure the task is complete?"
    pub const COMPLETION_CONFIRMATION: &str = "completion_confirmation";
    /// The summary request of the hand-off chain.
    pub const SUMMARY_REQUEST: &str = "summary_request";
    /// The fresh-context prompt asking the next agent's questions.
    pub const HANDOFF_QUESTIONS: &str = "handoff_questions";
    /// The questions, put to the agent that did the work.
    pub const ANSWER_QUESTIONS: &str = "answer_questions";
    /// The answers, handed to the next agent.
    pub const HANDOFF: &str = "handoff";
}
use labels::*;

/// `prompts/terminus-2/settings.json`.
#[derive(Debug, Clone, Deserialize)]
struct Settings {
    /// The model's context window in tokens; 0 turns proactive summarization off.
    context_window_tokens: u64,
    /// Summarize when fewer tokens than this are left.
    summarize_below_free_tokens: u64,
    /// Terminal size.
    pane_width: u16,
    pane_height: u16,
}

/// The request kind, from session state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Action,
    /// `retry`: the summary request is already recorded (an earlier attempt failed).
    Summary {
        retry: bool,
    },
    Questions {
        retry: bool,
    },
    AnswerQuestions,
    Handoff,
}

/// The `terminus-2` harness.
pub(crate) struct Terminus2;

impl Harness for Terminus2 {
    fn id(&self) -> &'static str {
        ID
    }
    fn description(&self) -> &'static str {
        "Terminus-2: JSON keystrokes into a real tmux terminal"
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
        let h = &prompt.history;
        let settings = settings(env)?;
        let vars = TemplateVars::new(ctx, prompt.instructions.as_deref());
        let s = Shaper {
            h,
            env,
            vars: &vars,
            settings: &settings,
        };
        let instance = env.prompts.get(ID, "instance.md")?;

        let mut kind = kind(h);
        let (conversation, injected_first) = match kind {
            Kind::Action | Kind::Handoff => {
                let conversation = s.conversation(h.len())?;
                if s.near_full(&conversation) {
                    kind = Kind::Summary { retry: false };
                    let summary = s.render("summary.md", json!({"task": s.task()}))?;
                    let mut c = s.unwound(conversation, &summary);
                    c.push((ShapedRole::User, summary.clone()));
                    (c, Some(tp::injected(SUMMARY_REQUEST, summary)))
                } else {
                    (conversation, None)
                }
            }
            Kind::Summary { .. } => {
                let at = h
                    .iter()
                    .rposition(|i| tp::label(i) == Some(SUMMARY_REQUEST))
                    .unwrap_or(h.len());
                let summary = h.get(at).map(tp::text_of).unwrap_or_default();
                let mut c = s.unwound(s.conversation(at)?, &summary);
                c.push((ShapedRole::User, summary));
                (c, None)
            }
            Kind::Questions { retry } => {
                if retry {
                    let text = h.last().map(tp::text_of).unwrap_or_default();
                    (vec![(ShapedRole::User, text)], None)
                } else {
                    let at = h
                        .iter()
                        .rposition(|i| tp::label(i) == Some(SUMMARY_REQUEST))
                        .unwrap_or(0);
                    let after = &h[at..];
                    let summary = after
                        .iter()
                        .find(|i| tp::is_assistant(i))
                        .map(tp::text_of)
                        .unwrap_or_default();
                    let screen = after
                        .iter()
                        .find_map(|i| match i {
                            Item::ToolOutput(o) => Some(o.output.text.clone()),
                            _ => None,
                        })
                        .unwrap_or_else(|| "(the screen could not be captured)".into());
                    let text = s.render(
                        "questions.md",
                        json!({"task": s.task(), "summary": summary, "screen": screen}),
                    )?;
                    (
                        vec![(ShapedRole::User, text.clone())],
                        Some(tp::injected(HANDOFF_QUESTIONS, text)),
                    )
                }
            }
            Kind::AnswerQuestions => {
                let at = h
                    .iter()
                    .rposition(|i| tp::label(i) == Some(SUMMARY_REQUEST))
                    .unwrap_or(h.len());
                let summary_prompt = h.get(at).map(tp::text_of).unwrap_or_default();
                let summary = h[at..]
                    .iter()
                    .find(|i| tp::is_assistant(i))
                    .map(tp::text_of)
                    .unwrap_or_default();
                let ask = h.last().map(tp::text_of).unwrap_or_default();
                let extra = format!("{summary_prompt}{summary}{ask}");
                let mut c = s.unwound(s.conversation(at)?, &extra);
                c.push((ShapedRole::User, summary_prompt));
                c.push((ShapedRole::Assistant, summary));
                c.push((ShapedRole::User, ask));
                (c, None)
            }
        };

        let messages = conversation
            .into_iter()
            .map(|(role, text)| ShapedMessage::text(role, text))
            .collect();
        let request = ShapedRequest {
            model: ctx.model.clone(),
            messages,
            params: RequestParams {
                stream: false,
                ..RequestParams::default()
            },
            options: RenderOptions {
                field_order: BODY_KEY_ORDER.map(String::from).to_vec(),
                ..RenderOptions::default()
            },
            ..ShapedRequest::default()
        };
        let then = match kind {
            Kind::Action | Kind::Handoff => Then::Act {
                confirming: confirmation_pending(h),
                parse_error: env.prompts.get(ID, "parse_error.md")?,
                confirmation: s
                    .render("completion_confirmation.md", json!({}))?
                    .trim_end()
                    .to_string(),
            },
            Kind::Summary { .. } => Then::CaptureScreen,
            Kind::Questions { .. } => Then::Inject {
                label: ANSWER_QUESTIONS,
                template: env.prompts.get(ID, "answer_questions.md")?,
                var: "questions",
            },
            Kind::AnswerQuestions => Then::Inject {
                label: HANDOFF,
                template: env.prompts.get(ID, "handoff.md")?,
                var: "answers",
            },
        };
        Ok(Shaped {
            request,
            tool_kinds: Default::default(),
            extra_requests: Vec::new(),
            postprocess: Some(Box::new(TerminusPostprocess {
                injected_first,
                then,
                call_id: tp::call_id(ID, h, 0),
                pane: (settings.pane_width, settings.pane_height),
                seen: Seen::default(),
            })),
            prompt_source: instance.source,
        })
    }
}

fn settings(env: &ShapeEnv<'_>) -> Result<Settings, ShapeError> {
    let t = env.prompts.get(ID, "settings.json")?;
    serde_json::from_str(&t.text).map_err(|e| ShapeError::Template {
        name: t.source.clone(),
        message: e.to_string(),
    })
}

/// The request kind (see the module docs). Chain labels before the last message a person typed
/// belong to an abandoned chain and do not count.
fn kind(h: &[Item]) -> Kind {
    let from = tp::last_person_index(h).unwrap_or(0);
    let tail = &h[from..];
    match tail.last().and_then(tp::label) {
        Some(ANSWER_QUESTIONS) => return Kind::AnswerQuestions,
        Some(HANDOFF) => return Kind::Handoff,
        Some(SUMMARY_REQUEST) => return Kind::Summary { retry: true },
        Some(HANDOFF_QUESTIONS) => return Kind::Questions { retry: true },
        _ => {}
    }
    if let Some(s) = tail
        .iter()
        .rposition(|i| tp::label(i) == Some(SUMMARY_REQUEST))
    {
        let after = &tail[s + 1..];
        let moved_on = after.iter().any(|i| {
            matches!(
                tp::label(i),
                Some(HANDOFF_QUESTIONS | ANSWER_QUESTIONS | HANDOFF)
            )
        });
        if !moved_on && after.iter().any(tp::is_assistant) {
            return Kind::Questions { retry: false };
        }
    }
    Kind::Action
}

/// Whether the model was just asked to confirm completion: the injected question follows its
/// previous reply.
fn confirmation_pending(h: &[Item]) -> bool {
    let last_reply = h.iter().rposition(tp::is_assistant);
    last_reply.is_some_and(|r| {
        h[r + 1..]
            .iter()
            .any(|i| tp::label(i) == Some(COMPLETION_CONFIRMATION))
    })
}

/// The terminal screen of a fresh pane: the prompt the `terminal` tool's shell shows in the
/// workspace (`PS1='$PWD$ '`; tmux's capture drops the trailing space) on the first row, the
/// other rows empty — what the agent's first prompt shows before any command ran. The engine's
/// `terminal_tmux` test checks a real pane against this.
pub(crate) fn fresh_screen(cwd: &str, height: u16) -> String {
    let mut screen = format!("{cwd}$\n");
    for _ in 1..height {
        screen.push('\n');
    }
    screen
}

struct Shaper<'a> {
    h: &'a [Item],
    env: &'a ShapeEnv<'a>,
    vars: &'a TemplateVars<'a>,
    settings: &'a Settings,
}

impl Shaper<'_> {
    fn render(&self, file: &str, extra: Value) -> Result<String, ShapeError> {
        tp::render_file(self.env.prompts, ID, file, self.vars, extra)
            .map(|t| t.trim_end().to_string())
    }

    fn task(&self) -> String {
        tp::task_index(self.h)
            .map(|i| tp::text_of(&self.h[i]))
            .unwrap_or_default()
    }

    /// The first prompt: instructions, task and the fresh screen.
    fn initial_prompt(&self) -> Result<String, ShapeError> {
        let screen = format!(
            "Current Terminal Screen:\n{}",
            fresh_screen(self.vars.cwd, self.settings.pane_height)
        );
        // Not trimmed: the screen's empty rows are part of what the agent sends.
        let text = tp::render_file(
            self.env.prompts,
            ID,
            "instance.md",
            self.vars,
            json!({"task": self.task(), "screen": screen}),
        )?;
        Ok(text.strip_suffix('\n').map(str::to_string).unwrap_or(text))
    }

    /// The action conversation over `h[..upto]`: the first prompt (or, after a hand-off, the
    /// compressed start), then each reply and what the model saw after it.
    fn conversation(&self, upto: usize) -> Result<Vec<(ShapedRole, String)>, ShapeError> {
        let h = &self.h[..upto];
        let mut out = vec![(ShapedRole::User, self.initial_prompt()?)];
        let mut start = tp::task_index(h).map_or(0, |t| t + 1);
        if let Some(hi) = h.iter().rposition(|i| tp::label(i) == Some(HANDOFF))
            && let Some(q) = h[..hi]
                .iter()
                .rposition(|i| tp::label(i) == Some(HANDOFF_QUESTIONS))
        {
            let questions = h[q..hi]
                .iter()
                .find(|i| tp::is_assistant(i))
                .map(tp::text_of)
                .unwrap_or_default();
            out.push((ShapedRole::User, tp::text_of(&h[q])));
            out.push((ShapedRole::Assistant, questions));
            out.push((ShapedRole::User, tp::text_of(&h[hi])));
            start = hi + 1;
        }
        let mut obs = Observation::default();
        let mut in_chain = false;
        for item in &h[start.min(h.len())..] {
            if in_chain {
                // An abandoned chain ends at the next message a person typed.
                if tp::is_person(item) {
                    in_chain = false;
                } else {
                    continue;
                }
            }
            match item {
                Item::Message(m) if m.role == Role::Assistant => {
                    obs.flush(&mut out);
                    obs.reply = Some(m.text());
                    out.push((ShapedRole::Assistant, m.text()));
                }
                Item::Message(m) if m.role == Role::User => match m.injected_by.as_deref() {
                    None | Some(PARSE_ERROR) => {
                        obs.flush(&mut out);
                        out.push((ShapedRole::User, m.text()));
                    }
                    Some(COMPLETION_CONFIRMATION) => obs.confirmation = Some(m.text()),
                    Some(SUMMARY_REQUEST | HANDOFF_QUESTIONS | ANSWER_QUESTIONS) => {
                        obs.flush(&mut out);
                        in_chain = true;
                    }
                    Some(_) => {}
                },
                Item::ToolOutput(o) => obs.screens.push(o.output.clone()),
                _ => {}
            }
        }
        obs.flush(&mut out);
        Ok(out)
    }

    fn estimate(&self, messages: &[(ShapedRole, String)], extra: &str) -> u64 {
        let chars: usize = messages.iter().map(|(_, t)| t.len() + 16).sum::<usize>() + extra.len();
        (chars / CHARS_PER_TOKEN) as u64
    }

    /// Whether to summarize before acting: few tokens left, and some work since the start (or
    /// the last hand-off) to summarize.
    fn near_full(&self, conversation: &[(ShapedRole, String)]) -> bool {
        let window = self.settings.context_window_tokens;
        if window == 0 {
            return false;
        }
        let replies = conversation
            .iter()
            .filter(|(r, _)| *r == ShapedRole::Assistant)
            .count();
        let base_replies = usize::from(self.h.iter().any(|i| tp::label(i) == Some(HANDOFF)));
        replies > base_replies
            && window.saturating_sub(self.estimate(conversation, ""))
                < self.settings.summarize_below_free_tokens
    }

    /// Drops the latest exchanges until the conversation plus `extra` leaves
    /// [`UNWIND_FREE_TOKENS`] free (the agent's `_unwind_messages_to_free_tokens`).
    fn unwound(
        &self,
        mut conversation: Vec<(ShapedRole, String)>,
        extra: &str,
    ) -> Vec<(ShapedRole, String)> {
        let window = self.settings.context_window_tokens;
        if window == 0 {
            return conversation;
        }
        while conversation.len() > 1
            && window.saturating_sub(self.estimate(&conversation, extra)) < UNWIND_FREE_TOKENS
        {
            let keep = conversation.len().saturating_sub(2).max(1);
            conversation.truncate(keep);
        }
        conversation
    }
}

/// What the model sees after one reply.
#[derive(Default)]
struct Observation {
    reply: Option<String>,
    screens: Vec<ToolOutput>,
    confirmation: Option<String>,
}

impl Observation {
    fn flush(&mut self, out: &mut Vec<(ShapedRole, String)>) {
        let reply = self.reply.take();
        let screens = std::mem::take(&mut self.screens);
        let confirmation = self.confirmation.take();
        if screens.is_empty() && confirmation.is_none() {
            return;
        }
        let screen: String = screens
            .iter()
            .map(|o| o.text.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let screen = tp::head_tail(&screen, OUTPUT_LIMIT_BYTES, |n| {
            format!(
                "\n[... output limited to {OUTPUT_LIMIT_BYTES} bytes; {n} interior bytes omitted ...]\n"
            )
        });
        let text = if let Some(question) = confirmation {
            format!("Current terminal state:\n{screen}\n\n{question}")
        } else {
            let warnings = reply
                .and_then(|r| parse::parse(&r).ok())
                .map(|r| r.warnings)
                .unwrap_or_default();
            if warnings.is_empty() {
                screen
            } else {
                format!(
                    "Your previous response had warnings:\n{}\n\n{screen}",
                    parse::feedback(None, &warnings)
                )
            }
        };
        out.push((ShapedRole::User, text));
    }
}

/// What the postprocess does when the reply is complete.
enum Then {
    /// Read the JSON: run the keystrokes, correct, confirm or finish.
    Act {
        confirming: bool,
        parse_error: Template,
        confirmation: String,
    },
    /// Capture the screen for the questions prompt.
    CaptureScreen,
    /// Pass the reply on in a labelled message.
    Inject {
        label: &'static str,
        template: Template,
        var: &'static str,
    },
}

/// The stream decorator (see the module docs).
struct TerminusPostprocess {
    /// A chain prompt sent in this request, recorded when the reply starts.
    injected_first: Option<Item>,
    then: Then,
    call_id: String,
    pane: (u16, u16),
    seen: Seen,
}

impl TerminusPostprocess {
    fn terminal_call(&self, commands: &[parse::Command]) -> Item {
        let commands: Vec<Value> = commands
            .iter()
            .map(|c| json!({"keystrokes": c.keystrokes, "duration": c.duration}))
            .collect();
        Item::FunctionCall(FunctionCallItem {
            id: String::new(),
            call_id: self.call_id.clone(),
            name: TERMINAL_TOOL.into(),
            namespace: None,
            arguments: json!({"commands": commands, "width": self.pane.0, "height": self.pane.1})
                .to_string(),
        })
    }

    /// The items that answer a complete reply, and whether one of them is a call.
    fn answer(&self) -> (Vec<Item>, bool) {
        match &self.then {
            Then::CaptureScreen => (vec![self.terminal_call(&[])], true),
            Then::Inject {
                label,
                template,
                var,
            } => {
                let text = render_plain(template, json!({ (*var): self.seen.text.trim() }));
                (vec![tp::injected(label, text)], false)
            }
            Then::Act {
                confirming,
                parse_error,
                confirmation,
            } => match parse::parse(&self.seen.text) {
                Err(e) => {
                    let text = render_plain(
                        parse_error,
                        json!({"feedback": parse::feedback(Some(&e.error), &e.warnings)}),
                    );
                    (vec![tp::injected(PARSE_ERROR, text)], false)
                }
                Ok(reply) if reply.task_complete && *confirming => (Vec::new(), false),
                Ok(reply) => {
                    let mut items = vec![self.terminal_call(&reply.commands)];
                    if reply.task_complete {
                        items.push(tp::injected(COMPLETION_CONFIRMATION, confirmation.clone()));
                    }
                    (items, true)
                }
            },
        }
    }
}

/// Renders a template that needs only its own variables (at reply time there is no step
/// context to borrow); a broken override falls back to the variables' plain text.
fn render_plain(template: &Template, vars: Value) -> String {
    let mut env = minijinja::Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    let rendered = env
        .template_from_str(&template.text)
        .and_then(|t| t.render(&vars));
    match rendered {
        Ok(text) => text.trim_end().to_string(),
        Err(e) => {
            tracing::warn!(template = %template.source, error = %e, "template failed at reply time");
            vars.as_object()
                .map(|m| {
                    m.values()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("\n\n")
                })
                .unwrap_or_default()
        }
    }
}

impl Postprocess for TerminusPostprocess {
    fn event(&mut self, event: StreamEvent, out: &mut Vec<StreamEvent>) {
        match event {
            StreamEvent::Created { .. } => {
                out.push(event);
                if let Some(item) = self.injected_first.take() {
                    out.push(StreamEvent::ItemDone { item });
                }
            }
            StreamEvent::Completed {
                stop_reason,
                response_id,
            } => {
                if let Some(item) = self.injected_first.take() {
                    out.push(StreamEvent::ItemDone { item });
                }
                let (items, has_call) = if self.seen.calls == 0 {
                    self.answer()
                } else {
                    (Vec::new(), false)
                };
                out.extend(items.into_iter().map(|item| StreamEvent::ItemDone { item }));
                let stop_reason = if has_call {
                    StopReason::ToolCalls
                } else {
                    stop_reason
                };
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

    fn user(text: &str) -> Item {
        Item::text("u", Role::User, text)
    }
    fn assistant(text: &str) -> Item {
        Item::text("a", Role::Assistant, text)
    }

    #[test]
    fn kinds_follow_the_labels() {
        let task = user("do it");
        assert_eq!(kind(std::slice::from_ref(&task)), Kind::Action);
        assert_eq!(
            kind(&[task.clone(), tp::injected(SUMMARY_REQUEST, "s")]),
            Kind::Summary { retry: true }
        );
        let after_summary = vec![
            task.clone(),
            tp::injected(SUMMARY_REQUEST, "s"),
            assistant("summary"),
        ];
        assert_eq!(kind(&after_summary), Kind::Questions { retry: false });
        let mut h = after_summary.clone();
        h.push(tp::injected(HANDOFF_QUESTIONS, "q"));
        assert_eq!(kind(&h), Kind::Questions { retry: true });
        h.push(assistant("questions"));
        h.push(tp::injected(ANSWER_QUESTIONS, "answer these"));
        assert_eq!(kind(&h), Kind::AnswerQuestions);
        h.push(assistant("answers"));
        h.push(tp::injected(HANDOFF, "go on"));
        assert_eq!(kind(&h), Kind::Handoff);
        h.push(assistant("{}"));
        assert_eq!(kind(&h), Kind::Action);
        // A person typing mid-chain abandons it.
        let mut h = after_summary;
        h.push(user("actually, stop"));
        assert_eq!(kind(&h), Kind::Action);
    }

    #[test]
    fn confirmation_is_pending_only_right_after_the_question() {
        let h = vec![
            user("t"),
            assistant("{}"),
            tp::injected(COMPLETION_CONFIRMATION, "sure?"),
        ];
        assert!(confirmation_pending(&h));
        let mut later = h.clone();
        later.push(assistant("{\"task_complete\": false}"));
        assert!(!confirmation_pending(&later));
    }

    #[test]
    fn fresh_screen_has_one_row_per_line() {
        assert_eq!(fresh_screen("/w", 3), "/w$\n\n\n");
    }
}
