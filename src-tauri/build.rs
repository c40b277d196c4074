//! Build script: tauri-build generates the app's context (config, capabilities, icons) for
//! `tauri::generate_context!`.
fn main() {
    tauri_build::build();
}
