//! The shared conformance folder (`../shared`): recorded provider streams and other fixtures
//! that live beside the repository and are used from there, never copied into it.
//!
//! Tests that need it skip (and pass) when it is absent, printing `skipped: no ../shared`; use
//! [`shared_dir_or_skip!`](crate::shared_dir_or_skip) for that.

use std::path::{Path, PathBuf};

/// The workspace root (the folder holding the root `Cargo.toml`).
pub fn workspace_dir() -> PathBuf {
    // This crate lives in `<workspace>/tests`.
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// The shared conformance folder: `$TACK_SHARED` when set (even if it does not exist, so a
/// mistyped override is not silently replaced), else `<workspace>/../shared`. `None` when the
/// chosen folder is not a directory.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("TACK_SHARED") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace_dir().join("..").join("shared"),
    };
    dir.is_dir().then_some(dir)
}

/// Reads `<shared>/fixtures/<relative>`, e.g. `wire/chat/openai-tool-call.sse`. `None` when
/// there is no shared folder.
///
/// # Panics
/// If the shared folder exists but the file cannot be read: the test names a fixture that
/// is not there, which is a bug in the test.
pub fn shared_fixture(relative: &str) -> Option<Vec<u8>> {
    let path = shared_dir()?.join("fixtures").join(relative);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) => panic!("shared fixture {} is unreadable: {e}", path.display()),
    }
}

/// Evaluates to the shared folder's path, or prints `skipped: no ../shared` and returns from
/// the enclosing test (which must return `()`).
///
/// ```no_run
/// #[test]
/// fn decodes_recorded_streams() {
///     let shared = tack_tests::shared_dir_or_skip!();
///     let _ = shared.join("fixtures/wire/chat");
/// }
/// ```
#[macro_export]
macro_rules! shared_dir_or_skip {
    () => {
        match $crate::shared_dir() {
            Some(dir) => dir,
            None => {
                println!("skipped: no ../shared");
                return;
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_dir_holds_the_root_manifest() {
        let manifest = std::fs::read_to_string(workspace_dir().join("Cargo.toml")).unwrap();
        assert!(manifest.contains("[workspace]"));
    }
}
