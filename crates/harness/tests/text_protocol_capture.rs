//! `swe-agent`, `mini-swe-agent` and `terminus-2` against the captures of the real agents
//! (SWE-agent 1.1.0, mini-swe-agent 2.4.6, Terminus-2 2.0.0 from harbor 0.26.0; test inputs kept
//! outside the repository, `../shared/spec/captures/{swe-agent,mini-swe-agent,terminus-2}.md`,
//! located through
//! `$TACK_SHARED` or `<repo>/../shared`; skipped when absent).
//!
//! Each capture's "mechanically derived structure" is parsed for every request it holds
//! (endpoint, top-level keys in order, scalar fields, message roles with their content shape,
//! tools with parameters and required lists), the same situation is shaped — the first turn,
//! and the re-queries after a reply without an action — and compared fact by fact. Lengths of
//! prose are not compared: the prompts are Tack's own words.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod text_protocol_support;

use serde_json::Value;
use tack_harness::prompts::PromptStore;
use tack_protocol::{Item, Wire};
use text_protocol_support::*;

/// One captured request.
#[derive(Debug, Default)]
struct Request {
    path: String,
    keys: Vec<String>,
    scalars: Vec<(String, Value)>,
    /// (role, content shape: `string` or `blocks:<n>:<cache>`).
    messages: Vec<(String, String)>,
    /// (name, parameters, required).
    tools: Vec<(String, Vec<String>, Vec<String>)>,
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = s.find(start)? + start.len();
    let to = s[from..].find(end)? + from;
    Some(&s[from..to])
}

fn parse(md: &str) -> Vec<Request> {
    let derived = md
        .split("## Mechanically derived structure")
        .nth(1)
        .expect("derived section");
    derived
        .split("### Request #")
        .skip(1)
        .map(|section| {
            let mut r = Request::default();
            let line = section.lines().next().unwrap();
            r.path = line.split_once("POST ").unwrap().1.trim().to_string();
            let keys = between(section, "Top-level body keys (in order): `", "`").unwrap();
            r.keys = keys.split(", ").map(str::to_string).collect();
            let mut in_messages = false;
            let mut in_tools = false;
            for line in section.lines() {
                if line.starts_with("`messages`") {
                    in_messages = true;
                    in_tools = false;
                    continue;
                }
                if line.starts_with("`tools`") {
                    in_tools = true;
                    in_messages = false;
                    continue;
                }
                if let Some(rest) = line.strip_prefix("- `") {
                    if let Some((key, value)) = rest.split_once("` = `") {
                        let value = value.trim_end_matches('`');
                        r.scalars
                            .push((key.to_string(), serde_json::from_str(value).unwrap()));
                    } else if in_tools {
                        // - `bash`(command) required=['command']
                        let (name, rest) = rest.split_once("`(").unwrap();
                        let (params, required) = rest.split_once(") required=").unwrap();
                        let params = params
                            .split(", ")
                            .filter(|p| !p.is_empty())
                            .map(str::to_string)
                            .collect();
                        let required = required
                            .trim_matches(|c| c == '[' || c == ']')
                            .split(", ")
                            .map(|s| s.trim_matches('\'').to_string())
                            .filter(|s| !s.is_empty())
                            .collect();
                        r.tools.push((name.to_string(), params, required));
                    }
                }
                if in_messages {
                    // 0. role=`system` content: string, 77 chars
                    if let Some(rest) = line.split_once(". role=`").map(|(_, r)| r) {
                        let (role, content) = rest.split_once("` content: ").unwrap();
                        let shape = if content.starts_with("string") {
                            "string".to_string()
                        } else {
                            let n = content.split(' ').next().unwrap();
                            format!("blocks:{n}:{}", content.contains("cache_control ephemeral"))
                        };
                        r.messages.push((role.to_string(), shape));
                    }
                }
            }
            r
        })
        .collect()
}

/// The same facts of a shaped request.
fn facts(shaped: &tack_harness::Shaped) -> Request {
    let (path, body) = body(shaped);
    let mut r = Request {
        path,
        ..Request::default()
    };
    let obj = body.as_object().unwrap();
    r.keys = obj.keys().cloned().collect();
    for (k, v) in obj {
        if !v.is_object() && !v.is_array() {
            r.scalars.push((k.clone(), v.clone()));
        }
    }
    for m in body["messages"].as_array().unwrap() {
        let shape = match &m["content"] {
            Value::String(_) => "string".to_string(),
            Value::Array(blocks) => format!(
                "blocks:{}:{}",
                blocks.len(),
                blocks
                    .iter()
                    .any(|b| b["cache_control"]["type"] == "ephemeral")
            ),
            other => format!("{other}"),
        };
        r.messages
            .push((m["role"].as_str().unwrap().to_string(), shape));
    }
    for t in body["tools"].as_array().into_iter().flatten() {
        let f = &t["function"];
        let params = f["parameters"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        let required = f["parameters"]["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        r.tools
            .push((f["name"].as_str().unwrap().to_string(), params, required));
    }
    r
}

fn compare(name: &str, captured: &Request, ours: &Request) {
    assert_eq!(ours.path, captured.path, "{name}: endpoint");
    assert_eq!(ours.keys, captured.keys, "{name}: top-level keys in order");
    for (k, v) in &captured.scalars {
        if k == "model" {
            continue; // the model is whatever the session uses
        }
        let got = ours
            .scalars
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v);
        assert_eq!(got, Some(v), "{name}: `{k}`");
    }
    assert_eq!(
        ours.messages, captured.messages,
        "{name}: message roles and content shapes"
    );
    assert_eq!(
        ours.tools, captured.tools,
        "{name}: tools, parameters and required lists"
    );
}

fn task() -> Item {
    user("u1", "List the files and tell me what hello.py does")
}

#[test]
fn swe_agent_matches_its_capture() {
    let Some(md) = capture("swe-agent.md") else {
        tack_tests::no_shared();
        return;
    };
    let requests = parse(&md);
    assert_eq!(requests.len(), 3);
    let first = shape("swe-agent", vec![task()]);
    compare("swe-agent #1", &requests[0], &facts(&first));
    // The key order comes from the render options: the tools are the request's own (the
    // inspector and the engine see them), not a verbatim body field.
    let names: Vec<&str> = first
        .request
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["bash", "str_replace_editor", "submit"]);
    assert!(first.request.extra_body.is_empty());
    // The model answered "done" (no tool call): the re-query shows it and the correction.
    let second = vec![
        task(),
        assistant("a1", "done"),
        injected("format_correction", "x"),
    ];
    compare(
        "swe-agent #2",
        &requests[1],
        &facts(&shape("swe-agent", second)),
    );
    // Again "done": only the latest attempt and its correction are shown (same shape as #2).
    let third = vec![
        task(),
        assistant("a1", "done"),
        injected("format_correction", "x"),
        assistant("a2", "done"),
        injected("format_correction", "x"),
    ];
    compare(
        "swe-agent #3",
        &requests[2],
        &facts(&shape("swe-agent", third)),
    );
}

#[test]
fn mini_swe_agent_matches_its_capture() {
    let Some(md) = capture("mini-swe-agent.md") else {
        tack_tests::no_shared();
        return;
    };
    let requests = parse(&md);
    assert_eq!(requests.len(), 3);
    compare(
        "mini #1",
        &requests[0],
        &facts(&shape("mini-swe-agent", vec![task()])),
    );
    // A rejected reply is not echoed; each re-query adds the error as a user message.
    let second = vec![
        task(),
        assistant("a1", "done"),
        injected("format_correction", "x"),
    ];
    compare(
        "mini #2",
        &requests[1],
        &facts(&shape("mini-swe-agent", second)),
    );
    let third = vec![
        task(),
        assistant("a1", "done"),
        injected("format_correction", "x"),
        assistant("a2", "done"),
        injected("format_correction", "x"),
    ];
    compare(
        "mini #3",
        &requests[2],
        &facts(&shape("mini-swe-agent", third)),
    );
}

#[test]
fn terminus_2_matches_its_capture() {
    let Some(md) = capture("terminus-2.md") else {
        tack_tests::no_shared();
        return;
    };
    let requests = parse(&md);
    assert_eq!(requests.len(), 2);
    let first = shape("terminus-2", vec![task()]);
    compare("terminus-2 #1", &requests[0], &facts(&first));
    // The first prompt ends with the task and the terminal screen, as captured.
    let (_, body) = body(&first);
    let text = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        text.contains("Task Description:\nList the files and tell me what hello.py does\n\nCurrent terminal state:\nCurrent Terminal Screen:\n/home/dev/project$\n"),
        "{text}"
    );
    let second = vec![
        task(),
        assistant("a1", "done"),
        injected("parse_error", "x"),
    ];
    compare(
        "terminus-2 #2",
        &requests[1],
        &facts(&shape("terminus-2", second)),
    );
}

#[test]
fn swe_agent_text_variant_drops_only_the_tools() {
    let Some(md) = capture("swe-agent.md") else {
        tack_tests::no_shared();
        return;
    };
    let captured = &parse(&md)[0];
    let mut store = PromptStore::builtin();
    store.import("swe-agent", "tools.json", "[]");
    let ours = facts(&shape_with("swe-agent", &prompt(vec![task()]), &store));
    let keys: Vec<&String> = captured.keys.iter().filter(|k| *k != "tools").collect();
    assert_eq!(ours.keys.iter().collect::<Vec<_>>(), keys);
    assert_eq!(ours.messages, captured.messages);
    assert!(ours.tools.is_empty());
    let _ = Wire::Chat;
}
