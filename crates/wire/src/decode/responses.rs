//! OpenAI Responses stream decoding: SSE of typed `response.*` events → events.
//!
//! Events read (OpenAI Responses API reference, "Streaming events"):
//! - lifecycle: `response.created`, `response.in_progress`, `response.queued` (response `id`
//!   and `model`); terminal: `response.completed`, `response.incomplete`, `response.failed`,
//!   and the top-level `error` event;
//! - items: `response.output_item.added` / `.done` (`item` with `type` `message`,
//!   `reasoning`, `function_call`, `custom_tool_call`; other item types, such as hosted
//!   tools' `web_search_call`, are ignored);
//! - text: `response.output_text.delta` / `.done`, `response.refusal.delta` / `.done` (a
//!   refusal is shown as text, as on Chat);
//! - calls: `response.function_call_arguments.delta` / `.done`,
//!   `response.custom_tool_call_input.delta` / `.done`;
//! - reasoning: `response.reasoning_summary_part.added`, `response.reasoning_summary_text.delta`
//!   / `.done` (→ [`StreamEvent::ReasoningDelta`] with `summary: true`),
//!   `response.reasoning_text.delta` / `.done` (raw chain of thought: DeepSeek, LM Studio,
//!   OpenRouter, llama.cpp; `summary: false`);
//! - everything else (`response.content_part.*`, annotations, hosted-tool progress) is ignored.
//!
//! **Dispatch.** On the JSON `type`, never on the SSE `event:` name (OpenRouter and LiteLLM
//! send data-only frames; the name is used only when the JSON has no `type`). A `data: [DONE]`
//! (OpenRouter) is framing. Items are found by `item_id`, else `output_index`, else as the
//! last item of the kind the event implies, so servers that omit `output_index` and
//! `sequence_number` (llama.cpp) decode the same.
//!
//! **Done without deltas.** A `.done` event (or `output_item.done`) carries the final value.
//! Whatever part of it was not streamed as deltas is emitted as one delta, so a server that
//! sends `function_call_arguments.done` with no `.delta` before it (LM Studio) or no `.done` at
//! all (llama.cpp) still shows everything and yields the same item. A final value that
//! disagrees with the deltas wins.
//!
//! **Completion and truncation.** The response is complete only at a terminal event:
//! `response.completed` (stop reason `end_turn`, or `tool_calls` when a call is emitted),
//! `response.incomplete` (`incomplete_details.reason`: `max_output_tokens` → `max_tokens`,
//! `content_filter` → `content_filter`; a call that did not finish — no `output_item.done`, or
//! item `status: "incomplete"`, or arguments that are not complete JSON — is dropped),
//! `response.failed` (its `response.error` classified: `context_length_exceeded` → that kind,
//! never retryable; `server_error` → retryable `server_error`; …) or `error`. The body ending
//! (or `[DONE]`) before any of them is `stream_truncated`. Like the other wires, **no
//! `ItemDone` is emitted before the terminal event**: a failed or truncated response yields
//! only display deltas, never a runnable call.
//!
//! **Emission.** `Created` on the first event; deltas as they arrive (`ToolCallStarted` once a
//! call's name is known, then `ToolCallDelta`s); at completion one `ItemDone` per item in
//! `output_index` order (arrival order when the server gives no index) — reasoning
//! ([`ReasoningItem`] with `text`, `summary` parts and `encrypted_content`), assistant
//! message, function call ([`Item::FunctionCall`], with `namespace` when the item has one or
//! the tool kinds say so) or custom call ([`Item::CustomToolCall`]); `Usage`
//! (`input_tokens`, `output_tokens`, `input_tokens_details.cached_tokens`,
//! `output_tokens_details.reasoning_tokens`); `Completed`.
//!
//! **Ids.** Item ids are the provider's (`msg_…`, `rs_…`, `fc_…`), or `<response id>-o<N>`.
//! A call's `call_id` is the item's `call_id` (`call_…`, what tool outputs refer to), not its
//! item id (`fc_…`); the item id is used only when a server sends no `call_id`. Duplicates get
//! `_2`, `_3`, ….

use tack_protocol::{
    CustomToolCallItem, ErrorKind, Item, ModelError, ReasoningItem, ReasoningOrigin, Role,
    StopReason, StreamEvent, Usage, Wire,
};

use super::StreamDecoder;
use super::calls::{DecodedCall, call_item, is_complete_json, unique_call_id};
use super::chat_schema::{Content, Count};
use super::responses_schema::{Event, OutputItem, Reply, ResponseObject, ResponsesUsage};
use crate::errors::{classify_stream_error, classify_stream_error_bytes};
use crate::sse::{Frame, SseFramer, SseLimits};
use crate::tool_kinds::ToolKinds;

type Out = Vec<Result<StreamEvent, ModelError>>;

/// Fallback response id when the server sends none.
const NO_RESPONSE_ID: &str = "resp";

/// Incremental Responses stream decoder (see the module docs for the rules).
pub struct ResponsesDecoder {
    framer: SseFramer,
    state: ResponsesState,
}

impl ResponsesDecoder {
    /// A decoder for one response. `tool_kinds` come from shaping; `origin` is stamped on
    /// reasoning items, with `model` replaced by the model the server reports.
    pub fn new(tool_kinds: ToolKinds, origin: ReasoningOrigin) -> Self {
        ResponsesDecoder {
            framer: SseFramer::with_limits(SseLimits::for_wire(Wire::Responses)),
            state: ResponsesState::new(tool_kinds, origin),
        }
    }

    /// Replaces the size caps (default: [`SseLimits::for_wire`]).
    pub fn with_limits(mut self, limits: SseLimits) -> Self {
        self.framer = SseFramer::with_limits(limits);
        self
    }
}

impl StreamDecoder for ResponsesDecoder {
    fn push(&mut self, bytes: &[u8], out: &mut Out) {
        if self.state.done {
            return;
        }
        let state = &mut self.state;
        self.framer
            .push(bytes, &mut |frame| state.frame(frame, out));
        if let Some(oversize) = self.framer.oversize() {
            state.fail(super::oversize_error(Wire::Responses, oversize), out);
        }
    }

    fn finish(&mut self, out: &mut Out) {
        if self.state.done {
            return;
        }
        let state = &mut self.state;
        self.framer.finish(&mut |frame| state.frame(frame, out));
        state.truncated(false, out);
    }
}

/// Decodes a whole non-streaming Responses reply (a Response object, `stream: false`) into
/// the events a stream of it would give: `output` items in order (their texts as single
/// deltas), then the terminal event its `status` names (`completed`, `incomplete`, `failed`;
/// a missing status counts as `completed`). An error reply `{"error": {…}}` becomes the error.
pub fn decode_reply(body: &[u8], tool_kinds: ToolKinds, origin: ReasoningOrigin) -> Out {
    let mut out = Vec::new();
    let mut state = ResponsesState::new(tool_kinds, origin);
    let reply = match serde_json::from_slice::<Reply<'_>>(body) {
        Ok(reply) => reply,
        Err(e) => {
            out.push(Err(format_error(&e)));
            return out;
        }
    };
    let Reply {
        id,
        model,
        status,
        usage,
        error,
        incomplete_details,
        output,
    } = reply;
    let response = ResponseObject {
        id,
        model,
        usage,
        error,
        incomplete_details,
    };
    let is_error_reply = response.id.non_empty().is_none() && response.error.is_some();
    if !is_error_reply {
        state.created(Some(&response), &mut out);
        for (index, item) in output.into_iter().enumerate() {
            let index = u32::try_from(index).ok().map(Count);
            state.item_done(index, &item, &mut out);
        }
    }
    match status.non_empty() {
        _ if is_error_reply => state.failed(Some(&response), &mut out),
        Some("failed") | Some("cancelled") => state.failed(Some(&response), &mut out),
        Some("incomplete") => state.complete(Terminal::Incomplete, Some(&response), &mut out),
        _ => state.complete(Terminal::Completed, Some(&response), &mut out),
    }
    out
}

/// What an output item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Message,
    Reasoning,
    FunctionCall,
    CustomToolCall,
    /// Hosted tools and anything new: ignored.
    Other,
}

impl Kind {
    fn parse(kind: Option<&str>) -> Kind {
        match kind {
            Some("message") => Kind::Message,
            Some("reasoning") => Kind::Reasoning,
            Some("function_call") => Kind::FunctionCall,
            Some("custom_tool_call") => Kind::CustomToolCall,
            _ => Kind::Other,
        }
    }

    fn is_call(self) -> bool {
        matches!(self, Kind::FunctionCall | Kind::CustomToolCall)
    }
}

/// One output item being assembled.
struct Output {
    /// `output_index`, when the server sends it.
    output_index: Option<u32>,
    /// The provider's item id.
    id: Option<String>,
    kind: Kind,
    /// `call_id` as the server sent it.
    provider_call_id: Option<String>,
    /// The id Tack uses, fixed when `ToolCallStarted` is emitted.
    call_id: Option<String>,
    name: String,
    namespace: Option<String>,
    /// Message text parts by `content_index`.
    text: Vec<String>,
    /// Call arguments (function) or input (custom).
    arguments: String,
    /// Reasoning text parts by `content_index`.
    reasoning: Vec<String>,
    /// Reasoning summary parts by `summary_index`.
    summary: Vec<String>,
    encrypted_content: Option<String>,
    /// `output_item.done` arrived.
    done: bool,
    /// The item's `status` is `incomplete`.
    incomplete: bool,
}

impl Output {
    fn new(kind: Kind, output_index: Option<u32>, id: Option<&str>) -> Self {
        Output {
            output_index,
            id: id.map(str::to_string),
            kind,
            provider_call_id: None,
            call_id: None,
            name: String::new(),
            namespace: None,
            text: Vec::new(),
            arguments: String::new(),
            reasoning: Vec::new(),
            summary: Vec::new(),
            encrypted_content: None,
            done: false,
            incomplete: false,
        }
    }
}

/// How the response ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Terminal {
    Completed,
    /// `response.incomplete`; the reason decides the stop reason.
    Incomplete,
}

/// Parts are addressed by the server's index; an index far past the end (a broken or hostile
/// stream) appends instead of allocating the gap.
fn part(parts: &mut Vec<String>, index: Option<Count>) -> &mut String {
    let i = index.map_or(0, |c| c.0 as usize).min(parts.len());
    if i == parts.len() {
        parts.push(String::new());
    }
    &mut parts[i]
}

/// Adopts the final `value` a done event reports for `buf`: the part not yet streamed is
/// returned (to be shown as one delta), and a value that disagrees with the deltas replaces
/// them.
fn settle(buf: &mut String, value: &str) -> Option<String> {
    if value.is_empty() || value == buf.as_str() {
        return None;
    }
    match value.strip_prefix(buf.as_str()) {
        Some(rest) => {
            let rest = rest.to_string();
            buf.push_str(&rest);
            Some(rest)
        }
        None => {
            *buf = value.to_string();
            None
        }
    }
}

struct ResponsesState {
    tool_kinds: ToolKinds,
    origin: ReasoningOrigin,
    created: bool,
    done: bool,
    response_id: Option<String>,
    model: Option<String>,
    outputs: Vec<Output>,
    usage: Option<Usage>,
}

impl ResponsesState {
    fn new(tool_kinds: ToolKinds, origin: ReasoningOrigin) -> Self {
        ResponsesState {
            tool_kinds,
            origin,
            created: false,
            done: false,
            response_id: None,
            model: None,
            outputs: Vec::new(),
            usage: None,
        }
    }

    fn frame(&mut self, frame: Frame<'_>, out: &mut Out) {
        if self.done {
            return;
        }
        let data = frame.data.trim_ascii();
        if data.is_empty() {
            return;
        }
        if data == b"[DONE]" {
            self.truncated(true, out);
            return;
        }
        // Validating the frame's UTF-8 once is cheaper than serde_json checking every string;
        // invalid UTF-8 is replaced (and logged) so that one bad byte does not end the answer.
        let mut lossy = String::new();
        let text = super::utf8_or_replaced(data, &mut lossy, Wire::Responses);
        let parsed = serde_json::from_str::<Event<'_>>(text);
        let event = match parsed {
            Ok(event) => event,
            Err(_) if frame.at_eof => {
                self.fail(
                    ModelError::new(
                        ErrorKind::StreamTruncated,
                        "the body ended in the middle of an event",
                    ),
                    out,
                );
                return;
            }
            Err(_) if frame.event == b"error" => {
                self.fail(classify_stream_error_bytes(data), out);
                return;
            }
            Err(e) => {
                self.fail(format_error(&e), out);
                return;
            }
        };
        let name = std::str::from_utf8(frame.event).unwrap_or("");
        self.event(name, event, data, out);
    }

    /// Handles one event; `name` is the SSE event name, used when the JSON has no `type`.
    fn event(&mut self, name: &str, mut event: Event<'_>, data: &[u8], out: &mut Out) {
        let kind_field = std::mem::take(&mut event.kind);
        let kind = kind_field.non_empty().unwrap_or(name);
        if kind == "error" {
            self.fail(classify_stream_error_bytes(data), out);
            return;
        }
        self.created(event.response.as_deref(), out);
        let Event {
            output_index,
            content_index,
            summary_index,
            item_id,
            delta,
            text,
            refusal,
            arguments,
            input,
            item,
            response,
            ..
        } = event;
        let item_id = item_id.non_empty();
        let delta = delta.non_empty();
        match kind {
            "response.output_item.added" => {
                if let Some(item) = item {
                    self.item_added(output_index, &item, out);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = item {
                    self.item_done(output_index, &item, out);
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                if let Some(delta) = delta {
                    let at = self.slot(output_index, item_id, Kind::Message);
                    part(&mut self.outputs[at].text, content_index).push_str(delta);
                    out.push(Ok(StreamEvent::TextDelta {
                        text: delta.to_string(),
                    }));
                }
            }
            "response.output_text.done" | "response.refusal.done" => {
                let value = text.non_empty().or(refusal.non_empty()).unwrap_or("");
                let at = self.slot(output_index, item_id, Kind::Message);
                let buf = part(&mut self.outputs[at].text, content_index);
                if let Some(rest) = settle(buf, value) {
                    out.push(Ok(StreamEvent::TextDelta { text: rest }));
                }
            }
            "response.function_call_arguments.delta" | "response.custom_tool_call_input.delta" => {
                if let Some(delta) = delta {
                    let hint = if kind.starts_with("response.custom") {
                        Kind::CustomToolCall
                    } else {
                        Kind::FunctionCall
                    };
                    let at = self.slot(output_index, item_id, hint);
                    let o = &mut self.outputs[at];
                    o.arguments.push_str(delta);
                    if let Some(call_id) = &o.call_id {
                        out.push(Ok(StreamEvent::ToolCallDelta {
                            call_id: call_id.clone(),
                            delta: delta.to_string(),
                        }));
                    }
                }
            }
            "response.function_call_arguments.done" => {
                let at = self.slot(output_index, item_id, Kind::FunctionCall);
                self.settle_arguments(at, arguments.0.as_deref().unwrap_or(""), out);
            }
            "response.custom_tool_call_input.done" => {
                let at = self.slot(output_index, item_id, Kind::CustomToolCall);
                self.settle_arguments(at, input.non_empty().unwrap_or(""), out);
            }
            "response.reasoning_summary_part.added" => {
                let at = self.slot(output_index, item_id, Kind::Reasoning);
                part(&mut self.outputs[at].summary, summary_index);
            }
            "response.reasoning_summary_text.delta" => {
                if let Some(delta) = delta {
                    let at = self.slot(output_index, item_id, Kind::Reasoning);
                    part(&mut self.outputs[at].summary, summary_index).push_str(delta);
                    out.push(Ok(StreamEvent::ReasoningDelta {
                        text: delta.to_string(),
                        summary: true,
                    }));
                }
            }
            "response.reasoning_summary_text.done" => {
                let at = self.slot(output_index, item_id, Kind::Reasoning);
                let buf = part(&mut self.outputs[at].summary, summary_index);
                if let Some(rest) = settle(buf, text.non_empty().unwrap_or("")) {
                    out.push(Ok(StreamEvent::ReasoningDelta {
                        text: rest,
                        summary: true,
                    }));
                }
            }
            "response.reasoning_text.delta" => {
                if let Some(delta) = delta {
                    let at = self.slot(output_index, item_id, Kind::Reasoning);
                    part(&mut self.outputs[at].reasoning, content_index).push_str(delta);
                    out.push(Ok(StreamEvent::ReasoningDelta {
                        text: delta.to_string(),
                        summary: false,
                    }));
                }
            }
            "response.reasoning_text.done" => {
                let at = self.slot(output_index, item_id, Kind::Reasoning);
                let buf = part(&mut self.outputs[at].reasoning, content_index);
                if let Some(rest) = settle(buf, text.non_empty().unwrap_or("")) {
                    out.push(Ok(StreamEvent::ReasoningDelta {
                        text: rest,
                        summary: false,
                    }));
                }
            }
            "response.completed" => self.complete(Terminal::Completed, response.as_deref(), out),
            "response.incomplete" => self.complete(Terminal::Incomplete, response.as_deref(), out),
            "response.failed" | "response.cancelled" => self.failed(response.as_deref(), out),
            _ => {}
        }
    }

    /// `Created`, once, with what the first event tells about the response; later lifecycle
    /// events fill in an id or model still missing.
    fn created(&mut self, response: Option<&ResponseObject<'_>>, out: &mut Out) {
        if let Some(response) = response {
            if self.response_id.is_none() {
                self.response_id = response.id.non_empty().map(str::to_string);
            }
            if self.model.is_none() {
                self.model = response.model.non_empty().map(str::to_string);
            }
        }
        if !self.created {
            self.created = true;
            out.push(Ok(StreamEvent::Created {
                response_id: self.response_id.clone(),
                model: self.model.clone(),
            }));
        }
    }

    /// The output an event refers to: by `item_id`, else `output_index`, else (neither given)
    /// the last one of the kind the event implies; created with that kind when the server
    /// never announced it.
    fn slot(&mut self, output_index: Option<Count>, item_id: Option<&str>, hint: Kind) -> usize {
        let index = output_index.map(|c| c.0);
        let found = item_id
            .and_then(|id| {
                self.outputs
                    .iter()
                    .rposition(|o| o.id.as_deref() == Some(id))
            })
            .or_else(|| {
                index.and_then(|i| self.outputs.iter().rposition(|o| o.output_index == Some(i)))
            })
            .or_else(|| match (index, item_id) {
                (None, None) => self.outputs.iter().rposition(|o| o.kind == hint),
                _ => None,
            });
        match found {
            Some(at) => at,
            None => {
                self.outputs.push(Output::new(hint, index, item_id));
                self.outputs.len() - 1
            }
        }
    }

    /// Copies what an `output_item.added/done` item says onto its output; the final item
    /// (`done`) replaces the encrypted reasoning, which may only be complete there.
    fn absorb(&mut self, output_index: Option<Count>, item: &OutputItem<'_>, done: bool) -> usize {
        let kind = Kind::parse(item.kind.non_empty());
        let at = self.slot(output_index, item.id.non_empty(), kind);
        let o = &mut self.outputs[at];
        if o.kind == Kind::Other || kind != Kind::Other {
            o.kind = kind;
        }
        if o.output_index.is_none() {
            o.output_index = output_index.map(|c| c.0);
        }
        if o.id.is_none() {
            o.id = item.id.non_empty().map(str::to_string);
        }
        if o.provider_call_id.is_none() {
            o.provider_call_id = item.call_id.non_empty().map(str::to_string);
        }
        if o.name.is_empty()
            && let Some(name) = item.name.non_empty()
        {
            o.name = name.to_string();
        }
        if o.namespace.is_none() {
            o.namespace = item.namespace.non_empty().map(str::to_string);
        }
        if let Some(encrypted) = item.encrypted_content.non_empty()
            && (done || o.encrypted_content.is_none())
        {
            o.encrypted_content = Some(encrypted.to_string());
        }
        o.incomplete = item.status.non_empty() == Some("incomplete");
        at
    }

    fn item_added(&mut self, output_index: Option<Count>, item: &OutputItem<'_>, out: &mut Out) {
        let at = self.absorb(output_index, item, false);
        if self.outputs[at].kind.is_call() {
            self.start_call(at, out);
            let initial = match self.outputs[at].kind {
                Kind::CustomToolCall => item.input.non_empty().unwrap_or(""),
                _ => item.arguments.0.as_deref().unwrap_or(""),
            };
            self.settle_arguments(at, initial, out);
        }
    }

    fn item_done(&mut self, output_index: Option<Count>, item: &OutputItem<'_>, out: &mut Out) {
        let at = self.absorb(output_index, item, true);
        match self.outputs[at].kind {
            Kind::Message => {
                for (i, text) in texts(&item.content).into_iter().enumerate() {
                    let index = u32::try_from(i).ok().map(Count);
                    let buf = part(&mut self.outputs[at].text, index);
                    if let Some(rest) = settle(buf, text) {
                        out.push(Ok(StreamEvent::TextDelta { text: rest }));
                    }
                }
            }
            Kind::Reasoning => {
                for (i, text) in texts(&item.summary).into_iter().enumerate() {
                    let index = u32::try_from(i).ok().map(Count);
                    let buf = part(&mut self.outputs[at].summary, index);
                    if let Some(rest) = settle(buf, text) {
                        out.push(Ok(StreamEvent::ReasoningDelta {
                            text: rest,
                            summary: true,
                        }));
                    }
                }
                for (i, text) in texts(&item.content).into_iter().enumerate() {
                    let index = u32::try_from(i).ok().map(Count);
                    let buf = part(&mut self.outputs[at].reasoning, index);
                    if let Some(rest) = settle(buf, text) {
                        out.push(Ok(StreamEvent::ReasoningDelta {
                            text: rest,
                            summary: false,
                        }));
                    }
                }
            }
            Kind::FunctionCall => {
                self.start_call(at, out);
                self.settle_arguments(at, item.arguments.0.as_deref().unwrap_or(""), out);
            }
            Kind::CustomToolCall => {
                self.start_call(at, out);
                self.settle_arguments(at, item.input.non_empty().unwrap_or(""), out);
            }
            Kind::Other => {}
        }
        self.outputs[at].done = true;
    }

    /// Emits `ToolCallStarted` (and the arguments buffered so far) once the call's name is
    /// known, fixing its call id.
    fn start_call(&mut self, at: usize, out: &mut Out) {
        let o = &self.outputs[at];
        if !o.kind.is_call() || o.call_id.is_some() || o.name.is_empty() {
            return;
        }
        let base = o
            .provider_call_id
            .clone()
            .or_else(|| o.id.clone())
            .unwrap_or_else(|| format!("call_{}_{at}", self.response_id_or_default()));
        let taken: Vec<String> = self
            .outputs
            .iter()
            .filter_map(|o| o.call_id.clone())
            .collect();
        let call_id = unique_call_id(base, &taken);
        let o = &mut self.outputs[at];
        o.call_id = Some(call_id.clone());
        out.push(Ok(StreamEvent::ToolCallStarted {
            call_id: call_id.clone(),
            name: o.name.clone(),
        }));
        if !o.arguments.is_empty() {
            out.push(Ok(StreamEvent::ToolCallDelta {
                call_id,
                delta: o.arguments.clone(),
            }));
        }
    }

    fn settle_arguments(&mut self, at: usize, value: &str, out: &mut Out) {
        let o = &mut self.outputs[at];
        if let Some(rest) = settle(&mut o.arguments, value)
            && let Some(call_id) = &o.call_id
        {
            out.push(Ok(StreamEvent::ToolCallDelta {
                call_id: call_id.clone(),
                delta: rest,
            }));
        }
    }

    fn response_id_or_default(&self) -> &str {
        self.response_id.as_deref().unwrap_or(NO_RESPONSE_ID)
    }

    fn take_usage(&mut self, response: Option<&ResponseObject<'_>>) {
        if let Some(usage) = response.and_then(|r| r.usage.as_ref()) {
            self.usage = Some(map_usage(usage));
        }
    }

    fn fail(&mut self, error: ModelError, out: &mut Out) {
        self.done = true;
        out.push(Err(error));
    }

    /// The body (or `[DONE]`) ended the stream; only a terminal event completes a response.
    fn truncated(&mut self, saw_done: bool, out: &mut Out) {
        if self.done {
            return;
        }
        let message = match (self.created, saw_done) {
            (false, false) => "the body ended before any event arrived",
            (false, true) => "the stream ended ([DONE]) before any event arrived",
            (true, true) => {
                "the stream ended ([DONE]) before response.completed, response.incomplete or response.failed"
            }
            (true, false) => {
                "the body ended before response.completed, response.incomplete or response.failed"
            }
        };
        self.fail(ModelError::new(ErrorKind::StreamTruncated, message), out);
    }

    /// `response.failed`: the response's `error` (usage first, when reported).
    fn failed(&mut self, response: Option<&ResponseObject<'_>>, out: &mut Out) {
        self.take_usage(response);
        if let Some(usage) = self.usage.take() {
            out.push(Ok(StreamEvent::Usage { usage }));
        }
        let error = match response
            .and_then(|r| r.error.as_ref())
            .filter(|e| !e.is_null())
        {
            Some(error) => classify_stream_error(error),
            None => ModelError::new(
                ErrorKind::ProviderError,
                "the response failed without an error object",
            ),
        };
        self.fail(error, out);
    }

    /// A terminal `response.completed` / `response.incomplete`: items, usage, `Completed`.
    fn complete(
        &mut self,
        terminal: Terminal,
        response: Option<&ResponseObject<'_>>,
        out: &mut Out,
    ) {
        if let Some(r) = response {
            if let Some(id) = r.id.non_empty() {
                self.response_id = Some(id.to_string());
            }
            if self.model.is_none() {
                self.model = r.model.non_empty().map(str::to_string);
            }
        }
        self.take_usage(response);
        let reason = response
            .and_then(|r| r.incomplete_details.as_ref())
            .and_then(|d| d.reason.non_empty())
            .map(str::to_string);
        let mut outputs = std::mem::take(&mut self.outputs);
        // Stable: outputs without an index keep their arrival order.
        outputs.sort_by_key(|o| o.output_index.unwrap_or(u32::MAX));
        let mut items = Vec::with_capacity(outputs.len());
        let mut had_calls = false;
        for (n, o) in outputs.into_iter().enumerate() {
            let id =
                o.id.clone()
                    .unwrap_or_else(|| format!("{}-o{n}", self.response_id_or_default()));
            match o.kind {
                Kind::Message => {
                    let text: String = o.text.concat();
                    if !text.is_empty() {
                        items.push(Item::text(id, Role::Assistant, text));
                    }
                }
                Kind::Reasoning => {
                    let text = o.reasoning.concat();
                    let summary: Vec<String> =
                        o.summary.into_iter().filter(|s| !s.is_empty()).collect();
                    if text.is_empty() && summary.is_empty() && o.encrypted_content.is_none() {
                        continue;
                    }
                    let mut origin = self.origin.clone();
                    if let Some(model) = &self.model {
                        origin.model = Some(model.clone());
                    }
                    items.push(Item::Reasoning(ReasoningItem {
                        id,
                        text,
                        summary,
                        encrypted_content: o.encrypted_content,
                        origin: Some(origin),
                        ..ReasoningItem::default()
                    }));
                }
                Kind::FunctionCall | Kind::CustomToolCall => {
                    let Some(call_id) = o.call_id else {
                        if o.arguments.is_empty() && o.provider_call_id.is_none() {
                            continue;
                        }
                        self.fail(
                            ModelError::new(
                                ErrorKind::FormatError,
                                format!("tool call #{n} never received a name"),
                            ),
                            out,
                        );
                        return;
                    };
                    let cut = !o.done
                        || o.incomplete
                        || (o.kind == Kind::FunctionCall && !is_complete_json(&o.arguments));
                    if terminal == Terminal::Incomplete && cut {
                        tracing::debug!(call = n, "dropping a tool call cut by the output limit");
                        continue;
                    }
                    had_calls = true;
                    items.push(match o.kind {
                        Kind::CustomToolCall => Item::CustomToolCall(CustomToolCallItem {
                            id,
                            call_id,
                            name: o.name,
                            input: o.arguments,
                        }),
                        _ => call_item(
                            &self.tool_kinds,
                            DecodedCall {
                                id,
                                call_id,
                                name: o.name,
                                namespace: o.namespace,
                                arguments: o.arguments,
                            },
                        ),
                    });
                }
                Kind::Other => {}
            }
        }
        for item in items {
            out.push(Ok(StreamEvent::ItemDone { item }));
        }
        if let Some(usage) = self.usage.take() {
            out.push(Ok(StreamEvent::Usage { usage }));
        }
        let stop_reason = match terminal {
            _ if had_calls => StopReason::ToolCalls,
            Terminal::Completed => StopReason::EndTurn,
            Terminal::Incomplete => match reason.as_deref() {
                Some("content_filter") => StopReason::ContentFilter,
                // `max_output_tokens`, and any other reason: the output was cut.
                _ => StopReason::MaxTokens,
            },
        };
        self.done = true;
        out.push(Ok(StreamEvent::Completed {
            stop_reason,
            response_id: self.response_id.clone(),
        }));
    }
}

/// The texts of a `content` / `summary` list.
fn texts<'c>(content: &'c Content<'_>) -> Vec<&'c str> {
    match content {
        Content::None => Vec::new(),
        Content::Text(text) => vec![text.as_ref()],
        Content::Parts(parts) => parts.iter().map(|p| p.as_ref()).collect(),
    }
}

/// Responses `usage` → [`Usage`].
fn map_usage(usage: &ResponsesUsage) -> Usage {
    let count = |c: Option<Count>| c.map_or(0, |c| c.0);
    Usage {
        input_tokens: count(usage.input_tokens),
        output_tokens: count(usage.output_tokens),
        cached_input_tokens: count(
            usage
                .input_tokens_details
                .as_ref()
                .and_then(|d| d.cached_tokens),
        ),
        cache_write_tokens: 0,
        reasoning_tokens: count(
            usage
                .output_tokens_details
                .as_ref()
                .and_then(|d| d.reasoning_tokens),
        ),
    }
}

fn format_error(e: &serde_json::Error) -> ModelError {
    ModelError::new(
        ErrorKind::FormatError,
        format!("a responses event is not valid JSON: {e}"),
    )
}
