//! `read_file`: numbered lines of a text file, a window at a time.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::json;
use tack_protocol::{ToolOutput, ToolSpec};

use super::args::ArgsSchema;
use super::{PreparedCall, ToolAction, ToolContext, ToolHandler, ToolInput, paths};

/// Lines returned when the call gives no `limit`.
pub const DEFAULT_LINE_LIMIT: usize = 2000;
/// Characters kept of one line; the rest is replaced by a marker.
pub const MAX_LINE_CHARS: usize = 2000;
/// How much of the start of a file is checked for NUL bytes to call it binary.
const BINARY_SNIFF: usize = 8192;

/// The `read_file` tool. Arguments: `{path: string, offset?: integer (1-based line),
/// limit?: integer (lines)}`. Output lines look like `cat -n`: the line number right-aligned
/// in six columns, a tab, the line (without its line ending).
pub struct ReadFileTool {
    args: ArgsSchema,
}

impl Default for ReadFileTool {
    fn default() -> Self {
        Self::new()
    }
}

impl ReadFileTool {
    /// Engine name.
    pub const NAME: &'static str = "read_file";

    /// Creates the tool.
    pub fn new() -> Self {
        ReadFileTool {
            args: ArgsSchema::new(
                Self::NAME,
                json!({
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "minLength": 1, "description": "File to read, absolute or relative to the workspace"},
                        "offset": {"type": "integer", "minimum": 1, "description": "First line to return, counting from 1 (default 1)"},
                        "limit": {"type": "integer", "minimum": 1, "description": "How many lines to return (default 2000)"}
                    },
                    "required": ["path"],
                    "additionalProperties": false
                }),
            ),
        }
    }
}

#[derive(Deserialize)]
struct ReadArgs {
    path: String,
    offset: Option<usize>,
    limit: Option<usize>,
}

impl ToolHandler for ReadFileTool {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec::function(
            Self::NAME,
            "Read a text file. Lines come back numbered from 1 (number, tab, text). By default the \
             first 2000 lines are returned; use `offset` and `limit` to page through longer \
             files. Very long lines are shortened.",
            self.args.schema().clone(),
        )
    }

    fn prepare(
        &self,
        input: ToolInput,
        ctx: &ToolContext,
    ) -> Result<Box<dyn PreparedCall>, ToolOutput> {
        let args: ReadArgs = self.args.parse(input)?;
        let path = paths::resolve_arg(&ctx.workspace, &args.path).map_err(ToolOutput::error)?;
        Ok(Box::new(PreparedRead {
            action: ToolAction::Read {
                paths: vec![path.clone()],
            },
            shown: args.path,
            path,
            offset: args.offset.unwrap_or(1),
            limit: args.limit.unwrap_or(DEFAULT_LINE_LIMIT),
        }))
    }
}

struct PreparedRead {
    action: ToolAction,
    shown: String,
    path: PathBuf,
    offset: usize,
    limit: usize,
}

impl PreparedCall for PreparedRead {
    fn action(&self) -> &ToolAction {
        &self.action
    }

    fn run(self: Box<Self>, _ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let call = *self;
            tokio::task::spawn_blocking(move || read_window(&call))
                .await
                .unwrap_or_else(|e| ToolOutput::error(format!("reading failed: {e}")))
        })
    }
}

fn read_window(call: &PreparedRead) -> ToolOutput {
    let shown = &call.shown;
    // Before anything opens it: a FIFO would block the read forever, a device is not text.
    if let Err(msg) = paths::refuse_special(&call.path, shown) {
        return ToolOutput::error(msg);
    }
    let meta = match std::fs::metadata(&call.path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return ToolOutput::error(format!(
                "`{shown}` does not exist ({}). Check the path, e.g. with list_dir or glob.",
                call.path.display()
            ));
        }
        Err(err) => {
            return ToolOutput::error(format!(
                "cannot read `{shown}`: {}",
                paths::io_problem(&err)
            ));
        }
    };
    if meta.is_dir() {
        return ToolOutput::error(format!(
            "`{shown}` is a directory; use list_dir to see what it contains."
        ));
    }
    let file = match paths::open_regular(&call.path, shown) {
        Ok(Some((f, _))) => f,
        Ok(None) => {
            return ToolOutput::error(format!(
                "`{shown}` does not exist ({}). Check the path, e.g. with list_dir or glob.",
                call.path.display()
            ));
        }
        Err(msg) => return ToolOutput::error(msg),
    };
    let mut reader = BufReader::new(file);
    // Sniff the start for NUL bytes before decoding anything.
    let sniff = match reader.fill_buf() {
        Ok(bytes) => &bytes[..bytes.len().min(BINARY_SNIFF)],
        Err(err) => {
            return ToolOutput::error(format!(
                "cannot read `{shown}`: {}",
                paths::io_problem(&err)
            ));
        }
    };
    if memchr::memchr(0, sniff).is_some() {
        return ToolOutput::error(format!(
            "`{shown}` is a binary file ({} bytes); read_file only shows text.",
            meta.len()
        ));
    }

    let mut text = String::new();
    let mut line_no = 0usize;
    let mut shown_lines = 0usize;
    let mut more = 0usize;
    let mut raw = Vec::new();
    loop {
        raw.clear();
        match reader.read_until(b'\n', &mut raw) {
            Ok(0) => break,
            Ok(_) => {}
            Err(err) => {
                return ToolOutput::error(format!(
                    "cannot read `{shown}`: {}",
                    paths::io_problem(&err)
                ));
            }
        }
        line_no += 1;
        if line_no < call.offset {
            continue;
        }
        if shown_lines >= call.limit {
            // Count the rest without decoding it.
            more = 1 + count_lines(&mut reader);
            break;
        }
        shown_lines += 1;
        let mut line = raw.as_slice();
        if let Some(stripped) = line.strip_suffix(b"\n") {
            line = stripped;
        }
        if let Some(stripped) = line.strip_suffix(b"\r") {
            line = stripped;
        }
        let decoded = String::from_utf8_lossy(line);
        text.push_str(&format!("{line_no:>6}\t"));
        let char_count = decoded.chars().count();
        if char_count > MAX_LINE_CHARS {
            let cut: String = decoded.chars().take(MAX_LINE_CHARS).collect();
            text.push_str(&cut);
            text.push_str(&format!(
                " [… line shortened: {} more characters]",
                char_count - MAX_LINE_CHARS
            ));
        } else {
            text.push_str(&decoded);
        }
        text.push('\n');
    }

    if line_no == 0 {
        return ToolOutput::ok(format!("`{shown}` is empty."));
    }
    if call.offset > line_no {
        return ToolOutput::error(format!(
            "offset {} is past the end of `{shown}`, which has {line_no} line{}.",
            call.offset,
            if line_no == 1 { "" } else { "s" }
        ));
    }
    if more > 0 {
        let next = call.offset + shown_lines;
        text.push_str(&format!(
            "… {more} more line{}; use offset={next} to continue.\n",
            if more == 1 { "" } else { "s" }
        ));
    }
    ToolOutput::ok(text)
}

/// Counts the remaining lines (a last line without a newline counts too).
fn count_lines(reader: &mut impl Read) -> usize {
    let mut buf = vec![0u8; 64 * 1024];
    let mut lines = 0;
    let mut last = b'\n';
    loop {
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                lines += memchr::memchr_iter(b'\n', &buf[..n]).count();
                last = buf[n - 1];
            }
        }
    }
    if last != b'\n' { lines + 1 } else { lines }
}
