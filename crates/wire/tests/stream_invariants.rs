//! Property tests of every stream decoder on random and mutated streams: real captures (and
//! our own fixtures) truncated, spliced together, with bytes flipped, ranges deleted or
//! repeated, SSE fragments or random bytes inserted, or replaced by random bytes; and pushed
//! in random pieces. Whatever the input:
//! - no panic;
//! - exactly one terminal event, `Completed` or an error, and it is the last event;
//! - a stream that ends in an error yields no `ItemDone` (no half tool call, ever);
//! - `Created` comes at most once, first; every `ToolCallDelta` follows its
//!   `ToolCallStarted`; call ids of the items are unique;
//! - after the terminal event, more pushes and another `finish` yield nothing.
//!
//! 10,000 cases per wire by default (`PROPTEST_CASES` overrides).
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::cell::Cell;
use std::collections::BTreeSet;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseError;
use tack_protocol::{ModelError, StreamEvent, Wire};
use tack_wire::{ToolKinds, decoder};

type Events = Vec<Result<StreamEvent, ModelError>>;

/// Every fixture of `wire`: ours, and the shared captures when present.
fn corpus(wire: Wire) -> Vec<Vec<u8>> {
    let mut all: Vec<Vec<u8>> = support::own_fixtures(wire)
        .into_iter()
        .map(|(_, b)| b)
        .collect();
    if let Some(shared) = support::wire_fixtures(wire) {
        all.extend(shared.into_iter().map(|(_, b)| b));
    }
    all
}

/// SSE fragments worth inserting anywhere: line ends, comments, terminal markers, errors,
/// half characters, invalid UTF-8.
const FRAGMENTS: &[&[u8]] = &[
    b"\n",
    b"\r\n",
    b"\r",
    b"\n\n",
    b":",
    b": keep-alive\n\n",
    b"data:",
    b"data: [DONE]\n\n",
    b"data: {}\n\n",
    b"data: null\n\n",
    b"event: error\ndata: {\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
    b"data: {\"type\":\"message_stop\"}\n\n",
    b"data: {\"type\":\"response.completed\",\"response\":{}}\n\n",
    b"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    b"data: {\"type\":\"content_block_start\",\"index\":4294967295,\"content_block\":{\"type\":\"tool_use\"}}\n\n",
    b"data: {\"type\":\"response.output_text.delta\",\"content_index\":4294967295,\"delta\":\"x\"}\n\n",
    b"\xC3",
    b"\xFF\xFE",
    b"\xEF\xBB\xBF",
    b"}",
    b"\"",
];

#[derive(Debug, Clone)]
enum Mutation {
    /// Keep only the bytes before this point.
    Truncate(Index),
    /// Replace everything from `at` with another fixture's bytes from `from`.
    Splice {
        at: Index,
        other: Index,
        from: Index,
    },
    /// XOR one byte.
    Flip { at: Index, mask: u8 },
    /// Remove a range.
    Delete { at: Index, len: usize },
    /// Repeat a range in place.
    Repeat { at: Index, len: usize },
    /// Insert an SSE fragment.
    Insert { at: Index, fragment: Index },
    /// Insert random bytes.
    InsertRandom { at: Index, bytes: Vec<u8> },
    /// Replace the whole stream with random bytes.
    Random(Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => any::<Index>().prop_map(Mutation::Truncate),
        3 => (any::<Index>(), any::<Index>(), any::<Index>())
            .prop_map(|(at, other, from)| Mutation::Splice { at, other, from }),
        3 => (any::<Index>(), 1u8..=255).prop_map(|(at, mask)| Mutation::Flip { at, mask }),
        3 => (any::<Index>(), 1usize..200).prop_map(|(at, len)| Mutation::Delete { at, len }),
        3 => (any::<Index>(), 1usize..200).prop_map(|(at, len)| Mutation::Repeat { at, len }),
        3 => (any::<Index>(), any::<Index>())
            .prop_map(|(at, fragment)| Mutation::Insert { at, fragment }),
        3 => (any::<Index>(), prop::collection::vec(any::<u8>(), 1..64))
            .prop_map(|(at, bytes)| Mutation::InsertRandom { at, bytes }),
        1 => prop::collection::vec(any::<u8>(), 0..512).prop_map(Mutation::Random),
    ]
}

fn apply(mut body: Vec<u8>, mutation: &Mutation, corpus: &[Vec<u8>]) -> Vec<u8> {
    let point = |i: &Index, body: &Vec<u8>| i.index(body.len() + 1);
    match mutation {
        Mutation::Truncate(at) => {
            let at = point(at, &body);
            body.truncate(at);
        }
        Mutation::Splice { at, other, from } => {
            let at = point(at, &body);
            let other = &corpus[other.index(corpus.len())];
            body.truncate(at);
            body.extend_from_slice(&other[from.index(other.len() + 1)..]);
        }
        Mutation::Flip { at, mask } => {
            if !body.is_empty() {
                let at = at.index(body.len());
                body[at] ^= mask;
            }
        }
        Mutation::Delete { at, len } => {
            let at = point(at, &body);
            let end = (at + len).min(body.len());
            body.drain(at..end);
        }
        Mutation::Repeat { at, len } => {
            let at = point(at, &body);
            let end = (at + len).min(body.len());
            let copy = body[at..end].to_vec();
            body.splice(at..at, copy);
        }
        Mutation::Insert { at, fragment } => {
            let at = point(at, &body);
            let fragment = FRAGMENTS[fragment.index(FRAGMENTS.len())];
            body.splice(at..at, fragment.iter().copied());
        }
        Mutation::InsertRandom { at, bytes } => {
            let at = point(at, &body);
            body.splice(at..at, bytes.iter().copied());
        }
        Mutation::Random(bytes) => body = bytes.clone(),
    }
    body
}

/// Decodes `body` pushed in the pieces `cuts` gives, then checks that the decoder stays
/// silent after its terminal event.
fn decode_in_pieces(wire: Wire, body: &[u8], cuts: &[Index]) -> Result<Events, TestCaseError> {
    let mut cuts: Vec<usize> = cuts.iter().map(|i| i.index(body.len() + 1)).collect();
    cuts.sort_unstable();
    let mut d = decoder(wire, ToolKinds::new(), support::origin_on(wire));
    let mut out = Vec::new();
    let mut start = 0;
    for cut in cuts {
        d.push(&body[start..cut], &mut out);
        start = cut;
    }
    d.push(&body[start..], &mut out);
    d.finish(&mut out);
    let mut after = Vec::new();
    d.push(
        b"data: {\"type\":\"message_stop\"}\n\ndata: [DONE]\n\n",
        &mut after,
    );
    d.finish(&mut after);
    prop_assert!(after.is_empty(), "events after the end: {:?}", after);
    Ok(out)
}

fn check(events: &Events) -> Result<(), TestCaseError> {
    let terminal = |e: &Result<StreamEvent, ModelError>| {
        matches!(e, Err(_) | Ok(StreamEvent::Completed { .. }))
    };
    let terminals: Vec<usize> = (0..events.len())
        .filter(|&i| terminal(&events[i]))
        .collect();
    prop_assert_eq!(terminals.len(), 1, "terminal events: {:?}", events);
    prop_assert_eq!(
        terminals[0],
        events.len() - 1,
        "the terminal event is not last"
    );
    let failed = events.last().is_some_and(Result::is_err);
    let mut started = BTreeSet::new();
    let mut item_calls = BTreeSet::new();
    for (i, event) in events.iter().enumerate() {
        match event {
            Ok(StreamEvent::Created { .. }) => prop_assert_eq!(i, 0, "Created not first"),
            Ok(StreamEvent::ToolCallStarted { call_id, .. }) => {
                prop_assert!(
                    started.insert(call_id.clone()),
                    "started twice: {}",
                    call_id
                );
            }
            Ok(StreamEvent::ToolCallDelta { call_id, .. }) => {
                prop_assert!(started.contains(call_id), "delta before start: {}", call_id);
            }
            Ok(StreamEvent::ItemDone { item }) => {
                prop_assert!(!failed, "an item from a failed stream: {:?}", item);
                if let Some(call_id) = item.call_id() {
                    prop_assert!(item_calls.insert(call_id.to_string()), "duplicate call id");
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn run(wire: Wire) {
    let corpus = corpus(wire);
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let strategy = (
        any::<Index>(),
        prop::collection::vec(mutation(), 0..5),
        prop::collection::vec(any::<Index>(), 0..24),
    );
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let (completed, failed) = (Cell::new(0u32), Cell::new(0u32));
    let result = runner.run(&strategy, |(pick, mutations, cuts)| {
        let mut body = corpus[pick.index(corpus.len())].clone();
        for m in &mutations {
            body = apply(body, m, &corpus);
        }
        let events = decode_in_pieces(wire, &body, &cuts)?;
        check(&events)?;
        let counter = if events.last().is_some_and(Result::is_ok) {
            &completed
        } else {
            &failed
        };
        counter.set(counter.get() + 1);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{wire}: {e}");
    }
    println!(
        "{wire}: {} streams, {} completed, {} failed",
        completed.get() + failed.get(),
        completed.get(),
        failed.get()
    );
}

#[test]
fn chat_streams_always_end_in_exactly_one_terminal_event() {
    run(Wire::Chat);
}

#[test]
fn responses_streams_always_end_in_exactly_one_terminal_event() {
    run(Wire::Responses);
}

#[test]
fn messages_streams_always_end_in_exactly_one_terminal_event() {
    run(Wire::Messages);
}

#[test]
fn unmutated_fixtures_hold_the_invariants_whole() {
    for wire in Wire::ALL {
        for body in corpus(wire) {
            let mut d = decoder(wire, ToolKinds::new(), support::origin_on(wire));
            let mut events = Vec::new();
            d.push(&body, &mut events);
            d.finish(&mut events);
            check(&events).unwrap();
        }
    }
}
