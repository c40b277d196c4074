//! `tack policy check`: prints what the approval gate would decide for one command or tool
//! call, through the engine's own path ([`tack_engine::policy_check::check`]).

use std::path::PathBuf;
use std::process::ExitCode;

use tack_engine::policy_check::{CheckedCall, check};
use tack_engine::resolve::SessionRequest;
use tack_engine::secrets::MemoryStore;
use tack_engine::session::Engine;
use tack_protocol::{ApprovalPolicy, SandboxMode};

/// The arguments of `tack policy check`.
pub struct CheckArgs {
    /// Config file flag.
    pub config: Option<PathBuf>,
    /// Policy (default: the config's, else `untrusted`).
    pub policy: Option<ApprovalPolicy>,
    /// Sandbox mode (default: the config's, else `workspace-write`).
    pub sandbox: Option<SandboxMode>,
    /// Network for sandboxed commands.
    pub network: Option<bool>,
    /// Workspace.
    pub cwd: PathBuf,
    /// Harness whose tool names `--tool` uses (default: as a session would pick).
    pub harness: Option<String>,
    /// Tool name, with `args`.
    pub tool: Option<String>,
    /// Tool arguments (JSON object).
    pub args: Option<String>,
    /// The command line (words after `--`, joined with spaces as typed).
    pub command: Vec<String>,
}

/// Runs the check and prints one JSON object: exit 0, or 2 for bad usage.
pub fn run(args: CheckArgs) -> Result<ExitCode, String> {
    let call = match (&args.tool, args.command.is_empty()) {
        (Some(_), false) => {
            return usage("give either `-- COMMAND` or `--tool NAME --args JSON`, not both");
        }
        (None, true) => {
            return usage("nothing to check: give `-- COMMAND` or `--tool NAME --args JSON`");
        }
        // One word is a command line as typed in quotes; several are words the shell already
        // split, so they are quoted back (`-- echo "a b"` checks `echo 'a b'`).
        (None, false) if args.command.len() == 1 => CheckedCall::Command(args.command[0].clone()),
        (None, false) => CheckedCall::Command(shell_words::join(&args.command)),
        (Some(name), true) => {
            let raw = args.args.as_deref().unwrap_or("{}");
            let arguments: serde_json::Value = match serde_json::from_str(raw) {
                Ok(v @ serde_json::Value::Object(_)) => v,
                Ok(_) => return usage("--args must be a JSON object"),
                Err(e) => return usage(&format!("--args is not valid JSON: {e}")),
            };
            CheckedCall::Tool {
                name: name.clone(),
                arguments,
            }
        }
    };
    let cwd =
        std::path::absolute(&args.cwd).map_err(|e| format!("--cwd {}: {e}", args.cwd.display()))?;
    if !cwd.is_dir() {
        return usage(&format!("--cwd {} is not a folder", cwd.display()));
    }
    let config_file = crate::config_path(args.config);
    let config = tack_engine::config::Config::load(&config_file).map_err(|e| e.to_string())?;
    let engine = Engine::new(tack_engine::config::Paths::from_env()).map_err(|e| e.to_string())?;
    let request = SessionRequest {
        cwd,
        harness: args.harness,
        approval: args.policy,
        sandbox: args.sandbox,
        network: args.network,
        ..Default::default()
    };
    let resolved = crate::resolve_session(
        &config,
        &config_file,
        &engine.registry,
        &MemoryStore::default(),
        &request,
    )?;
    let verdict = check(&engine, &resolved.options, &call)?;
    let json = serde_json::to_string(&verdict).map_err(|e| e.to_string())?;
    println!("{json}");
    Ok(ExitCode::SUCCESS)
}

fn usage(message: &str) -> Result<ExitCode, String> {
    eprintln!("tack policy check: {message}");
    Ok(ExitCode::from(2))
}
