//! The TypeScript bindings in `ui/src/bindings.ts` are generated from the Rust commands and
//! events; this test fails when they are stale. Regenerate with
//! `TACK_WRITE_BINDINGS=1 cargo test -p tack-app --test bindings`.

use std::path::Path;

#[test]
fn bindings_are_fresh() {
    let builder = tack_app::specta_builder::<tauri::Wry>();
    let dir = tempfile::tempdir().unwrap();
    let fresh_path = dir.path().join("bindings.ts");
    builder.export(tack_app::typescript(), &fresh_path).unwrap();
    let fresh = std::fs::read_to_string(&fresh_path).unwrap();
    let checked_in_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(tack_app::BINDINGS_PATH);
    if std::env::var_os("TACK_WRITE_BINDINGS").is_some() {
        std::fs::write(&checked_in_path, &fresh).unwrap();
        return;
    }
    let checked_in = std::fs::read_to_string(&checked_in_path).unwrap_or_default();
    assert!(
        checked_in == fresh,
        "ui/src/bindings.ts is stale: regenerate it with `TACK_WRITE_BINDINGS=1 cargo test -p tack-app --test bindings` and commit the result"
    );
}
