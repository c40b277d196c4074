//! The CLI's tools on top of Tack's engine tools: binding a call the model made under the
//! CLI's name (`Bash`, `Read`, …) to an engine tool, and shaping the engine's output the way
//! the CLI's tool would have answered.
//!
//! Over 1,200 lines because it still carries its own copies of pieces `cli_tools.rs` also
//! has (argument parsing, background commands, grep modes, file types); the structure issue
//! moves them into one shared kit, which leaves this file with Claude Code's own tools only.
//!
//! Shared by `claude-code`, `claude-code-bare` and `zcode`, whose tools have the same names and
//! parameters (zcode's `Read` lacks `pages`, its `TodoWrite` items carry `priority` instead of
//! `activeForm`).
//!
//! Mapping (parameter facts from a captured request of Claude Code 2.1.332 and the anchor,
//! openinterpreter 0.0.40 `codex-rs/core/src/harness/claude_code.rs` and
//! `core/src/tools/handlers/harness_aliases.rs`; `docs/sources.md`):
//!
//! - `Bash {command, timeout, description, run_in_background, dangerouslyDisableSandbox}` →
//!   `shell {command, timeout_ms}`. `timeout` is milliseconds, capped at the CLI's 600000;
//!   `description` is for the user and dropped. `run_in_background` rewrites the command to run
//!   detached with its output in a log file under the system temp folder (never in the
//!   workspace) and returns the pid and the file; the approval gate sees that exact command.
//!   `dangerouslyDisableSandbox` is accepted and has no effect: Tack runs commands under its
//!   approval gate rather than a sandbox, and the engine's `shell` has no escalation input, so
//!   there is nothing to escalate to.
//! - `Read {file_path, offset, limit, pages, allow_large}` → `read_file {path, offset, limit}`.
//!   `offset` is the 1-based line to start at, `0` meaning the start, as in the CLI; the
//!   engine's default of 2000 lines is the CLI's. `pages` (PDF pages) is refused: the engine
//!   reads text only. `allow_large` is accepted; the engine always caps its output.
//! - `Write {file_path, content}` → `write_file {path, content}`.
//! - `Edit {file_path, old_string, new_string, replace_all}` →
//!   `edit {path, old_string, new_string, replace_all}`.
//! - `Glob {pattern, path}` → `glob {pattern, path}`.
//! - `Grep {pattern, path, glob, output_mode, -B, -A, -C, context, -n, -i, -o, type,
//!   head_limit, offset, multiline}` → `grep {pattern, path, glob, case_insensitive, context,
//!   max_results}`. `-i` is `case_insensitive`; the engine has one symmetric context, so the
//!   largest of `-A`/`-B`/`-C`/`context` is used. `output_mode` (default `files_with_matches`,
//!   as in the CLI), `-n`, `-o`, `head_limit`, `offset` and `type` (ripgrep type names mapped
//!   to extension globs) are applied to the engine's `path:line:text` output in
//!   [`Binder::adapt`]. `multiline` is refused (the engine matches line by line).
//! - `TodoWrite {todos: [{content, status, activeForm}]}` → `todo_write {todos: [{content,
//!   status}]}`; `activeForm` (zcode: `priority`) is accepted and dropped.
//! - `AskUserQuestion {questions: [{question, header, options: [{label, description,
//!   preview}], multiSelect}], answers, annotations, metadata}` → `ask_user {questions:
//!   [{question, header, options: [{label, description}], multi_select}]}`; `preview` and the
//!   CLI's UI-filled fields are dropped.
//!
//! Argument aliases (the anchor's `harness_aliases.rs`): the path as `file_path|path|filePath`, Read's `offset|line_offset`
//! and `limit|n_lines`, Edit's `old_string|oldString|oldText` (and the same for `new_string`).
//! Lowercase tool names (`bash`, `read`, …) bind too. Numbers and booleans sent as strings
//! (`"10"`, `"true"`) are accepted, since models do that. Any other parameter is refused with
//! a message naming it, like the CLI's strict schemas.

// A failed `ToolOutput` is the error value of binding by design (a bad call is answered with a
// model-readable output); it is a cold path, so its size does not matter. Same choice as the
// engine's tools.
#![allow(clippy::result_large_err)]

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Value, json};
use tack_protocol::{Item, ToolInput, ToolOutput, ToolStatus};

use crate::{BoundCall, parse_arguments};

/// A CLI tool Tack can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CliTool {
    AskUserQuestion,
    Bash,
    Edit,
    Glob,
    Grep,
    Read,
    TodoWrite,
    Write,
}

impl CliTool {
    /// Every CLI tool Tack has a handler for.
    pub(crate) const ALL: [CliTool; 8] = [
        CliTool::AskUserQuestion,
        CliTool::Bash,
        CliTool::Edit,
        CliTool::Glob,
        CliTool::Grep,
        CliTool::Read,
        CliTool::TodoWrite,
        CliTool::Write,
    ];

    /// The CLI's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CliTool::AskUserQuestion => "AskUserQuestion",
            CliTool::Bash => "Bash",
            CliTool::Edit => "Edit",
            CliTool::Glob => "Glob",
            CliTool::Grep => "Grep",
            CliTool::Read => "Read",
            CliTool::TodoWrite => "TodoWrite",
            CliTool::Write => "Write",
        }
    }

    /// The engine tool that runs it.
    pub(crate) fn engine(self) -> &'static str {
        match self {
            CliTool::AskUserQuestion => "ask_user",
            CliTool::Bash => "shell",
            CliTool::Edit => "edit",
            CliTool::Glob => "glob",
            CliTool::Grep => "grep",
            CliTool::Read => "read_file",
            CliTool::TodoWrite => "todo_write",
            CliTool::Write => "write_file",
        }
    }

    /// The tool a call name refers to: the CLI's exact name, or its lowercase form (the anchor's
    /// `harness_aliases.rs`).
    pub(crate) fn from_name(name: &str) -> Option<CliTool> {
        CliTool::ALL.into_iter().find(|t| {
            t.name() == name
                || t.name().eq_ignore_ascii_case(name) && name == name.to_ascii_lowercase()
        })
    }

    /// Engine parameter names → the CLI's, for rewriting engine validation messages.
    fn renamed_params(self) -> &'static [(&'static str, &'static str)] {
        match self {
            CliTool::Read | CliTool::Write | CliTool::Edit => &[("path", "file_path")],
            CliTool::Bash => &[("timeout_ms", "timeout")],
            CliTool::Grep => &[("case_insensitive", "-i"), ("max_results", "head_limit")],
            CliTool::AskUserQuestion => &[("multi_select", "multiSelect")],
            CliTool::Glob | CliTool::TodoWrite => &[],
        }
    }
}

/// Whose conventions outputs follow where the CLIs differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    ClaudeCode,
    ZCode,
}

impl Dialect {
    /// The text of a successful command that printed nothing (the anchor's `harness_aliases.rs`).
    fn empty_bash_output(self) -> &'static str {
        match self {
            Dialect::ClaudeCode => "(Bash completed with no output)",
            Dialect::ZCode => "Command executed successfully.",
        }
    }
}

/// Binds calls and adapts outputs for one harness.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Binder {
    /// Output conventions.
    pub(crate) dialect: Dialect,
    /// The tools this harness can advertise (the bare profile has only three).
    pub(crate) tools: &'static [CliTool],
}

/// The CLI's limit on `Bash.timeout`, in milliseconds.
pub(crate) const MAX_BASH_TIMEOUT_MS: f64 = 600_000.0;

/// Matching lines the engine collects when `Grep` lists files or counts, so that files past
/// the engine's default of 100 lines still show up.
const GREP_LISTING_LINES: u64 = 5000;

impl Binder {
    fn tool(&self, name: &str) -> Option<CliTool> {
        CliTool::from_name(name).filter(|t| self.tools.contains(t))
    }

    /// Binds a call (see the module docs for the mapping).
    ///
    /// # Errors
    /// A failed output naming the CLI's tool and field when the call cannot be bound.
    pub(crate) fn bind(&self, call: &Item) -> Result<BoundCall, ToolOutput> {
        let c = match call {
            Item::FunctionCall(c) => c,
            Item::LocalShellCall(_) => return crate::bind_by_name(call),
            Item::CustomToolCall(c) => return Err(self.unknown(&c.name)),
            _ => return Err(ToolOutput::error("internal error: not a tool call")),
        };
        let Some(tool) = self.tool(&c.name) else {
            return Err(self.unknown(&c.name));
        };
        let value = parse_arguments(tool.name(), &c.arguments)?;
        let map = match &value {
            Value::Object(map) => map,
            _ => {
                return Err(ToolOutput::error(
                    "internal error: arguments are not an object",
                ));
            }
        };
        let mut a = Args::new(tool, map);
        let input = match tool {
            CliTool::Bash => bash(&mut a, &c.call_id)?,
            CliTool::Read => read(&mut a)?,
            CliTool::Write => {
                let path = a.required_string(PATH)?;
                let content = a.required_string(&["content"])?;
                json!({"path": path, "content": content})
            }
            CliTool::Edit => edit(&mut a)?,
            CliTool::Glob => {
                let pattern = a.required_string(&["pattern"])?;
                let mut out = json!({"pattern": pattern});
                if let Some(path) = a.string(&["path"])? {
                    out["path"] = path.into();
                }
                out
            }
            CliTool::Grep => grep(&mut a)?,
            CliTool::TodoWrite => todo_write(&mut a)?,
            CliTool::AskUserQuestion => ask_user(&mut a)?,
        };
        a.finish()?;
        Ok(BoundCall {
            tool: tool.engine().to_string(),
            input: ToolInput::Json(input),
        })
    }

    fn unknown(&self, name: &str) -> ToolOutput {
        let names: Vec<&str> = self.tools.iter().map(|t| t.name()).collect();
        ToolOutput::error(format!(
            "No such tool: `{name}`. The tools of this session are {}.",
            names.join(", ")
        ))
    }

    /// Adapts an engine output to the CLI's conventions: the fixed text of an empty `Bash`
    /// result, `Grep`'s output modes, `AskUserQuestion`'s answer line, and engine validation
    /// messages re-worded with the CLI's tool and field names.
    pub(crate) fn adapt(&self, call: &Item, mut output: ToolOutput) -> ToolOutput {
        let Item::FunctionCall(c) = call else {
            return output;
        };
        if self.dialect == Dialect::ClaudeCode && output.text.trim().is_empty() {
            // Claude Code never sends a tool result without text: an empty one becomes
            // `(<tool> completed with no output)` for every tool, its own and MCP ones alike
            // (the anchor's `harness_aliases.rs` gives the Bash form). The Messages API also refuses an empty text
            // block, so an empty result would not be sendable as text anyway.
            output.text = format!("({} completed with no output)", c.name);
            return output;
        }
        let Some(tool) = self.tool(&c.name) else {
            return output;
        };
        if output.status == ToolStatus::Failed && output.text.starts_with("Invalid arguments for") {
            output.text = rename_in_message(&output.text, tool);
            return output;
        }
        if !output.success() {
            return output;
        }
        let args = parse_arguments(tool.name(), &c.arguments).unwrap_or_default();
        match tool {
            CliTool::Bash if output.text.trim().is_empty() => {
                output.text = self.dialect.empty_bash_output().to_string();
            }
            CliTool::Grep => output.text = GrepView::from_args(&args).render(&output.text),
            CliTool::Glob if output.text.starts_with("No files match") => {
                output.text = "No files found".to_string();
            }
            CliTool::AskUserQuestion => {
                if let Some(text) = answers_line(&args, &output.text) {
                    output.text = text;
                }
            }
            _ => {}
        }
        output
    }
}

const PATH: &[&str] = &["file_path", "path", "filePath"];

fn bash(a: &mut Args<'_>, call_id: &str) -> Result<Value, ToolOutput> {
    let command = a.required_string(&["command"])?;
    if command.trim().is_empty() {
        return Err(a.invalid("`command` is empty; give the command line to run"));
    }
    let timeout = a.number(&["timeout"])?;
    a.accept(&["description", "dangerouslyDisableSandbox"]);
    let background = a.boolean(&["run_in_background"])?.unwrap_or(false);
    let command = if background {
        background_command(&command, call_id)
    } else {
        command
    };
    let mut out = json!({"command": command});
    if let Some(ms) = timeout {
        if ms.is_nan() || ms <= 0.0 {
            return Err(a.invalid(&format!(
                "`timeout` must be a positive number of milliseconds (at most {MAX_BASH_TIMEOUT_MS}), got {ms}"
            )));
        }
        // Within u64 range after the cap; the cast rounds up to whole milliseconds.
        out["timeout_ms"] = json!(ms.min(MAX_BASH_TIMEOUT_MS).ceil() as u64);
    }
    Ok(out)
}

/// The command line that runs `command` detached, its output in a log file outside the
/// workspace. The engine's `shell` returns as soon as the wrapper exits, because the
/// background job's output does not go to the call's pipe.
fn background_command(command: &str, call_id: &str) -> String {
    let dir = std::env::temp_dir().join("tack-background");
    let name: String = call_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let log = dir.join(format!("{name}.log"));
    let dir = shell_quote(&dir.display().to_string());
    let log_shown = log.display().to_string();
    let log = shell_quote(&log_shown);
    // The command goes on lines of its own, so a trailing comment or heredoc cannot swallow
    // the closing parenthesis.
    format!(
        "mkdir -p {dir}\n(\n{command}\n) > {log} 2>&1 < /dev/null &\necho \"Running in the background as pid $!; output goes to {log_shown} (read that file to follow it).\""
    )
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn read(a: &mut Args<'_>) -> Result<Value, ToolOutput> {
    let path = a.required_string(PATH)?;
    let offset = a.integer(&["offset", "line_offset"], 0)?;
    let limit = a.integer(&["limit", "n_lines"], 1)?;
    if a.string(&["pages"])?.is_some_and(|p| !p.trim().is_empty()) {
        return Err(a.invalid(
            "`pages` selects pages of a PDF, and Tack's Read only reads text files; read a text file or extract the PDF's text with a command",
        ));
    }
    a.accept(&["allow_large"]);
    let mut out = json!({"path": path});
    // The CLI counts lines from 1 and reads `offset: 0` as "from the start".
    if let Some(offset) = offset.filter(|o| *o > 0) {
        out["offset"] = offset.into();
    }
    if let Some(limit) = limit {
        out["limit"] = limit.into();
    }
    Ok(out)
}

fn edit(a: &mut Args<'_>) -> Result<Value, ToolOutput> {
    let path = a.required_string(PATH)?;
    let old = a.required_string(&["old_string", "oldString", "oldText"])?;
    let new = a.required_string(&["new_string", "newString", "newText"])?;
    let mut out = json!({"path": path, "old_string": old, "new_string": new});
    if let Some(all) = a.boolean(&["replace_all", "replaceAll"])? {
        out["replace_all"] = all.into();
    }
    Ok(out)
}

fn grep(a: &mut Args<'_>) -> Result<Value, ToolOutput> {
    let pattern = a.required_string(&["pattern"])?;
    let path = a.string(&["path"])?;
    let glob = a.string(&["glob"])?;
    let mode = a.string(&["output_mode"])?;
    let mode = match mode.as_deref() {
        None | Some("files_with_matches") => GrepMode::Files,
        Some("content") => GrepMode::Content,
        Some("count") => GrepMode::Count,
        Some(other) => {
            return Err(a.invalid(&format!(
                "`output_mode` must be one of content, files_with_matches, count; got {other:?}"
            )));
        }
    };
    let mut context = 0;
    for name in ["-B", "-A", "-C", "context"] {
        if let Some(n) = a.integer(&[name], 0)? {
            context = context.max(n);
        }
    }
    // `-n` and `-o` shape the output (see `GrepView`); checked here so a bad value is refused.
    a.boolean(&["-n"])?;
    a.boolean(&["-o"])?;
    let case_insensitive = a.boolean(&["-i"])?;
    let head_limit = a.integer(&["head_limit"], 0)?;
    let offset = a.integer(&["offset"], 0)?;
    if a.boolean(&["multiline"])? == Some(true) {
        return Err(a.invalid(
            "`multiline` is not available: Tack's search matches one line at a time. Search for a pattern on one line, or run `rg -U` with Bash",
        ));
    }
    let file_type = a.string(&["type"])?;
    let type_glob = match &file_type {
        None => None,
        Some(t) => Some(type_glob(t).ok_or_else(|| {
            a.invalid(&format!(
                "unknown `type` {t:?}; known types: {}",
                FILE_TYPES
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?),
    };
    let mut out = json!({"pattern": pattern});
    if let Some(path) = path {
        out["path"] = path.into();
    }
    // With both a glob and a type, the glob goes to the engine and the type filters the
    // output (the engine takes one file filter).
    if let Some(glob) = glob.or(type_glob) {
        out["glob"] = glob.into();
    }
    if let Some(ci) = case_insensitive {
        out["case_insensitive"] = ci.into();
    }
    match mode {
        GrepMode::Content => {
            if context > 0 {
                out["context"] = context.into();
            }
            if let Some(limit) = head_limit.filter(|l| *l > 0) {
                out["max_results"] = (limit + offset.unwrap_or(0)).into();
            }
        }
        GrepMode::Files | GrepMode::Count => out["max_results"] = GREP_LISTING_LINES.into(),
    }
    Ok(out)
}

/// ripgrep type names (and a few common aliases) → file extensions.
const FILE_TYPES: &[(&str, &[&str])] = &[
    ("c", &["c", "h"]),
    ("cpp", &["cpp", "cc", "cxx", "hpp", "hh", "hxx", "h"]),
    ("cs", &["cs"]),
    ("csharp", &["cs"]),
    ("css", &["css", "scss", "sass", "less"]),
    ("go", &["go"]),
    ("html", &["html", "htm"]),
    ("java", &["java"]),
    ("js", &["js", "mjs", "cjs", "jsx"]),
    ("json", &["json"]),
    ("kotlin", &["kt", "kts"]),
    ("lua", &["lua"]),
    ("markdown", &["md", "markdown"]),
    ("md", &["md", "markdown"]),
    ("php", &["php"]),
    ("py", &["py", "pyi"]),
    ("python", &["py", "pyi"]),
    ("rb", &["rb"]),
    ("ruby", &["rb"]),
    ("rs", &["rs"]),
    ("rust", &["rs"]),
    ("scala", &["scala"]),
    ("sh", &["sh", "bash", "zsh"]),
    ("sql", &["sql"]),
    ("swift", &["swift"]),
    ("toml", &["toml"]),
    ("ts", &["ts", "tsx", "mts", "cts"]),
    ("typescript", &["ts", "tsx", "mts", "cts"]),
    ("yaml", &["yaml", "yml"]),
];

fn type_extensions(name: &str) -> Option<&'static [&'static str]> {
    FILE_TYPES.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
}

fn type_glob(name: &str) -> Option<String> {
    let exts = type_extensions(name)?;
    Some(match exts {
        [one] => format!("*.{one}"),
        many => format!("*.{{{}}}", many.join(",")),
    })
}

fn todo_write(a: &mut Args<'_>) -> Result<Value, ToolOutput> {
    let todos = a.required_array(&["todos"])?;
    let mut out = Vec::with_capacity(todos.len());
    for (i, item) in todos.iter().enumerate() {
        let Value::Object(map) = item else {
            return Err(a.invalid(&format!("`todos[{i}]` must be an object")));
        };
        let field = |name: &str| -> Result<String, ToolOutput> {
            match map.get(name) {
                Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
                _ => Err(a.invalid(&format!("`todos[{i}].{name}` must be a non-empty string"))),
            }
        };
        let content = field("content")?;
        let status = field("status")?;
        if !matches!(status.as_str(), "pending" | "in_progress" | "completed") {
            return Err(a.invalid(&format!(
                "`todos[{i}].status` must be pending, in_progress or completed; got {status:?}"
            )));
        }
        if let Some(key) = map.keys().find(|k| {
            !matches!(
                k.as_str(),
                "content" | "status" | "activeForm" | "priority" | "id"
            )
        }) {
            return Err(a.invalid(&format!("`todos[{i}]` has no field `{key}`")));
        }
        out.push(json!({"content": content, "status": status}));
    }
    Ok(json!({"todos": out}))
}

fn ask_user(a: &mut Args<'_>) -> Result<Value, ToolOutput> {
    let questions = a.required_array(&["questions"])?;
    a.accept(&["answers", "annotations", "metadata"]);
    if questions.is_empty() || questions.len() > 4 {
        return Err(a.invalid(&format!(
            "`questions` must hold 1 to 4 questions, got {}",
            questions.len()
        )));
    }
    let mut out = Vec::with_capacity(questions.len());
    for (i, q) in questions.iter().enumerate() {
        let Value::Object(q) = q else {
            return Err(a.invalid(&format!("`questions[{i}]` must be an object")));
        };
        let Some(Value::String(question)) = q
            .get("question")
            .filter(|v| v.as_str().is_some_and(|s| !s.trim().is_empty()))
        else {
            return Err(a.invalid(&format!(
                "`questions[{i}].question` must be a non-empty string"
            )));
        };
        let mut engine = json!({"question": question});
        if let Some(Value::String(header)) = q.get("header") {
            engine["header"] = header.clone().into();
        }
        if let Some(options) = q.get("options").filter(|v| !v.is_null()) {
            let Value::Array(options) = options else {
                return Err(a.invalid(&format!("`questions[{i}].options` must be an array")));
            };
            let mut mapped = Vec::with_capacity(options.len());
            for (j, o) in options.iter().enumerate() {
                let label = o
                    .get("label")
                    .and_then(Value::as_str)
                    .filter(|s| !s.trim().is_empty());
                let Some(label) = label else {
                    return Err(a.invalid(&format!(
                        "`questions[{i}].options[{j}].label` must be a non-empty string"
                    )));
                };
                let mut option = json!({"label": label});
                if let Some(d) = o.get("description").and_then(Value::as_str) {
                    option["description"] = d.into();
                }
                mapped.push(option);
            }
            engine["options"] = mapped.into();
        }
        match q.get("multiSelect").or_else(|| q.get("multi_select")) {
            None | Some(Value::Null) => {}
            Some(v) => match loose_bool(v) {
                Some(b) => engine["multi_select"] = b.into(),
                None => {
                    return Err(a.invalid(&format!(
                        "`questions[{i}].multiSelect` must be true or false"
                    )));
                }
            },
        }
        if let Some(key) = q.keys().find(|k| {
            !matches!(
                k.as_str(),
                "question" | "header" | "options" | "multiSelect" | "multi_select"
            )
        }) {
            return Err(a.invalid(&format!("`questions[{i}]` has no field `{key}`")));
        }
        out.push(engine);
    }
    Ok(json!({"questions": out}))
}

/// Reads a call's arguments field by field, remembering which keys were used so that
/// [`Args::finish`] can refuse the rest.
struct Args<'a> {
    tool: CliTool,
    map: &'a Map<String, Value>,
    used: Vec<&'a str>,
}

impl<'a> Args<'a> {
    fn new(tool: CliTool, map: &'a Map<String, Value>) -> Self {
        Args {
            tool,
            map,
            used: Vec::new(),
        }
    }

    fn invalid(&self, problem: &str) -> ToolOutput {
        ToolOutput::error(format!(
            "Invalid input for `{}`: {problem}. Fix the call and try again.",
            self.tool.name()
        ))
    }

    /// The value of the first of `names` that is present and not null; marks every alias
    /// as used.
    fn get(&mut self, names: &[&str]) -> Option<&'a Value> {
        let mut found = None;
        for name in names {
            if let Some((key, value)) = self.map.get_key_value(*name) {
                self.used.push(key.as_str());
                if found.is_none() && !value.is_null() {
                    found = Some(value);
                }
            }
        }
        found
    }

    /// Marks parameters as known without reading them.
    fn accept(&mut self, names: &[&str]) {
        for name in names {
            if let Some((key, _)) = self.map.get_key_value(*name) {
                self.used.push(key.as_str());
            }
        }
    }

    fn string(&mut self, names: &[&str]) -> Result<Option<String>, ToolOutput> {
        match self.get(names) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.invalid(&format!(
                "`{}` must be a string, got {}",
                names[0],
                kind(other)
            ))),
        }
    }

    fn required_string(&mut self, names: &[&str]) -> Result<String, ToolOutput> {
        self.string(names)?.ok_or_else(|| {
            self.invalid(&format!("the required parameter `{}` is missing", names[0]))
        })
    }

    fn required_array(&mut self, names: &[&str]) -> Result<&'a Vec<Value>, ToolOutput> {
        match self.get(names) {
            Some(Value::Array(items)) => Ok(items),
            None => Err(self.invalid(&format!("the required parameter `{}` is missing", names[0]))),
            Some(other) => Err(self.invalid(&format!(
                "`{}` must be an array, got {}",
                names[0],
                kind(other)
            ))),
        }
    }

    fn boolean(&mut self, names: &[&str]) -> Result<Option<bool>, ToolOutput> {
        match self.get(names) {
            None => Ok(None),
            Some(v) => loose_bool(v).map(Some).ok_or_else(|| {
                self.invalid(&format!(
                    "`{}` must be true or false, got {}",
                    names[0],
                    kind(v)
                ))
            }),
        }
    }

    fn number(&mut self, names: &[&str]) -> Result<Option<f64>, ToolOutput> {
        match self.get(names) {
            None => Ok(None),
            Some(v) => loose_number(v).map(Some).ok_or_else(|| {
                self.invalid(&format!("`{}` must be a number, got {}", names[0], kind(v)))
            }),
        }
    }

    /// A whole number of at least `min`.
    fn integer(&mut self, names: &[&str], min: u64) -> Result<Option<u64>, ToolOutput> {
        match self.number(names)? {
            None => Ok(None),
            Some(n) if n.fract() == 0.0 && n >= min as f64 && n <= u32::MAX as f64 => {
                Ok(Some(n as u64))
            }
            Some(n) => Err(self.invalid(&format!(
                "`{}` must be a whole number of at least {min}, got {n}",
                names[0]
            ))),
        }
    }

    fn finish(self) -> Result<(), ToolOutput> {
        match self.map.keys().find(|k| !self.used.contains(&k.as_str())) {
            None => Ok(()),
            Some(key) => Err(self.invalid(&format!(
                "there is no parameter `{key}`; remove it (see the tool's schema for the parameters it takes)"
            ))),
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn loose_bool(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

fn loose_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|n| n.is_finite()),
        _ => None,
    }
}

/// Re-words an engine validation message with the CLI's tool and field names.
fn rename_in_message(text: &str, tool: CliTool) -> String {
    let mut text = text.replace(
        &format!("`{}`", tool.engine()),
        &format!("`{}`", tool.name()),
    );
    for (engine, cli) in tool.renamed_params() {
        text = text.replace(&format!("`{engine}`"), &format!("`{cli}`"));
    }
    text
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GrepMode {
    Content,
    Files,
    Count,
}

/// How a `Grep` call wants its output, read back from its arguments.
struct GrepView {
    mode: GrepMode,
    line_numbers: bool,
    only_matching: Option<regex::Regex>,
    head_limit: Option<usize>,
    offset: usize,
    extensions: Option<&'static [&'static str]>,
}

/// One line of the engine's grep output.
enum GrepLine<'a> {
    Match {
        path: &'a str,
        line: &'a str,
        text: &'a str,
    },
    Context {
        path: &'a str,
        line: &'a str,
        text: &'a str,
    },
    Separator,
}

impl GrepView {
    fn from_args(args: &Value) -> Self {
        let get = |k: &str| args.get(k).filter(|v| !v.is_null());
        let flag = |k: &str| get(k).and_then(loose_bool);
        let count = |k: &str| {
            get(k)
                .and_then(loose_number)
                .filter(|n| *n >= 0.0 && n.fract() == 0.0)
                .map(|n| n as usize)
        };
        let mode = match get("output_mode").and_then(Value::as_str) {
            Some("content") => GrepMode::Content,
            Some("count") => GrepMode::Count,
            _ => GrepMode::Files,
        };
        let only_matching = match (flag("-o"), get("pattern").and_then(Value::as_str)) {
            (Some(true), Some(pattern)) => regex::RegexBuilder::new(pattern)
                .case_insensitive(flag("-i").unwrap_or(false))
                .build()
                .ok(),
            _ => None,
        };
        // A type given next to a glob filters the output (see `grep`).
        let extensions = match (get("glob"), get("type").and_then(Value::as_str)) {
            (Some(_), Some(t)) => type_extensions(t),
            _ => None,
        };
        GrepView {
            mode,
            line_numbers: flag("-n").unwrap_or(true),
            only_matching,
            head_limit: count("head_limit").filter(|n| *n > 0),
            offset: count("offset").unwrap_or(0),
            extensions,
        }
    }

    fn keeps(&self, path: &str) -> bool {
        self.extensions.is_none_or(|exts| {
            path.rsplit_once('.')
                .is_some_and(|(_, ext)| exts.contains(&ext))
        })
    }

    fn page<T>(&self, items: Vec<T>) -> (Vec<T>, bool) {
        let total = items.len();
        let taken: Vec<T> = items
            .into_iter()
            .skip(self.offset)
            .take(self.head_limit.unwrap_or(usize::MAX))
            .collect();
        let cut = self.offset + taken.len() < total;
        (taken, cut)
    }

    fn pagination_note(&self) -> String {
        format!(
            "\n[Showing a page of the results: head_limit {}, offset {}. Raise offset to see more.]",
            self.head_limit.unwrap_or(0),
            self.offset
        )
    }

    fn render(&self, engine: &str) -> String {
        let nothing = match self.mode {
            GrepMode::Files => "No files found",
            GrepMode::Content | GrepMode::Count => "No matches found",
        };
        if engine.starts_with("No matches") {
            return nothing.to_string();
        }
        let mut stopped_early = false;
        let mut lines = Vec::new();
        for raw in engine.lines() {
            if raw.starts_with("[stopped at") {
                stopped_early = true;
            } else if raw.starts_with('[') && raw.ends_with(']') {
                // The engine's summary line; each mode writes its own.
            } else if let Some(line) = parse_grep_line(raw) {
                lines.push(line);
            }
        }
        let mut out = match self.mode {
            GrepMode::Files => self.files(&lines),
            GrepMode::Count => self.counts(&lines),
            GrepMode::Content => self.content(&lines),
        };
        if out.is_empty() {
            return nothing.to_string();
        }
        if stopped_early {
            out.push_str(
                "\n[The search stopped early at its line limit; narrow the pattern, path or glob to see everything.]",
            );
        }
        out
    }

    fn files(&self, lines: &[GrepLine<'_>]) -> String {
        let mut paths: Vec<&str> = Vec::new();
        for line in lines {
            if let GrepLine::Match { path, .. } = line
                && self.keeps(path)
                && !paths.contains(path)
            {
                paths.push(path);
            }
        }
        if paths.is_empty() {
            return String::new();
        }
        let total = paths.len();
        let (paths, cut) = self.page(paths);
        let mut out = format!("Found {total} file{}\n{}", plural(total), paths.join("\n"));
        if cut {
            out.push_str(&self.pagination_note());
        }
        out
    }

    fn counts(&self, lines: &[GrepLine<'_>]) -> String {
        let mut order: Vec<&str> = Vec::new();
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for line in lines {
            if let GrepLine::Match { path, .. } = line {
                if !self.keeps(path) {
                    continue;
                }
                let n = counts.entry(path).or_insert(0);
                if *n == 0 {
                    order.push(path);
                }
                *n += 1;
            }
        }
        if order.is_empty() {
            return String::new();
        }
        let total: usize = counts.values().sum();
        let files = order.len();
        let (order, cut) = self.page(order);
        let mut out = String::new();
        for path in order {
            let _ = writeln!(out, "{path}:{}", counts.get(path).copied().unwrap_or(0));
        }
        let _ = write!(
            out,
            "\nFound {total} total occurrence{} across {files} file{}.",
            plural(total),
            plural(files)
        );
        if cut {
            out.push_str(&self.pagination_note());
        }
        out
    }

    fn content(&self, lines: &[GrepLine<'_>]) -> String {
        let mut rows: Vec<String> = Vec::new();
        for line in lines {
            match line {
                GrepLine::Separator if rows.last().is_some_and(|r| r != "--") => {
                    rows.push("--".to_string());
                }
                GrepLine::Match { path, line, text } if self.keeps(path) => {
                    match &self.only_matching {
                        Some(re) => {
                            for m in re.find_iter(text) {
                                rows.push(self.row(path, line, ':', m.as_str()));
                            }
                        }
                        None => rows.push(self.row(path, line, ':', text)),
                    }
                }
                GrepLine::Context { path, line, text }
                    if self.keeps(path) && self.only_matching.is_none() =>
                {
                    rows.push(self.row(path, line, '-', text));
                }
                _ => {}
            }
        }
        while rows.last().is_some_and(|r| r == "--") {
            rows.pop();
        }
        let (rows, cut) = self.page(rows);
        let mut out = rows.join("\n");
        if cut && !out.is_empty() {
            out.push_str(&self.pagination_note());
        }
        out
    }

    fn row(&self, path: &str, line: &str, sep: char, text: &str) -> String {
        if self.line_numbers {
            format!("{path}{sep}{line}{sep}{text}")
        } else {
            format!("{path}{sep}{text}")
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Parses `path:12:text` (a match), `path-12-text` (context) or `--`.
fn parse_grep_line(raw: &str) -> Option<GrepLine<'_>> {
    if raw == "--" {
        return Some(GrepLine::Separator);
    }
    for sep in [':', '-'] {
        let mut start = 0;
        while let Some(i) = raw[start..].find(sep).map(|i| i + start) {
            let rest = &raw[i + 1..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if i > 0 && digits > 0 && rest[digits..].starts_with(sep) {
                let (path, line, text) = (&raw[..i], &rest[..digits], &rest[digits + 1..]);
                return Some(if sep == ':' {
                    GrepLine::Match { path, line, text }
                } else {
                    GrepLine::Context { path, line, text }
                });
            }
            start = i + 1;
        }
    }
    None
}

/// `The user answered your questions: "Q"="A", …` from the engine's
/// `The user answered:\n- Q: A` text, in the questions' order. `None` when a question cannot
/// be found in the text (the engine's wording changed), leaving the text as it is.
fn answers_line(args: &Value, engine: &str) -> Option<String> {
    let questions = args.get("questions")?.as_array()?;
    let mut pairs = Vec::with_capacity(questions.len());
    for q in questions {
        let question = q.get("question")?.as_str()?;
        let prefix = format!("- {question}: ");
        let answer = engine
            .lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))?;
        pairs.push(format!("\"{question}\"=\"{answer}\""));
    }
    Some(format!(
        "The user answered your questions: {}. Continue with these answers in mind.",
        pairs.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::FunctionCallItem;

    const ALL: Binder = Binder {
        dialect: Dialect::ClaudeCode,
        tools: &CliTool::ALL,
    };

    fn call(name: &str, args: Value) -> Item {
        Item::FunctionCall(FunctionCallItem {
            id: "fc".into(),
            call_id: "toolu_01".into(),
            name: name.into(),
            namespace: None,
            arguments: args.to_string(),
        })
    }

    fn bound(name: &str, args: Value) -> (String, Value) {
        match ALL.bind(&call(name, args)) {
            Ok(BoundCall {
                tool,
                input: ToolInput::Json(v),
            }) => (tool, v),
            Ok(other) => panic!("unexpected {other:?}"),
            Err(e) => panic!("bind failed: {}", e.text),
        }
    }

    fn bind_error(name: &str, args: Value) -> String {
        match ALL.bind(&call(name, args)) {
            Ok(b) => panic!("expected an error, got {b:?}"),
            Err(e) => {
                assert_eq!(e.status, ToolStatus::Failed);
                e.text
            }
        }
    }

    #[test]
    fn bash_maps_timeout_and_drops_description() {
        let (tool, args) = bound(
            "Bash",
            json!({"command": "ls", "timeout": 1500.5, "description": "list", "dangerouslyDisableSandbox": true}),
        );
        assert_eq!(tool, "shell");
        assert_eq!(args, json!({"command": "ls", "timeout_ms": 1501}));
        let (_, args) = bound("bash", json!({"command": "sleep 1", "timeout": 9_000_000}));
        assert_eq!(args["timeout_ms"], json!(600_000));
        let err = bind_error("Bash", json!({"command": "ls", "timeout": -1}));
        assert!(err.contains("`Bash`") && err.contains("`timeout`"), "{err}");
    }

    #[test]
    fn background_bash_writes_its_output_outside_the_workspace() {
        let (_, args) = bound(
            "Bash",
            json!({"command": "sleep 5 # wait", "run_in_background": true}),
        );
        let command = args["command"].as_str().unwrap_or_default();
        let temp = std::env::temp_dir()
            .join("tack-background")
            .display()
            .to_string();
        assert!(command.contains(&temp), "{command}");
        assert!(command.contains("\nsleep 5 # wait\n) > "), "{command}");
        assert!(command.contains("toolu_01.log"), "{command}");
    }

    #[test]
    fn read_offset_follows_the_cli() {
        let (tool, args) = bound("Read", json!({"file_path": "/a", "offset": 0, "limit": 10}));
        assert_eq!(tool, "read_file");
        assert_eq!(args, json!({"path": "/a", "limit": 10}));
        let (_, args) = bound(
            "Read",
            json!({"filePath": "/a", "line_offset": "40", "n_lines": 5}),
        );
        assert_eq!(args, json!({"path": "/a", "offset": 40, "limit": 5}));
        let err = bind_error("Read", json!({"file_path": "/a", "pages": "1-3"}));
        assert!(err.contains("`pages`"), "{err}");
        let err = bind_error("Read", json!({"file_path": "/a", "offset": -2}));
        assert!(err.contains("`offset`"), "{err}");
        let err = bind_error("Read", json!({}));
        assert!(err.contains("`file_path` is missing"), "{err}");
    }

    #[test]
    fn unknown_parameters_and_tools_are_named() {
        let err = bind_error(
            "Write",
            json!({"file_path": "a", "content": "x", "mode": 420}),
        );
        assert!(err.contains("no parameter `mode`"), "{err}");
        let err = bind_error("WebFetch", json!({"url": "https://x"}));
        assert!(err.contains("`WebFetch`") && err.contains("Bash"), "{err}");
        let bare = Binder {
            dialect: Dialect::ClaudeCode,
            tools: &[CliTool::Bash, CliTool::Edit, CliTool::Read],
        };
        assert!(
            bare.bind(&call("Write", json!({"file_path": "a", "content": ""})))
                .is_err()
        );
    }

    #[test]
    fn edit_aliases() {
        let (tool, args) = bound(
            "Edit",
            json!({"path": "f", "oldString": "a", "newText": "b", "replaceAll": "true"}),
        );
        assert_eq!(tool, "edit");
        assert_eq!(
            args,
            json!({"path": "f", "old_string": "a", "new_string": "b", "replace_all": true})
        );
    }

    #[test]
    fn grep_maps_flags() {
        let (tool, args) = bound(
            "Grep",
            json!({"pattern": "fn", "-i": true, "-A": 2, "-C": 1, "output_mode": "content", "head_limit": 5, "offset": 5, "type": "rust"}),
        );
        assert_eq!(tool, "grep");
        assert_eq!(
            args,
            json!({"pattern": "fn", "glob": "*.rs", "case_insensitive": true, "context": 2, "max_results": 10})
        );
        let (_, args) = bound(
            "Grep",
            json!({"pattern": "x", "glob": "*.md", "type": "py"}),
        );
        assert_eq!(
            args,
            json!({"pattern": "x", "glob": "*.md", "max_results": 5000})
        );
        assert!(
            bind_error("Grep", json!({"pattern": "x", "multiline": true})).contains("`multiline`")
        );
        assert!(
            bind_error("Grep", json!({"pattern": "x", "type": "cobol"})).contains("known types")
        );
        assert!(
            bind_error("Grep", json!({"pattern": "x", "output_mode": "lines"}))
                .contains("`output_mode`")
        );
    }

    #[test]
    fn todo_and_question_mapping() {
        let (tool, args) = bound(
            "TodoWrite",
            json!({"todos": [{"content": "a", "status": "in_progress", "activeForm": "Doing a"}]}),
        );
        assert_eq!(tool, "todo_write");
        assert_eq!(
            args,
            json!({"todos": [{"content": "a", "status": "in_progress"}]})
        );
        assert!(
            bind_error(
                "TodoWrite",
                json!({"todos": [{"content": "a", "status": "doing"}]})
            )
            .contains("todos[0].status")
        );
        let (tool, args) = bound(
            "AskUserQuestion",
            json!({"questions": [{"question": "Which?", "header": "Pick", "multiSelect": false,
                "options": [{"label": "A", "description": "first", "preview": "x"}, {"label": "B"}]}],
                "answers": {}}),
        );
        assert_eq!(tool, "ask_user");
        assert_eq!(
            args,
            json!({"questions": [{"question": "Which?", "header": "Pick",
                "options": [{"label": "A", "description": "first"}, {"label": "B"}], "multi_select": false}]})
        );
    }

    #[test]
    fn empty_bash_output_per_dialect() {
        let c = call("Bash", json!({"command": "true"}));
        assert_eq!(
            ALL.adapt(&c, ToolOutput::ok("")).text,
            "(Bash completed with no output)"
        );
        let z = Binder {
            dialect: Dialect::ZCode,
            ..ALL
        };
        assert_eq!(
            z.adapt(&c, ToolOutput::ok(" \n")).text,
            "Command executed successfully."
        );
        assert_eq!(ALL.adapt(&c, ToolOutput::ok("hi\n")).text, "hi\n");
    }

    #[test]
    fn every_empty_result_gets_the_cli_placeholder() {
        // Its own tools, an MCP tool, a failed call: never an empty text.
        for (name, args) in [
            ("Write", json!({"file_path": "a", "content": ""})),
            ("Read", json!({"file_path": "a"})),
            ("mcp__github__list", json!({})),
        ] {
            let c = call(name, args);
            for output in [ToolOutput::ok(""), ToolOutput::ok("\n  ")] {
                assert_eq!(
                    ALL.adapt(&c, output).text,
                    format!("({name} completed with no output)")
                );
            }
        }
    }

    const ENGINE_GREP: &str = "src/a.rs:3:fn main() {\nsrc/a.rs-4-    let x = 1;\n--\nsrc/b-2.rs:10:fn other() {}\nREADME.md:1:fn in docs\n[3 matching lines in 3 files]\n";

    fn grep_view(args: Value) -> String {
        let c = call("Grep", args);
        ALL.adapt(&c, ToolOutput::ok(ENGINE_GREP)).text
    }

    #[test]
    fn grep_output_modes() {
        assert_eq!(
            grep_view(json!({"pattern": "fn"})),
            "Found 3 files\nsrc/a.rs\nsrc/b-2.rs\nREADME.md"
        );
        assert_eq!(
            grep_view(
                json!({"pattern": "fn", "output_mode": "count", "glob": "*", "type": "rust"})
            ),
            "src/a.rs:1\nsrc/b-2.rs:1\n\nFound 2 total occurrences across 2 files."
        );
        assert_eq!(
            grep_view(json!({"pattern": "fn", "output_mode": "content", "-n": false})),
            "src/a.rs:fn main() {\nsrc/a.rs-    let x = 1;\n--\nsrc/b-2.rs:fn other() {}\nREADME.md:fn in docs"
        );
        assert_eq!(
            grep_view(
                json!({"pattern": "fn \\w+", "output_mode": "content", "-o": true, "head_limit": 1})
            ),
            "src/a.rs:3:fn main\n[Showing a page of the results: head_limit 1, offset 0. Raise offset to see more.]"
        );
        let c = call("Grep", json!({"pattern": "zzz"}));
        assert_eq!(
            ALL.adapt(&c, ToolOutput::ok("No matches under the workspace."))
                .text,
            "No files found"
        );
    }

    #[test]
    fn engine_messages_use_cli_names() {
        let c = call("Read", json!({"file_path": "a"}));
        let out = ALL.adapt(
            &c,
            ToolOutput::error("Invalid arguments for `read_file`:\n- `path`: must not be empty"),
        );
        assert_eq!(
            out.text,
            "Invalid arguments for `Read`:\n- `file_path`: must not be empty"
        );
    }

    #[test]
    fn question_answers_line() {
        let c = call(
            "AskUserQuestion",
            json!({"questions": [{"question": "Which db?"}, {"question": "Port: which?"}]}),
        );
        let out = ALL.adapt(
            &c,
            ToolOutput::ok("The user answered:\n- Which db?: Postgres\n- Port: which?: 5432, 5433"),
        );
        assert_eq!(
            out.text,
            "The user answered your questions: \"Which db?\"=\"Postgres\", \"Port: which?\"=\"5432, 5433\". Continue with these answers in mind."
        );
    }
}
