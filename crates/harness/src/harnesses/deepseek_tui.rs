//! `deepseek-tui`: the DeepSeek TUI coding agent ("CodeWhale").
//!
//! There is no capture of this CLI; everything follows the anchor (openinterpreter 0.0.40:
//! `codex-rs/core/src/harness/deepseek_tui.rs`, `tools/src/deepseek_tui_tools.json`,
//! `core/src/tools/handlers/harness_aliases.rs`; `docs/sources.md`), with its flaws fixed:
//! - Tools: only the ones Tack can carry out, with the anchor's names and parameters, in the
//!   anchor's (alphabetical) order: `checklist_write`, `edit_file`, `exec_shell`,
//!   `file_search`, `git_diff`, `git_status`, `grep_files`, `list_dir`, `read_file`,
//!   `request_user_input`, `update_plan`, `write_file`. The anchor advertised all 84 of the
//!   CLI's tools while only ~16 could run; a tool that cannot run only teaches the model to
//!   fail.
//! - No workspace pollution: the anchor wrote an auto-generated `.codewhale/instructions.md`
//!   into the user's project when none existed. Here project instructions are the step's
//!   AGENTS.md files, rendered as `<project_instructions source=…>` blocks, and nothing is
//!   written.
//! - The anchor's "Project Context Pack" JSON (a fixture-specific format) is left out; the
//!   `<turn_meta>` block carries the workspace facts instead.
//!
//! Messages: the kimi builder with the deepseek options (compact arguments, trailing user
//! newlines trimmed, empty tool output kept empty), then:
//! - for a provider that takes reasoning back (DeepSeek), every tool-call message without
//!   reasoning gets `reasoning_content: "(reasoning omitted)"`, which DeepSeek's thinking mode
//!   needs on tool-call turns; other providers get no `reasoning_content` at all;
//! - the **latest** user message starts with a `<turn_meta>` block (date, workspace, key files,
//!   active paths with the ones the user named first), unless it already has one;
//! - an `update_plan` result reads as a progress summary (`N pending, N in progress, N
//!   completed (P% done)`) plus the plan, as the anchor's rewrite of "Plan updated" did; here it
//!   is produced once, when the result is recorded ([`DeepseekTui::adapt_output`]).
//!
//! Body: `max_tokens: 64000`, `stream`, `stream_options.include_usage`, `tools`,
//! `tool_choice: "auto"`. The anchor's compaction route (a fixed flash model, 4096 tokens,
//! temperature 0.2) belongs to a compaction flow Tack's engine does not have yet.
//!
//! Identity: no capture shows the TUI's headers, so none are added.

// Binding answers a bad call with a model-readable `ToolOutput` (the `Harness::bind_call`
// contract); it is a cold path, so the error's size does not matter.
#![allow(clippy::result_large_err)]

use serde_json::{Value, json};
use tack_protocol::{Item, LocalShellCallItem, Prompt, Role, StepContext, ToolOutput, Wire};
use tack_wire::{
    Block, RenderOptions, RequestParams, ShapedRequest, ShapedRole, SystemBlock, ToolChoice,
    ToolOnlyContent,
};

use super::cli_env;
use super::cli_tools::{self, Args, CliTool, ShellEnd, ShellRun};
use super::kimi_chat::{self, Arguments, CallIds, ChatStyle, Framing, ToolMedia};
use crate::history::DeveloperMode;
use crate::prompts::{self, TemplateVars};
use crate::{BoundCall, Harness, ShapeEnv, ShapeError, Shaped, bind_by_name, rules};

const ID: &str = "deepseek-tui";

const MAX_TOKENS: u32 = 64_000;

/// `exec_shell` timeouts in milliseconds (default 120000, at most 600000).
const SHELL_DEFAULT_MS: u64 = 120_000;
const SHELL_MAX_MS: u64 = 600_000;

/// `read_file` line limits (default 200, at most 500).
const READ_DEFAULT_LINES: u64 = 200;
const READ_MAX_LINES: u64 = 500;

/// Most entries in `<turn_meta>`'s active paths.
const ACTIVE_PATHS: usize = 8;

pub(crate) struct DeepseekTui;

fn local_shell(c: &LocalShellCallItem) -> (&'static str, Value) {
    let mut args = json!({"command": crate::shell_command_text(&c.command)});
    if let Some(ms) = c.timeout_ms {
        args["timeout_ms"] = json!(ms);
    }
    if let Some(dir) = &c.workdir {
        args["cwd"] = json!(dir);
    }
    ("exec_shell", args)
}

/// The anchor's `deepseek_tui` option set (`core/src/harness/deepseek_tui.rs`).
const STYLE: ChatStyle = ChatStyle {
    developer: DeveloperMode::Drop,
    arguments: Arguments::Compact,
    call_ids: CallIds::AsRecorded,
    trim_user_newlines: true,
    user_parts: false,
    framing: Framing::Plain,
    empty_result: None,
    aborted_result: "Tool call aborted before it finished.",
    result_parts: false,
    tool_media: ToolMedia::InResult,
    replay_reasoning: true,
    empty_reasoning: false,
    reasoning_placeholder: Some("(reasoning omitted)"),
    empty_content_with_reasoning: false,
    local_shell,
};

/// The DeepSeek TUI tools Tack can carry out, in the anchor's order; parameter names and types
/// follow the anchor's schemas, descriptions are our own.
pub(crate) fn tool_table() -> Vec<CliTool> {
    let string = |d: &str| json!({"type": "string", "description": d});
    let integer = |d: &str| json!({"type": "integer", "description": d});
    let boolean = |d: &str| json!({"type": "boolean", "description": d});
    let status = json!({"type": "string", "enum": ["pending", "in_progress", "completed"], "description": "Status"});
    vec![
        CliTool::new(
            "checklist_write",
            "todo_write",
            "Replace the checklist of the current task with the complete new list.",
            json!({
                "type": "object",
                "properties": {
                    "todos": {
                        "type": "array",
                        "description": "The full checklist; it replaces the old one.",
                        "items": {
                            "type": "object",
                            "properties": {"content": string("The item."), "status": status},
                            "required": ["content", "status"]
                        }
                    }
                },
                "required": ["todos"]
            }),
        ),
        CliTool::new(
            "edit_file",
            "edit",
            "Make one exact search-and-replace in a file (whitespace must match). For bigger changes use write_file.",
            json!({
                "type": "object",
                "properties": {
                    "path": string("File to change."),
                    "search": string("Exact text to find, including whitespace and newlines."),
                    "replace": string("Replacement text."),
                    "fuzz": boolean("Tolerate indentation differences (not available here).")
                },
                "required": ["path", "search", "replace"]
            }),
        ),
        CliTool::new(
            "exec_shell",
            "shell",
            "Run a shell command in the workspace. Use background=true for long-running work; its output goes to a log file whose path is returned.",
            json!({
                "type": "object",
                "properties": {
                    "command": string("The command."),
                    "timeout_ms": integer("Timeout in milliseconds (default 120000, max 600000)."),
                    "background": boolean("Start it detached and return at once (default false)."),
                    "interactive": boolean("Interactive terminal IO (not available here)."),
                    "stdin": string("Text to send to the command's standard input."),
                    "cwd": string("Folder to run in."),
                    "tty": boolean("Allocate a terminal (not available here)."),
                    "combined_output": boolean("Merge stdout and stderr (always the case here).")
                },
                "required": ["command"]
            }),
        ),
        CliTool::new(
            "file_search",
            "glob",
            "Find files whose name contains the query. Filter by extension with `extensions`.",
            json!({
                "type": "object",
                "properties": {
                    "query": string("Part of a file name or path."),
                    "path": string("Folder to search, relative to the workspace."),
                    "limit": integer("Most results (default 20)."),
                    "extensions": {"type": "array", "items": {"type": "string"}, "description": "Extensions to keep, e.g. [\"rs\", \"md\"]."},
                    "exclude": {"type": "array", "items": {"type": "string"}, "description": "Globs to exclude (not available here)."}
                },
                "required": ["query"]
            }),
        ),
        CliTool::new(
            "git_diff",
            "shell",
            "Show `git diff` for the workspace, optionally for one path or the staged changes.",
            json!({
                "type": "object",
                "properties": {
                    "path": string("File or folder to limit the diff to."),
                    "cached": boolean("Show staged changes."),
                    "unified": {"type": "integer", "minimum": 0, "maximum": 50, "default": 3, "description": "Context lines."}
                },
                "additionalProperties": false
            }),
        ),
        CliTool::new(
            "git_status",
            "shell",
            "Show the branch and changed files (`git status --porcelain=v1 -b`).",
            json!({
                "type": "object",
                "properties": {"path": string("File or folder to limit the status to.")},
                "additionalProperties": false
            }),
        ),
        CliTool::new(
            "grep_files",
            "grep",
            "Search file contents with a regular expression; shows 2 lines of context around each match by default. Respects .gitignore.",
            json!({
                "type": "object",
                "properties": {
                    "pattern": string("The regular expression."),
                    "path": string("Folder or file to search (default: the workspace)."),
                    "include": {"type": "array", "items": {"type": "string"}, "description": "Globs of files to search, e.g. [\"*.rs\"]."},
                    "exclude": {"type": "array", "items": {"type": "string"}, "description": "Globs to exclude (not available here)."},
                    "context_lines": integer("Context lines around each match (default 2)."),
                    "case_insensitive": boolean("Ignore case (default false)."),
                    "max_results": integer("Most matching lines (default 100).")
                },
                "required": ["pattern"]
            }),
        ),
        CliTool::new(
            "list_dir",
            "list_dir",
            "List the entries of a folder in the workspace.",
            json!({
                "type": "object",
                "properties": {"path": string("Folder, relative to the workspace (default: .).")}
            }),
        ),
        CliTool::new(
            "read_file",
            "read_file",
            "Read a text file: 200 lines by default, at most 500 per call; continue with start_line.",
            json!({
                "type": "object",
                "properties": {
                    "path": string("File to read."),
                    "start_line": integer("First line, 1-based (default 1)."),
                    "max_lines": integer("Most lines (default 200, max 500)."),
                    "pages": string("PDF page range (ignored for text files).")
                },
                "required": ["path"]
            }),
        ),
        CliTool::new(
            "request_user_input",
            "ask_user",
            "Ask the user one to three short multiple-choice questions and get their picks.",
            json!({
                "type": "object",
                "properties": {
                    "questions": {
                        "type": "array",
                        "description": "The questions, 1 to 3.",
                        "minItems": 1,
                        "maxItems": 3,
                        "items": {
                            "type": "object",
                            "properties": {
                                "header": {"type": "string", "description": "A short label."},
                                "id": {"type": "string", "description": "Your id for the question."},
                                "question": {"type": "string", "description": "The question."},
                                "options": {
                                    "type": "array",
                                    "description": "2 or 3 choices.",
                                    "minItems": 2,
                                    "maxItems": 3,
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "label": {"description": "The choice.", "type": "string"},
                                            "description": {"type": "string", "description": "What it implies."}
                                        },
                                        "required": ["label", "description"]
                                    }
                                }
                            },
                            "required": ["header", "id", "question", "options"]
                        }
                    }
                },
                "required": ["questions"]
            }),
        ),
        CliTool::new(
            "update_plan",
            "todo_write",
            "Record the high-level plan as steps with a status each; use checklist_write for detailed progress.",
            json!({
                "type": "object",
                "properties": {
                    "explanation": string("Optional summary of the approach."),
                    "plan": {
                        "type": "array",
                        "description": "The plan's steps.",
                        "items": {
                            "type": "object",
                            "properties": {"step": string("The step."), "status": status},
                            "required": ["step", "status"]
                        }
                    }
                },
                "required": ["plan"]
            }),
        ),
        CliTool::new(
            "write_file",
            "write_file",
            "Write a whole file in the workspace, creating parent folders as needed.",
            json!({
                "type": "object",
                "properties": {"path": string("File to write."), "content": string("Its complete content.")},
                "required": ["path", "content"]
            }),
        ),
    ]
}

/// The `<turn_meta>` facts of the latest user message.
fn turn_meta(
    ctx: &StepContext,
    history: &[Item],
    user_text: &str,
    env: &ShapeEnv<'_>,
    vars: &TemplateVars<'_>,
) -> Result<String, ShapeError> {
    let key_files: Vec<&str> = ctx
        .listing
        .iter()
        .filter(|e| {
            !e.is_dir && !e.path.contains('/') && e.path.to_ascii_lowercase().starts_with("readme")
        })
        .map(|e| e.path.as_str())
        .collect();
    let mut active: Vec<String> = Vec::new();
    // Paths the user named come first: written out in full, or (for a file name that names no
    // top-level entry) by their file name alone.
    let named: Vec<&str> = ctx
        .listing
        .iter()
        .filter(|e| mentions(user_text, &e.path))
        .map(|e| e.path.as_str())
        .collect();
    for entry in &ctx.listing {
        let base = entry.path.rsplit('/').next().unwrap_or(&entry.path);
        let by_name = base.contains('.')
            && mentions(user_text, base)
            && !named.iter().any(|n| n.rsplit('/').next() == Some(base));
        if named.contains(&entry.path.as_str()) || by_name {
            active.push(entry.path.clone());
        }
    }
    // Then the files recent tool calls worked on, most recent first.
    for item in history.iter().rev() {
        let Item::FunctionCall(c) = item else {
            continue;
        };
        let Ok(Value::Object(args)) = serde_json::from_str::<Value>(&c.arguments) else {
            continue;
        };
        if let Some(path) = ["path", "file_path", "filePath"]
            .iter()
            .find_map(|k| args.get(*k).and_then(Value::as_str))
        {
            let rel = cli_tools::relative_to(path, &ctx.cwd).to_string();
            if !rel.is_empty() && rel != "." {
                active.push(rel);
            }
        }
    }
    let mut seen = Vec::new();
    active.retain(|p| {
        let new = !seen.contains(p);
        seen.push(p.clone());
        new
    });
    active.truncate(ACTIVE_PATHS);
    let extra = json!({
        "weekday": cli_env::weekday(ctx),
        "key_files": key_files.join(", "),
        "active_paths": active.join(", "),
    });
    let template = env.prompts.get(ID, "turn-meta.md")?;
    prompts::render_with(&template, vars, &extra)
}

/// Whether `text` mentions `name` as a whole word or path (not inside a longer name:
/// `hello.py` is not mentioned by `test_hello.py`, nor `tests` by `tests/a.py`).
fn mentions(text: &str, name: &str) -> bool {
    let boundary_before = |c: char| c.is_whitespace() || "\"'`(<[{,".contains(c);
    let boundary_after = |c: char| c.is_whitespace() || "\"'`)>]},.:;!?".contains(c);
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back().is_none_or(boundary_before);
        let after = text[i + name.len()..]
            .chars()
            .next()
            .is_none_or(boundary_after);
        before && after
    })
}

impl Harness for DeepseekTui {
    fn id(&self) -> &'static str {
        ID
    }
    fn description(&self) -> &'static str {
        "DeepSeek TUI (CodeWhale): exec_shell/read_file/edit_file tools, <turn_meta> on the latest message"
    }
    fn wires(&self) -> &'static [Wire] {
        &[Wire::Chat]
    }

    fn shape(&self, prompt: &Prompt, wire: Wire, env: &ShapeEnv<'_>) -> Result<Shaped, ShapeError> {
        let ctx = &prompt.context;
        let instructions = cli_tools::instructions(prompt);
        let vars = TemplateVars::new(ctx, instructions.as_deref());
        let template = env.prompts.get(ID, "system.md")?;
        let extra = json!({"platform": ctx.os});
        let system = prompts::render_with(&template, &vars, &extra)?;
        let mut messages = kimi_chat::build(&prompt.history, &ctx.provider, &STYLE);
        let latest_user = prompt.history.iter().rev().find_map(|item| match item {
            Item::Message(m) if m.role == Role::User => Some(m.text()),
            _ => None,
        });
        if let Some(user_text) = latest_user {
            let meta = turn_meta(ctx, &prompt.history, &user_text, env, &vars)?;
            let target = messages.iter_mut().rev().find(|m| {
                m.role == ShapedRole::User
                    && m.content.iter().any(|b| matches!(b, Block::Text { .. }))
            });
            if let Some(msg) = target
                && let Some(Block::Text { text, .. }) = msg
                    .content
                    .iter_mut()
                    .find(|b| matches!(b, Block::Text { .. }))
                && !text.trim_start().starts_with("<turn_meta>")
            {
                *text = format!("{}\n{text}", meta.trim_end());
            }
        }
        let tools = cli_tools::advertise(tool_table(), &prompt.tools);
        let tool_kinds = tack_wire::tool_kinds(&tools, wire);
        let replay = rules::for_provider(&ctx.provider).replay_reasoning;
        let request = ShapedRequest {
            model: ctx.model.clone(),
            system: vec![SystemBlock {
                text: system.trim_end().to_string(),
                cache: false,
            }],
            messages,
            params: RequestParams {
                stream: true,
                include_usage: true,
                max_tokens: Some(MAX_TOKENS),
                tool_choice: (!tools.is_empty()).then_some(ToolChoice::Auto),
                ..RequestParams::default()
            },
            tools,
            options: RenderOptions {
                chat_tool_only_content: ToolOnlyContent::Empty,
                chat_reasoning_field: replay.then(|| "reasoning_content".to_string()),
                chat_max_tokens_field: "max_tokens".to_string(),
                chat_tool_result_parts: false,
                ..RenderOptions::default()
            },
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
            "exec_shell" => {
                let mut command = a.nonempty_string("command")?;
                let timeout = a.integer("timeout_ms", 1)?.unwrap_or(SHELL_DEFAULT_MS);
                if timeout > SHELL_MAX_MS {
                    return Err(a.invalid("timeout_ms", &format!("must be at most {SHELL_MAX_MS}")));
                }
                a.unsupported_flag("interactive", "there is no terminal to interact with")?;
                a.unsupported_flag("tty", "there is no terminal to attach")?;
                a.boolean("combined_output")?;
                if let Some(stdin) = a.string("stdin")?.filter(|s| !s.is_empty()) {
                    command = format!(
                        "printf '%s' {} | {{\n{command}\n}}",
                        cli_tools::quote(&stdin)
                    );
                }
                let cwd = a.string("cwd")?;
                if a.boolean("background")? == Some(true) {
                    return Ok(cli_tools::shell(
                        cli_tools::background_command(&command, &c.call_id),
                        cwd,
                        Some(30_000),
                    ));
                }
                Ok(cli_tools::shell(command, cwd, Some(timeout)))
            }
            "read_file" => {
                let path = a.nonempty_string("path")?;
                let start = a.integer("start_line", 1)?;
                let max = a
                    .integer("max_lines", 1)?
                    .unwrap_or(READ_DEFAULT_LINES)
                    .min(READ_MAX_LINES);
                a.string("pages")?;
                Ok(cli_tools::read_file(path, start, Some(max)))
            }
            "write_file" => Ok(cli_tools::write_file(
                a.nonempty_string("path")?,
                a.required_string("content")?,
            )),
            "edit_file" => {
                let path = a.nonempty_string("path")?;
                let search = a.required_string("search")?;
                if search.is_empty() {
                    return Err(a.invalid("search", "must not be empty"));
                }
                let replace = a.required_string("replace")?;
                a.unsupported_flag("fuzz", "the search text must match exactly")?;
                Ok(cli_tools::edit(path, search, replace, false))
            }
            "list_dir" => {
                let mut input = json!({"depth": 1});
                if let Some(path) = a.string("path")?.filter(|p| !p.is_empty()) {
                    input["path"] = json!(path);
                }
                Ok(cli_tools::bound("list_dir", input))
            }
            "grep_files" => {
                let mut input = json!({"pattern": a.nonempty_string("pattern")?});
                if let Some(path) = a.string("path")?.filter(|p| !p.is_empty() && p != ".") {
                    input["path"] = json!(path);
                }
                let include: Vec<String> = a
                    .array("include")?
                    .map(|items| {
                        items
                            .iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                match include.len() {
                    0 => {}
                    1 => input["glob"] = json!(include[0]),
                    _ => input["glob"] = json!(format!("{{{}}}", include.join(","))),
                }
                a.unsupported_flag(
                    "exclude",
                    "narrow the search with `include` or `path` instead",
                )?;
                input["context"] = json!(a.integer("context_lines", 0)?.unwrap_or(2));
                if a.boolean("case_insensitive")? == Some(true) {
                    input["case_insensitive"] = json!(true);
                }
                input["max_results"] = json!(a.integer("max_results", 1)?.unwrap_or(100));
                Ok(cli_tools::bound("grep", input))
            }
            "file_search" => {
                let query = a.nonempty_string("query")?;
                if query.contains(['*', '?', '[', '{']) {
                    return Err(a.invalid("query", "is a name fragment, not a glob"));
                }
                let extensions: Vec<String> = a
                    .array("extensions")?
                    .map(|items| {
                        items
                            .iter()
                            .filter_map(Value::as_str)
                            .map(|e| e.trim_start_matches('.').to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                a.unsupported_flag(
                    "exclude",
                    "narrow the search with `path` or `extensions` instead",
                )?;
                a.integer("limit", 1)?;
                let pattern = match extensions.len() {
                    0 => format!("**/*{query}*"),
                    1 => format!("**/*{query}*.{}", extensions[0]),
                    _ => format!("**/*{query}*.{{{}}}", extensions.join(",")),
                };
                let mut input = json!({"pattern": pattern});
                if let Some(path) = a.string("path")?.filter(|p| !p.is_empty()) {
                    input["path"] = json!(path);
                }
                Ok(cli_tools::bound("glob", input))
            }
            "git_status" => {
                let mut command = "git status --porcelain=v1 -b".to_string();
                if let Some(path) = a.string("path")?.filter(|p| !p.is_empty()) {
                    command.push_str(&format!(" -- {}", cli_tools::quote(&path)));
                }
                Ok(cli_tools::shell(command, None, Some(60_000)))
            }
            "git_diff" => {
                let mut command = "git --no-pager diff".to_string();
                if a.boolean("cached")? == Some(true) {
                    command.push_str(" --cached");
                }
                if let Some(u) = a.integer("unified", 0)? {
                    if u > 50 {
                        return Err(a.invalid("unified", "must be at most 50"));
                    }
                    command.push_str(&format!(" --unified={u}"));
                }
                if let Some(path) = a.string("path")?.filter(|p| !p.is_empty()) {
                    command.push_str(&format!(" -- {}", cli_tools::quote(&path)));
                }
                Ok(cli_tools::shell(command, None, Some(60_000)))
            }
            "checklist_write" => {
                let Some(todos) = a.array("todos")? else {
                    return Err(a.invalid("todos", "is required"));
                };
                todo_write(&a, "todos", todos, "content")
            }
            "update_plan" => {
                let Some(plan) = a.array("plan")? else {
                    return Err(a.invalid("plan", "is required"));
                };
                a.string("explanation")?;
                todo_write(&a, "plan", plan, "step")
            }
            "request_user_input" => {
                let Some(questions) = a.array("questions")? else {
                    return Err(a.invalid("questions", "is required"));
                };
                if questions.is_empty() || questions.len() > 3 {
                    return Err(a.invalid("questions", "must hold 1 to 3 questions"));
                }
                let mut out = Vec::new();
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
                    out.push(entry);
                }
                Ok(cli_tools::bound("ask_user", json!({"questions": out})))
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
            "exec_shell" | "git_status" | "git_diff" => {
                let run = ShellRun::of(&output);
                let text = match run.end {
                    ShellEnd::NotRun => return output,
                    ShellEnd::Exit(0) if run.output.trim().is_empty() => "(no output)".to_string(),
                    ShellEnd::Exit(0) => run.output,
                    ShellEnd::Exit(code) | ShellEnd::Signal(code) => {
                        format!("Command failed (exit code: {code})\n{}", run.output)
                    }
                    ShellEnd::TimedOut(ms) => {
                        format!("Command timed out after {ms} ms\n{}", run.output)
                    }
                    ShellEnd::Aborted => format!("Command cancelled\n{}", run.output),
                };
                ToolOutput { text, ..output }
            }
            "update_plan" if output.success() => {
                let plan = args
                    .get("plan")
                    .cloned()
                    .unwrap_or(Value::Array(Vec::new()));
                ToolOutput {
                    text: plan_progress(&plan),
                    ..output
                }
            }
            _ => output,
        }
    }
}

/// Binds a checklist or plan (items with `content`/`step` and a status) to the engine's todos.
fn todo_write(
    a: &Args<'_>,
    field: &str,
    items: &[Value],
    text_key: &str,
) -> Result<BoundCall, ToolOutput> {
    let mut todos = Vec::with_capacity(items.len());
    for item in items {
        let text = item
            .get(text_key)
            .and_then(Value::as_str)
            .unwrap_or_default();
        if text.is_empty() {
            return Err(a.invalid(field, &format!("has an item without `{text_key}`")));
        }
        let status = match item.get("status").and_then(Value::as_str) {
            Some(s @ ("pending" | "in_progress" | "completed")) => s,
            _ => {
                return Err(a.invalid(
                    field,
                    "has an item whose `status` is not pending, in_progress or completed",
                ));
            }
        };
        todos.push(json!({"content": text, "status": status}));
    }
    Ok(cli_tools::bound("todo_write", json!({"todos": todos})))
}

/// "Plan updated: 1 pending, 1 in progress, 2 completed (50% done)" followed by the plan.
fn plan_progress(plan: &Value) -> String {
    let steps = plan.as_array().map(Vec::as_slice).unwrap_or_default();
    let count = |s: &str| {
        steps
            .iter()
            .filter(|p| p.get("status").and_then(Value::as_str) == Some(s))
            .count()
    };
    let (pending, doing, done) = (count("pending"), count("in_progress"), count("completed"));
    let percent = if steps.is_empty() {
        0
    } else {
        done * 100 / steps.len()
    };
    format!(
        "Plan updated: {pending} pending, {doing} in progress, {done} completed ({percent}% done)\n{}",
        serde_json::to_string_pretty(plan).unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::{FunctionCallItem, ToolInput};

    fn call(name: &str, args: Value) -> Item {
        Item::FunctionCall(FunctionCallItem {
            id: "i".into(),
            call_id: "call_0".into(),
            name: name.into(),
            namespace: None,
            arguments: args.to_string(),
        })
    }

    fn bound(name: &str, args: Value) -> (String, Value) {
        let b = DeepseekTui.bind_call(&call(name, args)).unwrap();
        match b.input {
            ToolInput::Json(v) => (b.tool, v),
            ToolInput::Freeform(s) => (b.tool, Value::String(s)),
        }
    }

    #[test]
    fn tools_map_their_argument_names() {
        assert_eq!(
            bound(
                "read_file",
                json!({"path": "src/a.rs", "start_line": 40, "max_lines": 900})
            )
            .1,
            json!({"path": "src/a.rs", "offset": 40, "limit": 500})
        );
        assert_eq!(
            bound(
                "edit_file",
                json!({"path": "a", "search": "x", "replace": "y"})
            )
            .1,
            json!({"path": "a", "old_string": "x", "new_string": "y"})
        );
        assert_eq!(
            bound(
                "grep_files",
                json!({"pattern": "fn", "include": ["*.rs", "*.toml"]})
            )
            .1,
            json!({"pattern": "fn", "glob": "{*.rs,*.toml}", "context": 2, "max_results": 100})
        );
        assert_eq!(
            bound(
                "file_search",
                json!({"query": "main", "extensions": ["rs"]})
            )
            .1,
            json!({"pattern": "**/*main*.rs"})
        );
        assert_eq!(
            bound("git_diff", json!({"cached": true, "path": "src"})).1["command"],
            json!("git --no-pager diff --cached -- 'src'")
        );
        let err = DeepseekTui
            .bind_call(&call("exec_shell", json!({"command": "vim", "tty": true})))
            .unwrap_err();
        assert!(
            err.text.contains("`exec_shell`") && err.text.contains("`tty`"),
            "{}",
            err.text
        );
    }

    #[test]
    fn mentions_need_whole_names() {
        let text = "Fix the import in tests/test_hello.py, then run `pytest`.";
        assert!(mentions(text, "tests/test_hello.py"));
        assert!(!mentions(text, "hello.py"));
        assert!(!mentions(text, "tests"));
        assert!(mentions(text, "pytest"));
    }

    #[test]
    fn plan_results_report_progress() {
        let plan =
            json!([{"step": "a", "status": "completed"}, {"step": "b", "status": "in_progress"}]);
        let out = DeepseekTui.adapt_output(
            &call("update_plan", json!({"plan": plan})),
            ToolOutput::ok("Todo list updated"),
        );
        assert!(
            out.text
                .starts_with("Plan updated: 0 pending, 1 in progress, 1 completed (50% done)\n"),
            "{}",
            out.text
        );
        let (_, todos) = bound(
            "update_plan",
            json!({"plan": [{"step": "a", "status": "pending"}]}),
        );
        assert_eq!(
            todos,
            json!({"todos": [{"content": "a", "status": "pending"}]})
        );
    }
}
