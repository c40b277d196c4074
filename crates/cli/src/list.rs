//! `tack providers`, `tack harnesses`, `tack sessions`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tack_engine::config::Paths;
use tack_engine::log::LoadedSession;
use tack_engine::secrets::{KeySource, KeychainStore, resolve_key};
use tack_harness::Registry;

pub(crate) fn providers(config: Option<PathBuf>) -> Result<ExitCode, String> {
    let config = crate::load_config(config)?;
    let store = KeychainStore;
    for p in config.providers() {
        let (key, source) = resolve_key(&store, &p.id, p.env_key.as_deref());
        let key = match (source, key) {
            (KeySource::Keychain, Some(k)) => format!("key in keychain (…{})", k.last4()),
            (KeySource::Env, Some(k)) => format!(
                "key from ${} (…{})",
                p.env_key.as_deref().unwrap_or(""),
                k.last4()
            ),
            _ => match &p.env_key {
                Some(var) => format!("no key (set ${var})"),
                None => "no key needed".into(),
            },
        };
        println!(
            "{:<11} {:<9} {:<55} {:<24} harness={:<16} {key}",
            p.id,
            p.wire,
            p.base_url,
            p.model,
            p.harness.as_deref().unwrap_or("auto"),
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn harnesses() -> Result<ExitCode, String> {
    for h in Registry::builtin().list() {
        let wires: Vec<&str> = h.wires.iter().map(|w| w.as_str()).collect();
        println!("{:<18} {:<26} {}", h.id, wires.join(","), h.description);
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn sessions(cwd: Option<PathBuf>) -> Result<ExitCode, String> {
    let dir = Paths::from_env().sessions_dir();
    let filter = cwd
        .map(|c| std::fs::canonicalize(&c).map_err(|e| format!("{}: {e}", c.display())))
        .transpose()?;
    let mut rows = Vec::new();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(_) => return Ok(ExitCode::SUCCESS),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if !name.ends_with(".jsonl") || name.ends_with(".exchanges.jsonl") {
            continue;
        }
        let Ok(s) = LoadedSession::read(&path) else {
            continue;
        };
        if let Some(f) = &filter
            && Path::new(&s.settings.cwd) != f
        {
            continue;
        }
        rows.push((
            s.created_at.clone(),
            s.session_id.clone(),
            s.settings.cwd.clone(),
            s.display_title(),
            s.items.len(),
        ));
    }
    rows.sort_by(|a, b| b.0.cmp(&a.0));
    for (created, id, cwd, title, n) in rows {
        println!("{id}  {created}  {n:>4} items  {cwd}  {title}");
    }
    Ok(ExitCode::SUCCESS)
}
