//! `tack decode` on every recorded provider stream of the conformance suite: the command's
//! output is exactly the neutral projection of the library's decoding (whose expectations are
//! the insta snapshots in crates/wire/tests/snapshots), line for line, and it exits non-zero
//! exactly when the stream ends in an error.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::{Command, Stdio};

use tack_protocol::{ReasoningOrigin, Wire};

fn decode_with_cli(wire: Wire, bytes: &[u8]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tack"))
        .args(["decode", "--wire", wire.as_str()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn every_shared_fixture_decodes_through_the_cli_as_through_the_library() {
    let Some(shared) = tack_tests::shared_dir() else {
        println!("skipped: no ../shared");
        return;
    };
    let mut checked = 0;
    for wire in Wire::ALL {
        let dir = shared.join("fixtures/wire").join(wire.as_str());
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "sse"))
            .collect();
        files.sort();
        for path in files {
            let bytes = std::fs::read(&path).unwrap();
            let (code, stdout) = decode_with_cli(wire, &bytes);
            let events = tack_wire::decode_all(
                wire,
                Default::default(),
                ReasoningOrigin {
                    wire,
                    provider: None,
                    model: None,
                },
                &bytes,
            );
            let expected = tack_wire::neutral::to_jsonl(&events);
            assert_eq!(stdout.trim_end(), expected.trim_end(), "{}", path.display());
            let failed = events.iter().any(Result::is_err);
            assert_eq!(code, i32::from(failed), "{}", path.display());
            let last: serde_json::Value =
                serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
            assert!(
                matches!(last["type"].as_str(), Some("completed" | "error")),
                "{}: {last}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} fixtures");
}
