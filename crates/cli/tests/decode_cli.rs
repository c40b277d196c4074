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
        tack_tests::no_shared();
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

/// `tack decode` on `bytes`: exit code, stdout lines as JSON, stderr.
fn decode_lines(wire: Wire, bytes: &[u8]) -> (i32, Vec<serde_json::Value>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tack"))
        .args(["decode", "--wire", wire.as_str()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (
        out.status.code().unwrap_or(-1),
        lines,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn input_without_sse_data_lines_is_called_what_it_is() {
    // Bytes that are neither a stream nor JSON (not valid UTF-8 either).
    let noise: Vec<u8> = (0u32..600)
        .map(|i| u8::try_from((i * 7919 + 13) % 251).unwrap())
        .filter(|b| *b != b'\n' && *b != b'\r')
        .collect();
    for (wire, input) in [
        (Wire::Chat, noise.as_slice()),
        (
            Wire::Responses,
            b"<html><body>502 Bad Gateway</body></html>\n".as_slice(),
        ),
        (Wire::Messages, b"".as_slice()),
    ] {
        let (code, lines, _) = decode_lines(wire, input);
        assert_eq!(code, 1);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert_eq!(lines[0]["type"], "error");
        assert_eq!(lines[0]["kind"], "format_error");
        assert_eq!(
            lines[0]["message"],
            "no SSE `data:` lines found in the input; is this a recorded stream?"
        );
    }
}

#[test]
fn a_json_error_body_is_decoded_as_the_error_it_is_not_a_cut_stream() {
    let body = br#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}"#;
    let (code, lines, stderr) = decode_lines(Wire::Chat, body);
    assert_eq!(code, 1);
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "error", "{lines:?}");
    assert_ne!(last["kind"], "stream_truncated", "{last}");
    assert!(
        last["message"]
            .as_str()
            .unwrap()
            .contains("Incorrect API key provided"),
        "{last}"
    );
    assert!(stderr.contains("non-streaming reply"), "{stderr}");
}

#[test]
fn a_non_streaming_reply_decodes_like_its_stream() {
    let body = br#"{"id": "chatcmpl-1", "object": "chat.completion", "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello there."}, "finish_reason": "stop"}]}"#;
    let (code, lines, _) = decode_lines(Wire::Chat, body);
    assert_eq!(code, 0, "{lines:?}");
    let text: String = lines
        .iter()
        .filter(|l| l["type"] == "text_delta")
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Hello there.");
    assert_eq!(lines.last().unwrap()["type"], "completed");
}
