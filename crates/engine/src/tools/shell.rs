//! `shell`: runs a command line with `bash -lc` in its own process group.
//!
//! Choices worth knowing:
//! - stdout and stderr share one pipe, so the output keeps the exact order in which the
//!   process wrote it (two pipes read concurrently can only approximate that order).
//! - The command gets its own process group, so a timeout or an interrupt stops everything
//!   it started: SIGTERM to the group, a short grace, then SIGKILL.
//! - A background child that keeps the output pipe open (`server &`) would otherwise keep
//!   the call waiting forever after the shell exits. Once the shell has exited, the call
//!   waits [`DRAIN_GRACE`] for the pipe to close; if something still holds it, the group is
//!   stopped and the output says so. Background processes whose output is redirected
//!   (`server > log 2>&1 &`) do not hold the pipe and keep running.
//! - stdin is `/dev/null`: nothing can wait for keyboard input.
//! - On Linux the shell gets SIGKILL if Tack dies without stopping it (SIGKILL, a crash), via
//!   `PR_SET_PDEATHSIG`. Only the shell itself: what it started outlives it (the kernel does
//!   not pass the setting on to forked children), which is why a resumed session says such a
//!   call's effects may be partial.
//! - **In the sandbox** ([`ToolContext::sandbox`] set, any mode but `danger-full-access`) the
//!   same `bash -lc` runs inside `bwrap` ([`tack_sandbox::contain`]) with an allow-listed
//!   environment (`environment::sandbox_environment`). The process group is then `bwrap`'s;
//!   stopping it stops the sandbox, and the kernel kills everything inside with it. Unlike an
//!   uncontained call, nothing outlives the shell there: background processes end with the
//!   call even when their output is redirected. A failure that looks like the sandbox's
//!   refusal (a read-only file system, no network) is named in the exec details'
//!   `sandbox_denial` and in a note to the model, so the approval gate can offer to run it
//!   again outside.

use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use rustix::process::{Pid, Signal};
use serde::Deserialize;
use serde_json::json;
use tack_protocol::{SandboxMode, ToolDetails, ToolOutput, ToolSpec, ToolStatus};
use tokio::io::AsyncReadExt;

use super::args::ArgsSchema;
use super::capture::{HeadTail, Utf8Decoder};
use super::{PreparedCall, ToolAction, ToolContext, ToolHandler, ToolInput, paths};

/// After the shell exits, how long background holders of the output pipe may keep writing.
pub const DRAIN_GRACE: Duration = Duration::from_millis(500);
/// Between SIGTERM and SIGKILL when a command is stopped.
pub const KILL_GRACE: Duration = Duration::from_millis(1000);
/// Upper bound on waiting for the pipe to close once SIGKILL was sent.
const REAP_LIMIT: Duration = Duration::from_secs(5);

/// The `shell` tool. Arguments: `{command: string, workdir?: string, timeout_ms?: integer}`.
pub struct ShellTool {
    args: ArgsSchema,
}

impl Default for ShellTool {
    fn default() -> Self {
        Self::new()
    }
}

impl ShellTool {
    /// Engine name.
    pub const NAME: &'static str = "shell";

    /// Creates the tool.
    pub fn new() -> Self {
        ShellTool {
            args: ArgsSchema::new(
                Self::NAME,
                json!({
                    "type": "object",
                    "properties": {
                        "command": {
                            "type": "string",
                            "minLength": 1,
                            "description": "Command line, run as `bash -lc <command>`"
                        },
                        "workdir": {
                            "type": "string",
                            "description": "Directory to run in, absolute or relative to the workspace (default: the workspace)"
                        },
                        "timeout_ms": {
                            "type": "integer",
                            "minimum": 1,
                            "description": "Time limit in milliseconds; the command and everything it started are stopped when it runs out"
                        }
                    },
                    "required": ["command"],
                    "additionalProperties": false
                }),
            ),
        }
    }
}

#[derive(Deserialize)]
struct ShellArgs {
    command: String,
    workdir: Option<String>,
    timeout_ms: Option<u64>,
}

impl ToolHandler for ShellTool {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec::function(
            Self::NAME,
            "Run a bash command line in the workspace and return its combined stdout and stderr \
             with the exit code. Each call starts a fresh shell: `cd` and variables do not carry \
             over; use `workdir` instead. Long output is shortened in the middle. Commands that \
             wait for input get none. In the sandbox, everything a command starts ends with the \
             call, so start a server and use it in the same call; without a sandbox, a server \
             put in the background with its output redirected to a file keeps running.",
            self.args.schema().clone(),
        )
    }

    fn prepare(
        &self,
        input: ToolInput,
        ctx: &ToolContext,
    ) -> Result<Box<dyn PreparedCall>, ToolOutput> {
        let args: ShellArgs = self.args.parse(input)?;
        if args.command.trim().is_empty() {
            return Err(ToolOutput::error(
                "`command` is empty; give a command line to run.",
            ));
        }
        let cwd = paths::resolve(&ctx.workspace, args.workdir.as_deref().unwrap_or("."));
        match std::fs::metadata(&cwd) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(ToolOutput::error(format!(
                    "`workdir` {} is not a directory.",
                    cwd.display()
                )));
            }
            Err(err) => {
                return Err(ToolOutput::error(format!(
                    "`workdir` {}: {}.",
                    cwd.display(),
                    paths::io_problem(&err)
                )));
            }
        }
        let (timeout_ms, timeout_note) = ctx
            .limits
            .clamp_timeout(args.timeout_ms.unwrap_or(ctx.default_timeout_ms));
        Ok(Box::new(PreparedShell {
            action: ToolAction::Exec {
                command: args.command.clone(),
                cwd: cwd.clone(),
                escalated: false,
            },
            command: args.command,
            cwd,
            timeout: Duration::from_millis(timeout_ms),
            timeout_note,
        }))
    }
}

struct PreparedShell {
    action: ToolAction,
    command: String,
    cwd: PathBuf,
    timeout: Duration,
    /// Said in the output when the model asked for a longer time limit than allowed.
    timeout_note: Option<String>,
}

impl PreparedCall for PreparedShell {
    fn action(&self) -> &ToolAction {
        &self.action
    }

    fn run(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move { run_command(*self, ctx).await })
    }
}

/// Has the kernel SIGKILL the shell when its parent goes away without stopping it.
///
/// `PR_SET_PDEATHSIG` (prctl(2)) fires when the *thread* that forked the child exits, so this
/// relies on commands being spawned from async tasks (runtime worker threads, or the thread
/// running `block_on`, which live as long as the runtime), never from a `spawn_blocking`
/// thread that the pool may retire while the command runs.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub(super) fn die_with_parent(command: &mut tokio::process::Command) {
    let parent = rustix::process::getpid();
    // SAFETY: the hook runs in the forked child before exec, where only async-signal-safe
    // work is allowed: it makes two raw system calls and neither allocates nor locks (the
    // error conversion builds an OS error code, no boxing).
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
            // The parent died between fork and prctl: no signal will come, so give up now.
            if rustix::process::getppid() != Some(parent) {
                return Err(rustix::io::Errno::SRCH.into());
            }
            Ok(())
        });
    }
}

/// How the wait for the command ended.
enum Ending {
    Exited(ExitStatus),
    TimedOut,
    Aborted,
    /// It wrote more than [`super::CommandLimits::max_output_bytes`].
    OverBudget,
}

/// Output streamed live to the front end per call; beyond it the output is still read (and
/// capped for the model) but no longer shown as it comes, and the end says how much was not.
/// A screen shows a few thousand lines; a megabyte is hundreds of screens.
pub const LIVE_OUTPUT_BYTES: usize = 1 << 20;

/// Kills the process group if the run is dropped half-way (e.g. the turn future is dropped).
struct GroupGuard {
    pgid: Option<Pid>,
    armed: bool,
}

impl GroupGuard {
    fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.pgid {
            // ESRCH (the group is already gone) is the expected outcome when stopping late.
            let _ = rustix::process::kill_process_group(pgid, signal);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            self.signal(Signal::KILL);
        }
    }
}

/// Output plumbing shared by the phases of a run.
struct Collector {
    decoder: Utf8Decoder,
    capped: HeadTail,
    ctx: ToolContext,
    /// Bytes the command wrote.
    read: u64,
    /// Text bytes streamed live so far, and those left out after [`LIVE_OUTPUT_BYTES`].
    live: usize,
    not_live: usize,
}

impl Collector {
    fn feed(&mut self, bytes: &[u8]) {
        self.read += bytes.len() as u64;
        let text = self.decoder.push(bytes);
        self.emit(&text);
    }

    fn over_budget(&self) -> bool {
        self.read > self.ctx.limits.max_output_bytes
    }

    fn emit(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.capped.push(text);
        if self.live < LIVE_OUTPUT_BYTES {
            let cut = super::capture::floor_char_boundary(text, LIVE_OUTPUT_BYTES - self.live);
            (self.ctx.output)(&text[..cut]);
            self.live += cut;
            self.not_live += text.len() - cut;
        } else {
            self.not_live += text.len();
        }
    }

    /// Tells the live view how much of the output it did not get.
    fn close_live(&self) {
        if self.not_live > 0 {
            (self.ctx.output)(&format!(
                "\n[… {} more bytes of output were not shown live; the result has its start \
                 and end …]\n",
                self.not_live
            ));
        }
    }
}

/// What a login shell reads before the command, with the files' own error messages silenced,
/// then the command: the sandboxed form of `bash -lc <command>`.
///
/// Startup files often write to the home folder (a version manager's rehash, a cache, a
/// history file), which the sandbox refuses, and every call's output would begin with that
/// complaint ("pyenv: cannot rehash: … isn't writable") — noise the model reads as the
/// command's own. The files are read in bash's login order (`/etc/profile`, then the first
/// of `~/.bash_profile`, `~/.bash_login`, `~/.profile`) with their stderr discarded, so what
/// they set up (`PATH`, functions such as `nvm` or `pyenv`) is there, and the command itself
/// runs with `eval` in that same shell, its output untouched.
fn login_quietly(command: &str) -> Vec<String> {
    // The command is taken off the positional parameters first: a startup file may `set --`.
    const PRELUDE: &str = "\
        tack_command=$1; shift; \
        if [ -r /etc/profile ]; then . /etc/profile; fi 2>/dev/null; \
        for tack_file in \"$HOME/.bash_profile\" \"$HOME/.bash_login\" \"$HOME/.profile\"; do \
          if [ -r \"$tack_file\" ]; then . \"$tack_file\" 2>/dev/null; break; fi; \
        done; \
        unset tack_file; \
        eval \"$tack_command\"";
    vec![
        "bash".to_string(),
        "-c".to_string(),
        PRELUDE.to_string(),
        "bash".to_string(),
        command.to_string(),
    ]
}

async fn run_command(call: PreparedShell, ctx: ToolContext) -> ToolOutput {
    let started = Instant::now();
    let argv = vec!["bash".to_string(), "-lc".to_string(), call.command.clone()];
    let cwd_shown = call.cwd.to_string_lossy().into_owned();

    let (reader, writer) = match std::io::pipe() {
        Ok(pair) => pair,
        Err(err) => return ToolOutput::error(format!("could not create a pipe: {err}")),
    };
    let writer_for_stderr = match writer.try_clone() {
        Ok(w) => w,
        Err(err) => return ToolOutput::error(format!("could not create a pipe: {err}")),
    };
    // `danger-full-access` is no sandbox at all: it runs exactly like an uncontained call.
    let policy = ctx
        .sandbox
        .clone()
        .filter(|p| p.mode != SandboxMode::DangerFullAccess);
    // Kept until the call is over: dropping it kills what is left in the command's cgroup.
    let mut _containment: Option<tack_sandbox::ContainGuard> = None;
    let mut command = match &policy {
        None => {
            let mut command = tokio::process::Command::new("bash");
            command
                .arg("-lc")
                .arg(&call.command)
                .current_dir(&call.cwd)
                // Without a terminal to ask on, git must fail instead of waiting for
                // credentials.
                .env("GIT_TERMINAL_PROMPT", "0");
            for name in super::environment::hidden_variables() {
                command.env_remove(name);
            }
            command
        }
        Some(policy) => {
            match tack_sandbox::contain(policy, &login_quietly(&call.command), &call.cwd) {
                Ok(contained) => {
                    _containment = Some(contained.guard);
                    let mut command = tokio::process::Command::from(contained.command);
                    // What bwrap gets is all the command (and `/proc/1/environ` inside) sees.
                    command
                        .env_clear()
                        .envs(super::environment::sandbox_environment());
                    command
                }
                Err(err) => {
                    return ToolOutput::error(format!(
                        "could not start the command in the sandbox: {err}"
                    ));
                }
            }
        }
    };
    command
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer_for_stderr)
        .process_group(0)
        .kill_on_drop(true);
    #[cfg(target_os = "linux")]
    die_with_parent(&mut command);
    let spawned = command.spawn();
    // The Command holds our copies of the pipe's write end; EOF only arrives once they close.
    drop(command);
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) if policy.is_some() => {
            return ToolOutput::error(format!("could not start the sandbox (bwrap): {err}"));
        }
        Err(err) => {
            return ToolOutput::error(format!("could not start bash: {err}"));
        }
    };
    let mut guard = GroupGuard {
        pgid: child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Pid::from_raw),
        armed: true,
    };
    let mut pipe = match tokio::net::unix::pipe::Receiver::from_owned_fd(OwnedFd::from(reader)) {
        Ok(p) => p,
        Err(err) => {
            return ToolOutput::error(format!("could not read the command's output: {err}"));
        }
    };

    let mut out = Collector {
        decoder: Utf8Decoder::default(),
        capped: HeadTail::new(ctx.max_output_bytes),
        ctx: ctx.clone(),
        read: 0,
        live: 0,
        not_live: 0,
    };
    let mut notes: Vec<String> = call.timeout_note.iter().cloned().collect();
    let mut buf = vec![0u8; 16 * 1024];
    let mut eof = false;
    let mut exited: Option<ExitStatus> = None;
    let deadline = tokio::time::sleep(call.timeout);
    tokio::pin!(deadline);
    let drain = tokio::time::sleep(Duration::MAX);
    tokio::pin!(drain);

    let ending = loop {
        if eof && let Some(status) = exited {
            break Ending::Exited(status);
        }
        tokio::select! {
            // Read only while the front end keeps up: otherwise the pipe fills and the
            // command waits, instead of its output piling up in Tack.
            read = async {
                (ctx.output_room)().await;
                pipe.read(&mut buf).await
            }, if !eof => match read {
                Ok(0) => eof = true,
                Ok(n) => {
                    out.feed(&buf[..n]);
                    if out.over_budget() {
                        break Ending::OverBudget;
                    }
                }
                Err(err) => {
                    notes.push(format!("[reading output failed: {err}]"));
                    eof = true;
                }
            },
            status = child.wait(), if exited.is_none() => match status {
                Ok(status) => {
                    exited = Some(status);
                    drain.as_mut().reset(tokio::time::Instant::now() + DRAIN_GRACE);
                }
                Err(err) => {
                    notes.push(format!("[waiting for bash failed: {err}]"));
                    break Ending::Aborted;
                }
            },
            () = &mut drain, if exited.is_some() && !eof => {
                notes.push(
                    "[background processes still held the output open after the shell exited; \
                     they were stopped. Redirect the output of processes that should keep running \
                     (`cmd > file 2>&1 &`).]"
                        .to_string(),
                );
                stop_group(&guard, &mut pipe, &mut buf, &mut out, &mut eof).await;
                if let Some(status) = exited {
                    break Ending::Exited(status);
                }
            },
            () = &mut deadline => break Ending::TimedOut,
            () = ctx.cancel.cancelled() => break Ending::Aborted,
        }
    };

    if matches!(
        ending,
        Ending::TimedOut | Ending::Aborted | Ending::OverBudget
    ) {
        stop_group(&guard, &mut pipe, &mut buf, &mut out, &mut eof).await;
        if exited.is_none() {
            // The group is dead; reap bash so no zombie is left behind.
            let _ = child.wait().await;
        }
    }
    // Finished normally: background processes that let go of the output keep running.
    guard.armed = false;
    let tail = out.decoder.finish();
    out.emit(&tail);
    out.close_live();

    let duration_ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
    let capped = out.capped.finish();
    let mut text = capped.text;
    let (status, exit_code) = match ending {
        Ending::Exited(status) => match (status.code(), signal_of(&status)) {
            (Some(0), _) => (ToolStatus::Completed, Some(0)),
            (Some(code), _) => {
                notes.push(format!("[exit code {code}]"));
                (ToolStatus::Failed, Some(code))
            }
            (None, Some(sig)) => {
                notes.push(format!("[killed by signal {sig}]"));
                (ToolStatus::Failed, Some(128 + sig))
            }
            (None, None) => (ToolStatus::Failed, None),
        },
        Ending::TimedOut => {
            notes.push(format!(
                "[timed out after {} ms; the command and the processes it started were stopped]",
                call.timeout.as_millis()
            ));
            (ToolStatus::TimedOut, None)
        }
        Ending::Aborted => {
            notes.push("[aborted by user]".to_string());
            (ToolStatus::Aborted, None)
        }
        Ending::OverBudget => {
            notes.push(format!(
                "[the command wrote more than {} bytes of output (max_command_output_bytes in \
                 config.toml), so it and the processes it started were stopped; limit its \
                 output (`| head`, `| tail`, a file) and run it again]",
                ctx.limits.max_output_bytes
            ));
            (ToolStatus::Failed, None)
        }
    };
    // Only a failure can be the sandbox's doing; an interrupted call is the user's.
    let sandbox_denial = match (&policy, status) {
        (Some(policy), ToolStatus::Failed | ToolStatus::TimedOut) => {
            tack_sandbox::denial(policy, &text, exit_code)
        }
        _ => None,
    };
    if let Some(denial) = &sandbox_denial {
        notes.push(format!("[the sandbox refused this: {denial}]"));
    }
    for note in notes {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&note);
    }
    ToolOutput {
        text,
        status,
        content: Vec::new(),
        exit_code,
        duration_ms: Some(duration_ms),
        details: Some(ToolDetails::Exec {
            command: argv,
            cwd: cwd_shown,
            truncated_bytes: u32::try_from(capped.omitted_bytes).unwrap_or(u32::MAX),
            sandbox: policy.as_ref().map(|p| p.mode),
            sandbox_denial,
        }),
    }
}

/// SIGTERM to the group, up to [`KILL_GRACE`] for the pipe to close, then SIGKILL and a
/// bounded wait for the pipe to close (which means every process holding it has exited).
async fn stop_group(
    guard: &GroupGuard,
    pipe: &mut tokio::net::unix::pipe::Receiver,
    buf: &mut [u8],
    out: &mut Collector,
    eof: &mut bool,
) {
    guard.signal(Signal::TERM);
    read_until_eof(pipe, buf, out, eof, KILL_GRACE).await;
    guard.signal(Signal::KILL);
    read_until_eof(pipe, buf, out, eof, REAP_LIMIT).await;
}

async fn read_until_eof(
    pipe: &mut tokio::net::unix::pipe::Receiver,
    buf: &mut [u8],
    out: &mut Collector,
    eof: &mut bool,
    limit: Duration,
) {
    let until = tokio::time::Instant::now() + limit;
    while !*eof {
        match tokio::time::timeout_at(until, pipe.read(buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => *eof = true,
            Ok(Ok(n)) => out.feed(&buf[..n]),
            Err(_elapsed) => return,
        }
    }
}

fn signal_of(status: &ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}
