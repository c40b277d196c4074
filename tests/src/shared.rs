//! The shared conformance folder (`../shared`): recorded provider streams and other fixtures
//! that live beside the repository and are used from there, never copied into it.
//!
//! Tests that need it skip (and pass) when it is absent, printing `skipped: no ../shared`; use
//! [`shared_dir_or_skip!`](crate::shared_dir_or_skip) for that, or call [`no_shared`] where a
//! test finds it missing. Under `CI=true` the folder is always there (CI lays it beside the
//! clone), so there a missing folder fails the test instead of passing it silently.

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
    let dir = shared_dir_wanted();
    dir.is_dir().then_some(dir)
}

/// Where the shared folder is looked for: `$TACK_SHARED`, else `<workspace>/../shared`.
fn shared_dir_wanted() -> PathBuf {
    match std::env::var_os("TACK_SHARED") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace_dir().join("..").join("shared"),
    }
}

/// Whether this is a CI run (`CI=true`, as CI sets it; `1` too).
pub fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Called by a test that found the shared folder (or what it needs from it) missing, before it
/// returns early: prints `skipped: no ../shared`, so the test passes; under `CI=true`, where the
/// folder is always there, panics instead, so a conformance test never passes without running.
///
/// # Panics
/// Under `CI=true`.
#[track_caller]
pub fn no_shared() {
    if is_ci() {
        panic!(
            "no ../shared at {} (CI=true: the shared conformance folder must be there; set \
             TACK_SHARED to where it is)",
            shared_dir_wanted().display()
        );
    }
    println!("skipped: no ../shared");
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
/// the enclosing test (which must return `()`); under `CI=true` a missing folder fails the test
/// (see [`no_shared`](crate::no_shared)).
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
                $crate::no_shared();
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
