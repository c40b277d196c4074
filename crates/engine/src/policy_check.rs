//! `tack policy check`: what the gate would decide for one tool call, without running it.
//!
//! The call goes through exactly what the turn loop does with a call from the model —
//! binding by the session's harness ([`prepare_call`], which the loop calls too),
//! preparation by the engine tool, then [`Gate::decide`] with the session's policy, sandbox
//! and saved rules — so a user debugging a rule sees the verdict a session would act on.

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use tack_harness::{BoundCall, Harness};
use tack_protocol::{FunctionCallItem, Item, Risk, Rule, SandboxMode, ToolOutput};

use crate::approval::{Decision, Gate, SessionApprovals};
use crate::session::{Engine, SessionOptions};
use crate::tools::{PreparedCall, ToolContext, ToolHandler};

/// The call to judge.
#[derive(Debug, Clone)]
pub enum CheckedCall {
    /// A shell command line, as the engine's `shell` tool would get it.
    Command(String),
    /// A tool call as a model would make it under the session's harness: the tool's name as
    /// that harness advertises it (`Bash`, `run_shell_command`, `write_file`, …) and its
    /// arguments.
    Tool {
        /// Tool name.
        name: String,
        /// Arguments (a JSON object).
        arguments: serde_json::Value,
    },
}

/// The verdict, as `tack policy check` prints it (one JSON object).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyCheck {
    /// `run`, `ask` or `reject`.
    pub decision: &'static str,
    /// Where the call runs: `none` (outside any sandbox), `read-only` or `workspace-write`.
    pub sandbox: &'static str,
    /// Why, in words (the same text the approval dialog shows).
    pub reason: String,
    /// `low`, `medium` or `high`.
    pub risk: Risk,
    /// The saved rule that decided, if one did.
    pub rule: Option<Rule>,
}

/// A call bound to an engine tool and prepared, ready for the gate.
pub(crate) struct PreparedToolCall {
    /// The binding (engine tool name and input).
    pub(crate) bound: BoundCall,
    /// The engine tool.
    pub(crate) handler: Arc<dyn ToolHandler>,
    /// The prepared call.
    pub(crate) prepared: Box<dyn PreparedCall>,
}

/// Binds a model's call with the harness and prepares it with the engine tool: the first two
/// steps of every call, shared by the turn loop and `tack policy check`.
///
/// # Errors
/// The model-readable output the call is answered with instead: a binding error, an unknown
/// tool (listing `advertised`), or the tool's argument error.
pub(crate) fn prepare_call(
    harness: &dyn Harness,
    engine: &Engine,
    call: &Item,
    ctx: &ToolContext,
    advertised: &[String],
) -> Result<PreparedToolCall, ToolOutput> {
    let bound = harness.bind_call(call)?;
    let Some(handler) = engine.tool(&bound.tool) else {
        let name = match call {
            Item::FunctionCall(c) => c.name.clone(),
            Item::CustomToolCall(c) => c.name.clone(),
            _ => bound.tool.clone(),
        };
        return Err(ToolOutput::error(format!(
            "Unknown tool `{name}`. Available tools: {}.",
            advertised.join(", ")
        )));
    };
    let prepared = handler.prepare(bound.input.clone(), ctx)?;
    Ok(PreparedToolCall {
        bound,
        handler,
        prepared,
    })
}

/// Judges one call for a session with `opts` (as [`crate::resolve::resolve`] builds them),
/// as its first call would be judged: no "approve for this session" answers yet.
///
/// # Errors
/// The session's harness is unknown to the registry.
pub fn check(
    engine: &Engine,
    opts: &SessionOptions,
    call: &CheckedCall,
) -> Result<PolicyCheck, String> {
    let harness = engine
        .registry
        .get(&opts.harness)
        .ok_or_else(|| format!("unknown harness `{}`", opts.harness))?;
    let (name, arguments, harness) = match call {
        // A bare command is the engine's own shell tool, whatever the harness calls it.
        CheckedCall::Command(command) => (
            crate::tools::ShellTool::NAME.to_string(),
            serde_json::json!({ "command": command }),
            engine
                .registry
                .get("native")
                .ok_or_else(|| "the native harness is missing".to_string())?,
        ),
        CheckedCall::Tool { name, arguments } => (name.clone(), arguments.clone(), harness),
    };
    let item = Item::FunctionCall(FunctionCallItem {
        id: "check".into(),
        call_id: "check".into(),
        name,
        namespace: None,
        arguments: arguments.to_string(),
    });
    let ctx = ToolContext::new(&opts.cwd);
    let workspace = ctx.workspace_root();
    let prepared = match prepare_call(harness.as_ref(), engine, &item, &ctx, &[]) {
        Ok(p) => p,
        Err(output) => {
            return Ok(PolicyCheck {
                decision: "reject",
                sandbox: "none",
                reason: format!("the call is not valid, so it never runs: {}", output.text),
                risk: Risk::Low,
                rule: None,
            });
        }
    };
    Ok(judge(opts, &workspace, prepared.prepared.as_ref()))
}

fn judge(opts: &SessionOptions, workspace: &Path, prepared: &dyn PreparedCall) -> PolicyCheck {
    let approved = SessionApprovals::default();
    let gate = Gate {
        policy: opts.approval,
        sandbox: &opts.sandbox,
        workspace,
        rules: &opts.rules,
        approved: &approved,
    };
    let decision = gate.decide(prepared.action());
    let label = decision.as_str();
    match decision {
        Decision::Run {
            sandbox,
            reason,
            risk,
            rule,
        } => PolicyCheck {
            decision: label,
            sandbox: sandbox_name(sandbox),
            reason,
            risk,
            rule,
        },
        Decision::Ask(ask) => PolicyCheck {
            decision: label,
            sandbox: sandbox_name(ask.sandbox),
            reason: ask.reason,
            risk: ask.risk,
            rule: None,
        },
        Decision::Reject { reason, rule } => PolicyCheck {
            decision: label,
            sandbox: "none",
            reason,
            risk: Risk::High,
            rule: Some(rule),
        },
    }
}

fn sandbox_name(mode: Option<SandboxMode>) -> &'static str {
    match mode {
        None | Some(SandboxMode::DangerFullAccess) => "none",
        Some(SandboxMode::ReadOnly) => "read-only",
        Some(SandboxMode::WorkspaceWrite) => "workspace-write",
    }
}
