//! `qwen-code`: Alibaba's Qwen Code CLI (npm `@qwen-code/qwen-code`).
//!
//! Sources: a captured session of Qwen Code 0.24.4 (npm `@qwen-code/qwen-code`, the
//! `--approval-mode yolo` run, whose tool list is the one an interactive session with approvals
//! sees), qwen-code's OpenAI converter for message shapes, and the anchor
//! (openinterpreter 0.0.40, `codex-rs/core/src/harness/qwen_code.rs`; `docs/sources.md`).
//! **Where they differ, the capture wins:**
//! - No synthetic user/assistant "setup" exchange (the anchor's, also described in the seed
//!   article): the real CLI puts the startup context into the *first user message* as
//!   `<system-reminder>` text parts (date, OS, working directory, folder tree; then the current
//!   date) ahead of the prompt, and sends no assistant acknowledgement. The skills and
//!   deferred-tool reminders of the capture are left out: Tack has neither.
//! - `max_tokens: 32768` (not 8000); body keys `model, messages, max_tokens, stream,
//!   stream_options, tools`, in this order (the capture's), no temperature and no
//!   `tool_choice`.
//! - Tools: the capture's names and schemas, sorted alphabetically as the CLI sends them:
//!   `edit`, `glob`, `grep_search`, `read_file`, `run_shell_command`, `write_file`. The agent,
//!   goal, skill, notebook and deferred-tool entries (`tool_search`/`tool_call`) have no
//!   handler in Tack and are not advertised.
//! - User content is always an array of text parts (the capture's 5-part first message; the
//!   converter builds every user message as parts). Tool results are arrays of text parts
//!   (`""` when empty); images in tool results move to a user message after the tool group.
//! - Tool-call arguments are re-serialized compactly in the model's key order: the converter
//!   sends `JSON.stringify(functionCall.args)` of the parsed arguments. The anchor's fixed key
//!   orders for `read_file`/`edit`/`run_shell_command` describe no behaviour of the real CLI.
//!
//! The system prompt (our own words, `prompts/qwen-code/system.md`) keeps the capture's section
//! order: Core Mandates, Primary Workflows, Operational Guidelines, Outside of Sandbox, Executing
//! actions with care, Git Repository (only in a repository), Examples, Final Reminder, then the
//! project's context files and the session's instructions.
//!
//! Identity: Tack's own user-agent unless the user opts in; then `user-agent: QwenCode/0.24.4
//! (<platform>; <arch>)` and the OpenAI Node SDK's `x-stainless-*` headers seen in the capture.

// Binding answers a bad call with a model-readable `ToolOutput` (the `Harness::bind_call`
// contract); it is a cold path, so the error's size does not matter.
#![allow(clippy::result_large_err)]

use serde_json::{Value, json};
use tack_protocol::{Item, LocalShellCallItem, Prompt, ToolOutput, Wire};
use tack_wire::{
    Block, RenderOptions, RequestParams, ShapedMessage, ShapedRequest, ShapedRole, SystemBlock,
    ToolOnlyContent,
};

use super::cli_env;
use super::cli_tools::{self, Args, CliTool, ReadResult, ShellEnd, ShellRun};
use super::kimi_chat::{self, Arguments, CallIds, ChatStyle, Framing, ToolMedia};
use crate::history::DeveloperMode;
use crate::prompts::{self, TemplateVars};
use crate::{BoundCall, Harness, ShapeEnv, ShapeError, Shaped, bind_by_name, rules};

const ID: &str = "qwen-code";

/// The qwen-code version whose identity headers are sent when the user opts in.
pub(crate) const VERSION: &str = "0.24.4";

const MAX_TOKENS: u32 = 32_768;

/// Top-level body keys in the captured order (the OpenAI Node SDK sends the CLI's request
/// object as built).
const BODY_KEY_ORDER: [&str; 6] = [
    "model",
    "messages",
    "max_tokens",
    "stream",
    "stream_options",
    "tools",
];

/// `run_shell_command` timeouts in milliseconds: 120000 by default, at most 600000.
const SHELL_DEFAULT_MS: u64 = 120_000;
const SHELL_MAX_MS: u64 = 600_000;

pub(crate) struct QwenCode;

fn local_shell(c: &LocalShellCallItem) -> (&'static str, Value) {
    let mut args = json!({"command": crate::shell_command_text(&c.command)});
    if let Some(ms) = c.timeout_ms {
        args["timeout"] = json!(ms);
    }
    if let Some(dir) = &c.workdir {
        args["directory"] = json!(dir);
    }
    ("run_shell_command", args)
}

/// qwen-code's OpenAI converter conventions (see the module docs).
const STYLE: ChatStyle = ChatStyle {
    developer: DeveloperMode::Drop,
    arguments: Arguments::Compact,
    call_ids: CallIds::AsRecorded,
    trim_user_newlines: false,
    user_parts: true,
    framing: Framing::Plain,
    empty_result: None,
    aborted_result: "The tool call was cancelled before it finished; it produced no result.",
    result_parts: true,
    tool_media: ToolMedia::FollowingUserMessage {
        note: "(the tool's images are in the next message)",
        lead: "(images returned by the tool calls above)",
    },
    replay_reasoning: true,
    empty_reasoning: false,
    reasoning_placeholder: None,
    empty_content_with_reasoning: true,
    local_shell,
};

/// The qwen-code tools Tack can carry out, sorted by name as the CLI sends them. Field names,
/// types, bounds, required lists and key order follow the CLI's definitions; descriptions are
/// our own.
pub(crate) fn tool_table() -> Vec<CliTool> {
    vec![
        CliTool::new(
            "edit",
            "edit",
            "Replace text in a file. By default exactly one occurrence of `old_string` is replaced, so include enough surrounding lines to make it unique; set `replace_all` to change every occurrence. Read the file first, and give `old_string` exactly as it appears, whitespace included.",
            json!({
                "properties": {
                    "file_path": {"description": "Absolute path of the file to change.", "type": "string"},
                    "old_string": {"description": "The exact text to replace, unescaped.", "type": "string"},
                    "new_string": {"description": "The exact replacement text, unescaped.", "type": "string"},
                    "replace_all": {"type": "boolean", "description": "Replace every occurrence of old_string (default false)."}
                },
                "required": ["file_path", "old_string", "new_string"],
                "type": "object"
            }),
        ),
        CliTool::new(
            "glob",
            "glob",
            "Find files by glob pattern (for example `**/*.ts`), newest first.",
            json!({
                "properties": {
                    "pattern": {"description": "The glob pattern.", "type": "string"},
                    "path": {"description": "Folder to search; leave it out for the project root.", "type": "string"}
                },
                "required": ["pattern"],
                "type": "object"
            }),
        ),
        CliTool::new(
            "grep_search",
            "grep",
            "Search file contents with a regular expression and list the matching lines grouped by file. Use this rather than grep or rg in the shell.",
            json!({
                "properties": {
                    "pattern": {"type": "string", "description": "The regular expression."},
                    "glob": {"type": "string", "description": "Only search files matching this glob (e.g. \"*.{ts,tsx}\")."},
                    "path": {"type": "string", "description": "Folder or file to search; defaults to the project root."},
                    "limit": {"type": "integer", "minimum": 1, "description": "Most matching lines to return."}
                },
                "required": ["pattern"],
                "type": "object"
            }),
        ),
        CliTool::new(
            "read_file",
            "read_file",
            "Read a text file. `file_path` must be absolute. Long files are cut; page through them with `offset` (0-based line) and `limit`.",
            json!({
                "properties": {
                    "file_path": {"description": "Absolute path of the file.", "type": "string"},
                    "offset": {"description": "0-based line to start from; use it with `limit`.", "type": ["integer", "null"]},
                    "limit": {"description": "Most lines to read.", "type": ["integer", "null"]},
                    "pages": {"description": "Page range of a PDF (not supported here).", "type": ["string", "null"]}
                },
                "required": ["file_path"],
                "type": "object"
            }),
        ),
        CliTool::new(
            "run_shell_command",
            "shell",
            "Run a bash command (`bash -c <command>`) and get its output, exit code and signal. Use it for git, builds, tests and package managers, not for reading or editing files. Put long-running processes in the background with `is_background: true`.",
            json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "Bash command line to run."},
                    "is_background": {"type": "boolean", "description": "Run detached (servers, watchers); default false."},
                    "timeout": {"type": "integer", "minimum": 1, "maximum": SHELL_MAX_MS, "description": "Timeout in milliseconds (default 120000, at most 600000)."},
                    "description": {"type": "string", "description": "One sentence telling the user what the command does."},
                    "directory": {"type": "string", "description": "Absolute folder to run in, inside the project (default: the project root)."}
                },
                "required": ["command"]
            }),
        ),
        CliTool::new(
            "write_file",
            "write_file",
            "Write a whole file, creating it (and its folders) or replacing it. `file_path` must be absolute. Read an existing file before replacing it.",
            json!({
                "properties": {
                    "file_path": {"description": "Absolute path of the file.", "type": "string"},
                    "content": {"description": "The complete content to write.", "type": "string"},
                    "record_as_artifact": {"description": "Whether the file counts as a session artifact (ignored here).", "type": "boolean"}
                },
                "required": ["file_path", "content"],
                "type": "object"
            }),
        ),
    ]
}

impl QwenCode {
    /// The startup `<system-reminder>` parts that lead the first user message.
    fn startup_parts(
        &self,
        prompt: &Prompt,
        env: &ShapeEnv<'_>,
        vars: &TemplateVars<'_>,
    ) -> Result<Vec<Block>, ShapeError> {
        let ctx = &prompt.context;
        let extra = json!({
            "qwen_date": cli_env::long_date(ctx),
            "qwen_platform": cli_env::node_platform(ctx),
            "folder_tree": cli_env::qwen_tree(&ctx.cwd, &ctx.listing),
            "tree_limit": cli_env::QWEN_TREE_ITEMS,
        });
        let mut parts = Vec::new();
        for file in ["startup.md", "date-reminder.md"] {
            let template = env.prompts.get(ID, file)?;
            let text = prompts::render_with(&template, vars, &extra)?;
            let text = text.trim_end();
            if !text.is_empty() {
                parts.push(Block::Text {
                    text: text.to_string(),
                    cache: false,
                });
            }
        }
        Ok(parts)
    }
}

impl Harness for QwenCode {
    fn id(&self) -> &'static str {
        ID
    }
    fn description(&self) -> &'static str {
        "Qwen Code 0.24 (Alibaba): run_shell_command/read_file/edit tools, startup context in the first message"
    }
    fn wires(&self) -> &'static [Wire] {
        &[Wire::Chat]
    }

    fn shape(&self, prompt: &Prompt, wire: Wire, env: &ShapeEnv<'_>) -> Result<Shaped, ShapeError> {
        let ctx = &prompt.context;
        let instructions = cli_tools::instructions(prompt);
        let vars = TemplateVars::new(ctx, instructions.as_deref());
        let template = env.prompts.get(ID, "system.md")?;
        let system = prompts::render(&template, &vars)?;
        let startup = self.startup_parts(prompt, env, &vars)?;
        let mut messages = kimi_chat::build(&prompt.history, &ctx.provider, &STYLE);
        match messages.iter_mut().find(|m| m.role == ShapedRole::User) {
            Some(first) => {
                let mut content = startup;
                content.append(&mut first.content);
                first.content = content;
                kimi_chat::force_parts(first);
            }
            None if !startup.is_empty() => {
                let mut first = ShapedMessage::new(ShapedRole::User, startup);
                kimi_chat::force_parts(&mut first);
                messages.insert(0, first);
            }
            None => {}
        }
        let tools = cli_tools::advertise(tool_table(), &prompt.tools);
        let tool_kinds = tack_wire::tool_kinds(&tools, wire);
        let replay = rules::for_provider(&ctx.provider).replay_reasoning;
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
                max_tokens: Some(MAX_TOKENS),
                ..RequestParams::default()
            },
            options: RenderOptions {
                chat_tool_only_content: ToolOnlyContent::Null,
                chat_reasoning_field: replay.then(|| "reasoning_content".to_string()),
                chat_max_tokens_field: "max_tokens".to_string(),
                chat_tool_result_parts: true,
                field_order: BODY_KEY_ORDER.map(String::from).to_vec(),
                ..RenderOptions::default()
            },
            ..ShapedRequest::default()
        };
        // The OpenAI SDK under qwen-code asks for `application/json` even for a streamed reply
        // (every request in the capture): a transport detail, sent always.
        request.headers = vec![("accept".into(), "application/json".into())];
        if env.emulate_identity {
            request
                .headers
                .extend(identity_headers(cli_env::node_platform(ctx)));
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
            "run_shell_command" => {
                let command = a.nonempty_string("command")?;
                let timeout = a.integer("timeout", 1)?;
                if timeout.is_some_and(|t| t > SHELL_MAX_MS) {
                    return Err(a.invalid(
                        "timeout",
                        &format!("must be at most {SHELL_MAX_MS} milliseconds"),
                    ));
                }
                let dir = a.string("directory")?;
                a.string("description")?;
                if a.boolean("is_background")? == Some(true) {
                    let command = command
                        .trim_end()
                        .trim_end_matches('&')
                        .trim_end()
                        .to_string();
                    return Ok(cli_tools::shell(
                        cli_tools::background_command(&command, &c.call_id),
                        dir,
                        Some(30_000),
                    ));
                }
                Ok(cli_tools::shell(
                    command,
                    dir,
                    Some(timeout.unwrap_or(SHELL_DEFAULT_MS)),
                ))
            }
            "read_file" => {
                let path = a.nonempty_string("file_path")?;
                a.unsupported_flag(
                    "pages",
                    "PDF page extraction is not available; read text files only",
                )?;
                let offset = a.integer("offset", 0)?;
                let limit = a.integer("limit", 1)?;
                Ok(cli_tools::read_file(path, offset.map(|o| o + 1), limit))
            }
            "write_file" => {
                let path = a.nonempty_string("file_path")?;
                let content = a.required_string("content")?;
                a.boolean("record_as_artifact")?;
                Ok(cli_tools::write_file(path, content))
            }
            "edit" => {
                let path = a.nonempty_string("file_path")?;
                let old = a.required_string("old_string")?;
                if old.is_empty() {
                    return Err(a.invalid(
                        "old_string",
                        "must not be empty; use write_file to create a file",
                    ));
                }
                let new = a.required_string("new_string")?;
                let all = a.boolean("replace_all")?.unwrap_or(false);
                Ok(cli_tools::edit(path, old, new, all))
            }
            "glob" => {
                let mut input = json!({"pattern": a.nonempty_string("pattern")?});
                if let Some(path) = a.string("path")?.filter(|p| !p.is_empty()) {
                    input["path"] = json!(path);
                }
                Ok(cli_tools::bound("glob", input))
            }
            "grep_search" => {
                let mut input = json!({"pattern": a.nonempty_string("pattern")?});
                if let Some(path) = a.string("path")?.filter(|p| !p.is_empty()) {
                    input["path"] = json!(path);
                }
                if let Some(glob) = a.string("glob")?.filter(|g| !g.is_empty()) {
                    input["glob"] = json!(glob);
                }
                if let Some(limit) = a.integer("limit", 1)? {
                    input["max_results"] = json!(limit);
                }
                Ok(cli_tools::bound("grep", input))
            }
            other => Err(cli_tools::unknown_tool(other, &tool_table())),
        }
    }

    fn adapt_output(&self, call: &Item, output: ToolOutput) -> ToolOutput {
        let Item::FunctionCall(c) = call else {
            return output;
        };
        let args: Value = serde_json::from_str(&c.arguments).unwrap_or(Value::Null);
        let arg = |k: &str| {
            args.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        match c.name.as_str() {
            "run_shell_command" => {
                let run = ShellRun::of(&output);
                let text = match run.end {
                    ShellEnd::NotRun => return output,
                    ShellEnd::TimedOut(ms) => {
                        let ms = if ms == 0 {
                            args.get("timeout")
                                .and_then(Value::as_u64)
                                .unwrap_or(SHELL_DEFAULT_MS)
                        } else {
                            ms
                        };
                        if run.output.trim().is_empty() {
                            format!(
                                "Command timed out after {ms}ms; it printed nothing before it was stopped."
                            )
                        } else {
                            format!(
                                "Command timed out after {ms}ms. Output before it was stopped:\n{}",
                                run.output
                            )
                        }
                    }
                    ShellEnd::Aborted => {
                        if run.output.trim().is_empty() {
                            "Command was cancelled by the user; it printed nothing before that."
                                .to_string()
                        } else {
                            format!(
                                "Command was cancelled by the user. Output before that:\n{}",
                                run.output
                            )
                        }
                    }
                    ShellEnd::Exit(code) => shell_report(
                        &arg("command"),
                        &arg("directory"),
                        &run.output,
                        &code.to_string(),
                        "(none)",
                    ),
                    ShellEnd::Signal(sig) => shell_report(
                        &arg("command"),
                        &arg("directory"),
                        &run.output,
                        "(none)",
                        &sig.to_string(),
                    ),
                };
                ToolOutput { text, ..output }
            }
            "read_file" if output.success() => {
                let Some(read) = ReadResult::parse(&output.text) else {
                    // An empty file reads as nothing.
                    return ToolOutput {
                        text: String::new(),
                        ..output
                    };
                };
                let body = read.plain();
                if read.more == 0 && read.lines.first().is_none_or(|l| l.number == 1) {
                    return ToolOutput {
                        text: body,
                        ..output
                    };
                }
                let first = read.lines.first().map_or(1, |l| l.number);
                let last = read.lines.last().map_or(first, |l| l.number);
                let text = format!(
                    "Showing lines {first}-{last} of {} total lines. To read more, call read_file again with offset: {last}.\n\n---\n\n{body}",
                    last + read.more
                );
                ToolOutput { text, ..output }
            }
            "write_file" if output.success() => {
                let path = arg("file_path");
                let text = if output.text.starts_with("Created") {
                    format!("Successfully created and wrote to new file: {path}.")
                } else {
                    format!("Successfully overwrote file: {path}.")
                };
                ToolOutput { text, ..output }
            }
            "edit" if output.success() => ToolOutput {
                text: format!("Successfully modified file: {}.", arg("file_path")),
                ..output
            },
            "glob" if output.success() => {
                let pattern = arg("pattern");
                let files: Vec<&str> = output
                    .text
                    .lines()
                    .filter(|l| !l.starts_with("… ") && !l.starts_with("No files match"))
                    .collect();
                let text = if files.is_empty() {
                    format!("No files found matching pattern \"{pattern}\".")
                } else {
                    format!(
                        "Found {} file(s) matching \"{pattern}\", newest first:\n{}",
                        files.len(),
                        files.join("\n")
                    )
                };
                ToolOutput { text, ..output }
            }
            "grep_search" if output.success() => {
                let pattern = arg("pattern");
                let lines = cli_tools::parse_grep(&output.text).unwrap_or_default();
                let matches: Vec<_> = lines.iter().filter(|l| l.is_match).collect();
                let text = if matches.is_empty() {
                    format!("No matches found for pattern \"{pattern}\".")
                } else {
                    let mut text = format!(
                        "Found {} match(es) for pattern \"{pattern}\":\n---\n",
                        matches.len()
                    );
                    let mut current: Option<&str> = None;
                    for m in &matches {
                        if current != Some(m.path.as_str()) {
                            if current.is_some() {
                                text.push_str("---\n");
                            }
                            text.push_str(&format!("File: {}\n", m.path));
                            current = Some(&m.path);
                        }
                        text.push_str(&format!("L{}: {}\n", m.number, m.text));
                    }
                    text.push_str("---");
                    text
                };
                ToolOutput { text, ..output }
            }
            _ => output,
        }
    }
}

/// `run_shell_command`'s report of a finished command (the CLI's field layout).
fn shell_report(command: &str, directory: &str, output: &str, exit: &str, signal: &str) -> String {
    let dir = if directory.is_empty() {
        "(root)"
    } else {
        directory
    };
    let out = if output.is_empty() {
        "(empty)"
    } else {
        output.trim_end_matches('\n')
    };
    format!(
        "Command: {command}\nDirectory: {dir}\nOutput: {out}\nError: (none)\nExit Code: {exit}\nSignal: {signal}\nProcess Group PGID: (none)"
    )
}

/// The identity headers of the capture (OpenAI Node SDK under qwen-code), for users who opt in.
fn identity_headers(platform: &str) -> Vec<(String, String)> {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    let os = match platform {
        "darwin" => "MacOS",
        "win32" => "Windows",
        _ => "Linux",
    };
    vec![
        (
            "user-agent".into(),
            format!("QwenCode/{VERSION} ({platform}; {arch})"),
        ),
        ("x-stainless-arch".into(), arch.into()),
        ("x-stainless-lang".into(), "js".into()),
        ("x-stainless-os".into(), os.into()),
        ("x-stainless-package-version".into(), "5.11.0".into()),
        ("x-stainless-retry-count".into(), "0".into()),
        ("x-stainless-runtime".into(), "node".into()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::{FunctionCallItem, ToolInput, ToolStatus};

    fn call(name: &str, args: Value) -> Item {
        Item::FunctionCall(FunctionCallItem {
            id: "i".into(),
            call_id: "call_1".into(),
            name: name.into(),
            namespace: None,
            arguments: args.to_string(),
        })
    }

    fn bound(name: &str, args: Value) -> (String, Value) {
        let b = QwenCode.bind_call(&call(name, args)).unwrap();
        match b.input {
            ToolInput::Json(v) => (b.tool, v),
            ToolInput::Freeform(s) => (b.tool, Value::String(s)),
        }
    }

    #[test]
    fn read_offset_is_zero_based() {
        assert_eq!(
            bound(
                "read_file",
                json!({"file_path": "/w/a.ts", "offset": 0, "limit": 20})
            ),
            (
                "read_file".into(),
                json!({"path": "/w/a.ts", "offset": 1, "limit": 20})
            )
        );
        assert_eq!(
            bound(
                "read_file",
                json!({"file_path": "/w/a.ts", "offset": 10, "limit": null})
            )
            .1["offset"],
            json!(11)
        );
        let err = QwenCode
            .bind_call(&call(
                "read_file",
                json!({"file_path": "/w/a.pdf", "pages": "1-3"}),
            ))
            .unwrap_err();
        assert!(
            err.text.contains("`read_file`") && err.text.contains("`pages`"),
            "{}",
            err.text
        );
    }

    #[test]
    fn shell_timeout_is_milliseconds_and_directory_is_the_workdir() {
        assert_eq!(
            bound(
                "run_shell_command",
                json!({"command": "npm test", "directory": "/w/app", "timeout": 5000})
            ),
            (
                "shell".into(),
                json!({"command": "npm test", "workdir": "/w/app", "timeout_ms": 5000})
            )
        );
        assert_eq!(
            bound("run_shell_command", json!({"command": "ls"})).1["timeout_ms"],
            json!(SHELL_DEFAULT_MS)
        );
        let (_, bg) = bound(
            "run_shell_command",
            json!({"command": "node server.js &", "is_background": true}),
        );
        assert!(
            bg["command"].as_str().unwrap().contains("'node server.js'"),
            "{bg}"
        );
    }

    #[test]
    fn shell_results_use_the_cli_report() {
        let out = ToolOutput {
            text: "boom\n[exit code 3]".into(),
            status: ToolStatus::Failed,
            content: vec![],
            exit_code: Some(3),
            duration_ms: Some(1),
            details: None,
        };
        let adapted =
            QwenCode.adapt_output(&call("run_shell_command", json!({"command": "x"})), out);
        assert_eq!(
            adapted.text,
            "Command: x\nDirectory: (root)\nOutput: boom\nError: (none)\nExit Code: 3\nSignal: (none)\nProcess Group PGID: (none)"
        );
    }

    #[test]
    fn reads_come_back_without_line_numbers() {
        let adapted = QwenCode.adapt_output(
            &call("read_file", json!({"file_path": "/w/a"})),
            ToolOutput::ok("     1\tline one\n     2\tline two\n"),
        );
        assert_eq!(adapted.text, "line one\nline two\n");
        let adapted = QwenCode.adapt_output(
            &call(
                "read_file",
                json!({"file_path": "/w/a", "offset": 1, "limit": 1}),
            ),
            ToolOutput::ok("     2\tline two\n… 5 more lines; use offset=3 to continue.\n"),
        );
        assert!(
            adapted
                .text
                .starts_with("Showing lines 2-2 of 7 total lines."),
            "{}",
            adapted.text
        );
    }
}
