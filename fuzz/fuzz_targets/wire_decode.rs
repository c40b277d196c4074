//! The three stream decoders on any bytes, pushed in pieces: no panic; exactly one terminal
//! event (`Completed` or an error), last; an errored stream yields no finished item (never a
//! half tool call); tool-call item ids are unique; after the end, nothing more comes out.
//! Byte 0 picks the wire (mod 3), byte 1 the piece size (1 to 64 bytes).
#![no_main]

use std::collections::BTreeSet;

use libfuzzer_sys::fuzz_target;
use tack_protocol::{ReasoningOrigin, StreamEvent, Wire};
use tack_wire::{ToolKinds, decoder};

fuzz_target!(|data: &[u8]| {
    let [pick, size, body @ ..] = data else { return };
    let wire = [Wire::Chat, Wire::Responses, Wire::Messages][usize::from(*pick % 3)];
    let origin = ReasoningOrigin { wire, provider: Some("fuzz".into()), model: None };
    let mut d = decoder(wire, ToolKinds::new(), origin);
    let mut out = Vec::new();
    for piece in body.chunks(usize::from(*size % 64) + 1) {
        d.push(piece, &mut out);
    }
    d.finish(&mut out);
    let terminal = |e: &Result<StreamEvent, _>| matches!(e, Err(_) | Ok(StreamEvent::Completed { .. }));
    assert_eq!(out.iter().filter(|e| terminal(e)).count(), 1, "one terminal event: {out:?}");
    assert!(out.last().is_some_and(terminal), "the terminal event comes last: {out:?}");
    if matches!(out.last(), Some(Err(_))) {
        assert!(
            !out.iter().any(|e| matches!(e, Ok(StreamEvent::ItemDone { item }) if item.is_tool_call())),
            "an errored stream finished a tool call: {out:?}"
        );
    }
    let mut ids = BTreeSet::new();
    for e in &out {
        if let Ok(StreamEvent::ItemDone { item }) = e
            && let Some(id) = item.call_id()
        {
            assert!(ids.insert(id.to_string()), "duplicate call id {id}: {out:?}");
        }
    }
    let mut after = Vec::new();
    d.push(b"data: {}\n\n", &mut after);
    d.finish(&mut after);
    assert!(after.is_empty(), "events after the end: {after:?}");
});
