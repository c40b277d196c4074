//! SWE-agent's `str_replace_editor` tool, bound onto the engine's file tools.
//!
//! The anchor advertised this tool and had no handler for it (openinterpreter 0.0.40,
//! `codex-rs/core/src/harness/swe_agent.rs`); here
//! every advertised subcommand works:
//!
//! | subcommand | engine tool | notes |
//! |---|---|---|
//! | `view` on a file | `read_file` | `view_range: [start, end]` → `offset`/`limit` (`end = -1`: to the end) |
//! | `view` on a directory | `list_dir` (depth 2) | as the real tool, two levels |
//! | `create` | `write_file` | refuses an existing path, as the real tool does |
//! | `str_replace` | `edit` | exact, unique match (same rule as the real tool); `new_str` defaults to empty |
//! | `insert` | `write_file` | the file is read here, `new_str` goes after line `insert_line` (0 = top), and the whole new content is written — so the approval dialog shows the real diff |
//!
//! `undo_edit` is not offered (the tool schema in `prompts/swe-agent/tools.json` leaves it
//! out): undoing needs the editor's own per-file history, which Tack does not keep. A call
//! naming it gets a model-readable refusal with an alternative.
//!
//! Paths must be absolute, as the real tool requires. Facts about the tool (subcommands,
//! argument names, the absolute-path and no-overwrite rules) come from SWE-agent's
//! `tools/edit_anthropic` bundle.

// `ToolOutput` is the error value by design (the harness binding seam answers a bad call with a
// model-readable output); it is a cold path, so its size does not matter.
#![allow(clippy::result_large_err)]

use std::path::Path;

use serde_json::{Map, Value, json};
use tack_protocol::{ToolInput, ToolOutput};

use crate::{BoundCall, parse_arguments};

/// Name of the tool as the model sees it.
pub(crate) const NAME: &str = "str_replace_editor";

/// Key under which an editor call the harness could not read carries the reason.
pub(crate) const UNREADABLE: &str = "error";

/// Binds an editor call (arguments as the model or the text parser gave them).
///
/// # Errors
/// A failed, model-readable output for a bad or unsupported call.
pub(crate) fn bind(arguments: &str) -> Result<BoundCall, ToolOutput> {
    let args = parse_arguments(NAME, arguments)?;
    let Value::Object(args) = args else {
        return Err(ToolOutput::error(format!(
            "{NAME}: the arguments must be an object"
        )));
    };
    if let Some(reason) = args.get(UNREADABLE).and_then(Value::as_str) {
        return Err(fail(format!(
            "{reason}. Usage: {NAME} <view|create|str_replace|insert> <absolute path> [--file_text TEXT] [--old_str TEXT] [--new_str TEXT] [--insert_line N] [--view_range START END]"
        )));
    }
    let text = |key: &str| args.get(key).and_then(Value::as_str);
    let command = text("command")
        .ok_or_else(|| fail("missing `command` (view, create, str_replace or insert)".into()))?;
    let path = text("path").ok_or_else(|| fail("missing `path`".into()))?;
    if !path.starts_with('/') {
        return Err(fail(format!(
            "the path `{path}` is not absolute; it must start with `/`"
        )));
    }
    match command {
        "view" => view(path, &args),
        "create" => {
            let content = text("file_text").ok_or_else(|| fail("`create` needs `file_text`".into()))?;
            if Path::new(path).exists() {
                return Err(fail(format!("a file already exists at `{path}`; `create` does not overwrite, use `str_replace` to change it")));
            }
            Ok(bound("write_file", json!({"path": path, "content": content})))
        }
        "str_replace" => {
            let old = text("old_str").ok_or_else(|| fail("`str_replace` needs `old_str`".into()))?;
            if old.is_empty() {
                return Err(fail("`old_str` must not be empty".into()));
            }
            let new = text("new_str").unwrap_or_default();
            Ok(bound("edit", json!({"path": path, "old_string": old, "new_string": new})))
        }
        "insert" => insert(path, &args),
        "undo_edit" => Err(fail(
            "`undo_edit` is not available here; undo a change with `str_replace`, swapping `old_str` and `new_str`".into(),
        )),
        other => Err(fail(format!("unknown command `{other}`; use view, create, str_replace or insert"))),
    }
}

fn fail(message: String) -> ToolOutput {
    ToolOutput::error(format!("{NAME}: {message}"))
}

fn bound(tool: &str, input: Value) -> BoundCall {
    BoundCall {
        tool: tool.to_string(),
        input: ToolInput::Json(input),
    }
}

fn view(path: &str, args: &Map<String, Value>) -> Result<BoundCall, ToolOutput> {
    let range = args.get("view_range").filter(|v| !v.is_null());
    if Path::new(path).is_dir() {
        if range.is_some() {
            return Err(fail(
                "`view_range` only applies to files, not directories".into(),
            ));
        }
        return Ok(bound("list_dir", json!({"path": path, "depth": 2})));
    }
    let mut input = Map::new();
    input.insert("path".into(), Value::String(path.to_string()));
    if let Some(range) = range {
        let numbers: Vec<i64> = range
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_i64).collect())
            .unwrap_or_default();
        let [start, end] = numbers[..] else {
            return Err(fail(
                "`view_range` must be two line numbers, [start, end]".into(),
            ));
        };
        if start < 1 {
            return Err(fail(format!("`view_range` starts at line 1, got {start}")));
        }
        input.insert("offset".into(), Value::from(start));
        if end != -1 {
            if end < start {
                return Err(fail(format!(
                    "`view_range` end {end} is before its start {start}"
                )));
            }
            input.insert("limit".into(), Value::from(end - start + 1));
        }
    }
    Ok(bound("read_file", Value::Object(input)))
}

fn insert(path: &str, args: &Map<String, Value>) -> Result<BoundCall, ToolOutput> {
    let line = args
        .get("insert_line")
        .and_then(|v| {
            v.as_u64()
                .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        })
        .ok_or_else(|| {
            fail("`insert` needs `insert_line` (a line number, 0 for the top)".into())
        })?;
    let new = args
        .get("new_str")
        .and_then(Value::as_str)
        .ok_or_else(|| fail("`insert` needs `new_str`".into()))?;
    let original =
        std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read `{path}`: {e}")))?;
    let content = insert_after(&original, line, new).map_err(fail)?;
    Ok(bound(
        "write_file",
        json!({"path": path, "content": content}),
    ))
}

/// `original` with `new` inserted after line `line` (0 = before the first line). The inserted
/// text gets the file's line ending (CRLF files stay CRLF) and ends with one.
pub(crate) fn insert_after(original: &str, line: u64, new: &str) -> Result<String, String> {
    let crlf = original.contains("\r\n");
    let eol = if crlf { "\r\n" } else { "\n" };
    let lines: Vec<&str> = original.split_inclusive('\n').collect();
    let count = lines.len() as u64;
    if line > count {
        return Err(format!(
            "`insert_line` {line} is past the end; the file has {count} lines (use 0 to {count})"
        ));
    }
    let mut text = new.replace("\r\n", "\n");
    if crlf {
        text = text.replace('\n', "\r\n");
    }
    if !text.ends_with('\n') {
        text.push_str(eol);
    }
    let mut out = String::with_capacity(original.len() + text.len() + 2);
    let split = usize::try_from(line).unwrap_or(usize::MAX).min(lines.len());
    for l in &lines[..split] {
        out.push_str(l);
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(eol);
    }
    out.push_str(&text);
    for l in &lines[split..] {
        out.push_str(l);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(b: &BoundCall) -> &Value {
        match &b.input {
            ToolInput::Json(v) => v,
            ToolInput::Freeform(_) => panic!("freeform"),
        }
    }

    #[test]
    fn subcommands_map_onto_engine_tools() {
        let dir = std::env::temp_dir().join(format!("tack-swe-editor-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.py");
        std::fs::write(&file, "one\ntwo\n").unwrap();
        let f = file.display().to_string();
        let d = dir.display().to_string();

        let b = bind(&json!({"command": "view", "path": f, "view_range": [2, -1]}).to_string())
            .unwrap();
        assert_eq!(
            (b.tool.as_str(), input(&b)),
            ("read_file", &json!({"path": f, "offset": 2}))
        );
        let b =
            bind(&json!({"command": "view", "path": f, "view_range": [1, 5]}).to_string()).unwrap();
        assert_eq!(input(&b)["limit"], json!(5));
        let b = bind(&json!({"command": "view", "path": d}).to_string()).unwrap();
        assert_eq!(b.tool, "list_dir");
        let b = bind(&json!({"command": "str_replace", "path": f, "old_str": "one"}).to_string())
            .unwrap();
        assert_eq!(
            input(&b),
            &json!({"path": f, "old_string": "one", "new_string": ""})
        );
        let b = bind(
            &json!({"command": "insert", "path": f, "insert_line": 1, "new_str": "one and a half"})
                .to_string(),
        )
        .unwrap();
        assert_eq!(
            (b.tool.as_str(), &input(&b)["content"]),
            ("write_file", &json!("one\none and a half\ntwo\n"))
        );
        let b = bind(
            &json!({"command": "create", "path": format!("{d}/new.txt"), "file_text": "hi"})
                .to_string(),
        )
        .unwrap();
        assert_eq!(b.tool, "write_file");

        for bad in [
            json!({"command": "create", "path": f, "file_text": "x"}),
            json!({"command": "view", "path": "relative.py"}),
            json!({"command": "undo_edit", "path": f}),
            json!({"command": "view", "path": d, "view_range": [1, 2]}),
            json!({"command": "insert", "path": f, "insert_line": 9, "new_str": "x"}),
            json!({"command": "frobnicate", "path": f}),
            json!({"error": "cannot read the arguments (missing closing quote)"}),
        ] {
            let err = bind(&bad.to_string()).unwrap_err();
            assert!(err.text.starts_with("str_replace_editor: "), "{}", err.text);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn insert_keeps_line_endings() {
        assert_eq!(
            insert_after("a\r\nb\r\n", 0, "z").unwrap(),
            "z\r\na\r\nb\r\n"
        );
        assert_eq!(insert_after("a\nb", 2, "c").unwrap(), "a\nb\nc\n");
        assert_eq!(insert_after("", 0, "c\n").unwrap(), "c\n");
        assert!(insert_after("a\n", 2, "c").is_err());
    }
}
