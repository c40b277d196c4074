//! Resolving path arguments to the real file they name.
//!
//! The approval gate decides from absolute paths whether a call stays inside the workspace, so
//! every path a tool reports has `..` and symlinks resolved: a link inside the workspace that
//! points outside shows up as the outside path it really touches. Paths that do not exist yet
//! (a file about to be created) are resolved through their deepest existing ancestor.

use std::io;
use std::path::{Component, Path, PathBuf};

/// How many symlinks are followed before giving up (the kernel's own limit is 40).
const MAX_LINKS: usize = 40;

/// The workspace root with symlinks resolved (or as given when it cannot be resolved).
pub(crate) fn workspace_root(workspace: &Path) -> PathBuf {
    std::fs::canonicalize(workspace).unwrap_or_else(|_| lexical(workspace))
}

/// Resolves `arg` (absolute, workspace-relative, or `~/…`) to an absolute path with `..`
/// and symlinks resolved, including a dangling symlink at the end.
pub(crate) fn resolve(workspace: &Path, arg: &str) -> PathBuf {
    let expanded = expand_home(arg);
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        workspace_root(workspace).join(expanded)
    };
    real_path(&joined)
}

/// `path` relative to `root` when inside it (`.` for the root itself), else absolute.
pub(crate) fn display(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

fn expand_home(arg: &str) -> PathBuf {
    if (arg == "~" || arg.starts_with("~/"))
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(arg.trim_start_matches('~').trim_start_matches('/'));
    }
    PathBuf::from(arg)
}

fn real_path(path: &Path) -> PathBuf {
    let mut current = lexical_keep_dotdot(path);
    for _ in 0..MAX_LINKS {
        if let Ok(real) = std::fs::canonicalize(&current) {
            return real;
        }
        // A dangling symlink: follow it by hand, since writing through it would create its
        // target.
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => match std::fs::read_link(&current) {
                Ok(target) => {
                    let base = current.parent().map(Path::to_path_buf).unwrap_or_default();
                    current = lexical_keep_dotdot(&base.join(target));
                    continue;
                }
                Err(_) => return through_existing_ancestor(&current),
            },
            _ => return through_existing_ancestor(&current),
        }
    }
    through_existing_ancestor(&current)
}

/// Canonicalizes the deepest existing ancestor and appends the rest, which cannot contain
/// symlinks because it does not exist.
fn through_existing_ancestor(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    while let Some(name) = existing.file_name() {
        let name = name.to_os_string();
        if !existing.pop() {
            break;
        }
        rest.push(name);
        if let Ok(real) = std::fs::canonicalize(&existing) {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return lexical(&out);
        }
    }
    lexical(path)
}

/// Removes `.` components but keeps `..` (which must be resolved against the real parent).
fn lexical_keep_dotdot(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// Removes `.` and folds `..` lexically; only correct for paths without symlinks.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// An I/O error in words a model can act on.
pub(crate) fn io_problem(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::IsADirectory => "is a directory".to_string(),
        io::ErrorKind::NotADirectory => "a parent is not a directory".to_string(),
        _ => err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_dotdot_through_the_real_parent() {
        let dir = tempfile::tempdir().unwrap();
        let root = workspace_root(dir.path());
        std::fs::create_dir(root.join("a")).unwrap();
        assert_eq!(resolve(&root, "a/../b/c.txt"), root.join("b/c.txt"));
        assert_eq!(resolve(&root, "./a/./x"), root.join("a/x"));
    }

    #[test]
    fn a_symlink_escape_resolves_to_the_outside_path() {
        let inside = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = workspace_root(inside.path());
        let out_root = workspace_root(outside.path());
        std::os::unix::fs::symlink(&out_root, root.join("link")).unwrap();
        let resolved = resolve(&root, "link/new/file.txt");
        assert_eq!(resolved, out_root.join("new/file.txt"));
        assert!(!resolved.starts_with(&root));
        // A dangling link to a file outside is followed too.
        std::os::unix::fs::symlink(out_root.join("ghost"), root.join("dangling")).unwrap();
        assert_eq!(resolve(&root, "dangling"), out_root.join("ghost"));
    }

    #[test]
    fn displays_relative_inside_and_absolute_outside() {
        let root = Path::new("/w");
        assert_eq!(display(root, Path::new("/w/a/b")), "a/b");
        assert_eq!(display(root, Path::new("/w")), ".");
        assert_eq!(display(root, Path::new("/etc/x")), "/etc/x");
    }
}
