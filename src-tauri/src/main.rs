//! The `tack-app` binary: starts the desktop shell ([`tack_app::run`]).

// No console window on Windows release builds.
#![cfg_attr(
    all(not(debug_assertions), target_os = "windows"),
    windows_subsystem = "windows"
)]

fn main() {
    tack_app::run();
}
