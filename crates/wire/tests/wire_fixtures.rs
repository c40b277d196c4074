//! Conformance: every recorded real Responses and Messages stream in
//! `../shared/fixtures/wire/{responses,messages}/` decodes to the pinned neutral event lines.
//! (Chat has its own file, `chat_fixtures.rs`.)

mod support;

use tack_protocol::Wire;
use tack_wire::neutral::to_neutral_lines;
use tack_wire::{ToolKinds, decode_all};

fn snapshot_every_fixture(wire: Wire) {
    let Some(fixtures) = support::wire_fixtures(wire) else {
        return;
    };
    for (name, body) in fixtures {
        let events = decode_all(wire, ToolKinds::new(), support::origin_on(wire), &body);
        insta::assert_json_snapshot!(format!("{wire}__{name}"), to_neutral_lines(&events));
    }
}

#[test]
fn every_responses_fixture_matches_its_snapshot() {
    snapshot_every_fixture(Wire::Responses);
}

#[test]
fn every_messages_fixture_matches_its_snapshot() {
    snapshot_every_fixture(Wire::Messages);
}
