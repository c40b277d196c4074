//! `list_dir`: a tree listing that respects `.gitignore`.

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::json;
use tack_protocol::{ToolOutput, ToolSpec};

use super::args::ArgsSchema;
use super::{PreparedCall, ToolAction, ToolContext, ToolHandler, ToolInput, paths};

/// Depth listed when the call gives none (the directory's children and grandchildren).
pub const DEFAULT_DEPTH: usize = 2;
/// Entries shown at most; the rest are counted in a note.
pub const MAX_ENTRIES: usize = 500;

/// The `list_dir` tool. Arguments: `{path?: string, depth?: integer}`.
///
/// Output: the resolved directory on the first line, then one entry per line indented two
/// spaces per level, sorted by name, directories marked with a trailing `/` and symlinks
/// shown as `name -> target`. Hidden entries are listed (except `.git`); ignored ones
/// (`.gitignore`, `.ignore`, git excludes) are not.
pub struct ListDirTool {
    args: ArgsSchema,
}

impl Default for ListDirTool {
    fn default() -> Self {
        Self::new()
    }
}

impl ListDirTool {
    /// Engine name.
    pub const NAME: &'static str = "list_dir";

    /// Creates the tool.
    pub fn new() -> Self {
        ListDirTool {
            args: ArgsSchema::new(
                Self::NAME,
                json!({
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "Directory to list, absolute or relative to the workspace (default: the workspace)"},
                        "depth": {"type": "integer", "minimum": 1, "description": "How many levels to descend (default 2)"}
                    },
                    "additionalProperties": false
                }),
            ),
        }
    }
}

#[derive(Deserialize)]
struct ListArgs {
    path: Option<String>,
    depth: Option<usize>,
}

impl ToolHandler for ListDirTool {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec::function(
            Self::NAME,
            "List a directory as an indented tree (directories end with `/`), skipping files \
             ignored by .gitignore. Use `depth` to see more or fewer levels.",
            self.args.schema().clone(),
        )
    }

    fn prepare(
        &self,
        input: ToolInput,
        ctx: &ToolContext,
    ) -> Result<Box<dyn PreparedCall>, ToolOutput> {
        let args: ListArgs = self.args.parse(input)?;
        let dir = paths::resolve(&ctx.workspace, args.path.as_deref().unwrap_or("."));
        Ok(Box::new(PreparedList {
            action: ToolAction::Read {
                paths: vec![dir.clone()],
            },
            dir,
            depth: args.depth.unwrap_or(DEFAULT_DEPTH),
        }))
    }
}

struct PreparedList {
    action: ToolAction,
    dir: PathBuf,
    depth: usize,
}

impl PreparedCall for PreparedList {
    fn action(&self) -> &ToolAction {
        &self.action
    }

    fn run(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let call = *self;
            tokio::task::spawn_blocking(move || list(&call.dir, call.depth, &ctx))
                .await
                .unwrap_or_else(|e| ToolOutput::error(format!("listing failed: {e}")))
        })
    }
}

fn list(dir: &Path, depth: usize, ctx: &ToolContext) -> ToolOutput {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return ToolOutput::error(format!(
                "{} is a file, not a directory; use read_file to read it.",
                dir.display()
            ));
        }
        Err(err) => {
            return ToolOutput::error(format!("{}: {}.", dir.display(), paths::io_problem(&err)));
        }
    }
    let walker = super::search::walker(dir, false)
        .max_depth(Some(depth))
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    let mut text = format!("{}/\n", dir.display());
    let mut shown = 0usize;
    let mut hidden_count = 0usize;
    for entry in walker {
        if ctx.cancel.is_cancelled() {
            return ToolOutput::aborted(format!("{text}[aborted by user]"));
        }
        let Ok(entry) = entry else { continue };
        if entry.depth() == 0 {
            continue;
        }
        if shown >= MAX_ENTRIES {
            hidden_count += 1;
            continue;
        }
        shown += 1;
        let name = entry.file_name().to_string_lossy();
        let indent = "  ".repeat(entry.depth());
        let file_type = entry.file_type();
        if file_type.is_some_and(|t| t.is_symlink()) {
            let target = std::fs::read_link(entry.path())
                .map(|t| t.to_string_lossy().into_owned())
                .unwrap_or_else(|_| "?".to_string());
            text.push_str(&format!("{indent}{name} -> {target}\n"));
        } else if file_type.is_some_and(|t| t.is_dir()) {
            text.push_str(&format!("{indent}{name}/\n"));
        } else {
            text.push_str(&format!("{indent}{name}\n"));
        }
    }
    if shown == 0 {
        text.push_str("  (empty)\n");
    }
    if hidden_count > 0 {
        text.push_str(&format!(
            "… {hidden_count} more entries not shown (limit {MAX_ENTRIES}); list a subdirectory or use a smaller depth.\n"
        ));
    }
    ToolOutput::ok(text)
}
