//! Anthropic Messages stream decoding: SSE of `message_*` / `content_block_*` events → events.
//!
//! Events read (Anthropic Messages API reference, "Streaming Messages"):
//! - `message_start`: `message.id`, `message.model`, `message.usage`;
//! - `content_block_start` / `content_block_delta` / `content_block_stop`, keyed by `index`:
//!   - `text` + `text_delta` → [`StreamEvent::TextDelta`];
//!   - `thinking` + `thinking_delta` + `signature_delta` → reasoning deltas, then a
//!     [`ReasoningItem`] with `text` and `signature`;
//!   - `redacted_thinking` (whole in the start event, `data`) → a [`ReasoningItem`] with
//!     `redacted_data`;
//!   - `tool_use` (`id`, `name`; `input: {}` at the start, or no `input` at all on llama.cpp)
//!     and its `input_json_delta`s (`partial_json`, the first one often `""`) → a call; a tool
//!     use with no input deltas has the start's `input`, or `{}`;
//!   - server tools (`server_tool_use`, `web_search_tool_result`, …) run on Anthropic's side:
//!     they are not calls for Tack to run, so they are ignored (their results cannot be
//!     replayed without Anthropic's encrypted payloads, which Tack does not keep); the answer
//!     text around them is kept, and `citations_delta` (sources of that text) is ignored;
//!   - a delta whose type does not match its block, or for a block type Tack ignores, is
//!     ignored;
//! - `message_delta`: `delta.stop_reason`; `usage` (cumulative: it replaces, field by field,
//!   what `message_start` said);
//! - `message_stop`: the terminal event;
//! - `ping` (anywhere) is ignored; `error` (`{"type":"error","error":{"type","message"}}`) ends
//!   the stream: `overloaded_error` → `overloaded` (retryable), `rate_limit_error` →
//!   `rate_limit`, `api_error` → `server_error`, `invalid_request_error` saying "prompt is too
//!   long" → `context_length_exceeded` (see [`crate::errors::classify_stream_error`]).
//!
//! JSON with spaces before the closing brace (Anthropic pads its frames) parses as usual.
//! Dispatch is on the JSON `type` (LiteLLM sends data-only frames), else the `event:` name.
//!
//! **Completion and truncation.** Only `message_stop` completes a response; the body ending
//! before it is `stream_truncated` (whatever `message_delta` said), and no `ItemDone` is
//! emitted before it, so a cut-off stream never yields a half tool call. At `message_stop`
//! blocks are emitted in `index` order, whatever order they stopped in; consecutive text
//! blocks (e.g. around a web search) form one assistant message. A tool use whose input is not
//! complete JSON is dropped when the output was cut (`stop_reason` `max_tokens` or
//! `model_context_window_exceeded`, or the block never stopped); otherwise it is kept as
//! received, for the tool to report the bad arguments to the model.
//!
//! **Stop reasons** (`message_delta.delta.stop_reason`): `end_turn`, `stop_sequence`,
//! `pause_turn` (a server tool paused the turn: the turn ends here and the user may continue)
//! → `end_turn`; `tool_use` → `tool_calls`; `max_tokens`, `model_context_window_exceeded` →
//! `max_tokens`; `refusal` → `content_filter`. Whenever a call is emitted it is `tool_calls`.
//!
//! **Usage.** `input_tokens` + `cache_read_input_tokens` + `cache_creation_input_tokens` →
//! [`Usage::input_tokens`] (Anthropic counts cached tokens apart; Tack's usage includes them),
//! `cache_read_input_tokens` → `cached_input_tokens`, `cache_creation_input_tokens` →
//! `cache_write_tokens`, `output_tokens` → `output_tokens`.
//!
//! **Ids.** Items are `<message id>-<block index>`; a call's `call_id` is the `tool_use.id`
//! (`toolu_…`), or `toolu_<message id>_<index>` when a server sends none.

use tack_protocol::{
    ErrorKind, Item, ModelError, ReasoningItem, ReasoningOrigin, Role, StopReason, StreamEvent,
    Usage, Wire,
};

use super::StreamDecoder;
use super::calls::{DecodedCall, call_item, is_complete_json, unique_call_id};
use super::chat_schema::Count;
use super::messages_schema::{ContentBlock, Delta, Event, Message, MessagesUsage};
use crate::errors::classify_stream_error_bytes;
use crate::sse::{Frame, SseFramer, SseLimits};
use crate::tool_kinds::ToolKinds;

type Out = Vec<Result<StreamEvent, ModelError>>;

/// Fallback message id when the server sends none.
const NO_MESSAGE_ID: &str = "msg";

/// Incremental Messages stream decoder (see the module docs for the rules).
pub struct MessagesDecoder {
    framer: SseFramer,
    state: MessagesState,
}

impl MessagesDecoder {
    /// A decoder for one response. `tool_kinds` come from shaping (Messages flattens
    /// namespaces and carries freeform tools as functions, like Chat); `origin` is stamped on
    /// reasoning items, with `model` replaced by the model the server reports.
    pub fn new(tool_kinds: ToolKinds, origin: ReasoningOrigin) -> Self {
        MessagesDecoder {
            framer: SseFramer::with_limits(SseLimits::for_wire(Wire::Messages)),
            state: MessagesState::new(tool_kinds, origin),
        }
    }

    /// Replaces the size caps (default: [`SseLimits::for_wire`]).
    pub fn with_limits(mut self, limits: SseLimits) -> Self {
        self.framer = SseFramer::with_limits(limits);
        self
    }
}

impl StreamDecoder for MessagesDecoder {
    fn push(&mut self, bytes: &[u8], out: &mut Out) {
        if self.state.done {
            return;
        }
        let state = &mut self.state;
        self.framer
            .push(bytes, &mut |frame| state.frame(frame, out));
        if let Some(oversize) = self.framer.oversize() {
            state.fail(super::oversize_error(Wire::Messages, oversize), out);
        }
    }

    fn finish(&mut self, out: &mut Out) {
        if self.state.done {
            return;
        }
        let state = &mut self.state;
        self.framer.finish(&mut |frame| state.frame(frame, out));
        state.truncated(out);
    }
}

/// Decodes a whole non-streaming Messages reply (a Message, `stream: false`) into the events a
/// stream of it would give: its content blocks in order (texts as single deltas), usage, and
/// `Completed` with its `stop_reason`. An error reply (`{"type":"error","error":{…}}`)
/// becomes the error.
pub fn decode_reply(body: &[u8], tool_kinds: ToolKinds, origin: ReasoningOrigin) -> Out {
    let mut out = Vec::new();
    let mut state = MessagesState::new(tool_kinds, origin);
    let message = match serde_json::from_slice::<Message<'_>>(body) {
        Ok(message) => message,
        Err(e) => {
            out.push(Err(format_error(&e)));
            return out;
        }
    };
    if message.kind.non_empty() == Some("error") {
        state.fail(classify_stream_error_bytes(body), &mut out);
        return out;
    }
    let Message {
        id,
        model,
        content,
        stop_reason,
        usage,
        ..
    } = message;
    state.start(id.non_empty(), model.non_empty(), usage.as_ref(), &mut out);
    for (index, block) in content.into_iter().enumerate() {
        let index = u32::try_from(index).unwrap_or(u32::MAX);
        state.block_start(index, block, &mut out);
        state.block_stop(index, &mut out);
    }
    state.stop_reason = stop_reason.non_empty().map(str::to_string);
    state.complete(&mut out);
    out
}

/// What a content block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Text,
    Thinking,
    RedactedThinking,
    ToolUse,
    /// Server tools, their results and anything new: ignored.
    Other,
}

impl BlockKind {
    fn parse(kind: Option<&str>) -> BlockKind {
        match kind {
            Some("text") => BlockKind::Text,
            Some("thinking") => BlockKind::Thinking,
            Some("redacted_thinking") => BlockKind::RedactedThinking,
            Some("tool_use") => BlockKind::ToolUse,
            _ => BlockKind::Other,
        }
    }

    /// The block a delta implies when its `content_block_start` never came.
    fn for_delta(kind: Option<&str>) -> BlockKind {
        match kind {
            Some("text_delta") => BlockKind::Text,
            Some("thinking_delta" | "signature_delta") => BlockKind::Thinking,
            Some("input_json_delta") => BlockKind::ToolUse,
            _ => BlockKind::Other,
        }
    }
}

/// One content block being assembled.
struct BlockState {
    index: u32,
    kind: BlockKind,
    /// Text, thinking text, or redacted data.
    text: String,
    signature: String,
    /// `tool_use.id` as sent.
    provider_id: Option<String>,
    name: String,
    /// A non-empty `input` from the start event (replies, some proxies).
    start_input: Option<String>,
    /// `partial_json` fragments concatenated.
    json: String,
    /// The id Tack uses for a call, fixed when `ToolCallStarted` is emitted.
    call_id: Option<String>,
    stopped: bool,
}

impl BlockState {
    fn new(index: u32, kind: BlockKind) -> Self {
        BlockState {
            index,
            kind,
            text: String::new(),
            signature: String::new(),
            provider_id: None,
            name: String::new(),
            start_input: None,
            json: String::new(),
            call_id: None,
            stopped: false,
        }
    }

    /// The arguments of a tool use: the streamed JSON, else the start's input, else `{}`.
    fn arguments(&self) -> &str {
        if !self.json.trim().is_empty() {
            &self.json
        } else if let Some(input) = &self.start_input {
            input
        } else {
            "{}"
        }
    }
}

/// Usage as reported so far; `message_delta` replaces the fields it carries.
#[derive(Default)]
struct UsageTotals {
    reported: bool,
    input: u32,
    output: u32,
    cache_read: u32,
    cache_creation: u32,
}

impl UsageTotals {
    fn merge(&mut self, usage: &MessagesUsage) {
        self.reported = true;
        let set = |field: &mut u32, value: Option<Count>| {
            if let Some(v) = value {
                *field = v.0;
            }
        };
        set(&mut self.input, usage.input_tokens);
        set(&mut self.output, usage.output_tokens);
        set(&mut self.cache_read, usage.cache_read_input_tokens);
        set(&mut self.cache_creation, usage.cache_creation_input_tokens);
    }

    fn usage(&self) -> Option<Usage> {
        self.reported.then(|| Usage {
            input_tokens: self
                .input
                .saturating_add(self.cache_read)
                .saturating_add(self.cache_creation),
            output_tokens: self.output,
            cached_input_tokens: self.cache_read,
            cache_write_tokens: self.cache_creation,
            reasoning_tokens: 0,
        })
    }
}

struct MessagesState {
    tool_kinds: ToolKinds,
    origin: ReasoningOrigin,
    created: bool,
    done: bool,
    message_id: Option<String>,
    model: Option<String>,
    blocks: Vec<BlockState>,
    stop_reason: Option<String>,
    usage: UsageTotals,
}

impl MessagesState {
    fn new(tool_kinds: ToolKinds, origin: ReasoningOrigin) -> Self {
        MessagesState {
            tool_kinds,
            origin,
            created: false,
            done: false,
            message_id: None,
            model: None,
            blocks: Vec::new(),
            stop_reason: None,
            usage: UsageTotals::default(),
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
        // Validating the frame's UTF-8 once is cheaper than serde_json checking every string;
        // invalid UTF-8 is replaced (and logged) so that one bad byte does not end the answer.
        let mut lossy = String::new();
        let text = super::utf8_or_replaced(data, &mut lossy, Wire::Messages);
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
        let Event {
            kind,
            index,
            message,
            content_block,
            delta,
            usage,
        } = event;
        let name = std::str::from_utf8(frame.event).unwrap_or("");
        match kind.non_empty().unwrap_or(name) {
            "ping" => {}
            "error" => self.fail(classify_stream_error_bytes(data), out),
            "message_start" => {
                let message = message.map(|m| *m).unwrap_or_default();
                self.start(
                    message.id.non_empty(),
                    message.model.non_empty(),
                    message.usage.as_ref(),
                    out,
                );
            }
            "content_block_start" => {
                self.start(None, None, None, out);
                if let Some(block) = content_block {
                    let index = index.map_or(self.next_index(), |c| c.0);
                    self.block_start(index, *block, out);
                }
            }
            "content_block_delta" => {
                self.start(None, None, None, out);
                if let Some(delta) = &delta {
                    let index = index.map_or(self.last_index(), |c| c.0);
                    self.block_delta(index, delta, out);
                }
            }
            "content_block_stop" => {
                let index = index.map_or(self.last_index(), |c| c.0);
                self.block_stop(index, out);
            }
            "message_delta" => {
                self.start(None, None, None, out);
                if let Some(reason) = delta.as_ref().and_then(|d| d.stop_reason.non_empty()) {
                    self.stop_reason = Some(reason.to_string());
                }
                if let Some(usage) = &usage {
                    self.usage.merge(usage);
                }
            }
            "message_stop" => {
                self.start(None, None, None, out);
                self.complete(out);
            }
            _ => {}
        }
    }

    /// `message_start` (or the first event of a stream that skipped it): `Created` once.
    fn start(
        &mut self,
        id: Option<&str>,
        model: Option<&str>,
        usage: Option<&MessagesUsage>,
        out: &mut Out,
    ) {
        if self.created {
            return;
        }
        self.created = true;
        self.message_id = id.map(str::to_string);
        self.model = model.map(str::to_string);
        if let Some(usage) = usage {
            self.usage.merge(usage);
        }
        out.push(Ok(StreamEvent::Created {
            response_id: self.message_id.clone(),
            model: self.model.clone(),
        }));
    }

    fn message_id_or_default(&self) -> &str {
        self.message_id.as_deref().unwrap_or(NO_MESSAGE_ID)
    }

    fn next_index(&self) -> u32 {
        self.blocks
            .iter()
            .map(|b| b.index.saturating_add(1))
            .max()
            .unwrap_or(0)
    }

    fn last_index(&self) -> u32 {
        self.blocks.last().map_or(0, |b| b.index)
    }

    fn find(&self, index: u32) -> Option<usize> {
        self.blocks.iter().rposition(|b| b.index == index)
    }

    fn block_start(&mut self, index: u32, block: ContentBlock<'_>, out: &mut Out) {
        if self.find(index).is_some() {
            tracing::debug!(index, "ignoring a second content_block_start for a block");
            return;
        }
        let kind = BlockKind::parse(block.kind.non_empty());
        let mut state = BlockState::new(index, kind);
        match kind {
            BlockKind::Text => {
                if let Some(text) = block.text.non_empty() {
                    state.text.push_str(text);
                    out.push(Ok(StreamEvent::TextDelta {
                        text: text.to_string(),
                    }));
                }
            }
            BlockKind::Thinking => {
                if let Some(text) = block.thinking.non_empty() {
                    state.text.push_str(text);
                    out.push(Ok(StreamEvent::ReasoningDelta {
                        text: text.to_string(),
                        summary: false,
                    }));
                }
                state
                    .signature
                    .push_str(block.signature.non_empty().unwrap_or(""));
            }
            BlockKind::RedactedThinking => {
                state.text.push_str(block.data.non_empty().unwrap_or(""));
            }
            BlockKind::ToolUse => {
                state.provider_id = block.id.non_empty().map(str::to_string);
                state.name = block.name.non_empty().unwrap_or("").to_string();
                // `{}` is the placeholder the deltas fill in; anything else is real input.
                state.start_input = block
                    .input
                    .map(|raw| raw.get().trim())
                    .filter(|raw| !raw.is_empty() && *raw != "{}" && *raw != "null")
                    .map(str::to_string);
            }
            BlockKind::Other => {}
        }
        self.blocks.push(state);
        let at = self.blocks.len() - 1;
        self.start_call(at, out);
    }

    fn block_delta(&mut self, index: u32, delta: &Delta<'_>, out: &mut Out) {
        let delta_kind = delta.kind.non_empty();
        let at = match self.find(index) {
            Some(at) => at,
            None => {
                self.blocks
                    .push(BlockState::new(index, BlockKind::for_delta(delta_kind)));
                self.blocks.len() - 1
            }
        };
        let block = &mut self.blocks[at];
        match (block.kind, delta_kind) {
            (BlockKind::Text, Some("text_delta")) => {
                if let Some(text) = delta.payload.non_empty() {
                    block.text.push_str(text);
                    out.push(Ok(StreamEvent::TextDelta {
                        text: text.to_string(),
                    }));
                }
            }
            (BlockKind::Thinking, Some("thinking_delta")) => {
                if let Some(text) = delta.payload.non_empty() {
                    block.text.push_str(text);
                    out.push(Ok(StreamEvent::ReasoningDelta {
                        text: text.to_string(),
                        summary: false,
                    }));
                }
            }
            (BlockKind::Thinking, Some("signature_delta")) => {
                block
                    .signature
                    .push_str(delta.payload.non_empty().unwrap_or(""));
            }
            (BlockKind::ToolUse, Some("input_json_delta")) => {
                if let Some(fragment) = delta.payload.non_empty() {
                    block.json.push_str(fragment);
                    if let Some(call_id) = &block.call_id {
                        out.push(Ok(StreamEvent::ToolCallDelta {
                            call_id: call_id.clone(),
                            delta: fragment.to_string(),
                        }));
                    }
                }
            }
            // `citations_delta`, server tools' input, and mismatched deltas.
            _ => {}
        }
    }

    fn block_stop(&mut self, index: u32, out: &mut Out) {
        let Some(at) = self.find(index) else {
            return;
        };
        let block = &mut self.blocks[at];
        block.stopped = true;
        // Input that never streamed (no deltas: `{}` or the start's input) is shown now.
        if block.kind == BlockKind::ToolUse
            && block.json.trim().is_empty()
            && let Some(call_id) = &block.call_id
        {
            out.push(Ok(StreamEvent::ToolCallDelta {
                call_id: call_id.clone(),
                delta: block.arguments().to_string(),
            }));
        }
    }

    /// Emits `ToolCallStarted` for a tool use whose name is known, fixing its call id.
    fn start_call(&mut self, at: usize, out: &mut Out) {
        let block = &self.blocks[at];
        if block.kind != BlockKind::ToolUse || block.call_id.is_some() || block.name.is_empty() {
            return;
        }
        let base = block
            .provider_id
            .clone()
            .unwrap_or_else(|| format!("toolu_{}_{}", self.message_id_or_default(), block.index));
        let taken: Vec<String> = self
            .blocks
            .iter()
            .filter_map(|b| b.call_id.clone())
            .collect();
        let call_id = unique_call_id(base, &taken);
        let block = &mut self.blocks[at];
        block.call_id = Some(call_id.clone());
        out.push(Ok(StreamEvent::ToolCallStarted {
            call_id,
            name: block.name.clone(),
        }));
    }

    fn fail(&mut self, error: ModelError, out: &mut Out) {
        self.done = true;
        out.push(Err(error));
    }

    /// The body ended before `message_stop`.
    fn truncated(&mut self, out: &mut Out) {
        if self.done {
            return;
        }
        let message = if self.created {
            "the body ended before message_stop"
        } else {
            "the body ended before any event arrived"
        };
        self.fail(ModelError::new(ErrorKind::StreamTruncated, message), out);
    }

    /// `message_stop`: items in block order, usage, `Completed`.
    fn complete(&mut self, out: &mut Out) {
        let mut blocks = std::mem::take(&mut self.blocks);
        blocks.sort_by_key(|b| b.index);
        let cut = matches!(
            self.stop_reason.as_deref(),
            Some("max_tokens" | "model_context_window_exceeded")
        );
        let message_id = self.message_id_or_default().to_string();
        let mut items = Vec::with_capacity(blocks.len());
        // Consecutive text blocks form one message: (first block index, text).
        let mut text: Option<(u32, String)> = None;
        let flush = |text: &mut Option<(u32, String)>, items: &mut Vec<Item>| {
            if let Some((index, text)) = text.take()
                && !text.is_empty()
            {
                items.push(Item::text(
                    format!("{message_id}-{index}"),
                    Role::Assistant,
                    text,
                ));
            }
        };
        let mut had_calls = false;
        for block in blocks {
            let id = format!("{message_id}-{}", block.index);
            match block.kind {
                BlockKind::Text => match &mut text {
                    Some((_, buf)) => buf.push_str(&block.text),
                    None => text = Some((block.index, block.text)),
                },
                BlockKind::Thinking | BlockKind::RedactedThinking => {
                    flush(&mut text, &mut items);
                    let mut origin = self.origin.clone();
                    if let Some(model) = &self.model {
                        origin.model = Some(model.clone());
                    }
                    let reasoning = if block.kind == BlockKind::Thinking {
                        ReasoningItem {
                            id,
                            text: block.text,
                            signature: (!block.signature.is_empty()).then_some(block.signature),
                            origin: Some(origin),
                            ..ReasoningItem::default()
                        }
                    } else {
                        ReasoningItem {
                            id,
                            redacted_data: Some(block.text),
                            origin: Some(origin),
                            ..ReasoningItem::default()
                        }
                    };
                    items.push(Item::Reasoning(reasoning));
                }
                BlockKind::ToolUse => {
                    let Some(call_id) = block.call_id.clone() else {
                        if block.json.trim().is_empty() {
                            continue;
                        }
                        self.fail(
                            ModelError::new(
                                ErrorKind::FormatError,
                                format!("tool_use block {} never received a name", block.index),
                            ),
                            out,
                        );
                        return;
                    };
                    let arguments = block.arguments().to_string();
                    if (cut || !block.stopped) && !is_complete_json(&arguments) {
                        tracing::debug!(index = block.index, "dropping a tool use cut short");
                        continue;
                    }
                    flush(&mut text, &mut items);
                    had_calls = true;
                    items.push(call_item(
                        &self.tool_kinds,
                        DecodedCall {
                            id,
                            call_id,
                            name: block.name,
                            namespace: None,
                            arguments,
                        },
                    ));
                }
                BlockKind::Other => {}
            }
        }
        flush(&mut text, &mut items);
        for item in items {
            out.push(Ok(StreamEvent::ItemDone { item }));
        }
        if let Some(usage) = self.usage.usage() {
            out.push(Ok(StreamEvent::Usage { usage }));
        }
        let stop_reason = if had_calls {
            StopReason::ToolCalls
        } else {
            match self.stop_reason.as_deref() {
                Some("max_tokens" | "model_context_window_exceeded") => StopReason::MaxTokens,
                Some("refusal") => StopReason::ContentFilter,
                // `end_turn`, `stop_sequence`, `pause_turn`, `tool_use` with no call left,
                // none at all, and anything new.
                _ => StopReason::EndTurn,
            }
        };
        self.done = true;
        out.push(Ok(StreamEvent::Completed {
            stop_reason,
            response_id: self.message_id.clone(),
        }));
    }
}

fn format_error(e: &serde_json::Error) -> ModelError {
    ModelError::new(
        ErrorKind::FormatError,
        format!("a messages event is not valid JSON: {e}"),
    )
}
