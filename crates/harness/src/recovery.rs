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
//! **Code is text.** Markup inside Markdown code is never a call and is shown unchanged: in a
//! fenced block (a line starting with three or more backticks or tildes, until a line with at
//! least as many of the same character and nothing else) and in an inline code span (a run of
//! backticks, until a run of the same length, or the end of the paragraph). A model that puts
//! call syntax in code is showing it (explaining the format, quoting a file, proposing a command
//! for the user to run), not calling it; running it would act on text the user was only meant to
//! read. This holds for every fence, including ones tagged as a tool format (```` ```xml ````,
//! ```` ```tool_call ````): a model that wraps a real call in a fence loses that call (the turn
//! ends with the text), which is the safe failure. Where Markdown is ambiguous the reading is the
//! one with more code: a fence may be indented any amount or follow `>` and list markers (a fence
//! in a list item), an unclosed code span runs to the end of its paragraph (Markdown would make
//! its backtick literal), and a backtick in a fence's info string makes it inline code, as in
//! CommonMark. A closing fence may follow only whitespace and `>`. The fence state carries across
//! deltas; a run of backticks or tildes at the end of a delta is held, like a tag fragment, until
//! the next delta shows how long it is.
//!
//! **Structure.** Between the tags of a call (wrapper, call, parameters) only whitespace may
//! stand; a block with anything else there is prose that mentions the tags (it may hold a code
//! fence whose markup would otherwise count). A block that is not a call is text: its opening
//! tag is shown and what follows is read again, so code and later calls in it count as usual.
//!
//! **Guards.** With a tool list, only calls of advertised tools are recovered (otherwise a
//! model explaining the syntax would trigger calls); a block cut off by the end of the reply
//! counts only if every required parameter is present.
//!
//! **Markup span.** Everything the call's markup spans goes with it: the wrapper and its
//! closing tag, and closing wrapper tags that follow a call with only whitespace between
//! (`</tool_call>`, `</function_calls>`, also when the model left out the opening tag, and
//! vendor-namespaced ones such as `</minimax:tool_call>`: the name after the last `:` counts).
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

/// Puts [`TextCallRecovery`] in front of a harness's stream when its request advertises tools
/// (wire names, so recovered calls bind like the API's own), ahead of the harness's own
/// postprocess if it has one (mini-swe-agent's then sees a leaked call as a call). Harnesses
/// that advertise no tools (swe-agent's text mode, terminus-2) read actions from the text
/// themselves and are left alone. Returns whether it was enabled.
pub fn enable(shaped: &mut crate::Shaped) -> bool {
    if shaped.request.tools.is_empty() {
        return false;
    }
    let recovery: Box<dyn Postprocess> = Box::new(TextCallRecovery::new(&shaped.request.tools));
    shaped.postprocess = Some(match shaped.postprocess.take() {
        Some(own) => chain(recovery, own),
        None => recovery,
    });
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
    /// Inside a call block: the tag that opened it and the tag that ends it.
    block: Option<(&'static str, &'static str)>,
    /// Where the text outside call blocks stands in its Markdown (code or prose).
    markdown: Markdown,
    /// The text passed on (the message text without the call markup).
    shown: String,
    /// Calls recovered so far.
    calls: Vec<Item>,
    response_id: String,
    /// The held text has been resolved at the end of the reply.
    flushed: bool,
    /// Just after a recovered call: closing wrapper tags that follow (with only whitespace
    /// between) are the call's too.
    after_call: bool,
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
            block: None,
            markdown: Markdown::default(),
            shown: String::new(),
            calls: Vec::new(),
            response_id: "text".into(),
            flushed: false,
            after_call: false,
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

    /// Consumes `self.held` as far as it can be decided; `at_end`: nothing more will come.
    fn advance(&mut self, out: &mut Vec<StreamEvent>, at_end: bool) {
        loop {
            if self.after_call {
                match closing_wrapper(&self.held, at_end) {
                    Closer::Wait => return,
                    Closer::Tag(len) => {
                        self.held.drain(..len);
                        continue;
                    }
                    Closer::None => self.after_call = false,
                }
            }
            match self.block {
                None => {
                    let (ready, opener) = self.markdown.scan(&self.held, at_end, true);
                    let text: String = self.held.drain(..ready).collect();
                    self.show(&text, out);
                    match opener {
                        Some(tags) => self.block = Some(tags),
                        None => return,
                    }
                }
                Some((open, close)) => {
                    let (end, cut_off) = match self.held.find(close) {
                        Some(e) => (e + close.len(), false),
                        None if at_end => (self.held.len(), true),
                        None => return,
                    };
                    self.block = None;
                    let calls = self.parse_block(&self.held[..end], open, close, cut_off);
                    if calls.is_empty() {
                        // Prose that mentions a tag: the tag is text, and what follows is read
                        // again (it may open code, or a real call).
                        let tag: String = self.held.drain(..open.len()).collect();
                        self.markdown.scan(&tag, true, false);
                        self.show(&tag, out);
                    } else {
                        self.held.drain(..end);
                        self.markdown.after_call();
                        self.calls.extend(calls);
                        self.after_call = true;
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
        self.advance(out, true);
    }

    /// The calls in one block (a wrapper may hold several).
    fn parse_block(&self, block: &str, open: &str, close: &str, cut_off: bool) -> Vec<Item> {
        let found = raw_calls(block, open, close);
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

/// What follows a recovered call.
#[derive(Debug, PartialEq, Eq)]
enum Closer {
    /// Not decided yet: only whitespace, or a possible closing tag cut off, so far.
    Wait,
    /// Whitespace then a closing wrapper tag, this many bytes: the call's markup.
    Tag(usize),
    /// Anything else: text.
    None,
}

/// Wrapper names whose closing tag, right after a call, is that call's markup (also when the
/// model left out the opening tag): Qwen/Hermes `tool_call`, the Anthropic-style
/// `function_calls`, and their plural/singular variants.
const WRAPPERS: &[&str] = &["tool_call", "tool_calls", "function_calls", "function_call"];

/// Longest closing tag looked for, in bytes (a namespace prefix included).
const MAX_CLOSER: usize = 64;

/// Whether `text` (what follows a recovered call) starts with whitespace and a closing
/// wrapper tag: `</tool_call>`, `</function_calls>`, or a vendor-namespaced one such as
/// `</minimax:tool_call>` (the name after the last `:` counts).
fn closing_wrapper(text: &str, at_end: bool) -> Closer {
    let rest = text.trim_start();
    let ws = text.len() - rest.len();
    if rest.is_empty() {
        return if at_end { Closer::None } else { Closer::Wait };
    }
    let Some(tag) = rest.strip_prefix("</") else {
        return if "</".starts_with(rest) && !at_end {
            Closer::Wait
        } else {
            Closer::None
        };
    };
    let Some(gt) = tag.find('>') else {
        let plausible = tag.len() < MAX_CLOSER
            && tag
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '-'));
        return if plausible && !at_end {
            Closer::Wait
        } else {
            Closer::None
        };
    };
    let name = tag[..gt].trim_end();
    let local = name.rsplit(':').next().unwrap_or(name);
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '-'));
    if valid && WRAPPERS.contains(&local) {
        Closer::Tag(ws + 2 + gt + 1)
    } else {
        Closer::None
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
                self.advance(out, false);
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

/// What kind of text the scanner is in.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Code {
    /// Prose: call markup here counts.
    #[default]
    Prose,
    /// An inline code span opened by this many backticks.
    Span(usize),
    /// A fenced block opened by `len` of `mark` (a backtick or a tilde).
    Fence { mark: u8, len: usize },
}

/// Where the scanner is in the current line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Line {
    /// Only whitespace and `>` so far: a fence may open or close here.
    #[default]
    Start,
    /// After a list marker and whitespace: a fence may open here.
    List,
    /// Just after a list marker (`-`, `*`, `+`, `1.`, `1)`), which needs whitespace next.
    Marker,
    /// In the digits of a possible ordered-list marker.
    Digits,
    /// Anywhere else.
    Mid,
}

/// The Markdown state of the text outside call blocks, kept across deltas (see the module
/// docs for the rules and why they lean towards code).
#[derive(Debug, Default)]
struct Markdown {
    code: Code,
    line: Line,
    /// The current line is blank so far (a blank line ends a paragraph, and an unclosed span).
    blank: bool,
    /// A fence opened on this line: a backtick in its info string makes it inline code.
    info: bool,
    /// This line is a closing fence if only whitespace follows.
    closing: bool,
}

impl Markdown {
    /// Reads `text` from its start as far as it can be decided: returns how many bytes are
    /// decided text, and (with `detect`) the call opener found in prose right after them, as
    /// (opening tag, closing tag). Unless `at_end`, a possible opener fragment or a run of
    /// backticks or tildes that reaches the end of `text` is left undecided.
    fn scan(
        &mut self,
        text: &str,
        at_end: bool,
        detect: bool,
    ) -> (usize, Option<(&'static str, &'static str)>) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            if b == b'<' && detect && self.code == Code::Prose {
                let rest = &text[i..];
                if let Some(&tags) = OPENERS.iter().find(|(open, _)| rest.starts_with(open)) {
                    return (i, Some(tags));
                }
                if !at_end
                    && OPENERS
                        .iter()
                        .any(|(open, _)| open.len() > rest.len() && open.starts_with(rest))
                {
                    return (i, None);
                }
            }
            if b == b'`' || b == b'~' {
                let n = bytes[i..].iter().take_while(|&&c| c == b).count();
                if i + n == bytes.len() && !at_end {
                    return (i, None);
                }
                self.run(b, n);
                i += n;
                continue;
            }
            self.byte(b);
            i += 1;
        }
        (bytes.len(), None)
    }

    /// A whole run of `n` backticks or tildes (`mark`).
    fn run(&mut self, mark: u8, n: usize) {
        let line = self.line;
        self.line = Line::Mid;
        self.blank = false;
        self.closing = false;
        let info = std::mem::take(&mut self.info);
        match self.code {
            Code::Fence { mark: m, len } => {
                if info && mark == b'`' && m == b'`' {
                    // CommonMark: a backtick fence's info string has no backticks, so this was
                    // a code span opened by the run that looked like a fence.
                    self.code = if n == len {
                        Code::Prose
                    } else {
                        Code::Span(len)
                    };
                } else if line == Line::Start && mark == m && n >= len {
                    self.closing = true;
                } else {
                    // Anything after a closing run cancels it (already taken); an info string
                    // goes on.
                    self.info = info;
                }
            }
            _ if n >= 3 && matches!(line, Line::Start | Line::List) => {
                self.code = Code::Fence { mark, len: n };
                self.info = mark == b'`';
            }
            Code::Prose if mark == b'`' => self.code = Code::Span(n),
            Code::Span(k) if mark == b'`' && n == k => self.code = Code::Prose,
            _ => {}
        }
    }

    /// Any byte but a backtick or a tilde.
    fn byte(&mut self, b: u8) {
        match b {
            b'\n' => {
                if self.closing || (self.blank && matches!(self.code, Code::Span(_))) {
                    self.code = Code::Prose;
                }
                self.closing = false;
                self.info = false;
                self.line = Line::Start;
                self.blank = true;
            }
            b' ' | b'\t' | b'\r' => {
                self.line = match self.line {
                    Line::Marker => Line::List,
                    Line::Digits => Line::Mid,
                    other => other,
                };
            }
            _ => {
                self.blank = false;
                self.closing = false;
                self.line = match (self.line, b) {
                    (Line::Start, b'>') => Line::Start,
                    (Line::Start | Line::List, b'-' | b'*' | b'+') => Line::Marker,
                    (Line::Start | Line::List | Line::Digits, b'0'..=b'9') => Line::Digits,
                    (Line::Digits, b'.' | b')') => Line::Marker,
                    _ => Line::Mid,
                };
            }
        }
    }

    /// A recovered call's markup was removed: what follows continues its line, in prose.
    fn after_call(&mut self) {
        self.line = Line::Mid;
        self.blank = false;
        self.info = false;
        self.closing = false;
    }
}

/// The calls a block holds, as written; none when anything but whitespace stands between its
/// tags (then it is prose that mentions them, see the module docs). `open`/`close`: the tags
/// the block was found by; a block cut off by the end of the reply lacks `close`.
fn raw_calls(block: &str, open: &str, close: &str) -> Vec<RawCall> {
    let wrapped = open == "<tool_call>" || open == "<function_calls>";
    let mut rest = if wrapped {
        let inner = &block[open.len()..];
        inner.strip_suffix(close).unwrap_or(inner)
    } else {
        block
    };
    if open == "<tool_call>" && !rest.trim_start().starts_with('<') {
        return hermes_call(block).into_iter().collect();
    }
    let mut found = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return found;
        }
        let invoke =
            rest.starts_with("<invoke") && rest["<invoke".len()..].starts_with(char::is_whitespace);
        let (parsed, used) = if rest.starts_with("<function=") {
            qwen_call(rest)
        } else if invoke {
            invoke_call(rest)
        } else {
            return Vec::new();
        };
        let Some(call) = parsed else {
            return Vec::new();
        };
        found.push(call);
        rest = &rest[used..];
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
    let cut_off = body_end == text.len();
    while let Some(i) = body[pos..].find("<parameter=") {
        if !body[pos..pos + i].trim().is_empty() {
            return (None, consumed);
        }
        let at = pos + i + "<parameter=".len();
        let Some(gt) = body[at..].find('>') else {
            // A parameter tag cut off by the end of the reply: the values before it count.
            if cut_off {
                pos = body.len();
            }
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
    if !body[pos..].trim().is_empty() {
        return (None, consumed);
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
    let cut_off = body_end == text.len();
    while let Some(i) = body[pos..].find("<parameter") {
        if !body[pos..pos + i].trim().is_empty() {
            return (None, consumed);
        }
        let at = pos + i + "<parameter".len();
        let Some(gt) = body[at..].find('>') else {
            if cut_off {
                pos = body.len();
            }
            break;
        };
        let Some(key) = attribute(&body[at..at + gt], "name") else {
            return (None, consumed);
        };
        let value_start = at + gt + 1;
        let (value_end, next) = match body[value_start..].find("</parameter>") {
            Some(e) => (value_start + e, value_start + e + "</parameter>".len()),
            None => (body.len(), body.len()),
        };
        args.insert(key, Value::String(body[value_start..value_end].to_string()));
        pos = next;
    }
    if !body[pos..].trim().is_empty() {
        return (None, consumed);
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

/// Deepest `anyOf`/`oneOf` nesting [`typed_value`] follows; deeper alternatives do not
/// convert (the text stays as the model wrote it, which the tool's validation then reports).
const MAX_SCHEMA_DEPTH: usize = 32;

/// `text` as a value of the type `schema` describes, if it converts.
pub(crate) fn typed_value(text: &str, schema: &Value) -> Option<Value> {
    typed_value_at(text, schema, 0)
}

fn typed_value_at(text: &str, schema: &Value, depth: usize) -> Option<Value> {
    for alt in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = schema.get(alt) {
            // A string alternative keeps text as is; otherwise the first that converts wins.
            if options
                .iter()
                .any(|o| o.get("type").and_then(Value::as_str) == Some("string"))
            {
                return Some(Value::String(text.to_string()));
            }
            if depth >= MAX_SCHEMA_DEPTH {
                return None;
            }
            return options
                .iter()
                .find_map(|o| typed_value_at(text, o, depth + 1));
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

    fn nested_any_of(depth: usize) -> Value {
        let mut schema = serde_json::json!({"type": "integer"});
        for _ in 0..depth {
            schema = serde_json::json!({"anyOf": [schema]});
        }
        schema
    }

    #[test]
    fn schema_alternatives_are_followed_to_a_bounded_depth() {
        assert_eq!(typed_value("5", &nested_any_of(3)), Some(Value::from(5)));
        // Past the bound the value stays text (the tool's validation reports it).
        assert_eq!(typed_value("5", &nested_any_of(200)), None);
    }
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

    /// Decided bytes and the opener found, scanning `text` fresh as one delta.
    fn scan(text: &str) -> (usize, Option<&'static str>) {
        let (n, tags) = Markdown::default().scan(text, false, true);
        (n, tags.map(|(open, _)| open))
    }

    #[test]
    fn fragments_are_held_only_when_they_could_open_a_call() {
        assert_eq!(scan("see <fun"), (4, None));
        assert_eq!(scan("a < b"), (5, None));
        assert_eq!(scan("x <"), (2, None));
        assert_eq!(scan("<div"), (4, None));
        assert_eq!(scan("<invoke"), (0, None));
        assert_eq!(scan("run `x` then ``"), (13, None));
        assert_eq!(scan("a\n~~"), (2, None));
    }

    #[test]
    fn openers_count_only_in_prose() {
        assert_eq!(scan("ok <function=a>"), (3, Some("<function=")));
        assert_eq!(scan("`<function=a>`").1, None);
        assert_eq!(scan("```\n<function=a>").1, None);
        assert_eq!(scan("  - ~~~~ sh\n<tool_call>").1, None);
        assert_eq!(scan("```\nx\n```\n<tool_call>"), (10, Some("<tool_call>")));
        // Not a closing fence: text follows the run, or it is shorter.
        assert_eq!(scan("````\n``` x\n```\n<tool_call>").1, None);
        // A backtick in the info string: inline code, closed on the same line.
        assert_eq!(scan("```a``` <invoke ").1, Some("<invoke "));
        // An unclosed span ends with its paragraph.
        assert_eq!(scan("a ` b <tool_call>").1, None);
        assert_eq!(scan("a ` b\n\n<tool_call>").1, Some("<tool_call>"));
    }
}
