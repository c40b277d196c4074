//! The parts of an OpenAI Responses stream event, and of a whole Response object, the decoder
//! reads, as borrowed serde types.
//!
//! Field names from the OpenAI Responses API reference (streaming events: `type`,
//! `output_index`, `content_index`, `summary_index`, `item_id`, `delta`, `text`, `arguments`,
//! `input`, `item`, `response`; the Response object: `id`, `model`, `status`, `usage`,
//! `error`, `incomplete_details`, `output`). Every event type is one flat struct: the decoder
//! dispatches on `type`, and the fields an event type does not carry are simply absent, so
//! each frame is parsed once. Large parts of the lifecycle events (`response.output`,
//! `response.tools`, `instructions`, `logprobs`) are skipped without allocating.
//!
//! The lenient scalar types come from the Chat schema: a wrong JSON type for an optional
//! field counts as absent rather than failing the stream (llama.cpp, LM Studio and OpenRouter
//! each leave out or add fields; see `fixtures/wire/PROVENANCE.md`).

use serde::Deserialize;
use serde_json::Value;

use super::chat_schema::{Arguments, Content, Count, LenientStr};

/// One streaming event (the JSON `data` of a frame).
#[derive(Deserialize, Default)]
pub(super) struct Event<'a> {
    /// `type`, e.g. `response.output_text.delta`. Absent → the SSE `event:` name is used.
    #[serde(rename = "type", borrow, default)]
    pub kind: LenientStr<'a>,
    /// `output_index`: the position of the item in `response.output` (absent on llama.cpp).
    #[serde(default)]
    pub output_index: Option<Count>,
    /// `content_index`: the part of a message or reasoning item a text event belongs to.
    #[serde(default)]
    pub content_index: Option<Count>,
    /// `summary_index` of `response.reasoning_summary_*` events.
    #[serde(default)]
    pub summary_index: Option<Count>,
    /// `item_id` of delta and done events.
    #[serde(borrow, default)]
    pub item_id: LenientStr<'a>,
    /// `delta` of `*.delta` events.
    #[serde(borrow, default)]
    pub delta: LenientStr<'a>,
    /// `text` of `response.output_text.done`, `response.reasoning_text.done`,
    /// `response.reasoning_summary_text.done`.
    #[serde(borrow, default)]
    pub text: LenientStr<'a>,
    /// `refusal` of `response.refusal.done`.
    #[serde(borrow, default)]
    pub refusal: LenientStr<'a>,
    /// `arguments` of `response.function_call_arguments.done`.
    #[serde(borrow, default)]
    pub arguments: Arguments<'a>,
    /// `input` of `response.custom_tool_call_input.done`.
    #[serde(borrow, default)]
    pub input: LenientStr<'a>,
    /// `item` of `response.output_item.added` / `.done` (boxed, like `response`: they are
    /// rare, and keeping them out of line keeps the struct every delta is parsed into small).
    #[serde(borrow, default)]
    pub item: Option<Box<OutputItem<'a>>>,
    /// `response` of `response.created`, `.in_progress`, `.completed`, `.incomplete`,
    /// `.failed`.
    #[serde(borrow, default)]
    pub response: Option<Box<ResponseObject<'a>>>,
}

/// An output item (`response.output[]`, `output_item.added/done`.item).
#[derive(Deserialize, Default)]
pub(super) struct OutputItem<'a> {
    /// `type`: `message`, `reasoning`, `function_call`, `custom_tool_call`, or a hosted
    /// tool's call (`web_search_call`, …), which the decoder ignores.
    #[serde(rename = "type", borrow, default)]
    pub kind: LenientStr<'a>,
    /// `id`: `msg_…`, `rs_…`, `fc_…`, `ctc_…` (a UUID on DeepSeek).
    #[serde(borrow, default)]
    pub id: LenientStr<'a>,
    /// `status`: `in_progress`, `completed` or `incomplete`.
    #[serde(borrow, default)]
    pub status: LenientStr<'a>,
    /// `call_id` of a call: what tool outputs refer to (`call_…`).
    #[serde(borrow, default)]
    pub call_id: LenientStr<'a>,
    /// `name` of a call.
    #[serde(borrow, default)]
    pub name: LenientStr<'a>,
    /// `namespace` of a call to a namespaced function tool.
    #[serde(borrow, default)]
    pub namespace: LenientStr<'a>,
    /// `arguments` of a function call.
    #[serde(borrow, default)]
    pub arguments: Arguments<'a>,
    /// `input` of a custom tool call.
    #[serde(borrow, default)]
    pub input: LenientStr<'a>,
    /// `content`: a message's `output_text`/`refusal` parts, or a reasoning item's
    /// `reasoning_text` parts; only the texts are kept.
    #[serde(borrow, default)]
    pub content: Content<'a>,
    /// `summary`: a reasoning item's `summary_text` parts.
    #[serde(borrow, default)]
    pub summary: Content<'a>,
    /// `encrypted_content` of a reasoning item (with `include: ["reasoning.encrypted_content"]`).
    #[serde(borrow, default)]
    pub encrypted_content: LenientStr<'a>,
}

/// The Response object in lifecycle events (its `output` is not read: the items arrive as
/// their own events).
#[derive(Deserialize, Default)]
pub(super) struct ResponseObject<'a> {
    /// `id` (`resp_…`; `gen-…` on OpenRouter, a UUID on DeepSeek).
    #[serde(borrow, default)]
    pub id: LenientStr<'a>,
    /// `model` as the server reports it.
    #[serde(borrow, default)]
    pub model: LenientStr<'a>,
    /// `usage`, on terminal events.
    #[serde(default)]
    pub usage: Option<ResponsesUsage>,
    /// `error: {code, message}` of `response.failed`.
    #[serde(default)]
    pub error: Option<Value>,
    /// `incomplete_details: {reason}` of `response.incomplete`.
    #[serde(borrow, default)]
    pub incomplete_details: Option<IncompleteDetails<'a>>,
}

/// A whole non-streaming reply: the Response object with its `output`.
#[derive(Deserialize, Default)]
pub(super) struct Reply<'a> {
    /// `id`.
    #[serde(borrow, default)]
    pub id: LenientStr<'a>,
    /// `model`.
    #[serde(borrow, default)]
    pub model: LenientStr<'a>,
    /// `status`: `completed`, `incomplete`, `failed`, …
    #[serde(borrow, default)]
    pub status: LenientStr<'a>,
    /// `usage`.
    #[serde(default)]
    pub usage: Option<ResponsesUsage>,
    /// `error` (a failed response, or an error reply `{"error": {…}}`).
    #[serde(default)]
    pub error: Option<Value>,
    /// `incomplete_details`.
    #[serde(borrow, default)]
    pub incomplete_details: Option<IncompleteDetails<'a>>,
    /// `output` items in order.
    #[serde(borrow, default)]
    pub output: Vec<OutputItem<'a>>,
}

/// `response.incomplete_details`.
#[derive(Deserialize, Default)]
pub(super) struct IncompleteDetails<'a> {
    /// `reason`: `max_output_tokens` or `content_filter`.
    #[serde(borrow, default)]
    pub reason: LenientStr<'a>,
}

/// `response.usage`.
#[derive(Deserialize, Default)]
pub(super) struct ResponsesUsage {
    /// `input_tokens` (cached included).
    #[serde(default)]
    pub input_tokens: Option<Count>,
    /// `output_tokens` (reasoning included).
    #[serde(default)]
    pub output_tokens: Option<Count>,
    /// `input_tokens_details`.
    #[serde(default)]
    pub input_tokens_details: Option<InputDetails>,
    /// `output_tokens_details`.
    #[serde(default)]
    pub output_tokens_details: Option<OutputDetails>,
}

/// `usage.input_tokens_details`.
#[derive(Deserialize, Default)]
pub(super) struct InputDetails {
    /// `cached_tokens`.
    #[serde(default)]
    pub cached_tokens: Option<Count>,
}

/// `usage.output_tokens_details`.
#[derive(Deserialize, Default)]
pub(super) struct OutputDetails {
    /// `reasoning_tokens`.
    #[serde(default)]
    pub reasoning_tokens: Option<Count>,
}
