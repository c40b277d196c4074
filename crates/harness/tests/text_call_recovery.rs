//! The leaked tool-call recovery decorator: calls written as text markup become function
//! calls, wherever the stream split the tags, with values typed from the tool's schema; other
//! text is not delayed and comes out unchanged.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod text_protocol_support;

use proptest::prelude::*;
use serde_json::{Value, json};
use tack_harness::Postprocess;
use tack_harness::recovery::{TextCallRecovery, chain, enable, leaks_text_calls};
use tack_protocol::{Item, ProviderInfo, StopReason, StreamEvent, ToolSpec, Wire};
use text_protocol_support::*;

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::function(
            "shell",
            "run",
            json!({"type": "object", "properties": {
                "command": {"type": "string"},
                "timeout_ms": {"type": "integer"},
                "background": {"type": "boolean"},
            }, "required": ["command"]}),
        ),
        ToolSpec::function(
            "read_file",
            "read",
            json!({"type": "object", "properties": {
                "path": {"type": "string"},
                "offset": {"type": ["integer", "null"]},
                "ranges": {"type": "array", "items": {"type": "integer"}},
                "ratio": {"type": "number"},
                "options": {"type": "object"},
            }, "required": ["path"]}),
        ),
    ]
}

fn recover(deltas: &[&str]) -> Vec<StreamEvent> {
    let mut post = TextCallRecovery::new(&tools());
    run_post(&mut post, text_reply(deltas))
}

/// (text shown, message text, calls as (name, arguments)).
fn summary(events: &[StreamEvent]) -> (String, Option<String>, Vec<(String, Value)>) {
    let mut shown = String::new();
    let mut message = None;
    let mut calls = Vec::new();
    for e in events {
        match e {
            StreamEvent::TextDelta { text } => shown.push_str(text),
            StreamEvent::ItemDone {
                item: Item::Message(m),
            } => message = Some(m.text()),
            StreamEvent::ItemDone {
                item: Item::FunctionCall(c),
            } => calls.push((c.name.clone(), serde_json::from_str(&c.arguments).unwrap())),
            _ => {}
        }
    }
    (shown, message, calls)
}

const QWEN: &str = "Let me look.\n<function=shell>\n<parameter=command>\nls -la src\n</parameter>\n<parameter=timeout_ms>\n5000\n</parameter>\n<parameter=background>\nfalse\n</parameter>\n</function>";
const INVOKE: &str = "Reading.\n<function_calls>\n<invoke name=\"read_file\">\n<parameter name=\"path\">src/main.rs</parameter>\n<parameter name=\"offset\">10</parameter>\n<parameter name=\"ranges\">[1, 2]</parameter>\n<parameter name=\"ratio\">0.5</parameter>\n<parameter name=\"options\">{\"raw\": true}</parameter>\n</invoke>\n</function_calls>";
const HERMES: &str =
    "<tool_call>\n{\"name\": \"shell\", \"arguments\": {\"command\": \"pwd\"}}\n</tool_call>";

#[test]
fn qwen_xml_calls_are_recovered_with_typed_values() {
    let events = recover(&[QWEN]);
    let (shown, message, calls) = summary(&events);
    assert_eq!(shown, "Let me look.\n");
    assert_eq!(message.as_deref(), Some("Let me look.\n"));
    assert_eq!(
        calls,
        vec![(
            "shell".into(),
            json!({"command": "ls -la src", "timeout_ms": 5000, "background": false})
        )]
    );
    assert_eq!(
        outcome(&events),
        Outcome::Calls(
            events
                .iter()
                .filter_map(|e| match e {
                    StreamEvent::ItemDone { item } if item.is_tool_call() => Some(item.clone()),
                    _ => None,
                })
                .collect()
        )
    );
}

#[test]
fn invoke_calls_and_hermes_json_are_recovered() {
    let (_, message, calls) = summary(&recover(&[INVOKE]));
    assert_eq!(message.as_deref(), Some("Reading.\n"));
    assert_eq!(
        calls,
        vec![(
            "read_file".into(),
            json!({"path": "src/main.rs", "offset": 10, "ranges": [1, 2], "ratio": 0.5, "options": {"raw": true}})
        )]
    );
    let events = recover(&[HERMES]);
    let (_, message, calls) = summary(&events);
    assert_eq!(
        message, None,
        "a reply that was only a call has no message left"
    );
    assert_eq!(calls, vec![("shell".into(), json!({"command": "pwd"}))]);
}

#[test]
fn tags_split_at_every_byte_are_still_found() {
    for text in [QWEN, INVOKE, HERMES] {
        let whole = summary(&recover(&[text]));
        for i in 1..text.len() {
            if !text.is_char_boundary(i) {
                continue;
            }
            let (a, b) = text.split_at(i);
            assert_eq!(summary(&recover(&[a, b])), whole, "split at {i}");
            // And into three parts around a second point.
            let j = (i + 7).min(text.len());
            if j > i && text.is_char_boundary(j) {
                let (b1, b2) = b.split_at(j - i);
                assert_eq!(
                    summary(&recover(&[a, b1, b2])),
                    whole,
                    "split at {i} and {j}"
                );
            }
        }
        // One byte per delta.
        let bytes: Vec<String> = text.chars().map(|c| c.to_string()).collect();
        let refs: Vec<&str> = bytes.iter().map(String::as_str).collect();
        assert_eq!(summary(&recover(&refs)), whole);
    }
}

#[test]
fn ordinary_text_is_not_delayed() {
    let mut post = TextCallRecovery::new(&tools());
    let mut out = Vec::new();
    for delta in [
        "The value a < b holds",
        " and <b>bold</b> is HTML. Next: <fun",
    ] {
        post.event(StreamEvent::TextDelta { text: delta.into() }, &mut out);
    }
    // Everything but the possible tag start is out at once.
    let shown: String = out
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        shown,
        "The value a < b holds and <b>bold</b> is HTML. Next: "
    );
    // The next delta shows it was not a tag: it comes out.
    out.clear();
    post.event(
        StreamEvent::TextDelta {
            text: "ny story".into(),
        },
        &mut out,
    );
    assert!(matches!(&out[..], [StreamEvent::TextDelta { text }] if text == "<funny story"));
}

#[test]
fn unknown_tools_and_explanations_stay_text() {
    let text =
        "Write <function=launch_rockets><parameter=when>now</parameter></function> to call a tool.";
    let events = recover(&[text]);
    let (shown, message, calls) = summary(&events);
    assert!(calls.is_empty());
    assert_eq!(shown, text);
    assert_eq!(message.as_deref(), Some(text));
    assert_eq!(outcome(&events), Outcome::Completion);
}

#[test]
fn a_block_cut_off_by_the_end_counts_only_when_complete_enough() {
    // The closing tags never came (a stop sequence ate them), but every required value is there.
    let (_, _, calls) = summary(&recover(&[
        "<function=shell>\n<parameter=command>\nmake test\n</parameter>\n",
    ]));
    assert_eq!(
        calls,
        vec![("shell".into(), json!({"command": "make test"}))]
    );
    // The required `command` never arrived: not a call, and the text is shown.
    let events = recover(&["<function=shell>\n<parameter=timeout_ms>\n5"]);
    let (shown, _, calls) = summary(&events);
    assert!(calls.is_empty());
    assert_eq!(shown, "<function=shell>\n<parameter=timeout_ms>\n5");
}

#[test]
fn several_calls_in_one_reply_and_native_calls_pass_through() {
    let text = format!(
        "{QWEN}\nand\n<function=read_file>\n<parameter=path>\na.txt\n</parameter>\n</function>"
    );
    let (shown, _, calls) = summary(&recover(&[&text]));
    assert_eq!(shown, "Let me look.\n\nand\n");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1], ("read_file".into(), json!({"path": "a.txt"})));

    let mut post = TextCallRecovery::new(&tools());
    let native = vec![
        StreamEvent::Created {
            response_id: None,
            model: None,
        },
        StreamEvent::ItemDone {
            item: call("c1", "shell", json!({"command": "ls"})),
        },
        StreamEvent::Completed {
            stop_reason: StopReason::ToolCalls,
            response_id: None,
        },
    ];
    assert_eq!(run_post(&mut post, native.clone()), native);
}

#[test]
fn recovery_chains_before_a_harness_postprocess() {
    // mini-swe-agent corrects a reply without a call; with recovery first, a leaked call counts.
    let mut shaped = shape("mini-swe-agent", vec![user("u", "list files")]);
    let bash = vec![ToolSpec::function(
        "bash",
        "run",
        json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
    )];
    let mut post = chain(
        Box::new(TextCallRecovery::new(&bash)),
        shaped.postprocess.take().unwrap(),
    );
    let events = run_post(
        post.as_mut(),
        text_reply(&[
            "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>",
        ]),
    );
    let Outcome::Calls(c) = outcome(&events) else {
        panic!("{events:?}")
    };
    assert_eq!(command_of(&c[0]), "ls");
}

#[test]
fn enable_goes_before_a_native_tool_harness_and_leaves_text_protocols_alone() {
    // mini-swe-agent advertises `bash`: the recovery goes in front of its own postprocess.
    let mut shaped = shape("mini-swe-agent", vec![user("u", "list files")]);
    assert!(enable(&mut shaped));
    let events = run_post(
        shaped.postprocess.as_mut().unwrap().as_mut(),
        text_reply(&["<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>"]),
    );
    let Outcome::Calls(c) = outcome(&events) else {
        panic!("{events:?}")
    };
    assert_eq!(command_of(&c[0]), "ls");
    // terminus-2 advertises no tools and reads its actions from the text itself.
    let mut shaped = shape("terminus-2", vec![user("u", "list files")]);
    assert!(!enable(&mut shaped));
}

#[test]
fn which_providers_enable_it() {
    let p = |url: &str| ProviderInfo {
        id: "x".into(),
        name: "X".into(),
        base_url: url.into(),
        wire: Wire::Chat,
    };
    assert!(leaks_text_calls(&p("http://127.0.0.1:8082/v1"), "smollm2"));
    assert!(leaks_text_calls(&p("http://localhost:11434/v1"), "llama3"));
    assert!(leaks_text_calls(
        &p("https://openrouter.ai/api/v1"),
        "qwen/qwen3-coder-480b"
    ));
    assert!(!leaks_text_calls(&p("https://api.openai.com/v1"), "gpt-4o"));
}

/// The tester's reply: a command shown in a fence, explicitly not run.
const FENCED: &str = "To delete it you would write:\n```\n<function=shell>\n<parameter=command>\nrm -r d3\n</parameter>\n</function>\n```\nbut I will not do that.";

/// `text` is plain text: shown and kept byte for byte, no call, the turn ends.
fn assert_text(deltas: &[&str]) {
    let text = deltas.concat();
    let events = recover(deltas);
    let (shown, message, calls) = summary(&events);
    assert!(calls.is_empty(), "{deltas:?} → {calls:?}");
    assert_eq!(shown, text, "{deltas:?}");
    assert_eq!(message.as_deref(), Some(text.as_str()));
    assert_eq!(outcome(&events), Outcome::Completion);
}

#[test]
fn markup_in_a_code_fence_is_text() {
    assert_text(&[FENCED]);
    for i in 1..FENCED.len() {
        let (a, b) = FENCED.split_at(i);
        assert_text(&[a, b]);
    }
    let bytes: Vec<String> = FENCED.chars().map(|c| c.to_string()).collect();
    assert_text(&bytes.iter().map(String::as_str).collect::<Vec<_>>());
    // Fence markers split inside their run, tagged fences, tildes, indented and in a list.
    assert_text(&[
        "See:\n`",
        "``\n<function=shell>\n<parameter=command>\nls\n</parameter>\n</function>\n`",
        "``\n",
    ]);
    for fence in [
        "```xml",
        "```tool_call",
        "~~~",
        "   ````",
        "- ```sh",
        "> ```",
    ] {
        let close = fence
            .trim_start_matches(['-', '>', ' '])
            .split(|c: char| c.is_alphabetic())
            .next()
            .unwrap();
        assert_text(&[&format!("{fence}\n{HERMES}\n{close}\nThat is the format.")]);
        assert_text(&[&format!("{fence}\n{INVOKE}\n")]);
    }
}

#[test]
fn markup_in_an_inline_code_span_is_text() {
    let text =
        "Call it as `<function=shell><parameter=command>rm -r d3</parameter></function>` yourself.";
    assert_text(&[text]);
    assert_text(&[
        "Use ``<tool_call>{\"name\": \"shell\", \"arguments\": {\"command\": \"x\"}}</tool_call>`",
        "` here.",
    ]);
}

#[test]
fn an_unclosed_fence_keeps_the_rest_as_text() {
    assert_text(&["Like this:\n```\n", QWEN]);
    // A shorter run or one with text after it does not close the fence.
    assert_text(&[&format!("````\n```\n{QWEN}\n```` no\n{QWEN}")]);
}

#[test]
fn a_call_after_a_closed_fence_is_recovered() {
    let text = format!("Example:\n```\n{HERMES}\n```\nNow for real:\n{QWEN}");
    let whole = summary(&recover(&[&text]));
    let (shown, _, calls) = &whole;
    assert_eq!(
        shown,
        &format!("Example:\n```\n{HERMES}\n```\nNow for real:\nLet me look.\n")
    );
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].1["command"], "ls -la src");
    for i in 1..text.len() {
        let (a, b) = text.split_at(i);
        assert_eq!(summary(&recover(&[a, b])), whole, "split at {i}");
    }
    // After a closed inline span too.
    let (_, _, calls) = summary(&recover(&["Not `<tool_call>`, but:\n", HERMES]));
    assert_eq!(calls, vec![("shell".into(), json!({"command": "pwd"}))]);
}

#[test]
fn a_tag_in_prose_does_not_pull_in_fenced_markup() {
    // The wrapper is mentioned in prose; the call markup after it is in a fence.
    assert_text(&[
        "Calls go in <function_calls>, for example:\n```\n<function_calls>\n<invoke name=\"shell\">\n<parameter name=\"command\">rm -r d3</parameter>\n</invoke>\n</function_calls>\n```\n",
    ]);
    assert_text(&[
        "Write <function=shell> and then:\n```\n<parameter=command>\nrm -r d3\n</parameter>\n</function>\n```\n",
    ]);
    // A tag in prose whose block ends inside a fence: the fence still counts after it.
    assert_text(&[
        "Use <invoke name=\"x\"> like:\n```\n<invoke name=\"a\">demo</invoke>\n<function=shell>\n<parameter=command>\nrm -r d3\n</parameter>\n</function>\n```\n",
    ]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Text without call markup comes out exactly as it went in, however it is split.
    #[test]
    fn text_without_calls_is_unchanged(text in "(?s)[^<]{0,80}(<[a-z/ ]{0,8}[^<]{0,40}){0,4}(\n {0,4}[`~]{1,4}[a-z]{0,3}\n[^<]{0,20}){0,3}", cuts in proptest::collection::vec(0usize..200, 0..6)) {
        prop_assume!(!text.contains("<function=") && !text.contains("<invoke") && !text.contains("<tool_call>") && !text.contains("<function_calls>"));
        let mut points: Vec<usize> = cuts.into_iter().map(|c| c % (text.len() + 1)).filter(|c| text.is_char_boundary(*c)).collect();
        points.sort_unstable();
        points.dedup();
        let mut deltas = Vec::new();
        let mut last = 0;
        for p in points {
            deltas.push(&text[last..p]);
            last = p;
        }
        deltas.push(&text[last..]);
        let deltas: Vec<&str> = deltas.into_iter().filter(|d| !d.is_empty()).collect();
        let (shown, message, calls) = summary(&recover(&deltas));
        prop_assert_eq!(&shown, &text);
        prop_assert!(calls.is_empty());
        if !text.is_empty() {
            prop_assert_eq!(message.as_deref(), Some(text.as_str()));
        }
    }

    /// Fuzz: markup soup never panics and the stream stays well formed.
    #[test]
    fn markup_soup_never_breaks_the_stream(parts in proptest::collection::vec(prop_oneof![
        Just("<function=shell>"), Just("<function=read_file>"), Just("</function>"), Just("<parameter=command>"),
        Just("<parameter=path>"), Just("</parameter>"), Just("<invoke name=\"shell\">"), Just("</invoke>"),
        Just("<parameter name=\"command\">"), Just("<tool_call>"), Just("</tool_call>"), Just("<function_calls>"),
        Just("</function_calls>"), Just("{\"name\": \"shell\", \"arguments\": {\"command\": \"x\"}}"), Just("<"), Just("\n"),
        Just("ls"), Just("é"), Just("5"), Just("`"), Just("```"), Just("\n~~~\n"),
    ], 0..30), split in 0usize..400) {
        let text = parts.concat();
        let mut cut = split % (text.len() + 1);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let events = recover(&[&text[..cut], &text[cut..]]);
        let _ = outcome(&events);
    }

    /// Markup soup in a fence, or in an inline span, is text however the stream cuts it.
    #[test]
    fn markup_in_code_is_never_a_call(parts in proptest::collection::vec(prop_oneof![
        Just("<function=shell>"), Just("</function>"), Just("<parameter=command>"), Just("</parameter>"),
        Just("<invoke name=\"shell\">"), Just("</invoke>"), Just("<parameter name=\"command\">"),
        Just("<tool_call>"), Just("</tool_call>"), Just("<function_calls>"), Just("</function_calls>"),
        Just("{\"name\": \"shell\", \"arguments\": {\"command\": \"x\"}}"), Just("<"), Just(" "), Just("ls"),
    ], 0..20), fenced in any::<bool>(), split in 0usize..400, after in "[a-z ]{0,10}") {
        let soup = parts.concat();
        let text = if fenced { format!("```\n{soup}\n```\n{after}") } else { format!("`{soup}` {after}") };
        let cut = split % (text.len() + 1);
        let (shown, _, calls) = summary(&recover(&[&text[..cut], &text[cut..]]));
        prop_assert!(calls.is_empty());
        prop_assert_eq!(shown, text);
    }
}
