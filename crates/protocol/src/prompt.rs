use serde::{Deserialize, Serialize};

use crate::{ApprovalPolicy, Item, ToolSpec, Wire};

/// Everything a harness needs to shape one sampling request. Built by the engine at the start
/// of each step and frozen for it, so shaping is a pure function of this value (the same
/// prompt always gives the same bytes, which is what golden tests and the cross-wire
/// inspector rely on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    /// Example exchanges to send before the history (few-shot priming for small models, from
    /// the provider's config). Not part of the session; harnesses that support examples put
    /// them first, others ignore them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Item>,
    /// Session history, oldest first.
    pub history: Vec<Item>,
    /// The engine tools available in this step; a harness advertises its own surface and maps
    /// it onto these.
    pub tools: Vec<ToolSpec>,
    /// Extra instructions from the user's config or the session (a harness decides where they
    /// go: system prompt section, developer message, or nowhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The frozen environment of this step.
    pub context: StepContext,
}

/// The environment of one step, captured once so every harness renders the same facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepContext {
    /// Session id (used for cache keys and per-session state such as a title request).
    pub session_id: String,
    /// Turn id.
    pub turn_id: String,
    /// Step number inside the turn (0 = the first sampling request).
    pub step: u32,
    /// Workspace folder, absolute.
    pub cwd: String,
    /// Local time at the start of the step, RFC 3339 with offset.
    pub now: String,
    /// `linux`, `macos` or `windows`.
    pub os: String,
    /// Kernel name and release (`uname -sr`), e.g. `Linux 6.1.0`.
    pub os_version: String,
    /// Shell path, e.g. `/bin/bash`.
    pub shell: String,
    /// Git state of the workspace, when it is inside a repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitState>,
    /// Project instruction files (AGENTS.md and the like), from the repository root down to
    /// the workspace.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub project_docs: Vec<ProjectDoc>,
    /// The workspace's top two levels, sorted, hidden entries excluded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listing: Vec<ListingEntry>,
    /// Model slug requested.
    pub model: String,
    /// The provider the request goes to.
    pub provider: ProviderInfo,
    /// Approval policy in force.
    pub approval: ApprovalPolicy,
}

/// Git facts of a workspace.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GitState {
    /// Current branch (`HEAD` when detached).
    pub branch: String,
    /// Default branch (from `origin/HEAD`, else `main`).
    pub main_branch: String,
    /// `git config user.name`, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_name: Option<String>,
    /// `git status --short` output (empty when clean).
    pub status: String,
    /// `git log --oneline -5` output.
    pub recent_commits: String,
}

/// One project instruction file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectDoc {
    /// Absolute path.
    pub path: String,
    /// Contents (trimmed).
    pub content: String,
}

/// One entry of the workspace listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListingEntry {
    /// Path relative to the workspace, `/`-separated.
    pub path: String,
    /// Whether it is a directory.
    pub is_dir: bool,
}

/// The provider a request goes to, as harnesses and provider rules see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderInfo {
    /// Config id, e.g. `deepseek`, `local`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Base URL, e.g. `https://api.deepseek.com/v1`.
    pub base_url: String,
    /// Wire it speaks.
    pub wire: Wire,
}
