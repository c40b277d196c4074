//! `kimi-cli`: Moonshot's Kimi CLI (PyPI `kimi-cli`), the Python agent built on `kosong`.
//!
//! Sources: a captured session of Kimi CLI 1.52.0 (PyPI `kimi-cli`) and the anchor
//! (openinterpreter 0.0.40, `codex-rs/core/src/harness/kimi_cli.rs`; `docs/sources.md`). **Where they differ, the capture wins:**
//! - Tools: the capture's own surface (`Shell`, `ReadFile`, `Glob`, `Grep`, `WriteFile`,
//!   `StrReplaceFile`, `SetTodoList`, `AskUserQuestion`, in the capture's order), not the anchor's
//!   pass-through of the engine's tools. `Agent`, `Task*`, `FetchURL` and the plan-mode tools are
//!   left out: Tack has no handler for them, and advertising a tool that cannot run only teaches
//!   the model to fail.
//! - Body: `max_completion_tokens` (not `max_tokens: 32000`), computed like kimi-cli does as
//!   the context window left after the prompt (the capture: 262144 − prompt ≈ 249252);
//!   `prompt_cache_key` = the session id; `thinking: {type: disabled}` (`enabled` for thinking
//!   models); no temperature. Top-level keys in the capture's order: `messages, model,
//!   max_completion_tokens, prompt_cache_key, stream, stream_options, tools, thinking`.
//! - System prompt: one string with the sections the capture lists (Prompt and Tool Use, …,
//!   Working Environment with OS / date / working directory and its two-level tree, Project
//!   Information with AGENTS.md, Skills, Ultimate Reminders), written in our own words
//!   (`prompts/kimi-cli/system.md`), filled from the step's frozen context on every request.
//!
//! Messages use the kosong conventions (the anchor's `kimi_cli` options in `kimi_cli.rs`): arguments as
//! recorded, ids as recorded, trailing newlines trimmed off user text, tool results framed
//! with `<system>` notes. Tool outputs are rewritten by [`KimiCli::adapt_output`] into what
//! kimi-cli's tools return: a `<system>` message (`Command executed successfully.`, `N lines
//! read from file starting from line M.`, …) followed by the output.
//!
//! Identity: Tack's own user-agent unless the user opts in (`emulate_identity`); then
//! `User-Agent: KimiCLI/1.52.0`, `X-Msh-Platform: kimi_cli` and `X-Msh-Version`. The captured
//! device headers (`X-Msh-Device-Id`, device name and model, kernel build) are never sent: they
//! would identify the machine or fake an id.

// Binding answers a bad call with a model-readable `ToolOutput` (the `Harness::bind_call`
// contract); it is a cold path, so the error's size does not matter.
#![allow(clippy::result_large_err)]

use serde_json::{Value, json};
use tack_protocol::{Item, LocalShellCallItem, Prompt, ToolOutput, Wire};
use tack_wire::{RenderOptions, RequestParams, ShapedRequest, SystemBlock, ToolOnlyContent};

use super::cli_env::{self, KIMI_CLI_TREE};
use super::cli_tools::{self, Args, CliTool, GrepMode, ReadResult, ShellEnd, ShellRun};
use super::kimi_chat::{self, Arguments, CallIds, ChatStyle, Framing, ToolMedia};
use crate::history::DeveloperMode;
use crate::prompts::{self, TemplateVars};
use crate::{BoundCall, Harness, ShapeEnv, ShapeError, Shaped, bind_by_name, rules};

const ID: &str = "kimi-cli";

/// The kimi-cli version whose identity headers are sent when the user opts in.
pub(crate) const VERSION: &str = "1.52.0";

/// kimi-cli's context window for Kimi models (`max_context_size` in the capture's config).
const CONTEXT_WINDOW: u32 = 262_144;

/// Top-level body keys in the captured order (kosong builds the OpenAI SDK call's arguments in
/// this order, `messages` first).
const BODY_KEY_ORDER: [&str; 8] = [
    "messages",
    "model",
    "max_completion_tokens",
    "prompt_cache_key",
    "stream",
    "stream_options",
    "tools",
    "thinking",
];

/// Shell timeouts kimi-cli accepts, in seconds (`Shell.Params.timeout`: default 60, 1..=300).
const SHELL_DEFAULT_SECS: u64 = 60;
const SHELL_MAX_SECS: u64 = 300;

/// Lines `ReadFile` returns at most.
const READ_MAX_LINES: u64 = 1000;

pub(crate) struct KimiCli;

fn local_shell(c: &LocalShellCallItem) -> (&'static str, Value) {
    let mut args = json!({"command": crate::shell_command_text(&c.command)});
    if let Some(ms) = c.timeout_ms {
        args["timeout"] = json!(u64::from(ms).div_ceil(1000).max(1));
    }
    ("Shell", args)
}

/// kosong's message conventions as kimi-cli uses them (the anchor's `kimi_cli` options).
const STYLE: ChatStyle = ChatStyle {
    developer: DeveloperMode::Drop,
    arguments: Arguments::AsRecorded,
    call_ids: CallIds::AsRecorded,
    trim_user_newlines: true,
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
    empty_reasoning: false,
    reasoning_placeholder: None,
    empty_content_with_reasoning: false,
    local_shell,
};

/// The tools kimi-cli 1.52.0 advertises that Tack can carry out, in the capture's order.
/// Schemas follow the CLI's pydantic models (field names, types, defaults, bounds); the
/// descriptions are our own.
pub(crate) fn tool_table() -> Vec<CliTool> {
    let string = |d: &str| json!({"description": d, "type": "string"});
    vec![
        CliTool::new(
            "AskUserQuestion",
            "ask_user",
            "Ask the user one to four multiple-choice questions when their answer decides what you do next. The user can always answer in their own words instead. Do not use it for things you can find out yourself.",
            json!({
                "properties": {
                    "questions": {
                        "description": "The questions, 1 to 4.",
                        "items": {
                            "properties": {
                                "question": string("The question, ending with a question mark."),
                                "header": {"default": "", "description": "A short tag for the question (at most 12 characters).", "type": "string"},
                                "options": {
                                    "description": "2 to 4 distinct choices; an 'Other' choice is added for the user automatically.",
                                    "items": {
                                        "properties": {
                                            "label": string("The choice, in 1 to 5 words."),
                                            "description": {"default": "", "description": "What choosing it implies.", "type": "string"}
                                        },
                                        "required": ["label"],
                                        "type": "object"
                                    },
                                    "maxItems": 4,
                                    "minItems": 2,
                                    "type": "array"
                                },
                                "multi_select": {"default": false, "description": "Allow several choices.", "type": "boolean"}
                            },
                            "required": ["question", "options"],
                            "type": "object"
                        },
                        "maxItems": 4,
                        "minItems": 1,
                        "type": "array"
                    }
                },
                "required": ["questions"],
                "type": "object"
            }),
        ),
        CliTool::new(
            "SetTodoList",
            "todo_write",
            "Replace the todo list that tracks multi-step work. Send the whole list every time, with each item pending, in_progress or done; keep one item in progress.",
            json!({
                "properties": {
                    "todos": {
                        "anyOf": [
                            {
                                "items": {
                                    "properties": {
                                        "title": {"description": "What the item is about.", "minLength": 1, "type": "string"},
                                        "status": {"description": "Where the item stands.", "enum": ["pending", "in_progress", "done"], "type": "string"}
                                    },
                                    "required": ["title", "status"],
                                    "type": "object"
                                },
                                "type": "array"
                            },
                            {"type": "null"}
                        ],
                        "default": null,
                        "description": "The complete new list."
                    }
                },
                "type": "object"
            }),
        ),
        CliTool::new(
            "Shell",
            "shell",
            "Run a bash command and get its combined output. Each call starts a fresh shell in the working directory. Use it for builds, tests, git and other programs; use the file tools for reading, searching and editing files.",
            json!({
                "properties": {
                    "command": string("The bash command to run."),
                    "timeout": {"default": SHELL_DEFAULT_SECS, "description": "Seconds before the command is stopped.", "maximum": SHELL_MAX_SECS, "minimum": 1, "type": "integer"},
                    "run_in_background": {"default": false, "description": "Start the command detached and return at once (for servers and watchers); its output goes to a log file whose path is returned.", "type": "boolean"},
                    "description": {"default": "", "description": "A few words saying what the command is for.", "type": "string"}
                },
                "required": ["command"],
                "type": "object"
            }),
        ),
        CliTool::new(
            "ReadFile",
            "read_file",
            "Read a text file. Lines come back numbered. By default the first 1000 lines are read; use line_offset and n_lines to read further.",
            json!({
                "properties": {
                    "path": string("Absolute path of the file."),
                    "line_offset": {"default": 1, "description": "Line to start at (1 is the first line).", "minimum": 1, "type": "integer"},
                    "n_lines": {"default": READ_MAX_LINES, "description": "How many lines to read (at most 1000).", "minimum": 1, "type": "integer"}
                },
                "required": ["path"],
                "type": "object"
            }),
        ),
        CliTool::new(
            "Glob",
            "glob",
            "Find files whose paths match a glob pattern such as `src/**/*.py`.",
            json!({
                "properties": {
                    "pattern": string("The glob pattern."),
                    "directory": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "description": "Absolute path of the folder to search (default: the working directory)."},
                    "include_dirs": {"default": true, "description": "Also list matching folders.", "type": "boolean"}
                },
                "required": ["pattern"],
                "type": "object"
            }),
        ),
        CliTool::new(
            "Grep",
            "grep",
            "Search file contents with a regular expression (ripgrep syntax). By default only the paths of matching files are listed; set output_mode to content to see the lines.",
            json!({
                "properties": {
                    "pattern": string("The regular expression."),
                    "path": {"default": ".", "description": "File or folder to search (absolute; default: the working directory).", "type": "string"},
                    "glob": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "description": "Only search files matching this glob, e.g. `*.{ts,tsx}`."},
                    "output_mode": {"default": "files_with_matches", "description": "`content` (matching lines), `files_with_matches` (paths) or `count_matches` (matches per file).", "type": "string"},
                    "-B": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "description": "Lines of context before each match (content mode)."},
                    "-A": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "description": "Lines of context after each match (content mode)."},
                    "-C": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "description": "Lines of context around each match (content mode)."},
                    "-n": {"default": false, "description": "Show line numbers (content mode).", "type": "boolean"},
                    "-i": {"default": false, "description": "Ignore case.", "type": "boolean"},
                    "type": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "description": "Only search this file type, e.g. py, rust, ts."},
                    "head_limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "description": "Keep only the first N result lines."},
                    "offset": {"default": 0, "description": "Skip the first N result lines (with head_limit, to page).", "minimum": 0, "type": "integer"},
                    "multiline": {"default": false, "description": "Let patterns span lines.", "type": "boolean"},
                    "include_ignored": {"default": false, "description": "Also search files ignored by .gitignore.", "type": "boolean"}
                },
                "required": ["pattern"],
                "type": "object"
            }),
        ),
        CliTool::new(
            "WriteFile",
            "write_file",
            "Write a file: replace its whole content, or append to it. Missing parent folders are created.",
            json!({
                "properties": {
                    "path": string("Path of the file (absolute outside the working directory)."),
                    "content": string("The text to write."),
                    "mode": {"default": "overwrite", "description": "`overwrite` replaces the file, `append` adds to its end.", "enum": ["overwrite", "append"], "type": "string"}
                },
                "required": ["path", "content"],
                "type": "object"
            }),
        ),
        CliTool::new(
            "StrReplaceFile",
            "edit",
            "Swap pieces of a file's text: each `old` has to appear in the file character for character, whitespace included. Look at the file before editing it.",
            json!({
                "properties": {
                    "path": string("Absolute path of the file."),
                    "edit": {
                        "anyOf": [
                            edit_schema(),
                            {"items": edit_schema(), "type": "array"}
                        ],
                        "description": "The replacement, or a list of replacements applied in order."
                    }
                },
                "required": ["path", "edit"],
                "type": "object"
            }),
        ),
    ]
}

fn edit_schema() -> Value {
    json!({
        "properties": {
            "old": {"description": "The exact text to replace; may span lines.", "type": "string"},
            "new": {"description": "The text to put in its place.", "type": "string"},
            "replace_all": {"default": false, "description": "Replace every occurrence, not just the first.", "type": "boolean"}
        },
        "required": ["old", "new"],
        "type": "object"
    })
}

/// Rough prompt size in tokens (four characters per token), for kimi-cli's
/// "context window left" output limit.
fn estimated_tokens(req: &ShapedRequest) -> u32 {
    let mut chars = req.system.iter().map(|b| b.text.len()).sum::<usize>();
    for m in &req.messages {
        for b in &m.content {
            chars += match b {
                tack_wire::Block::Text { text, .. } => text.len(),
                tack_wire::Block::ToolCall { arguments, .. } => arguments.len() + 32,
                tack_wire::Block::ToolResult { content, .. } => content
                    .iter()
                    .map(|p| match p {
                        tack_wire::ResultPart::Text { text } => text.len(),
                        tack_wire::ResultPart::Image { .. } => 3000,
                    })
                    .sum(),
                tack_wire::Block::Thinking { text, .. } => text.len(),
                tack_wire::Block::Image { .. } => 3000,
                tack_wire::Block::RedactedThinking { .. } => 0,
            };
        }
    }
    for t in &req.tools {
        chars += t.name.len() + t.description.len() + t.parameters().to_string().len();
    }
    u32::try_from(chars.div_ceil(4)).unwrap_or(u32::MAX)
}

/// kimi's `thinking` switch: on for thinking models, off otherwise (the anchor's `ThinkingToggle`, `kimi_cli.rs`).
pub(crate) fn thinking_switch(model: &str) -> Value {
    let on = model.to_ascii_lowercase().contains("thinking");
    json!({"type": if on { "enabled" } else { "disabled" }})
}

impl Harness for KimiCli {
    fn id(&self) -> &'static str {
        ID
    }
    fn description(&self) -> &'static str {
        "Kimi CLI 1.52 (Moonshot): Shell/ReadFile/StrReplaceFile tools, kosong message framing"
    }
    fn wires(&self) -> &'static [Wire] {
        &[Wire::Chat]
    }

    fn shape(&self, prompt: &Prompt, wire: Wire, env: &ShapeEnv<'_>) -> Result<Shaped, ShapeError> {
        let ctx = &prompt.context;
        let instructions = cli_tools::instructions(prompt);
        let template = env.prompts.get(ID, "system.md")?;
        let extra = json!({
            "kimi_os": cli_env::kimi_os(ctx),
            "kimi_shell": format!("{} (`{}`)", cli_env::shell_name(ctx), ctx.shell),
            "kimi_now": cli_env::iso_micros(ctx),
            "work_dir_ls": cli_env::kimi_tree(&ctx.listing, KIMI_CLI_TREE),
            "agents_md": cli_tools::agents_md(&ctx.project_docs),
            "skills": "",
        });
        let vars = TemplateVars::new(ctx, instructions.as_deref());
        let system = prompts::render_with(&template, &vars, &extra)?;
        let messages = kimi_chat::build(&prompt.history, &ctx.provider, &STYLE);
        let tools = cli_tools::advertise(tool_table(), &prompt.tools);
        let tool_kinds = tack_wire::tool_kinds(&tools, wire);
        let replay = rules::for_provider(&ctx.provider).replay_reasoning;
        let mut extra_body = serde_json::Map::new();
        extra_body.insert("thinking".into(), thinking_switch(&ctx.model));
        let mut request = ShapedRequest {
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
                cache_key: Some(ctx.session_id.clone()),
                ..RequestParams::default()
            },
            options: RenderOptions {
                chat_tool_only_content: ToolOnlyContent::Empty,
                chat_reasoning_field: replay.then(|| "reasoning_content".to_string()),
                chat_max_tokens_field: "max_completion_tokens".to_string(),
                chat_tool_result_parts: false,
                field_order: BODY_KEY_ORDER.map(String::from).to_vec(),
                ..RenderOptions::default()
            },
            extra_body,
            ..ShapedRequest::default()
        };
        request.params.max_tokens = Some(
            CONTEXT_WINDOW
                .saturating_sub(estimated_tokens(&request))
                .max(1024),
        );
        // The OpenAI Python SDK under kimi-cli asks for `application/json` even for a streamed
        // reply (the capture's `Accept`): a transport detail, sent always.
        request.headers = vec![("Accept".into(), "application/json".into())];
        if env.emulate_identity {
            request.headers.extend([
                ("User-Agent".into(), format!("KimiCLI/{VERSION}")),
                ("X-Msh-Platform".into(), "kimi_cli".into()),
                ("X-Msh-Version".into(), VERSION.into()),
            ]);
        }
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
            "Shell" => bind_shell(&a, &c.call_id),
            "ReadFile" => {
                let path = a.nonempty_string("path")?;
                let offset = a.integer("line_offset", 1)?;
                let n = a
                    .integer("n_lines", 1)?
                    .unwrap_or(READ_MAX_LINES)
                    .min(READ_MAX_LINES);
                Ok(cli_tools::read_file(path, offset, Some(n)))
            }
            "Glob" => {
                let mut input = json!({"pattern": a.nonempty_string("pattern")?});
                if let Some(dir) = a.string("directory")? {
                    input["path"] = json!(dir);
                }
                a.boolean("include_dirs")?;
                Ok(cli_tools::bound("glob", input))
            }
            "Grep" => bind_grep(&a),
            "WriteFile" => {
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
            "StrReplaceFile" => bind_str_replace(&a),
            "SetTodoList" => {
                let Some(todos) = a.array("todos")? else {
                    return Err(a.invalid(
                        "todos",
                        "is required here: send the complete list (reading the current list is not supported)",
                    ));
                };
                let mut out = Vec::with_capacity(todos.len());
                for t in todos {
                    let title = t.get("title").and_then(Value::as_str).unwrap_or_default();
                    if title.is_empty() {
                        return Err(a.invalid("todos", "has an item without a `title`"));
                    }
                    let status = match t.get("status").and_then(Value::as_str) {
                        Some("pending") => "pending",
                        Some("in_progress") => "in_progress",
                        Some("done") => "completed",
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
            "AskUserQuestion" => bind_ask_user(&a),
            other => Err(cli_tools::unknown_tool(other, &tool_table())),
        }
    }

    fn adapt_output(&self, call: &Item, output: ToolOutput) -> ToolOutput {
        let Item::FunctionCall(c) = call else {
            return output;
        };
        adapt(&c.name, &c.arguments, output)
    }
}

fn bind_shell(a: &Args<'_>, call_id: &str) -> Result<BoundCall, ToolOutput> {
    let command = a.required_string("command")?;
    if command.trim().is_empty() {
        return Err(a.invalid("command", "must not be empty"));
    }
    let secs = a.integer("timeout", 1)?.unwrap_or(SHELL_DEFAULT_SECS);
    if secs > SHELL_MAX_SECS {
        return Err(a.invalid(
            "timeout",
            &format!("must be at most {SHELL_MAX_SECS} seconds"),
        ));
    }
    a.string("description")?;
    if a.boolean("run_in_background")? == Some(true) {
        return Ok(cli_tools::shell(
            cli_tools::background_command(&command, call_id),
            None,
            Some(30_000),
        ));
    }
    Ok(cli_tools::shell(command, None, Some(secs * 1000)))
}

/// Binds kimi's `Grep` (shared by kimi-code, whose schema has the same fields).
pub(crate) fn bind_grep(a: &Args<'_>) -> Result<BoundCall, ToolOutput> {
    let mut input = json!({"pattern": a.nonempty_string("pattern")?});
    if let Some(path) = a.string("path")?.filter(|p| !p.is_empty() && p != ".") {
        input["path"] = json!(path);
    }
    let glob = a.string("glob")?;
    let file_type = a.string("type")?;
    let type_glob = match &file_type {
        Some(t) => Some(cli_tools::type_glob(t).ok_or_else(|| {
            a.invalid(
                "type",
                &format!("names an unknown file type \"{t}\"; use `glob` instead"),
            )
        })?),
        None => None,
    };
    match (glob, type_glob) {
        (Some(_), Some(_)) => {
            return Err(a.invalid(
                "type",
                "cannot be combined with `glob` here; use one of them",
            ));
        }
        (Some(g), None) => input["glob"] = json!(g),
        (None, Some(g)) => input["glob"] = json!(g),
        (None, None) => {}
    }
    let mode = match a.string("output_mode")? {
        None => GrepMode::Files,
        Some(m) => GrepMode::parse(&m).ok_or_else(|| {
            a.invalid(
                "output_mode",
                "must be content, files_with_matches or count_matches",
            )
        })?,
    };
    if a.boolean("-i")? == Some(true) {
        input["case_insensitive"] = json!(true);
    }
    if mode == GrepMode::Content {
        let context = [
            a.integer("-B", 0)?,
            a.integer("-A", 0)?,
            a.integer("-C", 0)?,
        ]
        .into_iter()
        .flatten()
        .max();
        if let Some(c) = context.filter(|c| *c > 0) {
            input["context"] = json!(c);
        }
    }
    a.boolean("-n")?;
    a.integer("head_limit", 0)?;
    a.integer("offset", 0)?;
    a.unsupported_flag("multiline", "patterns match within one line")?;
    a.unsupported_flag(
        "include_ignored",
        "files ignored by .gitignore are always skipped",
    )?;
    input["max_results"] = json!(if mode == GrepMode::Content { 500 } else { 2000 });
    Ok(cli_tools::bound("grep", input))
}

fn bind_str_replace(a: &Args<'_>) -> Result<BoundCall, ToolOutput> {
    let path = a.nonempty_string("path")?;
    let edit = match a.value("edit") {
        Some(Value::Object(o)) => o.clone(),
        Some(Value::Array(items)) if items.len() == 1 => match &items[0] {
            Value::Object(o) => o.clone(),
            _ => return Err(a.invalid("edit", "must hold objects with `old` and `new`")),
        },
        Some(Value::Array(items)) if items.is_empty() => {
            return Err(a.invalid("edit", "is an empty list"));
        }
        Some(Value::Array(_)) => {
            return Err(a.invalid(
                "edit",
                "holds several edits; send one edit per StrReplaceFile call (calls in one response run in order)",
            ));
        }
        Some(_) => return Err(a.invalid("edit", "must be an object with `old` and `new`")),
        None => return Err(a.invalid("edit", "is required")),
    };
    let text = |k: &str| edit.get(k).and_then(Value::as_str).map(str::to_string);
    let old = text("old").ok_or_else(|| a.invalid("edit", "needs `old` (a string)"))?;
    let new = text("new").ok_or_else(|| a.invalid("edit", "needs `new` (a string)"))?;
    if old.is_empty() {
        return Err(a.invalid("edit", "has an empty `old`"));
    }
    let all = edit
        .get("replace_all")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(cli_tools::edit(path, old, new, all))
}

/// Binds kimi's `AskUserQuestion` (shared by kimi-code).
pub(crate) fn bind_ask_user(a: &Args<'_>) -> Result<BoundCall, ToolOutput> {
    let Some(questions) = a.array("questions")? else {
        return Err(a.invalid("questions", "is required"));
    };
    if questions.is_empty() || questions.len() > 4 {
        return Err(a.invalid("questions", "must hold 1 to 4 questions"));
    }
    let mut out = Vec::with_capacity(questions.len());
    for q in questions {
        let question = q
            .get("question")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if question.is_empty() {
            return Err(a.invalid("questions", "has an item without a `question`"));
        }
        let mut entry = json!({"question": question});
        if let Some(h) = q
            .get("header")
            .and_then(Value::as_str)
            .filter(|h| !h.is_empty())
        {
            entry["header"] = json!(h);
        }
        if let Some(options) = q.get("options").and_then(Value::as_array) {
            let opts: Vec<Value> = options
                .iter()
                .filter_map(|o| {
                    let label = o.get("label").and_then(Value::as_str)?;
                    let mut opt = json!({"label": label});
                    if let Some(d) = o
                        .get("description")
                        .and_then(Value::as_str)
                        .filter(|d| !d.is_empty())
                    {
                        opt["description"] = json!(d);
                    }
                    Some(opt)
                })
                .collect();
            entry["options"] = json!(opts);
        }
        if q.get("multi_select").and_then(Value::as_bool) == Some(true) {
            entry["multi_select"] = json!(true);
        }
        out.push(entry);
    }
    Ok(cli_tools::bound("ask_user", json!({"questions": out})))
}

fn system(message: &str) -> String {
    format!("<system>{message}</system>")
}

/// kimi-cli's tool results (see the module docs).
fn adapt(tool: &str, arguments: &str, output: ToolOutput) -> ToolOutput {
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    match tool {
        "Shell" => {
            let run = ShellRun::of(&output);
            let text = match &run.end {
                ShellEnd::NotRun => return output,
                ShellEnd::Exit(0) => {
                    format!("{}{}", system("Command executed successfully."), run.output)
                }
                ShellEnd::Exit(code) | ShellEnd::Signal(code) => format!(
                    "{}{}",
                    system(&format!("ERROR: Command failed with exit code: {code}.")),
                    run.output
                ),
                ShellEnd::TimedOut(_) => {
                    let secs = args
                        .get("timeout")
                        .and_then(Value::as_u64)
                        .unwrap_or(SHELL_DEFAULT_SECS);
                    format!(
                        "{}{}",
                        system(&format!("ERROR: Command killed by timeout ({secs}s)")),
                        run.output
                    )
                }
                ShellEnd::Aborted => format!(
                    "{}{}",
                    system("ERROR: Command was interrupted by the user."),
                    run.output
                ),
            };
            ToolOutput { text, ..output }
        }
        "ReadFile" if output.success() => {
            let offset = args.get("line_offset").and_then(Value::as_u64).unwrap_or(1);
            let asked = args
                .get("n_lines")
                .and_then(Value::as_u64)
                .unwrap_or(READ_MAX_LINES);
            let Some(read) = ReadResult::parse(&output.text) else {
                return ToolOutput {
                    text: system("No lines read from file."),
                    ..output
                };
            };
            let n = read.lines.len() as u64;
            let mut message = format!("{n} lines read from file starting from line {offset}.");
            if n >= READ_MAX_LINES && read.more > 0 {
                message.push_str(&format!(" Max {READ_MAX_LINES} lines reached."));
            } else if n < asked && read.more == 0 {
                message.push_str(" End of file reached.");
            }
            let mut body = String::new();
            for line in &read.lines {
                body.push_str(&format!("{:6}\t{}\n", line.number, line.text));
            }
            ToolOutput {
                text: format!("{}{body}", system(&message)),
                ..output
            }
        }
        "Glob" if output.success() => {
            let pattern = args
                .get("pattern")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let mut paths: Vec<&str> = output
                .text
                .lines()
                .filter(|l| !l.starts_with("… ") && !l.starts_with("No files match"))
                .collect();
            paths.sort_unstable();
            let message = if paths.is_empty() {
                format!("No matches found for pattern `{pattern}`.")
            } else {
                format!("Found {} matches for pattern `{pattern}`.", paths.len())
            };
            ToolOutput {
                text: format!("{}{}", system(&message), paths.join("\n")),
                ..output
            }
        }
        "Grep" if output.success() => ToolOutput {
            text: grep_result(&args, &output.text),
            ..output
        },
        "WriteFile" if output.success() => {
            let message = if args.get("mode").and_then(Value::as_str) == Some("append") {
                "File successfully appended to.".to_string()
            } else {
                let size = args
                    .get("content")
                    .and_then(Value::as_str)
                    .map_or(0, str::len);
                format!("File successfully overwritten. Current size: {size} bytes.")
            };
            ToolOutput {
                text: system(&message),
                ..output
            }
        }
        "StrReplaceFile" if output.success() => ToolOutput {
            text: system("File successfully edited. Applied 1 edit(s)."),
            ..output
        },
        "SetTodoList" if output.success() => ToolOutput {
            text: format!("{}Todo list updated", system("Todo list updated")),
            ..output
        },
        "AskUserQuestion" if output.success() => ToolOutput {
            text: format!(
                "{}{}",
                system("User has answered."),
                answers_json(&output.text)
            ),
            ..output
        },
        _ => output,
    }
}

/// kimi's `Grep` result over the engine's grep output (shared by kimi-code).
pub(crate) fn grep_result(args: &Value, engine_text: &str) -> String {
    let Some(lines) = cli_tools::parse_grep(engine_text) else {
        return system("No matches found");
    };
    let mode = args
        .get("output_mode")
        .and_then(Value::as_str)
        .and_then(GrepMode::parse)
        .unwrap_or(GrepMode::Files);
    let numbers = args.get("-n").and_then(Value::as_bool).unwrap_or(false);
    let offset = args.get("offset").and_then(Value::as_u64).unwrap_or(0) as usize;
    let head = args
        .get("head_limit")
        .and_then(Value::as_u64)
        .map(|h| h as usize);
    let (text, cut) = cli_tools::grep_output(&lines, mode, numbers, offset, head);
    if text.is_empty() {
        return system("No matches found");
    }
    match head.filter(|_| cut) {
        Some(h) => format!(
            "{}{text}\n... (results truncated to {h} lines)",
            system(&format!("Results truncated to first {h} lines"))
        ),
        None => text,
    }
}

/// kimi's AskUserQuestion answer JSON (`{"answers": {question: answer}}`) from the engine's
/// `- question: answer` lines.
pub(crate) fn answers_json(engine_text: &str) -> String {
    let mut answers = serde_json::Map::new();
    for line in engine_text.lines() {
        if let Some((q, ans)) = line.strip_prefix("- ").and_then(|l| l.rsplit_once(": ")) {
            answers.insert(q.to_string(), Value::String(ans.to_string()));
        }
    }
    json!({"answers": answers}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::{FunctionCallItem, ToolDetails, ToolInput, ToolStatus};

    fn call(name: &str, args: Value) -> Item {
        Item::FunctionCall(FunctionCallItem {
            id: "i".into(),
            call_id: "functions.X:0".into(),
            name: name.into(),
            namespace: None,
            arguments: args.to_string(),
        })
    }

    fn bound(name: &str, args: Value) -> (String, Value) {
        let b = KimiCli.bind_call(&call(name, args)).unwrap();
        match b.input {
            ToolInput::Json(v) => (b.tool, v),
            ToolInput::Freeform(s) => (b.tool, Value::String(s)),
        }
    }

    #[test]
    fn shell_timeout_is_seconds_and_bounded() {
        assert_eq!(
            bound("Shell", json!({"command": "ls", "timeout": 5})),
            ("shell".into(), json!({"command": "ls", "timeout_ms": 5000}))
        );
        assert_eq!(
            bound("Shell", json!({"command": "ls"})).1["timeout_ms"],
            json!(60_000)
        );
        let err = KimiCli
            .bind_call(&call("Shell", json!({"command": "ls", "timeout": 900})))
            .unwrap_err();
        assert!(
            err.text.contains("`Shell`") && err.text.contains("`timeout`"),
            "{}",
            err.text
        );
        let (_, bg) = bound(
            "Shell",
            json!({"command": "npm run dev", "run_in_background": true}),
        );
        assert!(bg["command"].as_str().unwrap().contains("nohup"), "{bg}");
    }

    #[test]
    fn read_uses_line_offset_and_n_lines() {
        assert_eq!(
            bound(
                "ReadFile",
                json!({"path": "/w/a.py", "line_offset": 10, "n_lines": 5})
            ),
            (
                "read_file".into(),
                json!({"path": "/w/a.py", "offset": 10, "limit": 5})
            )
        );
        let err = KimiCli
            .bind_call(&call("ReadFile", json!({"path": "/w/a", "line_offset": 0})))
            .unwrap_err();
        assert!(err.text.contains("`line_offset`"), "{}", err.text);
    }

    #[test]
    fn str_replace_takes_one_edit_and_todos_map_status() {
        assert_eq!(
            bound(
                "StrReplaceFile",
                json!({"path": "/w/a", "edit": {"old": "a", "new": "b"}})
            ),
            (
                "edit".into(),
                json!({"path": "/w/a", "old_string": "a", "new_string": "b"})
            )
        );
        let err = KimiCli
            .bind_call(&call("StrReplaceFile", json!({"path": "/w/a", "edit": [{"old": "a", "new": "b"}, {"old": "c", "new": "d"}]})))
            .unwrap_err();
        assert!(err.text.contains("one edit per"), "{}", err.text);
        assert_eq!(
            bound(
                "SetTodoList",
                json!({"todos": [{"title": "t", "status": "done"}]})
            )
            .1,
            json!({"todos": [{"content": "t", "status": "completed"}]})
        );
    }

    #[test]
    fn grep_defaults_to_file_paths_and_maps_flags() {
        let (tool, input) = bound(
            "Grep",
            json!({"pattern": "fn", "-i": true, "type": "rust", "output_mode": "content", "-C": 2}),
        );
        assert_eq!(tool, "grep");
        assert_eq!(
            input,
            json!({"pattern": "fn", "glob": "*.rs", "case_insensitive": true, "context": 2, "max_results": 500})
        );
        let text = grep_result(
            &json!({}),
            "src/a.rs:1:fn a\nsrc/a.rs:9:fn b\nsrc/b.rs:2:fn c\n[3 matching lines in 2 files]\n",
        );
        assert_eq!(text, "src/a.rs\nsrc/b.rs");
        let text = grep_result(
            &json!({"output_mode": "count_matches"}),
            "src/a.rs:1:x\nsrc/a.rs:2:y\n",
        );
        assert_eq!(text, "src/a.rs:2");
        assert_eq!(
            grep_result(&json!({}), "No matches under the workspace."),
            "<system>No matches found</system>"
        );
    }

    #[test]
    fn outputs_read_like_kimi_cli() {
        let ran = |text: &str, status, exit| ToolOutput {
            text: String::from(text),
            status,
            content: vec![],
            exit_code: exit,
            duration_ms: Some(3),
            details: Some(ToolDetails::Exec {
                command: vec![],
                cwd: "/w".into(),
                truncated_bytes: 0,
                sandbox: None,
                sandbox_denial: None,
            }),
        };
        let ok = KimiCli.adapt_output(
            &call("Shell", json!({"command": "ls"})),
            ran("a\n", ToolStatus::Completed, Some(0)),
        );
        assert_eq!(
            ok.text,
            "<system>Command executed successfully.</system>a\n"
        );
        let bad = KimiCli.adapt_output(
            &call("Shell", json!({"command": "ls"})),
            ran("nope\n[exit code 2]", ToolStatus::Failed, Some(2)),
        );
        assert_eq!(
            bad.text,
            "<system>ERROR: Command failed with exit code: 2.</system>nope\n"
        );
        let read = KimiCli.adapt_output(
            &call("ReadFile", json!({"path": "/w/a"})),
            ToolOutput::ok("     1\tx\n     2\ty\n"),
        );
        assert_eq!(
            read.text,
            "<system>2 lines read from file starting from line 1. End of file reached.</system>     1\tx\n     2\ty\n"
        );
        // Bind errors are left for the message builder to frame.
        let err = ToolOutput::error("Invalid arguments");
        assert_eq!(
            KimiCli.adapt_output(&call("Shell", json!({})), err.clone()),
            err
        );
    }
}
