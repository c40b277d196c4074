//! The sandbox vocabulary: how contained a command runs, and which OS mechanism contains it.
//!
//! Modes follow Codex's (`codex --sandbox read-only|workspace-write|danger-full-access`,
//! openai/codex `codex-rs/protocol`), so users who know one know the other.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How contained a command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// The whole file system read-only; only a private temporary folder is writable.
    ReadOnly,
    /// Also the workspace and the configured writable roots are writable, except
    /// `.git/hooks`, `.git/config` and Tack's own folders, which stay read-only. The default.
    #[default]
    WorkspaceWrite,
    /// No containment at all: the command runs as Tack does. Only when the user chose it.
    DangerFullAccess,
}

impl SandboxMode {
    /// Config/CLI name (`read-only`, `workspace-write`, `danger-full-access`).
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::DangerFullAccess => "danger-full-access",
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SandboxMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "read-only" | "read_only" => Ok(SandboxMode::ReadOnly),
            "workspace-write" | "workspace_write" => Ok(SandboxMode::WorkspaceWrite),
            "danger-full-access" | "danger_full_access" => Ok(SandboxMode::DangerFullAccess),
            other => Err(format!(
                "unknown sandbox mode `{other}`: expected read-only, workspace-write or \
                 danger-full-access"
            )),
        }
    }
}

/// The OS mechanism that contains commands on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMechanism {
    /// bubblewrap (`bwrap`): user, PID, mount and network namespaces.
    Bubblewrap,
    /// Landlock file-system rules plus a seccomp filter, in user + PID namespaces.
    LandlockSeccomp,
    /// Nothing works here: every command asks, and runs uncontained once approved.
    None,
}

/// What the sandbox of a session is, as shown in the window and in `tack exec`'s first event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SandboxStatus {
    /// The mechanism in use.
    pub mechanism: SandboxMechanism,
    /// The session's mode for commands that run without asking.
    pub mode: SandboxMode,
    /// Whether sandboxed commands may use the network.
    pub network: bool,
    /// One line for people: the mechanism and its version, or why none works and what follows
    /// ("no sandbox: bwrap failed (…); every command asks").
    pub summary: String,
}

impl SandboxStatus {
    /// Whether commands really run contained (a mechanism works and the mode is not
    /// `danger-full-access`).
    pub fn contains(&self) -> bool {
        self.mechanism != SandboxMechanism::None && self.mode != SandboxMode::DangerFullAccess
    }
}

impl Default for SandboxStatus {
    fn default() -> Self {
        SandboxStatus {
            mechanism: SandboxMechanism::None,
            mode: SandboxMode::WorkspaceWrite,
            network: false,
            summary: "sandbox not probed".to_string(),
        }
    }
}

/// What a saved rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum RuleDecision {
    /// Run without asking (inside the sandbox the policy gives).
    Allow,
    /// Never run; the model is told a rule refused it.
    Deny,
}

/// A saved approval decision (`[[rules]]` in config.toml).
///
/// A rule never widens: an allow rule covers a simple command whose words start with
/// `command` exactly, and never an added option that writes files or runs a program, never a
/// command judged dangerous unless the rule names it word for word, and in a compound command
/// only the parts it covers by itself. Deny rules win over allow rules.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Rule {
    /// Allow or deny.
    pub decision: RuleDecision,
    /// The command prefix, as words (`["npm", "test"]`, `["cargo", "check", "-p", "x"]`).
    pub command: Vec<String>,
    /// The workspace the rule applies to (absolute path); `None`: every workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
}

impl Rule {
    /// The rule in words, as the window and error messages name it
    /// ("allow `npm test` in /home/me/app").
    pub fn describe(&self) -> String {
        let verb = match self.decision {
            RuleDecision::Allow => "allow",
            RuleDecision::Deny => "deny",
        };
        let scope = match &self.workspace {
            Some(ws) => format!("in {ws}"),
            None => "in every workspace".to_string(),
        };
        format!("{verb} `{}` {scope}", self.command.join(" "))
    }
}
