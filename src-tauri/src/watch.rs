//! Watching a workspace for changes made outside Tack (`notify`), so the file list refreshes.
//!
//! Raw notifications arrive in bursts (an editor's save is several events; `git checkout` is
//! thousands), so they are collected for [`DEBOUNCE`] and sent as one [`WorkspaceChanged`]
//! with each path once. Paths ignored by the workspace's `.gitignore` and everything under
//! `.git/` are dropped: they would only make the list flicker.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use notify::{RecursiveMode, Watcher};

use crate::events::{AppEvent, WorkspaceChanged};
use crate::state::Emit;

/// How long changes are collected before one event is sent.
pub const DEBOUNCE: Duration = Duration::from_millis(250);

/// A running watcher; dropping it stops watching.
pub struct WorkspaceWatcher {
    _watcher: notify::RecommendedWatcher,
}

impl WorkspaceWatcher {
    /// Starts watching `cwd` recursively.
    ///
    /// # Errors
    /// When the OS watcher cannot be created (e.g. the inotify watch limit is reached).
    pub fn start(cwd: &Path, emit: Emit) -> notify::Result<WorkspaceWatcher> {
        let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
        let mut watcher = notify::recommended_watcher(tx)?;
        watcher.watch(cwd, RecursiveMode::Recursive)?;
        let root = cwd.to_path_buf();
        let ignore = gitignore(&root);
        std::thread::Builder::new()
            .name("tack-watch".into())
            .spawn(move || debounce(&root, &ignore, &rx, &emit))
            .map_err(|e| notify::Error::generic(&e.to_string()))?;
        Ok(WorkspaceWatcher { _watcher: watcher })
    }
}

fn gitignore(root: &Path) -> Gitignore {
    let mut b = GitignoreBuilder::new(root);
    b.add(root.join(".gitignore"));
    b.build().unwrap_or_else(|_| Gitignore::empty())
}

/// Ends when the watcher (the sender) is dropped.
fn debounce(
    root: &Path,
    ignore: &Gitignore,
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
    emit: &Emit,
) {
    while let Ok(first) = rx.recv() {
        let mut paths = BTreeSet::new();
        collect(root, ignore, first, &mut paths);
        let deadline = std::time::Instant::now() + DEBOUNCE;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left) {
                Ok(ev) => collect(root, ignore, ev, &mut paths),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        }
        if !paths.is_empty() {
            emit(AppEvent::Workspace(WorkspaceChanged {
                cwd: root.display().to_string(),
                paths: paths.into_iter().collect(),
            }));
        }
    }
}

fn collect(
    root: &Path,
    ignore: &Gitignore,
    event: notify::Result<notify::Event>,
    out: &mut BTreeSet<String>,
) {
    let Ok(event) = event else { return };
    if event.kind.is_access() {
        return;
    }
    for path in event.paths {
        if let Some(rel) = relevant(root, ignore, &path) {
            out.insert(rel);
        }
    }
}

fn relevant(root: &Path, ignore: &Gitignore, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    if rel.components().any(|c| c.as_os_str() == ".git") {
        return None;
    }
    if ignore
        .matched_path_or_any_parents(rel, path.is_dir())
        .is_ignore()
    {
        return None;
    }
    Some(rel.to_string_lossy().replace('\\', "/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn changes_outside_tack_arrive_debounced_and_filtered() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        std::fs::create_dir_all(root.join("build")).unwrap();
        let seen: Arc<Mutex<Vec<WorkspaceChanged>>> = Arc::default();
        let sink = seen.clone();
        let emit: Emit = Arc::new(move |ev| {
            if let AppEvent::Workspace(w) = ev {
                sink.lock().unwrap().push(w);
            }
        });
        let _w = WorkspaceWatcher::start(&root, emit).unwrap();
        std::fs::write(root.join("build/out.o"), "x").unwrap();
        std::fs::write(root.join("AGENTS.md"), "rules").unwrap();
        std::fs::write(root.join("AGENTS.md"), "rules v2").unwrap();
        let mut got = Vec::new();
        for _ in 0..100 {
            std::thread::sleep(Duration::from_millis(50));
            got = seen
                .lock()
                .unwrap()
                .iter()
                .flat_map(|w| w.paths.clone())
                .collect();
            if got.contains(&"AGENTS.md".to_string()) {
                break;
            }
        }
        assert!(got.contains(&"AGENTS.md".to_string()), "{got:?}");
        assert!(!got.iter().any(|p| p.starts_with("build")), "{got:?}");
        let events = seen.lock().unwrap();
        assert!(
            events
                .iter()
                .all(|w| w.paths.iter().filter(|p| *p == "AGENTS.md").count() <= 1)
        );
    }
}
