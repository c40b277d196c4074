//! The git state a session started with, kept in memory per session.
//!
//! Claude Code and ZCode both describe git status as a snapshot taken when the session
//! starts; it never changes afterwards, which also keeps the prompt prefix (and so the
//! provider's prompt cache) stable while the model edits files. The anchor kept ZCode's copy in
//! a file under `.` when no home variable was set, and so wrote it into users' workspaces
//! (openinterpreter 0.0.40, `codex-rs/core/src/harness/zcode.rs`). Here it lives in memory only: a small map from session id to the first
//! state seen, bounded so a long-running app does not grow without limit. A session resumed
//! after a restart takes a fresh snapshot, as the CLIs do on resume.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde::Serialize;
use tack_protocol::GitState;

/// Sessions remembered; the oldest is forgotten first.
const CAPACITY: usize = 128;

/// Longest `git status` text kept in a snapshot: a huge dirty tree should not fill the prompt.
const MAX_STATUS_CHARS: usize = 2000;

/// What the prompt templates see as `git_snapshot`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct GitSnapshot {
    pub(crate) branch: String,
    pub(crate) main_branch: String,
    pub(crate) user_name: Option<String>,
    /// `git status --short`, `(clean)` when empty, shortened past [`MAX_STATUS_CHARS`].
    pub(crate) status: String,
    /// `git log --oneline -5`, `(no commits yet)` when empty.
    pub(crate) recent_commits: String,
}

impl GitSnapshot {
    fn of(git: &GitState) -> Self {
        let status = git.status.trim_end();
        let status = if status.is_empty() {
            "(clean)".to_string()
        } else if status.chars().count() > MAX_STATUS_CHARS {
            let cut: String = status.chars().take(MAX_STATUS_CHARS).collect();
            let cut = cut.rsplit_once('\n').map_or(cut.as_str(), |(head, _)| head);
            format!("{cut}\n… (more changes not shown; run `git status` to see them all)")
        } else {
            status.to_string()
        };
        let commits = git.recent_commits.trim_end();
        GitSnapshot {
            branch: if git.branch.is_empty() {
                "main".into()
            } else {
                git.branch.clone()
            },
            main_branch: if git.main_branch.is_empty() {
                "main".into()
            } else {
                git.main_branch.clone()
            },
            user_name: git.user_name.clone().filter(|n| !n.trim().is_empty()),
            status,
            recent_commits: if commits.is_empty() {
                "(no commits yet)".to_string()
            } else {
                commits.to_string()
            },
        }
    }
}

/// Per-session snapshots (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Snapshots {
    sessions: Mutex<VecDeque<(String, Option<GitSnapshot>)>>,
}

impl Snapshots {
    /// The snapshot of `session`: the one taken at its first request, or `current` now.
    pub(crate) fn git(&self, session: &str, current: Option<&GitState>) -> Option<GitSnapshot> {
        let mut sessions = self
            .sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, snap)) = sessions.iter().find(|(id, _)| id == session) {
            return snap.clone();
        }
        let snap = current.map(GitSnapshot::of);
        if sessions.len() >= CAPACITY {
            sessions.pop_front();
        }
        sessions.push_back((session.to_string(), snap.clone()));
        snap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(status: &str) -> GitState {
        GitState {
            branch: "main".into(),
            main_branch: "main".into(),
            user_name: None,
            status: status.into(),
            recent_commits: "abc first".into(),
        }
    }

    #[test]
    fn first_state_wins_per_session() {
        let s = Snapshots::default();
        assert_eq!(
            s.git("a", Some(&git(""))).map(|g| g.status),
            Some("(clean)".into())
        );
        assert_eq!(
            s.git("a", Some(&git(" M x"))).map(|g| g.status),
            Some("(clean)".into())
        );
        assert_eq!(
            s.git("b", Some(&git(" M x"))).map(|g| g.status),
            Some(" M x".into())
        );
        assert_eq!(s.git("c", None), None);
        assert_eq!(s.git("c", Some(&git(""))), None);
    }

    #[test]
    fn long_status_is_shortened_on_a_line_boundary() {
        let long: String = (0..500).map(|i| format!(" M file{i}.rs\n")).collect();
        let snap = GitSnapshot::of(&git(&long));
        assert!(snap.status.chars().count() < MAX_STATUS_CHARS + 100);
        assert!(snap.status.ends_with("to see them all)"));
        assert!(
            snap.status
                .lines()
                .rev()
                .nth(1)
                .is_some_and(|l| l.starts_with(" M file"))
        );
    }

    #[test]
    fn capacity_is_bounded() {
        let s = Snapshots::default();
        for i in 0..CAPACITY + 5 {
            s.git(&i.to_string(), None);
        }
        assert_eq!(s.sessions.lock().unwrap().len(), CAPACITY);
    }
}
