//! `tack shape`: the exact HTTP request a fresh prompt or a saved session would produce.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};
use tack_engine::context;
use tack_engine::resolve::{SessionRequest, resolve};
use tack_engine::secrets::MemoryStore;
use tack_engine::tools::builtin_tools;
use tack_harness::prompts::PromptStore;
use tack_harness::{Registry, ShapeEnv};
use tack_protocol::{
    ApprovalPolicy, Item, Prompt, ProviderInfo, Role, StepContext, ToolSpec, Wire,
};
use tack_wire::{Endpoint, render};

use crate::ProviderArgs;

pub(crate) fn run(
    config: Option<PathBuf>,
    provider: ProviderArgs,
    cwd: PathBuf,
    prompt: Option<String>,
    history: Option<PathBuf>,
) -> Result<ExitCode, String> {
    let config = crate::load_config(config)?;
    let registry = Registry::builtin();
    let cwd = std::fs::canonicalize(&cwd).map_err(|e| format!("{}: {e}", cwd.display()))?;
    // Keys are never needed to shape, and never printed: an empty store.
    let resolved = resolve(
        &config,
        &registry,
        &MemoryStore::default(),
        &SessionRequest {
            cwd: cwd.clone(),
            provider: provider.provider,
            model: provider.model,
            harness: provider.harness,
            wire: provider.wire,
            approval: None,
            api_key_env: None,
            instructions: None,
        },
    )
    .map_err(|e| e.to_string())?;
    let opts = resolved.options;
    let route = registry
        .route(opts.provider.wire, &opts.harness)
        .map_err(|e| e.to_string())?;
    let items = match (&history, &prompt) {
        (Some(path), _) => crate::exec::read_items(path)?,
        (None, Some(text)) => vec![Item::text("msg_1", Role::User, text.clone())],
        (None, None) => return Err("pass --prompt TEXT or --history FILE".into()),
    };
    let env = context::capture(&cwd);
    let paths = tack_engine::config::Paths::from_env();
    let prompts = PromptStore::with_override_dir(paths.prompts_dir());
    let prompt = Prompt {
        examples: opts.examples.clone(),
        history: items,
        tools: builtin_tools()
            .iter()
            .filter(|t| {
                opts.provider
                    .tools
                    .as_ref()
                    .is_none_or(|allowed| allowed.iter().any(|a| a == t.name()))
            })
            .map(|t| t.spec())
            .collect(),
        instructions: opts.instructions.clone(),
        context: StepContext {
            session_id: "shape".into(),
            turn_id: "turn_shape".into(),
            step: 0,
            cwd: cwd.display().to_string(),
            now: chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
            os: context::os_name().into(),
            os_version: env.os_version,
            shell: env.shell,
            git: env.git,
            project_docs: env.project_docs,
            listing: env.listing,
            model: opts.model.clone(),
            provider: opts.provider.info(),
            approval: opts.approval,
        },
    };
    let mut shaped = route
        .harness
        .shape(
            &prompt,
            route.wire,
            &ShapeEnv {
                prompts: &prompts,
                emulate_identity: opts.provider.emulate_identity,
            },
        )
        .map_err(|e| e.to_string())?;
    if let Some(t) = opts.provider.temperature {
        shaped.request.params.temperature = Some(t);
    }
    let rendered = render(
        &shaped.request,
        route.wire,
        &Endpoint::new(opts.provider.base_url.clone()),
    )
    .map_err(|e| e.to_string())?;
    let body: Value = serde_json::from_slice(&rendered.body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&rendered.body).into_owned()));
    let headers: Vec<Value> = rendered
        .headers
        .iter()
        .map(|(k, v)| {
            let v = if tack_protocol::is_secret_header(k) {
                tack_protocol::REDACTED
            } else {
                v.as_str()
            };
            json!({"name": k, "value": v})
        })
        .collect();
    let out = json!({
        "route": route.name(),
        "prompt_source": shaped.prompt_source,
        "method": rendered.method,
        "url": rendered.url,
        "headers": headers,
        "body": body,
    });
    let text = serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?;
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = writeln!(stdout, "{text}");
    Ok(ExitCode::SUCCESS)
}

/// A prompt with no history, for getting a harness's postprocess outside a session.
pub(crate) fn bare_prompt(cwd: &Path, wire: Wire, tools: Vec<ToolSpec>) -> Prompt {
    Prompt {
        examples: Vec::new(),
        history: Vec::new(),
        tools,
        instructions: None,
        context: StepContext {
            session_id: "decode".into(),
            turn_id: "turn_decode".into(),
            step: 0,
            cwd: cwd.display().to_string(),
            now: chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
            os: context::os_name().into(),
            os_version: String::new(),
            shell: "/bin/bash".into(),
            git: None,
            project_docs: Vec::new(),
            listing: Vec::new(),
            model: "model".into(),
            provider: ProviderInfo {
                id: "decode".into(),
                name: "decode".into(),
                base_url: "http://127.0.0.1".into(),
                wire,
            },
            approval: ApprovalPolicy::Untrusted,
        },
    }
}
