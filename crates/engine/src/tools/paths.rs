//! Resolving path arguments to the real file they name.
//!
//! The approval gate decides from absolute paths whether a call stays inside the workspace, so
//! every path a tool reports has `..` and symlinks resolved: a link inside the workspace that
//! points outside shows up as the outside path it really touches. Paths that do not exist yet
//! (a file about to be created) are resolved through their deepest existing ancestor.
//!
//! The file tools also share their refusals here, so every tool says the same thing: path
//! arguments that don't mean on this system what they look like ([`resolve_arg`]: a NUL
//! byte, a backslash, a drive letter or UNC share on Unix), files that are not regular files
//! ([`open_regular`]: reading a FIFO would wait forever, a device or `/proc` file is not
//! data), and folders whose files change how other programs behave
//! ([`protected_reason`]: `.git` internals, Tack's own config and data folders), whose
//! writes the approval gate always asks about.

use std::fs::{File, Metadata};
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

/// [`resolve`], after refusing an argument that does not name on this system the file it
/// seems to name.
///
/// # Errors
/// A model-readable message naming the path (its characters shown by
/// [`tack_protocol::visible`]) for a NUL byte, and on Unix for a backslash, a drive letter
/// (`C:\x`, `C:/x`) or a UNC path (`\\server\share`).
pub(crate) fn resolve_arg(workspace: &Path, arg: &str) -> Result<PathBuf, String> {
    check_arg(arg)?;
    Ok(resolve(workspace, arg))
}

/// Why `arg` is refused as a path, if it is.
fn check_arg(arg: &str) -> Result<(), String> {
    let shown = tack_protocol::visible(arg);
    if arg.contains('\0') {
        // The OS ends a path at a NUL byte, so the file touched would not be the one named.
        return Err(format!(
            "the path `{shown}` contains a NUL byte (shown as ⟨\\0⟩); a file path cannot \
             contain one. Send the path without it."
        ));
    }
    if cfg!(windows) {
        return Ok(());
    }
    if arg.starts_with("\\\\") {
        return Err(format!(
            "the path `{shown}` is a Windows network (UNC) path; this system names files with \
             `/`-separated paths. Use a path relative to the workspace."
        ));
    }
    let bytes = arg.as_bytes();
    if bytes.len() >= 2
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes.get(2), None | Some(b'\\' | b'/'))
    {
        return Err(format!(
            "the path `{shown}` is a Windows path (drive `{}:`); this system has no drive \
             letters. Use a path relative to the workspace, or an absolute path starting with `/`.",
            char::from(bytes[0])
        ));
    }
    if arg.contains('\\') {
        // On Unix `\` is an ordinary character in a file name: `src\main.rs` would create one
        // file with that name at the top of the workspace, not `main.rs` in `src`.
        return Err(format!(
            "the path `{shown}` contains a backslash, which is not a path separator here: it \
             would name a single file with `\\` in its name. Use `/` between folders."
        ));
    }
    Ok(())
}

/// What kind of special file `meta` describes (`a FIFO`, …), or `None` for regular files and
/// folders.
fn special_kind(meta: &Metadata) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
    }
    if meta.is_file() || meta.is_dir() {
        None
    } else {
        Some("not a regular file")
    }
}

/// Pseudo file systems whose "files" are kernel interfaces: sizes are meaningless, some reads
/// block, some writes reconfigure the machine.
const PSEUDO_FS: &[&str] = &["/proc", "/sys"];

/// Why a file tool refuses `path` before touching it: a pseudo file system, or a file that
/// exists and is not a regular file (nor a folder, which callers report in their own words).
pub(crate) fn refuse_special(path: &Path, shown: &str) -> Result<(), String> {
    if cfg!(unix) && PSEUDO_FS.iter().any(|root| path.starts_with(root)) {
        return Err(format!(
            "`{shown}` is in {}, whose files are kernel interfaces, not ordinary files; file \
             tools don't read or write there (a shell command can).",
            PSEUDO_FS
                .iter()
                .find(|root| path.starts_with(root))
                .copied()
                .unwrap_or("/proc")
        ));
    }
    match std::fs::metadata(path) {
        Ok(meta) => match special_kind(&meta) {
            Some(kind) => Err(not_regular(shown, kind)),
            None => Ok(()),
        },
        Err(_) => Ok(()),
    }
}

fn not_regular(shown: &str, kind: &str) -> String {
    format!(
        "`{shown}` is {kind}, not a regular file; file tools only read and write regular files \
         (reading it could wait forever). Use a shell command if it is really meant."
    )
}

/// Opens `path` for reading when it is a regular file; `Ok(None)` when nothing is there.
///
/// The type is checked before opening (a FIFO's `open` would wait for a writer) and again on
/// the open file, which is opened non-blocking so that a FIFO swapped in between the two is
/// refused instead of waited on.
///
/// # Errors
/// A model-readable message for folders, special files, pseudo file systems and I/O errors.
pub(crate) fn open_regular(path: &Path, shown: &str) -> Result<Option<(File, Metadata)>, String> {
    refuse_special(path, shown)?;
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => return Err(format!("`{shown}` is a directory.")),
        Ok(_) => {}
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(format!("cannot read `{shown}`: {}", io_problem(&err))),
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(format!("cannot read `{shown}`: {}", io_problem(&err))),
    };
    let meta = file
        .metadata()
        .map_err(|err| format!("cannot read `{shown}`: {}", io_problem(&err)))?;
    if meta.is_dir() {
        return Err(format!("`{shown}` is a directory."));
    }
    if let Some(kind) = special_kind(&meta) {
        return Err(not_regular(shown, kind));
    }
    Ok(Some((file, meta)))
}

/// Why a write to `path` must always be approved, whatever the policy, if it must: files in a
/// `.git` folder (hooks and config run commands on the next `git` invocation) and Tack's own
/// config and data folders (settings, prompts, approval rules, session logs).
///
/// `.git` is matched in any case spelling (case-insensitive file systems treat `.GIT` as
/// `.git`), with trailing dots and spaces and invisible characters ignored (which some file
/// systems ignore too), as any component of the path, the last one included (a worktree's
/// `.git` file points git at its folder).
pub fn protected_reason(path: &Path, workspace: &Path) -> Option<String> {
    let root = workspace_root(workspace);
    let shown = display(&root, path);
    if path.components().any(|c| is_git_component(c.as_os_str())) {
        return Some(format!(
            "writes to git internals ({shown}) always need approval"
        ));
    }
    let tack = crate::config::Paths::from_env();
    for (dir, what) in [
        (&tack.config_dir, "Tack's config folder"),
        (&tack.data_dir, "Tack's data folder"),
    ] {
        let dir = workspace_root(dir);
        if path.starts_with(&dir) {
            return Some(format!("writes to {what} ({shown}) always need approval"));
        }
    }
    None
}

fn is_git_component(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    let folded: String = name
        .chars()
        .filter(|c| !tack_protocol::has_hidden(c.encode_utf8(&mut [0; 4])))
        .collect::<String>()
        .trim_end_matches(['.', ' '])
        .to_ascii_lowercase();
    folded == ".git"
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
