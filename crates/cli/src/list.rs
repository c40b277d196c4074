//! `tack providers`, `tack harnesses`, `tack sessions`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tack_engine::config::{LOCAL_PROVIDER_ID, Paths};
use tack_engine::log::LoadedSession;
use tack_engine::secrets::{KeySource, KeychainStore, resolve_key};
use tack_harness::Registry;

/// One line per provider, in columns sized to their contents; `*` marks the provider a
/// session uses when none is given (`default_provider`, else the local model).
pub(crate) fn providers(config: Option<PathBuf>) -> Result<ExitCode, String> {
    let config_file = crate::config_path(config);
    let config = crate::load_config(Some(config_file.clone()))?;
    let store = KeychainStore;
    let default = config
        .default_provider
        .clone()
        .unwrap_or_else(|| LOCAL_PROVIDER_ID.to_string());
    let header = ["PROVIDER", "WIRE", "BASE URL", "MODEL", "HARNESS", "KEY"].map(String::from);
    let mut rows = vec![(false, header)];
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
        rows.push((
            p.id == default,
            [
                p.id.clone(),
                p.wire.as_str().to_string(),
                // A credential in a base URL (`?key=…`, `user:pass@`) is not printed.
                tack_wire::client::redact_url(&p.base_url),
                p.model.clone(),
                p.harness.clone().unwrap_or_else(|| "auto".into()),
                key,
            ],
        ));
    }
    let mut widths = [0usize; 6];
    for (_, cells) in &rows {
        for (w, cell) in widths.iter_mut().zip(cells) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = std::io::stdout().lock();
    for (is_default, cells) in rows {
        let mut line = String::from(if is_default { "* " } else { "  " });
        for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                line.push_str(cell);
            } else {
                let pad = width - cell.chars().count();
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', pad + 2));
            }
        }
        let _ = writeln!(out, "{line}");
    }
    if !config.providers().iter().any(|p| p.id == default) {
        eprintln!(
            "tack: default_provider `{default}` is not a known provider; set `default_provider` in {} to one of the ids above",
            config_file.display()
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
    // Sessions record their workspace canonicalized; a folder that is gone since can't be
    // canonicalized, but its sessions still name it as it was given (made absolute).
    let filter = cwd
        .map(|c| {
            std::fs::canonicalize(&c)
                .or_else(|_| std::path::absolute(&c))
                .map_err(|e| format!("{}: {e}", c.display()))
        })
        .transpose()?;
    let mut rows = Vec::new();
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
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
    if rows.is_empty() {
        match &filter {
            Some(f) => eprintln!("tack: no sessions for {}", f.display()),
            None => eprintln!("tack: no sessions in {}", dir.display()),
        }
        return Ok(ExitCode::SUCCESS);
    }
    rows.sort_by(|a, b| b.0.cmp(&a.0));
    for (created, id, cwd, title, n) in rows {
        println!("{id}  {created}  {n:>4} items  {cwd}  {title}");
    }
    Ok(ExitCode::SUCCESS)
}
