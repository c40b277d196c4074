use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{Rule, SandboxMode};

/// When the engine asks the user before running a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalPolicy {
    /// Known read-only commands (`ls`, `cat`, `git status`, …) and reads inside the workspace
    /// run; everything else asks. The default.
    #[default]
    Untrusted,
    /// Commands run unless they look dangerous (destructive, privileged, networked writes) or
    /// the call asks for escalation; writes outside the workspace ask.
    OnRequest,
    /// Everything runs without asking. The UI shows a badge while this is in force.
    Never,
}

impl ApprovalPolicy {
    /// Config/CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalPolicy::Untrusted => "untrusted",
            ApprovalPolicy::OnRequest => "on-request",
            ApprovalPolicy::Never => "never",
        }
    }
}

impl fmt::Display for ApprovalPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ApprovalPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "untrusted" => Ok(ApprovalPolicy::Untrusted),
            "on-request" | "on_request" => Ok(ApprovalPolicy::OnRequest),
            "never" => Ok(ApprovalPolicy::Never),
            other => Err(format!(
                "unknown approval policy `{other}`: expected untrusted, on-request or never"
            )),
        }
    }
}

/// A pending decision on a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ApprovalRequest {
    /// Id to answer with.
    pub id: String,
    /// The tool call it concerns.
    pub call_id: String,
    /// Tool name as the model called it.
    pub tool: String,
    /// What would happen.
    pub action: ApprovalAction,
    /// Which policy rule asked, in words (e.g. "`rm` is not a known read-only command").
    pub reason: String,
    /// How risky the action looks.
    pub risk: Risk,
    /// Where the action runs once approved: a sandbox mode, or `None` for outside any sandbox
    /// (an escalation, `danger-full-access`, or a machine where no sandbox works).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxMode>,
    /// Set when Tack asks to run the command again outside the sandbox: what the sandbox
    /// denied ("a write to /etc/x was refused: read-only file system").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalation: Option<String>,
    /// Whether "approve for this session" is offered (never for high-risk actions).
    #[serde(default = "offer_session_default")]
    pub offer_session: bool,
    /// The command prefix an "Always allow …" / "Always deny …" rule would save, shown to the
    /// user before it is saved; `None` where no rule can cover the action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_rule: Option<Vec<String>>,
}

fn offer_session_default() -> bool {
    true
}

/// The action awaiting approval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ApprovalAction {
    /// Run a command.
    Exec {
        /// The full command line, never truncated.
        command: String,
        /// Working directory.
        cwd: String,
    },
    /// Write files.
    FileWrite {
        /// Paths written.
        paths: Vec<String>,
        /// Unified diff of the change.
        diff: String,
    },
}

/// Risk estimate shown with an approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    /// Reads only.
    Low,
    /// Changes files in the workspace or runs unknown programs.
    Medium,
    /// Destructive, privileged, or outside the workspace.
    High,
}

/// The user's answer to an [`ApprovalRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run it this once.
    ApproveOnce,
    /// Run it, and run the exact same action again without asking for the rest of the session.
    ApproveForSession,
    /// Don't run it; the model receives `reason` as the tool output and the turn continues.
    Deny {
        /// Why, in the user's words (may be empty).
        #[serde(default)]
        reason: String,
    },
    /// Don't run it and stop the turn.
    AbortTurn,
    /// Run it, and save an allow rule (shown to the user as is) that covers it from now on.
    AlwaysAllow {
        /// The rule to save; it must cover this action, or the decision is refused.
        rule: Rule,
    },
    /// Don't run it, and save a deny rule that refuses it from now on.
    AlwaysDeny {
        /// The rule to save.
        rule: Rule,
    },
}

/// Questions a tool call asks the user (claude-code `AskUserQuestion`, qwen-code
/// `ask_user_question`, …), shown in a dialog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct QuestionRequest {
    /// Id to answer with.
    pub id: String,
    /// The tool call asking.
    pub call_id: String,
    /// One to four questions.
    pub questions: Vec<Question>,
}

/// One question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Question {
    /// The question.
    pub question: String,
    /// A short label (chip) for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// Offered answers; the user may also type their own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<QuestionOption>,
    /// Several options may be chosen.
    #[serde(default)]
    pub multi_select: bool,
}

/// An offered answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct QuestionOption {
    /// The answer.
    pub label: String,
    /// What choosing it means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The user's answer to one question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct QuestionAnswer {
    /// The question answered (its text).
    pub question: String,
    /// Chosen option labels and/or typed text.
    pub answers: Vec<String>,
}
