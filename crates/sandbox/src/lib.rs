//! Running a command contained, so that what a model asks to run cannot reach Tack's
//! credentials, write outside the places the user allowed, or outlive the call.
//!
//! The mechanism is [bubblewrap](https://github.com/containers/bubblewrap) (`bwrap`), found on
//! `PATH` and tried once per process by [`probe`]. [`contain`] turns a [`SandboxPolicy`] and an
//! argv into a `bwrap …` [`std::process::Command`]; the caller adds stdio, the environment and
//! its process-group handling, and keeps the returned [`ContainGuard`] until the command is
//! over. [`denial`] reads a failed command's output and says when the failure looks like the
//! sandbox's doing, so the caller can offer to run it again outside.
//!
//! # What is contained
//! - **Processes.** New user, PID, IPC, UTS and (where possible) cgroup namespaces, and a
//!   fresh `/proc`: Tack and every other process of the machine are invisible
//!   (`ps`, `/proc/$PPID/environ`, `kill -0 <tack's pid>` all fail). `--new-session` takes the
//!   command off Tack's terminal, so it cannot push keystrokes into it (`TIOCSTI`). When the
//!   command exits, the namespace's init exits and the kernel kills everything left in the
//!   namespace — `setsid` and double-fork survivors included; so does a SIGKILL of `bwrap`,
//!   through `--die-with-parent`.
//! - **Files.** The whole file system is mounted read-only. A private `/tmp` (and `$TMPDIR`)
//!   is writable: empty and gone with the command, or the caller's
//!   [`SandboxPolicy::scratch`] folder (a session's, kept across its commands). In `workspace-write` the workspace and the
//!   writable roots are bound read-write, except `.git/hooks` and `.git/config` of each of them
//!   that is a git repository (and of its submodules under `.git/modules`), which would
//!   otherwise let a command plant code that runs later outside the sandbox, and Tack's own
//!   [`SandboxPolicy::protected`] folders. A hard link to a file outside cannot be made (the
//!   binds are separate mounts: `EXDEV`).
//! - **Credentials reachable through the file system.** `$XDG_RUNTIME_DIR` (or
//!   `/run/user/<uid>`) is replaced by an empty folder: it holds the D-Bus session bus, through
//!   which an unlocked Secret Service would hand out the provider key (`secret-tool lookup`),
//!   and usually the SSH and GPG agent sockets; the SSH agent socket's folder is hidden too,
//!   wherever it is, and so is every [`SandboxPolicy::hidden`] path.
//! - **Network.** A new network namespace with only its own loopback unless
//!   [`SandboxPolicy::network`]: no outside address, no DNS, and not the host's loopback
//!   services either; abstract Unix sockets (some D-Bus and X11 setups) are per network
//!   namespace, so they are unreachable too.
//! - **Host services behind well-known sockets**: the Docker, containerd and Podman sockets
//!   (root on the host for whoever may connect), the D-Bus system bus and snapd are covered
//!   by an empty file, since connecting to a Unix socket needs no write access.
//! - **Limits.** At most [`SandboxPolicy::max_processes`] processes (512 by default) and
//!   [`SandboxPolicy::max_memory_bytes`] of address space per process (32 GiB). The process
//!   limit is `RLIMIT_NPROC`, set *inside* the new user namespace (so the count starts at
//!   zero there instead of at the user's system-wide count), and, where Tack may create
//!   cgroups (cgroup v1 `pids` writable, or v2 with `pids` delegated), a `pids` cgroup per
//!   command as well: the kernel does not enforce `RLIMIT_NPROC` for root, so this is what
//!   bounds a fork loop when Tack runs as root (CI). [`probe`] says which one applies.
//!
//! # What is not
//! - **Reads.** The whole file system stays readable, as in Codex's read-only mode: files
//!   such as `~/.ssh/id_*` can be read (and, with the network on, sent). Hide what must not be
//!   read with [`SandboxPolicy::hidden`].
//! - **The environment** is whatever the caller passes: `bwrap`'s environment is the one
//!   the command (and `/proc/1/environ` inside) sees. Callers must clear it and pass an allow
//!   list.
//! - **A hard link that already exists** in the workspace to a file outside is writable
//!   through the read-write bind (it is the same inode).
//! - **Repositories that do not exist yet.** A command can `git init` a new repository in
//!   the workspace (or a nested one) and give it hooks, which run when someone later uses git
//!   there outside the sandbox. Only `.git` folders that exist when the command starts are
//!   protected.
//! - **Other Unix sockets on the file system** stay reachable (a read-only mount does not
//!   stop `connect`): for example SSH connection-sharing sockets (`ControlPath`, often under
//!   `~/.ssh`), which run commands on remote hosts without the network namespace mattering,
//!   or a service's socket in an unusual place. Hide such folders with
//!   [`SandboxPolicy::hidden`].
//! - **What the workspace means later.** In `workspace-write` a command can change files that
//!   people or tools run afterwards outside the sandbox (`Makefile`, `package.json` scripts,
//!   `.envrc`, editor task files); that is what writing the workspace means.
//! - **A protected path that is a symlink** inside a writable folder: the target is protected,
//!   the link itself can be replaced.
//! - **Thread-hungry builds.** The process limit counts threads too: a highly parallel build
//!   on a many-core machine can reach 512; raise [`SandboxPolicy::max_processes`] there.
//! - **With the network on**, everything the network reaches: the host's loopback services
//!   and abstract Unix sockets included.
//! - **Kernel attack surface.** No seccomp filter is installed; a kernel bug reachable from
//!   an unprivileged user namespace is out of scope.
//!
//! # Choosing no sandbox
//! `TACK_SANDBOX=none` in Tack's environment makes [`probe`] report
//! [`SandboxMechanism::None`] without trying `bwrap` (to exercise the no-sandbox path; then
//! every command asks before it runs). Any other value, or none, probes as usual.
//!
//! No Landlock + seccomp fallback exists yet: where `bwrap` is missing or fails, [`probe`]
//! says why and [`contain`] refuses ([`SandboxError::Unavailable`]), so the caller must ask
//! before running anything uncontained.

mod cgroup;
mod denial;
mod probe;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use denial::denial;
pub use probe::{Probe, ProcessLimit, probe};
pub use tack_protocol::{SandboxMechanism, SandboxMode};

/// Default [`SandboxPolicy::max_processes`]: enough for a parallel build, few enough that a
/// fork loop stops long before the machine does.
pub const DEFAULT_MAX_PROCESSES: u32 = 512;

/// Default [`SandboxPolicy::max_memory_bytes`]: 32 GiB of address space per process.
///
/// Address space is not memory in use: runtimes that reserve large ranges up front fail under
/// a tight limit even when they would use little. Measured at 4 GiB: Node's
/// `new WebAssembly.Memory(…)` fails (`RangeError: WebAssembly.Memory(): could not allocate
/// memory`; V8 reserves about 10 GiB of guard space per WebAssembly memory), and front-end
/// builds use WebAssembly (syntax highlighters, bundlers). 32 GiB leaves room for a few such
/// reservations and still stops a runaway allocation long before it takes the machine.
pub const DEFAULT_MAX_MEMORY_BYTES: u64 = 32 << 30;

/// What a contained command may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// How contained. `danger-full-access` makes [`contain`] return the command as is.
    pub mode: SandboxMode,
    /// Whether the command may use the network (otherwise it gets a network namespace of its
    /// own, with nothing but its own loopback).
    pub network: bool,
    /// The workspace (absolute). Writable in `workspace-write`; always visible.
    pub workspace: PathBuf,
    /// More folders writable in `workspace-write` (absolute; missing ones are skipped).
    pub writable_roots: Vec<PathBuf>,
    /// Tack's own folders (config, data): read-only even when they lie inside the workspace or
    /// a writable root. One that does not exist yet but would lie inside a writable folder is
    /// created (empty) first, so a command cannot create it with content of its choosing.
    pub protected: Vec<PathBuf>,
    /// Paths replaced by an empty folder (folders) or an empty file (files), so they cannot be
    /// read. Missing ones are skipped.
    pub hidden: Vec<PathBuf>,
    /// Folders bound read-write in every mode, for plumbing Tack shares with the command
    /// (e.g. the folder holding a tmux server's socket). Missing ones are an error.
    pub shared: Vec<PathBuf>,
    /// A host folder mounted as the command's `/tmp` (read-write in every mode) instead of an
    /// empty one that vanishes with the command: a session's scratch folder, so a file one
    /// command writes to `/tmp` is there for the session's next command and for no other
    /// process. Must exist.
    pub scratch: Option<PathBuf>,
    /// Most processes (threads included) the command may have at once; `None`: no limit.
    pub max_processes: Option<u32>,
    /// Most address space per process, in bytes (`RLIMIT_AS`); `None`: no limit.
    pub max_memory_bytes: Option<u64>,
}

impl SandboxPolicy {
    /// A policy for `workspace` in `mode`: network off, no further writable roots, protected
    /// or hidden paths, and the default limits.
    pub fn new(mode: SandboxMode, workspace: impl Into<PathBuf>) -> Self {
        SandboxPolicy {
            mode,
            network: false,
            workspace: workspace.into(),
            writable_roots: Vec::new(),
            protected: Vec::new(),
            hidden: Vec::new(),
            shared: Vec::new(),
            scratch: None,
            max_processes: Some(DEFAULT_MAX_PROCESSES),
            max_memory_bytes: Some(DEFAULT_MAX_MEMORY_BYTES),
        }
    }

    /// The folders a command may write in this mode (canonical where they exist), besides
    /// the private temporary folder: the workspace and the writable roots in
    /// `workspace-write`, nothing in `read-only`, everything (`/`) in `danger-full-access`.
    pub fn writable(&self) -> Vec<PathBuf> {
        match self.mode {
            SandboxMode::ReadOnly => Vec::new(),
            SandboxMode::DangerFullAccess => vec![PathBuf::from("/")],
            SandboxMode::WorkspaceWrite => std::iter::once(&self.workspace)
                .chain(&self.writable_roots)
                .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
                .collect(),
        }
    }
}

/// Why a command could not be contained.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// No mechanism works on this machine; the text is [`Probe::summary`].
    #[error("the sandbox is unavailable: {0}")]
    Unavailable(String),
    /// The argv is empty.
    #[error("no command to run")]
    EmptyCommand,
    /// A path of the policy or the working directory is unusable.
    #[error("{what} {path}: {reason}")]
    BadPath {
        /// Which path (`workspace`, `working directory`, `shared folder`).
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

/// A contained command, ready for the caller's stdio, environment and spawn.
#[derive(Debug)]
pub struct Contained {
    /// `bwrap … -- bash -c '<limits>; exec "$@"' <argv>` (or the argv itself in
    /// `danger-full-access`). Its environment is inherited unless the caller clears it —
    /// which it should: see the crate docs. Spawning fails if joining the command's cgroup
    /// fails.
    pub command: Command,
    /// Keep until the command has finished: dropping it kills whatever is left in the
    /// command's cgroup and removes the cgroup.
    pub guard: ContainGuard,
}

/// Resources of one contained command that outlive the spawn (its pids cgroup).
#[derive(Debug, Default)]
pub struct ContainGuard {
    cgroup: Option<cgroup::Cgroup>,
}

impl ContainGuard {
    /// Whether the command runs in a pids cgroup of its own (so its process limit holds even
    /// for root).
    pub fn has_cgroup(&self) -> bool {
        self.cgroup.is_some()
    }
}

/// Builds the contained invocation of `argv` (program first, looked up on `PATH` inside),
/// run in `cwd`, under `policy`.
///
/// The caller sets stdio, the environment (clear it and pass an allow list: the command sees
/// exactly what `bwrap` gets) and its process group, spawns it, and keeps
/// [`Contained::guard`] until the command has finished. Side effects before any spawn: a
/// missing `.git/hooks` of a repository in a writable folder and missing protected folders
/// inside writable folders are created empty, and a pids cgroup is created when possible.
///
/// # Errors
/// [`SandboxError::Unavailable`] when [`probe`] found no working mechanism (never falls back
/// to running uncontained), [`SandboxError::EmptyCommand`], and [`SandboxError::BadPath`]
/// when the workspace, `cwd` or a shared folder does not exist.
pub fn contain(
    policy: &SandboxPolicy,
    argv: &[String],
    cwd: &Path,
) -> Result<Contained, SandboxError> {
    let Some((program, rest)) = argv.split_first() else {
        return Err(SandboxError::EmptyCommand);
    };
    if policy.mode == SandboxMode::DangerFullAccess {
        let mut command = Command::new(program);
        command.args(rest).current_dir(cwd);
        return Ok(Contained {
            command,
            guard: ContainGuard::default(),
        });
    }
    let found = probe();
    let (Some(bwrap), Some(bash)) = (found.bwrap(), found.bash()) else {
        return Err(SandboxError::Unavailable(found.summary.clone()));
    };
    let cwd = existing("working directory", cwd)?;
    let mut args = bwrap_args(policy, &cwd)?;

    args.push("--".into());
    args.push(bash.into());
    args.push("-c".into());
    args.push(limits_prelude(policy).into());
    args.push("tack-sandbox".into());
    args.extend(argv.iter().map(OsString::from));

    let cgroup = policy.max_processes.and_then(cgroup::Cgroup::create);
    let mut command = Command::new(bwrap);
    command.args(args).current_dir(&cwd);
    if let Some(cg) = &cgroup {
        cg.join_on_spawn(&mut command);
    }
    Ok(Contained {
        command,
        guard: ContainGuard { cgroup },
    })
}

/// `bash -c` script run inside before the command: lowers the limits (hard and soft, so the
/// command cannot raise them again) and execs the argv. `RLIMIT_NPROC` must be set here,
/// inside the user namespace, to count only the sandbox's processes.
fn limits_prelude(policy: &SandboxPolicy) -> String {
    let mut script = String::new();
    if let Some(n) = policy.max_processes {
        script.push_str(&format!("ulimit -HS -u {n} || exit 126; "));
    }
    if let Some(bytes) = policy.max_memory_bytes {
        // `ulimit -v` counts KiB.
        script.push_str(&format!(
            "ulimit -HS -v {} || exit 126; ",
            (bytes / 1024).max(1)
        ));
    }
    script.push_str("exec \"$@\"");
    script
}

/// The namespace options `bwrap` is run with, the probe included.
pub(crate) fn namespace_args(network: bool) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
    ]
    .into_iter()
    .map(OsString::from)
    .collect();
    if !network {
        args.push("--unshare-net".into());
    }
    args.push("--die-with-parent".into());
    args.push("--new-session".into());
    args
}

fn existing(what: &'static str, path: &Path) -> Result<PathBuf, SandboxError> {
    if !path.is_absolute() {
        return Err(SandboxError::BadPath {
            what,
            path: path.to_path_buf(),
            reason: "not an absolute path".to_string(),
        });
    }
    path.canonicalize().map_err(|e| SandboxError::BadPath {
        what,
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

fn push_pair(args: &mut Vec<OsString>, flag: &str, path: &Path) {
    args.push(flag.into());
    args.push(path.into());
    args.push(path.into());
}

fn push_one(args: &mut Vec<OsString>, flag: &str, path: &Path) {
    args.push(flag.into());
    args.push(path.into());
}

/// Every mount, in the order they stack: later ones cover earlier ones.
fn bwrap_args(policy: &SandboxPolicy, cwd: &Path) -> Result<Vec<OsString>, SandboxError> {
    let workspace = existing("workspace", &policy.workspace)?;
    let mut args = namespace_args(policy.network);
    args.extend(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"].map(OsString::from));

    // Private, empty temporary folders first, so binds below can sit on top of them (a
    // workspace under /tmp stays visible).
    let tmp = Path::new("/tmp");
    match &policy.scratch {
        // The session's own folder: what one command leaves in /tmp the next one finds.
        Some(scratch) => {
            let scratch = existing("scratch folder", scratch)?;
            args.push("--bind".into());
            args.push(scratch.into());
            args.push(tmp.into());
        }
        None => {
            args.extend(["--perms", "1777"].map(OsString::from));
            push_one(&mut args, "--tmpfs", tmp);
        }
    }
    if let Some(tmpdir) = std::env::var_os("TMPDIR").map(PathBuf::from)
        && tmpdir.is_absolute()
        && tmpdir != tmp
    {
        if tmpdir.starts_with(tmp) {
            // Inside the fresh /tmp it does not exist yet; programs expect it to.
            push_one(&mut args, "--dir", &tmpdir);
        } else if tmpdir.is_dir() {
            push_one(&mut args, "--tmpfs", &tmpdir);
        }
    }
    let (dirs, sockets) = credential_paths(&workspace);
    for dir in dirs {
        push_one(&mut args, "--tmpfs", &dir);
    }
    for socket in sockets.iter().chain(&host_sockets()) {
        args.push("--ro-bind".into());
        args.push("/dev/null".into());
        args.push(socket.into());
    }

    let writable = match policy.mode {
        SandboxMode::WorkspaceWrite => std::iter::once(workspace.clone())
            .chain(
                policy
                    .writable_roots
                    .iter()
                    .filter_map(|r| r.canonicalize().ok()),
            )
            .collect(),
        _ => Vec::new(),
    };
    // The working directory and the workspace stay visible even below a private folder.
    for dir in [&cwd.to_path_buf(), &workspace] {
        if !writable.iter().any(|w| dir.starts_with(w)) && dir != Path::new("/") {
            push_pair(&mut args, "--ro-bind", dir);
        }
    }
    for dir in &writable {
        push_pair(&mut args, "--bind", dir);
    }
    // Read-only islands inside the writable folders.
    let mut read_only: Vec<PathBuf> = Vec::new();
    for dir in &writable {
        let git = dir.join(".git");
        if git.is_dir() {
            protect_git_dir(&git, 0, &mut read_only);
        }
    }
    for path in &policy.protected {
        if !path.is_absolute() {
            continue;
        }
        let inside = |p: &Path| writable.iter().any(|w| p.starts_with(w));
        let resolved = match path.canonicalize() {
            Ok(p) => p,
            Err(_) => {
                // Does not exist yet: create it (empty) if a command could otherwise create it.
                let would_be = deepest_existing(path);
                if !inside(&would_be) || std::fs::create_dir_all(path).is_err() {
                    continue;
                }
                match path.canonicalize() {
                    Ok(p) => p,
                    Err(_) => continue,
                }
            }
        };
        if inside(&resolved) {
            read_only.push(resolved);
        }
    }
    for path in &read_only {
        push_pair(&mut args, "--ro-bind", path);
    }
    for path in &policy.hidden {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => push_one(&mut args, "--tmpfs", path),
            Ok(_) => {
                args.push("--ro-bind".into());
                args.push("/dev/null".into());
                args.push(path.into());
            }
            Err(_) => {}
        }
    }
    for dir in &policy.shared {
        let dir = existing("shared folder", dir)?;
        push_pair(&mut args, "--bind", &dir);
    }
    push_one(&mut args, "--chdir", cwd);
    Ok(args)
}

/// `hooks` and `config` of a git directory, and of its submodules' git directories, made
/// read-only (a missing `hooks` is created first, so none can appear with content inside).
fn protect_git_dir(git: &Path, depth: u32, out: &mut Vec<PathBuf>) {
    let hooks = git.join("hooks");
    if !hooks.exists() {
        let _ = std::fs::create_dir(&hooks);
    }
    for path in [hooks, git.join("config")] {
        if let Ok(resolved) = path.canonicalize() {
            out.push(resolved);
        }
    }
    if depth >= 3 {
        return;
    }
    if let Ok(entries) = std::fs::read_dir(git.join("modules")) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.join("HEAD").is_file() {
                protect_git_dir(&path, depth + 1, out);
            }
        }
    }
}

/// The nearest ancestor of `path` that exists, canonical (`/` at worst).
fn deepest_existing(path: &Path) -> PathBuf {
    let mut cur = path;
    loop {
        if let Ok(p) = cur.canonicalize() {
            return p;
        }
        match cur.parent() {
            Some(parent) => cur = parent,
            None => return PathBuf::from("/"),
        }
    }
}

/// Well-known sockets of services that act for whoever connects (connecting to a Unix socket
/// needs no write access to its file system, so a read-only mount does not stop it): the
/// container engines, which amount to root on the host, and the D-Bus system bus, where
/// polkit may grant a local session mounts, network changes or reboots.
const HOST_SOCKETS: &[&str] = &[
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/run/dbus/system_bus_socket",
    "/var/run/dbus/system_bus_socket",
    "/run/snapd.socket",
    "/run/snapd-snap.socket",
];

/// The [`HOST_SOCKETS`] that exist here, symlinks resolved (`/var/run` is usually `/run`),
/// each once.
fn host_sockets() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    for path in HOST_SOCKETS {
        if let Ok(real) = Path::new(path).canonicalize()
            && !found.contains(&real)
        {
            found.push(real);
        }
    }
    found
}

/// Folders holding sockets that hand out credentials: the user's runtime folder (D-Bus
/// session bus, keyring, GPG and often SSH agents) and the SSH agent socket's folder — or,
/// when that folder also holds other things a command needs (the home folder, an ancestor of
/// the workspace), just the socket, covered by an empty file.
fn credential_paths(workspace: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut dirs = Vec::new();
    let mut sockets = Vec::new();
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| {
            PathBuf::from(format!("/run/user/{}", rustix::process::getuid().as_raw()))
        });
    if runtime.is_dir() {
        dirs.push(runtime);
    }
    if let Some(sock) = std::env::var_os("SSH_AUTH_SOCK").map(PathBuf::from)
        && sock.is_absolute()
        && sock.exists()
        && let Some(parent) = sock.parent()
        // Under /tmp or the runtime folder it is hidden already.
        && !parent.starts_with("/tmp")
        && !dirs.iter().any(|d| parent.starts_with(d))
    {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        if parent == Path::new("/")
            || workspace.starts_with(parent)
            || home.is_some_and(|h| h.starts_with(parent))
        {
            sockets.push(sock);
        } else {
            dirs.push(parent.to_path_buf());
        }
    }
    (dirs, sockets)
}
