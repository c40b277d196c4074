//! `kimi-code`: Moonshot's current Kimi Code CLI (the successor kimi-cli 1.52 points to).
//!
//! There is no capture of this CLI, so everything follows the anchor (openinterpreter 0.0.40,
//! `codex-rs/core/src/harness/kimi_code.rs`, `kimi_code_tools.json`; `docs/sources.md`), with
//! its flaws fixed:
//! - Tools: the honourable subset of the 25 fixed tools, in the anchor's order: AskUserQuestion,
//!   Bash, Edit, Glob, Grep, Read, TodoList, Write (draft-07 JSON Schemas with
//!   `additionalProperties: false`, as the anchor's `kimi_code_tools.json` has them). Agent,
//!   AgentSwarm, goals, cron, plan mode, skills, tasks, FetchURL and ReadMediaFile are left out:
//!   Tack cannot carry them out.
//! - Body: `max_completion_tokens: 32768`, `prompt_cache_key: "session_<session id>"`,
//!   `stream`, `stream_options.include_usage`, `tools`, `thinking: {type: enabled, keep: all}`,
//!   no `reasoning_effort`.
//! - Messages: the kimi builder with the `kimi_code` options: compact arguments in the model's
//!   key order, `reasoning_content` on every assistant message (empty when there is none, and
//!   only for providers that take it), `:` in tool-call ids replaced by `_`, user newlines kept;
//!   after every user message a `<system-reminder>` with the permission mode, rendered from the
//!   step's approval policy (`prompts/kimi-code/permission-reminder.md`) instead of a fixed
//!   "auto" text.
//! - System prompt: re-rendered from the step context on every request (the anchor cached it
//!   per process, freezing date and listing); the Windows block is kept on Windows; AGENTS.md
//!   *is* loaded (the anchor dropped it, `KIMI_AGENTS_MD=""`, an artifact of the anchor's fixture).
//!
//! Identity: no capture shows Kimi Code's headers, so none are added even when the user opts
//! into identity emulation.

// Binding answers a bad call with a model-readable `ToolOutput` (the `Harness::bind_call`
// contract); it is a cold path, so the error's size does not matter.
#![allow(clippy::result_large_err)]

use serde_json::{Value, json};
use tack_protocol::{Item, LocalShellCallItem, Prompt, ToolOutput, Wire};
use tack_wire::{
    Block, RenderOptions, RequestParams, ShapedMessage, ShapedRequest, ShapedRole, SystemBlock,
    ToolOnlyContent,
};

use super::cli_env::{self, KIMI_CODE_TREE};
use super::cli_tools::{self, Args, CliTool, ReadResult, ShellEnd, ShellRun};
use super::kimi_chat::{self, Arguments, CallIds, ChatStyle, Framing, ToolMedia};
use super::kimi_cli;
use crate::history::DeveloperMode;
use crate::prompts::{self, TemplateVars};
use crate::{BoundCall, Harness, ShapeEnv, ShapeError, Shaped, bind_by_name, rules};

const ID: &str = "kimi-code";

/// `max_completion_tokens` Kimi Code sends.
const MAX_COMPLETION_TOKENS: u32 = 32_768;

/// Foreground Bash timeouts, in seconds (default 60, at most 300; background at most 86400).
const BASH_DEFAULT_SECS: u64 = 60;
const BASH_MAX_SECS: u64 = 300;
const BASH_BACKGROUND_MAX_SECS: u64 = 86_400;

const READ_MAX_LINES: u64 = 1000;

const SCHEMA: &str = "http://json-schema.org/draft-07/schema#";

pub(crate) struct KimiCode;

fn local_shell(c: &LocalShellCallItem) -> (&'static str, Value) {
    let mut args = json!({"command": crate::shell_command_text(&c.command)});
    if let Some(dir) = &c.workdir {
        args["cwd"] = json!(dir);
    }
    if let Some(ms) = c.timeout_ms {
        args["timeout"] = json!(u64::from(ms).div_ceil(1000).max(1));
    }
    ("Bash", args)
}

/// The anchor's `kimi_code` option set (`core/src/harness/kimi_code.rs`).
const STYLE: ChatStyle = ChatStyle {
    developer: DeveloperMode::Drop,
    arguments: Arguments::Compact,
    call_ids: CallIds::ColonToUnderscore,
    trim_user_newlines: false,
    user_parts: false,
    framing: Framing::KimiSystem,
    empty_result: Some("<system>Tool output is empty.</system>"),
    aborted_result: "<system>ERROR: The tool call was interrupted before it finished.</system>",
    result_parts: false,
    tool_media: ToolMedia::FollowingUserMessage {
        note: "<system>The tool returned images; they follow in a user message.</system>",
        lead: "",
    },
    replay_reasoning: true,
    empty_reasoning: true,
    reasoning_placeholder: None,
    empty_content_with_reasoning: false,
    local_shell,
};

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "$schema": SCHEMA,
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

/// The Kimi Code tools Tack can carry out, in the anchor's order; descriptions are our own.
pub(crate) fn tool_table() -> Vec<CliTool> {
    let string = |d: &str| json!({"type": "string", "description": d});
    let todo_item = json!({
        "type": "object",
        "properties": {
            "title": {"type": "string", "description": "What the item is about.", "minLength": 1},
            "status": {"type": "string", "description": "Where the item stands.", "enum": ["pending", "in_progress", "done"]}
        },
        "required": ["title", "status"],
        "additionalProperties": false
    });
    vec![
        CliTool::new(
            "AskUserQuestion",
            "ask_user",
            "Ask the user up to four questions with 2-4 options each, when their answer changes what you do next. They may also answer in their own words; do not add an 'Other' option.",
            object(
                json!({
                    "questions": {
                        "type": "array",
                        "description": "The questions (1 to 4).",
                        "minItems": 1,
                        "maxItems": 4,
                        "items": {
                            "type": "object",
                            "properties": {
                                "question": {"description": "The question, ending with '?'.", "type": "string", "minLength": 1},
                                "header": {"default": "", "description": "A short tag (at most 12 characters).", "type": "string"},
                                "options": {
                                    "type": "array",
                                    "description": "The choices.",
                                    "minItems": 2,
                                    "maxItems": 4,
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "label": {"description": "The choice, in a few words.", "type": "string", "minLength": 1},
                                            "description": {"default": "", "description": "What choosing it implies.", "type": "string"}
                                        },
                                        "required": ["label"],
                                        "additionalProperties": false
                                    }
                                },
                                "multi_select": {"default": false, "description": "Allow several choices.", "type": "boolean"}
                            },
                            "required": ["question", "options"],
                            "additionalProperties": false
                        }
                    },
                    "background": {"default": false, "description": "Ask without waiting for the answer (not available here).", "type": "boolean"}
                }),
                &["questions"],
            ),
        ),
        CliTool::new(
            "Bash",
            "shell",
            "Run a bash command and get its combined output; a non-zero exit is reported at the end of the output. Each call starts a fresh shell, so pass `cwd` instead of relying on an earlier `cd`. Prefer Read, Edit, Write, Glob and Grep for file work.",
            object(
                json!({
                    "command": {"type": "string", "description": "The command to run.", "minLength": 1},
                    "cwd": string("Folder to run in (default: the working directory)."),
                    "timeout": {"default": BASH_DEFAULT_SECS, "description": "Seconds before the command is stopped: 60 by default, at most 300 in the foreground.", "type": "integer", "exclusiveMinimum": 0, "maximum": 9_007_199_254_740_991_u64},
                    "description": string("A few words on what the command does; needed with run_in_background."),
                    "run_in_background": {"description": "Start the command detached and return at once; its output goes to a log file whose path is returned.", "type": "boolean"},
                    "disable_timeout": {"description": "No timeout for a background command.", "type": "boolean"}
                }),
                &["command"],
            ),
        ),
        CliTool::new(
            "Edit",
            "edit",
            "Swap one piece of a file's text for another. `old_string` has to appear in the file character for character (whitespace too) and only once, unless `replace_all` is set. Look at the file before editing it.",
            object(
                json!({
                    "path": string("Path of the file."),
                    "old_string": string("The exact text to replace."),
                    "new_string": string("The replacement text."),
                    "replace_all": {"description": "Replace every occurrence.", "type": "boolean"}
                }),
                &["path", "old_string", "new_string"],
            ),
        ),
        CliTool::new(
            "Glob",
            "glob",
            "Find files by glob pattern, such as `src/**/*.ts`; newest first.",
            object(
                json!({
                    "pattern": string("The glob pattern."),
                    "path": string("Folder to search (default: the working directory)."),
                    "include_ignored": {"description": "Also match files ignored by .gitignore.", "type": "boolean"},
                    "include_dirs": {"description": "Also match folders.", "type": "boolean"}
                }),
                &["pattern"],
            ),
        ),
        CliTool::new(
            "Grep",
            "grep",
            "Search file contents with a regular expression. By default lists the files that match; use output_mode `content` for the lines.",
            object(
                json!({
                    "pattern": string("The regular expression."),
                    "path": string("File or folder to search (default: the working directory)."),
                    "glob": string("Only files matching this glob, e.g. `*.{ts,tsx}`."),
                    "type": string("Only files of this type, e.g. py, rust, ts."),
                    "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count_matches"], "description": "What to return (default files_with_matches)."},
                    "-i": {"description": "Ignore case.", "type": "boolean"},
                    "-n": {"description": "Show line numbers (content mode).", "type": "boolean"},
                    "-A": {"description": "Lines after each match (content mode).", "type": "integer"},
                    "-B": {"description": "Lines before each match (content mode).", "type": "integer"},
                    "-C": {"description": "Lines around each match (content mode).", "type": "integer"},
                    "head_limit": {"description": "Keep the first N result lines.", "type": "integer"},
                    "offset": {"description": "Skip the first N result lines.", "type": "integer"},
                    "multiline": {"description": "Let patterns span lines.", "type": "boolean"},
                    "include_ignored": {"description": "Also search files ignored by .gitignore.", "type": "boolean"}
                }),
                &["pattern"],
            ),
        ),
        CliTool::new(
            "Read",
            "read_file",
            "Read a text file with numbered lines; up to 1000 lines per call, use line_offset and n_lines for more.",
            object(
                json!({
                    "path": string("Path of the file."),
                    "line_offset": {"description": "Line to start at (1 is the first).", "type": "integer", "minimum": 1},
                    "n_lines": {"description": "How many lines to read (at most 1000).", "type": "integer", "minimum": 1}
                }),
                &["path"],
            ),
        ),
        CliTool::new(
            "TodoList",
            "todo_write",
            "Replace the todo list for multi-step work: the whole list each time, one item in progress.",
            object(
                json!({
                    "todos": {"type": "array", "items": todo_item, "description": "The complete list."}
                }),
                &[],
            ),
        ),
        CliTool::new(
            "Write",
            "write_file",
            "Create or overwrite a file, or append to it.",
            object(
                json!({
                    "path": string("Path of the file."),
                    "content": string("The text to write."),
                    "mode": {"type": "string", "enum": ["overwrite", "append"], "description": "overwrite (default) or append."}
                }),
                &["path", "content"],
            ),
        ),
    ]
}

impl Harness for KimiCode {
    fn id(&self) -> &'static str {
        ID
    }
    fn description(&self) -> &'static str {
        "Kimi Code (Moonshot): Bash/Read/Edit tools, thinking kept, permission reminders"
    }
    fn wires(&self) -> &'static [Wire] {
        &[Wire::Chat]
    }

    fn shape(&self, prompt: &Prompt, wire: Wire, env: &ShapeEnv<'_>) -> Result<Shaped, ShapeError> {
        let ctx = &prompt.context;
        let instructions = cli_tools::instructions(prompt);
        let vars = TemplateVars::new(ctx, instructions.as_deref());
        let template = env.prompts.get(ID, "system.md")?;
        let extra = json!({
            "kimi_os": cli_env::kimi_os(ctx),
            "kimi_shell": format!("{} (`{}`)", cli_env::shell_name(ctx), ctx.shell),
            "kimi_now": cli_env::utc_millis(ctx),
            "work_dir_ls": cli_env::kimi_tree(&ctx.listing, KIMI_CODE_TREE),
            "agents_md": cli_tools::agents_md(&ctx.project_docs),
            "skills": "",
        });
        let system = prompts::render_with(&template, &vars, &extra)?;
        let reminder_template = env.prompts.get(ID, "permission-reminder.md")?;
        let reminder = prompts::render(&reminder_template, &vars)?;
        let reminder = reminder.trim_end();
        let mut messages = Vec::new();
        for msg in kimi_chat::build(&prompt.history, &ctx.provider, &STYLE) {
            let is_user_text = msg.role == ShapedRole::User
                && msg.content.iter().any(|b| matches!(b, Block::Text { .. }));
            messages.push(msg);
            if is_user_text && !reminder.is_empty() {
                messages.push(ShapedMessage::text(ShapedRole::User, reminder));
            }
        }
        let tools = cli_tools::advertise(tool_table(), &prompt.tools);
        let tool_kinds = tack_wire::tool_kinds(&tools, wire);
        let replay = rules::for_provider(&ctx.provider).replay_reasoning;
        let mut extra_body = serde_json::Map::new();
        extra_body.insert("thinking".into(), json!({"type": "enabled", "keep": "all"}));
        let request = ShapedRequest {
            model: ctx.model.clone(),
            system: vec![SystemBlock {
                text: system.trim_end().to_string(),
                cache: false,
            }],
            messages,
            tools,
            params: RequestParams {
                stream: true,
                include_usage: true,
                max_tokens: Some(MAX_COMPLETION_TOKENS),
                cache_key: Some(format!("session_{}", ctx.session_id)),
                ..RequestParams::default()
            },
            options: RenderOptions {
                chat_tool_only_content: ToolOnlyContent::Empty,
                chat_reasoning_field: replay.then(|| "reasoning_content".to_string()),
                chat_max_tokens_field: "max_completion_tokens".to_string(),
                chat_tool_result_parts: false,
                ..RenderOptions::default()
            },
            extra_body,
            ..ShapedRequest::default()
        };
        Ok(Shaped {
            request,
            tool_kinds,
            extra_requests: Vec::new(),
            postprocess: None,
            prompt_source: template.source,
        })
    }

    fn bind_call(&self, call: &Item) -> Result<BoundCall, ToolOutput> {
        if let Some(bound) = cli_tools::local_shell(call) {
            return Ok(bound);
        }
        let Item::FunctionCall(c) = call else {
            return bind_by_name(call);
        };
        let a = Args::of(c)?;
        match c.name.as_str() {
            "Bash" => bind_bash(&a, &c.call_id),
            "Read" => {
                let path = a.nonempty_string("path")?;
                let offset = a.integer("line_offset", 1)?;
                let n = a
                    .integer("n_lines", 1)?
                    .unwrap_or(READ_MAX_LINES)
                    .min(READ_MAX_LINES);
                Ok(cli_tools::read_file(path, offset, Some(n)))
            }
            "Edit" => {
                let path = a.nonempty_string("path")?;
                let old = a.required_string("old_string")?;
                if old.is_empty() {
                    return Err(a.invalid("old_string", "must not be empty"));
                }
                let new = a.required_string("new_string")?;
                let all = a.boolean("replace_all")?.unwrap_or(false);
                Ok(cli_tools::edit(path, old, new, all))
            }
            "Write" => {
                let path = a.nonempty_string("path")?;
                let content = a.required_string("content")?;
                match a.string("mode")?.as_deref() {
                    None | Some("overwrite") => Ok(cli_tools::write_file(path, content)),
                    Some("append") => Ok(cli_tools::shell(
                        format!(
                            "printf '%s' {} >> {}",
                            cli_tools::quote(&content),
                            cli_tools::quote(&path)
                        ),
                        None,
                        None,
                    )),
                    Some(other) => Err(a.invalid(
                        "mode",
                        &format!("must be \"overwrite\" or \"append\", got \"{other}\""),
                    )),
                }
            }
            "Glob" => {
                let mut input = json!({"pattern": a.nonempty_string("pattern")?});
                if let Some(dir) = a.string("path")? {
                    input["path"] = json!(dir);
                }
                a.unsupported_flag(
                    "include_ignored",
                    "files ignored by .gitignore are always skipped",
                )?;
                a.boolean("include_dirs")?;
                Ok(cli_tools::bound("glob", input))
            }
            "Grep" => kimi_cli::bind_grep(&a),
            "TodoList" => {
                let todos = a.array("todos")?.cloned().unwrap_or_default();
                let mut out = Vec::with_capacity(todos.len());
                for t in &todos {
                    let title = t.get("title").and_then(Value::as_str).unwrap_or_default();
                    if title.is_empty() {
                        return Err(a.invalid("todos", "has an item without a `title`"));
                    }
                    let status = match t.get("status").and_then(Value::as_str) {
                        Some("pending") => "pending",
                        Some("in_progress") => "in_progress",
                        Some("done" | "completed") => "completed",
                        _ => {
                            return Err(a.invalid(
                                "todos",
                                "has an item whose `status` is not pending, in_progress or done",
                            ));
                        }
                    };
                    out.push(json!({"content": title, "status": status}));
                }
                Ok(cli_tools::bound("todo_write", json!({"todos": out})))
            }
            "AskUserQuestion" => {
                a.unsupported_flag(
                    "background",
                    "questions are asked in the foreground; omit it",
                )?;
                kimi_cli::bind_ask_user(&a)
            }
            other => Err(cli_tools::unknown_tool(other, &tool_table())),
        }
    }

    fn adapt_output(&self, call: &Item, output: ToolOutput) -> ToolOutput {
        let Item::FunctionCall(c) = call else {
            return output;
        };
        let args: Value = serde_json::from_str(&c.arguments).unwrap_or(Value::Null);
        match c.name.as_str() {
            "Bash" => {
                let run = ShellRun::of(&output);
                let mut text = run.output.clone();
                let end_line = match &run.end {
                    ShellEnd::NotRun => return output,
                    ShellEnd::Exit(0) => None,
                    ShellEnd::Exit(code) | ShellEnd::Signal(code) => {
                        Some(format!("Command failed with exit code: {code}"))
                    }
                    ShellEnd::TimedOut(_) => {
                        let secs = args
                            .get("timeout")
                            .and_then(Value::as_u64)
                            .unwrap_or(BASH_DEFAULT_SECS);
                        Some(format!("Command timed out after {secs}s"))
                    }
                    ShellEnd::Aborted => Some("Command interrupted by the user".to_string()),
                };
                if let Some(line) = end_line {
                    if !text.is_empty() && !text.ends_with('\n') {
                        text.push('\n');
                    }
                    text.push_str(&line);
                }
                ToolOutput { text, ..output }
            }
            "Read" if output.success() => match ReadResult::parse(&output.text) {
                Some(read) if read.more > 0 => {
                    let next = read.lines.last().map_or(1, |l| l.number + 1);
                    let mut text = String::new();
                    for line in &read.lines {
                        text.push_str(&format!("{:6}\t{}\n", line.number, line.text));
                    }
                    text.push_str(&format!(
                        "... {} more lines; continue with line_offset={next}\n",
                        read.more
                    ));
                    ToolOutput { text, ..output }
                }
                _ => output,
            },
            "Grep" if output.success() => {
                let text = kimi_cli::grep_result(&args, &output.text);
                ToolOutput { text, ..output }
            }
            "AskUserQuestion" if output.success() => ToolOutput {
                text: kimi_cli::answers_json(&output.text),
                ..output
            },
            _ => output,
        }
    }
}

fn bind_bash(a: &Args<'_>, call_id: &str) -> Result<BoundCall, ToolOutput> {
    let command = a.nonempty_string("command")?;
    let cwd = a.string("cwd")?;
    a.string("description")?;
    a.boolean("disable_timeout")?;
    let background = a.boolean("run_in_background")? == Some(true);
    let secs = a.integer("timeout", 1)?;
    let max = if background {
        BASH_BACKGROUND_MAX_SECS
    } else {
        BASH_MAX_SECS
    };
    if secs.is_some_and(|s| s > max) {
        return Err(a.invalid("timeout", &format!("must be at most {max} seconds")));
    }
    if background {
        let mut command = command;
        if let Some(s) = secs.filter(|_| a.boolean("disable_timeout").ok().flatten() != Some(true))
        {
            command = format!("timeout {s} bash -c {}", cli_tools::quote(&command));
        }
        return Ok(cli_tools::shell(
            cli_tools::background_command(&command, call_id),
            cwd,
            Some(30_000),
        ));
    }
    Ok(cli_tools::shell(
        command,
        cwd,
        Some(secs.unwrap_or(BASH_DEFAULT_SECS) * 1000),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::{FunctionCallItem, ToolInput};

    fn call(name: &str, args: Value) -> Item {
        Item::FunctionCall(FunctionCallItem {
            id: "i".into(),
            call_id: "functions.Bash:3".into(),
            name: name.into(),
            namespace: None,
            arguments: args.to_string(),
        })
    }

    fn bound(name: &str, args: Value) -> (String, Value) {
        let b = KimiCode.bind_call(&call(name, args)).unwrap();
        match b.input {
            ToolInput::Json(v) => (b.tool, v),
            ToolInput::Freeform(s) => (b.tool, Value::String(s)),
        }
    }

    #[test]
    fn bash_maps_cwd_and_seconds() {
        assert_eq!(
            bound(
                "Bash",
                json!({"command": "make", "cwd": "/w/sub", "timeout": 120})
            ),
            (
                "shell".into(),
                json!({"command": "make", "workdir": "/w/sub", "timeout_ms": 120_000})
            )
        );
        let err = KimiCode
            .bind_call(&call("Bash", json!({"command": ""})))
            .unwrap_err();
        assert!(
            err.text.contains("`Bash`") && err.text.contains("`command`"),
            "{}",
            err.text
        );
        let err = KimiCode
            .bind_call(&call("Bash", json!({"command": "x", "timeout": 301})))
            .unwrap_err();
        assert!(err.text.contains("300"), "{}", err.text);
    }

    #[test]
    fn edit_and_todos_map_onto_engine_tools() {
        assert_eq!(
            bound(
                "Edit",
                json!({"path": "a.rs", "old_string": "x", "new_string": "y", "replace_all": true})
            )
            .1,
            json!({"path": "a.rs", "old_string": "x", "new_string": "y", "replace_all": true})
        );
        assert_eq!(
            bound(
                "TodoList",
                json!({"todos": [{"title": "a", "status": "in_progress"}]})
            )
            .1,
            json!({"todos": [{"content": "a", "status": "in_progress"}]})
        );
        let err = KimiCode
            .bind_call(&call(
                "AskUserQuestion",
                json!({"questions": [{"question": "q?", "options": []}], "background": true}),
            ))
            .unwrap_err();
        assert!(err.text.contains("`background`"), "{}", err.text);
    }

    #[test]
    fn failed_bash_ends_with_the_exit_line() {
        let out = ToolOutput {
            text: "no such file\n[exit code 1]".into(),
            status: tack_protocol::ToolStatus::Failed,
            content: vec![],
            exit_code: Some(1),
            duration_ms: Some(2),
            details: None,
        };
        let adapted = KimiCode.adapt_output(&call("Bash", json!({"command": "cat x"})), out);
        assert_eq!(
            adapted.text,
            "no such file\nCommand failed with exit code: 1"
        );
    }
}
