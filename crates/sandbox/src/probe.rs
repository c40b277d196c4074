//! Which mechanism works on this machine, found out once per process by trying it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tack_protocol::SandboxMechanism;

/// How long the trial `bwrap … true` may take before it counts as not working.
const TRIAL_LIMIT: Duration = Duration::from_secs(10);

/// What bounds the number of processes of a contained command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessLimit {
    /// A pids cgroup per command (`pids.max`), plus `RLIMIT_NPROC`.
    Cgroup,
    /// `RLIMIT_NPROC` inside the user namespace only (no cgroup could be created).
    Rlimit,
    /// Nothing: Tack runs as root, for whom the kernel does not enforce `RLIMIT_NPROC`, and
    /// cannot create a cgroup.
    Unenforced,
}

/// The result of [`probe`].
#[derive(Debug, Clone)]
pub struct Probe {
    /// The mechanism [`crate::contain`] uses; [`SandboxMechanism::None`] when nothing works.
    pub mechanism: SandboxMechanism,
    /// One line for people: "bubblewrap 0.8.0 (user, PID, mount, network namespaces; process
    /// limit by pids cgroup)", or why there is no sandbox and what follows ("no sandbox: bwrap
    /// not found (install the `bubblewrap` package); every command asks").
    pub summary: String,
    /// `bwrap --version`'s version number, when bwrap was found.
    pub version: Option<String>,
    /// What bounds the process count.
    pub process_limit: ProcessLimit,
    bwrap: Option<PathBuf>,
    bash: Option<PathBuf>,
}

impl Probe {
    /// The `bwrap` binary, when the mechanism is bubblewrap.
    pub(crate) fn bwrap(&self) -> Option<&Path> {
        match self.mechanism {
            SandboxMechanism::Bubblewrap => self.bwrap.as_deref(),
            _ => None,
        }
    }

    /// The `bash` that runs the limits prelude inside.
    pub(crate) fn bash(&self) -> Option<&Path> {
        self.bash.as_deref()
    }

    fn none(reason: String, version: Option<String>) -> Probe {
        Probe {
            mechanism: SandboxMechanism::None,
            summary: format!("no sandbox: {reason}; every command asks"),
            version,
            process_limit: ProcessLimit::Unenforced,
            bwrap: None,
            bash: None,
        }
    }
}

/// Finds out once (cached for the process) whether commands can be contained here: looks for
/// `bwrap` and `bash` on `PATH`, and really runs `bwrap <the namespaces contain uses> … true`.
/// `TACK_SANDBOX=none` skips all that and reports no mechanism. Blocking (up to a few seconds
/// on a slow machine, the first time).
pub fn probe() -> &'static Probe {
    static PROBE: OnceLock<Probe> = OnceLock::new();
    PROBE.get_or_init(run_probe)
}

fn run_probe() -> Probe {
    if std::env::var_os("TACK_SANDBOX").is_some_and(|v| v == "none") {
        return Probe::none("TACK_SANDBOX=none".to_string(), None);
    }
    let Some(bwrap) = on_path("bwrap") else {
        return Probe::none(
            "bwrap not found (install the `bubblewrap` package)".to_string(),
            None,
        );
    };
    let Some(bash) = on_path("bash") else {
        return Probe::none("bash not found".to_string(), None);
    };
    let version = Command::new(&bwrap)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .and_then(|out| {
            String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .last()
                .map(str::to_string)
        });
    if let Err(reason) = trial(&bwrap) {
        return Probe::none(format!("bwrap failed ({reason})"), version);
    }
    let process_limit = if crate::cgroup::available() {
        ProcessLimit::Cgroup
    } else if rustix::process::geteuid().is_root() {
        ProcessLimit::Unenforced
    } else {
        ProcessLimit::Rlimit
    };
    let limit = match process_limit {
        ProcessLimit::Cgroup => "process limit by pids cgroup",
        ProcessLimit::Rlimit => "process limit by RLIMIT_NPROC",
        ProcessLimit::Unenforced => "no process limit: root without a pids cgroup",
    };
    Probe {
        mechanism: SandboxMechanism::Bubblewrap,
        summary: format!(
            "bubblewrap {} (user, PID, mount, network namespaces; {limit})",
            version.as_deref().unwrap_or("(unknown version)")
        ),
        version,
        process_limit,
        bwrap: Some(bwrap),
        bash: Some(bash),
    }
}

/// Runs `true` the way [`crate::contain`] runs commands; the error is bwrap's own message.
fn trial(bwrap: &Path) -> Result<(), String> {
    let mut args: Vec<OsString> = crate::namespace_args(false);
    args.extend(
        [
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
            "--",
            "true",
        ]
        .map(OsString::from),
    );
    let mut child = Command::new(bwrap)
        .args(&args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < TRIAL_LIMIT => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("`bwrap … true` took over {TRIAL_LIMIT:?}"));
            }
            Err(e) => return Err(e.to_string()),
        }
    };
    if status.success() {
        return Ok(());
    }
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        use std::io::Read;
        let _ = pipe.read_to_string(&mut stderr);
    }
    let message = stderr.trim().trim_start_matches("bwrap: ").to_string();
    Err(if message.is_empty() {
        format!("`bwrap … true` exited with {status}")
    } else {
        message
    })
}

/// The first executable file called `name` on `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}
