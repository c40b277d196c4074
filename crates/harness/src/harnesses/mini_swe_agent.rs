//! `mini-swe-agent`: the request and reply dialect of mini-swe-agent 2.4 (`mini -t … -y`,
//! default `mini.yaml`).
//!
//! Sources: a captured run of mini-swe-agent 2.4.6 (PyPI `mini-swe-agent`, `mini`) and the
//! anchor (openinterpreter 0.0.40, `codex-rs/core/src/harness/mini_swe_agent.rs`;
//! `docs/sources.md`); they agree on the request. Followed from the capture: body keys
//! `model, messages, tools` only, in this order (no `stream`, `temperature`, `max_tokens`,
//! `tool_choice`); one
//! `bash(command)` tool; a one-line system message; the task wrapped in the instance template
//! (recommended workflow ending in the completion command, command rules, an example reply,
//! `<system_information>`, command examples); a re-query appends the error as a new user
//! message and does **not** echo the rejected reply.
//!
//! **Every reply must call a tool.** A reply without a call gets the no-tool-call error back as
//! a user message labelled `format_correction`, and the engine samples again (bounded). The
//! anchor buffered the whole response to decide this and threw the text away: here events
//! stream through as they come, the rejected reply stays in history for the UI, and shaping
//! leaves it out of later requests, as the real agent does.
//!
//! **Completion.** The real agent ends when a command's output starts with
//! `COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` (its `LocalEnvironment._check_finished`). The
//! instance template tells the model to finish with exactly `echo
//! COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`, on its own; that command's output is known without
//! running it, so such a call ends the turn right there (the reply is kept, the call is not
//! run). A command that prints the marker among other work runs like any other; the engine
//! has no seam yet for a tool output that ends a turn, so the model is then asked again and
//! normally repeats the bare command.
//!
//! **Observations** follow mini.yaml's observation template structure (`<returncode>`,
//! `<output>`, and for more than 10,000 characters a warning with the head, the elided count
//! and the tail), as tool messages answering each call.
//!
//! **Leaked calls.** Models served behind tool-calling APIs sometimes write the call as text;
//! where the provider's setting enables it, the engine puts the recovery decorator
//! ([`crate::recovery::enable`]) before this one, so such a call counts as a call.

use serde_json::{Value, json};
use tack_protocol::{
    FunctionCallItem, Item, Prompt, Role, StopReason, StreamEvent, ToolInput, ToolOutput,
    ToolOutputItem, ToolStatus, Wire,
};
use tack_wire::{RequestParams, ShapedRequest, SystemBlock};

use super::text_protocol::{self as tp, FORMAT_CORRECTION, Seen};
use crate::history::{self, DeveloperMode, HistoryOptions, ReasoningReplay};
use crate::prompts::TemplateVars;
use crate::{BoundCall, Harness, Postprocess, ShapeEnv, ShapeError, Shaped, bind_by_name, rules};

const ID: &str = "mini-swe-agent";

/// The first output line that ends the task (mini-swe-agent 2.x; 1.x used another word).
pub(crate) const COMPLETION_MARKER: &str = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

/// Top-level body keys in the captured order (litellm's request as sent).
const BODY_KEY_ORDER: [&str; 3] = ["model", "messages", "tools"];

/// mini-swe-agent's `LocalEnvironmentConfig.timeout` default, in ms.
const COMMAND_TIMEOUT_MS: u32 = 30_000;

/// Output longer than this many characters is shown as head, count and tail (mini.yaml).
const OUTPUT_LIMIT_CHARS: usize = 10_000;

/// The `mini-swe-agent` harness.
pub(crate) struct MiniSweAgent;

impl Harness for MiniSweAgent {
    fn id(&self) -> &'static str {
        ID
    }
    fn description(&self) -> &'static str {
        "mini-swe-agent 2.4: one bash tool, every reply must call it"
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
        let vars = TemplateVars::new(ctx, prompt.instructions.as_deref());
        let system_template = env.prompts.get(ID, "system.md")?;
        let system = tp::render(&system_template, &vars, json!({}))?;
        let correction = tp::render_file(
            env.prompts,
            ID,
            "format_error.md",
            &vars,
            json!({"error": "Your reply called no tool. Every reply has to include at least one tool call.", "marker": COMPLETION_MARKER}),
        )?;
        let rules = rules::for_provider(&ctx.provider);
        let items = conversation(prompt, env, &vars)?;
        let messages = history::convert(
            &items,
            &HistoryOptions {
                developer: DeveloperMode::AsUser,
                keep_system: false,
                reasoning: if rules.replay_reasoning {
                    ReasoningReplay::Readable
                } else {
                    ReasoningReplay::Drop
                },
                keep_images: true,
            },
        );
        let request = ShapedRequest {
            model: ctx.model.clone(),
            system: vec![SystemBlock {
                text: system.trim_end().to_string(),
                cache: false,
            }],
            messages,
            tools: tools.clone(),
            params: RequestParams {
                stream: false,
                ..RequestParams::default()
            },
            options: tack_wire::RenderOptions {
                chat_tool_only_content: rules.tool_only_content,
                chat_reasoning_field: rules
                    .replay_reasoning
                    .then(|| "reasoning_content".to_string()),
                field_order: BODY_KEY_ORDER.map(String::from).to_vec(),
                ..tack_wire::RenderOptions::default()
            },
            ..ShapedRequest::default()
        };
        let postprocess: Box<dyn Postprocess> = Box::new(MiniPostprocess {
            correction: correction.trim_end().to_string(),
            seen: Seen::default(),
            finished: false,
        });
        Ok(Shaped {
            request,
            tool_kinds: tack_wire::tool_kinds(&tools, Wire::Chat),
            extra_requests: Vec::new(),
            postprocess: Some(postprocess),
            prompt_source: system_template.source,
        })
    }

    fn bind_call(&self, call: &Item) -> Result<BoundCall, ToolOutput> {
        let Item::FunctionCall(c) = call else {
            return bind_by_name(call);
        };
        if c.name != "bash" {
            return Err(ToolOutput::error(format!(
                "Unknown tool `{}`: the only tool is `bash`. Call it with the command to run, or `echo {COMPLETION_MARKER}` to finish.",
                c.name
            )));
        }
        let args = crate::parse_arguments("bash", &c.arguments)?;
        let Some(command) = args.get("command").and_then(Value::as_str) else {
            return Err(ToolOutput::error(
                "The `bash` call has no `command` argument; pass the command line to run as `command`.",
            ));
        };
        Ok(BoundCall {
            tool: "shell".into(),
            input: ToolInput::Json(json!({"command": command, "timeout_ms": COMMAND_TIMEOUT_MS})),
        })
    }

    /// The agent's own completion signal: a command whose output starts with the marker line
    /// (mini-swe-agent checks the first line of the output, not the command).
    fn ends_turn(&self, _call: &Item, output: &ToolOutput) -> bool {
        output.success()
            && output
                .text
                .trim_start()
                .lines()
                .next()
                .is_some_and(|line| line.trim() == COMPLETION_MARKER)
    }
}

/// History as the real agent holds it: the task in the instance template, rejected replies
/// left out, local shell calls as `bash` calls, outputs in the observation format.
fn conversation(
    prompt: &Prompt,
    env: &ShapeEnv<'_>,
    vars: &TemplateVars<'_>,
) -> Result<Vec<Item>, ShapeError> {
    let h = &prompt.history;
    let task = tp::task_index(h);
    let mut items = Vec::with_capacity(h.len());
    for (i, item) in h.iter().enumerate() {
        match item {
            Item::Message(m) if Some(i) == task => {
                let text = tp::render_file(
                    env.prompts,
                    ID,
                    "instance.md",
                    vars,
                    json!({
                        "task": m.text(),
                        "marker": COMPLETION_MARKER,
                        "machine": std::env::consts::ARCH,
                        "darwin": vars.os == "macos",
                    }),
                )?;
                items.push(Item::text(m.id.clone(), Role::User, text.trim_end()));
            }
            Item::Message(m) if m.role == Role::Assistant && rejected(h, i) => {}
            Item::Reasoning(_) if rejected(h, i) => {}
            Item::LocalShellCall(c) => items.push(Item::FunctionCall(FunctionCallItem {
                id: c.id.clone(),
                call_id: c.call_id.clone(),
                name: "bash".into(),
                namespace: None,
                arguments: json!({"command": crate::shell_command_text(&c.command)}).to_string(),
            })),
            Item::ToolOutput(o) => items.push(Item::ToolOutput(ToolOutputItem {
                id: o.id.clone(),
                call_id: o.call_id.clone(),
                output: ToolOutput {
                    text: observation(&o.output),
                    ..o.output.clone()
                },
            })),
            _ => items.push(item.clone()),
        }
    }
    Ok(items)
}

/// Whether the reply item at `i` was rejected: the next item that is not part of the same
/// reply is a format correction.
fn rejected(h: &[Item], i: usize) -> bool {
    h[i + 1..]
        .iter()
        .find(|item| !matches!(item, Item::Reasoning(_)) && !tp::is_assistant(item))
        .is_some_and(|item| tp::label(item) == Some(FORMAT_CORRECTION))
}

/// mini.yaml's observation structure for one command's output.
fn observation(output: &ToolOutput) -> String {
    let (body, _notes) = tp::split_shell_notes(&output.text);
    let code = match output.status {
        ToolStatus::Completed => output.exit_code.unwrap_or(0),
        ToolStatus::TimedOut | ToolStatus::Aborted | ToolStatus::Denied => -1,
        ToolStatus::Failed => output.exit_code.unwrap_or(-1),
    };
    let mut text = format!("<returncode>{code}</returncode>\n");
    let chars = body.chars().count();
    if chars < OUTPUT_LIMIT_CHARS {
        text.push_str("<output>\n");
        text.push_str(body);
        if !body.is_empty() && !body.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("</output>");
    } else {
        let head: String = body.chars().take(OUTPUT_LIMIT_CHARS / 2).collect();
        let tail: String = body.chars().skip(chars - OUTPUT_LIMIT_CHARS / 2).collect();
        text.push_str(
            "<warning>\nThat output was too long to show in full. Use a command that prints less: \
             head, tail or sed for parts of a file, a narrower pattern for grep or find, or \
             redirect the output to a file and search that.\n</warning>\n",
        );
        text.push_str(&format!(
            "<output_head>\n{head}\n</output_head>\n<elided_chars>\n{} characters elided\n</elided_chars>\n<output_tail>\n{tail}\n</output_tail>",
            chars - OUTPUT_LIMIT_CHARS
        ));
    }
    match output.status {
        ToolStatus::TimedOut => text.push_str(&format!(
            "\n<exception>The command did not finish within {} seconds and was stopped. Avoid commands that wait for input or run for a long time.</exception>",
            COMMAND_TIMEOUT_MS / 1000
        )),
        ToolStatus::Denied | ToolStatus::Aborted => {
            text.push_str(&format!("\n<exception>{}</exception>", output.text.trim()));
        }
        _ => {}
    }
    text
}

/// Whether a command line is exactly the completion command (`echo` of the marker, quoted or
/// not, optionally followed by `;`).
pub(crate) fn is_completion_command(command: &str) -> bool {
    let command = command.trim().trim_end_matches(';').trim();
    matches!(shell_words::split(command).as_deref(), Ok([echo, marker]) if echo == "echo" && marker == COMPLETION_MARKER)
}

fn completion_call(item: &Item) -> bool {
    match item {
        Item::FunctionCall(c) if c.name == "bash" => serde_json::from_str::<Value>(&c.arguments)
            .ok()
            .and_then(|v| {
                v.get("command")
                    .and_then(Value::as_str)
                    .map(is_completion_command)
            })
            .unwrap_or(false),
        Item::LocalShellCall(c) => is_completion_command(&crate::shell_command_text(&c.command)),
        _ => false,
    }
}

/// The stream decorator (see the module docs).
struct MiniPostprocess {
    correction: String,
    seen: Seen,
    /// The reply ran the completion command.
    finished: bool,
}

impl Postprocess for MiniPostprocess {
    fn event(&mut self, event: StreamEvent, out: &mut Vec<StreamEvent>) {
        match event {
            StreamEvent::ItemDone { item } if completion_call(&item) => self.finished = true,
            StreamEvent::Completed {
                stop_reason,
                response_id,
            } => {
                let mut stop_reason = stop_reason;
                if self.seen.calls == 0 {
                    if self.finished {
                        stop_reason = StopReason::EndTurn;
                    } else {
                        out.push(StreamEvent::ItemDone {
                            item: tp::injected(FORMAT_CORRECTION, self.correction.clone()),
                        });
                    }
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
    fn completion_command_forms() {
        assert!(is_completion_command(
            "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
        ));
        assert!(is_completion_command(
            "  echo 'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT';\n"
        ));
        assert!(!is_completion_command(
            "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"
        ));
        assert!(!is_completion_command("echo done"));
        assert!(!is_completion_command("echo 'unclosed"));
    }

    #[test]
    fn observations_follow_the_template_structure() {
        let mut out = ToolOutput::error("boom\n[exit code 2]");
        out.exit_code = Some(2);
        assert_eq!(
            observation(&out),
            "<returncode>2</returncode>\n<output>\nboom\n</output>"
        );
        assert_eq!(
            observation(&ToolOutput::ok("")),
            "<returncode>0</returncode>\n<output>\n</output>"
        );
        let long = ToolOutput::ok("x".repeat(12_000));
        let text = observation(&long);
        assert!(
            text.contains("<elided_chars>\n2000 characters elided"),
            "{}",
            &text[..200]
        );
    }
}
