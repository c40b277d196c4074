use serde::{Deserialize, Serialize};

/// Token counts of one response.
///
/// Sources: Chat `usage.{prompt_tokens, completion_tokens}` (+ `prompt_tokens_details.
/// cached_tokens`, `completion_tokens_details.reasoning_tokens`, DeepSeek's
/// `prompt_cache_hit_tokens`); Responses `response.usage.{input_tokens, output_tokens,
/// input_tokens_details.cached_tokens, output_tokens_details.reasoning_tokens}`; Anthropic
/// `usage.{input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens}`.
/// `input_tokens` counts every prompt token including cached ones (Anthropic reports them
/// apart; the decoder adds them back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Usage {
    /// Prompt tokens, cached included.
    pub input_tokens: u32,
    /// Generated tokens, reasoning included.
    pub output_tokens: u32,
    /// Prompt tokens served from the provider's cache.
    #[serde(default)]
    pub cached_input_tokens: u32,
    /// Prompt tokens written to the provider's cache (Anthropic `cache_creation_input_tokens`).
    #[serde(default)]
    pub cache_write_tokens: u32,
    /// Output tokens spent on reasoning.
    #[serde(default)]
    pub reasoning_tokens: u32,
}

impl Usage {
    /// Adds another response's usage to this one (a turn sums its sampling requests).
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cached_input_tokens = self
            .cached_input_tokens
            .saturating_add(other.cached_input_tokens);
        self.cache_write_tokens = self
            .cache_write_tokens
            .saturating_add(other.cache_write_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(other.reasoning_tokens);
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }
}
