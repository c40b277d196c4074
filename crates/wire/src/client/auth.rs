//! Credentials as the client sends them.

use std::fmt;

use reqwest::header::{HeaderName, HeaderValue};
use tack_protocol::{ErrorKind, ModelError};

/// A secret (an API key). Its `Debug` prints `[REDACTED]`; it has no `Display` and no
/// `Serialize`, so it cannot reach a log line, an error or a record by accident. Read it with
/// [`SecretString::expose`] only where it is sent.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretString(String);

impl SecretString {
    /// Wraps a secret.
    pub fn new(secret: impl Into<String>) -> Self {
        SecretString(secret.into())
    }

    /// The secret itself.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the secret is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for SecretString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretString([REDACTED])")
    }
}

impl From<String> for SecretString {
    fn from(s: String) -> Self {
        SecretString(s)
    }
}

/// How a provider expects its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthScheme {
    /// `authorization: Bearer <key>` (OpenAI and every OpenAI-compatible server).
    Bearer,
    /// `x-api-key: <key>` (Anthropic Messages).
    XApiKey,
    /// `<name>: <key>` (e.g. Azure's `api-key`). The name is sent lowercase.
    Header(String),
}

/// A key and the way to send it. Added to the request at send time only; the rendered request
/// and the recorded exchange never hold it (the exchange shows the header as `[REDACTED]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Auth {
    /// Header scheme.
    pub scheme: AuthScheme,
    /// The key.
    pub key: SecretString,
}

impl Auth {
    /// Bearer auth with `key`.
    pub fn bearer(key: impl Into<String>) -> Self {
        Auth {
            scheme: AuthScheme::Bearer,
            key: SecretString::new(key),
        }
    }

    /// The header to send, marked sensitive (HTTP/2 never indexes it in HPACK tables and
    /// `http`'s `Debug` hides it).
    ///
    /// # Errors
    /// `config` when the header name is invalid or the key has characters a header cannot
    /// carry (e.g. a newline pasted with it); the message never includes the key.
    pub fn header(&self) -> Result<(HeaderName, HeaderValue), ModelError> {
        let (name, value) = match &self.scheme {
            AuthScheme::Bearer => (
                HeaderName::from_static("authorization"),
                HeaderValue::try_from(format!("Bearer {}", self.key.expose())),
            ),
            AuthScheme::XApiKey => (
                HeaderName::from_static("x-api-key"),
                HeaderValue::try_from(self.key.expose()),
            ),
            AuthScheme::Header(name) => (
                HeaderName::try_from(name.to_ascii_lowercase()).map_err(|_| {
                    ModelError::new(
                        ErrorKind::Config,
                        format!("`{name}` is not a valid HTTP header name for the API key"),
                    )
                })?,
                HeaderValue::try_from(self.key.expose()),
            ),
        };
        let mut value = value.map_err(|_| {
            ModelError::new(
                ErrorKind::Config,
                "the API key contains characters an HTTP header cannot carry",
            )
            .with_hint("check the key for a pasted newline or space")
        })?;
        value.set_sensitive(true);
        Ok((name, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_prints_the_key() {
        let auth = Auth::bearer("sk-canary-123456");
        let printed = format!("{auth:?}");
        assert!(!printed.contains("canary"), "{printed}");
        assert!(printed.contains("[REDACTED]"));
    }

    #[test]
    fn headers_per_scheme() {
        let key = SecretString::new("k-12345678");
        let bearer = Auth {
            scheme: AuthScheme::Bearer,
            key: key.clone(),
        }
        .header()
        .unwrap();
        assert_eq!(bearer.0, "authorization");
        assert_eq!(bearer.1.to_str().unwrap(), "Bearer k-12345678");
        assert!(bearer.1.is_sensitive());
        let x = Auth {
            scheme: AuthScheme::XApiKey,
            key: key.clone(),
        }
        .header()
        .unwrap();
        assert_eq!(x.0, "x-api-key");
        let custom = Auth {
            scheme: AuthScheme::Header("Api-Key".into()),
            key,
        }
        .header()
        .unwrap();
        assert_eq!(custom.0, "api-key");
        let bad = Auth::bearer("line\nbreak").header().unwrap_err();
        assert_eq!(bad.kind, ErrorKind::Config);
        assert!(!bad.message.contains("line"));
    }
}
