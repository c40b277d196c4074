//! `scripts/run.sh` starts the embedded local model when the app will want it; the decision is
//! `scripts/wants-local-model.sh`, run here against real config files.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

fn wants_local_model(config: &Path) -> bool {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/wants-local-model.sh");
    let status = Command::new("bash")
        .arg(script)
        .arg(config)
        .status()
        .unwrap();
    match status.code() {
        Some(0) => true,
        Some(1) => false,
        other => panic!("wants-local-model.sh exited with {other:?}"),
    }
}

#[test]
fn the_local_model_starts_when_it_is_the_default_or_the_config_does_not_load() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    assert!(wants_local_model(&config), "no config file");
    for (text, wanted) in [
        ("", true),
        ("approval = \"never\"\n", true),
        ("default_provider = \"local\"\n", true),
        ("default_provider = \"local\"   # the embedded one\n", true),
        // Broken: the app shows the error and offers the built-ins, the local model first.
        ("default_provider = \"local\n", true),
        ("default_provider = \"deepseek\"\nbogus = 1\n", true),
        ("default_provider = \"deepseek\"\n", false),
        (
            "# mine\ndefault_provider = \"work\"\n\n[[providers]]\nid = \"work\"\nname = \"W\"\nbase_url = \"http://h/v1\"\nwire = \"chat\"\nmodel = \"m\"\n",
            false,
        ),
    ] {
        std::fs::write(&config, text).unwrap();
        assert_eq!(wants_local_model(&config), wanted, "{text:?}");
    }
}
