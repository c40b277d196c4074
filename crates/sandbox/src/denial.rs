//! Telling a refusal by the sandbox from an ordinary failure, by the error texts programs
//! print (the C library's `strerror` wording, which coreutils, bash, git, Python, curl and
//! most others pass on).

use std::path::{Path, PathBuf};

use crate::{SandboxMode, SandboxPolicy};

/// What `EROFS` reads as.
const READ_ONLY: &str = "read-only file system";
/// What `EXDEV` reads as: a hard link across the sandbox's mounts.
const CROSS_DEVICE: &str = "invalid cross-device link";
/// `EACCES` / `EPERM`: the sandbox's doing only for a path outside the writable folders.
const NOT_ALLOWED: &[&str] = &["permission denied", "operation not permitted"];
/// What a command without network prints when it tries to use it (libc, curl, git, pip,
/// cargo, npm, Python, Go).
const NO_NETWORK: &[&str] = &[
    "network is unreachable",
    "could not resolve host",
    "unable to resolve host",
    "failed to resolve",
    "resolving timed out",
    "temporary failure in name resolution",
    "name or service not known",
    "no address associated with hostname",
    "failed to lookup address",
    "could not resolve proxy",
    "getaddrinfo",
    "eai_again",
    "enotfound",
    "no route to host",
    "connection refused",
    "failed to connect to",
    "unable to access 'http",
];

/// Whether a failed command's `output` shows the sandbox refused something, and if so what,
/// in one line ("write to /etc/x refused: read-only file system (the sandbox is read-only)",
/// "network is off in the sandbox"). `None` for a command that succeeded (`exit_code`
/// `Some(0)`), under `danger-full-access`, and for failures that do not look like the
/// sandbox's doing. A heuristic on the text: use it to offer running the command again
/// outside the sandbox, never to decide anything by itself.
pub fn denial(policy: &SandboxPolicy, output: &str, exit_code: Option<i32>) -> Option<String> {
    if exit_code == Some(0) || policy.mode == SandboxMode::DangerFullAccess {
        return None;
    }
    let writable = policy.writable();
    let mut network = false;
    for line in output.lines() {
        let lower = line.to_ascii_lowercase();
        if let Some(at) = lower.find(READ_ONLY) {
            let path = path_near(line, at, READ_ONLY.len());
            return Some(match path {
                Some(path) => format!(
                    "write to {} refused: read-only file system ({})",
                    path.display(),
                    why_read_only(policy, &writable, &path)
                ),
                None => format!(
                    "a write was refused: read-only file system ({})",
                    match policy.mode {
                        SandboxMode::ReadOnly => "the sandbox is read-only",
                        _ => "only the workspace and the writable roots are writable",
                    }
                ),
            });
        }
        if lower.contains(CROSS_DEVICE) {
            return Some(
                "a hard link was refused: the sandbox does not allow links between its writable \
                 folders and the rest of the file system (cross-device link)"
                    .to_string(),
            );
        }
        for phrase in NOT_ALLOWED {
            if let Some(at) = lower.find(phrase)
                && let Some(path) = path_near(line, at, phrase.len())
                && path.is_absolute()
                && !is_writable(&writable, &path)
                && !path.starts_with("/tmp")
                && !path.starts_with("/dev")
                && !path.starts_with("/proc")
            {
                return Some(format!(
                    "access to {} refused: {phrase} ({})",
                    path.display(),
                    why_read_only(policy, &writable, &path)
                ));
            }
        }
        if !policy.network && NO_NETWORK.iter().any(|p| lower.contains(p)) {
            network = true;
        }
    }
    network.then(|| "network is off in the sandbox".to_string())
}

fn is_writable(writable: &[PathBuf], path: &Path) -> bool {
    writable.iter().any(|w| path.starts_with(w))
}

fn why_read_only(policy: &SandboxPolicy, writable: &[PathBuf], path: &Path) -> &'static str {
    if policy.mode == SandboxMode::ReadOnly {
        return "the sandbox is read-only";
    }
    let mut parts = path.components().map(|c| c.as_os_str());
    if parts.any(|c| c == ".git") {
        return "git hooks and config stay read-only in the sandbox";
    }
    // A relative path is most likely relative to the workspace (where commands start).
    let path = policy.workspace.join(path);
    let protected = policy
        .protected
        .iter()
        .any(|p| path.starts_with(p) || p.canonicalize().is_ok_and(|p| path.starts_with(p)));
    if protected {
        "Tack's own folders stay read-only in the sandbox"
    } else if is_writable(writable, &path) && policy.mode == SandboxMode::WorkspaceWrite {
        "it is kept read-only in the sandbox"
    } else {
        "only the workspace and the writable roots are writable"
    }
}

/// The path an error line names around the error text at `at..at + len`: quoted or bare,
/// before it (`touch: cannot touch '/x': …`, `bash: line 1: /x: …`) or after it
/// (`[Errno 30] Read-only file system: '/x'`).
fn path_near(line: &str, at: usize, len: usize) -> Option<PathBuf> {
    let after = line.get(at + len..).unwrap_or_default().trim_start();
    if let Some(rest) = after.strip_prefix(':') {
        let rest = rest.trim();
        if let Some(path) = unquote(rest).filter(|p| p.starts_with('/')) {
            return Some(PathBuf::from(path));
        }
    }
    let before = line.get(..at)?.trim_end();
    let before = before.strip_suffix(':').unwrap_or(before).trim_end();
    if let Some(quoted) = last_quoted(before) {
        return Some(PathBuf::from(quoted));
    }
    // `prog: path` or `prog: line 3: path`: the last segment, when a program name precedes it
    // and it is one word.
    let segments: Vec<&str> = before.split(": ").collect();
    let word = segments.last()?.trim();
    let named = segments.len() >= 2 || word.contains('/');
    (named && !word.is_empty() && !word.contains(' ')).then(|| PathBuf::from(word))
}

/// `'x'`, `"x"`, `‘x’` or `` `x' `` as a whole → `x`.
fn unquote(text: &str) -> Option<&str> {
    let text = text.trim_end_matches(['.', ',']);
    for (open, close) in [('\'', '\''), ('"', '"'), ('‘', '’'), ('`', '\'')] {
        if let Some(inner) = text.strip_prefix(open).and_then(|t| t.strip_suffix(close)) {
            return Some(inner);
        }
    }
    (!text.contains(' ')).then_some(text)
}

/// The quoted text `before` ends with, if it ends with a closing quote.
fn last_quoted(before: &str) -> Option<&str> {
    for (open, close) in [('\'', '\''), ('"', '"'), ('‘', '’'), ('`', '\'')] {
        if let Some(body) = before.strip_suffix(close)
            && let Some(start) = body.rfind(open)
        {
            return Some(&body[start + open.len_utf8()..]);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(mode: SandboxMode) -> SandboxPolicy {
        SandboxPolicy::new(mode, "/work/ws")
    }

    #[test]
    fn paths_are_found_in_the_usual_shapes() {
        let cases = [
            (
                "touch: cannot touch '/etc/x': Read-only file system",
                "/etc/x",
            ),
            ("bash: line 1: /etc/x: Read-only file system", "/etc/x"),
            (
                "mkdir: cannot create directory ‘/opt/y’: Read-only file system",
                "/opt/y",
            ),
            (
                "OSError: [Errno 30] Read-only file system: '/usr/z'",
                "/usr/z",
            ),
            ("bash: line 1: g: Read-only file system", "g"),
        ];
        for (line, want) in cases {
            let lower = line.to_ascii_lowercase();
            let at = lower.find(READ_ONLY).unwrap_or_default();
            assert_eq!(
                path_near(line, at, READ_ONLY.len()),
                Some(PathBuf::from(want)),
                "{line}"
            );
        }
    }

    #[test]
    fn successes_and_full_access_are_never_denials() {
        let text = "touch: cannot touch '/etc/x': Read-only file system";
        assert_eq!(
            denial(&policy(SandboxMode::WorkspaceWrite), text, Some(0)),
            None
        );
        assert_eq!(
            denial(&policy(SandboxMode::DangerFullAccess), text, Some(1)),
            None
        );
        assert!(denial(&policy(SandboxMode::ReadOnly), text, Some(1)).is_some());
    }

    #[test]
    fn network_errors_count_only_with_the_network_off() {
        let text = "curl: (6) Could not resolve host: example.com";
        let mut p = policy(SandboxMode::WorkspaceWrite);
        assert_eq!(
            denial(&p, text, Some(6)).as_deref(),
            Some("network is off in the sandbox")
        );
        p.network = true;
        assert_eq!(denial(&p, text, Some(6)), None);
    }

    #[test]
    fn ordinary_failures_are_not_denials() {
        let p = policy(SandboxMode::WorkspaceWrite);
        assert_eq!(
            denial(&p, "error: no such file or directory", Some(1)),
            None
        );
        assert_eq!(
            denial(&p, "error: Permission denied (publickey).", Some(255)),
            None
        );
        // Inside the workspace a permission error is the file's own, not the sandbox's.
        assert_eq!(
            denial(&p, "bash: /work/ws/x: Permission denied", Some(1)),
            None
        );
        assert!(denial(&p, "bash: /etc/passwd: Permission denied", Some(1)).is_some());
    }
}
