//! Capturing the environment of a step: git state, project instruction files (AGENTS.md) and
//! a short workspace listing. Captured once per turn and frozen, so every request of the turn
//! (and every wire the inspector renders it on) sees the same facts; a changed AGENTS.md is
//! picked up at the next turn.

use std::path::{Path, PathBuf};
use std::process::Command;

use tack_protocol::{GitState, ListingEntry, ProjectDoc};

/// Names of project instruction files, in the order they are read in each folder.
pub const PROJECT_DOC_NAMES: &[&str] = &["AGENTS.md"];

/// Largest total size of project docs put into a prompt (bytes); the docs nearest the workspace
/// win when the budget runs out.
pub const PROJECT_DOC_BUDGET: usize = 32 * 1024;

/// Most listing entries captured.
pub const LISTING_LIMIT: usize = 200;

/// The captured, turn-frozen environment.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Environment {
    /// Git facts, if the workspace is in a repository.
    pub git: Option<GitState>,
    /// Project docs, root first.
    pub project_docs: Vec<ProjectDoc>,
    /// Top two levels of the workspace.
    pub listing: Vec<ListingEntry>,
    /// `uname -sr`.
    pub os_version: String,
    /// `$SHELL` or `/bin/bash`.
    pub shell: String,
}

/// Captures the environment of `workspace`. Never fails: missing facts are left empty.
pub fn capture(workspace: &Path) -> Environment {
    Environment {
        git: git_state(workspace),
        project_docs: project_docs(workspace),
        listing: listing(workspace),
        os_version: os_version(),
        shell: std::env::var("SHELL").unwrap_or_else(|_| "/bin/bash".to_string()),
    }
}

/// `linux`, `macos` or `windows`.
pub fn os_name() -> &'static str {
    match std::env::consts::OS {
        "macos" => "macos",
        "windows" => "windows",
        _ => "linux",
    }
}

fn os_version() -> String {
    run(Path::new("/"), "uname", &["-sr"]).unwrap_or_else(|| std::env::consts::OS.to_string())
}

fn run(cwd: &Path, program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim_end().to_string())
}

/// The repository root containing `dir`, if any (a `.git` folder or file in an ancestor).
pub fn repo_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|a| a.join(".git").exists())
        .map(Path::to_path_buf)
}

fn git_state(workspace: &Path) -> Option<GitState> {
    repo_root(workspace)?;
    let git = |args: &[&str]| run(workspace, "git", args);
    let branch = git(&["rev-parse", "--abbrev-ref", "HEAD"]).unwrap_or_else(|| "HEAD".into());
    let main_branch = git(&["symbolic-ref", "--short", "refs/remotes/origin/HEAD"])
        .map(|s| s.trim_start_matches("origin/").to_string())
        .unwrap_or_else(|| "main".into());
    Some(GitState {
        branch,
        main_branch,
        user_name: git(&["config", "user.name"]).filter(|s| !s.is_empty()),
        status: git(&["status", "--short"]).unwrap_or_default(),
        recent_commits: git(&["log", "--oneline", "-5"]).unwrap_or_default(),
    })
}

/// Project docs from the repository root (or the workspace, outside a repository) down to the
/// workspace, within [`PROJECT_DOC_BUDGET`] (filled from the workspace upwards).
pub fn project_docs(workspace: &Path) -> Vec<ProjectDoc> {
    let root = repo_root(workspace).unwrap_or_else(|| workspace.to_path_buf());
    let mut dirs: Vec<&Path> = workspace
        .ancestors()
        .take_while(|a| a.starts_with(&root))
        .collect();
    // Nearest first, to spend the budget on the most specific docs.
    let mut budget = PROJECT_DOC_BUDGET;
    let mut docs = Vec::new();
    for dir in dirs.drain(..) {
        for name in PROJECT_DOC_NAMES {
            let path = dir.join(name);
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let text = text.trim();
            if text.is_empty() || budget == 0 {
                continue;
            }
            let mut cut = text.len().min(budget);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            budget -= cut;
            docs.push(ProjectDoc {
                path: path.display().to_string(),
                content: text[..cut].to_string(),
            });
        }
    }
    docs.reverse();
    docs
}

/// The workspace's top two levels (gitignore respected, hidden entries skipped), sorted, at
/// most [`LISTING_LIMIT`] entries.
pub fn listing(workspace: &Path) -> Vec<ListingEntry> {
    let walker = ignore::WalkBuilder::new(workspace)
        .max_depth(Some(2))
        .hidden(true)
        .sort_by_file_path(|a, b| a.cmp(b))
        .build();
    walker
        .filter_map(Result::ok)
        .filter(|e| e.depth() > 0)
        .take(LISTING_LIMIT)
        .filter_map(|e| {
            let rel = e.path().strip_prefix(workspace).ok()?;
            Some(ListingEntry {
                path: rel.to_string_lossy().replace('\\', "/"),
                is_dir: e.file_type().is_some_and(|t| t.is_dir()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_docs_are_collected_root_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("sub/deeper")).unwrap();
        std::fs::write(root.join("AGENTS.md"), "root rules\n").unwrap();
        std::fs::write(root.join("sub/AGENTS.md"), "sub rules").unwrap();
        let docs = project_docs(&root.join("sub/deeper"));
        let contents: Vec<&str> = docs.iter().map(|d| d.content.as_str()).collect();
        assert_eq!(contents, vec!["root rules", "sub rules"]);
    }

    #[test]
    fn listing_respects_gitignore_and_depth() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("src/a/b")).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(root.join("src/main.rs"), "").unwrap();
        let entries: Vec<String> = listing(root).into_iter().map(|e| e.path).collect();
        assert_eq!(entries, vec!["src", "src/a", "src/main.rs"]);
    }
}
