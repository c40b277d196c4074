//! What the file-writing tools share: unified diffs for the approval dialog and a check that
//! a file did not change between `prepare` (when the diff was shown) and `run`.

use std::path::{Path, PathBuf};

use tack_protocol::{FileChange, FileChangeKind};

/// Lines of context around each change in a diff.
const DIFF_CONTEXT: usize = 3;

/// A unified diff with `a/`/`b/` headers (`/dev/null` for a missing side).
pub(crate) fn unified_diff(
    old_label: Option<&str>,
    new_label: Option<&str>,
    old: &[u8],
    new: &[u8],
) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let old_header = old_label.map_or_else(|| "/dev/null".to_string(), |p| format!("a/{p}"));
    let new_header = new_label.map_or_else(|| "/dev/null".to_string(), |p| format!("b/{p}"));
    similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .context_radius(DIFF_CONTEXT)
        .header(&old_header, &new_header)
        .to_string()
}

/// The bytes of a file as seen by `prepare` (`None`: it did not exist).
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    /// Absolute resolved path.
    pub(crate) path: PathBuf,
    /// Workspace-relative (or absolute) path for messages.
    pub(crate) shown: String,
    /// Content at prepare time.
    pub(crate) bytes: Option<Vec<u8>>,
}

impl Snapshot {
    /// Reads the current state of `path`.
    ///
    /// # Errors
    /// A model-readable message when the path is a directory or cannot be read.
    pub(crate) fn take(path: &Path, shown: &str) -> Result<Self, String> {
        let bytes = read_optional(path, shown)?;
        Ok(Snapshot {
            path: path.to_path_buf(),
            shown: shown.to_string(),
            bytes,
        })
    }

    /// Fails when the file on disk no longer matches what the approval was based on.
    pub(crate) fn check_unchanged(&self) -> Result<(), String> {
        let now = read_optional(&self.path, &self.shown)?;
        if now == self.bytes {
            Ok(())
        } else {
            Err(format!(
                "`{}` changed on disk after this change was prepared; nothing was written. Read \
                 the file again and redo the change.",
                self.shown
            ))
        }
    }
}

/// File content, `None` when absent; an error for directories and unreadable files.
pub(crate) fn read_optional(path: &Path, shown: &str) -> Result<Option<Vec<u8>>, String> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(_) if path.is_dir() => Err(format!("`{shown}` is a directory.")),
        Err(err) => Err(format!(
            "cannot read `{shown}`: {}",
            super::paths::io_problem(&err)
        )),
    }
}

/// Writes `bytes` to `path`, creating missing parent directories.
pub(crate) fn write_creating_parents(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes)
}

/// A [`FileChange`] for a write of `new` over `old` (`None`: the file did not exist).
pub(crate) fn change_for_write(shown: &str, old: Option<&[u8]>, new: &[u8]) -> FileChange {
    match old {
        None => FileChange {
            path: shown.to_string(),
            kind: FileChangeKind::Add,
            move_to: None,
            diff: unified_diff(None, Some(shown), b"", new),
        },
        Some(old) => FileChange {
            path: shown.to_string(),
            kind: FileChangeKind::Update,
            move_to: None,
            diff: unified_diff(Some(shown), Some(shown), old, new),
        },
    }
}
