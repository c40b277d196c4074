//! claude-code against the capture of the real CLI (Claude Code 2.1.332, one `claude -p`
//! turn, npm `@anthropic-ai/claude-code`), a test input kept outside the repository:
//! `../shared/spec/captures/claude-code.md`, located through `$TACK_SHARED` or
//! `<workspace>/../shared`. The capture's "mechanically derived structure" section is parsed
//! (endpoint, headers, top-level keys, scalar fields, system blocks, message roles and
//! blocks, tools with their parameters and required lists); parameter *types* are not in the
//! capture and are encoded here from the anchor (openinterpreter 0.0.40,
//! `codex-rs/core/src/harness/claude_code.rs`, tool surface).
//!
//! The same situation is shaped as in the capture (a git repository with one commit and a
//! clean tree, no AGENTS.md, the default model `claude-opus-5-5`, one user prompt) and
//! compared fact by fact. Differences that are decisions are asserted as such: no
//! billing-attribution block, no device id, and only the tools Tack can run.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod anthropic_fixture;

use std::path::PathBuf;

use serde_json::{Value, json};
use tack_harness::prompts::PromptStore;
use tack_harness::{Registry, ShapeEnv, Shaped};
use tack_protocol::{GitState, Item, Prompt, Role, Wire};
use tack_wire::{Block, Endpoint, ShapedRole, render};

fn capture() -> Option<String> {
    let shared = std::env::var_os("TACK_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    std::fs::read_to_string(shared.join("spec/captures/claude-code.md")).ok()
}

/// The facts of the capture's request #1.
#[derive(Debug, Default)]
struct Captured {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    keys: Vec<String>,
    scalars: Vec<(String, Value)>,
    /// (chars, cached) per system block.
    system: Vec<(usize, bool)>,
    /// (role, block count, last block cached).
    messages: Vec<(String, usize, bool)>,
    /// (name, parameters, required).
    tools: Vec<(String, Vec<String>, Vec<String>)>,
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = s.find(start)? + start.len();
    let to = s[from..].find(end)? + from;
    Some(&s[from..to])
}

fn parse(md: &str) -> Captured {
    let derived = md
        .split("## Mechanically derived structure")
        .nth(1)
        .expect("the capture has a derived-structure section");
    let mut c = Captured::default();
    let request = between(derived, "### Request #1: ", "\n").expect("request line");
    let (method, path) = request.split_once(' ').expect("method and path");
    c.method = method.to_string();
    c.path = path.trim().to_string();
    let headers = between(
        derived,
        "Headers (in order received; secrets redacted):\n\n```\n",
        "```",
    )
    .expect("headers block");
    c.headers = headers
        .lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
        .collect();
    let keys = between(derived, "Top-level body keys (in order): `", "`").expect("keys");
    c.keys = keys.split(", ").map(str::to_string).collect();
    for line in derived.lines() {
        if let Some(rest) = line.strip_prefix("- `") {
            // Scalar fields: - `max_tokens` = `128000`
            if let Some((key, value)) = rest.split_once("` = `") {
                let value = value.trim_end_matches('`');
                if let Ok(v) = serde_json::from_str::<Value>(value) {
                    c.scalars.push((key.to_string(), v));
                }
                continue;
            }
            // Tools: - `Bash`(command, timeout) required=['command']
            if let Some((name, rest)) = rest.split_once("`(") {
                let (params, rest) = rest.split_once(')').expect("tool params");
                let params = params
                    .split(", ")
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect();
                let required = between(rest, "required=[", "]")
                    .unwrap_or_default()
                    .split(", ")
                    .filter(|r| !r.is_empty())
                    .map(|r| r.trim_matches('\'').to_string())
                    .collect();
                c.tools.push((name.to_string(), params, required));
            }
        }
        if let Some(rest) = line.strip_prefix("`system`: ") {
            let list = between(rest, "[", "]").expect("system blocks");
            c.system = list
                .split("; ")
                .map(|b| {
                    let chars = b
                        .split_whitespace()
                        .nth(1)
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0);
                    (chars, b.contains("cache_control ephemeral"))
                })
                .collect();
        }
        if let Some(role) = between(line, ". role=`", "`") {
            let blocks = between(line, "content: ", " block(s)")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let last_cached = line.trim_end().ends_with("(cache_control ephemeral)]");
            c.messages.push((role.to_string(), blocks, last_cached));
        }
    }
    c
}

/// The captured session, as Tack would shape it: `claude -p "List the files and tell me what
/// hello.py does"` in a fresh repository with one commit.
fn captured_prompt() -> Prompt {
    let mut context = anthropic_fixture::context("claude-opus-5-5", anthropic_fixture::anthropic());
    context.cwd = "/home/dev/project".into();
    context.project_docs.clear();
    context.git = Some(GitState {
        branch: "main".into(),
        main_branch: "main".into(),
        user_name: Some("dev".into()),
        status: String::new(),
        recent_commits: "1a2b3c4 Initial commit".into(),
    });
    Prompt {
        examples: Vec::new(),
        history: vec![Item::text(
            "msg_1",
            Role::User,
            "List the files and tell me what hello.py does",
        )],
        tools: anthropic_fixture::engine_tools(),
        instructions: None,
        context,
    }
}

fn shape(identity: bool) -> Shaped {
    let prompts = PromptStore::builtin();
    Registry::builtin()
        .route(Wire::Messages, "claude-code")
        .expect("route")
        .harness
        .shape(
            &captured_prompt(),
            Wire::Messages,
            &ShapeEnv {
                prompts: &prompts,
                emulate_identity: identity,
            },
        )
        .expect("shape")
}

/// Parameter types of the captured tools Tack advertises (not in the capture; the anchor's
/// `claude_code.rs`, `allow_large` a flag by its name).
fn expected_types(tool: &str) -> Vec<(&'static str, &'static str)> {
    match tool {
        "Bash" => vec![
            ("command", "string"),
            ("timeout", "number"),
            ("description", "string"),
            ("run_in_background", "boolean"),
            ("dangerouslyDisableSandbox", "boolean"),
        ],
        "Edit" => vec![
            ("file_path", "string"),
            ("old_string", "string"),
            ("new_string", "string"),
            ("replace_all", "boolean"),
        ],
        "Read" => vec![
            ("file_path", "string"),
            ("offset", "integer"),
            ("limit", "integer"),
            ("pages", "string"),
            ("allow_large", "boolean"),
        ],
        "Write" => vec![("file_path", "string"), ("content", "string")],
        _ => Vec::new(),
    }
}

#[test]
fn claude_code_matches_the_captured_request() {
    let Some(md) = capture() else {
        tack_tests::no_shared();
        return;
    };
    let cap = parse(&md);
    assert_eq!(cap.method, "POST");
    let shaped = shape(false);
    let req = &shaped.request;
    let rendered = render(
        req,
        Wire::Messages,
        &Endpoint::new("https://api.anthropic.com"),
    )
    .expect("render");
    let body: Value = serde_json::from_slice(&rendered.body).expect("json");

    // Endpoint path and query.
    assert_eq!(rendered.method, cap.method);
    let path = rendered.url.trim_start_matches("https://api.anthropic.com");
    assert_eq!(path, cap.path);

    // Top-level keys: the same keys in the same order.
    let ours: Vec<&str> = body
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    let theirs: Vec<&str> = cap.keys.iter().map(String::as_str).collect();
    assert_eq!(ours, theirs, "top-level keys in order");

    // Scalar fields, with the one deliberate difference: no device id in metadata.user_id.
    for (key, value) in &cap.scalars {
        if key == "metadata" {
            let user_id = body["metadata"]["user_id"]
                .as_str()
                .expect("user_id is a JSON string");
            let theirs: Value =
                serde_json::from_str(value["user_id"].as_str().expect("string")).expect("json");
            let ours: Value = serde_json::from_str(user_id).expect("json");
            assert!(theirs.get("device_id").is_some());
            assert_eq!(
                ours,
                json!({"session_id": "sess_0193"}),
                "only Tack's real session id"
            );
            continue;
        }
        assert_eq!(&body[key], value, "{key}");
    }

    // System: the capture's blocks minus the billing-attribution one (never sent).
    let captured_system: Vec<bool> = cap
        .system
        .iter()
        .skip(1)
        .map(|(_, cached)| *cached)
        .collect();
    let our_system: Vec<bool> = req.system.iter().map(|b| b.cache).collect();
    assert_eq!(our_system, captured_system);
    assert_eq!(
        cap.system[0],
        (74, false),
        "the billing block is the one left out"
    );
    assert!(!body.to_string().contains("x-anthropic-billing-header"));

    // Messages: roles and block counts as shaped; the environment message is the cached last
    // block, as captured.
    let shaped_roles: Vec<(String, usize, bool)> = req
        .messages
        .iter()
        .map(|m| {
            let role = match m.role {
                ShapedRole::System => "system",
                ShapedRole::User => "user",
                ShapedRole::Assistant => "assistant",
                ShapedRole::Developer => "developer",
                ShapedRole::Tool => "tool",
            };
            let cached = matches!(m.content.last(), Some(Block::Text { cache: true, .. }));
            (role.to_string(), m.content.len(), cached)
        })
        .collect();
    assert_eq!(shaped_roles, cap.messages);
    // On the wire too: the environment message stays a `system` turn.
    let wire_roles: Vec<(&str, usize)> = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            let blocks = m["content"].as_array().expect("block content").len();
            (m["role"].as_str().expect("role"), blocks)
        })
        .collect();
    let captured_roles: Vec<(&str, usize)> = cap
        .messages
        .iter()
        .map(|(role, blocks, _)| (role.as_str(), *blocks))
        .collect();
    assert_eq!(
        wire_roles, captured_roles,
        "rendered roles and block counts"
    );
    assert_eq!(
        body["messages"][1]["content"][0]["cache_control"],
        json!({"type": "ephemeral"}),
        "the environment message is the cached last block"
    );
    let first = &req.messages[0].content;
    let texts: Vec<&str> = first
        .iter()
        .filter_map(|b| match b {
            Block::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        texts[0].starts_with("<system-reminder>\n# gitStatus"),
        "{}",
        texts[0]
    );
    assert!(texts[0].contains("(clean)"));
    assert!(texts[1].starts_with("<system-reminder>"));
    assert_eq!(texts[2], "List the files and tell me what hello.py does");
    match &req.messages[1].content[0] {
        Block::Text { text, .. } => {
            assert!(text.starts_with("# Environment"), "{text}");
            assert!(text.ends_with("Today's date is 2026-11-29."), "{text}");
        }
        other => panic!("{other:?}"),
    }

    // Tools: the captured tools Tack can run, in the captured order, with the captured
    // parameters (names, order, required) and the anchor's types.
    let runnable = ["Bash", "Edit", "Read", "Write"];
    let captured: Vec<&(String, Vec<String>, Vec<String>)> = cap
        .tools
        .iter()
        .filter(|(n, _, _)| runnable.contains(&n.as_str()))
        .collect();
    let tools = body["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    let positions: Vec<usize> = captured
        .iter()
        .map(|(n, _, _)| {
            names
                .iter()
                .position(|x| x == n)
                .unwrap_or_else(|| panic!("{n} missing"))
        })
        .collect();
    assert!(
        positions.windows(2).all(|w| w[0] < w[1]),
        "captured order kept: {names:?}"
    );
    for (name, params, required) in captured {
        let tool = tools
            .iter()
            .find(|t| t["name"] == name.as_str())
            .expect("tool");
        let schema = &tool["input_schema"];
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{name}"
        );
        assert_eq!(schema["additionalProperties"], false, "{name}");
        assert!(tool.get("cache_control").is_none());
        let props = schema["properties"].as_object().expect("properties");
        let ours: Vec<&String> = props.keys().collect();
        assert_eq!(ours, params.iter().collect::<Vec<_>>(), "{name} parameters");
        let req: Vec<&str> = schema["required"]
            .as_array()
            .expect("required")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(
            req,
            required.iter().map(String::as_str).collect::<Vec<_>>(),
            "{name} required"
        );
        for (param, ty) in expected_types(name) {
            assert_eq!(props[param]["type"], ty, "{name}.{param}");
        }
    }
    // Everything else advertised has a handler; nothing the capture shows without one is.
    for n in &names {
        assert!(
            [
                "AskUserQuestion",
                "Bash",
                "Edit",
                "Glob",
                "Grep",
                "Read",
                "TodoWrite",
                "Write"
            ]
            .contains(n),
            "{n}"
        );
    }

    // Functional headers, as captured: `accept: application/json` although the request
    // streams (the reply is SSE all the same; the client decodes by its content type).
    let header = |list: &[(String, String)], name: &str| {
        list.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    };
    assert!(rendered.stream);
    let accepts: Vec<&str> = rendered
        .headers
        .iter()
        .filter(|(k, _)| k == "accept")
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(accepts, ["application/json"], "one accept header");
    for name in [
        "accept",
        "content-type",
        "anthropic-beta",
        "anthropic-version",
    ] {
        assert_eq!(
            header(&rendered.headers, name),
            header(&cap.headers, name),
            "{name}"
        );
    }
    assert_eq!(
        header(&rendered.headers, "user-agent"),
        None,
        "Tack's own UA by default"
    );

    // No extra requests (the capture shows a single request: no preflight, no title).
    assert!(shaped.extra_requests.is_empty());
}

#[test]
fn identity_headers_follow_the_capture_when_opted_in() {
    let Some(md) = capture() else {
        tack_tests::no_shared();
        return;
    };
    let cap = parse(&md);
    let shaped = shape(true);
    let rendered = render(
        &shaped.request,
        Wire::Messages,
        &Endpoint::new("https://api.anthropic.com"),
    )
    .expect("render");
    // The captured order of the headers a request sets (transport and auth headers are the
    // client's: content-type, accept, x-api-key, connection, host, encoding, length).
    let transport = [
        "accept",
        "content-type",
        "x-api-key",
        "connection",
        "host",
        "accept-encoding",
        "content-length",
    ];
    let theirs: Vec<&str> = cap
        .headers
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !transport.contains(k))
        .collect();
    let ours: Vec<&str> = rendered
        .headers
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !transport.contains(k))
        .collect();
    assert_eq!(ours, theirs);
    let value = |name: &str| {
        rendered
            .headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let captured = |name: &str| {
        cap.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(value("user-agent"), captured("user-agent"));
    assert_eq!(value("x-app"), Some("cli"));
    // The session header carries Tack's session id, never an invented one.
    assert_eq!(value("x-claude-code-session-id"), Some("sess_0193"));
}

/// The bare profile (no capture of its own) is sent by the same client: the captured key
/// order and `accept` header, and no environment message to keep as a `system` turn.
#[test]
fn bare_profile_uses_the_captured_key_order() {
    let Some(md) = capture() else {
        tack_tests::no_shared();
        return;
    };
    let cap = parse(&md);
    let prompts = PromptStore::builtin();
    let shaped = Registry::builtin()
        .route(Wire::Messages, "claude-code-bare")
        .expect("route")
        .harness
        .shape(
            &captured_prompt(),
            Wire::Messages,
            &ShapeEnv {
                prompts: &prompts,
                emulate_identity: false,
            },
        )
        .expect("shape");
    let rendered = render(
        &shaped.request,
        Wire::Messages,
        &Endpoint::new("https://api.anthropic.com"),
    )
    .expect("render");
    let body: Value = serde_json::from_slice(&rendered.body).expect("json");
    let ours: Vec<&str> = body
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    // The captured order, restricted to the keys the bare profile sends.
    let expected: Vec<&str> = cap
        .keys
        .iter()
        .map(String::as_str)
        .filter(|k| ours.contains(k))
        .collect();
    assert_eq!(ours, expected);
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["role"].as_str())
        .collect();
    assert_eq!(roles, ["user"]);
    assert!(
        rendered
            .headers
            .contains(&("accept".to_string(), "application/json".to_string()))
    );
}
