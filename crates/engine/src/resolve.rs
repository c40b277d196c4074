//! Resolving what a session runs with from the user's choices, the config file, the catalog
//! and the keychain. Shared by the CLI and the desktop shell so both behave the same.

use std::path::PathBuf;

use tack_harness::Registry;
use tack_protocol::{ApprovalPolicy, SandboxMode, Wire};

use crate::config::{Config, ConfigError, LOCAL_PROVIDER_ID, infer_harness};
use crate::log::LoadedSession;
use crate::secrets::{ApiKey, KeySource, SecretStore, resolve_key};
use crate::session::SessionOptions;

/// The user's choices; `None` means "use the config / default".
#[derive(Debug, Clone, Default)]
pub struct SessionRequest {
    /// Workspace.
    pub cwd: PathBuf,
    /// Provider id or base URL.
    pub provider: Option<String>,
    /// Model.
    pub model: Option<String>,
    /// Harness id or `auto`.
    pub harness: Option<String>,
    /// Wire override.
    pub wire: Option<Wire>,
    /// Approval policy.
    pub approval: Option<ApprovalPolicy>,
    /// Sandbox mode (default: the config's, else `workspace-write`).
    pub sandbox: Option<SandboxMode>,
    /// Network for sandboxed commands (default: the provider's, then the config's, else off).
    pub network: Option<bool>,
    /// Read the key from this environment variable instead of the provider's.
    pub api_key_env: Option<String>,
    /// Extra instructions (added to the config's).
    pub instructions: Option<String>,
}

/// Why a session could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// Config problem.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A base-URL provider without `--model`.
    #[error("a model is required for provider `{0}`; pass --model")]
    NoModel(String),
    /// The provider's `examples` could not be loaded.
    #[error("provider `{provider}`: {message}")]
    Examples {
        /// Provider id.
        provider: String,
        /// What went wrong.
        message: String,
    },
}

/// Where the harness choice came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HarnessSource {
    /// Given explicitly (flag or provider config).
    Explicit,
    /// Inferred from provider and model.
    Inferred,
    /// Nothing matched: `native`.
    Default,
}

/// A resolved session plus facts worth telling the user.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// Options to create the session with.
    pub options: SessionOptions,
    /// Where the harness came from.
    pub harness_source: HarnessSource,
    /// Where the key came from.
    pub key_source: KeySource,
}

/// Resolves a session request.
///
/// Harness: an explicit choice always wins; with "auto", the inferred harness is used when it
/// is registered, else `native`.
///
/// # Errors
/// [`ResolveError`] for an unknown provider or a missing model.
pub fn resolve(
    config: &Config,
    registry: &Registry,
    secrets: &dyn SecretStore,
    req: &SessionRequest,
) -> Result<Resolved, ResolveError> {
    let provider_id = req
        .provider
        .clone()
        .or_else(|| config.default_provider.clone())
        .unwrap_or_else(|| LOCAL_PROVIDER_ID.to_string());
    let mut provider = config.provider(&provider_id, req.wire)?;
    let model = req
        .model
        .clone()
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| provider.model.clone());
    if model.is_empty() {
        return Err(ResolveError::NoModel(provider_id));
    }
    provider.model = model.clone();
    let explicit = req
        .harness
        .as_deref()
        .filter(|h| !h.is_empty() && *h != "auto")
        .or(provider.explicit_harness())
        .map(str::to_string);
    let (harness, harness_source) = match explicit {
        Some(h) => (h, HarnessSource::Explicit),
        None => match infer_harness(&provider, &model).filter(|h| registry.get(h).is_some()) {
            Some(h) => (h.to_string(), HarnessSource::Inferred),
            None => ("native".to_string(), HarnessSource::Default),
        },
    };
    let env_key = req.api_key_env.clone().or_else(|| provider.env_key.clone());
    let (api_key, key_source): (Option<ApiKey>, KeySource) =
        resolve_key(secrets, &provider.id, env_key.as_deref());
    let examples = match &provider.examples {
        Some(spec) => {
            crate::config::load_examples(spec).map_err(|message| ResolveError::Examples {
                provider: provider.id.clone(),
                message,
            })?
        }
        None => Vec::new(),
    };
    let mut instructions = config.instructions.clone();
    if let Some(extra) = &req.instructions {
        instructions = Some(match instructions {
            Some(base) => format!("{base}\n\n{extra}"),
            None => extra.clone(),
        });
    }
    Ok(Resolved {
        options: SessionOptions {
            cwd: req.cwd.clone(),
            provider,
            model,
            harness,
            approval: req.approval.or(config.approval).unwrap_or_default(),
            sandbox: sandbox_status(
                req.sandbox.or(config.sandbox).unwrap_or_default(),
                req.network.or(config.network).unwrap_or(false),
            ),
            writable_roots: config.writable_roots.clone(),
            rules: crate::rules::RuleSet::from_config(config),
            instructions,
            api_key,
            interactive: true,
            examples,
            max_steps: crate::MAX_STEPS,
            limits: config.command_limits(),
        },
        harness_source,
        key_source,
    })
}

/// The sandbox a session gets: the mechanism this machine has (probed once), the mode and
/// the network setting chosen.
pub fn sandbox_status(mode: SandboxMode, network: bool) -> tack_protocol::SandboxStatus {
    let probe = tack_sandbox::probe();
    let summary = match (mode, probe.mechanism) {
        (SandboxMode::DangerFullAccess, _) => {
            "danger-full-access: commands run without a sandbox".to_string()
        }
        _ => probe.summary.clone(),
    };
    tack_protocol::SandboxStatus {
        mechanism: probe.mechanism,
        mode,
        network,
        summary,
    }
}

/// Id [`Config::provider`] gives an ad-hoc provider, one given as a base URL instead of an
/// id. Session logs record such a provider's base URL so it can be rebuilt on resume.
pub const CUSTOM_PROVIDER_ID: &str = "custom";

/// The provider to ask [`resolve`] for when reopening a logged session: its id, or, for an
/// ad-hoc provider (one given as a base URL, logged with its URL), that URL, so the provider
/// is rebuilt from the log. A provider the config now defines under the logged id wins over
/// the logged URL.
pub fn logged_provider(config: &Config, loaded: &LoadedSession) -> String {
    let id = &loaded.settings.provider;
    match &loaded.provider_url {
        Some(url) if config.provider(id, None).is_err() => url.clone(),
        _ => id.clone(),
    }
}

/// A request that reopens a logged session with the settings it last ran with (workspace,
/// provider as in [`logged_provider`], model, harness, wire, approval policy).
pub fn resume_request(config: &Config, loaded: &LoadedSession) -> SessionRequest {
    let s = &loaded.settings;
    SessionRequest {
        cwd: PathBuf::from(&s.cwd),
        provider: Some(logged_provider(config, loaded)),
        model: Some(s.model.clone()),
        harness: Some(s.harness.clone()),
        wire: Some(s.wire),
        approval: Some(s.approval),
        sandbox: Some(s.sandbox.mode),
        network: Some(s.sandbox.network),
        api_key_env: None,
        instructions: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::MemoryStore;

    #[test]
    fn defaults_to_the_local_model_with_the_minimal_harness() {
        let r = resolve(
            &Config::default(),
            &Registry::builtin(),
            &MemoryStore::default(),
            &SessionRequest {
                cwd: ".".into(),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(r.options.provider.id, "local");
        assert_eq!(r.options.harness, "minimal");
        assert_eq!(r.harness_source, HarnessSource::Explicit);
        assert_eq!(r.options.approval, ApprovalPolicy::Untrusted);
    }

    #[test]
    fn a_base_url_provider_is_logged_with_its_url_and_comes_back_from_it() {
        let reg = Registry::builtin();
        let store = MemoryStore::default();
        let url = "http://127.0.0.1:9/v1";
        let req = SessionRequest {
            cwd: ".".into(),
            provider: Some(format!("{url}/")),
            model: Some("m".into()),
            harness: Some("native".into()),
            wire: Some(Wire::Responses),
            ..Default::default()
        };
        let opts = resolve(&Config::default(), &reg, &store, &req)
            .unwrap()
            .options;
        assert_eq!(opts.provider.id, CUSTOM_PROVIDER_ID);
        assert_eq!(opts.provider_url().as_deref(), Some(url));
        assert_eq!(opts.max_steps, crate::MAX_STEPS);
        let mut loaded = LoadedSession {
            session_id: "s".into(),
            created_at: "t".into(),
            settings: opts.settings(),
            provider_url: opts.provider_url(),
            title: None,
            items: Vec::new(),
            unfinished_turn: None,
            torn_tail: false,
            header_changes: Vec::new(),
            cut_off: Vec::new(),
            records: Vec::new(),
        };
        let again = resolve(
            &Config::default(),
            &reg,
            &store,
            &resume_request(&Config::default(), &loaded),
        )
        .unwrap()
        .options;
        assert_eq!(again.provider.id, CUSTOM_PROVIDER_ID);
        assert_eq!(again.provider.base_url, url);
        assert_eq!(again.provider.wire, Wire::Responses);
        assert_eq!(
            (again.model.as_str(), again.harness.as_str()),
            ("m", "native")
        );
        // A provider the config defines under the logged id wins over the logged URL.
        let config: Config = toml::from_str(
            "[[providers]]\nid = \"custom\"\nname = \"Mine\"\nbase_url = \"http://h/v1\"\nwire = \"chat\"\nmodel = \"m\"\n",
        )
        .unwrap();
        assert_eq!(logged_provider(&config, &loaded), "custom");
        // A catalog provider is found again by id; an old log without a URL keeps the id.
        loaded.provider_url = None;
        assert_eq!(logged_provider(&Config::default(), &loaded), "custom");
        let local = resolve(
            &Config::default(),
            &reg,
            &store,
            &SessionRequest {
                cwd: ".".into(),
                ..Default::default()
            },
        )
        .unwrap()
        .options;
        assert_eq!(local.provider_url(), None);
    }

    #[test]
    fn explicit_harness_wins_and_unregistered_inference_falls_back_to_native() {
        let store = MemoryStore::default();
        let reg = Registry::builtin();
        let req = SessionRequest {
            cwd: ".".into(),
            provider: Some("openai".into()),
            harness: Some("minimal".into()),
            ..Default::default()
        };
        let r = resolve(&Config::default(), &reg, &store, &req).unwrap();
        assert_eq!(r.options.harness, "minimal");
        let req = SessionRequest {
            cwd: ".".into(),
            provider: Some("http://127.0.0.1:1/v1".into()),
            model: Some("gpt-test".into()),
            ..Default::default()
        };
        let r = resolve(&Config::default(), &reg, &store, &req).unwrap();
        assert_eq!(r.options.harness, "native");
        assert_eq!(r.harness_source, HarnessSource::Default);
        let req = SessionRequest {
            cwd: ".".into(),
            provider: Some("http://127.0.0.1:1/v1".into()),
            ..Default::default()
        };
        assert!(matches!(
            resolve(&Config::default(), &reg, &store, &req),
            Err(ResolveError::NoModel(_))
        ));
    }
}
