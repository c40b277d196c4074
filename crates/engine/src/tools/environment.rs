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
//!
//! A command in the sandbox gets less: only the variables of an allow list
//! ([`sandbox_environment`]), so neither a provider's `env_key` with an unusual name nor the
//! addresses of the session bus or the SSH agent (`DBUS_SESSION_BUS_ADDRESS`,
//! `SSH_AUTH_SOCK`) get in. Inside the sandbox that environment is all there is: `bwrap`
//! passes it on, and `/proc/1/environ` there is `bwrap`'s own.

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

/// Variables a sandboxed command keeps: what shells, terminals and locales need, and where
/// common toolchains live (so `cargo`, `go`, `node` and `python` find themselves).
const SANDBOX_KEPT: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "GOPATH",
    "GOROOT",
    "GOMODCACHE",
    "JAVA_HOME",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "PYENV_ROOT",
    "NVM_DIR",
    "NODE_PATH",
    "PNPM_HOME",
    "BUN_INSTALL",
    "DENO_DIR",
    "PKG_CONFIG_PATH",
    "LD_LIBRARY_PATH",
    "MANPATH",
    "CC",
    "CXX",
];

/// The whole environment of a sandboxed command: the [`SANDBOX_KEPT`] variables and `LC_*`
/// of Tack's environment, never one with a credential-like name, plus
/// `GIT_TERMINAL_PROMPT=0` (git must fail rather than wait for a password nobody can type).
pub(crate) fn sandbox_environment() -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(name, _)| {
            name.to_str().is_some_and(|n| {
                (SANDBOX_KEPT.contains(&n) || n.starts_with("LC_")) && !is_secret_name(n)
            })
        })
        .collect();
    env.push(("GIT_TERMINAL_PROMPT".into(), "0".into()));
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_environment_is_an_allow_list() {
        let env = sandbox_environment();
        let names: Vec<String> = env
            .iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| {
            n == "GIT_TERMINAL_PROMPT" || SANDBOX_KEPT.contains(&n.as_str()) || n.starts_with("LC_")
        }));
        assert!(
            !names
                .iter()
                .any(|n| n == "SSH_AUTH_SOCK" || n == "DBUS_SESSION_BUS_ADDRESS")
        );
        if std::env::var_os("PATH").is_some() {
            assert!(names.iter().any(|n| n == "PATH"));
        }
    }

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
