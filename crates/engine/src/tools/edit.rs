//! `edit`: replaces an exact piece of text in a file.
//!
//! Matching works on bytes, so everything outside the replaced text (encoding, BOM, line
//! endings, trailing newline) stays exactly as it was. When the file uses CRLF line endings
//! and the model sends LF text (as `read_file` shows lines without `\r`), both strings are
//! converted to CRLF before matching, so the file keeps its line endings.

use futures::future::BoxFuture;
use memchr::memmem;
use serde::Deserialize;
use serde_json::json;
use tack_protocol::{FileChange, ToolDetails, ToolOutput, ToolSpec};

use super::args::ArgsSchema;
use super::file_change::{Snapshot, change_for_write, write_creating_parents};
use super::{PreparedCall, ToolAction, ToolContext, ToolHandler, ToolInput, paths};

/// The `edit` tool. Arguments: `{path, old_string, new_string, replace_all?: bool}`.
pub struct EditTool {
    args: ArgsSchema,
}

impl Default for EditTool {
    fn default() -> Self {
        Self::new()
    }
}

impl EditTool {
    /// Engine name.
    pub const NAME: &'static str = "edit";

    /// Creates the tool.
    pub fn new() -> Self {
        EditTool {
            args: ArgsSchema::new(
                Self::NAME,
                json!({
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "minLength": 1, "description": "File to change, absolute or relative to the workspace"},
                        "old_string": {"type": "string", "minLength": 1, "description": "Exact text to replace, including whitespace and indentation"},
                        "new_string": {"type": "string", "description": "Text to put in its place"},
                        "replace_all": {"type": "boolean", "description": "Replace every occurrence instead of requiring exactly one (default false)"}
                    },
                    "required": ["path", "old_string", "new_string"],
                    "additionalProperties": false
                }),
            ),
        }
    }
}

#[derive(Deserialize)]
struct EditArgs {
    path: String,
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: bool,
}

impl ToolHandler for EditTool {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec::function(
            Self::NAME,
            "Replace exact text in an existing file. `old_string` must match the file exactly \
             (whitespace included) and occur once, unless `replace_all` is true. Include enough \
             surrounding lines to make it unique. To create a file, use `write_file`.",
            self.args.schema().clone(),
        )
    }

    fn prepare(
        &self,
        input: ToolInput,
        ctx: &ToolContext,
    ) -> Result<Box<dyn PreparedCall>, ToolOutput> {
        let args: EditArgs = self.args.parse(input)?;
        let root = paths::workspace_root(&ctx.workspace);
        let path = paths::resolve_arg(&ctx.workspace, &args.path).map_err(ToolOutput::error)?;
        let shown = paths::display(&root, &path);
        if args.old_string == args.new_string {
            return Err(ToolOutput::error(
                "`old_string` and `new_string` are identical, so there is nothing to change.",
            ));
        }
        let snapshot = Snapshot::take(&path, &shown).map_err(ToolOutput::error)?;
        let Some(old_bytes) = snapshot.bytes.as_deref() else {
            return Err(ToolOutput::error(format!(
                "`{shown}` does not exist; use write_file to create it."
            )));
        };
        let new_bytes = replace(old_bytes, &args, &shown)?;
        let change = change_for_write(&shown, Some(old_bytes), &new_bytes);
        Ok(Box::new(PreparedEdit {
            action: ToolAction::Write {
                paths: vec![path],
                changes: vec![change.clone()],
            },
            snapshot,
            new_bytes,
            change,
        }))
    }
}

/// The file's bytes after the replacement, or a message saying why it cannot be done.
fn replace(file: &[u8], args: &EditArgs, shown: &str) -> Result<Vec<u8>, ToolOutput> {
    let mut old = args.old_string.clone().into_bytes();
    let mut new = args.new_string.clone().into_bytes();
    let mut count = memmem::find_iter(file, &old).count();
    if count == 0 && uses_crlf(file) && !args.old_string.contains('\r') {
        let crlf_old = to_crlf(&args.old_string);
        let crlf_count = memmem::find_iter(file, crlf_old.as_bytes()).count();
        if crlf_count > 0 {
            old = crlf_old.into_bytes();
            new = to_crlf(&args.new_string).into_bytes();
            count = crlf_count;
        }
    }
    match count {
        0 => Err(ToolOutput::error(format!(
            "`old_string` was not found in `{shown}`; read the file again and copy the text \
             exactly, including whitespace."
        ))),
        n if n > 1 && !args.replace_all => Err(ToolOutput::error(format!(
            "`old_string` was found {n} times in `{shown}`; add surrounding lines to make it \
             unique, or set replace_all to true to change every occurrence."
        ))),
        _ => {
            let mut out = Vec::with_capacity(file.len() + new.len());
            let mut last = 0;
            for at in memmem::find_iter(file, &old) {
                out.extend_from_slice(&file[last..at]);
                out.extend_from_slice(&new);
                last = at + old.len();
                if !args.replace_all {
                    break;
                }
            }
            out.extend_from_slice(&file[last..]);
            Ok(out)
        }
    }
}

fn uses_crlf(file: &[u8]) -> bool {
    memmem::find(file, b"\r\n").is_some()
}

fn to_crlf(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\n', "\r\n")
}

struct PreparedEdit {
    action: ToolAction,
    snapshot: Snapshot,
    new_bytes: Vec<u8>,
    change: FileChange,
}

impl PreparedCall for PreparedEdit {
    fn action(&self) -> &ToolAction {
        &self.action
    }

    fn run(self: Box<Self>, _ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let call = *self;
            tokio::task::spawn_blocking(move || {
                if let Err(msg) = call.snapshot.check_unchanged() {
                    return ToolOutput::error(msg);
                }
                let shown = &call.snapshot.shown;
                match write_creating_parents(&call.snapshot.path, &call.new_bytes) {
                    Ok(()) => {
                        let mut out = ToolOutput::ok(format!("Edited `{shown}`."));
                        out.details = Some(ToolDetails::FileChanges {
                            changes: vec![call.change],
                        });
                        out
                    }
                    Err(err) => ToolOutput::error(format!(
                        "could not write `{shown}`: {}",
                        paths::io_problem(&err)
                    )),
                }
            })
            .await
            .unwrap_or_else(|e| ToolOutput::error(format!("editing failed: {e}")))
        })
    }
}
