//! `tack diff-request A B`: how two model requests differ, key by key and message by message.
//!
//! Each side may be a request body (Messages, Chat or Responses JSON), a Tack exchange record
//! (from `<session>.exchanges.jsonl`; its `request_body` is the body, its `url` and
//! `request_headers` are compared too), `tack shape` output (`body`, `url`, `headers`), or a
//! captured request (`{method, path, headers, body}`). A JSON Lines file takes its first
//! record; `FILE#N` takes record N (1-based).
//!
//! Compared, in order: endpoint (path and query), headers (names, and values unless
//! redacted), top-level body keys (added, removed, changed, and their order), system prompt
//! blocks, messages (role and content block types, then text per block), and tools (by name;
//! for tools on both sides, parameters by name, type and required flag, then descriptions).
//! Exit status: 0 when nothing differs, 1 when something does, 2 on an error.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use serde_json::{Map, Value};

/// One side of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    /// The request body.
    pub(crate) body: Value,
    /// URL or path, when the input carries one.
    pub(crate) url: Option<String>,
    /// Headers (lowercase names), when the input carries them.
    pub(crate) headers: Option<Vec<(String, String)>>,
}

/// Reads one side (see the module docs for the accepted forms).
///
/// # Errors
/// A message naming the file when it cannot be read or holds no request.
pub(crate) fn load(spec: &str) -> Result<Request, String> {
    let (path, index) = match spec.rsplit_once('#') {
        Some((p, n)) if !p.is_empty() && n.parse::<usize>().is_ok_and(|n| n > 0) => {
            (p, n.parse::<usize>().unwrap_or(1))
        }
        _ => (spec, 1),
    };
    let text = std::fs::read_to_string(Path::new(path)).map_err(|e| format!("{path}: {e}"))?;
    let value = match serde_json::from_str::<Value>(&text) {
        Ok(v) if index == 1 => v,
        _ => {
            let mut records = text.lines().filter(|l| !l.trim().is_empty());
            let line = records
                .nth(index - 1)
                .ok_or_else(|| format!("{path}: no record {index}"))?;
            serde_json::from_str(line)
                .map_err(|e| format!("{path}: record {index} is not JSON: {e}"))?
        }
    };
    from_value(value).map_err(|e| format!("{path}: {e}"))
}

/// Finds the request in a parsed document.
///
/// # Errors
/// When the document is none of the accepted forms.
pub(crate) fn from_value(value: Value) -> Result<Request, String> {
    let Value::Object(obj) = value else {
        return Err("expected a JSON object".into());
    };
    let headers = header_list(obj.get("request_headers").or_else(|| obj.get("headers")));
    let url = ["url", "path"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))
        .map(str::to_string);
    // Exchange record: the body as sent, as a string.
    if let Some(Value::String(body)) = obj.get("request_body") {
        let body =
            serde_json::from_str(body).map_err(|e| format!("request_body is not JSON: {e}"))?;
        return Ok(Request { body, url, headers });
    }
    // `tack shape` output or a captured request.
    if let Some(body) = obj.get("body") {
        let body = match body {
            Value::String(s) => {
                serde_json::from_str(s).map_err(|e| format!("body is not JSON: {e}"))?
            }
            other => other.clone(),
        };
        return Ok(Request { body, url, headers });
    }
    if obj.contains_key("model") || obj.contains_key("messages") || obj.contains_key("input") {
        return Ok(Request {
            body: Value::Object(obj),
            url: None,
            headers: None,
        });
    }
    Err("no request body found (expected a body, an exchange record, `tack shape` output or a captured request)".into())
}

fn header_list(v: Option<&Value>) -> Option<Vec<(String, String)>> {
    match v? {
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(|h| {
                    let name = h.get("name").and_then(Value::as_str)?;
                    let value = h.get("value").and_then(Value::as_str).unwrap_or_default();
                    Some((name.to_ascii_lowercase(), value.to_string()))
                })
                .collect(),
        ),
        Value::Object(map) => Some(
            map.iter()
                .map(|(k, v)| {
                    (
                        k.to_ascii_lowercase(),
                        v.as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect(),
        ),
        _ => None,
    }
}

/// `tack diff-request`.
pub(crate) fn run(a: &str, b: &str) -> Result<ExitCode, String> {
    let left = load(a)?;
    let right = load(b)?;
    let report = diff(&left, &right);
    if report.is_empty() {
        println!("no differences");
        Ok(ExitCode::SUCCESS)
    } else {
        print!("{report}");
        Ok(ExitCode::from(1))
    }
}

/// Keys compared in their own sections rather than as plain values.
const STRUCTURED: &[&str] = &["messages", "input", "system", "instructions", "tools"];

/// The differences, as readable text; empty when the requests are the same.
pub(crate) fn diff(a: &Request, b: &Request) -> String {
    let mut out = String::new();
    endpoint(&mut out, a, b);
    headers(&mut out, a, b);
    top_level(&mut out, &a.body, &b.body);
    system(&mut out, &a.body, &b.body);
    messages(&mut out, &a.body, &b.body);
    tools(&mut out, &a.body, &b.body);
    out
}

fn section(out: &mut String, title: &str, lines: Vec<String>) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "== {title}");
    for line in lines {
        let _ = writeln!(out, "  {line}");
    }
}

/// A value shortened for one line.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        format!(
            "{}… ({} chars)",
            s.chars().take(117).collect::<String>(),
            s.chars().count()
        )
    } else {
        s
    }
}

fn path_and_query(url: &str) -> &str {
    match url.find("://") {
        Some(i) => url[i + 3..].find('/').map_or("/", |j| &url[i + 3 + j..]),
        None => url,
    }
}

fn endpoint(out: &mut String, a: &Request, b: &Request) {
    let (Some(ua), Some(ub)) = (&a.url, &b.url) else {
        return;
    };
    let (pa, pb) = (path_and_query(ua), path_and_query(ub));
    if pa != pb {
        section(out, "endpoint", vec![format!("{pa} → {pb}")]);
    }
}

fn headers(out: &mut String, a: &Request, b: &Request) {
    let (Some(ha), Some(hb)) = (&a.headers, &b.headers) else {
        return;
    };
    let find = |list: &[(String, String)], name: &str| {
        list.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    };
    let mut lines = Vec::new();
    for (name, value) in ha {
        match find(hb, name) {
            None => lines.push(format!("- {name}: {value}")),
            Some(other) if &other != value && !redacted(value) && !redacted(&other) => {
                lines.push(format!("~ {name}: {value} → {other}"));
            }
            Some(_) => {}
        }
    }
    for (name, value) in hb {
        if find(ha, name).is_none() {
            lines.push(format!("+ {name}: {value}"));
        }
    }
    section(out, "headers", lines);
}

fn redacted(v: &str) -> bool {
    v.contains("REDACTED")
}

fn top_level(out: &mut String, a: &Value, b: &Value) {
    let empty = Map::new();
    let ma = a.as_object().unwrap_or(&empty);
    let mb = b.as_object().unwrap_or(&empty);
    let mut lines = Vec::new();
    for (k, v) in ma {
        match mb.get(k) {
            None => lines.push(format!("- {k}: {}", short(v))),
            Some(w) if v != w && !STRUCTURED.contains(&k.as_str()) => {
                lines.push(format!("~ {k}: {} → {}", short(v), short(w)));
            }
            _ => {}
        }
    }
    for (k, v) in mb {
        if !ma.contains_key(k) {
            lines.push(format!("+ {k}: {}", short(v)));
        }
    }
    let common_a: Vec<&str> = ma
        .keys()
        .filter(|k| mb.contains_key(*k))
        .map(String::as_str)
        .collect();
    let common_b: Vec<&str> = mb
        .keys()
        .filter(|k| ma.contains_key(*k))
        .map(String::as_str)
        .collect();
    if common_a != common_b {
        lines.push(format!(
            "key order differs: [{}] vs [{}]",
            common_a.join(", "),
            common_b.join(", ")
        ));
    }
    section(out, "top-level keys", lines);
}

/// System prompt blocks: Messages `system`, Chat's leading system/developer messages,
/// Responses `instructions`. Each block is (text, cached).
fn system_blocks(body: &Value) -> Vec<(String, bool)> {
    let cached = |b: &Value| b.get("cache_control").is_some();
    match body.get("system") {
        Some(Value::String(s)) => return vec![(s.clone(), false)],
        Some(Value::Array(blocks)) => {
            return blocks
                .iter()
                .map(|b| {
                    (
                        b.get("text")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                        cached(b),
                    )
                })
                .collect();
        }
        _ => {}
    }
    if let Some(Value::String(s)) = body.get("instructions") {
        return vec![(s.clone(), false)];
    }
    body.get("messages")
        .and_then(Value::as_array)
        .map(|msgs| {
            msgs.iter()
                .take_while(|m| {
                    matches!(
                        m.get("role").and_then(Value::as_str),
                        Some("system" | "developer")
                    )
                })
                .map(|m| (content_text(m.get("content")), false))
                .collect()
        })
        .unwrap_or_default()
}

fn content_text(c: Option<&Value>) -> String {
    match c {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Where two texts first differ, with a little of each side.
fn first_difference(a: &str, b: &str) -> String {
    let at = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map(|((i, _), _)| i)
        .unwrap_or_else(|| a.len().min(b.len()));
    let start = a[..at].char_indices().rev().nth(20).map_or(0, |(i, _)| i);
    let snippet = |s: &str| -> String {
        let from = start.min(s.len());
        let from = (0..=from)
            .rev()
            .find(|i| s.is_char_boundary(*i))
            .unwrap_or(0);
        s[from..]
            .chars()
            .take(60)
            .collect::<String>()
            .replace('\n', "⏎")
    };
    format!(
        "{} vs {} chars, first difference at char {}: «{}» vs «{}»",
        a.chars().count(),
        b.chars().count(),
        a[..at].chars().count(),
        snippet(a),
        snippet(b)
    )
}

fn system(out: &mut String, a: &Value, b: &Value) {
    let (sa, sb) = (system_blocks(a), system_blocks(b));
    let mut lines = Vec::new();
    let describe = |blocks: &[(String, bool)]| {
        blocks
            .iter()
            .map(|(t, c)| format!("{}{}", t.chars().count(), if *c { " cached" } else { "" }))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if sa.len() != sb.len() || sa.iter().zip(&sb).any(|(x, y)| x.1 != y.1) {
        lines.push(format!(
            "{} block(s) [{}] vs {} block(s) [{}]",
            sa.len(),
            describe(&sa),
            sb.len(),
            describe(&sb)
        ));
    }
    for (i, (x, y)) in sa.iter().zip(&sb).enumerate() {
        if x.0 != y.0 {
            lines.push(format!("block {i}: {}", first_difference(&x.0, &y.0)));
        }
    }
    section(out, "system", lines);
}

/// One conversation entry, wire-neutral enough to compare: role (or item type) and the types
/// of its content blocks, plus its texts.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    role: String,
    kinds: Vec<String>,
    texts: Vec<String>,
}

fn entries(body: &Value) -> Vec<Entry> {
    let system_prefix = body.get("system").is_none() && body.get("instructions").is_none();
    if let Some(Value::Array(items)) = body.get("input") {
        return items.iter().map(entry).collect();
    }
    let Some(Value::Array(msgs)) = body.get("messages") else {
        return Vec::new();
    };
    // Chat: the leading system messages were compared as the system prompt.
    let skip = if system_prefix {
        msgs.iter()
            .take_while(|m| {
                matches!(
                    m.get("role").and_then(Value::as_str),
                    Some("system" | "developer")
                )
            })
            .count()
    } else {
        0
    };
    msgs.iter().skip(skip).map(entry).collect()
}

fn entry(m: &Value) -> Entry {
    let role = m
        .get("role")
        .and_then(Value::as_str)
        .or_else(|| m.get("type").and_then(Value::as_str))
        .unwrap_or("?")
        .to_string();
    let mut kinds = Vec::new();
    let mut texts = Vec::new();
    match m.get("content") {
        Some(Value::String(s)) => {
            kinds.push("text".to_string());
            texts.push(s.clone());
        }
        Some(Value::Array(parts)) => {
            for p in parts {
                let kind = p.get("type").and_then(Value::as_str).unwrap_or("?");
                let cached = if p.get("cache_control").is_some() {
                    "+cache"
                } else {
                    ""
                };
                kinds.push(format!("{kind}{cached}"));
                let text = p
                    .get("text")
                    .or_else(|| p.get("thinking"))
                    .or_else(|| p.get("content"))
                    .or_else(|| p.get("input"))
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .unwrap_or_default();
                texts.push(text);
            }
        }
        _ => {}
    }
    if let Some(calls) = m.get("tool_calls").and_then(Value::as_array) {
        for c in calls {
            kinds.push("tool_call".to_string());
            texts.push(c.get("function").map(Value::to_string).unwrap_or_default());
        }
    }
    for key in ["arguments", "output"] {
        if let Some(v) = m.get(key) {
            texts.push(v.as_str().map_or_else(|| v.to_string(), str::to_string));
        }
    }
    Entry { role, kinds, texts }
}

fn messages(out: &mut String, a: &Value, b: &Value) {
    let (ea, eb) = (entries(a), entries(b));
    let mut lines = Vec::new();
    if ea.len() != eb.len() {
        lines.push(format!("{} vs {} messages", ea.len(), eb.len()));
    }
    for i in 0..ea.len().max(eb.len()) {
        match (ea.get(i), eb.get(i)) {
            (Some(x), None) => lines.push(format!(
                "#{i}: only in A: {} [{}]",
                x.role,
                x.kinds.join(", ")
            )),
            (None, Some(y)) => lines.push(format!(
                "#{i}: only in B: {} [{}]",
                y.role,
                y.kinds.join(", ")
            )),
            (Some(x), Some(y)) => {
                if x.role != y.role {
                    lines.push(format!("#{i}: role {} → {}", x.role, y.role));
                }
                if x.kinds != y.kinds {
                    lines.push(format!(
                        "#{i}: content [{}] → [{}]",
                        x.kinds.join(", "),
                        y.kinds.join(", ")
                    ));
                } else {
                    for (j, (s, t)) in x.texts.iter().zip(&y.texts).enumerate() {
                        if s != t {
                            lines.push(format!("#{i} block {j}: {}", first_difference(s, t)));
                        }
                    }
                }
            }
            (None, None) => {}
        }
    }
    section(out, "messages", lines);
}

/// A tool, wire-neutral: name, description, parameter schema.
fn tool_list(body: &Value) -> Vec<(String, String, Value)> {
    body.get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .map(|t| {
                    let f = t.get("function").unwrap_or(t);
                    let name = f
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("?")
                        .to_string();
                    let description = f
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    let schema = f
                        .get("input_schema")
                        .or_else(|| f.get("parameters"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    (name, description, schema)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Parameters as (name, type, required), in schema order.
fn params(schema: &Value) -> Vec<(String, String, bool)> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(k, v)| {
                    let ty = match v.get("type") {
                        Some(Value::String(s)) => s.clone(),
                        Some(other) => other.to_string(),
                        None => "any".to_string(),
                    };
                    (k.clone(), ty, required.contains(&k.as_str()))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn tools(out: &mut String, a: &Value, b: &Value) {
    let (ta, tb) = (tool_list(a), tool_list(b));
    let names = |t: &[(String, String, Value)]| t.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    let (na, nb) = (names(&ta), names(&tb));
    let mut lines = Vec::new();
    for n in na.iter().filter(|n| !nb.contains(n)) {
        lines.push(format!("- {n}"));
    }
    for n in nb.iter().filter(|n| !na.contains(n)) {
        lines.push(format!("+ {n}"));
    }
    let common_a: Vec<&String> = na.iter().filter(|n| nb.contains(n)).collect();
    let common_b: Vec<&String> = nb.iter().filter(|n| na.contains(n)).collect();
    if common_a != common_b {
        lines.push(format!(
            "order differs: [{}] vs [{}]",
            common_a
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            common_b
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for (name, da, sa) in &ta {
        let Some((_, db, sb)) = tb.iter().find(|t| &t.0 == name) else {
            continue;
        };
        let (pa, pb) = (params(sa), params(sb));
        for p in pa.iter().filter(|p| !pb.iter().any(|q| q.0 == p.0)) {
            lines.push(format!(
                "{name}: - {} ({}{})",
                p.0,
                p.1,
                if p.2 { ", required" } else { "" }
            ));
        }
        for p in pb.iter().filter(|p| !pa.iter().any(|q| q.0 == p.0)) {
            lines.push(format!(
                "{name}: + {} ({}{})",
                p.0,
                p.1,
                if p.2 { ", required" } else { "" }
            ));
        }
        for p in &pa {
            if let Some(q) = pb.iter().find(|q| q.0 == p.0) {
                if p.1 != q.1 {
                    lines.push(format!("{name}.{}: type {} → {}", p.0, p.1, q.1));
                }
                if p.2 != q.2 {
                    lines.push(format!("{name}.{}: required {} → {}", p.0, p.2, q.2));
                }
            }
        }
        let order = |ps: &[(String, String, bool)], other: &[(String, String, bool)]| {
            ps.iter()
                .filter(|p| other.iter().any(|q| q.0 == p.0))
                .map(|p| p.0.clone())
                .collect::<Vec<_>>()
        };
        if order(&pa, &pb) != order(&pb, &pa) {
            lines.push(format!("{name}: parameter order differs"));
        }
        if da != db {
            lines.push(format!("{name}: description {}", first_difference(da, db)));
        }
        if pa == pb && da == db && sa != sb {
            lines.push(format!(
                "{name}: schema differs beyond names, types and required"
            ));
        }
    }
    section(out, "tools", lines);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(body: Value) -> Request {
        from_value(body).unwrap()
    }

    #[test]
    fn identical_requests_have_no_differences() {
        let b = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
        assert_eq!(diff(&req(b.clone()), &req(b)), "");
    }

    #[test]
    fn keys_messages_and_tools_are_reported() {
        let a = json!({
            "model": "claude-opus-4-6", "max_tokens": 64000,
            "system": [{"type": "text", "text": "You are A"}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
            "tools": [
                {"name": "Bash", "input_schema": {"properties": {"command": {"type": "string"}, "timeout": {"type": "number"}}, "required": ["command"]}},
                {"name": "Agent", "input_schema": {}}
            ],
            "stream": true
        });
        let b = json!({
            "model": "claude-opus-5-5", "messages": [
                {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "more"}]},
                {"role": "system", "content": [{"type": "text", "text": "env"}]}
            ],
            "system": [{"type": "text", "text": "You are B", "cache_control": {"type": "ephemeral"}}],
            "tools": [{"name": "Bash", "input_schema": {"properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}, "description": {"type": "string"}}, "required": ["command", "timeout"]}}],
            "max_tokens": 128000, "stream": true
        });
        let text = diff(&req(a), &req(b));
        for expected in [
            "~ model: \"claude-opus-4-6\" → \"claude-opus-5-5\"",
            "~ max_tokens: 64000 → 128000",
            "key order differs",
            "1 block(s) [9] vs 1 block(s) [9 cached]",
            "block 0: 9 vs 9 chars, first difference at char 8",
            "1 vs 2 messages",
            "#0: content [text] → [text, text]",
            "#1: only in B: system [text]",
            "- Agent",
            "Bash: + description (string)",
            "Bash.timeout: type number → integer",
            "Bash.timeout: required false → true",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in\n{text}");
        }
    }

    #[test]
    fn all_input_forms_are_read() {
        let body =
            json!({"model": "m", "input": [{"type": "message", "role": "user", "content": "x"}]});
        let exchange = json!({"url": "https://h/v1/responses", "request_headers": [{"name": "x-api-key", "value": "[REDACTED]"}], "request_body": body.to_string()});
        let shape = json!({"route": "responses/native", "url": "https://h/v1/responses", "headers": [], "body": body});
        let capture = json!({"method": "POST", "path": "/v1/responses", "headers": {"X-App": "cli"}, "body": body});
        for v in [exchange, shape, capture, body.clone()] {
            assert_eq!(from_value(v).unwrap().body, body);
        }
        assert!(from_value(json!({"hello": 1})).is_err());
    }

    #[test]
    fn endpoint_and_headers() {
        let a = Request {
            body: json!({}),
            url: Some("https://api.anthropic.com/v1/messages?beta=true".into()),
            headers: Some(vec![
                ("x-api-key".into(), "[REDACTED]".into()),
                ("x-app".into(), "cli".into()),
            ]),
        };
        let b = Request {
            body: json!({}),
            url: Some("/v1/messages".into()),
            headers: Some(vec![
                ("x-api-key".into(), "sk-other".into()),
                ("user-agent".into(), "tack/0.1".into()),
            ]),
        };
        let text = diff(&a, &b);
        assert!(
            text.contains("/v1/messages?beta=true → /v1/messages"),
            "{text}"
        );
        assert!(text.contains("- x-app: cli"), "{text}");
        assert!(text.contains("+ user-agent: tack/0.1"), "{text}");
        assert!(
            !text.contains("x-api-key"),
            "redacted values are not compared: {text}"
        );
    }

    #[test]
    fn chat_system_messages_are_the_system_prompt() {
        let a = json!({"model": "m", "messages": [{"role": "system", "content": "S1"}, {"role": "user", "content": "u"}]});
        let b = json!({"model": "m", "messages": [{"role": "system", "content": "S2"}, {"role": "user", "content": "u"}]});
        let text = diff(&req(a), &req(b));
        assert!(text.contains("== system"), "{text}");
        assert!(!text.contains("== messages"), "{text}");
    }
}
