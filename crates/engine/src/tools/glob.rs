//! `glob`: files whose path matches a glob pattern, newest first.
//!
//! Sorting by modification time (newest first, ties by path) puts the files being worked on
//! at the top, which is usually what a search during a task is after.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use futures::future::BoxFuture;
use globset::GlobBuilder;
use serde::Deserialize;
use serde_json::json;
use tack_protocol::{ToolOutput, ToolSpec};

use super::args::ArgsSchema;
use super::{PreparedCall, ToolAction, ToolContext, ToolHandler, ToolInput, paths};

/// Paths returned at most; a note gives the total.
pub const MAX_RESULTS: usize = 200;

/// The `glob` tool. Arguments: `{pattern: string, path?: string}`.
///
/// `*` and `?` stay within one path component, `**` crosses directories, `{a,b}` picks
/// alternatives. The pattern is matched against paths relative to `path` (default: the
/// workspace); an absolute pattern is split at its first wildcard into a directory and a
/// relative pattern. Ignored files are skipped, and so are hidden ones unless the pattern
/// names a component starting with `.`. Output: one path per line (relative to the workspace
/// when inside it).
pub struct GlobTool {
    args: ArgsSchema,
}

impl Default for GlobTool {
    fn default() -> Self {
        Self::new()
    }
}

impl GlobTool {
    /// Engine name.
    pub const NAME: &'static str = "glob";

    /// Creates the tool.
    pub fn new() -> Self {
        GlobTool {
            args: ArgsSchema::new(
                Self::NAME,
                json!({
                    "type": "object",
                    "properties": {
                        "pattern": {"type": "string", "minLength": 1, "description": "Glob such as `**/*.rs` or `src/*.{ts,tsx}`"},
                        "path": {"type": "string", "description": "Directory to search, absolute or relative to the workspace (default: the workspace)"}
                    },
                    "required": ["pattern"],
                    "additionalProperties": false
                }),
            ),
        }
    }
}

#[derive(Deserialize)]
struct GlobArgs {
    pattern: String,
    path: Option<String>,
}

impl ToolHandler for GlobTool {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec::function(
            Self::NAME,
            "Find files by name with a glob pattern (`**/*.rs`, `src/**/test_*.py`). Returns \
             matching file paths, most recently modified first. Files ignored by .gitignore \
             and hidden files are skipped unless the pattern names them.",
            self.args.schema().clone(),
        )
    }

    fn prepare(
        &self,
        input: ToolInput,
        ctx: &ToolContext,
    ) -> Result<Box<dyn PreparedCall>, ToolOutput> {
        let args: GlobArgs = self.args.parse(input)?;
        let (base, pattern) = split_absolute(&args.pattern, args.path.as_deref());
        let root = paths::resolve(&ctx.workspace, &base);
        let matcher = GlobBuilder::new(&pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| ToolOutput::error(format!("`pattern` is not a valid glob: {e}")))?
            .compile_matcher();
        Ok(Box::new(PreparedGlob {
            action: ToolAction::Read {
                paths: vec![root.clone()],
            },
            include_hidden: names_hidden(&pattern),
            root,
            matcher,
        }))
    }
}

/// Splits `/abs/dir/**/*.rs` into (`/abs/dir`, `**/*.rs`); relative patterns search `path`.
fn split_absolute(pattern: &str, path: Option<&str>) -> (String, String) {
    if !pattern.starts_with('/') {
        return (path.unwrap_or(".").to_string(), pattern.to_string());
    }
    let parts: Vec<&str> = pattern.split('/').collect();
    let literal = parts
        .iter()
        .position(|p| p.contains(['*', '?', '[', '{']))
        .unwrap_or(parts.len().saturating_sub(1));
    let base = parts[..literal].join("/");
    let rest = parts[literal..].join("/");
    (
        if base.is_empty() {
            "/".to_string()
        } else {
            base
        },
        rest,
    )
}

/// Whether some component of the pattern starts with a dot (`.github/**`, `**/.env`).
pub(crate) fn names_hidden(pattern: &str) -> bool {
    pattern
        .split('/')
        .any(|c| c.starts_with('.') && c != "." && c != "..")
}

struct PreparedGlob {
    action: ToolAction,
    root: PathBuf,
    matcher: globset::GlobMatcher,
    include_hidden: bool,
}

impl PreparedCall for PreparedGlob {
    fn action(&self) -> &ToolAction {
        &self.action
    }

    fn run(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let call = *self;
            tokio::task::spawn_blocking(move || find(&call, &ctx))
                .await
                .unwrap_or_else(|e| ToolOutput::error(format!("glob failed: {e}")))
        })
    }
}

fn find(call: &PreparedGlob, ctx: &ToolContext) -> ToolOutput {
    if !call.root.is_dir() {
        return ToolOutput::error(format!("{} is not a directory.", call.root.display()));
    }
    let workspace = paths::workspace_root(&ctx.workspace);
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    for entry in super::search::walker(&call.root, !call.include_hidden).build() {
        if ctx.cancel.is_cancelled() {
            return ToolOutput::aborted("[aborted by user]");
        }
        let Ok(entry) = entry else { continue };
        if !entry
            .file_type()
            .is_some_and(|t| t.is_file() || t.is_symlink())
        {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(&call.root) else {
            continue;
        };
        if call.matcher.is_match(rel) {
            let modified = entry
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            found.push((modified, entry.into_path()));
        }
    }
    if found.is_empty() {
        return ToolOutput::ok(format!(
            "No files match under {}.",
            shown(&workspace, &call.root)
        ));
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    let mut text: String = found
        .iter()
        .take(MAX_RESULTS)
        .map(|(_, p)| format!("{}\n", paths::display(&workspace, p)))
        .collect();
    if total > MAX_RESULTS {
        text.push_str(&format!(
            "… {} more files not shown ({total} matches); use a narrower pattern or path.\n",
            total - MAX_RESULTS
        ));
    }
    ToolOutput::ok(text)
}

fn shown(workspace: &Path, dir: &Path) -> String {
    let s = paths::display(workspace, dir);
    if s == "." {
        "the workspace".to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_patterns_split_at_the_first_wildcard() {
        assert_eq!(
            split_absolute("/a/b/**/*.rs", None),
            ("/a/b".into(), "**/*.rs".into())
        );
        assert_eq!(
            split_absolute("src/*.rs", Some("x")),
            ("x".into(), "src/*.rs".into())
        );
        assert_eq!(
            split_absolute("/a/b.txt", None),
            ("/a".into(), "b.txt".into())
        );
    }

    #[test]
    fn hidden_components_are_detected() {
        assert!(names_hidden(".github/**/*.yml"));
        assert!(names_hidden("**/.env"));
        assert!(!names_hidden("./src/*.rs"));
        assert!(!names_hidden("**/*.rs"));
    }
}
