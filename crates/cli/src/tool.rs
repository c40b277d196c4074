//! `tack tool`: run one engine tool directly (no approval gate: the user runs it).

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use tack_engine::tools::{ToolContext, ToolInput, builtin_tools};
use tack_protocol::ToolStatus;

/// The names `tack tool` accepts: every built-in engine tool (the help and the errors list
/// these, so they cannot disagree).
pub(crate) fn names() -> Vec<&'static str> {
    builtin_tools().iter().map(|t| t.name()).collect()
}

pub(crate) async fn run(name: &str, cwd: &Path, args: Option<String>) -> Result<ExitCode, String> {
    let tools = builtin_tools();
    let Some(tool) = tools.iter().find(|t| t.name() == name).cloned() else {
        return Err(format!(
            "unknown tool `{name}`; tools: {}",
            names().join(", ")
        ));
    };
    let workspace = std::fs::canonicalize(cwd).map_err(|e| format!("{}: {e}", cwd.display()))?;
    let input = match args {
        Some(json) => ToolInput::Json(
            serde_json::from_str(&json).map_err(|e| format!("--args is not valid JSON: {e}"))?,
        ),
        None => {
            let mut stdin = std::io::stdin();
            if stdin.is_terminal() {
                return Err("pass --args JSON, or pipe the tool's raw input on stdin".into());
            }
            let mut text = String::new();
            stdin
                .read_to_string(&mut text)
                .map_err(|e| format!("reading stdin: {e}"))?;
            ToolInput::Freeform(text)
        }
    };
    let mut ctx = ToolContext::new(workspace);
    // Stream a running command's output to stderr, so stdout stays the tool's result.
    ctx.output = Arc::new(|chunk: &str| {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(chunk.as_bytes());
        let _ = err.flush();
    });
    let output = match tool.prepare(input, &ctx) {
        Ok(prepared) => prepared.run(ctx).await,
        Err(output) => output,
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(output.text.as_bytes());
    if !output.text.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
    Ok(match output.status {
        ToolStatus::Completed => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}
