//! What a repository's own files make git run: a hostile repository's `.git/config` can name
//! programs that even `git status`, `git diff` or `git log` run (`core.fsmonitor`,
//! `core.pager`, `diff.*.textconv`, `filter.*.process`, …). Before a git command is called
//! read-only, [`config_names_program`] reads the configuration of the repository at the site:
//! `config` and `config.worktree` of the git directory, and `config` of the common directory
//! for a linked worktree.
//!
//! Attributes (`.gitattributes`, `.git/info/attributes`) only choose drivers by name
//! (`diff=x`, `filter=x`, `merge=x`); the program a driver runs is always configuration
//! (`diff.x.textconv`, `filter.x.clean`, `merge.x.driver`), which is read here, so a driver
//! named by attributes with no program configured runs nothing and the attributes need not be
//! read. An `include.path` or `includeIf` makes the configuration incomplete, so it is
//! reported as well.
//!
//! The user's global and system configuration (`~/.gitconfig`, `/etc/gitconfig`) are not
//! read: they are the user's own, as trusted as the git binary itself.

use std::path::{Path, PathBuf};

/// Keys (lowercase; `*` is one subsection) whose value is a program git runs, or a file git
/// writes or reads configuration from.
const PROGRAM_KEYS: &[&str] = &[
    "core.fsmonitor",
    "core.pager",
    "core.sshcommand",
    "core.hookspath",
    "core.editor",
    "core.askpass",
    "core.gitproxy",
    "core.alternaterefscommand",
    "core.worktree",
    "sequence.editor",
    "gpg.program",
    "gpg.*.program",
    "credential.helper",
    "credential.*.helper",
    "diff.external",
    "diff.*.textconv",
    "diff.*.command",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "merge.*.driver",
    "pager.*",
    "interactive.difffilter",
    "uploadpack.packobjectshook",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "difftool.*.cmd",
    "mergetool.*.cmd",
    "web.browser",
    "browser.*.cmd",
    "browser.*.path",
    "man.*.cmd",
    "man.*.path",
    "help.browser",
    "include.path",
    "includeif.*.path",
    "trace2.eventtarget",
    "trace2.normaltarget",
    "trace2.perftarget",
    "protocol.allow",
    "protocol.*.allow",
    "url.*.insteadof",
    "core.attributesfile",
    "ssh.variant",
    "core.sshcommand",
];

/// Why `key = value` makes git run a program (or read or write elsewhere); `None` otherwise.
pub(crate) fn program_key(key: &str, value: &str) -> Option<String> {
    let key = key.to_ascii_lowercase();
    let (section, rest) = key.split_once('.')?;
    let (sub, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    let matches = PROGRAM_KEYS.iter().any(|pattern| {
        let mut parts = pattern.split('.');
        let (ps, pm, pn) = (parts.next(), parts.next(), parts.next());
        match (ps, pm, pn) {
            (Some(ps), Some(pn), None) => {
                ps == section && sub.is_none() && (pn == name || pn == "*")
            }
            (Some(ps), Some("*"), Some(pn)) => ps == section && sub.is_some() && pn == name,
            _ => false,
        }
    });
    // `core.fsmonitor = true` is git's own daemon; `false` turns it off.
    let harmless = key == "core.fsmonitor" && matches!(value.trim(), "true" | "false" | "0" | "1");
    if matches && !harmless {
        return Some(format!("`{key}`"));
    }
    (section == "alias" && value.trim_start().starts_with('!'))
        .then(|| format!("`{key}`, an alias that runs a shell command"))
}

/// The git directory for `start` (walking up), and the common directory of a linked worktree.
fn git_dirs(start: &Path) -> Option<(PathBuf, Option<PathBuf>)> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let dot = d.join(".git");
        if dot.is_dir() {
            return Some((dot, None));
        }
        if dot.is_file() {
            let text = std::fs::read_to_string(&dot).ok()?;
            let gitdir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
            let gitdir = d.join(gitdir);
            let common = std::fs::read_to_string(gitdir.join("commondir"))
                .ok()
                .map(|c| gitdir.join(c.trim()));
            return Some((gitdir, common));
        }
        dir = d.parent();
    }
    None
}

/// The first key in a git configuration file that names a program (see [`program_key`]).
fn scan(text: &str) -> Option<String> {
    let mut section = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split(']').next().unwrap_or("");
            // `[diff "x"]` and `[diff.x]` both name the subsection `x`.
            section = match header.split_once(char::is_whitespace) {
                Some((s, sub)) => format!("{s}.{}", sub.trim().trim_matches('"')),
                None => header.to_string(),
            };
            // A key may follow the header on the same line.
            let after = line.split_once(']').map_or("", |(_, a)| a.trim());
            if after.is_empty() {
                continue;
            }
            if let Some(found) = key_line(&section, after) {
                return Some(found);
            }
            continue;
        }
        if let Some(found) = key_line(&section, line) {
            return Some(found);
        }
    }
    None
}

fn key_line(section: &str, line: &str) -> Option<String> {
    let (name, value) = line.split_once('=').unwrap_or((line, "true"));
    program_key(
        &format!("{section}.{}", name.trim()),
        value.trim().trim_matches('"'),
    )
}

/// The reason when the configuration of the repository that a git command run in `cwd`
/// uses names a program ("`.git/config` sets `core.pager`"); `None` when it names none or
/// there is no repository.
pub(crate) fn config_names_program(cwd: &Path) -> Option<String> {
    let (gitdir, common) = git_dirs(cwd)?;
    let mut files = vec![gitdir.join("config"), gitdir.join("config.worktree")];
    files.extend(common.map(|c| c.join("config")));
    files.iter().find_map(|file| {
        let text = std::fs::read_to_string(file).ok()?;
        scan(&text).map(|key| {
            format!(
                "the repository's configuration ({}) sets {key}, which names a program git runs, so even this git command can run it",
                file.display()
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_name_programs() {
        for (k, v) in [
            ("core.pager", "less"),
            ("core.fsmonitor", "./x"),
            ("diff.x.textconv", "cat"),
            ("filter.lfs.process", "x"),
            ("alias.st", "!rm -r x"),
            ("include.path", "x"),
            ("includeIf.gitdir:x.path", "y"),
            ("core.sshCommand", "x"),
        ] {
            assert!(program_key(k, v).is_some(), "{k}");
        }
        for (k, v) in [
            ("core.fsmonitor", "false"),
            ("alias.st", "status"),
            ("user.name", "x"),
            ("diff.renames", "true"),
        ] {
            assert!(program_key(k, v).is_none(), "{k}");
        }
        assert!(scan("[core]\n\tpager = less\n").is_some());
        assert!(scan("[diff \"x\"]\n textconv = cat\n").is_some());
        assert!(scan("[core]\n bare = false\n[user]\n name = x\n").is_none());
    }
}
