use serde::{Deserialize, Serialize};

use crate::{
    ApprovalDecision, ApprovalPolicy, ApprovalRequest, ExchangeSummary, Item, ModelError,
    QuestionRequest, SandboxStatus, Usage, Wire,
};

/// One step of a decoded model response, the same for every wire.
///
/// A decoder yields `Result<StreamEvent, ModelError>`; a well-formed stream is
/// `Created`, any number of deltas / `ItemDone` / `Usage`, then exactly one `Completed`.
/// Complete items (`ItemDone`) are what the engine records and executes; deltas are for
/// display only. A tool call is only ever reported in an `ItemDone`, once its arguments are
/// complete, so a stream cut mid-call never yields a runnable call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// The response started.
    Created {
        /// Provider's response id (`chatcmpl-…`, `resp_…`, `msg_…`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        response_id: Option<String>,
        /// Model the server says answered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    /// A fragment of assistant text.
    TextDelta {
        /// The fragment.
        text: String,
    },
    /// A fragment of reasoning.
    ReasoningDelta {
        /// The fragment.
        text: String,
        /// True for a reasoning *summary* (Responses), false for raw reasoning.
        #[serde(default)]
        summary: bool,
    },
    /// A tool call began (name known, arguments still streaming). Display only.
    ToolCallStarted {
        /// Call id.
        call_id: String,
        /// Tool name.
        name: String,
    },
    /// A fragment of a tool call's arguments. Display only.
    ToolCallDelta {
        /// Call id.
        call_id: String,
        /// Raw fragment of the arguments text.
        delta: String,
    },
    /// An item is complete: message, reasoning or tool call.
    ItemDone {
        /// The complete item.
        item: Item,
    },
    /// Token usage (may arrive before or with `Completed`).
    Usage {
        /// Counts.
        usage: Usage,
    },
    /// The response ended normally.
    Completed {
        /// Why it ended. `tool_calls` whenever a tool call was produced, whatever the
        /// provider's own finish reason said.
        stop_reason: StopReason,
        /// Provider's response id, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        response_id: Option<String>,
    },
}

/// Why a response ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its answer (Chat `stop`, Messages `end_turn`/`stop_sequence`).
    EndTurn,
    /// The model asked for one or more tool calls.
    ToolCalls,
    /// The output hit the token limit (Chat `length`, Messages `max_tokens`, Responses
    /// `incomplete` with `max_output_tokens`).
    MaxTokens,
    /// The provider filtered the output (Chat `content_filter`, Messages `refusal`).
    ContentFilter,
}

/// What the engine tells a front end while a session runs. Every event carries the turn it
/// belongs to, except session-level ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EngineEvent {
    /// The session is ready (sent once after start or resume).
    SessionConfigured {
        /// Session id.
        session_id: String,
        /// Settings in force.
        settings: SessionSettings,
    },
    /// A turn began.
    TurnStarted {
        /// Turn id.
        turn_id: String,
    },
    /// Assistant text fragment.
    TextDelta {
        /// Turn id.
        turn_id: String,
        /// Fragment.
        text: String,
    },
    /// Reasoning fragment.
    ReasoningDelta {
        /// Turn id.
        turn_id: String,
        /// Fragment.
        text: String,
    },
    /// A tool call began streaming (shown as a pending card).
    ToolCallStarted {
        /// Turn id.
        turn_id: String,
        /// Call id.
        call_id: String,
        /// Tool name.
        name: String,
    },
    /// An item was completed and persisted to the session log.
    ItemCompleted {
        /// Turn id.
        turn_id: String,
        /// The item.
        item: Item,
    },
    /// A tool started executing (after approval, if any).
    ToolStarted {
        /// Turn id.
        turn_id: String,
        /// Call id.
        call_id: String,
        /// Engine tool that runs it (e.g. `shell`).
        tool: String,
    },
    /// A chunk of a running tool's output.
    ToolOutputDelta {
        /// Turn id.
        turn_id: String,
        /// Call id.
        call_id: String,
        /// Text chunk (lossy UTF-8).
        chunk: String,
    },
    /// The engine waits for the user's decision on a tool call.
    ApprovalRequested {
        /// Turn id.
        turn_id: String,
        /// What to decide.
        request: ApprovalRequest,
    },
    /// A tool call asks the user questions; answer with the request id.
    QuestionAsked {
        /// Turn id.
        turn_id: String,
        /// The questions.
        request: QuestionRequest,
    },
    /// A decision was taken (by the user or by a remembered rule).
    ApprovalResolved {
        /// Turn id.
        turn_id: String,
        /// The request id.
        approval_id: String,
        /// The decision.
        decision: ApprovalDecision,
    },
    /// One HTTP round trip finished and was recorded.
    ExchangeRecorded {
        /// Turn id.
        turn_id: String,
        /// Summary (the full record is in the exchange log).
        exchange: ExchangeSummary,
    },
    /// The turn finished normally.
    TurnCompleted {
        /// Turn id.
        turn_id: String,
        /// Tokens used by all sampling requests of the turn.
        usage: Usage,
    },
    /// The turn stopped early.
    TurnAborted {
        /// Turn id.
        turn_id: String,
        /// Why.
        reason: AbortReason,
    },
    /// Something failed; `turn_id` is absent for session-level errors.
    Error {
        /// Turn id, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_id: Option<String>,
        /// What happened and what to do.
        error: ModelError,
    },
    /// User input was queued to join the next sampling request of the running turn.
    InputQueued {
        /// Turn id.
        turn_id: String,
        /// The queued text.
        text: String,
    },
}

/// Why a turn was aborted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum AbortReason {
    /// The user interrupted.
    Interrupted,
    /// The user chose "abort turn" in an approval.
    ApprovalAborted,
    /// An unrecoverable error (also reported as an `Error` event).
    Failed,
}

/// The settings a session runs with, as shown in the UI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SessionSettings {
    /// Workspace folder.
    pub cwd: String,
    /// Provider id.
    pub provider: String,
    /// Model.
    pub model: String,
    /// Wire.
    pub wire: Wire,
    /// Harness id.
    pub harness: String,
    /// Approval policy.
    pub approval: ApprovalPolicy,
    /// The sandbox commands run in.
    #[serde(default)]
    pub sandbox: SandboxStatus,
}
