use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// An HTTP API dialect a provider speaks.
///
/// Serialized as `chat`, `responses` or `messages` (the names used in config files, the CLI's
/// `--wire` flag and the inspector).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Wire {
    /// OpenAI Chat Completions: `POST {base}/chat/completions`, SSE of `chat.completion.chunk`
    /// objects terminated by `data: [DONE]`.
    Chat,
    /// OpenAI Responses: `POST {base}/responses`, SSE of typed `response.*` events.
    Responses,
    /// Anthropic Messages: `POST {base}/v1/messages`, SSE of `message_*` / `content_block_*`
    /// events.
    Messages,
}

impl Wire {
    /// All wires, in the order the inspector shows them.
    pub const ALL: [Wire; 3] = [Wire::Chat, Wire::Responses, Wire::Messages];

    /// The config/CLI name of this wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Wire::Chat => "chat",
            Wire::Responses => "responses",
            Wire::Messages => "messages",
        }
    }
}

impl fmt::Display for Wire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error returned when a string names no wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownWire(pub String);

impl fmt::Display for UnknownWire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown wire `{}`: expected one of chat, responses, messages",
            self.0
        )
    }
}

impl std::error::Error for UnknownWire {}

impl FromStr for Wire {
    type Err = UnknownWire;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "chat" | "chat_completions" | "chat-completions" => Ok(Wire::Chat),
            "responses" => Ok(Wire::Responses),
            "messages" | "anthropic" => Ok(Wire::Messages),
            other => Err(UnknownWire(other.to_string())),
        }
    }
}
