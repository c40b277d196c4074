//! The parts of an Anthropic Messages stream event, and of a whole Message, the decoder reads,
//! as borrowed serde types.
//!
//! Field names from the Anthropic Messages API reference ("Streaming Messages": `type`,
//! `index`, `message`, `content_block`, `delta`, `usage`; content blocks `text`, `thinking`,
//! `redacted_thinking`, `tool_use`, `server_tool_use`, `web_search_tool_result`; deltas
//! `text_delta`, `input_json_delta`, `thinking_delta`, `signature_delta`, `citations_delta`).
//! One flat struct per level: a content block and a delta each hold every field any of their
//! variants has, so a frame is parsed once. Citations, web search results and
//! `cache_creation` breakdowns are skipped without allocating.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::chat_schema::{Count, LenientStr};

/// One streaming event (the JSON `data` of a frame).
#[derive(Deserialize, Default)]
pub(super) struct Event<'a> {
    /// `type`: `message_start`, `content_block_start`, `content_block_delta`,
    /// `content_block_stop`, `message_delta`, `message_stop`, `ping`, `error`.
    #[serde(rename = "type", borrow, default)]
    pub kind: LenientStr<'a>,
    /// `index` of a content block event.
    #[serde(default)]
    pub index: Option<Count>,
    /// `message` of `message_start` (boxed, like `content_block`: they are rare, and keeping
    /// them out of line keeps the struct every delta is parsed into small).
    #[serde(borrow, default)]
    pub message: Option<Box<Message<'a>>>,
    /// `content_block` of `content_block_start`.
    #[serde(borrow, default)]
    pub content_block: Option<Box<ContentBlock<'a>>>,
    /// `delta` of `content_block_delta` (a typed delta) or `message_delta` (`stop_reason`).
    #[serde(borrow, default)]
    pub delta: Option<Delta<'a>>,
    /// `usage` of `message_delta` (cumulative).
    #[serde(default)]
    pub usage: Option<Box<MessagesUsage>>,
}

/// `message_start.message`, or a whole non-streaming reply.
#[derive(Deserialize, Default)]
pub(super) struct Message<'a> {
    /// `id` (`msg_…`).
    #[serde(borrow, default)]
    pub id: LenientStr<'a>,
    /// `type`: `message`, or `error` for an error reply.
    #[serde(rename = "type", borrow, default)]
    pub kind: LenientStr<'a>,
    /// `model` as the server reports it.
    #[serde(borrow, default)]
    pub model: LenientStr<'a>,
    /// `content` blocks (empty in `message_start`; the whole answer in a reply).
    #[serde(borrow, default)]
    pub content: Vec<ContentBlock<'a>>,
    /// `stop_reason` (null in `message_start`).
    #[serde(borrow, default)]
    pub stop_reason: LenientStr<'a>,
    /// `usage`.
    #[serde(default)]
    pub usage: Option<MessagesUsage>,
}

/// A content block.
#[derive(Deserialize, Default)]
pub(super) struct ContentBlock<'a> {
    /// `type`.
    #[serde(rename = "type", borrow, default)]
    pub kind: LenientStr<'a>,
    /// `text` of a text block (`""` at the start of a stream).
    #[serde(borrow, default)]
    pub text: LenientStr<'a>,
    /// `thinking` of a thinking block.
    #[serde(borrow, default)]
    pub thinking: LenientStr<'a>,
    /// `signature` of a thinking block.
    #[serde(borrow, default)]
    pub signature: LenientStr<'a>,
    /// `data` of a redacted thinking block.
    #[serde(borrow, default)]
    pub data: LenientStr<'a>,
    /// `id` of a tool use (`toolu_…`, `srvtoolu_…`).
    #[serde(borrow, default)]
    pub id: LenientStr<'a>,
    /// `name` of a tool use.
    #[serde(borrow, default)]
    pub name: LenientStr<'a>,
    /// `input` of a tool use: `{}` at the start of a stream (absent on llama.cpp), the whole
    /// object in a reply. Kept as its JSON text.
    #[serde(borrow, default)]
    pub input: Option<&'a RawValue>,
}

/// `content_block_delta.delta` / `message_delta.delta`.
///
/// Every content block delta carries one payload string, named after its type: `text`
/// (`text_delta`), `partial_json` (`input_json_delta`), `thinking` (`thinking_delta`),
/// `signature` (`signature_delta`). They share one field here, which keeps the struct that
/// every delta is parsed into (and moved through the decoder) small.
#[derive(Default)]
pub(super) struct Delta<'a> {
    /// `type` of a content block delta.
    pub kind: LenientStr<'a>,
    /// `text`, `partial_json`, `thinking` or `signature` (the last one present).
    pub payload: LenientStr<'a>,
    /// `stop_reason` of `message_delta`.
    pub stop_reason: LenientStr<'a>,
}

/// The keys of a delta the decoder reads.
enum DeltaKey {
    Kind,
    Payload,
    StopReason,
    Other,
}

impl<'de> Deserialize<'de> for DeltaKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DeltaKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a delta field name")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<DeltaKey, E> {
                Ok(match key {
                    "type" => DeltaKey::Kind,
                    "text" | "partial_json" | "thinking" | "signature" => DeltaKey::Payload,
                    "stop_reason" => DeltaKey::StopReason,
                    _ => DeltaKey::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Delta<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Delta<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a delta object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Delta<'de>, A::Error> {
                let mut delta = Delta::default();
                while let Some(key) = map.next_key::<DeltaKey>()? {
                    match key {
                        DeltaKey::Kind => delta.kind = map.next_value()?,
                        DeltaKey::Payload => delta.payload = map.next_value()?,
                        DeltaKey::StopReason => delta.stop_reason = map.next_value()?,
                        DeltaKey::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(delta)
            }
        }
        d.deserialize_map(V)
    }
}

/// `usage` (`message_start.message.usage`, `message_delta.usage`).
#[derive(Deserialize, Default, Clone, Copy)]
pub(super) struct MessagesUsage {
    /// `input_tokens`: prompt tokens not read from or written to the cache.
    #[serde(default)]
    pub input_tokens: Option<Count>,
    /// `output_tokens`.
    #[serde(default)]
    pub output_tokens: Option<Count>,
    /// `cache_creation_input_tokens`.
    #[serde(default)]
    pub cache_creation_input_tokens: Option<Count>,
    /// `cache_read_input_tokens`.
    #[serde(default)]
    pub cache_read_input_tokens: Option<Count>,
}
