//! Request constants of Claude Code: API version, betas, identity headers.
//!
//! Facts from a captured request of Claude Code 2.1.332 (npm `@anthropic-ai/claude-code`),
//! which wins over the anchor (openinterpreter 0.0.40, `core/src/client.rs@bee31912d`
//! `claude_code_headers`; `docs/sources.md`) where they differ: its beta list is newer (no
//! `prompt-caching-scope`/`advisor-tool`; adds per-turn control, mid-conversation tool changes,
//! thinking token counts and advanced tool use).

/// `anthropic-version`.
pub(crate) const ANTHROPIC_VERSION: &str = "2023-06-01";

/// `anthropic-beta`, in the capture's order. Betas change what the API accepts (adaptive
/// thinking display, `context_management`, `output_config.effort`, in-conversation `system`
/// messages), so they are sent whatever the identity setting.
pub(crate) const BETAS: [&str; 8] = [
    "claude-code-20250219",
    "interleaved-thinking-2025-05-14",
    "context-management-2025-06-27",
    "per-turn-control-2026-07-01",
    MID_CONVERSATION_BETA,
    "thinking-token-count-2026-05-13",
    "advanced-tool-use-2025-11-20",
    "effort-2025-11-24",
];

/// The beta under which the Messages API accepts `role: "system"` inside `messages`.
pub(crate) const MID_CONVERSATION_BETA: &str = "mid-conversation-tool-changes-2026-07-01";

/// Top-level body keys in the captured order (the Anthropic TypeScript SDK writes the CLI's
/// request object as built, not the renderer's order). Keys a request lacks are skipped.
pub(crate) const BODY_KEY_ORDER: [&str; 10] = [
    "model",
    "messages",
    "system",
    "tools",
    "metadata",
    "max_tokens",
    "thinking",
    "context_management",
    "output_config",
    "stream",
];

/// The CLI version the identity headers name (the captured one).
pub(crate) const CLI_VERSION: &str = "2.1.332";

/// The Anthropic TypeScript SDK version and runtime the captured CLI reported.
const SDK_PACKAGE_VERSION: &str = "0.128.0";
const SDK_RUNTIME_VERSION: &str = "v26.12.1";

/// Headers of a Claude Code request, in the capture's order. `accept: application/json` and
/// the functional ones (`anthropic-beta`, `anthropic-version`) always: the SDK asks for JSON
/// even when streaming (the reply is SSE all the same, and the client decodes by its
/// `content-type`). The CLI's identity (user-agent, session header, SDK headers, `x-app`) only
/// when the user opted in for this provider. The session
/// header then carries Tack's own session id; the architecture and OS are this machine's.
/// Never sent in any case: the billing-attribution system block and a device id.
pub(crate) fn headers(session_id: &str, emulate_identity: bool) -> Vec<(String, String)> {
    let h = |k: &str, v: &str| (k.to_string(), v.to_string());
    let mut out = Vec::with_capacity(17);
    out.push(h("accept", "application/json"));
    if emulate_identity {
        out.push(h(
            "user-agent",
            &format!("claude-cli/{CLI_VERSION} (external, sdk-cli)"),
        ));
        out.push(h("x-claude-code-session-id", session_id));
        out.push(h("x-stainless-arch", stainless_arch()));
        out.push(h("x-stainless-lang", "js"));
        out.push(h("x-stainless-os", stainless_os()));
        out.push(h("x-stainless-package-version", SDK_PACKAGE_VERSION));
        out.push(h("x-stainless-retry-count", "0"));
        out.push(h("x-stainless-runtime", "node"));
        out.push(h("x-stainless-runtime-version", SDK_RUNTIME_VERSION));
        out.push(h("x-stainless-timeout", "600"));
    }
    out.push(h("anthropic-beta", &BETAS.join(",")));
    if emulate_identity {
        out.push(h("anthropic-dangerous-direct-browser-access", "true"));
    }
    out.push(h("anthropic-version", ANTHROPIC_VERSION));
    if emulate_identity {
        out.push(h("x-app", "cli"));
    }
    out
}

fn stainless_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "x86" => "x32",
        other => other,
    }
}

fn stainless_os() -> &'static str {
    match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "MacOS",
        "windows" => "Windows",
        "freebsd" => "FreeBSD",
        other => other,
    }
}

/// `metadata.user_id`: the capture sends a JSON *string* holding a device id, an account id
/// and the session id. Tack sends the same shape with only its real session id: no device id
/// is made up, and there is no account.
pub(crate) fn user_id(session_id: &str) -> String {
    serde_json::json!({ "session_id": session_id }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_headers_only_on_opt_in() {
        let plain = headers("s-1", false);
        let names: Vec<&str> = plain.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, vec!["accept", "anthropic-beta", "anthropic-version"]);
        let full = headers("s-1", true);
        let names: Vec<&str> = full.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names[..2], ["accept", "user-agent"]);
        assert!(names.contains(&"x-app"));
        assert!(full.contains(&("x-claude-code-session-id".to_string(), "s-1".to_string())));
        assert!(!names.iter().any(|n| n.contains("billing")));
    }

    #[test]
    fn user_id_has_no_device() {
        assert_eq!(user_id("abc"), r#"{"session_id":"abc"}"#);
    }
}
