//! Provider-specific request rules, decided per target provider (not globally).
//!
//! Facts (from each provider's API docs and observed behaviour):
//! - DeepSeek (`api.deepseek.com`) and Moonshot/Kimi (`api.moonshot.ai`, `api.moonshot.cn`,
//!   `api.kimi.com`) expect the assistant's `reasoning_content` to be sent back on tool-call
//!   turns in thinking mode; they accept `content: ""` on tool-call-only assistant messages.
//! - OpenAI Chat Completions rejects unknown message fields such as `reasoning_content`, and
//!   accepts `content: null` with `tool_calls`.
//! - Groq rejects several OpenAI extension fields (`prompt_cache_key`, `reasoning_content` on
//!   messages, …).
//!
//! Matching is on the provider id, name and base URL, so a user-defined provider pointing at one
//! of these hosts gets the same rules.

use tack_protocol::ProviderInfo;
use tack_wire::ToolOnlyContent;

/// What a target provider accepts on the Chat wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderRules {
    /// Send the provider's own reasoning back as `reasoning_content`.
    pub replay_reasoning: bool,
    /// `content` of a tool-call-only assistant message.
    pub tool_only_content: ToolOnlyContent,
    /// Accepts `prompt_cache_key`.
    pub prompt_cache_key: bool,
}

/// The rules for a provider.
pub fn for_provider(p: &ProviderInfo) -> ProviderRules {
    let haystack = format!("{} {} {}", p.id, p.name, p.base_url).to_ascii_lowercase();
    let has = |needle: &str| haystack.contains(needle);
    let reasoning_host = has("deepseek") || has("moonshot") || has("kimi");
    ProviderRules {
        replay_reasoning: reasoning_host,
        tool_only_content: if reasoning_host {
            ToolOnlyContent::Empty
        } else {
            ToolOnlyContent::Null
        },
        prompt_cache_key: has("api.openai.com"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::Wire;

    fn provider(id: &str, base_url: &str) -> ProviderInfo {
        ProviderInfo {
            id: id.into(),
            name: id.into(),
            base_url: base_url.into(),
            wire: Wire::Chat,
        }
    }

    #[test]
    fn deepseek_and_kimi_get_reasoning_round_trip_even_behind_a_custom_id() {
        assert!(for_provider(&provider("deepseek", "https://api.deepseek.com")).replay_reasoning);
        assert!(for_provider(&provider("work", "https://api.moonshot.ai/v1")).replay_reasoning);
        let openai = for_provider(&provider("openai", "https://api.openai.com/v1"));
        assert!(!openai.replay_reasoning);
        assert_eq!(openai.tool_only_content, ToolOnlyContent::Null);
        assert!(openai.prompt_cache_key);
    }
}
