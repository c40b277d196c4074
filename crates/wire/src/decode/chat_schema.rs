//! The parts of a Chat Completions chunk (`object: "chat.completion.chunk"`) and reply
//! (`object: "chat.completion"`) the decoder reads, as borrowed serde types.
//!
//! Field names from the OpenAI Chat Completions API reference, plus the extensions real
//! servers send (see `fixtures/wire/PROVENANCE.md`): `delta.reasoning_content` (DeepSeek,
//! Qwen, llama.cpp, Z.ai), `delta.reasoning` (OpenRouter, Groq), `usage.prompt_cache_hit_tokens`
//! (DeepSeek), a top-level `error` object inside a chunk (OpenRouter).
//!
//! Everything else (`obfuscation`, `x_groq`, `timings`, `reasoning_details`, `logprobs`, …) is
//! skipped without allocating. Strings borrow from the frame unless they contain escapes.
//! Fields that some server might send with an unexpected JSON type are read leniently (a
//! wrong type counts as absent) so that an extension never turns a good stream into an error;
//! only JSON that does not parse at all is a format error.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// One chunk, or a whole non-streaming reply.
#[derive(Deserialize, Default)]
pub(super) struct Chunk<'a> {
    /// `id` (`chatcmpl-…`, `gen-…`, a UUID for DeepSeek).
    #[serde(borrow, default)]
    pub id: LenientStr<'a>,
    /// `model` as the server reports it.
    #[serde(borrow, default)]
    pub model: LenientStr<'a>,
    /// The `choices[]` entry with `index` 0 (or without an index); Tack never asks for
    /// `n > 1`. Absent on usage-only chunks (`choices: []`) and some error chunks.
    #[serde(borrow, default)]
    pub choices: FirstChoice<'a>,
    /// `usage`; `null` on most chunks.
    #[serde(default)]
    pub usage: Option<WireUsage>,
    /// A provider error reported inside the stream (OpenRouter), or the body of an error
    /// reply; kept raw (and small) until it is needed.
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
}

/// `choices`, reduced while parsing to the entry decoded (no `Vec` per chunk).
#[derive(Default)]
pub(super) struct FirstChoice<'a>(pub Option<Choice<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for FirstChoice<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FirstChoice<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of choices")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(FirstChoice(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut first = None;
                while let Some(choice) = seq.next_element::<Choice<'de>>()? {
                    if first.is_none() && choice.index.is_none_or(|i| i.0 == 0) {
                        first = Some(choice);
                    }
                }
                Ok(FirstChoice(first))
            }
        }
        d.deserialize_any(V)
    }
}

/// `choices[]`.
#[derive(Deserialize)]
pub(super) struct Choice<'a> {
    /// `index`.
    #[serde(default)]
    pub index: Option<Count>,
    /// `delta` (streaming), or `message` (non-streaming reply), which has the same fields.
    /// One field for both keeps the struct small: chunks are moved while parsing. Boxed: a
    /// `Delta` is five lenient fields of `Cow`s (~150 bytes), and every enclosing value
    /// (`Choice`, the first-choice wrapper, `Chunk`) is moved by value through serde's
    /// visitors, so a pointer here is much cheaper than the copies it saves.
    #[serde(borrow, default, alias = "message")]
    pub delta: Option<Box<Delta<'a>>>,
    /// `finish_reason`: `stop`, `length`, `tool_calls`, `content_filter`, `function_call`, …
    #[serde(borrow, default)]
    pub finish_reason: LenientStr<'a>,
}

/// `choices[].delta` / `choices[].message`.
#[derive(Deserialize)]
pub(super) struct Delta<'a> {
    /// `content`: a string, an array of parts with `text`, or null.
    #[serde(borrow, default)]
    pub content: Content<'a>,
    /// `reasoning_content` (DeepSeek and most open-weight servers).
    #[serde(borrow, default)]
    pub reasoning_content: LenientStr<'a>,
    /// `reasoning` (OpenRouter, Groq).
    #[serde(borrow, default)]
    pub reasoning: LenientStr<'a>,
    /// `refusal` (OpenAI): shown as text.
    #[serde(borrow, default)]
    pub refusal: LenientStr<'a>,
    /// `tool_calls` fragments.
    #[serde(borrow, default)]
    pub tool_calls: Option<Vec<ToolCallFragment<'a>>>,
}

/// `delta.tool_calls[]`.
#[derive(Deserialize)]
pub(super) struct ToolCallFragment<'a> {
    /// `index`; missing on every fragment for some servers (Ollama, Groq gpt-oss).
    #[serde(default)]
    pub index: Option<Count>,
    /// `id`; on continuations absent, `""` (Qwen) or `null`.
    #[serde(borrow, default)]
    pub id: LenientStr<'a>,
    /// `function`.
    #[serde(borrow, default)]
    pub function: Option<FunctionFragment<'a>>,
}

/// `delta.tool_calls[].function`.
#[derive(Deserialize)]
pub(super) struct FunctionFragment<'a> {
    /// `name`; only on the first fragment for most servers.
    #[serde(borrow, default)]
    pub name: LenientStr<'a>,
    /// `arguments`: a fragment of JSON text (or, from a few servers, a JSON object).
    #[serde(borrow, default)]
    pub arguments: Arguments<'a>,
}

/// `usage`.
#[derive(Deserialize)]
pub(super) struct WireUsage {
    /// `prompt_tokens`.
    #[serde(default)]
    pub prompt_tokens: Option<Count>,
    /// `completion_tokens`.
    #[serde(default)]
    pub completion_tokens: Option<Count>,
    /// `prompt_tokens_details`.
    #[serde(default)]
    pub prompt_tokens_details: Option<PromptDetails>,
    /// `completion_tokens_details`.
    #[serde(default)]
    pub completion_tokens_details: Option<CompletionDetails>,
    /// DeepSeek `prompt_cache_hit_tokens`.
    #[serde(default)]
    pub prompt_cache_hit_tokens: Option<Count>,
}

/// `usage.prompt_tokens_details`.
#[derive(Deserialize)]
pub(super) struct PromptDetails {
    /// `cached_tokens`.
    #[serde(default)]
    pub cached_tokens: Option<Count>,
    /// OpenRouter `cache_write_tokens`.
    #[serde(default)]
    pub cache_write_tokens: Option<Count>,
}

/// `usage.completion_tokens_details`.
#[derive(Deserialize)]
pub(super) struct CompletionDetails {
    /// `reasoning_tokens`.
    #[serde(default)]
    pub reasoning_tokens: Option<Count>,
}

/// The only field of a freeform tool's wrapped arguments, `{"input": "…"}`.
#[derive(Deserialize)]
pub(super) struct CustomArguments<'a> {
    #[serde(borrow)]
    pub input: Cow<'a, str>,
}

/// A token count or index: any JSON number, saturated into `u32`; `null` is 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Count(pub u32);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Count, E> {
                Ok(Count(u32::try_from(v).unwrap_or(u32::MAX)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Count, E> {
                Ok(Count(u32::try_from(v.max(0)).unwrap_or(u32::MAX)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Count, E> {
                // `as` saturates and maps NaN to 0, which is what a count wants.
                Ok(Count(v.round() as u32))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Count, E> {
                Ok(Count(0))
            }
        }
        d.deserialize_any(V)
    }
}

/// A string field read leniently: a string (borrowed when it has no escapes), or absent for
/// `null` and any other JSON type (numbers are kept as their text, since some servers send
/// numeric ids).
#[derive(Debug, Default)]
pub(super) struct LenientStr<'a>(pub Option<Cow<'a, str>>);

impl<'a> LenientStr<'a> {
    /// The string if present and non-empty.
    pub fn non_empty(&self) -> Option<&str> {
        self.0.as_deref().filter(|s| !s.is_empty())
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for LenientStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(LenientStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(LenientStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(LenientStr(Some(Cow::Owned(v))))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(LenientStr(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(LenientStr(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(LenientStr(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(LenientStr(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(LenientStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LenientStr(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LenientStr(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// `delta.content` / `message.content`.
#[derive(Debug, Default)]
pub(super) enum Content<'a> {
    /// Absent or `null`.
    #[default]
    None,
    /// A string.
    Text(Cow<'a, str>),
    /// An array of parts (the texts of the parts that have one), or an object with `text`.
    Parts(Vec<Cow<'a, str>>),
}

/// One element of a content array: only its `text` matters.
#[derive(Deserialize)]
struct ContentPart<'a> {
    #[serde(borrow, default)]
    text: LenientStr<'a>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, an array of parts or null")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut texts = Vec::new();
                while let Some(part) = seq.next_element::<Lenient<ContentPart<'de>>>()? {
                    if let Some(text) = part.0.and_then(|p| p.text.0) {
                        texts.push(text);
                    }
                }
                Ok(Content::Parts(texts))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let part = ContentPart::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Content::Parts(part.text.0.into_iter().collect()))
            }
        }
        d.deserialize_any(V)
    }
}

/// An array element that is skipped when it is not an object.
struct Lenient<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Lenient<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| Lenient(Some(t)))
            }
            fn visit_borrowed_str<E: de::Error>(self, _: &'de str) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Lenient(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Lenient(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// `function.arguments`: JSON text as a string (the API's shape), or an object some servers
/// send instead, kept as its JSON text.
#[derive(Debug, Default)]
pub(super) struct Arguments<'a>(pub Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Arguments<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Arguments<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON string or object")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Arguments(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Arguments(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Arguments(Some(Cow::Owned(v))))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Arguments(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let value = Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Arguments(Some(Cow::Owned(value.to_string()))))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                let value = Value::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                Ok(Arguments(Some(Cow::Owned(value.to_string()))))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Arguments(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Arguments(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Arguments(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Arguments(Some(Cow::Owned(v.to_string()))))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_fields_accept_odd_types() {
        let chunk: Chunk<'_> = serde_json::from_str(
            r#"{"id":7,"model":null,"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"a"},"x",{"type":"image_url"}],"reasoning":{"x":1},"tool_calls":[{"function":{"name":"f","arguments":{"k":[1]}}}]},"finish_reason":null}],"usage":{"prompt_tokens":3.0,"completion_tokens":-1}}"#,
        )
        .unwrap();
        assert_eq!(chunk.id.0.as_deref(), Some("7"));
        assert!(chunk.model.0.is_none());
        let choice = chunk.choices.0.as_ref().unwrap();
        let delta = choice.delta.as_ref().unwrap();
        assert!(matches!(&delta.content, Content::Parts(p) if p.len() == 1 && p[0] == "a"));
        assert!(delta.reasoning.0.is_none());
        let args = &delta.tool_calls.as_ref().unwrap()[0]
            .function
            .as_ref()
            .unwrap()
            .arguments;
        assert_eq!(args.0.as_deref(), Some(r#"{"k":[1]}"#));
        let usage = chunk.usage.unwrap();
        assert_eq!(usage.prompt_tokens, Some(Count(3)));
        assert_eq!(usage.completion_tokens, Some(Count(0)));
    }

    #[test]
    fn plain_strings_borrow() {
        let data = r#"{"choices":[{"delta":{"content":"plain"}}]}"#;
        let chunk: Chunk<'_> = serde_json::from_str(data).unwrap();
        let delta = chunk.choices.0.unwrap().delta.unwrap();
        assert!(matches!(
            delta.content,
            Content::Text(Cow::Borrowed("plain"))
        ));
    }
}
