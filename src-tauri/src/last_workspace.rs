//! The workspace folder the window had open last, kept in `<data dir>/workspace.json` (beside
//! `sessions/`, so a fresh `TACK_HOME` starts with no folder).
//!
//! File shape: `{ "lastWorkspace": "/abs/path" }`; `null` or a missing file is "none".

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file's name inside the data folder.
pub const FILE_NAME: &str = "workspace.json";

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    last_workspace: Option<PathBuf>,
}

/// The remembered folder, when one is remembered and it is still a folder. An unreadable or
/// malformed file counts as none (it only saves a click), with a warning.
pub fn load(data_dir: &Path) -> Option<PathBuf> {
    let path = data_dir.join(FILE_NAME);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the last workspace");
            return None;
        }
    };
    let stored: Stored = match serde_json::from_str(&text) {
        Ok(stored) => stored,
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "the last-workspace file is malformed");
            return None;
        }
    };
    stored.last_workspace.filter(|dir| dir.is_dir())
}

/// Remembers `folder` (or forgets, with `None`). Written to a temporary file and renamed, so a
/// crash mid-write leaves the previous file whole.
///
/// # Errors
/// When the data folder cannot be created or the file cannot be written.
pub fn save(data_dir: &Path, folder: Option<&Path>) -> io::Result<()> {
    std::fs::create_dir_all(data_dir)?;
    let stored = Stored {
        last_workspace: folder.map(Path::to_path_buf),
    };
    let text = serde_json::to_string_pretty(&stored).map_err(io::Error::other)?;
    let path = data_dir.join(FILE_NAME);
    let temp = data_dir.join(format!("{FILE_NAME}.tmp"));
    std::fs::write(&temp, text)?;
    std::fs::rename(&temp, &path)
}
