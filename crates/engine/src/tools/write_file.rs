//! `write_file`: creates or replaces a whole file.

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::json;
use tack_protocol::{FileChange, ToolDetails, ToolOutput, ToolSpec};

use super::args::ArgsSchema;
use super::file_change::{Snapshot, change_for_write, write_creating_parents};
use super::{PreparedCall, ToolAction, ToolContext, ToolHandler, ToolInput, paths};

/// The `write_file` tool. Arguments: `{path: string, content: string}`. Missing parent
/// directories are created; the content is written byte for byte as given.
pub struct WriteFileTool {
    args: ArgsSchema,
}

impl Default for WriteFileTool {
    fn default() -> Self {
        Self::new()
    }
}

impl WriteFileTool {
    /// Engine name.
    pub const NAME: &'static str = "write_file";

    /// Creates the tool.
    pub fn new() -> Self {
        WriteFileTool {
            args: ArgsSchema::new(
                Self::NAME,
                json!({
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "minLength": 1, "description": "File to write, absolute or relative to the workspace"},
                        "content": {"type": "string", "description": "The complete new content of the file"}
                    },
                    "required": ["path", "content"],
                    "additionalProperties": false
                }),
            ),
        }
    }
}

#[derive(Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
}

impl ToolHandler for WriteFileTool {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec::function(
            Self::NAME,
            "Create a file, or replace all of an existing file's content. Missing parent \
             directories are created. For changes to part of a file, prefer `edit`.",
            self.args.schema().clone(),
        )
    }

    fn prepare(
        &self,
        input: ToolInput,
        ctx: &ToolContext,
    ) -> Result<Box<dyn PreparedCall>, ToolOutput> {
        let args: WriteArgs = self.args.parse(input)?;
        let root = paths::workspace_root(&ctx.workspace);
        let path = paths::resolve_arg(&ctx.workspace, &args.path).map_err(ToolOutput::error)?;
        let shown = paths::display(&root, &path);
        let snapshot = Snapshot::take(&path, &shown).map_err(ToolOutput::error)?;
        let change = change_for_write(&shown, snapshot.bytes.as_deref(), args.content.as_bytes());
        Ok(Box::new(PreparedWrite {
            action: ToolAction::Write {
                paths: vec![path],
                changes: vec![change.clone()],
            },
            snapshot,
            content: args.content,
            change,
        }))
    }
}

struct PreparedWrite {
    action: ToolAction,
    snapshot: Snapshot,
    content: String,
    change: FileChange,
}

impl PreparedCall for PreparedWrite {
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
                match write_creating_parents(&call.snapshot.path, call.content.as_bytes()) {
                    Ok(()) => {
                        let verb = if call.snapshot.bytes.is_some() {
                            "Replaced"
                        } else {
                            "Created"
                        };
                        let mut out = ToolOutput::ok(format!(
                            "{verb} `{shown}` ({} bytes).",
                            call.content.len()
                        ));
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
            .unwrap_or_else(|e| ToolOutput::error(format!("writing failed: {e}")))
        })
    }
}
