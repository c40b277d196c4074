//! `tack`: Tack's headless command line, for scripts, CI and debugging.
//!
//! - `tack exec` runs a session headless and prints engine events as JSON Lines;
//! - `tack decode` decodes a saved SSE stream into neutral events;
//! - `tack shape` prints the exact HTTP request a prompt or a saved session would produce (on
//!   every wire side by side with `--wire all`);
//! - `tack tool` runs one engine tool directly;
//! - `tack diff-request` compares two requests; `tack import-prompt` installs a captured
//!   request's system prompt and tools as a harness's prompt overrides;
//! - `tack providers` / `tack harnesses` / `tack sessions` list what is configured.

mod decode;
mod diff_request;
mod exec;
mod import_prompt;
mod list;
mod policy;
mod shape;
mod tool;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tack_protocol::{ApprovalPolicy, SandboxMode, Wire};

#[derive(Parser)]
#[command(
    name = "tack",
    version,
    about = "Tack: a workbench for coding agents (headless CLI)"
)]
struct Cli {
    /// Config file (default: $TACK_CONFIG_DIR/config.toml or ~/.config/tack/config.toml).
    #[arg(long, global = true, env = "TACK_CONFIG")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

/// Options shared by commands that talk to a provider.
#[derive(clap::Args, Clone, Debug)]
struct ProviderArgs {
    /// Provider id from the catalog/config, or a base URL (its key from $TACK_API_KEY).
    #[arg(long)]
    provider: Option<String>,
    /// Model (default: the provider's default model).
    #[arg(long)]
    model: Option<String>,
    /// Harness id, or `auto` to infer it from provider and model.
    #[arg(long)]
    harness: Option<String>,
    /// Read the API key from this environment variable.
    #[arg(long)]
    api_key_env: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a session headless; prints engine events as JSON Lines on stdout.
    Exec {
        #[command(flatten)]
        provider: ProviderArgs,
        /// Wire override: chat, responses or messages.
        #[arg(long)]
        wire: Option<Wire>,
        /// Approval policy: untrusted (default), on-request, never.
        #[arg(long)]
        approval: Option<ApprovalPolicy>,
        /// Sandbox for commands: read-only, workspace-write (default) or danger-full-access.
        #[arg(long)]
        sandbox: Option<SandboxMode>,
        /// Let sandboxed commands use the network (`--network true`; default off).
        #[arg(long)]
        network: Option<bool>,
        /// Workspace folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// Resume a session: a session log path or a session id.
        #[arg(long)]
        resume: Option<String>,
        /// With --resume: take the session's settings even though its log's header was
        /// edited since Tack wrote it (without it, Tack refuses and prints what changed).
        #[arg(long, requires = "resume")]
        accept_changed_header: bool,
        /// Seed history before the task: a JSON Lines file of items (or a session log).
        #[arg(long)]
        seed: Option<PathBuf>,
        /// Extra instructions for this session.
        #[arg(long)]
        instructions: Option<String>,
        /// Most model requests in one turn before it stops with `step_limit` (default 200).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        max_steps: Option<u32>,
        /// The task. Omit with --resume to only repair and close an interrupted session.
        task: Option<String>,
    },
    /// Decode a saved SSE stream from stdin into neutral events (JSON Lines).
    Decode {
        /// Wire of the stream.
        #[arg(long)]
        wire: Wire,
        /// Apply this harness's postprocess.
        #[arg(long)]
        harness: Option<String>,
        /// JSON file with the advertised tools (a list of tool specs, or a request body).
        #[arg(long)]
        tools: Option<PathBuf>,
        /// Recover tool calls the model wrote as text markup (uses --tools for names and types).
        #[arg(long)]
        recover_text_calls: bool,
    },
    /// Print the exact HTTP request a prompt or a saved session would produce.
    Shape {
        #[command(flatten)]
        provider: ProviderArgs,
        /// Wire override: chat, responses or messages; `all` prints the request on every wire
        /// (a JSON array, one object per wire; unsupported wires carry the routing error).
        #[arg(long)]
        wire: Option<shape::WireChoice>,
        /// Workspace folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// A first user message.
        #[arg(long, conflicts_with = "history")]
        prompt: Option<String>,
        /// A saved session log (or JSON Lines of items).
        #[arg(long)]
        history: Option<PathBuf>,
    },
    /// Run one engine tool and print its output; non-zero exit when the tool reports an error.
    Tool {
        /// Tool name.
        #[arg(value_parser = clap::builder::PossibleValuesParser::new(tool::names()))]
        name: String,
        /// Workspace folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// JSON arguments; without it, stdin is the tool's raw (freeform) input.
        #[arg(long)]
        args: Option<String>,
    },
    /// List providers (built-in and configured) and their key status.
    Providers,
    /// List harnesses and the wires they support.
    Harnesses,
    /// Compare two requests (bodies, exchange records or `tack shape` output); exit 1 if they differ.
    DiffRequest {
        /// First request (`FILE` or `FILE#N` for record N of a JSON Lines file).
        a: String,
        /// Second request.
        b: String,
    },
    /// Install a captured request's system prompt and tools as a harness's prompt overrides.
    ImportPrompt {
        /// Harness whose overrides to write.
        #[arg(long)]
        harness: String,
        /// Captured request (body, exchange record or `tack shape` output).
        capture: PathBuf,
        /// Config folder to write into (default: $TACK_CONFIG_DIR or ~/.config/tack).
        #[arg(long)]
        config_dir: Option<PathBuf>,
    },
    /// Approval policy tools.
    Policy {
        #[command(subcommand)]
        command: PolicyCommand,
    },
    /// List saved sessions (newest first).
    Sessions {
        /// Only sessions of this workspace.
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum PolicyCommand {
    /// Print what the approval gate decides for a command or a tool call, as one JSON object
    /// `{"decision": "run"|"ask"|"reject", "sandbox": "none"|"read-only"|"workspace-write",
    /// "reason": …, "risk": …, "rule": …}`, through the code path the turn loop uses.
    /// Exit 0; 2 on bad usage.
    #[command(
        override_usage = "tack policy check [--policy P] [--sandbox MODE] --cwd DIR -- COMMAND\n       tack policy check [--policy P] [--sandbox MODE] --cwd DIR --tool NAME --args JSON"
    )]
    Check {
        /// Approval policy: untrusted (default), on-request, never.
        #[arg(long)]
        policy: Option<ApprovalPolicy>,
        /// Sandbox mode: read-only, workspace-write (default) or danger-full-access.
        #[arg(long)]
        sandbox: Option<SandboxMode>,
        /// Let sandboxed commands use the network.
        #[arg(long)]
        network: Option<bool>,
        /// Workspace folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// Harness whose tool names `--tool` uses (default: as a session would pick it).
        #[arg(long)]
        harness: Option<String>,
        /// A tool name as the harness advertises it (`shell`, `Bash`, `write_file`, …).
        #[arg(long, requires = "args")]
        tool: Option<String>,
        /// The tool's arguments, a JSON object.
        #[arg(long, requires = "tool")]
        args: Option<String>,
        /// The command line to check (after `--`).
        #[arg(last = true)]
        command: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    take_provider_keys(&cli);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("tack: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            Command::Exec {
                provider,
                wire,
                approval,
                sandbox,
                network,
                cwd,
                resume,
                accept_changed_header,
                seed,
                instructions,
                max_steps,
                task,
            } => {
                exec::run(exec::ExecArgs {
                    config: cli.config,
                    provider,
                    wire,
                    approval,
                    sandbox,
                    network,
                    cwd,
                    resume,
                    accept_changed_header,
                    seed,
                    instructions,
                    task,
                    max_steps,
                })
                .await
            }
            Command::Decode {
                wire,
                harness,
                tools,
                recover_text_calls,
            } => decode::run(wire, harness, tools, recover_text_calls),
            Command::Shape {
                provider,
                wire,
                cwd,
                prompt,
                history,
            } => shape::run(cli.config, provider, wire, cwd, prompt, history),
            Command::Tool { name, cwd, args } => tool::run(&name, &cwd, args).await,
            Command::Providers => list::providers(cli.config),
            Command::Harnesses => list::harnesses(),
            Command::Sessions { cwd } => list::sessions(cwd),
            Command::Policy {
                command:
                    PolicyCommand::Check {
                        policy,
                        sandbox,
                        network,
                        cwd,
                        harness,
                        tool,
                        args,
                        command,
                    },
            } => policy::run(policy::CheckArgs {
                config: cli.config,
                policy,
                sandbox,
                network,
                cwd,
                harness,
                tool,
                args,
                command,
            }),
            Command::DiffRequest { a, b } => diff_request::run(&a, &b),
            Command::ImportPrompt {
                harness,
                capture,
                config_dir,
            } => import_prompt::run(&harness, &capture, config_dir),
        }
    });
    // A terminal prompt abandoned by a signal still blocks a thread in a read of stdin; the
    // command is over, so don't wait for it.
    runtime.shutdown_background();
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("tack: {message}");
            ExitCode::from(2)
        }
    }
}

/// Takes every provider key variable out of the environment into memory
/// ([`tack_engine::secrets::take_keys_from_environment`]) before anything can copy the
/// environment: no thread, runtime or child process exists yet.
fn take_provider_keys(cli: &Cli) {
    // A config that can't be read is reported by the command that needs it; the keys of
    // the built-in providers and $TACK_API_KEY are taken regardless.
    let config = load_config(cli.config.clone()).unwrap_or_default();
    let extra = match &cli.command {
        Command::Exec { provider, .. } | Command::Shape { provider, .. } => {
            provider.api_key_env.as_deref()
        }
        _ => None,
    };
    let names = tack_engine::secrets::provider_key_variables(&config, extra);
    // SAFETY: called first thing in `main`, before the runtime (or any other thread) starts:
    // nothing else reads or writes the environment meanwhile.
    #[allow(unsafe_code)]
    unsafe {
        tack_engine::secrets::take_keys_from_environment(&names);
    }
}

/// The config file path: `--config`, else the default location.
fn config_path(flag: Option<PathBuf>) -> PathBuf {
    flag.unwrap_or_else(|| tack_engine::config::Paths::from_env().config_file())
}

/// Loads the config for a command; what loads but looks like a mistake (a duplicate provider
/// id, a built-in replaced) is said on stderr, with the file.
fn load_config(flag: Option<PathBuf>) -> Result<tack_engine::config::Config, String> {
    let path = config_path(flag);
    let (config, warnings) =
        tack_engine::config::Config::load_with_warnings(&path).map_err(|e| e.to_string())?;
    for w in warnings {
        eprintln!("tack: warning: {}: {w}", path.display());
    }
    Ok(config)
}

/// [`tack_engine::resolve::resolve`], with an error that names `config.toml`'s
/// `default_provider` (and the file) when that is where an unknown provider id came from.
fn resolve_session(
    config: &tack_engine::config::Config,
    config_file: &std::path::Path,
    registry: &tack_harness::Registry,
    secrets: &dyn tack_engine::secrets::SecretStore,
    req: &tack_engine::resolve::SessionRequest,
) -> Result<tack_engine::resolve::Resolved, String> {
    use tack_engine::config::ConfigError;
    use tack_engine::resolve::ResolveError;
    tack_engine::resolve::resolve(config, registry, secrets, req).map_err(|e| match &e {
        ResolveError::Config(ConfigError::UnknownProvider(id))
            if req.provider.is_none() && config.default_provider.as_deref() == Some(id) =>
        {
            format!(
                "unknown provider `{id}` in `default_provider` of {}; run `tack providers` to list them, or pass --provider",
                config_file.display()
            )
        }
        _ => e.to_string(),
    })
}
