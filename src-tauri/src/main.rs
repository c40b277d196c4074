//! The `tack-app` binary: starts the desktop shell ([`tack_app::run`]).

// No console window on Windows release builds.
#![cfg_attr(
    all(not(debug_assertions), target_os = "windows"),
    windows_subsystem = "windows"
)]

fn main() {
    take_provider_keys();
    tack_app::run();
}

/// Takes every provider key variable out of the environment into memory before Tauri, the
/// webview's processes or any engine thread can copy it
/// ([`tack_engine::secrets::take_keys_from_environment`]).
fn take_provider_keys() {
    let paths = tack_engine::config::Paths::from_env();
    // An unreadable config is reported when the app loads it; the built-in providers' keys
    // and $TACK_API_KEY are taken regardless.
    let config = tack_engine::config::Config::load(&paths.config_file()).unwrap_or_default();
    let names = tack_engine::secrets::provider_key_variables(&config, None);
    // SAFETY: called first thing in `main`, before Tauri starts its runtime or any thread:
    // nothing else reads or writes the environment meanwhile.
    #[allow(unsafe_code)]
    unsafe {
        tack_engine::secrets::take_keys_from_environment(&names);
    }
}
