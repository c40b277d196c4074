//! Events the shell sends to the webview.

use serde::{Deserialize, Serialize};
use tack_protocol::EngineEvent;
use tauri::Runtime;
use tauri_specta::Event;

/// An engine event of one session, forwarded as it happens.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct EngineEventEnvelope {
    /// The session it belongs to.
    pub session_id: String,
    /// The event.
    pub event: EngineEvent,
}

/// Files changed in a watched workspace (by anything, Tack included).
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceChanged {
    /// The workspace.
    pub cwd: String,
    /// Changed paths, relative to it.
    pub paths: Vec<String>,
}

/// A menu item the webview handles (e.g. "toggle-inspector").
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct MenuAction {
    /// Action id: `new-session`, `open-folder`, `toggle-inspector`, `settings`, `about`.
    pub action: String,
}

/// Anything the shell emits.
#[derive(Debug, Clone)]
pub enum AppEvent {
    /// Engine event (boxed: it is many times the size of the others).
    Engine(Box<EngineEventEnvelope>),
    /// Workspace change.
    Workspace(WorkspaceChanged),
    /// Menu action.
    Menu(MenuAction),
}

/// Sends an event to every window.
pub fn emit<R: Runtime>(handle: &tauri::AppHandle<R>, event: AppEvent) {
    let result = match event {
        AppEvent::Engine(e) => e.emit(handle),
        AppEvent::Workspace(e) => e.emit(handle),
        AppEvent::Menu(e) => e.emit(handle),
    };
    if let Err(e) = result {
        tracing::warn!(error = %e, "could not emit an event to the webview");
    }
}
