//! Back-translation and shaping of the text-protocol harnesses, through the public registry:
//! a reply goes through the harness's postprocess exactly as the engine would feed it, and
//! the next request is shaped from the resulting history.
//!
//! The anchor's tested behaviours of the text protocols (openinterpreter 0.0.40, the tests in
//! `core/src/harness/swe_agent.rs`, `mini_swe_agent.rs`, `terminus_2.rs`), plus the anchor's flaws
//! this implementation fixes (corrections by label, no lost assistant text, working editor tool,
//! pure session state).
//! Each harness also gets a fuzz property: any reply yields an action, a correction or a
//! completion, in a well-formed stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod text_protocol_support;

use proptest::prelude::*;
use serde_json::{Value, json};
use tack_harness::prompts::PromptStore;
use tack_protocol::{Item, StopReason, StreamEvent, ToolOutput, ToolStatus};
use text_protocol_support::*;

fn task() -> Item {
    user("u1", "Fix the off-by-one in counter.py")
}

fn calls(events: &[StreamEvent]) -> Vec<Item> {
    match outcome(events) {
        Outcome::Calls(c) => c,
        other => panic!("expected calls, got {other:?}"),
    }
}

fn messages(shaped: &tack_harness::Shaped) -> Vec<Value> {
    body(shaped).1["messages"].as_array().unwrap().clone()
}

fn content_text(m: &Value) -> String {
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

// ---------------------------------------------------------------------------------------
// swe-agent

#[test]
fn swe_agent_each_action_syntax_becomes_a_shell_call() {
    let forms = [
        ("DISCUSSION\nFirst look around.\n```\nls -a\n```", "ls -a"),
        (
            "Let me grep.\n```bash\ngrep -rn 'count' .\n```",
            "grep -rn 'count' .",
        ),
        (
            "<tool_invoke><name>execute_bash</name><code>cat counter.py</code></tool_invoke>",
            "cat counter.py",
        ),
        (
            "<invoke name=\"bash\"><parameter name=\"command\">python -m pytest -q</parameter></invoke>",
            "python -m pytest -q",
        ),
        (
            "<invoke name='execute_bash'><command>pwd</command></invoke>",
            "pwd",
        ),
        (
            "<execute_bash>\nls &amp;&amp; echo &lt;ok&gt;\n</execute_bash>",
            "ls && echo <ok>",
        ),
    ];
    for (text, command) in forms {
        let events = reply("swe-agent", vec![task()], text);
        let c = calls(&events);
        assert_eq!(c.len(), 1, "{text}");
        let Item::LocalShellCall(shell) = &c[0] else {
            panic!("{:?}", c[0])
        };
        assert_eq!(shell.command, vec!["bash", "-lc", command], "{text}");
        assert_eq!(shell.timeout_ms, Some(30_000));
        // The assistant text the call came from is still in the stream, unchanged.
        assert!(events.iter().any(
            |e| matches!(e, StreamEvent::ItemDone { item: Item::Message(m) } if m.text() == text)
        ));
    }
}

#[test]
fn swe_agent_other_dialects_and_no_action_get_the_format_correction() {
    for text in [
        "<function=bash><parameter=command>ls</parameter></function>",
        "I have finished the task.",
        "```python\nprint('not an action')\n```",
        "",
    ] {
        match outcome(&reply("swe-agent", vec![task()], text)) {
            Outcome::Injected(label, correction) => {
                assert_eq!(label, "format_correction");
                assert!(correction.contains("did not call a tool"), "{correction}");
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

#[test]
fn swe_agent_nested_fences_come_out_whole() {
    let command =
        "cat <<'EOF' > README.md\n# Counter\n```python\nfrom counter import count\n```\nEOF";
    // CommonMark: the outer fence must be longer than the inner one to hold it.
    let text = format!("I'll write the readme.\n````bash\n{command}\n````\n");
    let c = calls(&reply("swe-agent", vec![task()], &text));
    assert_eq!(command_of(&c[0]), command);
    // With fences of one length the inner bare fence closes the block, as a Markdown reader
    // shows it; the action is what that block holds.
    let text = format!("I'll write the readme.\n```bash\n{command}\n```\n");
    let c = calls(&reply("swe-agent", vec![task()], &text));
    assert_eq!(
        command_of(&c[0]),
        "cat <<'EOF' > README.md\n# Counter\n```python\nfrom counter import count"
    );
}

#[test]
fn swe_agent_editor_commands_become_editor_calls() {
    let text = "```\nstr_replace_editor str_replace /home/dev/project/counter.py --old_str 'range(n)' --new_str 'range(n + 1)'\n```";
    let c = calls(&reply("swe-agent", vec![task()], text));
    let Item::FunctionCall(f) = &c[0] else {
        panic!()
    };
    assert_eq!(f.name, "str_replace_editor");
    assert_eq!(
        arguments(&c[0]),
        json!({"command": "str_replace", "path": "/home/dev/project/counter.py", "old_str": "range(n)", "new_str": "range(n + 1)"})
    );
}

#[test]
fn swe_agent_submit_reviews_once_then_finishes() {
    // First submit: a `submit` call, which runs the review.
    let c = calls(&reply(
        "swe-agent",
        vec![task(), assistant("a1", "```\nls\n```")],
        "Done.\n```\nsubmit\n```",
    ));
    let Item::FunctionCall(f) = &c[0] else {
        panic!()
    };
    assert_eq!(f.name, "submit");
    // Its output is shown inside the review message, with the diff.
    let diff = " M counter.py\ndiff --git a/counter.py b/counter.py\n-    return range(n)\n+    return range(n + 1)\n";
    let history = vec![
        task(),
        assistant("a2", "Done.\n```\nsubmit\n```"),
        call("swe-agent-1", "submit", json!({})),
        output("swe-agent-1", ToolOutput::ok(diff)),
    ];
    let shaped = shape("swe-agent", history.clone());
    let last = messages(&shaped).last().cloned().unwrap();
    assert_eq!(last["role"], "tool");
    let review = content_text(&last);
    assert!(
        review.starts_with("OBSERVATION:\nBefore this is submitted"),
        "{review}"
    );
    assert!(
        review.contains(&format!("<diff>\n{}\n</diff>", diff.trim_end())),
        "{review}"
    );
    // A second submit while the review is pending ends the task: nothing runs, nothing is
    // injected, the reply is kept.
    let events = reply("swe-agent", history.clone(), "```\nsubmit\n```");
    assert_eq!(outcome(&events), Outcome::Completion);
    // Also when the model calls the tool natively.
    let mut shaped = shape("swe-agent", history);
    let mut post = shaped.postprocess.take().unwrap();
    let events = run_post(
        post.as_mut(),
        vec![
            StreamEvent::Created {
                response_id: None,
                model: None,
            },
            StreamEvent::ItemDone {
                item: call("c9", "submit", json!({})),
            },
            StreamEvent::Completed {
                stop_reason: StopReason::ToolCalls,
                response_id: None,
            },
        ],
    );
    assert_eq!(outcome(&events), Outcome::Completion);
    // A new task (a person typed again) asks for a review again.
    let mut later = vec![
        task(),
        call("swe-agent-1", "submit", json!({})),
        output("swe-agent-1", ToolOutput::ok("")),
    ];
    later.push(user("u2", "Now also handle negative numbers"));
    assert!(matches!(
        outcome(&reply("swe-agent", later, "```\nsubmit\n```")),
        Outcome::Calls(_)
    ));
}

#[test]
fn swe_agent_native_calls_pass_through_untouched() {
    let mut shaped = shape("swe-agent", vec![task()]);
    let mut post = shaped.postprocess.take().unwrap();
    let input = vec![
        StreamEvent::Created {
            response_id: Some("r".into()),
            model: None,
        },
        StreamEvent::ItemDone {
            item: assistant("m", "Looking first.\n```\nrm -rf /\n```"),
        },
        StreamEvent::ItemDone {
            item: call("c1", "bash", json!({"command": "ls"})),
        },
        StreamEvent::Completed {
            stop_reason: StopReason::ToolCalls,
            response_id: Some("r".into()),
        },
    ];
    assert_eq!(run_post(post.as_mut(), input.clone()), input);
}

#[test]
fn swe_agent_observations_are_in_its_format() {
    let mut timed_out = ToolOutput::ok(
        "partial\n[timed out after 30000 ms; the command and the processes it started were stopped]",
    );
    timed_out.status = ToolStatus::TimedOut;
    let mut failed = ToolOutput::error("bash: line 1: pytest: command not found\n[exit code 127]");
    failed.exit_code = Some(127);
    let history = vec![
        task(),
        assistant("a1", "```\ntrue\n```"),
        shell_call("c1", "true"),
        output("c1", ToolOutput::ok("")),
        assistant("a2", "```\npytest\n```"),
        shell_call("c2", "pytest"),
        output("c2", failed),
        assistant("a3", "```\nsleep 99\n```"),
        shell_call("c3", "sleep 99"),
        output("c3", timed_out),
    ];
    let m = messages(&shape("swe-agent", history.clone()));
    let tool_texts: Vec<String> = m
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(content_text)
        .collect();
    assert_eq!(
        tool_texts[0],
        "The command finished without printing anything."
    );
    assert_eq!(
        tool_texts[1],
        "OBSERVATION:\nbash: pytest: command not found\n"
    );
    assert!(
        tool_texts[2].starts_with("The command 'sleep 99' was stopped after 30 seconds"),
        "{}",
        tool_texts[2]
    );
    // Local shell calls appear as `bash` calls of the advertised tool.
    let a = m.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(a["tool_calls"][0]["function"]["name"], "bash");
    assert_eq!(
        a["tool_calls"][0]["function"]["arguments"],
        json!({"command": "true"}).to_string()
    );
    // The last two user/tool messages are cache breakpoints; earlier ones are plain strings.
    let cached: Vec<bool> = m.iter().map(|m| m["content"].is_array()).collect();
    assert_eq!(cached.iter().filter(|c| **c).count(), 2);
    assert!(
        cached[cached.len() - 1] && cached[cached.len() - 3],
        "{cached:?}"
    );

    // Without tools (the thought-action variant) observations are user messages and calls are
    // not replayed: the action is in the assistant text.
    let mut store = PromptStore::builtin();
    store.import("swe-agent", "tools.json", "[]");
    let shaped = shape_with("swe-agent", &prompt(history), &store);
    let m = messages(&shaped);
    assert!(
        m.iter()
            .all(|m| m["role"] != "tool" && m.get("tool_calls").is_none())
    );
    let roles: Vec<&str> = m.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "user"
        ]
    );
    assert!(
        content_text(&m[1]).contains("```bash"),
        "the text variant explains the fenced format"
    );
    assert!(body(&shaped).1.get("tools").is_none());
}

#[test]
fn swe_agent_only_the_latest_failed_attempt_is_shown() {
    let history = vec![
        task(),
        assistant("bad1", "hmm"),
        injected("format_correction", "fix 1"),
        assistant("bad2", "still thinking"),
        injected("format_correction", "fix 2"),
    ];
    let m = messages(&shape("swe-agent", history.clone()));
    let texts: Vec<String> = m.iter().map(content_text).collect();
    assert_eq!(texts.len(), 4);
    assert_eq!(texts[2], "still thinking");
    assert_eq!(texts[3], "fix 2");
    // Once a reply with an action follows, every failed pair is gone.
    let mut ok = history;
    ok.push(assistant("good", "```\nls\n```"));
    ok.push(shell_call("c1", "ls"));
    ok.push(output("c1", ToolOutput::ok("counter.py\n")));
    let texts: Vec<String> = messages(&shape("swe-agent", ok))
        .iter()
        .map(content_text)
        .collect();
    for gone in ["fix 1", "fix 2", "hmm", "still thinking"] {
        assert!(!texts.iter().any(|t| t == gone), "{gone}: {texts:?}");
    }
}

// ---------------------------------------------------------------------------------------
// mini-swe-agent

#[test]
fn mini_swe_agent_reply_without_a_call_is_corrected_and_not_echoed() {
    let events = reply("mini-swe-agent", vec![task()], "I will look at the files.");
    let Outcome::Injected(label, text) = outcome(&events) else {
        panic!("{events:?}")
    };
    assert_eq!(label, "format_correction");
    assert!(
        text.contains("called no tool") && text.contains("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
        "{text}"
    );
    // The reply streamed and stays in history (the anchor dropped it) ...
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::TextDelta { .. }))
    );
    assert!(events.iter().any(|e| matches!(e, StreamEvent::ItemDone { item: Item::Message(m) } if m.text() == "I will look at the files.")));
    // ... but the next request shows only the error, as the real agent does.
    let history = vec![
        task(),
        assistant("a1", "I will look at the files."),
        injected("format_correction", &text),
    ];
    let texts: Vec<String> = messages(&shape("mini-swe-agent", history))
        .iter()
        .map(content_text)
        .collect();
    assert_eq!(texts.len(), 3);
    assert_eq!(texts[2], text);
}

#[test]
fn mini_swe_agent_calls_pass_unchanged_and_the_marker_finishes() {
    let mut shaped = shape("mini-swe-agent", vec![task()]);
    let mut post = shaped.postprocess.take().unwrap();
    let input = vec![
        StreamEvent::Created {
            response_id: None,
            model: None,
        },
        StreamEvent::ItemDone {
            item: assistant("m", "THOUGHT: list files"),
        },
        StreamEvent::ItemDone {
            item: call("c1", "bash", json!({"command": "ls -la"})),
        },
        StreamEvent::Completed {
            stop_reason: StopReason::ToolCalls,
            response_id: None,
        },
    ];
    assert_eq!(run_post(post.as_mut(), input.clone()), input);

    let mut shaped = shape("mini-swe-agent", vec![task()]);
    let mut post = shaped.postprocess.take().unwrap();
    let events = run_post(
        post.as_mut(),
        vec![
            StreamEvent::Created {
                response_id: None,
                model: None,
            },
            StreamEvent::ItemDone {
                item: assistant("m", "All done."),
            },
            StreamEvent::ItemDone {
                item: call(
                    "c1",
                    "bash",
                    json!({"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}),
                ),
            },
            StreamEvent::Completed {
                stop_reason: StopReason::ToolCalls,
                response_id: None,
            },
        ],
    );
    assert_eq!(outcome(&events), Outcome::Completion);
    assert!(events.iter().any(
        |e| matches!(e, StreamEvent::ItemDone { item: Item::Message(m) } if m.text() == "All done.")
    ));
}

#[test]
fn mini_swe_agent_observations_use_the_returncode_format() {
    let mut failed = ToolOutput::error("No such file\n[exit code 2]");
    failed.exit_code = Some(2);
    let history = vec![
        task(),
        assistant("a1", "THOUGHT: look"),
        shell_call("c1", "cat missing.py"),
        output("c1", failed),
    ];
    let m = messages(&shape("mini-swe-agent", history));
    let tool = m.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(
        content_text(tool),
        "<returncode>2</returncode>\n<output>\nNo such file\n</output>"
    );
    let a = m.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(a["tool_calls"][0]["function"]["name"], "bash");
    assert_eq!(a["content"], "THOUGHT: look");
}

// ---------------------------------------------------------------------------------------
// terminus-2

fn t2_reply(history: Vec<Item>, text: &str) -> Vec<StreamEvent> {
    reply("terminus-2", history, text)
}

fn terminal_commands(item: &Item) -> Vec<(String, f64)> {
    let args = arguments(item);
    args["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["keystrokes"].as_str().unwrap().to_string(),
                c["duration"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn terminus_2_json_in_prose_or_a_fence_runs_its_keystrokes() {
    let text = "Plan first (using {braces} in prose).\n```json\n{\n  \"analysis\": \"Nothing run yet; a stray } in a string\",\n  \"plan\": \"List files\",\n  \"commands\": [{\"keystrokes\": \"ls -la\\n\", \"duration\": 0.1}, {\"keystrokes\": \"cat hello.py\\n\"}]\n}\n```";
    let c = calls(&t2_reply(vec![task()], text));
    let Item::FunctionCall(f) = &c[0] else {
        panic!()
    };
    assert_eq!(f.name, "terminal");
    assert_eq!(
        terminal_commands(&c[0]),
        vec![("ls -la\n".into(), 0.1), ("cat hello.py\n".into(), 1.0)]
    );
    assert_eq!(arguments(&c[0])["width"], 160);
}

#[test]
fn terminus_2_unreadable_reply_gets_the_parsing_error() {
    let Outcome::Injected(label, text) = outcome(&t2_reply(vec![task()], "I'll run ls now."))
    else {
        panic!()
    };
    assert_eq!(label, "parse_error");
    assert!(
        text.contains("ERROR: No valid JSON found in response"),
        "{text}"
    );
    let Outcome::Injected(_, text) = outcome(&t2_reply(
        vec![task()],
        r#"{"analysis": "a", "plan": "b", "commands": "ls"}"#,
    )) else {
        panic!()
    };
    assert!(
        text.contains("ERROR: Field 'commands' must be an array"),
        "{text}"
    );
}

#[test]
fn terminus_2_confirms_completion_once() {
    let done =
        r#"{"analysis": "all good", "plan": "finish", "commands": [], "task_complete": true}"#;
    let events = t2_reply(vec![task()], done);
    let Outcome::Calls(c) = outcome(&events) else {
        panic!("{events:?}")
    };
    // The screen is read for the question, and the question is injected.
    assert!(terminal_commands(&c[0]).is_empty());
    let question = events
        .iter()
        .find_map(|e| match e {
            StreamEvent::ItemDone {
                item: Item::Message(m),
            } if m.injected_by.as_deref() == Some("completion_confirmation") => Some(m.text()),
            _ => None,
        })
        .unwrap();
    // What the model sees next: the screen, then the question.
    let history = vec![
        task(),
        assistant("a1", done),
        c[0].clone(),
        injected("completion_confirmation", &question),
        output(
            c[0].call_id().unwrap(),
            ToolOutput::ok("New Terminal Output:\n/home/dev/project$\n"),
        ),
    ];
    let m = messages(&shape("terminus-2", history.clone()));
    let last = content_text(m.last().unwrap());
    assert_eq!(
        last,
        format!(
            "Current terminal state:\nNew Terminal Output:\n/home/dev/project$\n\n\n{question}"
        )
    );
    // Confirmed: the task ends.
    assert_eq!(
        outcome(&t2_reply(history.clone(), done)),
        Outcome::Completion
    );
    // Not confirmed (the model keeps working): commands run, nothing pending any more.
    let more = r#"{"analysis": "one more check", "plan": "ls", "commands": [{"keystrokes": "ls\n", "duration": 0.1}]}"#;
    assert!(matches!(
        outcome(&t2_reply(history, more)),
        Outcome::Calls(_)
    ));
}

#[test]
fn terminus_2_warnings_come_with_the_next_observation() {
    let text = r#"{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "ls\n"}]}"#;
    let history = vec![
        task(),
        assistant("a1", text),
        call(
            "terminus-2-1",
            "terminal",
            json!({"commands": [{"keystrokes": "ls\n", "duration": 1.0}]}),
        ),
        output(
            "terminus-2-1",
            ToolOutput::ok(format!("New Terminal Output:\n{}\n", "x".repeat(30_000))),
        ),
    ];
    let m = messages(&shape("terminus-2", history));
    assert!(m.iter().all(|m| m["role"] != "system"), "no system message");
    let last = content_text(m.last().unwrap());
    assert!(last.starts_with("Your previous response had warnings:\nWARNINGS: - Command 1: Missing duration field, using default 1.0\n\nNew Terminal Output:\n"), "{}", &last[..200]);
    assert!(last.contains("interior bytes omitted"));
    assert!(last.len() < 10_400, "{}", last.len());
}

/// The summary → questions → answers → hand-off chain, driven by labels only.
#[test]
fn terminus_2_hands_off_when_the_context_is_nearly_full() {
    let mut store = PromptStore::builtin();
    store.import(
        "terminus-2",
        "settings.json",
        r#"{"context_window_tokens": 3000, "summarize_below_free_tokens": 800, "pane_width": 160, "pane_height": 40}"#,
    );
    let act = |n: usize| {
        json!({"analysis": format!("step {n}"), "plan": "look", "commands": [{"keystrokes": "ls\n", "duration": 0.1}]}).to_string()
    };
    let mut h = vec![task()];
    for n in 1..=4 {
        h.push(assistant(&format!("a{n}"), &act(n)));
        h.push(call(&format!("t{n}"), "terminal", json!({"commands": []})));
        h.push(output(
            &format!("t{n}"),
            ToolOutput::ok(format!("New Terminal Output:\n{}\n", "file ".repeat(400))),
        ));
    }
    let feed = |h: &Vec<Item>, text: &str| {
        let mut shaped = shape_with("terminus-2", &prompt(h.clone()), &store);
        let request = messages(&shaped);
        let mut post = shaped.postprocess.take().unwrap();
        (request, run_post(post.as_mut(), text_reply(&[text])))
    };
    let items = |events: &[StreamEvent]| -> Vec<Item> {
        events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ItemDone { item } => Some(item.clone()),
                _ => None,
            })
            .collect()
    };

    // 1. Summary: the conversation (trimmed to fit) plus the summary request; the request is
    //    recorded first, the screen is captured after the reply.
    let (request, events) = feed(&h, "I listed files four times.");
    assert!(
        content_text(request.last().unwrap())
            .starts_with("You are about to pass your work to another AI agent.")
    );
    let got = items(&events);
    assert_eq!(got[0].clone(), {
        let Item::Message(m) = &got[0] else { panic!() };
        assert_eq!(m.injected_by.as_deref(), Some("summary_request"));
        got[0].clone()
    });
    let Outcome::Calls(c) = outcome(&events) else {
        panic!()
    };
    assert!(terminal_commands(&c[0]).is_empty());
    h.extend(got.into_iter().map(|i| match i {
        Item::FunctionCall(mut f) => {
            f.call_id = "cap".into();
            Item::FunctionCall(f)
        }
        other => other,
    }));
    h.push(output(
        "cap",
        ToolOutput::ok("New Terminal Output:\n/home/dev/project$\n"),
    ));

    // 2. Questions: a fresh context with task, summary and screen.
    let (request, events) = feed(&h, "1. Which files exist?\n2. What does hello.py print?");
    assert_eq!(request.len(), 1);
    let q = content_text(&request[0]);
    assert!(
        q.contains("I listed files four times.")
            && q.contains("/home/dev/project$")
            && q.contains("Fix the off-by-one"),
        "{q}"
    );
    let got = items(&events);
    let labels: Vec<Option<String>> = got
        .iter()
        .map(|i| match i {
            Item::Message(m) => m.injected_by.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(
        labels,
        vec![
            Some("handoff_questions".into()),
            None,
            Some("answer_questions".into())
        ]
    );
    assert!(matches!(outcome(&events), Outcome::Injected(ref l, _) if l == "handoff_questions"));
    h.extend(got);

    // 3. Answer questions: the full conversation, the summary exchange and the questions.
    let (request, events) = feed(&h, "1. Many. 2. Hello.");
    let n = request.len();
    assert!(content_text(&request[n - 3]).starts_with("You are about to pass your work"));
    assert_eq!(content_text(&request[n - 2]), "I listed files four times.");
    assert!(content_text(&request[n - 1]).contains("2. What does hello.py print?"));
    let got = items(&events);
    let Item::Message(handoff) = got.last().unwrap() else {
        panic!()
    };
    assert_eq!(handoff.injected_by.as_deref(), Some("handoff"));
    assert!(handoff.text().contains("1. Many. 2. Hello."));
    h.extend(got);

    // 4. Hand-off: the compressed start, and the next reply acts again.
    let (request, events) = feed(&h, &act(5));
    let roles: Vec<&str> = request
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "user", "assistant", "user"]);
    assert!(content_text(&request[1]).starts_with("You are taking over a task"));
    assert!(content_text(&request[3]).starts_with("These are the answers"));
    assert!(matches!(outcome(&events), Outcome::Calls(_)));
    h.extend(items(&events));
    h.push(output(
        "after",
        ToolOutput::ok("New Terminal Output:\nok\n"),
    ));
    let (request, _) = feed(&h, &act(6));
    assert_eq!(
        request.len(),
        6,
        "the compressed start plus the new exchange"
    );
}

// ---------------------------------------------------------------------------------------
// Fuzz: every reply is an action, a correction or a completion, in a well-formed stream.

fn soup() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("```"),
            Just("```bash\n"),
            Just("```python\n"),
            Just("\n"),
            Just("submit"),
            Just("ls -la"),
            Just("<invoke name=\"bash\">"),
            Just("</invoke>"),
            Just("<parameter name=\"command\">"),
            Just("</parameter>"),
            Just("<execute_bash>"),
            Just("</execute_bash>"),
            Just("{"),
            Just("}"),
            Just("\"analysis\": \"x\","),
            Just("\"commands\": [{\"keystrokes\": \"ls\\n\"}]"),
            Just("\"task_complete\": true"),
            Just("str_replace_editor view /a"),
            Just("&amp;"),
            Just("é"),
            Just("'"),
            Just("\""),
        ],
        0..30,
    )
    .prop_map(|parts| parts.concat())
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof!["(?s).{0,200}", soup()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn swe_agent_fuzz(text in any_text(), pending in any::<bool>()) {
        let mut history = vec![task()];
        if pending {
            history.push(call("s1", "submit", json!({})));
            history.push(output("s1", ToolOutput::ok("diff")));
        }
        match outcome(&reply("swe-agent", history, &text)) {
            Outcome::Calls(c) => prop_assert_eq!(c.len(), 1),
            Outcome::Injected(label, _) => prop_assert_eq!(label, "format_correction"),
            Outcome::Completion => prop_assert!(pending, "only a confirming submit completes"),
        }
    }

    #[test]
    fn mini_swe_agent_fuzz(text in any_text(), command in prop::option::of("[a-z ]{0,20}")) {
        let mut shaped = shape("mini-swe-agent", vec![task()]);
        let mut post = shaped.postprocess.take().unwrap();
        let mut events = text_reply(&[&text]);
        if let Some(cmd) = &command {
            // As the decoder reports it: the call, then `tool_calls`.
            events.pop();
            events.push(StreamEvent::ItemDone { item: call("c1", "bash", json!({"command": cmd})) });
            events.push(StreamEvent::Completed { stop_reason: StopReason::ToolCalls, response_id: None });
        }
        let out = run_post(post.as_mut(), events);
        match outcome(&out) {
            Outcome::Calls(c) => prop_assert!(command.is_some() && c.len() == 1),
            Outcome::Injected(label, _) => prop_assert!(command.is_none() && label == "format_correction"),
            Outcome::Completion => prop_assert!(false, "no marker was sent"),
        }
    }

    #[test]
    fn terminus_2_fuzz(text in any_text(), pending in any::<bool>()) {
        let mut history = vec![task()];
        if pending {
            history.push(assistant("a1", r#"{"task_complete": true}"#));
            history.push(injected("completion_confirmation", "sure?"));
        }
        match outcome(&t2_reply(history, &text)) {
            Outcome::Calls(c) => {
                prop_assert!(matches!(&c[0], Item::FunctionCall(f) if f.name == "terminal"));
            }
            Outcome::Injected(label, _) => prop_assert_eq!(label, "parse_error"),
            Outcome::Completion => prop_assert!(pending, "only a confirmed task_complete completes"),
        }
    }
}
