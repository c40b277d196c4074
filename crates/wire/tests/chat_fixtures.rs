//! Conformance: every recorded real Chat stream in `../shared/fixtures/wire/chat/` decodes to
//! the pinned neutral event lines, whatever the chunking.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use tack_protocol::Wire;
use tack_wire::neutral::to_neutral_lines;
use tack_wire::{ToolKinds, decode_all};

#[test]
fn every_chat_fixture_matches_its_snapshot() {
    let Some(fixtures) = support::chat_fixtures() else {
        return;
    };
    for (name, body) in fixtures {
        let events = decode_all(Wire::Chat, ToolKinds::new(), support::origin(), &body);
        insta::assert_json_snapshot!(format!("chat__{name}"), to_neutral_lines(&events));
    }
}
