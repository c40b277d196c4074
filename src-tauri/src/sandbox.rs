//! The sandbox as the start panel shows it before a session exists: which mechanism this
//! machine has (the engine's probe, run once per process) and the config's defaults.

use serde::{Deserialize, Serialize};
use tack_protocol::{SandboxMechanism, SandboxMode};
use tauri::State;

use crate::commands::AppError;
use crate::state::AppState;

/// This machine's sandbox and the config's defaults for a new session.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SandboxInfo {
    /// The mechanism that contains commands here; `none` when nothing works (then every
    /// command asks, and runs uncontained once approved).
    pub mechanism: SandboxMechanism,
    /// The probe's line for people: "bubblewrap 0.8.0 (user, PID, mount, network namespaces;
    /// …)", or why there is no sandbox ("no sandbox: bwrap not found (…); every command asks").
    pub summary: String,
    /// The mode a new session starts with (config.toml `sandbox`, else `workspace-write`).
    pub default_mode: SandboxMode,
    /// Whether a new session's sandboxed commands may use the network (config.toml `network`,
    /// else off).
    pub default_network: bool,
    /// Folders besides the workspace that `workspace-write` commands may change
    /// (config.toml `writable_roots`).
    pub writable_roots: Vec<String>,
}

/// What the sandbox of a new session would be. The first call probes the machine (it really
/// runs `bwrap … true`, up to a few seconds), off the async runtime.
#[tauri::command]
#[specta::specta]
pub async fn sandbox_info(state: State<'_, AppState>) -> Result<SandboxInfo, AppError> {
    let config = state.config();
    let default_mode = config.sandbox.unwrap_or_default();
    let default_network = config.network.unwrap_or(false);
    let writable_roots = config
        .writable_roots
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    // The probe's own summary (not the one a danger-full-access session gets), so the panel
    // can say what the machine has whichever mode is picked.
    let status = tauri::async_runtime::spawn_blocking(|| {
        tack_engine::resolve::sandbox_status(SandboxMode::WorkspaceWrite, false)
    })
    .await
    .map_err(|e| AppError::new(format!("internal task failed: {e}"), None))?;
    Ok(SandboxInfo {
        mechanism: status.mechanism,
        summary: status.summary,
        default_mode,
        default_network,
        writable_roots,
    })
}
