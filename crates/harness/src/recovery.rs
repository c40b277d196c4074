//! Recovery of tool calls that a model wrote into its text.
//!
//! Some models served behind tool-calling APIs emit their calls as markup in the message text
//! when the server's tool-call parser does not recognise their format (a self-hosted server
//! started without the model's parser, a proxy that passes text through). The call is then
//! lost: the reply looks like prose and the agent stops. This decorator finds such calls in
//! the text and turns them back into function calls. Formats recognised:
//!
//! - Qwen3-Coder's XML: `<function=NAME><parameter=P>value</parameter>…</function>`, bare or
//!   wrapped in `<tool_call>…</tool_call>` (the format of Qwen3-Coder's chat template);
//! - the Anthropic-style `<invoke name="NAME"><parameter name="P">value</parameter></invoke>`,
//!   bare or wrapped in `<function_calls>…</function_calls>`;
//! - Hermes-style JSON in a wrapper: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
//!   (Qwen2.5, many fine-tunes).
//!
//! **Streaming.** Text streams through as it arrives; only a possible tag fragment at the end
//! of what has arrived (`<`, `<func`, `<invoke` …) is held back until the next delta shows
//! whether it is a tag, so ordinary text is never delayed by more than the fragment, and a tag
//! split across deltas at any byte is still found. Inside a call block nothing is shown (it is
//! markup, not prose); a block that turns out not to be a call is released as text.
//!
//! **Types.** Values in the XML formats are text; each is converted to the type its parameter
//! has in the tool's JSON Schema (`integer`, `number`, `boolean`, `array`, `object`, a type
//! list such as `["integer", "null"]`, or `anyOf`/`oneOf` alternatives). A value that does not
//! convert stays a string, and the tool's own validation reports it to the model.
//!
//! **Guards.** With a tool list, only calls of advertised tools are recovered (otherwise a
//! model explaining the syntax would trigger calls); a block cut off by the end of the reply
//! counts only if every required parameter is present.
//!
//! **Result.** The assistant message keeps the text around the calls (the markup is removed,
//! since the call items now carry it, so a replay does not show the model its call twice); the
//! recovered calls follow as `function_call` items with ids `text_call_<response>_<n>`, and the
//! stop reason becomes `tool_calls`, as if the server had parsed them.

use std::collections::HashMap;

use serde_json::{Map, Value};
use tack_protocol::{
    ContentPart, FunctionCallItem, Item, ProviderInfo, Role, StopReason, StreamEvent, ToolSpec,
};

use crate::Postprocess;

/// Whether calls leaking into text are common enough for this provider and model that a
/// harness should enable [`TextCallRecovery`] by default: the Qwen3-Coder family (its XML call
/// format needs a dedicated server-side parser that many deployments lack), and any server on
/// this machine (llama.cpp, Ollama, LM Studio, vLLM), where the tool parser depends on how the
/// server was started. The decorator only acts on exact call markup naming an advertised tool,
/// so a false positive costs nothing.
pub fn leaks_text_calls(provider: &ProviderInfo, model: &str) -> bool {
    let model = model.to_ascii_lowercase();
    let url = provider.base_url.to_ascii_lowercase();
    let local = ["://localhost", "://127.", "://[::1]", "://0.0.0.0"]
        .iter()
        .any(|h| url.contains(h));
    local || model.contains("qwen3-coder") || model.contains("qwen3_coder")
}

/// Puts [`TextCallRecovery`] in front of a native-tool harness's stream: when `shaped` has no
/// postprocess of its own (text-protocol harnesses read the text themselves, and mini-swe-agent
/// chains the recovery itself) and its request advertises tools, the recovery gets those tools
/// (wire names, so recovered calls bind like the API's own). Returns whether it was enabled.
pub fn enable(shaped: &mut crate::Shaped) -> bool {
    if shaped.postprocess.is_some() || shaped.request.tools.is_empty() {
        return false;
    }
    shaped.postprocess = Some(Box::new(TextCallRecovery::new(&shaped.request.tools)));
    true
}

/// Runs `first`, then feeds what it produces to `second`.
pub fn chain(first: Box<dyn Postprocess>, second: Box<dyn Postprocess>) -> Box<dyn Postprocess> {
    Box::new(Chain {
        first,
        second,
        between: Vec::new(),
    })
}

struct Chain {
    first: Box<dyn Postprocess>,
    second: Box<dyn Postprocess>,
    between: Vec<StreamEvent>,
}

impl Postprocess for Chain {
    fn event(&mut self, event: StreamEvent, out: &mut Vec<StreamEvent>) {
        self.first.event(event, &mut self.between);
        for e in self.between.drain(..) {
            self.second.event(e, out);
        }
    }
    fn finish(&mut self, out: &mut Vec<StreamEvent>) {
        self.first.finish(&mut self.between);
        for e in self.between.drain(..) {
            self.second.event(e, out);
        }
        self.second.finish(out);
    }
}

/// A call as written: the tool name and its arguments, values still as text where the format
/// has no types.
type RawCall = (String, Map<String, Value>);

/// Where a call block starts, and the tag that ends it.
const OPENERS: &[(&str, &str)] = &[
    ("<tool_call>", "</tool_call>"),
    ("<function_calls>", "</function_calls>"),
    ("<function=", "</function>"),
    ("<invoke ", "</invoke>"),
    ("<invoke\n", "</invoke>"),
    ("<invoke\t", "</invoke>"),
];

/// The leaked-call recovery decorator (see the module docs).
pub struct TextCallRecovery {
    /// Advertised tools: name → parameters schema. Empty: accept any name.
    tools: HashMap<String, Value>,
    /// Text received but not yet passed on (a possible tag fragment, or a call block).
    held: String,
    /// Inside a call block: the tag that ends it.
    closer: Option<&'static str>,
    /// The text passed on (the message text without the call markup).
    shown: String,
    /// Calls recovered so far.
    calls: Vec<Item>,
    response_id: String,
    /// The held text has been resolved at the end of the reply.
    flushed: bool,
}

impl TextCallRecovery {
    /// A decorator for a response to a request that advertised `tools`.
    pub fn new(tools: &[ToolSpec]) -> Self {
        TextCallRecovery {
            tools: tools
                .iter()
                .map(|t| (t.name.clone(), t.parameters()))
                .collect(),
            held: String::new(),
            closer: None,
            shown: String::new(),
            calls: Vec::new(),
            response_id: "text".into(),
            flushed: false,
        }
    }

    fn show(&mut self, text: &str, out: &mut Vec<StreamEvent>) {
        if !text.is_empty() {
            self.shown.push_str(text);
            out.push(StreamEvent::TextDelta {
                text: text.to_string(),
            });
        }
    }

    /// Consumes `self.held` as far as it can be decided.
    fn advance(&mut self, out: &mut Vec<StreamEvent>) {
        loop {
            match self.closer {
                None => {
                    if let Some((pos, open, close)) = earliest_opener(&self.held) {
                        let before: String = self.held[..pos].to_string();
                        self.show(&before, out);
                        self.held.drain(..pos);
                        debug_assert!(self.held.starts_with(open));
                        self.closer = Some(close);
                        continue;
                    }
                    let keep = fragment_len(&self.held);
                    let ready: String = self.held[..self.held.len() - keep].to_string();
                    self.show(&ready, out);
                    self.held.drain(..self.held.len() - keep);
                    return;
                }
                Some(close) => {
                    let Some(end) = self.held.find(close) else {
                        return;
                    };
                    let block: String = self.held.drain(..end + close.len()).collect();
                    self.closer = None;
                    let calls = self.parse_block(&block, false);
                    if calls.is_empty() {
                        self.show(&block, out);
                    } else {
                        self.calls.extend(calls);
                    }
                }
            }
        }
    }

    /// Resolves what is still held at the end of the reply.
    fn flush(&mut self, out: &mut Vec<StreamEvent>) {
        if self.flushed {
            return;
        }
        self.flushed = true;
        let rest = std::mem::take(&mut self.held);
        if self.closer.take().is_some() {
            let calls = self.parse_block(&rest, true);
            if calls.is_empty() {
                self.show(&rest, out);
            } else {
                self.calls.extend(calls);
            }
        } else {
            self.show(&rest, out);
        }
    }

    /// The calls in one block (a wrapper may hold several).
    fn parse_block(&self, block: &str, cut_off: bool) -> Vec<Item> {
        let mut found: Vec<RawCall> = Vec::new();
        let mut pos = 0;
        while pos < block.len() {
            let rest = &block[pos..];
            let fn_at = rest.find("<function=");
            let inv_at = rest.find("<invoke");
            let next = match (fn_at, inv_at) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let Some(at) = next else { break };
            let start = pos + at;
            let (parsed, end) = if block[start..].starts_with("<function=") {
                qwen_call(&block[start..])
            } else {
                invoke_call(&block[start..])
            };
            if let Some(call) = parsed {
                found.push(call);
            }
            pos = start + end.max(1);
        }
        if found.is_empty()
            && let Some(json) = hermes_call(block)
        {
            found.push(json);
        }
        let mut calls = Vec::new();
        for (name, raw) in found {
            let schema = self.tools.get(&name);
            if !self.tools.is_empty() && schema.is_none() {
                continue;
            }
            let args = convert(raw, schema);
            if cut_off && !has_required(&args, schema) {
                continue;
            }
            let n = self.calls.len() + calls.len();
            calls.push(Item::FunctionCall(FunctionCallItem {
                id: format!("{}-tc{n}", self.response_id),
                call_id: format!("text_call_{}_{n}", self.response_id),
                name,
                namespace: None,
                arguments: Value::Object(args).to_string(),
            }));
        }
        calls
    }
}

impl Postprocess for TextCallRecovery {
    fn event(&mut self, event: StreamEvent, out: &mut Vec<StreamEvent>) {
        match event {
            StreamEvent::Created {
                ref response_id, ..
            } => {
                if let Some(id) = response_id {
                    self.response_id = id.clone();
                }
                out.push(event);
            }
            StreamEvent::TextDelta { text } => {
                self.held.push_str(&text);
                self.advance(out);
            }
            StreamEvent::ItemDone {
                item: Item::Message(mut m),
            } if m.role == Role::Assistant => {
                self.flush(out);
                if self.calls.is_empty() {
                    out.push(StreamEvent::ItemDone {
                        item: Item::Message(m),
                    });
                    return;
                }
                if !self.shown.trim().is_empty() {
                    m.content = vec![ContentPart::Text {
                        text: self.shown.clone(),
                    }];
                    out.push(StreamEvent::ItemDone {
                        item: Item::Message(m),
                    });
                }
                out.extend(
                    self.calls
                        .iter()
                        .cloned()
                        .map(|item| StreamEvent::ItemDone { item }),
                );
            }
            StreamEvent::Completed {
                stop_reason,
                response_id,
            } => {
                if !self.flushed {
                    // No message item came (a reply with only calls, say): resolve here.
                    self.flush(out);
                    out.extend(
                        self.calls
                            .iter()
                            .cloned()
                            .map(|item| StreamEvent::ItemDone { item }),
                    );
                }
                let stop_reason = if self.calls.is_empty() {
                    stop_reason
                } else {
                    StopReason::ToolCalls
                };
                out.push(StreamEvent::Completed {
                    stop_reason,
                    response_id,
                });
            }
            other => out.push(other),
        }
    }

    fn finish(&mut self, out: &mut Vec<StreamEvent>) {
        // A stream that ended without `Completed` is truncated: show what was held, run nothing.
        if !self.flushed {
            let rest = std::mem::take(&mut self.held);
            self.show(&rest, out);
            self.flushed = true;
        }
    }
}

/// The earliest call opener in `text`: (offset, opener, closer).
fn earliest_opener(text: &str) -> Option<(usize, &'static str, &'static str)> {
    OPENERS
        .iter()
        .filter_map(|(open, close)| text.find(open).map(|pos| (pos, *open, *close)))
        .min_by_key(|(pos, open, _)| (*pos, std::cmp::Reverse(open.len())))
}

/// Length of the suffix of `text` that could be the start of an opener (held back).
fn fragment_len(text: &str) -> usize {
    let Some(lt) = text.rfind('<') else { return 0 };
    let tail = &text[lt..];
    if OPENERS
        .iter()
        .any(|(open, _)| open.len() > tail.len() && open.starts_with(tail))
    {
        tail.len()
    } else {
        0
    }
}

/// `<function=NAME>…</function>` → (name, raw string values), and the bytes consumed.
fn qwen_call(text: &str) -> (Option<RawCall>, usize) {
    let Some(gt) = text.find('>') else {
        return (None, text.len());
    };
    let name = text["<function=".len()..gt].trim().to_string();
    let body_end = text.find("</function>").unwrap_or(text.len());
    let consumed = (body_end + "</function>".len()).min(text.len());
    if name.is_empty() || name.contains(char::is_whitespace) || gt > body_end {
        return (None, consumed);
    }
    let body = &text[gt + 1..body_end];
    let mut args = Map::new();
    let mut pos = 0;
    while let Some(i) = body[pos..].find("<parameter=") {
        let at = pos + i + "<parameter=".len();
        let Some(gt) = body[at..].find('>') else {
            break;
        };
        let key = body[at..at + gt].trim().to_string();
        let value_start = at + gt + 1;
        // A value runs to its closing tag, or (cut off) to the next parameter or the end.
        let (value_end, next) = match body[value_start..].find("</parameter>") {
            Some(e) => (value_start + e, value_start + e + "</parameter>".len()),
            None => {
                let e = body[value_start..]
                    .find("<parameter=")
                    .map_or(body.len(), |e| value_start + e);
                (e, e)
            }
        };
        args.insert(
            key,
            Value::String(strip_one_newline(&body[value_start..value_end]).to_string()),
        );
        pos = next;
    }
    (Some((name, args)), consumed)
}

/// `<invoke name="NAME">…</invoke>` → (name, raw string values), and the bytes consumed.
fn invoke_call(text: &str) -> (Option<RawCall>, usize) {
    let Some(gt) = text.find('>') else {
        return (None, text.len());
    };
    let body_end = text.find("</invoke>").unwrap_or(text.len());
    let consumed = (body_end + "</invoke>".len()).min(text.len());
    let name = attribute(&text["<invoke".len()..gt], "name");
    let Some(name) = name.filter(|n| !n.is_empty()) else {
        return (None, consumed);
    };
    if gt > body_end {
        return (None, consumed);
    }
    let body = &text[gt + 1..body_end];
    let mut args = Map::new();
    let mut pos = 0;
    while let Some(i) = body[pos..].find("<parameter") {
        let at = pos + i + "<parameter".len();
        let Some(gt) = body[at..].find('>') else {
            break;
        };
        let Some(key) = attribute(&body[at..at + gt], "name") else {
            pos = at;
            continue;
        };
        let value_start = at + gt + 1;
        let (value_end, next) = match body[value_start..].find("</parameter>") {
            Some(e) => (value_start + e, value_start + e + "</parameter>".len()),
            None => (body.len(), body.len()),
        };
        args.insert(key, Value::String(body[value_start..value_end].to_string()));
        pos = next;
    }
    (Some((name, args)), consumed)
}

/// `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (Hermes).
fn hermes_call(block: &str) -> Option<RawCall> {
    let inner = block.strip_prefix("<tool_call>")?;
    let inner = inner.strip_suffix("</tool_call>").unwrap_or(inner).trim();
    let value: Value = serde_json::from_str(inner).ok()?;
    let name = value.get("name")?.as_str()?.to_string();
    let args = match value.get("arguments").or_else(|| value.get("parameters")) {
        Some(Value::Object(map)) => map.clone(),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text).ok()? {
            Value::Object(map) => map,
            _ => return None,
        },
        None => Map::new(),
        Some(_) => return None,
    };
    Some((name, args))
}

/// `name="x"`, `name='x'` or `name=x` in a tag's attribute text.
fn attribute(attrs: &str, key: &str) -> Option<String> {
    let mut rest = attrs;
    while let Some(i) = rest.find(key) {
        let after = rest[i + key.len()..].trim_start();
        let before_ok = i == 0 || rest[..i].ends_with(char::is_whitespace);
        if let (true, Some(value)) = (before_ok, after.strip_prefix('=')) {
            let value = value.trim_start();
            return Some(match value.chars().next() {
                Some(q @ ('"' | '\'')) => {
                    value[1..].split(q).next().unwrap_or_default().to_string()
                }
                _ => value
                    .split(|c: char| c.is_whitespace() || c == '/')
                    .next()
                    .unwrap_or_default()
                    .to_string(),
            });
        }
        rest = &rest[i + key.len()..];
    }
    None
}

/// Qwen3-Coder puts each value on lines of its own: drop one newline at each end.
fn strip_one_newline(value: &str) -> &str {
    let value = value
        .strip_prefix("\r\n")
        .or_else(|| value.strip_prefix('\n'))
        .unwrap_or(value);
    value
        .strip_suffix("\r\n")
        .or_else(|| value.strip_suffix('\n'))
        .unwrap_or(value)
}

/// Converts raw values to their schema types (see the module docs).
fn convert(raw: Map<String, Value>, schema: Option<&Value>) -> Map<String, Value> {
    let props = schema.and_then(|s| s.get("properties"));
    raw.into_iter()
        .map(|(key, value)| {
            let typed = match (&value, props.and_then(|p| p.get(&key))) {
                (Value::String(text), Some(prop)) => typed_value(text, prop).unwrap_or(value),
                _ => value,
            };
            (key, typed)
        })
        .collect()
}

/// `text` as a value of the type `schema` describes, if it converts.
pub(crate) fn typed_value(text: &str, schema: &Value) -> Option<Value> {
    for alt in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = schema.get(alt) {
            // A string alternative keeps text as is; otherwise the first that converts wins.
            if options
                .iter()
                .any(|o| o.get("type").and_then(Value::as_str) == Some("string"))
            {
                return Some(Value::String(text.to_string()));
            }
            return options.iter().find_map(|o| typed_value(text, o));
        }
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    if types.contains(&"string") {
        return Some(Value::String(text.to_string()));
    }
    let trimmed = text.trim();
    types.iter().find_map(|t| match *t {
        "integer" => trimmed.parse::<i64>().map(Value::from).ok().or_else(|| {
            trimmed
                .parse::<f64>()
                .ok()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| Value::from(f as i64))
        }),
        "number" => trimmed
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        "boolean" => match trimmed.to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "null" if trimmed == "null" || trimmed.is_empty() => Some(Value::Null),
        "array" => serde_json::from_str::<Value>(trimmed)
            .ok()
            .filter(Value::is_array),
        "object" => serde_json::from_str::<Value>(trimmed)
            .ok()
            .filter(Value::is_object),
        _ => None,
    })
}

fn has_required(args: &Map<String, Value>, schema: Option<&Value>) -> bool {
    let Some(Value::Array(required)) = schema.and_then(|s| s.get("required")) else {
        return true;
    };
    required
        .iter()
        .filter_map(Value::as_str)
        .all(|r| args.contains_key(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_follow_the_schema() {
        let int = json!({"type": "integer"});
        assert_eq!(typed_value(" 42\n", &int), Some(json!(42)));
        assert_eq!(typed_value("4.0", &int), Some(json!(4)));
        assert_eq!(typed_value("x", &int), None);
        assert_eq!(
            typed_value("TRUE", &json!({"type": "boolean"})),
            Some(json!(true))
        );
        assert_eq!(
            typed_value("[1, 2]", &json!({"type": "array"})),
            Some(json!([1, 2]))
        );
        assert_eq!(
            typed_value("{\"a\":1}", &json!({"type": ["object", "null"]})),
            Some(json!({"a": 1}))
        );
        assert_eq!(
            typed_value("null", &json!({"type": ["integer", "null"]})),
            Some(Value::Null)
        );
        assert_eq!(
            typed_value(
                "7",
                &json!({"anyOf": [{"type": "integer"}, {"type": "boolean"}]})
            ),
            Some(json!(7))
        );
        assert_eq!(
            typed_value(
                "7",
                &json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
            ),
            Some(json!("7"))
        );
        assert_eq!(
            typed_value("1.5", &json!({"type": "number"})),
            Some(json!(1.5))
        );
    }

    #[test]
    fn attributes_in_any_quoting() {
        assert_eq!(attribute(" name=\"a b\"", "name").as_deref(), Some("a b"));
        assert_eq!(attribute(" name='x'", "name").as_deref(), Some("x"));
        assert_eq!(attribute(" name=x", "name").as_deref(), Some("x"));
        assert_eq!(
            attribute(" rename=\"y\" name=\"z\"", "name").as_deref(),
            Some("z")
        );
    }

    #[test]
    fn fragments_are_held_only_when_they_could_open_a_call() {
        assert_eq!(fragment_len("see <fun"), 4);
        assert_eq!(fragment_len("a < b"), 0);
        assert_eq!(fragment_len("x <"), 1);
        assert_eq!(fragment_len("<div"), 0);
        assert_eq!(fragment_len("<invoke"), 7);
    }
}
