//! The command-safety classifier on any text: no panic, no stack overflow (the walk is bounded
//! however deep the nesting), and the verdict is the most severe of its parts. Byte 0 picks
//! `classify` or `classify_in` (bit 0); the rest is the command line.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use tack_command_safety::{CommandClass, CommandSite, classify, classify_in};

fuzz_target!(|data: &[u8]| {
    let [pick, body @ ..] = data else { return };
    let Ok(command) = std::str::from_utf8(body) else { return };
    let site = CommandSite {
        workspace: Path::new("/nonexistent-fuzz-workspace"),
        cwd: Path::new("/nonexistent-fuzz-workspace"),
        home: Some(Path::new("/nonexistent-fuzz-home")),
    };
    let got = if pick & 1 == 0 { classify(command) } else { classify_in(command, &site) };
    let worst = got.parts.iter().map(|p| p.class).max().unwrap_or(CommandClass::ReadOnly);
    assert_eq!(got.class, worst, "{command:?}: {got:?}");
    for part in &got.parts {
        if let Some(words) = &part.literal_words {
            assert!(!words.is_empty(), "{command:?}: empty literal words in {part:?}");
        }
    }
});
