//! Provider keys: the OS keychain first, then the provider's environment variable.
//!
//! Keys are held in [`ApiKey`], whose `Debug` and `Display` never print the value, so a key
//! cannot leak through a log line or an error message by accident. The keychain is reached
//! through the `keyring` crate (Secret Service on Linux, Keychain on macOS, Credential Manager
//! on Windows). When no keychain is available (e.g. a headless machine without a Secret
//! Service), [`SecretStore::status`] says so and keys come from environment variables only:
//! Tack never falls back to a plaintext file.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

/// A provider key. Its formatting never shows the value.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key (surrounding whitespace removed).
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into().trim().to_string())
    }
    /// The secret value, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
    /// The last four characters, for "key set ••••abcd" displays.
    pub fn last4(&self) -> String {
        let n = self.0.chars().count();
        self.0.chars().skip(n.saturating_sub(4)).collect()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([REDACTED])")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[REDACTED]")
    }
}

/// Why a keychain operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// No keychain service is reachable; the service's reason (e.g. `Secret Service: no
    /// result found`). What to do instead (the provider's environment variable) is the
    /// caller's to say, once, in its own words.
    #[error("the OS keychain is not available ({0})")]
    Unavailable(String),
    /// The keychain refused or failed.
    #[error("keychain error: {0}")]
    Failed(String),
}

/// Whether a keychain is usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeychainStatus {
    /// Usable.
    pub available: bool,
    /// Why not, when not: the keychain's own reason (e.g. `Secret Service: no result found`),
    /// without advice, so a caller can put it in its own sentence.
    pub message: Option<String>,
}

/// Where keys are stored, per provider id.
pub trait SecretStore: Send + Sync {
    /// Reads a provider's key; `Ok(None)` when none is stored.
    ///
    /// # Errors
    /// [`SecretError`] when the store cannot be reached.
    fn get(&self, provider: &str) -> Result<Option<ApiKey>, SecretError>;
    /// Stores a provider's key, replacing any previous one.
    ///
    /// # Errors
    /// [`SecretError`].
    fn set(&self, provider: &str, key: &ApiKey) -> Result<(), SecretError>;
    /// Deletes a provider's key (no error if there was none).
    ///
    /// # Errors
    /// [`SecretError`].
    fn delete(&self, provider: &str) -> Result<(), SecretError>;
    /// Whether the store is usable.
    fn status(&self) -> KeychainStatus;
}

/// Keychain service name under which Tack stores keys (`user` = provider id).
pub const KEYCHAIN_SERVICE: &str = "dev.tack.provider-keys";

/// The OS keychain through `keyring`.
#[derive(Debug, Default)]
pub struct KeychainStore;

impl KeychainStore {
    fn entry(provider: &str) -> Result<keyring::Entry, SecretError> {
        keyring::Entry::new(KEYCHAIN_SERVICE, provider).map_err(map_keyring)
    }
}

fn map_keyring(e: keyring::Error) -> SecretError {
    match e {
        keyring::Error::PlatformFailure(inner) => SecretError::Unavailable(inner.to_string()),
        keyring::Error::NoStorageAccess(inner) => SecretError::Unavailable(inner.to_string()),
        other => SecretError::Failed(other.to_string()),
    }
}

impl SecretStore for KeychainStore {
    fn get(&self, provider: &str) -> Result<Option<ApiKey>, SecretError> {
        match Self::entry(provider)?.get_password() {
            Ok(k) => Ok(Some(ApiKey::new(k))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(map_keyring(e)),
        }
    }

    fn set(&self, provider: &str, key: &ApiKey) -> Result<(), SecretError> {
        Self::entry(provider)?
            .set_password(key.expose())
            .map_err(map_keyring)
    }

    fn delete(&self, provider: &str) -> Result<(), SecretError> {
        match Self::entry(provider)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(map_keyring(e)),
        }
    }

    fn status(&self) -> KeychainStatus {
        // A read of a name nobody uses tells whether the service answers at all.
        match self.get("__tack_probe__") {
            Ok(_) => KeychainStatus {
                available: true,
                message: None,
            },
            Err(SecretError::Unavailable(reason) | SecretError::Failed(reason)) => KeychainStatus {
                available: false,
                message: Some(reason),
            },
        }
    }
}

/// An in-memory store (tests, and machines where the user declined the keychain).
#[derive(Debug, Default)]
pub struct MemoryStore {
    keys: Mutex<HashMap<String, ApiKey>>,
}

impl SecretStore for MemoryStore {
    fn get(&self, provider: &str) -> Result<Option<ApiKey>, SecretError> {
        Ok(self
            .keys
            .lock()
            .map_err(|_| SecretError::Failed("store poisoned".into()))?
            .get(provider)
            .cloned())
    }
    fn set(&self, provider: &str, key: &ApiKey) -> Result<(), SecretError> {
        self.keys
            .lock()
            .map_err(|_| SecretError::Failed("store poisoned".into()))?
            .insert(provider.to_string(), key.clone());
        Ok(())
    }
    fn delete(&self, provider: &str) -> Result<(), SecretError> {
        self.keys
            .lock()
            .map_err(|_| SecretError::Failed("store poisoned".into()))?
            .remove(provider);
        Ok(())
    }
    fn status(&self) -> KeychainStatus {
        KeychainStatus {
            available: true,
            message: None,
        }
    }
}

/// Where a resolved key came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    /// The OS keychain.
    Keychain,
    /// An environment variable.
    Env,
    /// No key.
    None,
}

/// Resolves a provider's key: keychain first, then `env_key` (if given). A keychain that is
/// unavailable is not an error here (the env var still works); it is logged once at debug.
pub fn resolve_key(
    store: &dyn SecretStore,
    provider: &str,
    env_key: Option<&str>,
) -> (Option<ApiKey>, KeySource) {
    match store.get(provider) {
        Ok(Some(k)) if !k.expose().is_empty() => return (Some(k), KeySource::Keychain),
        Ok(_) => {}
        Err(e) => tracing::debug!(provider, error = %e, "keychain lookup failed; trying env"),
    }
    if let Some(var) = env_key
        && let Ok(v) = std::env::var(var)
        && !v.trim().is_empty()
    {
        return (Some(ApiKey::new(v)), KeySource::Env);
    }
    (None, KeySource::None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_formatting_never_shows_the_value() {
        let k = ApiKey::new(" sk-canary-123456 ");
        assert_eq!(format!("{k}"), "[REDACTED]");
        assert_eq!(format!("{k:?}"), "ApiKey([REDACTED])");
        assert_eq!(k.last4(), "3456");
        assert_eq!(k.expose(), "sk-canary-123456");
    }

    #[test]
    fn keychain_wins_over_env() {
        let store = MemoryStore::default();
        let (k, src) = resolve_key(&store, "p", Some("TACK_TEST_UNSET_VAR_XYZ"));
        assert!(k.is_none());
        assert_eq!(src, KeySource::None);
        store.set("p", &ApiKey::new("from-keychain")).unwrap();
        let (k, src) = resolve_key(&store, "p", Some("PATH"));
        assert_eq!(k.unwrap().expose(), "from-keychain");
        assert_eq!(src, KeySource::Keychain);
        store.delete("p").unwrap();
        let (k, src) = resolve_key(&store, "p", Some("PATH"));
        assert!(k.is_some());
        assert_eq!(src, KeySource::Env);
    }
}
