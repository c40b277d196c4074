//! Plumbing shared by the chat-native harnesses (qwen-code, kimi-cli, kimi-code, opencode,
//! deepseek-tui) to bind their CLIs' tool calls to the engine's tools and to present the
//! engine's results the way each CLI's tools print them.
//!
//! - [`Args`] reads a call's arguments with the leniency the real CLIs have (pydantic and zod
//!   coerce `"5"` to `5`; unknown fields are ignored) and reports a bad argument with a
//!   model-readable message naming the *CLI's* tool and field, never the engine's (the engine
//!   validates `{command, timeout_ms}`, the model wrote `{command, timeout}`).
//! - [`ShellRun`] splits an engine `shell` result into the command's output and how it ended,
//!   so each harness can print its CLI's framing (`Exit Code: 1`, `<system>ERROR: …`, …).
//! - [`background_command`] gives the CLIs' "run in background" flags a real meaning on an
//!   engine that waits for its commands: the command is detached with its output in a temp
//!   file outside the workspace (no workspace pollution), and the call returns at once.
//! - Engine output parsers for `read_file` and `grep` let a harness re-format those results.

// Binding answers a bad call with a model-readable `ToolOutput` (the `Harness::bind_call`
// contract); it is a cold path, so the error's size does not matter.
#![allow(clippy::result_large_err)]

use serde_json::{Map, Value, json};
use tack_protocol::{FunctionCallItem, Item, ToolInput, ToolOutput, ToolSpec, ToolStatus};

use crate::{BoundCall, parse_arguments, shell_command_text};

/// A CLI tool call's arguments, read field by field.
pub(crate) struct Args<'a> {
    tool: &'a str,
    map: Map<String, Value>,
}

impl<'a> Args<'a> {
    /// Parses a function call's arguments.
    ///
    /// # Errors
    /// A failed output (from [`parse_arguments`]) when the text is not a JSON object.
    pub(crate) fn of(call: &'a FunctionCallItem) -> Result<Self, ToolOutput> {
        let map = match parse_arguments(&call.name, &call.arguments)? {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Ok(Args {
            tool: &call.name,
            map,
        })
    }

    /// Arguments given as a map (tests, synthetic calls).
    #[cfg(test)]
    pub(crate) fn from_map(tool: &'a str, map: Map<String, Value>) -> Self {
        Args { tool, map }
    }

    /// A failed output saying what is wrong with `field`.
    pub(crate) fn invalid(&self, field: &str, problem: &str) -> ToolOutput {
        ToolOutput::error(format!(
            "Invalid arguments for `{}`: `{field}` {problem}. Call the tool again with corrected arguments.",
            self.tool
        ))
    }

    /// A field's raw value (`null` counts as absent, as in the CLIs' schemas).
    pub(crate) fn value(&self, field: &str) -> Option<&Value> {
        self.map.get(field).filter(|v| !v.is_null())
    }

    /// An optional string.
    ///
    /// # Errors
    /// When the field holds something other than a string.
    pub(crate) fn string(&self, field: &str) -> Result<Option<String>, ToolOutput> {
        match self.value(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => {
                Err(self.invalid(field, &format!("must be a string, got {}", kind(other))))
            }
        }
    }

    /// A required string (may be empty).
    ///
    /// # Errors
    /// When the field is missing or not a string.
    pub(crate) fn required_string(&self, field: &str) -> Result<String, ToolOutput> {
        self.string(field)?
            .ok_or_else(|| self.invalid(field, "is required"))
    }

    /// A required, non-empty string.
    ///
    /// # Errors
    /// When the field is missing, empty or not a string.
    pub(crate) fn nonempty_string(&self, field: &str) -> Result<String, ToolOutput> {
        let s = self.required_string(field)?;
        if s.trim().is_empty() {
            return Err(self.invalid(field, "must not be empty"));
        }
        Ok(s)
    }

    /// An optional boolean (`"true"`/`"false"` strings accepted).
    ///
    /// # Errors
    /// When the field holds something else.
    pub(crate) fn boolean(&self, field: &str) -> Result<Option<bool>, ToolOutput> {
        match self.value(field) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(Some(true)),
            Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(Some(false)),
            Some(other) => {
                Err(self.invalid(field, &format!("must be a boolean, got {}", kind(other))))
            }
        }
    }

    /// An optional whole number `>= min` (integral floats and numeric strings accepted).
    ///
    /// # Errors
    /// When the field is not a whole number or is below `min`.
    pub(crate) fn integer(&self, field: &str, min: u64) -> Result<Option<u64>, ToolOutput> {
        let Some(v) = self.value(field) else {
            return Ok(None);
        };
        let n = match v {
            Value::Number(n) => n.as_u64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64)
                    .map(|f| f as u64)
            }),
            Value::String(s) => s.trim().parse::<u64>().ok(),
            _ => None,
        };
        match n {
            Some(n) if n >= min => Ok(Some(n)),
            Some(_) => Err(self.invalid(field, &format!("must be at least {min}"))),
            None => Err(self.invalid(
                field,
                &format!("must be a whole number, got {}", describe(v)),
            )),
        }
    }

    /// An optional number (ints, floats and numeric strings).
    ///
    /// # Errors
    /// When the field is not a number.
    pub(crate) fn number(&self, field: &str) -> Result<Option<f64>, ToolOutput> {
        match self.value(field) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(Value::String(s)) => s.trim().parse::<f64>().map(Some).map_err(|_| {
                self.invalid(
                    field,
                    &format!(
                        "must be a number, got {}",
                        describe(&Value::String(s.clone()))
                    ),
                )
            }),
            Some(other) => {
                Err(self.invalid(field, &format!("must be a number, got {}", kind(other))))
            }
        }
    }

    /// An optional array.
    ///
    /// # Errors
    /// When the field holds something other than an array.
    pub(crate) fn array(&self, field: &str) -> Result<Option<&Vec<Value>>, ToolOutput> {
        match self.value(field) {
            None => Ok(None),
            Some(Value::Array(items)) => Ok(Some(items)),
            Some(other) => {
                Err(self.invalid(field, &format!("must be an array, got {}", kind(other))))
            }
        }
    }

    /// Rejects a flag the CLI has but Tack cannot honour, when it is set to a truthy value.
    ///
    /// # Errors
    /// When `field` is `true` (or a non-empty string/array): says why and what to do instead.
    pub(crate) fn unsupported_flag(&self, field: &str, why: &str) -> Result<(), ToolOutput> {
        let set = match self.value(field) {
            None | Some(Value::Bool(false)) => false,
            Some(Value::String(s)) => !s.is_empty() && s != "false",
            Some(Value::Array(a)) => !a.is_empty(),
            Some(_) => true,
        };
        if set {
            return Err(self.invalid(field, &format!("is not supported here: {why}")));
        }
        Ok(())
    }
}

/// JSON type name for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        Value::Number(n) => n.to_string(),
        other => kind(other).to_string(),
    }
}

/// A bound call to the engine tool `tool` with JSON input.
pub(crate) fn bound(tool: &str, input: Value) -> BoundCall {
    BoundCall {
        tool: tool.to_string(),
        input: ToolInput::Json(input),
    }
}

/// Engine `shell` input (`{command, workdir?, timeout_ms?}`).
pub(crate) fn shell(
    command: String,
    workdir: Option<String>,
    timeout_ms: Option<u64>,
) -> BoundCall {
    let mut input = Map::new();
    input.insert("command".into(), Value::String(command));
    if let Some(dir) = workdir.filter(|d| !d.is_empty()) {
        input.insert("workdir".into(), Value::String(dir));
    }
    if let Some(ms) = timeout_ms {
        input.insert("timeout_ms".into(), Value::from(ms.max(1)));
    }
    bound("shell", Value::Object(input))
}

/// Engine `read_file` input; `offset` is 1-based.
pub(crate) fn read_file(path: String, offset: Option<u64>, limit: Option<u64>) -> BoundCall {
    let mut input = Map::new();
    input.insert("path".into(), Value::String(path));
    if let Some(o) = offset {
        input.insert("offset".into(), Value::from(o.max(1)));
    }
    if let Some(l) = limit {
        input.insert("limit".into(), Value::from(l.max(1)));
    }
    bound("read_file", Value::Object(input))
}

/// Engine `edit` input.
pub(crate) fn edit(path: String, old: String, new: String, replace_all: bool) -> BoundCall {
    let mut input = json!({"path": path, "old_string": old, "new_string": new});
    if replace_all {
        input["replace_all"] = Value::Bool(true);
    }
    bound("edit", input)
}

/// Engine `write_file` input.
pub(crate) fn write_file(path: String, content: String) -> BoundCall {
    bound("write_file", json!({"path": path, "content": content}))
}

/// Binds a call that came back as a local shell call (a text-protocol harness recorded it,
/// then the session switched harness): always the engine's shell.
pub(crate) fn local_shell(call: &Item) -> Option<BoundCall> {
    match call {
        Item::LocalShellCall(c) => Some(shell(
            shell_command_text(&c.command),
            c.workdir.clone(),
            c.timeout_ms.map(u64::from),
        )),
        _ => None,
    }
}

/// A command line that starts `command` detached from the call: its output goes to a file in
/// the system temp folder (never the workspace), and the call prints the process id and that
/// file's path at once. This is how Tack honours the CLIs' `run_in_background` /
/// `is_background` / `background` flags: the engine's shell returns when the shell exits, and a
/// detached process whose output does not hold the pipe keeps running.
pub(crate) fn background_command(command: &str, call_id: &str) -> String {
    let id: String = call_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(48)
        .collect();
    let id = if id.is_empty() {
        "call".to_string()
    } else {
        id
    };
    format!(
        "log=\"${{TMPDIR:-/tmp}}/tack-bg-{id}.log\"\nnohup bash -c {} > \"$log\" 2>&1 < /dev/null &\necho \"Started in the background as pid $! (output: $log)\"",
        quote(command)
    )
}

/// Single-quotes a string for bash.
pub(crate) fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// How an engine `shell` run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ShellEnd {
    /// Exited with this code.
    Exit(i32),
    /// Killed by this signal.
    Signal(i32),
    /// Stopped at its time limit (milliseconds).
    TimedOut(u64),
    /// Interrupted by the user.
    Aborted,
    /// Never ran: the call was denied, invalid, or the shell could not start. The text says why.
    NotRun,
}

/// An engine `shell` result split into the command's output and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShellRun {
    /// Combined stdout/stderr as the command printed it (notes about output handling, such as
    /// the middle of long output being cut, stay in).
    pub(crate) output: String,
    /// How it ended.
    pub(crate) end: ShellEnd,
}

impl ShellRun {
    /// Reads an engine `shell` output (see `crates/engine/src/tools/shell.rs`: the exit, signal,
    /// timeout and abort notes are appended as the last lines, in brackets).
    pub(crate) fn of(output: &ToolOutput) -> ShellRun {
        if output.duration_ms.is_none() {
            return ShellRun {
                output: output.text.clone(),
                end: ShellEnd::NotRun,
            };
        }
        let mut text = output.text.as_str();
        let mut end = match (output.status, output.exit_code) {
            (ToolStatus::Completed, _) => ShellEnd::Exit(0),
            (ToolStatus::TimedOut, _) => ShellEnd::TimedOut(0),
            (ToolStatus::Aborted, _) => ShellEnd::Aborted,
            (_, Some(code)) if code > 128 => ShellEnd::Signal(code - 128),
            (_, Some(code)) => ShellEnd::Exit(code),
            (_, None) => ShellEnd::Exit(1),
        };
        // Strip the engine's trailing status notes; keep everything else.
        loop {
            let trimmed = text.trim_end_matches('\n');
            let (head, last) = match trimmed.rfind('\n') {
                Some(i) => (&trimmed[..=i], &trimmed[i + 1..]),
                None => ("", trimmed),
            };
            let note = last.strip_prefix('[').and_then(|l| l.strip_suffix(']'));
            let Some(note) = note else { break };
            if let Some(code) = note.strip_prefix("exit code ") {
                if let Ok(code) = code.parse::<i32>()
                    && !matches!(end, ShellEnd::Signal(_))
                {
                    end = ShellEnd::Exit(code);
                }
            } else if let Some(sig) = note.strip_prefix("killed by signal ") {
                if let Ok(sig) = sig.parse::<i32>() {
                    end = ShellEnd::Signal(sig);
                }
            } else if let Some(rest) = note.strip_prefix("timed out after ") {
                let ms = rest.split(' ').next().and_then(|n| n.parse::<u64>().ok());
                end = ShellEnd::TimedOut(ms.unwrap_or(0));
            } else if note == "aborted by user" {
                end = ShellEnd::Aborted;
            } else {
                break;
            }
            text = head;
        }
        ShellRun {
            output: text.to_string(),
            end,
        }
    }
}

/// One line of an engine `read_file` result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReadLine {
    /// 1-based line number.
    pub(crate) number: u64,
    /// The line's text (without the newline).
    pub(crate) text: String,
}

/// An engine `read_file` result split into numbered lines and the trailing "more lines" note.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ReadResult {
    /// The lines shown.
    pub(crate) lines: Vec<ReadLine>,
    /// How many lines follow the ones shown (0 when the end was reached).
    pub(crate) more: u64,
}

impl ReadResult {
    /// Parses the engine's `{number:>6}\t{text}` lines (see
    /// `crates/engine/src/tools/read_file.rs`). `None` when the text is not in that shape (an
    /// empty file, an error).
    pub(crate) fn parse(text: &str) -> Option<ReadResult> {
        let mut result = ReadResult::default();
        for line in text.lines() {
            if let Some((num, rest)) = line.split_once('\t')
                && let Ok(number) = num.trim_start().parse::<u64>()
            {
                result.lines.push(ReadLine {
                    number,
                    text: rest.to_string(),
                });
                continue;
            }
            if let Some(rest) = line.strip_prefix("… ")
                && let Some(n) = rest.split(' ').next().and_then(|n| n.parse::<u64>().ok())
            {
                result.more = n;
                continue;
            }
            return None;
        }
        (!result.lines.is_empty()).then_some(result)
    }

    /// The lines' text joined with newlines (no numbers).
    pub(crate) fn plain(&self) -> String {
        let mut out = String::new();
        for line in &self.lines {
            out.push_str(&line.text);
            out.push('\n');
        }
        out
    }
}

/// One match line of an engine `grep` result (`path:line:text`; context lines use `-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GrepLine {
    /// Path as the engine showed it.
    pub(crate) path: String,
    /// 1-based line number.
    pub(crate) number: u64,
    /// Whether this is a match (else a context line).
    pub(crate) is_match: bool,
    /// The line's text.
    pub(crate) text: String,
}

/// Parses an engine `grep` result into lines; the `--` group separators and the trailing
/// summary in brackets are dropped. `None` for "No matches" and errors.
pub(crate) fn parse_grep(text: &str) -> Option<Vec<GrepLine>> {
    if text.starts_with("No matches") {
        return None;
    }
    let mut lines = Vec::new();
    for raw in text.lines() {
        if raw == "--" || (raw.starts_with('[') && raw.ends_with(']')) {
            continue;
        }
        if let Some(line) = parse_grep_line(raw) {
            lines.push(line);
        }
    }
    Some(lines)
}

fn parse_grep_line(raw: &str) -> Option<GrepLine> {
    // The separator after the path is `:` (match) or `-` (context), followed by digits and the
    // same separator. Paths may contain either character, so look for `<sep><digits><sep>`.
    let bytes = raw.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b':' && b != b'-' {
            continue;
        }
        let digits_end = bytes[i + 1..]
            .iter()
            .position(|c| !c.is_ascii_digit())
            .map(|p| i + 1 + p)?;
        if digits_end == i + 1 || bytes[digits_end] != b {
            continue;
        }
        let number = raw[i + 1..digits_end].parse().ok()?;
        return Some(GrepLine {
            path: raw[..i].to_string(),
            number,
            is_match: b == b':',
            text: raw[digits_end + 1..].to_string(),
        });
    }
    None
}

/// Maps a ripgrep `--type` name onto a glob (the common ones the CLIs' models use).
pub(crate) fn type_glob(name: &str) -> Option<&'static str> {
    Some(match name {
        "py" | "python" => "*.{py,pyi}",
        "rust" | "rs" => "*.rs",
        "js" | "javascript" => "*.{js,jsx,mjs,cjs}",
        "ts" | "typescript" => "*.{ts,tsx,mts,cts}",
        "go" => "*.go",
        "java" => "*.java",
        "c" => "*.{c,h}",
        "cpp" | "c++" => "*.{cpp,cc,cxx,hpp,hh,hxx,h}",
        "cs" | "csharp" => "*.cs",
        "rb" | "ruby" => "*.rb",
        "php" => "*.php",
        "swift" => "*.swift",
        "kotlin" | "kt" => "*.{kt,kts}",
        "scala" => "*.scala",
        "sh" | "bash" => "*.{sh,bash}",
        "md" | "markdown" => "*.{md,markdown}",
        "json" => "*.json",
        "yaml" | "yml" => "*.{yaml,yml}",
        "toml" => "*.toml",
        "html" => "*.{html,htm}",
        "css" => "*.{css,scss,sass,less}",
        "sql" => "*.sql",
        "lua" => "*.lua",
        "vue" => "*.vue",
        _ => return None,
    })
}

/// One tool of a CLI's surface: its definition as the model sees it and the engine tool that
/// carries it out. Each harness keeps its surface as data (one function building the list), so
/// an override layer can replace descriptions or schemas without touching the binding.
pub(crate) struct CliTool {
    /// The definition advertised to the model.
    pub(crate) spec: ToolSpec,
    /// The engine tool calls to it are bound to.
    pub(crate) engine: &'static str,
}

impl CliTool {
    /// A function tool `name` carried out by the engine tool `engine`.
    pub(crate) fn new(
        name: &str,
        engine: &'static str,
        description: &str,
        parameters: Value,
    ) -> Self {
        CliTool {
            spec: ToolSpec::function(name, description, parameters),
            engine,
        }
    }
}

/// The tools to advertise: those of `table` whose engine tool is available in this step (a
/// tool the engine cannot run is never advertised, unlike the anchor's deepseek-tui tool list,
/// openinterpreter 0.0.40 `tools/src/deepseek_tui_tools.json`).
pub(crate) fn advertise(table: Vec<CliTool>, engine: &[ToolSpec]) -> Vec<ToolSpec> {
    table
        .into_iter()
        .filter(|t| engine.iter().any(|e| e.name == t.engine))
        .map(|t| t.spec)
        .collect()
}

/// The answer to a call of a tool the CLI does not have.
pub(crate) fn unknown_tool(name: &str, table: &[CliTool]) -> ToolOutput {
    let names: Vec<&str> = table.iter().map(|t| t.spec.name.as_str()).collect();
    ToolOutput::error(format!(
        "Unknown tool `{name}`. Available tools: {}.",
        names.join(", ")
    ))
}

/// Text of the developer messages in history, blank-line separated (the kimi and qwen CLIs put
/// it into the system prompt rather than the conversation).
pub(crate) fn developer_text(history: &[Item]) -> Option<String> {
    let texts: Vec<String> = history
        .iter()
        .filter_map(|item| match item {
            Item::Message(m) if m.role == tack_protocol::Role::Developer => Some(m.text()),
            _ => None,
        })
        .filter(|t| !t.trim().is_empty())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// The session's instructions plus developer text from history (either may be absent).
pub(crate) fn instructions(prompt: &tack_protocol::Prompt) -> Option<String> {
    let parts: Vec<String> = prompt
        .instructions
        .iter()
        .cloned()
        .chain(developer_text(&prompt.history))
        .filter(|s| !s.trim().is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// Project docs (AGENTS.md, root first) joined the kimi way: each under a
/// `<!-- From: path -->` line, separated by a blank line. The engine already applied kimi's
/// 32 KiB budget, filled from the workspace upwards (`crates/engine/src/context.rs`).
pub(crate) fn agents_md(docs: &[tack_protocol::ProjectDoc]) -> String {
    docs.iter()
        .map(|d| format!("<!-- From: {} -->\n{}", d.path, d.content))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// ripgrep-style output modes over the engine's `grep` lines (kimi's `Grep`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GrepMode {
    /// Matching lines.
    Content,
    /// Paths of files with matches.
    Files,
    /// `path:count` per file.
    Count,
}

impl GrepMode {
    /// Parses an `output_mode` value.
    pub(crate) fn parse(s: &str) -> Option<GrepMode> {
        match s {
            "content" => Some(GrepMode::Content),
            "files_with_matches" => Some(GrepMode::Files),
            "count_matches" | "count" => Some(GrepMode::Count),
            _ => None,
        }
    }
}

/// Renders grep lines in `mode`; `offset` entries are skipped and at most `head_limit` kept.
/// Returns the text and whether `head_limit` cut it.
pub(crate) fn grep_output(
    lines: &[GrepLine],
    mode: GrepMode,
    line_numbers: bool,
    offset: usize,
    head_limit: Option<usize>,
) -> (String, bool) {
    let mut rows: Vec<String> = Vec::new();
    match mode {
        GrepMode::Content => {
            for l in lines {
                let sep = if l.is_match { ':' } else { '-' };
                rows.push(if line_numbers {
                    format!("{}{sep}{}{sep}{}", l.path, l.number, l.text)
                } else {
                    format!("{}{sep}{}", l.path, l.text)
                });
            }
        }
        GrepMode::Files => {
            for l in lines.iter().filter(|l| l.is_match) {
                if !rows.contains(&l.path) {
                    rows.push(l.path.clone());
                }
            }
        }
        GrepMode::Count => {
            let mut counts: Vec<(String, usize)> = Vec::new();
            for l in lines.iter().filter(|l| l.is_match) {
                match counts.iter_mut().find(|(p, _)| *p == l.path) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((l.path.clone(), 1)),
                }
            }
            rows = counts
                .into_iter()
                .map(|(p, n)| format!("{p}:{n}"))
                .collect();
        }
    }
    let rows: Vec<String> = rows.into_iter().skip(offset).collect();
    let cut = head_limit.is_some_and(|h| rows.len() > h);
    let kept = head_limit.map_or(rows.len(), |h| h.min(rows.len()));
    (rows[..kept].join("\n"), cut)
}

/// `path` relative to `cwd` when it lies inside it (the CLIs print workspace paths relative).
pub(crate) fn relative_to<'p>(path: &'p str, cwd: &str) -> &'p str {
    let cwd = cwd.trim_end_matches('/');
    path.strip_prefix(cwd)
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::ToolDetails;

    fn ran(text: &str, status: ToolStatus, exit: Option<i32>) -> ToolOutput {
        ToolOutput {
            text: text.into(),
            status,
            content: vec![],
            exit_code: exit,
            duration_ms: Some(5),
            details: Some(ToolDetails::Exec {
                command: vec![],
                cwd: "/w".into(),
                truncated_bytes: 0,
                sandbox: None,
                sandbox_denial: None,
            }),
        }
    }

    #[test]
    fn shell_runs_lose_the_engine_status_notes() {
        let r = ShellRun::of(&ran("ls: nope\n[exit code 2]", ToolStatus::Failed, Some(2)));
        assert_eq!(
            r,
            ShellRun {
                output: "ls: nope\n".into(),
                end: ShellEnd::Exit(2)
            }
        );
        let r = ShellRun::of(&ran(
            "partial\n[timed out after 500 ms; the command and the processes it started were stopped]",
            ToolStatus::TimedOut,
            None,
        ));
        assert_eq!(r.end, ShellEnd::TimedOut(500));
        assert_eq!(r.output, "partial\n");
        let r = ShellRun::of(&ran("ok\n", ToolStatus::Completed, Some(0)));
        assert_eq!(
            r,
            ShellRun {
                output: "ok\n".into(),
                end: ShellEnd::Exit(0)
            }
        );
        let r = ShellRun::of(&ToolOutput::denied("the user said no"));
        assert_eq!(r.end, ShellEnd::NotRun);
    }

    #[test]
    fn read_results_parse_and_keep_the_remainder() {
        let r = ReadResult::parse(
            "     1\tfn main() {\n     2\t}\n… 3 more lines; use offset=3 to continue.\n",
        )
        .unwrap();
        assert_eq!(r.lines.len(), 2);
        assert_eq!(
            r.lines[1],
            ReadLine {
                number: 2,
                text: "}".into()
            }
        );
        assert_eq!(r.more, 3);
        assert!(ReadResult::parse("`a.txt` is empty.").is_none());
    }

    #[test]
    fn grep_lines_split_on_the_number() {
        let lines = parse_grep("src/a-b.rs:12:let x = 1;\nsrc/a-b.rs-13-ctx\n--\nb.rs:1:y\n[2 matching lines in 2 files]\n").unwrap();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].path, "src/a-b.rs");
        assert_eq!(lines[0].number, 12);
        assert!(!lines[1].is_match);
        assert!(parse_grep("No matches under the workspace.").is_none());
    }

    #[test]
    fn args_coerce_like_the_clis_and_name_the_cli_field() {
        let mut m = Map::new();
        m.insert("timeout".into(), json!("30"));
        m.insert("flag".into(), json!("true"));
        m.insert("bad".into(), json!([1]));
        let a = Args::from_map("Shell", m);
        assert_eq!(a.integer("timeout", 1).unwrap(), Some(30));
        assert_eq!(a.boolean("flag").unwrap(), Some(true));
        let err = a.integer("bad", 0).unwrap_err();
        assert!(
            err.text.contains("`Shell`") && err.text.contains("`bad`"),
            "{}",
            err.text
        );
        assert!(
            a.required_string("command")
                .unwrap_err()
                .text
                .contains("`command` is required")
        );
    }

    #[test]
    fn background_commands_log_outside_the_workspace() {
        let c = background_command("npm run dev", "call:1");
        assert!(c.contains("${TMPDIR:-/tmp}/tack-bg-call1.log"), "{c}");
        assert!(c.contains("nohup bash -c 'npm run dev'"), "{c}");
    }
}
