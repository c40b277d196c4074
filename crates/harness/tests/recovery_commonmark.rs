//! Leaked-call detection reads fenced code the way CommonMark does: a call written inside a
//! fenced block is code (shown, never run), one outside is recovered. Property-tested against
//! pulldown-cmark as the oracle, on documents of fence lines (backticks or tildes, lengths 3–5,
//! indentation 0–3, info strings), prose, blank lines and Hermes-style call blocks. Where
//! Markdown is ambiguous the scanner deliberately reads more code than CommonMark (unclosed
//! code spans, fences indented four or more, fences in containers: see `recovery`'s docs), so
//! the generator stays where the two must agree.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod text_protocol_support;

use proptest::prelude::*;
use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag};
use serde_json::json;
use tack_harness::recovery::TextCallRecovery;
use tack_protocol::{Item, StreamEvent, ToolSpec};
use text_protocol_support::*;

const CALL: &str =
    "<tool_call>\n{\"name\": \"shell\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>\n";

#[derive(Debug, Clone)]
enum Piece {
    Line(String),
    Call,
}

fn piece() -> impl Strategy<Value = Piece> {
    let fence = (
        0usize..4,
        prop_oneof![Just('`'), Just('~')],
        3usize..6,
        prop_oneof![
            Just(""),
            Just("xml"),
            Just("tool_call"),
            Just("bash x"),
            Just("  ")
        ],
    )
        .prop_map(|(indent, c, n, info)| {
            Piece::Line(format!(
                "{}{}{info}\n",
                " ".repeat(indent),
                c.to_string().repeat(n)
            ))
        });
    prop_oneof![
        3 => fence,
        2 => Just(Piece::Line("\n".into())),
        2 => prop_oneof![Just("some prose"), Just("  indented prose"), Just("more text")]
            .prop_map(|t| Piece::Line(format!("{t}\n"))),
        2 => Just(Piece::Call),
    ]
}

/// The document, and the byte offset of each call block in it.
fn document(pieces: &[Piece]) -> (String, Vec<usize>) {
    let mut text = String::new();
    let mut calls = Vec::new();
    for p in pieces {
        match p {
            Piece::Line(l) => text.push_str(l),
            Piece::Call => {
                calls.push(text.len());
                // A blank line after: a call block on its own lines is an HTML block in
                // CommonMark, which would otherwise swallow a fence line that follows.
                text.push_str(CALL);
                text.push('\n');
            }
        }
    }
    (text, calls)
}

/// How many of the call blocks CommonMark puts outside fenced code.
fn outside_code(text: &str, calls: &[usize]) -> usize {
    let mut code = Vec::new();
    for (event, range) in Parser::new(text).into_offset_iter() {
        if let Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) = event {
            code.push(range);
        }
    }
    calls
        .iter()
        .filter(|&&at| !code.iter().any(|r| r.contains(&at)))
        .count()
}

fn recovered(text: &str) -> usize {
    let tools = vec![ToolSpec::function(
        "shell",
        "run",
        json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
    )];
    let mut post = TextCallRecovery::new(&tools);
    run_post(&mut post, text_reply(&[text]))
        .iter()
        .filter(|e| {
            matches!(
                e,
                StreamEvent::ItemDone {
                    item: Item::FunctionCall(_)
                }
            )
        })
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn calls_in_fenced_code_are_code_as_commonmark_reads_it(
        pieces in proptest::collection::vec(piece(), 0..14)
    ) {
        let (text, calls) = document(&pieces);
        prop_assert_eq!(recovered(&text), outside_code(&text, &calls), "{:?}", text);
    }
}
