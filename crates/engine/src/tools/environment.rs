//! The environment a command the model asked for runs with: Tack's own, minus anything that
//! looks like a credential.
//!
//! Tack reads provider keys from environment variables (`OPENAI_API_KEY`, a provider's
//! `env_key`, `TACK_API_KEY`), and a child inherits its parent's environment. A model that
//! runs `env` would otherwise print the key into the session log and send it back to the
//! provider. The rule is by name, so keys Tack does not know about (cloud credentials, tokens
//! of other tools) are hidden too: a variable whose name contains `KEY`, `SECRET`, `TOKEN`,
//! `PASSWORD`, `PASSWD` or `CREDENTIAL` (any case) is removed. A command that needs such a
//! variable has to be given it explicitly (`GITHUB_TOKEN=… gh …` typed by the user).

use std::ffi::OsString;

/// Substrings of variable names (upper case) that mark a credential.
const SECRET_MARKERS: &[&str] = &["KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL"];

/// Whether a variable with this name is hidden from commands.
pub(crate) fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_MARKERS.iter().any(|m| upper.contains(m))
}

/// The names of the variables in Tack's environment that commands must not inherit.
pub(crate) fn hidden_variables() -> Vec<OsString> {
    std::env::vars_os()
        .map(|(name, _)| name)
        .filter(|name| name.to_str().is_none_or(is_secret_name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_names_are_hidden_and_others_kept() {
        for name in [
            "OPENAI_API_KEY",
            "TACK_API_KEY",
            "fake_canary_key",
            "AWS_SECRET_ACCESS_KEY",
            "GITHUB_TOKEN",
            "PGPASSWORD",
            "GOOGLE_APPLICATION_CREDENTIALS",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "PATH",
            "HOME",
            "LANG",
            "TERM",
            "CARGO_HOME",
            "SSH_AUTH_SOCK",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }
}
