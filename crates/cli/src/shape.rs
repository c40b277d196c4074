//! `tack shape`: the exact HTTP request a fresh prompt or a saved session would produce.
//!
//! With `--wire all`, the same prompt (history, tools, context) is shaped and rendered once per
//! wire, as the route for that wire and the resolved harness would send it: one JSON object
//! per wire, in [`Wire::ALL`] order. A wire the harness does not support is listed with the
//! routing error instead of a request.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;

use serde_json::{Map, Value, json};
use tack_engine::context;
use tack_engine::resolve::SessionRequest;
use tack_engine::secrets::MemoryStore;
use tack_engine::session::SessionOptions;
use tack_engine::tools::builtin_tools;
use tack_harness::prompts::PromptStore;
use tack_harness::{Registry, Route, RouteError, ShapeEnv};
use tack_protocol::{
    ApprovalPolicy, Item, Prompt, ProviderInfo, Role, StepContext, ToolSpec, Wire,
};
use tack_wire::{Endpoint, render};

use crate::ProviderArgs;

/// `tack shape --wire`: one wire, or every wire side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WireChoice {
    /// Render on this wire (an error when the harness does not support it).
    One(Wire),
    /// Render on every wire; unsupported ones are listed with the routing error.
    All,
}

impl FromStr for WireChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("all") {
            return Ok(WireChoice::All);
        }
        s.parse::<Wire>()
            .map(WireChoice::One)
            .map_err(|e| format!("{e}, or all"))
    }
}

pub(crate) fn run(
    config: Option<PathBuf>,
    provider: ProviderArgs,
    wire: Option<WireChoice>,
    cwd: PathBuf,
    prompt: Option<String>,
    history: Option<PathBuf>,
) -> Result<ExitCode, String> {
    let config_file = crate::config_path(config);
    let config = crate::load_config(Some(config_file.clone()))?;
    let registry = Registry::builtin();
    let cwd = std::fs::canonicalize(&cwd).map_err(|e| format!("{}: {e}", cwd.display()))?;
    // Keys are never needed to shape, and never printed: an empty store. With `all`, the
    // provider's own wire picks the harness (when it is inferred).
    let resolved = crate::resolve_session(
        &config,
        &config_file,
        &registry,
        &MemoryStore::default(),
        &SessionRequest {
            cwd: cwd.clone(),
            provider: provider.provider,
            model: provider.model,
            harness: provider.harness,
            wire: match wire {
                Some(WireChoice::One(w)) => Some(w),
                Some(WireChoice::All) | None => None,
            },
            approval: None,
            sandbox: None,
            network: None,
            api_key_env: None,
            instructions: None,
        },
    )?;
    let opts = resolved.options;
    let all = wire == Some(WireChoice::All);
    let routes: Vec<(Wire, Result<Route, RouteError>)> = if all {
        Wire::ALL
            .iter()
            .map(|&w| (w, registry.route(w, &opts.harness)))
            .collect()
    } else {
        let w = opts.provider.wire;
        vec![(w, registry.route(w, &opts.harness))]
    };
    // Checked before any file is read. An unknown harness is an error whatever the wire, and so
    // is the one wire asked for; with `all`, an unsupported wire is an entry of the output.
    for (_, route) in &routes {
        if let Err(e) = route
            && (!all || matches!(e, RouteError::UnknownHarness { .. }))
        {
            return Err(e.to_string());
        }
    }
    let items = match (&history, &prompt) {
        (Some(path), _) => crate::exec::read_items(path)?,
        (None, Some(text)) => vec![Item::text("msg_1", Role::User, text.clone())],
        (None, None) => return Err("pass --prompt TEXT or --history FILE".into()),
    };
    let paths = tack_engine::config::Paths::from_env();
    let prompts = PromptStore::with_override_dir(paths.prompts_dir());
    let prompt = prompt_for(&opts, &cwd, items);
    let mut entries = Vec::with_capacity(routes.len());
    for (w, route) in routes {
        let mut entry = Map::new();
        if all {
            entry.insert("wire".into(), json!(w));
        }
        match route {
            Ok(route) => entry.extend(request_on(&route, &prompt, &opts, &prompts)?),
            Err(e) => {
                entry.insert("error".into(), json!(e.to_string()));
            }
        }
        entries.push(Value::Object(entry));
    }
    let out = if all {
        Value::Array(entries)
    } else {
        entries.into_iter().next().unwrap_or_default()
    };
    let text = serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?;
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = writeln!(stdout, "{text}");
    Ok(ExitCode::SUCCESS)
}

/// The prompt a fresh session in `cwd` would send with `items` as its history: the engine's
/// tools (restricted to the provider's allowlist) and this machine's context, captured now.
fn prompt_for(opts: &SessionOptions, cwd: &Path, items: Vec<Item>) -> Prompt {
    let env = context::capture(cwd);
    Prompt {
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
    }
}

/// `route`'s request for `prompt` as a JSON object: `route`, `prompt_source`, `method`, `url`,
/// `headers` (`[{name, value}]`, secrets redacted) and `body` (the JSON body with its key order
/// kept, or the raw text if it is not JSON). The prompt's provider is taken to speak the
/// route's wire, and the provider's temperature override applies as in a session.
fn request_on(
    route: &Route,
    prompt: &Prompt,
    opts: &SessionOptions,
    prompts: &PromptStore,
) -> Result<Map<String, Value>, String> {
    let mut prompt = prompt.clone();
    prompt.context.provider.wire = route.wire;
    let mut shaped = route
        .harness
        .shape(
            &prompt,
            route.wire,
            &ShapeEnv {
                prompts,
                emulate_identity: opts.provider.emulate_identity,
            },
        )
        .map_err(|e| format!("{}: {e}", route.name()))?;
    if let Some(t) = opts.provider.temperature {
        shaped.request.params.temperature = Some(t);
    }
    let rendered = render(
        &shaped.request,
        route.wire,
        &Endpoint::new(opts.provider.base_url.clone()),
    )
    .map_err(|e| format!("{}: {e}", route.name()))?;
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
    let mut out = Map::new();
    out.insert("route".into(), json!(route.name()));
    out.insert("prompt_source".into(), json!(shaped.prompt_source));
    out.insert("method".into(), json!(rendered.method));
    // A base URL can carry a credential (`?key=…`, `user:pass@`): shown as the session log
    // records it.
    out.insert(
        "url".into(),
        json!(tack_wire::client::redact_url(&rendered.url)),
    );
    out.insert("headers".into(), Value::Array(headers));
    out.insert("body".into(), body);
    Ok(out)
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
