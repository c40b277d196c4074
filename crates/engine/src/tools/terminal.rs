//! `terminal`: keystrokes into a persistent terminal, answered with what the screen shows.
//!
//! This is the execution model of terminal agents such as Terminus-2 (the `terminus-2`
//! harness binds its JSON commands here): the model types into a long-lived shell, waits, and
//! reads the screen — so interactive programs, a REPL, `less` or a running server work the way
//! they do for a person, which a one-shot `bash -lc` cannot offer.
//!
//! Choices worth knowing:
//! - **A real tmux per Tack session.** Each session gets its own tmux *server* on its own
//!   socket (`tmux -L tack-<session id>`, started with `-f /dev/null`), so it never reads the
//!   user's tmux configuration, never appears in their `tmux ls`, and never touches their
//!   sessions. The pane runs `bash --noprofile --norc -i` in the workspace with the prompt
//!   `PS1='$PWD$ '` (the `terminus-2` harness renders the same fresh screen in its first
//!   prompt) and `HISTFILE=/dev/null` (nothing is written to the user's shell history).
//!   Size 160×40 unless the first call asks otherwise (the agent's defaults), status line off.
//! - **Keystrokes are sent the way the agent sends them**: each command's `keystrokes` is one
//!   `tmux send-keys` argument, so a tmux key name on its own (`C-c`, `Enter`, `Escape`) is
//!   that key and anything else is typed character by character (`ls\n` runs `ls`). Text
//!   longer than tmux's command buffer is split and typed literally. After each command the
//!   tool waits its `duration` (0–60 s, default 1), as the agent's non-blocking `send_keys`.
//! - **The observation is the agent's** (harbor's `TmuxSession.get_incremental_output`): the
//!   whole scrollback is captured; when the previous capture is found in it, what follows its
//!   last line is returned as `New Terminal Output:`; otherwise (a cleared screen, a full-screen
//!   program) `Current Terminal Screen:` with the visible pane. Unlike the agent, trailing
//!   empty rows of the new output are dropped.
//! - **Cleanup.** [`close_session_terminals`] stops a session's tmux server (the engine calls
//!   it when a session closes). Each server also hosts a small watchdog session that stops the
//!   server once the Tack process that started it is gone — a crash or `kill -9` included — so
//!   no tmux outlives Tack by more than a couple of seconds. The first terminal started by a
//!   process also removes `tack-*` servers whose owner process no longer exists (their owner
//!   pid is kept in the server option `@tack_owner`).
//! - **In the sandbox.** When the call that opens the terminal has [`ToolContext::sandbox`]
//!   set (any mode but `danger-full-access`), the tmux *server* itself runs inside `bwrap`
//!   ([`tack_sandbox::contain`]), in the foreground (`tmux -D`), with an allow-listed
//!   environment; every shell and program in the pane is then contained by the policy of that
//!   first call, which stays fixed for the terminal's life (a later call's own policy does not
//!   change it: an escalated call still types into the contained shell). Its socket lives in a
//!   folder of its own (`$TMPDIR/tack-tmux-<uid>/<socket name>/tmux.sock`, mode 0700), the
//!   only folder shared with the sandbox; tmux's own socket folder (the user's servers, other
//!   sessions' terminals) stays out of reach. Tack drives the server with the ordinary tmux
//!   client, but runs each client in a read-only sandbox of its own that shares only that
//!   folder: the terminal's shell can replace the socket with a link to another server, and
//!   a client outside would follow it. A server that lost its shell or socket is replaced,
//!   contained as before, never revived from outside. No watchdog is needed there: the
//!   server dies with Tack (`bwrap` gets `PR_SET_PDEATHSIG`, and everything in the sandbox
//!   dies with `bwrap`), and [`close_session_terminals`] kills the sandbox rather than asking
//!   the socket. A terminal opened uncontained is restarted contained (its state lost, and
//!   the output says so) when a call arrives with a sandbox.
//! - **Approval.** A call that types something is an `Exec` action whose command is the
//!   keystrokes (one command per line), so the approval gate judges typed shell commands like
//!   any other command line; a call with no keystrokes only reads the screen and needs no
//!   approval.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock, Mutex, Once};
use std::time::Duration;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::json;
use tack_protocol::{SandboxMode, ToolOutput, ToolSpec};
use tack_sandbox::SandboxPolicy;

use super::args::ArgsSchema;
use super::{PreparedCall, ToolAction, ToolContext, ToolHandler, ToolInput};

/// Default pane size (Terminus-2's `tmux_pane_width` / `tmux_pane_height`).
pub const DEFAULT_SIZE: (u16, u16) = (160, 40);

/// Longest wait after one command, in seconds (Terminus-2 caps `duration` at 60).
pub const MAX_WAIT_S: f64 = 60.0;

/// Lines of scrollback the pane keeps; the incremental output is found in it.
const HISTORY_LIMIT: u32 = 100_000;

/// tmux drops commands longer than its buffer (about 16 KiB); longer keystrokes are split.
const SEND_CHUNK: usize = 8_000;

/// The tmux session holding the pane, inside each per-session server.
const PANE_SESSION: &str = "main";

/// The `terminal` tool. Arguments: `{commands: [{keystrokes: string, duration?: number}],
/// width?: integer, height?: integer}`.
pub struct TerminalTool {
    args: ArgsSchema,
}

impl Default for TerminalTool {
    fn default() -> Self {
        Self::new()
    }
}

impl TerminalTool {
    /// Engine name.
    pub const NAME: &'static str = "terminal";

    /// Creates the tool.
    pub fn new() -> Self {
        TerminalTool {
            args: ArgsSchema::new(
                Self::NAME,
                json!({
                    "type": "object",
                    "properties": {
                        "commands": {
                            "type": "array",
                            "description": "Keystroke batches, typed in order; empty to just read the screen",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "keystrokes": {"type": "string", "description": "Typed verbatim; end a shell command with a newline to run it. A tmux key name on its own (C-c, C-d, Enter, Escape) sends that key"},
                                    "duration": {"type": "number", "minimum": 0, "description": "Seconds to wait after typing, before the next batch or reading the screen (default 1, at most 60)"}
                                },
                                "required": ["keystrokes"],
                                "additionalProperties": false
                            }
                        },
                        "width": {"type": "integer", "minimum": 20, "maximum": 1000, "description": "Terminal columns when the terminal is first opened (default 160)"},
                        "height": {"type": "integer", "minimum": 5, "maximum": 1000, "description": "Terminal rows when the terminal is first opened (default 40)"}
                    },
                    "required": ["commands"],
                    "additionalProperties": false
                }),
            ),
        }
    }
}

#[derive(Deserialize)]
struct TerminalArgs {
    commands: Vec<Keys>,
    width: Option<u16>,
    height: Option<u16>,
}

#[derive(Deserialize, Clone)]
struct Keys {
    keystrokes: String,
    #[serde(default = "default_duration")]
    duration: f64,
}

fn default_duration() -> f64 {
    1.0
}

/// The wait after one batch, in seconds: `duration` within 0–[`MAX_WAIT_S`] (1 when it is
/// not a number).
fn wait_of(duration: f64) -> f64 {
    if duration.is_finite() {
        duration.clamp(0.0, MAX_WAIT_S)
    } else {
        1.0
    }
}

struct PreparedTerminal {
    key: String,
    workspace: PathBuf,
    commands: Vec<Keys>,
    size: (u16, u16),
    action: ToolAction,
}

impl ToolHandler for TerminalTool {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn advertised(&self) -> bool {
        false
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec::function(
            Self::NAME,
            "Type into a persistent terminal (one shell that stays open for the whole session) and see what the screen shows afterwards. Each batch of keystrokes is typed exactly as given: end a shell command with a newline to run it; a tmux key name on its own, such as C-c, sends that key. After each batch the tool waits `duration` seconds. Returns the output that appeared since the last call, or the current screen.",
            self.args.schema().clone(),
        )
    }

    fn prepare(
        &self,
        input: ToolInput,
        ctx: &ToolContext,
    ) -> Result<Box<dyn PreparedCall>, ToolOutput> {
        let args: TerminalArgs = self.args.parse(input)?;
        let typed: Vec<String> = args
            .commands
            .iter()
            .filter(|k| !k.keystrokes.is_empty())
            .map(|k| {
                k.keystrokes
                    .strip_suffix('\n')
                    .unwrap_or(&k.keystrokes)
                    .to_string()
            })
            .collect();
        let action = if typed.is_empty() {
            ToolAction::Internal
        } else {
            ToolAction::Exec {
                command: typed.join("\n"),
                cwd: ctx.workspace.clone(),
                escalated: false,
            }
        };
        Ok(Box::new(PreparedTerminal {
            key: session_key(&ctx.session_id),
            workspace: ctx.workspace.clone(),
            commands: args.commands,
            size: (
                args.width.unwrap_or(DEFAULT_SIZE.0),
                args.height.unwrap_or(DEFAULT_SIZE.1),
            ),
            action,
        }))
    }
}

impl PreparedCall for PreparedTerminal {
    fn action(&self) -> &ToolAction {
        &self.action
    }

    fn run(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let terminal = terminal_for(&self.key);
            let mut terminal = terminal.lock().await;
            let note = match terminal
                .ensure_started(&self.workspace, self.size, ctx.sandbox.as_ref())
                .await
            {
                Ok(note) => note,
                Err(e) => return ToolOutput::error(format!("terminal: {e}")),
            };
            // The waits of one call together stay within the configured longest time limit
            // of a command, like a shell call's `timeout_ms`.
            let requested: f64 = self
                .commands
                .iter()
                .map(|k| wait_of(k.duration))
                .sum::<f64>();
            let (_, clamp_note) = ctx.limits.clamp_timeout((requested * 1000.0).ceil() as u64);
            let mut left = Duration::from_millis(ctx.limits.max_timeout_ms);
            for keys in &self.commands {
                if ctx.cancel.is_cancelled() {
                    return ToolOutput::aborted("[aborted by user]");
                }
                if let Err(e) = terminal.send(&keys.keystrokes).await {
                    return ToolOutput::error(format!("terminal: {e}"));
                }
                let wait = Duration::from_secs_f64(wait_of(keys.duration)).min(left);
                left = left.saturating_sub(wait);
                tokio::select! {
                    () = ctx.cancel.cancelled() => return ToolOutput::aborted("[aborted by user]"),
                    () = tokio::time::sleep(wait) => {}
                }
            }
            let note = match (note, clamp_note) {
                (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
                (a, b) => a.or(b),
            };
            match terminal.incremental_output().await {
                Ok(text) => {
                    let text = cap(&text, ctx.max_output_bytes);
                    ToolOutput::ok(match note {
                        Some(note) => format!("{note}\n{text}"),
                        None => text,
                    })
                }
                Err(e) => ToolOutput::error(format!("terminal: {e}")),
            }
        })
    }
}

/// Stops the terminal of a session (its tmux server and everything running in it). Safe to
/// call for a session that never opened one. Blocking (runs `tmux kill-server`).
pub fn close_session_terminals(session_id: &str) {
    let key = session_key(session_id);
    let removed = lock(&TERMINALS).remove(&key);
    // A contained server is stopped by killing its sandbox, never through its socket (which
    // the terminal's shell could have swapped). If a call holds the terminal right now, the
    // server goes when that call lets go of it (the child is killed on drop).
    if let Some(terminal) = &removed
        && let Ok(mut terminal) = terminal.try_lock()
        && let Some(mut server) = terminal.server.take()
    {
        let _ = server.child.start_kill();
    }
    drop(removed);
    // An uncontained server may exist without a registry entry (e.g. started before a
    // restart of the registry's owner); kill by socket name either way.
    let socket = socket_name(&key);
    let _ = std::process::Command::new("tmux")
        .args(["-L", &socket, "kill-server"])
        .env_remove("TMUX")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    // tmux leaves its socket file behind when the server is killed.
    let _ = std::fs::remove_file(socket_dir().join(&socket));
    let _ = std::fs::remove_dir_all(contained_socket_dir(&key));
}

/// The socket file's name inside a contained terminal's own folder.
const CONTAINED_SOCKET: &str = "tmux.sock";

/// The folder holding the socket of a session's contained tmux server:
/// `$TMPDIR/tack-tmux-<uid>/<socket name>` (not created here).
fn contained_socket_dir(key: &str) -> PathBuf {
    contained_base().join(socket_name(key))
}

fn contained_base() -> PathBuf {
    std::env::temp_dir().join(format!("tack-tmux-{}", rustix::process::getuid().as_raw()))
}

/// Creates (or checks) the folder for a contained server's socket. Its parent is private to
/// this user (0700, owned by them, not a symlink), so nobody else can reach the socket or
/// slip a folder of their own in.
fn make_contained_socket_dir(key: &str) -> Result<PathBuf, String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let base = contained_base();
    let problem = |e: std::io::Error| format!("{}: {e}", base.display());
    match std::fs::DirBuilder::new().mode(0o700).create(&base) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(problem(e)),
    }
    let meta = std::fs::symlink_metadata(&base).map_err(problem)?;
    if !meta.is_dir()
        || meta.uid() != rustix::process::getuid().as_raw()
        || meta.mode() & 0o077 != 0
    {
        return Err(format!(
            "{} is not a private folder of this user; remove it",
            base.display()
        ));
    }
    let dir = contained_socket_dir(key);
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    }
    Ok(dir)
}

/// The tmux socket name of a session: `tack-<session id>`, with characters tmux or a file
/// name could trip over replaced.
pub fn socket_name(session_id: &str) -> String {
    let clean: String = session_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    format!("tack-{clean}")
}

fn session_key(session_id: &str) -> String {
    if session_id.is_empty() {
        // Tools run outside a session (`tack tool`, tests without an id) share one terminal per
        // process.
        format!("process-{}", std::process::id())
    } else {
        session_id.to_string()
    }
}

type Shared = Arc<tokio::sync::Mutex<Terminal>>;

static TERMINALS: LazyLock<Mutex<HashMap<String, Shared>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn terminal_for(key: &str) -> Shared {
    lock(&TERMINALS)
        .entry(key.to_string())
        .or_insert_with(|| {
            Arc::new(tokio::sync::Mutex::new(Terminal {
                key: key.to_string(),
                socket: Socket::Named(socket_name(key)),
                server: None,
                previous: None,
            }))
        })
        .clone()
}

/// How the tmux client reaches a session's server.
#[derive(Clone)]
enum Socket {
    /// `-L tack-<id>`: in tmux's own socket folder (uncontained servers).
    Named(String),
    /// `-S <path>`: in a folder of its own, the one the sandbox shares (contained servers).
    Path(PathBuf),
}

impl Socket {
    fn args(&self) -> [std::ffi::OsString; 2] {
        match self {
            Socket::Named(name) => ["-L".into(), name.into()],
            Socket::Path(path) => ["-S".into(), path.into()],
        }
    }
}

/// A tmux server running in the foreground inside the sandbox.
struct ContainedServer {
    /// `bwrap`, killed when dropped (and everything in the sandbox with it).
    child: tokio::process::Child,
    /// The server's cgroup, removed when dropped.
    _guard: tack_sandbox::ContainGuard,
    /// The policy it runs under; a replacement server gets the same.
    policy: SandboxPolicy,
    /// Where tmux clients run: a read-only sandbox that shares only the socket's folder.
    /// The folder is writable from inside the terminal, so its socket may have been swapped
    /// for a link to some other server (the user's own tmux); a client inside a sandbox
    /// cannot reach any socket the terminal's shell could not reach itself.
    client: SandboxPolicy,
    /// The workspace, where clients start.
    cwd: PathBuf,
}

/// One session's terminal.
struct Terminal {
    /// The registry key (session id), which names the sockets.
    key: String,
    socket: Socket,
    /// The contained server, when the terminal runs in the sandbox.
    server: Option<ContainedServer>,
    /// The scrollback at the last capture, to find what is new.
    previous: Option<String>,
}

impl Terminal {
    async fn tmux(&self, args: &[&str]) -> Result<String, String> {
        match (&self.server, &self.socket) {
            (Some(server), Socket::Path(socket)) => tmux_contained(server, socket, args).await,
            _ => tmux(&self.socket, args).await,
        }
    }

    async fn has_session(&self) -> bool {
        self.tmux(&["has-session", "-t", PANE_SESSION])
            .await
            .is_ok()
    }

    /// Starts the terminal unless it is running. Returns a note for the model when a running
    /// terminal had to be replaced.
    async fn ensure_started(
        &mut self,
        workspace: &std::path::Path,
        (width, height): (u16, u16),
        sandbox: Option<&SandboxPolicy>,
    ) -> Result<Option<String>, String> {
        let mut policy = sandbox
            .filter(|p| p.mode != SandboxMode::DangerFullAccess)
            .cloned();
        let mut note = None;
        if let Some(server) = &mut self.server {
            let alive = matches!(server.child.try_wait(), Ok(None));
            if alive && self.has_session().await {
                return Ok(None);
            }
            // Gone, or its shell ended (or its socket went): replaced whole, never revived
            // from outside, and contained as before.
            if let Some(old) = self.server.take() {
                policy = policy.or(Some(old.policy.clone()));
            }
            note = Some(
                "[the terminal had stopped (its shell or tmux server was gone); this is a new \
                 one]"
                    .to_string(),
            );
            self.socket = Socket::Named(socket_name(&self.key));
        } else if self.has_session().await {
            if policy.is_none() {
                return Ok(None);
            }
            // An uncontained terminal is open, but this call must be contained.
            let _ = self.tmux(&["kill-server"]).await;
            let _ = std::fs::remove_file(socket_dir().join(socket_name(&self.key)));
            note = Some(
                "[the terminal was restarted inside the sandbox; what ran in it before is gone]"
                    .to_string(),
            );
        }
        if let Some(policy) = &policy {
            self.start_contained(policy, workspace).await?;
        }
        static SWEEP: Once = Once::new();
        SWEEP.call_once(|| {
            tokio::task::spawn_blocking(sweep_leftovers);
        });
        let cwd = workspace.to_string_lossy().into_owned();
        let (w, h, limit, pid) = (
            width.to_string(),
            height.to_string(),
            HISTORY_LIMIT.to_string(),
            std::process::id().to_string(),
        );
        // Socket names are `[A-Za-z0-9_-]` only (see `socket_name`) and the path is quoted, so the
        // script needs no further escaping.
        let watchdog = format!(
            // The socket file goes first: tmux leaves it behind, and stopping the server also
            // stops this script.
            "while kill -0 {pid} 2>/dev/null; do sleep 2; done; server=$(tmux -L {socket} display-message -p '#{{pid}}'); rm -f '{path}'; kill $server",
            socket = socket_name(&self.key),
            path = socket_dir()
                .join(socket_name(&self.key))
                .display()
                .to_string()
                .replace('\'', ""),
        );
        #[rustfmt::skip]
        let mut args = vec![
            "-f", "/dev/null", "start-server", ";",
            "set-option", "-g", "history-limit", &limit, ";",
            "set-option", "-g", "status", "off", ";",
            // Nothing of the client's environment reaches the pane (SSH_AUTH_SOCK, DISPLAY…).
            "set-option", "-g", "update-environment", "", ";",
            "set-option", "-g", "@tack_owner", &pid, ";",
            "new-session", "-d", "-s", PANE_SESSION, "-x", &w, "-y", &h, "-c", &cwd,
                "env", "PS1=$PWD$ ", "HISTFILE=/dev/null", "bash", "--noprofile", "--norc", "-i",
        ];
        if self.server.is_none() {
            // A contained server cannot see Tack's pid and dies with Tack anyway.
            args.extend([
                ";",
                "new-session",
                "-d",
                "-s",
                "watchdog",
                "sh",
                "-c",
                &watchdog,
            ]);
        }
        self.tmux(&args).await?;
        self.previous = None;
        // Wait for the shell to draw its prompt, so the first capture is the fresh screen.
        for _ in 0..100 {
            let screen = self
                .tmux(&["capture-pane", "-p", "-t", PANE_SESSION])
                .await?;
            if !screen.trim().is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.previous = Some(self.scrollback().await?);
        Ok(note)
    }

    /// Starts this session's tmux server inside the sandbox, in the foreground, and waits for
    /// its socket.
    async fn start_contained(
        &mut self,
        policy: &SandboxPolicy,
        workspace: &std::path::Path,
    ) -> Result<(), String> {
        let dir = make_contained_socket_dir(&self.key)?;
        let socket = dir.join(CONTAINED_SOCKET);
        let _ = std::fs::remove_file(&socket);
        let mut policy = policy.clone();
        policy.shared.push(dir.clone());
        let mut client = SandboxPolicy::new(SandboxMode::ReadOnly, workspace);
        client.shared.push(dir);
        client.max_processes = Some(16);
        let argv = [
            "tmux".to_string(),
            "-D".to_string(),
            "-S".to_string(),
            socket.to_string_lossy().into_owned(),
            "-f".to_string(),
            "/dev/null".to_string(),
        ];
        let contained = tack_sandbox::contain(&policy, &argv, workspace)
            .map_err(|e| format!("could not start the terminal in the sandbox: {e}"))?;
        let mut command = tokio::process::Command::from(contained.command);
        command
            .env_clear()
            .envs(super::environment::sandbox_environment())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .kill_on_drop(true);
        #[cfg(target_os = "linux")]
        super::shell::die_with_parent(&mut command);
        let mut child = command.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "bwrap is not installed".to_string(),
            _ => format!("could not start the sandbox (bwrap): {e}"),
        })?;
        for _ in 0..500 {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!(
                    "the tmux server in the sandbox exited at once ({status}); is tmux \
                     installed?"
                ));
            }
            if socket.exists() {
                self.socket = Socket::Path(socket);
                self.server = Some(ContainedServer {
                    child,
                    _guard: contained.guard,
                    policy,
                    client,
                    cwd: workspace.to_path_buf(),
                });
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Err("the tmux server in the sandbox did not open its socket within 5 s".to_string())
    }

    async fn send(&self, keystrokes: &str) -> Result<(), String> {
        if keystrokes.is_empty() {
            return Ok(());
        }
        if keystrokes.len() <= SEND_CHUNK {
            self.tmux(&["send-keys", "-t", PANE_SESSION, "--", keystrokes])
                .await?;
            return Ok(());
        }
        let mut rest = keystrokes;
        while !rest.is_empty() {
            let mut end = SEND_CHUNK.min(rest.len());
            while !rest.is_char_boundary(end) {
                end -= 1;
            }
            self.tmux(&["send-keys", "-t", PANE_SESSION, "-l", "--", &rest[..end]])
                .await?;
            rest = &rest[end..];
        }
        Ok(())
    }

    async fn scrollback(&self) -> Result<String, String> {
        self.tmux(&["capture-pane", "-p", "-S", "-", "-t", PANE_SESSION])
            .await
    }

    async fn incremental_output(&mut self) -> Result<String, String> {
        let current = self.scrollback().await?;
        let previous = self.previous.replace(current.clone());
        let new = previous.and_then(|p| new_content(&p, &current));
        match new {
            Some(text) if !text.trim().is_empty() => Ok(format!("New Terminal Output:\n{text}")),
            _ => {
                let screen = self
                    .tmux(&["capture-pane", "-p", "-t", PANE_SESSION])
                    .await?;
                Ok(format!("Current Terminal Screen:\n{screen}"))
            }
        }
    }
}

/// What follows the previous capture in the current one: from the previous capture's last
/// line (where the next command was typed) on, trailing empty rows dropped. `None` when the
/// previous capture is not found (the screen was cleared or redrawn).
pub fn new_content(previous: &str, current: &str) -> Option<String> {
    let previous = previous.trim();
    let at = current.find(previous)?;
    let start = at + previous.rfind('\n').map_or(0, |i| i + 1);
    let text = current[start..].trim_end();
    Some(if text.is_empty() {
        String::new()
    } else {
        format!("{text}\n")
    })
}

/// Runs a tmux client inside the client sandbox of a contained server.
async fn tmux_contained(
    server: &ContainedServer,
    socket: &std::path::Path,
    args: &[&str],
) -> Result<String, String> {
    let argv: Vec<String> = ["tmux", "-S"]
        .into_iter()
        .map(str::to_string)
        .chain([socket.to_string_lossy().into_owned()])
        .chain(args.iter().map(|a| a.to_string()))
        .collect();
    let contained = tack_sandbox::contain(&server.client, &argv, &server.cwd)
        .map_err(|e| format!("could not reach the terminal in the sandbox: {e}"))?;
    let mut command = tokio::process::Command::from(contained.command);
    let output = command
        .env_clear()
        .envs(super::environment::sandbox_environment())
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await;
    drop(contained.guard);
    tmux_result(args, output)
}

async fn tmux(socket: &Socket, args: &[&str]) -> Result<String, String> {
    let mut command = tokio::process::Command::new("tmux");
    // The client that starts the server passes its environment on to every shell in it.
    for name in super::environment::hidden_variables() {
        command.env_remove(name);
    }
    let output = command
        .args(socket.args())
        .args(args)
        .env_remove("TMUX")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await;
    tmux_result(args, output)
}

fn tmux_result(
    args: &[&str],
    output: std::io::Result<std::process::Output>,
) -> Result<String, String> {
    let output = output.map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "tmux is not installed; install it (e.g. `apt-get install tmux` or `brew install tmux`) to use the terminal".to_string(),
            _ => format!("could not run tmux: {e}"),
        })?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!(
            "tmux {} failed: {}",
            args.first().copied().unwrap_or_default(),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// Where tmux keeps this user's sockets: `$TMUX_TMPDIR/tmux-<uid>` (default `/tmp`).
fn socket_dir() -> PathBuf {
    let base = std::env::var_os("TMUX_TMPDIR").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    base.join(format!("tmux-{}", rustix::process::getuid().as_raw()))
}

/// Stops `tack-*` tmux servers of this user whose owner process is gone, and removes sockets
/// nobody listens on any more.
fn sweep_leftovers() {
    let dir = socket_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let mine = std::process::id();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with("tack-") {
            continue;
        }
        let owner = std::process::Command::new("tmux")
            .args(["-L", &name, "show-options", "-gqv", "@tack_owner"])
            .env_remove("TMUX")
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output();
        let Ok(owner) = owner else { return };
        if !owner.status.success() {
            // No server behind the socket: a stale file.
            let _ = std::fs::remove_file(entry.path());
            continue;
        }
        let pid: Option<u32> = String::from_utf8_lossy(&owner.stdout).trim().parse().ok();
        let alive = match pid {
            Some(p) if p == mine => true,
            Some(p) => i32::try_from(p)
                .ok()
                .and_then(rustix::process::Pid::from_raw)
                .is_some_and(|pid| {
                    !matches!(
                        rustix::process::test_kill_process(pid),
                        Err(rustix::io::Errno::SRCH)
                    )
                }),
            None => true,
        };
        if !alive {
            let _ = std::process::Command::new("tmux")
                .args(["-L", &name, "kill-server"])
                .env_remove("TMUX")
                .stdin(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Keeps the first and last halves of `text` when it exceeds `max` bytes.
fn cap(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut head = max / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - max / 2;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{}\n[… {} bytes of terminal output omitted …]\n{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_content_starts_at_the_previous_last_line() {
        let prev = "/w$ \n\n\n";
        let cur = "/w$ ls\na b\n/w$ \n\n";
        assert_eq!(
            new_content(prev, cur).as_deref(),
            Some("/w$ ls\na b\n/w$\n")
        );
        assert_eq!(new_content("gone\n", "/w$ \n"), None);
        assert_eq!(new_content("/w$", "/w$\n\n").as_deref(), Some("/w$\n"));
    }

    #[test]
    fn socket_names_are_safe() {
        assert_eq!(
            socket_name("20260101-120000-ab12"),
            "tack-20260101-120000-ab12"
        );
        assert_eq!(socket_name("a/b c"), "tack-a_b_c");
    }

    #[test]
    fn cap_keeps_both_ends() {
        let text = "x".repeat(100);
        let capped = cap(&text, 20);
        assert!(
            capped.starts_with("xxxxxxxxxx\n[…") && capped.ends_with("…]\nxxxxxxxxxx"),
            "{capped}"
        );
    }
}
