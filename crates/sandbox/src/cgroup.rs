//! A pids cgroup per contained command, where Tack may create one.
//!
//! `RLIMIT_NPROC` is not enforced for root, so on a machine where Tack runs as root (CI) only a
//! cgroup bounds a fork loop. Either hierarchy works: cgroup v1 with a writable `pids`
//! controller, or cgroup v2 where the `pids` controller is enabled for the children of Tack's
//! own cgroup (delegation). The command joins its cgroup between fork and exec, so nothing it
//! starts escapes the count; the cgroup is removed once the command is over.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Prefix of the cgroups Tack creates: `tack-sandbox-<tack pid>-<n>`.
const PREFIX: &str = "tack-sandbox-";

/// One command's cgroup; dropping it kills what is left inside and removes it.
#[derive(Debug)]
pub(crate) struct Cgroup {
    dir: PathBuf,
    /// `cgroup.procs`, ready for the pre-exec hook (which must not allocate).
    procs: CString,
}

/// The folder new cgroups are created in, if any: found once, and checked by creating and
/// removing one.
fn base() -> Option<&'static Path> {
    static BASE: OnceLock<Option<PathBuf>> = OnceLock::new();
    BASE.get_or_init(|| {
        let base = find_base()?;
        sweep(&base);
        let trial = base.join(format!("{PREFIX}{}-probe", std::process::id()));
        std::fs::create_dir(&trial).ok()?;
        let works = std::fs::write(trial.join("pids.max"), "8").is_ok();
        let _ = std::fs::remove_dir(&trial);
        works.then_some(base)
    })
    .as_deref()
}

/// Whether commands get a pids cgroup of their own here.
pub(crate) fn available() -> bool {
    base().is_some()
}

fn find_base() -> Option<PathBuf> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    // cgroup v1 with a pids hierarchy: "N:pids:/path".
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        if controllers.split(',').any(|c| c == "pids") {
            let dir = Path::new("/sys/fs/cgroup/pids").join(path.trim_start_matches('/'));
            if dir.join("cgroup.procs").exists() {
                return Some(dir);
            }
        }
    }
    // cgroup v2 ("0::/path") with pids delegated to our children.
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let enabled = std::fs::read_to_string(dir.join("cgroup.subtree_control")).ok()?;
    enabled
        .split_whitespace()
        .any(|c| c == "pids")
        .then_some(dir)
}

/// Removes cgroups left by Tack processes that no longer exist (killed before cleaning up).
fn sweep(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)) else {
            continue;
        };
        let owner = rest.split('-').next().and_then(|p| p.parse::<i32>().ok());
        let alive = owner
            .and_then(rustix::process::Pid::from_raw)
            .is_some_and(|pid| {
                !matches!(
                    rustix::process::test_kill_process(pid),
                    Err(rustix::io::Errno::SRCH)
                )
            });
        if !alive {
            remove(&entry.path());
        }
    }
}

impl Cgroup {
    /// A new cgroup allowing `max` processes, or `None` where none can be created.
    pub(crate) fn create(max: u32) -> Option<Cgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = base()?;
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("{PREFIX}{}-{n}", std::process::id()));
        let procs = CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()).ok()?;
        std::fs::create_dir(&dir).ok()?;
        let cgroup = Cgroup { procs, dir };
        // Dropping `cgroup` on failure removes the folder again.
        std::fs::write(cgroup.dir.join("pids.max"), max.to_string()).ok()?;
        Some(cgroup)
    }

    /// Makes the spawned process join this cgroup before it execs (so its first child is
    /// already counted); spawning fails if it cannot.
    #[allow(unsafe_code)]
    pub(crate) fn join_on_spawn(&self, command: &mut Command) {
        use std::os::unix::process::CommandExt;
        let procs = self.procs.clone();
        // SAFETY: the hook runs in the forked child before exec, where only async-signal-safe
        // work is allowed: open(2), write(2) and close(2) on a path prepared beforehand; no
        // allocation, no locks (the error conversion builds an OS error code, no boxing).
        unsafe {
            command.pre_exec(move || {
                let fd = rustix::fs::open(
                    procs.as_c_str(),
                    rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::CLOEXEC,
                    rustix::fs::Mode::empty(),
                )?;
                // "0" is the writing process itself, in both cgroup versions.
                rustix::io::write(&fd, b"0")?;
                Ok(())
            });
        }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        remove(&self.dir);
    }
}

/// Kills whatever is still in the cgroup and removes it (a cgroup can only be removed once
/// it is empty; killed processes leave it within milliseconds). Gives up after about 200 ms;
/// a later [`sweep`] removes what is left.
fn remove(dir: &Path) {
    let kill = dir.join("cgroup.kill");
    for _ in 0..100 {
        if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
            return;
        }
        if kill.exists() {
            let _ = std::fs::write(&kill, "1");
        } else if let Ok(procs) = std::fs::read_to_string(dir.join("cgroup.procs")) {
            for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                    let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cgroup_is_removed_when_dropped() {
        let Some(cg) = Cgroup::create(16) else {
            println!("skipped: no pids cgroup can be created here");
            return;
        };
        let dir = cg.dir.clone();
        assert_eq!(
            std::fs::read_to_string(dir.join("pids.max"))
                .unwrap_or_default()
                .trim(),
            "16"
        );
        drop(cg);
        assert!(!dir.exists());
    }
}
