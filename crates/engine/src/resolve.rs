//! Resolving what a session runs with from the user's choices, the config file, the catalog
//! and the keychain. Shared by the CLI and the desktop shell so both behave the same.

use std::path::PathBuf;

use tack_harness::Registry;
use tack_protocol::{ApprovalPolicy, Wire};

use crate::config::{Config, ConfigError, LOCAL_PROVIDER_ID, infer_harness};
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
            instructions,
            api_key,
            interactive: true,
            examples,
        },
        harness_source,
        key_source,
    })
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
