//! OpenAI Chat Completions stream decoding: SSE of `chat.completion.chunk` objects → events.
//!
//! What the decoder accepts (all seen in real captures, see `fixtures/wire/PROVENANCE.md`):
//! - `choices[0].delta.content` as a string, an array of `{text}` parts, or `null`; `refusal`
//!   text is shown as text;
//! - reasoning as `delta.reasoning_content` (DeepSeek, Qwen, llama.cpp, Z.ai) or
//!   `delta.reasoning` (OpenRouter, Groq); when both are present `reasoning_content` wins;
//! - tool-call fragments keyed by `index`, or, when `index` is missing (Ollama, Groq gpt-oss), by
//!   `id`, else continuing the last call; `id`/`name` repeated as `""` or `null` on
//!   continuations (Qwen); the whole `arguments` in the first fragment (Groq Kimi, Z.ai,
//!   Ollama); interleaved parallel calls; an `index` reused with a different non-empty `id`
//!   starts a new call;
//! - `usage` on the finish chunk (DeepSeek, Z.ai) or on a final `choices: []` chunk (OpenAI,
//!   Qwen, llama.cpp, vLLM); `finish_reason` repeated on several chunks (OpenRouter);
//! - a provider error as a top-level `error` in a chunk (OpenRouter) or an `event: error`
//!   frame (Groq); either ends the response with that error.
//!
//! **Completion and truncation.** On this wire the model's own end marker is `finish_reason`;
//! `data: [DONE]` is only framing, and usage may follow the finish chunk. So a response is
//! complete when a `finish_reason` was seen and then the stream ended, by `[DONE]` or by the
//! end of the body (the `[DONE]` line missing after a finish is accepted). The stream is
//! **truncated** (`stream_truncated`) when `[DONE]` or the end of the body comes before any
//! `finish_reason`. A truncated response emits no `ItemDone` at all: the deltas already shown
//! were display-only, and a half-received tool call is never handed out as runnable.
//!
//! **Emission.** `Created` on the first chunk; deltas as they arrive; at completion `ItemDone`
//! for the reasoning (if any), the assistant message (if any text), then each tool call in
//! order; `Usage` (the last usage seen); `Completed`. Tool calls come back as `FunctionCall`,
//! `CustomToolCall` (kind [`ToolKind::Custom`]: the `input` argument unwrapped) or
//! `FunctionCall` with its namespace restored ([`ToolKind::NamespacedFunction`]).
//! `stop_reason` is `tool_calls` whenever a call is emitted, whatever `finish_reason` said
//! (Ollama says `stop`). With `finish_reason: "length"` a call whose arguments are not
//! complete JSON was cut by the limit: it is dropped, and the stop reason is `max_tokens` if
//! no call remains.
//!
//! **Ids.** Item ids are derived from the response `id`: `<id>-rs`, `<id>-msg`, `<id>-fc<N>`
//! (N counts calls from 0), so decoding the same bytes always gives the same items. A call
//! without an `id` gets `call_<response id>_<N>`; an id already used in this response gets
//! `_2`, `_3`, … appended. A call's id is fixed when its name is first known (the moment
//! `ToolCallStarted` is emitted), so display events and the final item agree.

use std::borrow::Cow;

use tack_protocol::{
    CustomToolCallItem, ErrorKind, FunctionCallItem, Item, ModelError, ReasoningItem,
    ReasoningOrigin, Role, StopReason, StreamEvent, ToolKind, Usage, Wire,
};

use super::StreamDecoder;
use super::chat_schema::{Chunk, Content, CustomArguments, Delta, ToolCallFragment, WireUsage};
use crate::errors::classify_stream_error_bytes;
use crate::sse::{Frame, SseFramer, SseLimits};
use crate::tool_kinds::ToolKinds;

type Out = Vec<Result<StreamEvent, ModelError>>;

/// Fallback response id when the server sends none.
const NO_RESPONSE_ID: &str = "chat";

/// Incremental Chat Completions stream decoder (see the module docs for the rules).
pub struct ChatDecoder {
    framer: SseFramer,
    state: ChatState,
}

impl ChatDecoder {
    /// A decoder for one response. `tool_kinds` come from shaping; `origin` is stamped on the
    /// reasoning item, with `model` replaced by the model the server reports.
    pub fn new(tool_kinds: ToolKinds, origin: ReasoningOrigin) -> Self {
        ChatDecoder {
            framer: SseFramer::with_limits(SseLimits::for_wire(Wire::Chat)),
            state: ChatState::new(tool_kinds, origin),
        }
    }

    /// Replaces the size caps (default: [`SseLimits::for_wire`]).
    pub fn with_limits(mut self, limits: SseLimits) -> Self {
        self.framer = SseFramer::with_limits(limits);
        self
    }
}

impl StreamDecoder for ChatDecoder {
    fn push(&mut self, bytes: &[u8], out: &mut Out) {
        if self.state.done {
            return;
        }
        let state = &mut self.state;
        self.framer
            .push(bytes, &mut |frame| state.frame(frame, out));
        if let Some(oversize) = self.framer.oversize() {
            state.fail(super::oversize_error(Wire::Chat, oversize), out);
        }
    }

    fn finish(&mut self, out: &mut Out) {
        if self.state.done {
            return;
        }
        let state = &mut self.state;
        self.framer.finish(&mut |frame| state.frame(frame, out));
        state.end(false, out);
    }
}

/// Decodes a whole non-streaming Chat Completions reply (`object: "chat.completion"`) into
/// the same events a stream of it would give: `choices[0].message.{content,
/// reasoning_content|reasoning, tool_calls}`, `finish_reason` (absent counts as `stop`: the
/// reply is complete), `usage`; a top-level `error` object becomes the error.
pub fn decode_reply(body: &[u8], tool_kinds: ToolKinds, origin: ReasoningOrigin) -> Out {
    let mut out = Vec::new();
    let mut state = ChatState::new(tool_kinds, origin);
    match serde_json::from_slice::<Chunk<'_>>(body) {
        Ok(reply) => {
            state.chunk(reply, &mut out);
            if !state.done && state.finish.is_none() {
                state.finish = Some(Finish::Stop);
            }
            state.end(true, &mut out);
        }
        Err(e) => out.push(Err(format_error(&e))),
    }
    out
}

/// `finish_reason`, as far as it matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Finish {
    Stop,
    Length,
    ContentFilter,
    ToolCalls,
    /// `finish_reason: "error"` (OpenRouter, when an upstream fails without an error object).
    Error,
}

impl Finish {
    fn parse(reason: &str) -> Finish {
        match reason {
            "length" | "max_tokens" => Finish::Length,
            "content_filter" => Finish::ContentFilter,
            "tool_calls" | "function_call" => Finish::ToolCalls,
            "error" => Finish::Error,
            // `stop`, `eos`, `end_turn`, `stop_sequence` and anything new end the turn.
            _ => Finish::Stop,
        }
    }
}

/// One tool call being assembled.
#[derive(Default)]
struct CallSlot {
    /// `id` as the server sent it (first non-empty value).
    provider_id: Option<String>,
    /// `function.name` (first non-empty value).
    name: String,
    /// `function.arguments` fragments concatenated.
    arguments: String,
    /// The id Tack uses, fixed when `ToolCallStarted` is emitted.
    call_id: Option<String>,
}

struct ChatState {
    tool_kinds: ToolKinds,
    origin: ReasoningOrigin,
    created: bool,
    done: bool,
    response_id: Option<String>,
    model: Option<String>,
    text: String,
    reasoning: String,
    calls: Vec<CallSlot>,
    /// Provider `index` → slot in `calls` (the latest call with that index).
    by_index: Vec<(u32, usize)>,
    finish: Option<Finish>,
    usage: Option<Usage>,
}

impl ChatState {
    fn new(tool_kinds: ToolKinds, origin: ReasoningOrigin) -> Self {
        ChatState {
            tool_kinds,
            origin,
            created: false,
            done: false,
            response_id: None,
            model: None,
            text: String::new(),
            reasoning: String::new(),
            calls: Vec::new(),
            by_index: Vec::new(),
            finish: None,
            usage: None,
        }
    }

    fn frame(&mut self, frame: Frame<'_>, out: &mut Out) {
        if self.done {
            return;
        }
        if frame.event == b"error" {
            self.fail(classify_stream_error_bytes(frame.data), out);
            return;
        }
        let data = frame.data.trim_ascii();
        if data.is_empty() {
            return;
        }
        if data == b"[DONE]" {
            self.end(true, out);
            return;
        }
        // Validating the frame's UTF-8 once is cheaper than serde_json checking every string;
        // invalid UTF-8 is replaced (and logged) so that one bad byte does not end the answer.
        let mut lossy = String::new();
        let text = super::utf8_or_replaced(data, &mut lossy, Wire::Chat);
        let parsed = serde_json::from_str::<Chunk<'_>>(text);
        match parsed {
            Ok(chunk) => self.chunk(chunk, out),
            Err(_) if frame.at_eof => self.fail(
                ModelError::new(
                    ErrorKind::StreamTruncated,
                    "the body ended in the middle of a chunk",
                ),
                out,
            ),
            Err(e) => self.fail(format_error(&e), out),
        }
    }

    fn chunk(&mut self, chunk: Chunk<'_>, out: &mut Out) {
        if !self.created {
            self.created = true;
            self.response_id = chunk.id.non_empty().map(str::to_string);
            self.model = chunk.model.non_empty().map(str::to_string);
            out.push(Ok(StreamEvent::Created {
                response_id: self.response_id.clone(),
                model: self.model.clone(),
            }));
        }
        if let Some(usage) = &chunk.usage {
            self.usage = Some(map_usage(usage));
        }
        if let Some(error) = chunk.error.filter(|e| e.get() != "null") {
            if let Some(usage) = self.usage.take() {
                out.push(Ok(StreamEvent::Usage { usage }));
            }
            self.fail(classify_stream_error_bytes(error.get().as_bytes()), out);
            return;
        }
        if let Some(choice) = chunk.choices.0 {
            if let Some(delta) = choice.delta {
                self.delta(*delta, out);
            }
            if let Some(reason) = choice.finish_reason.non_empty() {
                // The first finish reason counts; OpenRouter repeats it on later chunks.
                self.finish.get_or_insert(Finish::parse(reason));
            }
        }
    }

    fn delta(&mut self, delta: Delta<'_>, out: &mut Out) {
        let reasoning = delta
            .reasoning_content
            .non_empty()
            .or(delta.reasoning.non_empty());
        if let Some(fragment) = reasoning {
            self.reasoning.push_str(fragment);
            out.push(Ok(StreamEvent::ReasoningDelta {
                text: fragment.to_string(),
                summary: false,
            }));
        }
        match &delta.content {
            Content::None => {}
            Content::Text(text) => self.text_delta(text, out),
            Content::Parts(parts) => {
                for text in parts {
                    self.text_delta(text, out);
                }
            }
        }
        if let Some(refusal) = delta.refusal.non_empty() {
            self.text_delta(refusal, out);
        }
        for fragment in delta.tool_calls.into_iter().flatten() {
            self.tool_fragment(fragment, out);
        }
    }

    fn text_delta(&mut self, text: &str, out: &mut Out) {
        if text.is_empty() {
            return;
        }
        self.text.push_str(text);
        out.push(Ok(StreamEvent::TextDelta {
            text: text.to_string(),
        }));
    }

    /// The slot a fragment belongs to, creating it when the fragment starts a new call.
    fn slot_for(&mut self, index: Option<u32>, id: Option<&str>, name: Option<&str>) -> usize {
        let existing = match index {
            Some(index) => self
                .by_index
                .iter()
                .rev()
                .find(|(i, _)| *i == index)
                .map(|(_, slot)| *slot)
                // The same index with a different id is a new call (servers that number every
                // call 0).
                .filter(|&slot| match (id, &self.calls[slot].provider_id) {
                    (Some(id), Some(known)) => id == known,
                    _ => true,
                }),
            None => match id {
                Some(id) => self
                    .calls
                    .iter()
                    .rposition(|c| c.provider_id.as_deref() == Some(id))
                    .or_else(|| {
                        // An id arriving on a call that had none yet (and no name clash).
                        self.calls.len().checked_sub(1).filter(|&last| {
                            let c = &self.calls[last];
                            c.provider_id.is_none()
                                && c.arguments.is_empty()
                                && (c.name.is_empty() || name.is_none_or(|n| n == c.name))
                        })
                    }),
                None => self.calls.len().checked_sub(1).filter(|&last| {
                    let known = &self.calls[last].name;
                    // A different name without index or id can only be another call.
                    name.is_none_or(|n| known.is_empty() || n == known)
                }),
            },
        };
        match existing {
            Some(slot) => slot,
            None => {
                self.calls.push(CallSlot::default());
                let slot = self.calls.len() - 1;
                if let Some(index) = index {
                    self.by_index.push((index, slot));
                }
                slot
            }
        }
    }

    fn tool_fragment(&mut self, fragment: ToolCallFragment<'_>, out: &mut Out) {
        let index = fragment.index.map(|i| i.0);
        let id = fragment.id.non_empty();
        let (name, arguments) = match &fragment.function {
            Some(f) => (f.name.non_empty(), f.arguments.0.as_deref().unwrap_or("")),
            None => (None, ""),
        };
        let slot = self.slot_for(index, id, name);
        let call = &mut self.calls[slot];
        if call.provider_id.is_none() {
            call.provider_id = id.map(str::to_string);
        }
        if call.name.is_empty()
            && let Some(name) = name
        {
            call.name = name.to_string();
        }
        call.arguments.push_str(arguments);
        if call.call_id.is_none() {
            if call.name.is_empty() {
                return;
            }
            let call_id = self.assign_call_id(slot);
            let call = &mut self.calls[slot];
            call.call_id = Some(call_id.clone());
            out.push(Ok(StreamEvent::ToolCallStarted {
                call_id: call_id.clone(),
                name: call.name.clone(),
            }));
            if !call.arguments.is_empty() {
                out.push(Ok(StreamEvent::ToolCallDelta {
                    call_id,
                    delta: call.arguments.clone(),
                }));
            }
        } else if !arguments.is_empty()
            && let Some(call_id) = &call.call_id
        {
            out.push(Ok(StreamEvent::ToolCallDelta {
                call_id: call_id.clone(),
                delta: arguments.to_string(),
            }));
        }
    }

    /// The provider's id, or a synthesized one, made unique within this response.
    fn assign_call_id(&self, slot: usize) -> String {
        let base = match &self.calls[slot].provider_id {
            Some(id) => id.clone(),
            None => format!("call_{}_{}", self.response_id_or_default(), slot),
        };
        let taken = |candidate: &str| {
            self.calls
                .iter()
                .any(|c| c.call_id.as_deref() == Some(candidate))
        };
        if !taken(&base) {
            return base;
        }
        (2..)
            .map(|n| format!("{base}_{n}"))
            .find(|candidate| !taken(candidate))
            .unwrap_or(base)
    }

    fn response_id_or_default(&self) -> &str {
        self.response_id.as_deref().unwrap_or(NO_RESPONSE_ID)
    }

    fn fail(&mut self, error: ModelError, out: &mut Out) {
        self.done = true;
        out.push(Err(error));
    }

    /// The stream ended: by `[DONE]` (`saw_done`) or by the end of the body.
    fn end(&mut self, saw_done: bool, out: &mut Out) {
        if self.done {
            return;
        }
        let Some(finish) = self.finish else {
            let message = match (self.created, saw_done) {
                (false, false) => "the body ended before any chunk arrived",
                (false, true) => "the stream ended ([DONE]) before any chunk arrived",
                (true, true) => {
                    "the stream ended ([DONE]) before the model finished (no finish_reason)"
                }
                (true, false) => {
                    "the body ended before the model finished (no finish_reason and no [DONE])"
                }
            };
            self.fail(ModelError::new(ErrorKind::StreamTruncated, message), out);
            return;
        };
        if finish == Finish::Error {
            self.fail(
                ModelError::new(
                    ErrorKind::ProviderError,
                    "the provider ended the response with finish_reason \"error\"",
                ),
                out,
            );
            return;
        }
        let calls = match self.complete_calls(finish) {
            Ok(calls) => calls,
            Err(error) => {
                self.fail(error, out);
                return;
            }
        };
        let response_id = self.response_id_or_default().to_string();
        if !self.reasoning.is_empty() {
            let mut origin = self.origin.clone();
            if let Some(model) = &self.model {
                origin.model = Some(model.clone());
            }
            out.push(Ok(StreamEvent::ItemDone {
                item: Item::Reasoning(ReasoningItem {
                    id: format!("{response_id}-rs"),
                    text: std::mem::take(&mut self.reasoning),
                    origin: Some(origin),
                    ..ReasoningItem::default()
                }),
            }));
        }
        if !self.text.is_empty() {
            out.push(Ok(StreamEvent::ItemDone {
                item: Item::text(
                    format!("{response_id}-msg"),
                    Role::Assistant,
                    std::mem::take(&mut self.text),
                ),
            }));
        }
        let had_calls = !calls.is_empty();
        for (n, call) in calls.into_iter().enumerate() {
            let item = self.call_item(format!("{response_id}-fc{n}"), call);
            out.push(Ok(StreamEvent::ItemDone { item }));
        }
        if let Some(usage) = self.usage.take() {
            out.push(Ok(StreamEvent::Usage { usage }));
        }
        let stop_reason = if had_calls {
            StopReason::ToolCalls
        } else {
            match finish {
                Finish::Length => StopReason::MaxTokens,
                Finish::ContentFilter => StopReason::ContentFilter,
                // `tool_calls` with no call left (all dropped or none sent) ends the turn.
                Finish::Stop | Finish::ToolCalls | Finish::Error => StopReason::EndTurn,
            }
        };
        self.done = true;
        out.push(Ok(StreamEvent::Completed {
            stop_reason,
            response_id: self.response_id.clone(),
        }));
    }

    /// The calls to hand out: empty slots skipped, calls cut by the length limit dropped.
    ///
    /// # Errors
    /// `format_error` for a call that has arguments or an id but never got a name.
    fn complete_calls(&mut self, finish: Finish) -> Result<Vec<CallSlot>, ModelError> {
        let mut calls = Vec::with_capacity(self.calls.len());
        for (n, call) in std::mem::take(&mut self.calls).into_iter().enumerate() {
            if call.call_id.is_none() {
                if call.provider_id.is_none() && call.arguments.is_empty() {
                    continue;
                }
                return Err(ModelError::new(
                    ErrorKind::FormatError,
                    format!("tool call #{n} never received a function name"),
                ));
            }
            if finish == Finish::Length
                && serde_json::from_str::<serde::de::IgnoredAny>(&call.arguments).is_err()
            {
                tracing::debug!(call = n, "dropping a tool call cut by the output limit");
                continue;
            }
            calls.push(call);
        }
        Ok(calls)
    }

    fn call_item(&self, id: String, call: CallSlot) -> Item {
        let call_id = call.call_id.unwrap_or_default();
        match self.tool_kinds.get(&call.name) {
            Some(ToolKind::Custom) => Item::CustomToolCall(CustomToolCallItem {
                id,
                call_id,
                input: unwrap_input(&call.arguments),
                name: call.name,
            }),
            Some(ToolKind::NamespacedFunction { name, namespace }) => {
                Item::FunctionCall(FunctionCallItem {
                    id,
                    call_id,
                    name: name.clone(),
                    namespace: Some(namespace.clone()),
                    arguments: call.arguments,
                })
            }
            Some(ToolKind::Function) | None => Item::FunctionCall(FunctionCallItem {
                id,
                call_id,
                name: call.name,
                namespace: None,
                arguments: call.arguments,
            }),
        }
    }
}

/// The `input` of a freeform call's `{"input": "…"}` arguments, or the raw arguments when they
/// are not that shape (the model may have sent the text bare).
fn unwrap_input(arguments: &str) -> String {
    match serde_json::from_str::<CustomArguments<'_>>(arguments) {
        Ok(args) => Cow::into_owned(args.input),
        Err(_) => arguments.to_string(),
    }
}

/// Chat `usage` → [`Usage`]: `prompt_tokens`, `completion_tokens`,
/// `prompt_tokens_details.cached_tokens` (or DeepSeek's `prompt_cache_hit_tokens`),
/// OpenRouter's `prompt_tokens_details.cache_write_tokens`,
/// `completion_tokens_details.reasoning_tokens`.
fn map_usage(usage: &WireUsage) -> Usage {
    let count = |c: Option<super::chat_schema::Count>| c.map_or(0, |c| c.0);
    let details = usage.prompt_tokens_details.as_ref();
    let cached = count(details.and_then(|d| d.cached_tokens));
    Usage {
        input_tokens: count(usage.prompt_tokens),
        output_tokens: count(usage.completion_tokens),
        cached_input_tokens: if cached > 0 {
            cached
        } else {
            count(usage.prompt_cache_hit_tokens)
        },
        cache_write_tokens: count(details.and_then(|d| d.cache_write_tokens)),
        reasoning_tokens: count(
            usage
                .completion_tokens_details
                .as_ref()
                .and_then(|d| d.reasoning_tokens),
        ),
    }
}

fn format_error(e: &serde_json::Error) -> ModelError {
    ModelError::new(
        ErrorKind::FormatError,
        format!("a chat completions chunk is not valid JSON: {e}"),
    )
}
