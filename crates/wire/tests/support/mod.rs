//! Shared helpers for the integration tests.
#![allow(dead_code)]
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod server;

use std::path::PathBuf;

use tack_protocol::{ReasoningOrigin, Wire};

/// The shared conformance folder: `$TACK_SHARED`, else `<workspace>/../shared`.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("TACK_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    dir.is_dir().then_some(dir)
}

/// `fixtures/wire/chat/*.sse`, sorted, or `None` (after printing the skip notice) when the
/// shared folder is absent.
pub fn chat_fixtures() -> Option<Vec<(String, Vec<u8>)>> {
    let Some(shared) = shared_dir() else {
        println!("skipped: no ../shared");
        return None;
    };
    let dir = shared.join("fixtures/wire/chat");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sse"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    Some(
        files
            .into_iter()
            .map(|p| {
                let name = p.file_stem().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&p).unwrap())
            })
            .collect(),
    )
}

/// The origin used by the tests.
pub fn origin() -> ReasoningOrigin {
    ReasoningOrigin {
        wire: Wire::Chat,
        provider: Some("test".into()),
        model: None,
    }
}
