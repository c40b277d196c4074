//! The engine's tools: what actually touches the machine.
//!
//! A call goes through two phases so the approval gate can see exactly what would happen
//! before anything happens:
//! 1. [`ToolHandler::prepare`] validates the arguments against the tool's schema and works out
//!    the [`ToolAction`] (the command to run, the files to write with their diff) without side
//!    effects. Bad arguments come back as a model-readable [`ToolOutput`] error, never as a
//!    failed turn.
//! 2. [`PreparedCall::run`] performs it, streaming output chunks through the
//!    [`ToolContext`] and honouring its cancellation token.
//!
//! Harness tool names (`Bash`, `run_shell_command`, `Read`, …) are mapped onto these engine
//! tools by the harness crate; handlers here only know the engine's own names and schemas.

// `ToolOutput` is the error value of `prepare` by design: a bad call is answered with a
// model-readable output, and it is a cold path, so its size does not matter.
#![allow(clippy::result_large_err)]

use std::path::PathBuf;
use std::sync::Arc;

mod apply_patch;
mod args;
pub mod ask_user;
mod capture;
mod edit;
mod environment;
mod file_change;
mod glob;
mod grep;
mod list_dir;
mod paths;
mod read_file;
mod search;
mod shell;
pub mod terminal;
mod todo;
mod write_file;

pub use apply_patch::ApplyPatchTool;
pub use ask_user::{AskUserTool, QuestionChannel, UserQuestions};
pub use edit::EditTool;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use list_dir::ListDirTool;
pub use paths::protected_reason;
pub use read_file::ReadFileTool;
pub use shell::{LIVE_OUTPUT_BYTES, ShellTool};
pub use terminal::{TerminalTool, close_session_terminals};
pub use todo::TodoWriteTool;
pub use write_file::WriteFileTool;

use futures::future::BoxFuture;
use tack_protocol::{FileChange, ToolOutput, ToolSpec};
use tokio_util::sync::CancellationToken;

pub use tack_protocol::ToolInput;

/// What a prepared call would do, for the approval gate and the approval dialog.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolAction {
    /// Reads only these paths (absolute).
    Read {
        /// Paths read.
        paths: Vec<PathBuf>,
    },
    /// Runs a shell command line.
    Exec {
        /// The command line as given to `bash -lc`.
        command: String,
        /// Working directory (absolute).
        cwd: PathBuf,
        /// The call asked to run without restrictions (e.g. `dangerouslyDisableSandbox`).
        escalated: bool,
    },
    /// Writes files; each change carries its unified diff.
    Write {
        /// Absolute paths touched (for moves: source and destination).
        paths: Vec<PathBuf>,
        /// Per-file changes with paths relative to the workspace where possible.
        changes: Vec<FileChange>,
    },
    /// No side effect outside the session (e.g. a todo list update).
    Internal,
}

/// Receives chunks of a running tool's output (merged stdout/stderr, lossy UTF-8).
pub type OutputSink = Arc<dyn Fn(&str) + Send + Sync>;

/// Resolves once the session's event queue has room again (at once when it has): a command
/// reader awaits it before reading more, so a front end that falls behind slows the command
/// (its pipe fills) instead of Tack's memory growing. See [`crate::events`].
pub type OutputRoom = Arc<dyn Fn() -> futures::future::BoxFuture<'static, ()> + Send + Sync>;

/// Default for [`CommandLimits::max_timeout_ms`]: 10 minutes.
pub const DEFAULT_MAX_COMMAND_TIMEOUT_MS: u64 = 10 * 60 * 1000;

/// Default for [`CommandLimits::max_output_bytes`]: 1 GiB.
pub const DEFAULT_MAX_COMMAND_OUTPUT_BYTES: u64 = 1 << 30;

/// Limits on the commands the model runs (config.toml `max_command_timeout_ms`,
/// `max_command_output_bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandLimits {
    /// Longest time limit a call may ask for (`timeout_ms`, a harness's `timeout`, a
    /// terminal's waits); a larger request is clamped to it, with a note in the output.
    pub max_timeout_ms: u64,
    /// Most bytes of output one command may write before it is stopped (the model only ever
    /// sees the capped head and tail, but reading has a cost, and a command printing without
    /// end would otherwise run until its timeout).
    pub max_output_bytes: u64,
}

impl Default for CommandLimits {
    fn default() -> Self {
        CommandLimits {
            max_timeout_ms: DEFAULT_MAX_COMMAND_TIMEOUT_MS,
            max_output_bytes: DEFAULT_MAX_COMMAND_OUTPUT_BYTES,
        }
    }
}

impl CommandLimits {
    /// `requested` clamped to [`CommandLimits::max_timeout_ms`], and the note to put in the
    /// output when it was (the model should know its limit was not the one it asked for).
    pub fn clamp_timeout(&self, requested: u64) -> (u64, Option<String>) {
        let max = self.max_timeout_ms.max(1);
        if requested <= max {
            (requested, None)
        } else {
            (
                max,
                Some(format!(
                    "[the requested time limit of {requested} ms is more than the maximum of \
                     {max} ms (max_command_timeout_ms in config.toml); {max} ms was used]"
                )),
            )
        }
    }
}

/// Where and how a call runs.
#[derive(Clone)]
pub struct ToolContext {
    /// Workspace root (absolute). Relative paths in arguments resolve against it.
    pub workspace: PathBuf,
    /// Call id (for logging).
    pub call_id: String,
    /// Streamed output chunks go here.
    pub output: OutputSink,
    /// Cancelled when the turn is interrupted: a running process group is killed and the call
    /// returns an `aborted` output.
    pub cancel: CancellationToken,
    /// Cap on the output returned to the model, in bytes (a marker says how much was cut).
    pub max_output_bytes: usize,
    /// Default time limit for commands, in milliseconds.
    pub default_timeout_ms: u64,
    /// Who can answer `ask_user` questions; `None` when nobody can (headless runs).
    pub questions: Option<ask_user::QuestionChannel>,
    /// The session the call belongs to (empty outside a session); per-session resources such
    /// as the `terminal` tool's tmux server are keyed by it.
    pub session_id: String,
    /// The sandbox commands run in; `None`: uncontained (`tack tool`, `danger-full-access`,
    /// or an escalation the user approved). The approval gate chooses it per call.
    pub sandbox: Option<tack_sandbox::SandboxPolicy>,
    /// Time and output limits on commands.
    pub limits: CommandLimits,
    /// Backpressure from whoever reads [`ToolContext::output`].
    pub output_room: OutputRoom,
}

impl ToolContext {
    /// A context with default limits and no output listener (tests and `tack tool`).
    pub fn new(workspace: impl Into<PathBuf>) -> Self {
        ToolContext {
            workspace: workspace.into(),
            call_id: "call".to_string(),
            output: Arc::new(|_: &str| {}),
            cancel: CancellationToken::new(),
            max_output_bytes: 30 * 1024,
            default_timeout_ms: 120_000,
            questions: None,
            session_id: String::new(),
            sandbox: None,
            limits: CommandLimits::default(),
            output_room: Arc::new(|| Box::pin(std::future::ready(()))),
        }
    }

    /// Resolves a path argument the way every tool reports paths: relative to the workspace
    /// (`~/` to the home directory), absolute, with `..` and symlinks resolved — a
    /// not-yet-existing file through its deepest existing ancestor, a dangling symlink through
    /// its target. A link inside the workspace that points outside resolves to the outside
    /// path.
    pub fn resolve(&self, path: &str) -> PathBuf {
        paths::resolve(&self.workspace, path)
    }

    /// The workspace with symlinks resolved. Paths in a [`ToolAction`] are resolved, so an
    /// inside/outside check should compare them against this, not against `workspace`.
    pub fn workspace_root(&self) -> PathBuf {
        paths::workspace_root(&self.workspace)
    }
}

/// An engine tool.
pub trait ToolHandler: Send + Sync {
    /// Engine name (`shell`, `read_file`, …).
    fn name(&self) -> &'static str;
    /// Spec with the engine's own description and JSON Schema.
    fn spec(&self) -> ToolSpec;
    /// Validates the input and works out the action, without side effects.
    ///
    /// # Errors
    /// A model-readable [`ToolOutput`] (status `failed`) explaining what is wrong with the
    /// arguments and how to fix them.
    fn prepare(
        &self,
        input: ToolInput,
        ctx: &ToolContext,
    ) -> Result<Box<dyn PreparedCall>, ToolOutput>;
    /// Whether harnesses that pass the engine's tools through (native, minimal) advertise
    /// this tool. Tools that exist for one harness's execution model (terminus-2's tmux
    /// `terminal`) say `false`; the harness that needs them binds to them directly.
    fn advertised(&self) -> bool {
        true
    }
}

/// A validated call, ready to run.
pub trait PreparedCall: Send {
    /// What it would do.
    fn action(&self) -> &ToolAction;
    /// Runs it. Never panics on bad input; failures are outputs with status `failed`,
    /// `timed_out` or `aborted`.
    fn run(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, ToolOutput>;
}

/// Every engine tool, in the order they are advertised.
pub fn builtin_tools() -> Vec<Arc<dyn ToolHandler>> {
    vec![
        Arc::new(ShellTool::new()),
        Arc::new(ReadFileTool::new()),
        Arc::new(WriteFileTool::new()),
        Arc::new(EditTool::new()),
        Arc::new(ApplyPatchTool::new()),
        Arc::new(ListDirTool::new()),
        Arc::new(GlobTool::new()),
        Arc::new(GrepTool::new()),
        Arc::new(TodoWriteTool::new()),
        Arc::new(AskUserTool::new()),
        Arc::new(TerminalTool::new()),
    ]
}

/// A set of tools with lookup by engine name.
#[derive(Clone)]
pub struct ToolSet {
    tools: Vec<Arc<dyn ToolHandler>>,
}

impl ToolSet {
    /// The built-in tools ([`builtin_tools`]).
    pub fn builtin() -> Self {
        ToolSet {
            tools: builtin_tools(),
        }
    }

    /// A set of the given tools; on duplicate names the first one wins in [`ToolSet::get`].
    pub fn new(tools: Vec<Arc<dyn ToolHandler>>) -> Self {
        ToolSet { tools }
    }

    /// The tool with this engine name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn ToolHandler>> {
        self.tools.iter().find(|t| t.name() == name)
    }

    /// Engine names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// Specs of every tool, in order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|t| t.spec()).collect()
    }

    /// The tools, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn ToolHandler>> {
        self.tools.iter()
    }
}

impl std::fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSet")
            .field("tools", &self.names())
            .finish()
    }
}
