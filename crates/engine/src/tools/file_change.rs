//! What the file-writing tools share: unified diffs for the approval dialog, a check that
//! a file did not change between `prepare` (when the diff was shown) and `run`, reading only
//! regular files, and atomic writes that never write through a hard link.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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

/// File content, `None` when absent; an error for directories, special files (FIFOs,
/// sockets, devices, `/proc`) and unreadable files.
pub(crate) fn read_optional(path: &Path, shown: &str) -> Result<Option<Vec<u8>>, String> {
    let Some((mut file, meta)) = super::paths::open_regular(path, shown)? else {
        return Ok(None);
    };
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read `{shown}`: {}", super::paths::io_problem(&err)))?;
    Ok(Some(bytes))
}

/// Writes `bytes` to `path`, creating missing parent directories, atomically: into a new
/// file beside it, then renamed over it.
///
/// Renaming replaces the name, not the file it named, which is the point: a file with more
/// than one name (a hard link in the workspace to a file elsewhere) keeps its content under
/// its other names instead of being rewritten through the link, and a reader never sees a
/// half-written file. The replaced file's permissions are kept. Special files are refused.
pub(crate) fn write_creating_parents(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(parent)?;
    let existing = match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            return Err(std::io::Error::other(
                "not a regular file, so it is not replaced",
            ));
        }
        Ok(meta) => Some(meta),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(err),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (tmp_path, mut tmp) = create_temp_beside(parent, &name)?;
    let written = (|| {
        tmp.write_all(bytes)?;
        if let Some(meta) = &existing {
            tmp.set_permissions(meta.permissions())?;
        }
        tmp.sync_all()?;
        drop(tmp);
        std::fs::rename(&tmp_path, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp_path);
    }
    written?;
    // The rename is durable once the folder is synced; a failure here loses nothing written.
    if let Ok(dir) = std::fs::File::open(parent) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// A new, empty file in `dir` named after `name` (hidden, with a unique suffix), created
/// exclusively so an existing file or link is never opened.
fn create_temp_beside(dir: &Path, name: &str) -> std::io::Result<(PathBuf, std::fs::File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut last = None;
    for _ in 0..16 {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let candidate = dir.join(format!(".{name}.{}-{n}.tack-tmp", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(file) => return Ok((candidate, file)),
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => last = Some(err),
            Err(err) => return Err(err),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary file name")))
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
