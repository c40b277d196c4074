//! `grep`: regex search through files with ripgrep's crates.

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use serde::Deserialize;
use serde_json::json;
use tack_protocol::{ToolOutput, ToolSpec};

use super::args::ArgsSchema;
use super::{PreparedCall, ToolAction, ToolContext, ToolHandler, ToolInput, paths};

/// Matching lines returned when the call gives no `max_results`.
pub const DEFAULT_MAX_RESULTS: usize = 100;
/// Characters kept of one output line.
pub const MAX_LINE_CHARS: usize = 500;

/// The `grep` tool. Arguments: `{pattern: string (regex), path?: string, glob?: string,
/// case_insensitive?: bool, context?: integer, max_results?: integer}`.
///
/// Output follows ripgrep: `path:line:text` for matching lines, `path-line-text` for context
/// lines, `--` between separate groups; paths are relative to the workspace when inside it.
/// Files are searched in path order; ignored and binary files are skipped, and so are hidden
/// ones unless `glob` names a hidden path.
pub struct GrepTool {
    args: ArgsSchema,
}

impl Default for GrepTool {
    fn default() -> Self {
        Self::new()
    }
}

impl GrepTool {
    /// Engine name.
    pub const NAME: &'static str = "grep";

    /// Creates the tool.
    pub fn new() -> Self {
        GrepTool {
            args: ArgsSchema::new(
                Self::NAME,
                json!({
                    "type": "object",
                    "properties": {
                        "pattern": {"type": "string", "minLength": 1, "description": "Regular expression (Rust regex syntax, like ripgrep)"},
                        "path": {"type": "string", "description": "File or directory to search, absolute or relative to the workspace (default: the workspace)"},
                        "glob": {"type": "string", "description": "Only search files matching this glob, e.g. `*.rs` or `src/**/*.ts`"},
                        "case_insensitive": {"type": "boolean", "description": "Ignore case (default false)"},
                        "context": {"type": "integer", "minimum": 0, "description": "Lines of context before and after each match (default 0)"},
                        "max_results": {"type": "integer", "minimum": 1, "description": "Stop after this many matching lines (default 100)"}
                    },
                    "required": ["pattern"],
                    "additionalProperties": false
                }),
            ),
        }
    }
}

#[derive(Deserialize)]
struct GrepArgs {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    #[serde(default)]
    case_insensitive: bool,
    #[serde(default)]
    context: usize,
    max_results: Option<usize>,
}

impl ToolHandler for GrepTool {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec::function(
            Self::NAME,
            "Search file contents with a regular expression. Returns `path:line:text` for each \
             matching line. Narrow the search with `path` and `glob`; add `context` lines \
             around matches. Files ignored by .gitignore, hidden files and binary files are \
             skipped.",
            self.args.schema().clone(),
        )
    }

    fn prepare(
        &self,
        input: ToolInput,
        ctx: &ToolContext,
    ) -> Result<Box<dyn PreparedCall>, ToolOutput> {
        let args: GrepArgs = self.args.parse(input)?;
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(args.case_insensitive)
            .build(&args.pattern)
            .map_err(|e| ToolOutput::error(format!("`pattern` is not a valid regex: {e}")))?;
        let root = paths::resolve(&ctx.workspace, args.path.as_deref().unwrap_or("."));
        let overrides =
            match &args.glob {
                None => None,
                Some(glob) => {
                    let mut builder = ignore::overrides::OverrideBuilder::new(&root);
                    builder.add(glob).map_err(|e| {
                        ToolOutput::error(format!("`glob` is not a valid glob: {e}"))
                    })?;
                    Some(builder.build().map_err(|e| {
                        ToolOutput::error(format!("`glob` is not a valid glob: {e}"))
                    })?)
                }
            };
        Ok(Box::new(PreparedGrep {
            action: ToolAction::Read {
                paths: vec![root.clone()],
            },
            include_hidden: args.glob.as_deref().is_some_and(super::glob::names_hidden),
            root,
            matcher,
            overrides,
            context: args.context,
            max_results: args.max_results.unwrap_or(DEFAULT_MAX_RESULTS),
        }))
    }
}

struct PreparedGrep {
    action: ToolAction,
    root: PathBuf,
    matcher: RegexMatcher,
    overrides: Option<ignore::overrides::Override>,
    /// The glob names a hidden path (`.github/**`), so hidden files are searched.
    include_hidden: bool,
    context: usize,
    max_results: usize,
}

impl PreparedCall for PreparedGrep {
    fn action(&self) -> &ToolAction {
        &self.action
    }

    fn run(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let call = *self;
            tokio::task::spawn_blocking(move || search(&call, &ctx))
                .await
                .unwrap_or_else(|e| ToolOutput::error(format!("grep failed: {e}")))
        })
    }
}

/// Collects output lines for one file.
struct Collector<'a> {
    shown_path: &'a str,
    out: &'a mut String,
    matches: &'a mut usize,
    limit: usize,
    printed_any: bool,
    /// Whether a `--` is owed before the next line (a gap since the last group).
    needs_break: bool,
}

impl Collector<'_> {
    fn line(&mut self, sep: char, number: Option<u64>, bytes: &[u8]) {
        if self.needs_break {
            self.out.push_str("--\n");
            self.needs_break = false;
        }
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        let count = text.chars().count();
        let text: String = if count > MAX_LINE_CHARS {
            let kept: String = text.chars().take(MAX_LINE_CHARS).collect();
            format!("{kept} [… {} more characters]", count - MAX_LINE_CHARS)
        } else {
            text.to_string()
        };
        let number = number.map_or_else(String::new, |n| n.to_string());
        self.out
            .push_str(&format!("{}{sep}{number}{sep}{text}\n", self.shown_path));
        self.printed_any = true;
    }
}

impl Sink for Collector<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.line(':', mat.line_number(), mat.bytes());
        *self.matches += 1;
        Ok(*self.matches < self.limit)
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, Self::Error> {
        self.line('-', ctx.line_number(), ctx.bytes());
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        self.needs_break = self.printed_any;
        Ok(true)
    }
}

fn search(call: &PreparedGrep, ctx: &ToolContext) -> ToolOutput {
    if !call.root.exists() {
        return ToolOutput::error(format!("{} does not exist.", call.root.display()));
    }
    let workspace = paths::workspace_root(&ctx.workspace);
    let mut builder = super::search::walker(&call.root, !call.include_hidden);
    builder.sort_by_file_path(|a, b| a.cmp(b));
    if let Some(overrides) = &call.overrides {
        builder.overrides(overrides.clone());
    }
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .before_context(call.context)
        .after_context(call.context)
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let mut out = String::new();
    let mut matches = 0usize;
    let mut files_with_matches = 0usize;
    let mut stopped_early = false;
    for entry in builder.build() {
        if ctx.cancel.is_cancelled() {
            out.push_str("[aborted by user]");
            return ToolOutput::aborted(out);
        }
        if matches >= call.max_results {
            stopped_early = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let shown_path = paths::display(&workspace, entry.path());
        let before = matches;
        let had_output = !out.is_empty();
        let mut file_out = String::new();
        let mut collector = Collector {
            shown_path: &shown_path,
            out: &mut file_out,
            matches: &mut matches,
            limit: call.max_results,
            printed_any: false,
            needs_break: false,
        };
        // Unreadable files are skipped, as ripgrep does.
        if searcher
            .search_path(&call.matcher, entry.path(), &mut collector)
            .is_err()
        {
            continue;
        }
        if matches > before {
            files_with_matches += 1;
            if had_output && call.context > 0 {
                out.push_str("--\n");
            }
            out.push_str(&file_out);
        }
    }
    if matches == 0 {
        return ToolOutput::ok(format!(
            "No matches under {}.",
            describe(&workspace, &call.root)
        ));
    }
    if stopped_early || matches >= call.max_results {
        out.push_str(&format!(
            "[stopped at {} matching lines (max_results); narrow the pattern, path or glob, or raise max_results]\n",
            call.max_results
        ));
    } else {
        out.push_str(&format!(
            "[{matches} matching line{} in {files_with_matches} file{}]\n",
            if matches == 1 { "" } else { "s" },
            if files_with_matches == 1 { "" } else { "s" }
        ));
    }
    ToolOutput::ok(out)
}

fn describe(workspace: &Path, dir: &Path) -> String {
    let s = paths::display(workspace, dir);
    if s == "." {
        "the workspace".to_string()
    } else {
        format!("`{s}`")
    }
}
