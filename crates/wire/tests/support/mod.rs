//! Shared helpers for the integration tests.
#![allow(dead_code)]
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod conversation;
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
    wire_fixtures(Wire::Chat)
}

/// `fixtures/wire/<wire>/*.sse`, sorted, or `None` (after printing the skip notice) when the
/// shared folder is absent.
pub fn wire_fixtures(wire: Wire) -> Option<Vec<(String, Vec<u8>)>> {
    let Some(shared) = shared_dir() else {
        tack_tests::no_shared();
        return None;
    };
    let dir = shared.join("fixtures/wire").join(wire.as_str());
    let files = sse_files(&dir);
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    Some(files)
}

/// Our own fixtures in `tests/fixtures/<wire>/`, sorted.
pub fn own_fixtures(wire: Wire) -> Vec<(String, Vec<u8>)> {
    sse_files(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(wire.as_str()),
    )
}

/// `(stem, bytes)` of every `*.sse` file in `dir`, sorted by name.
fn sse_files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sse"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// The origin used by the tests.
pub fn origin() -> ReasoningOrigin {
    origin_on(Wire::Chat)
}

/// The origin used by the tests of `wire`.
pub fn origin_on(wire: Wire) -> ReasoningOrigin {
    ReasoningOrigin {
        wire,
        provider: Some("test".into()),
        model: None,
    }
}
