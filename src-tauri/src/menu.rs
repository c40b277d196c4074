//! The application menu. Items that concern the UI are forwarded as [`MenuAction`] events.

use tauri::menu::{AboutMetadata, Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::{AppHandle, Manager, Runtime};

use crate::events::{AppEvent, MenuAction};
use crate::state::AppState;

pub(crate) fn build<R: Runtime>(handle: &AppHandle<R>) -> tauri::Result<Menu<R>> {
    let item = |id: &str, text: &str, accel: Option<&str>| {
        MenuItem::with_id(handle, id, text, true, accel)
    };
    let file = Submenu::with_items(
        handle,
        "File",
        true,
        &[
            &item("new-session", "New Session", Some("CmdOrCtrl+N"))?,
            &item("open-folder", "Open Folder…", Some("CmdOrCtrl+O"))?,
            &PredefinedMenuItem::separator(handle)?,
            &item("settings", "Providers and Keys…", Some("CmdOrCtrl+,"))?,
            &PredefinedMenuItem::separator(handle)?,
            // Not the predefined quit item: Tauri does not support it on Linux (it shows greyed
            // out there).
            &item("quit", "Quit", Some("CmdOrCtrl+Q"))?,
        ],
    )?;
    let edit = Submenu::with_items(
        handle,
        "Edit",
        true,
        &[
            &PredefinedMenuItem::undo(handle, None)?,
            &PredefinedMenuItem::redo(handle, None)?,
            &PredefinedMenuItem::separator(handle)?,
            &PredefinedMenuItem::cut(handle, None)?,
            &PredefinedMenuItem::copy(handle, None)?,
            &PredefinedMenuItem::paste(handle, None)?,
            &PredefinedMenuItem::select_all(handle, None)?,
        ],
    )?;
    let view = Submenu::with_items(
        handle,
        "View",
        true,
        &[&item(
            "toggle-inspector",
            "Toggle Inspector",
            Some("CmdOrCtrl+I"),
        )?],
    )?;
    let help = Submenu::with_items(
        handle,
        "Help",
        true,
        &[&PredefinedMenuItem::about(
            handle,
            Some("About Tack"),
            Some(AboutMetadata {
                name: Some("Tack".into()),
                version: Some(env!("CARGO_PKG_VERSION").into()),
                comments: Some("A workbench for coding agents".into()),
                license: Some("Apache-2.0".into()),
                ..Default::default()
            }),
        )?],
    )?;
    Menu::with_items(handle, &[&file, &edit, &view, &help])
}

pub(crate) fn handle<R: Runtime>(app: &AppHandle<R>, id: &str) {
    if id == "quit" {
        crate::quit(app);
        return;
    }
    if matches!(
        id,
        "new-session" | "open-folder" | "settings" | "toggle-inspector"
    ) && let Some(state) = app.try_state::<AppState>()
    {
        state.emit(AppEvent::Menu(MenuAction {
            action: id.to_string(),
        }));
    }
}
