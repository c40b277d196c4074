//! `apply_patch`: adds, deletes, updates and moves files from one `*** Begin Patch` envelope.
//!
//! `prepare` parses the patch and works out every resulting file in memory, operation by
//! operation (a later operation sees the effect of earlier ones), without touching the disk.
//! The action lists every path touched, move destinations included, with a diff per file.
//!
//! Like the reference tool, operations apply in order and a failing operation does not undo
//! the ones before it: when operation N cannot be applied, operations 1..N-1 are still
//! prepared (and shown to the approval gate), `run` applies them, and the output is an error
//! that says what was applied and what failed. When the first operation already fails,
//! nothing is prepared and the error comes back from `prepare`.

mod apply;
mod parse;

use std::collections::BTreeMap;
use std::path::PathBuf;

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tack_protocol::{FileChange, FileChangeKind, ToolDetails, ToolOutput, ToolSpec};

use super::args::ArgsSchema;
use super::file_change::{read_optional, unified_diff, write_creating_parents};
use super::{PreparedCall, ToolAction, ToolContext, ToolHandler, ToolInput, paths};
use parse::PatchOp;

/// The `apply_patch` tool. Input: the patch text, either freeform or as JSON
/// `{input: string}` (also accepted: `{patch: string}`).
pub struct ApplyPatchTool {
    args: ArgsSchema,
}

impl Default for ApplyPatchTool {
    fn default() -> Self {
        Self::new()
    }
}

impl ApplyPatchTool {
    /// Engine name.
    pub const NAME: &'static str = "apply_patch";

    /// Creates the tool.
    pub fn new() -> Self {
        ApplyPatchTool {
            args: ArgsSchema::new(
                Self::NAME,
                json!({
                    "type": "object",
                    "properties": {
                        "input": {"type": "string", "description": "The whole patch, from `*** Begin Patch` to `*** End Patch`"},
                        "patch": {"type": "string", "description": "Same as `input`"}
                    },
                    "oneOf": [{"required": ["input"]}, {"required": ["patch"]}],
                    "additionalProperties": false
                }),
            ),
        }
    }
}

const DESCRIPTION: &str = "Change files with a patch. The input starts with `*** Begin Patch` \
and ends with `*** End Patch`. In between, one or more operations:\n\
`*** Add File: <path>` followed by the new content, every line prefixed with `+`;\n\
`*** Delete File: <path>`;\n\
`*** Update File: <path>`, optionally followed by `*** Move to: <new path>`, then hunks. A hunk \
starts with `@@` (optionally `@@ <a line that comes before the change>` to say where), then \
lines prefixed with ` ` (unchanged context), `-` (remove) or `+` (add). Give about three lines \
of context around each change, copied exactly from the file. End a hunk with `*** End of File` \
when it touches the end of the file. Paths are relative to the workspace.";

impl ToolHandler for ApplyPatchTool {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec::freeform(Self::NAME, DESCRIPTION)
    }

    fn prepare(
        &self,
        input: ToolInput,
        ctx: &ToolContext,
    ) -> Result<Box<dyn PreparedCall>, ToolOutput> {
        let text = match input {
            ToolInput::Freeform(text) if text.trim_start().starts_with('{') => {
                patch_from_json(&self.args, self.args.json_of(ToolInput::Freeform(text))?)?
            }
            ToolInput::Freeform(text) => text,
            ToolInput::Json(value) => patch_from_json(&self.args, value)?,
        };
        let ops = parse::parse_patch(&text).map_err(|e| {
            ToolOutput::error(format!("The patch was rejected: {e} No file was changed."))
        })?;
        let plan = plan(&ops, ctx);
        if plan.steps.is_empty() {
            let failure = plan.failure.unwrap_or_default();
            return Err(ToolOutput::error(format!(
                "{failure}\nNo file was changed."
            )));
        }
        let mut touched: Vec<PathBuf> = Vec::new();
        for step in &plan.steps {
            for p in [Some(&step.path), step.move_to.as_ref()]
                .into_iter()
                .flatten()
            {
                if !touched.contains(p) {
                    touched.push(p.clone());
                }
            }
        }
        let changes: Vec<FileChange> = plan.steps.iter().map(|s| s.change.clone()).collect();
        Ok(Box::new(PreparedPatch {
            action: ToolAction::Write {
                paths: touched,
                changes,
            },
            plan,
        }))
    }
}

fn patch_from_json(args: &ArgsSchema, value: Value) -> Result<String, ToolOutput> {
    #[derive(serde::Deserialize)]
    struct PatchArgs {
        input: Option<String>,
        patch: Option<String>,
    }
    let parsed: PatchArgs = args.parse_value(value)?;
    parsed
        .input
        .or(parsed.patch)
        .ok_or_else(|| ToolOutput::error("`apply_patch` needs the patch text in `input`."))
}

/// One applied operation.
#[derive(Debug, Clone)]
struct Step {
    /// Resolved path of the file operated on.
    path: PathBuf,
    /// Resolved destination of a move.
    move_to: Option<PathBuf>,
    /// `A path`, `M path`, `D path`, `M old -> new` for the summary.
    summary: String,
    change: FileChange,
}

/// The outcome of working a patch out in memory.
struct Plan {
    steps: Vec<Step>,
    /// Why the operation after the last step could not be applied.
    failure: Option<String>,
    /// Final content per path (`None`: deleted) after the steps.
    final_state: BTreeMap<PathBuf, Option<Vec<u8>>>,
    /// Content on disk at prepare time for every path in `final_state`.
    on_disk: BTreeMap<PathBuf, Option<Vec<u8>>>,
    root: PathBuf,
}

fn plan(ops: &[PatchOp], ctx: &ToolContext) -> Plan {
    let root = paths::workspace_root(&ctx.workspace);
    let mut plan = Plan {
        steps: Vec::new(),
        failure: None,
        final_state: BTreeMap::new(),
        on_disk: BTreeMap::new(),
        root: root.clone(),
    };
    for (index, op) in ops.iter().enumerate() {
        match plan_op(op, &mut plan, ctx) {
            Ok(step) => plan.steps.push(step),
            Err(message) => {
                plan.failure = Some(format!(
                    "Operation {} of {} ({}, patch line {}) failed: {message}",
                    index + 1,
                    ops.len(),
                    op.describe(),
                    op.line()
                ));
                break;
            }
        }
    }
    plan
}

impl Plan {
    /// Current content of `path` as seen by the next operation.
    fn current(&mut self, path: &PathBuf, shown: &str) -> Result<Option<Vec<u8>>, String> {
        if let Some(state) = self.final_state.get(path) {
            return Ok(state.clone());
        }
        let disk = read_optional(path, shown)?;
        self.on_disk.insert(path.clone(), disk.clone());
        Ok(disk)
    }

    fn set(&mut self, path: &PathBuf, shown: &str, content: Option<Vec<u8>>) -> Result<(), String> {
        // Record what is on disk before the first change, for the staleness check in `run`.
        self.current(path, shown)?;
        self.final_state.insert(path.clone(), content);
        Ok(())
    }
}

fn plan_op(op: &PatchOp, plan: &mut Plan, ctx: &ToolContext) -> Result<Step, String> {
    let root = plan.root.clone();
    match op {
        PatchOp::Add { path, content, .. } => {
            let abs = paths::resolve_arg(&ctx.workspace, path)?;
            let shown = paths::display(&root, &abs);
            let old = plan.current(&abs, &shown)?;
            plan.set(&abs, &shown, Some(content.clone().into_bytes()))?;
            let change = FileChange {
                path: shown.clone(),
                kind: if old.is_some() {
                    FileChangeKind::Update
                } else {
                    FileChangeKind::Add
                },
                move_to: None,
                diff: unified_diff(
                    old.as_ref().map(|_| shown.as_str()),
                    Some(&shown),
                    old.as_deref().unwrap_or_default(),
                    content.as_bytes(),
                ),
            };
            Ok(Step {
                path: abs,
                move_to: None,
                summary: format!("A {shown}"),
                change,
            })
        }
        PatchOp::Delete { path, .. } => {
            let abs = paths::resolve_arg(&ctx.workspace, path)?;
            let shown = paths::display(&root, &abs);
            let Some(old) = plan.current(&abs, &shown)? else {
                return Err(format!(
                    "`{shown}` does not exist, so it cannot be deleted."
                ));
            };
            plan.set(&abs, &shown, None)?;
            let change = FileChange {
                path: shown.clone(),
                kind: FileChangeKind::Delete,
                move_to: None,
                diff: unified_diff(Some(&shown), None, &old, b""),
            };
            Ok(Step {
                path: abs,
                move_to: None,
                summary: format!("D {shown}"),
                change,
            })
        }
        PatchOp::Update {
            path,
            move_to,
            hunks,
            ..
        } => {
            let abs = paths::resolve_arg(&ctx.workspace, path)?;
            let shown = paths::display(&root, &abs);
            let Some(old) = plan.current(&abs, &shown)? else {
                return Err(format!(
                    "`{shown}` does not exist; use `*** Add File: {path}` to create it."
                ));
            };
            let Ok(text) = std::str::from_utf8(&old) else {
                return Err(format!(
                    "`{shown}` is not UTF-8 text, so it cannot be patched."
                ));
            };
            let new = apply::apply_hunks(text, hunks).map_err(|e| {
                format!(
                    "in `{shown}`, hunk {} of {} (patch line {}): {}\nRead the file again and \
                     copy the context lines exactly.",
                    e.hunk,
                    hunks.len(),
                    e.patch_line,
                    e.message
                )
            })?;
            let dest = move_to
                .as_ref()
                .map(|m| paths::resolve_arg(&ctx.workspace, m))
                .transpose()?;
            let dest = dest.filter(|d| d != &abs);
            match &dest {
                Some(dest) => {
                    let dest_shown = paths::display(&root, dest);
                    plan.set(dest, &dest_shown, Some(new.clone().into_bytes()))?;
                    plan.set(&abs, &shown, None)?;
                    let change = FileChange {
                        path: shown.clone(),
                        kind: FileChangeKind::Update,
                        move_to: Some(dest_shown.clone()),
                        diff: unified_diff(Some(&shown), Some(&dest_shown), &old, new.as_bytes()),
                    };
                    Ok(Step {
                        path: abs,
                        move_to: Some(dest.clone()),
                        summary: format!("M {shown} -> {dest_shown}"),
                        change,
                    })
                }
                None => {
                    plan.set(&abs, &shown, Some(new.clone().into_bytes()))?;
                    let change = FileChange {
                        path: shown.clone(),
                        kind: FileChangeKind::Update,
                        move_to: None,
                        diff: unified_diff(Some(&shown), Some(&shown), &old, new.as_bytes()),
                    };
                    Ok(Step {
                        path: abs,
                        move_to: None,
                        summary: format!("M {shown}"),
                        change,
                    })
                }
            }
        }
    }
}

struct PreparedPatch {
    action: ToolAction,
    plan: Plan,
}

impl PreparedCall for PreparedPatch {
    fn action(&self) -> &ToolAction {
        &self.action
    }

    fn run(self: Box<Self>, _ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let plan = self.plan;
            tokio::task::spawn_blocking(move || execute(plan))
                .await
                .unwrap_or_else(|e| ToolOutput::error(format!("applying the patch failed: {e}")))
        })
    }
}

fn execute(plan: Plan) -> ToolOutput {
    // Nothing is written when any file changed since the patch was worked out.
    for (path, expected) in &plan.on_disk {
        let shown = paths::display(&plan.root, path);
        match read_optional(path, &shown) {
            Ok(now) if &now == expected => {}
            Ok(_) => {
                return ToolOutput::error(format!(
                    "`{shown}` changed on disk after the patch was checked; no file was changed. \
                     Read it again and resend the patch."
                ));
            }
            Err(msg) => return ToolOutput::error(format!("{msg} No file was changed.")),
        }
    }
    // Writes first, then deletions, so a move never loses its source before its copy exists.
    let mut written = Vec::new();
    let ordered = plan
        .final_state
        .iter()
        .filter(|(_, c)| c.is_some())
        .chain(plan.final_state.iter().filter(|(_, c)| c.is_none()));
    for (path, content) in ordered {
        let shown = paths::display(&plan.root, path);
        let before = plan.on_disk.get(path).cloned().flatten();
        let result = match content {
            Some(bytes) if before.as_ref() == Some(bytes) => Ok(()),
            Some(bytes) => write_creating_parents(path, bytes),
            None if before.is_none() => Ok(()),
            None => std::fs::remove_file(path),
        };
        if let Err(err) = result {
            let done = if written.is_empty() {
                "No file was changed.".to_string()
            } else {
                format!("Already written: {}.", written.join(", "))
            };
            return ToolOutput::error(format!(
                "could not write `{shown}`: {}. {done}",
                paths::io_problem(&err)
            ));
        }
        written.push(format!("`{shown}`"));
    }
    let summary: Vec<&str> = plan.steps.iter().map(|s| s.summary.as_str()).collect();
    let changes: Vec<FileChange> = plan.steps.iter().map(|s| s.change.clone()).collect();
    let mut out = match &plan.failure {
        None => ToolOutput::ok(format!("Applied the patch:\n{}", summary.join("\n"))),
        Some(failure) => ToolOutput::error(format!(
            "The patch was applied only in part.\nApplied:\n{}\n{failure}\nThe operations after \
             it were not applied.",
            summary.join("\n")
        )),
    };
    out.details = Some(ToolDetails::FileChanges { changes });
    out
}
