//! Where the paths a command reads or writes lead, relative to the workspace: resolution of a
//! word against the working directory (`..`, `~`, `$HOME`, globs, and symlinks where the path
//! exists), shared by the read check ([`super::reads`]) and the write check
//! ([`super::writes`]).

use std::path::{Component, Path, PathBuf};

use super::{CommandSite, Word};

/// A word that names a file a command reads or writes.
#[derive(Debug, Clone)]
pub(super) struct PathItem {
    /// As written, for reasons.
    written: String,
    /// The path text (`~` not yet expanded), `None` when only known when it runs.
    pub(super) path: Option<String>,
    /// The shell matches it against file names.
    glob: bool,
    /// The command acts on the directory entry itself, not on what a symlink there points to
    /// (`rm link`, the source of `mv link x`): only the directories above it are resolved.
    entry: bool,
}

impl PathItem {
    /// `None` for a process substitution, which is a pipe rather than a file.
    pub(super) fn from_word(word: &Word) -> Option<PathItem> {
        (!word.process_substitution).then(|| PathItem {
            written: word.value.clone(),
            path: word.path.clone(),
            glob: word.glob,
            entry: false,
        })
    }

    /// A path given as text (an option's attached value such as `--file=X`).
    pub(super) fn literal(text: &str) -> PathItem {
        PathItem {
            written: text.to_string(),
            path: Some(text.to_string()),
            glob: false,
            entry: false,
        }
    }

    /// A path that is only known when the command runs, shown as `written`.
    pub(super) fn unknown(written: &str) -> PathItem {
        PathItem {
            written: written.to_string(),
            path: None,
            glob: false,
            entry: false,
        }
    }

    /// The same path, acted on as a directory entry (see [`PathItem::entry`]).
    pub(super) fn into_entry(self) -> PathItem {
        PathItem {
            entry: true,
            ..self
        }
    }
}

/// Where a command runs, resolved once per command line.
#[derive(Debug)]
pub(super) struct Site {
    /// The workspace root, resolved through symlinks.
    root: PathBuf,
    /// The workspace root as given, normalized (to tell a link that leads out in reasons).
    root_as_given: PathBuf,
    /// Where relative paths start.
    pub(super) cwd: PathBuf,
    /// For `~` and `$HOME`.
    pub(super) home: Option<PathBuf>,
}

/// Where a path is, for the read and write checks.
enum Place {
    Inside,
    /// Outside, shown as this text.
    Outside(String),
    /// Only known when the command runs.
    Unknown,
}

/// Paths a glob may expand to before the check falls back to the pattern's own path.
const MAX_GLOB_MATCHES: usize = 4096;

impl Site {
    pub(super) fn new(site: &CommandSite<'_>) -> Site {
        Site {
            root: physical(site.workspace),
            root_as_given: normalize_path(site.workspace),
            cwd: site.cwd.to_path_buf(),
            home: site.home.map(Path::to_path_buf),
        }
    }

    /// The reason when any of `items` is outside the workspace or only known when it runs.
    pub(super) fn judge_reads(&self, program: Option<&str>, items: &[PathItem]) -> Option<String> {
        let (outside, unknown) = self.places(items);
        if !outside.is_empty() {
            let list = outside.join(", ");
            return Some(if matches!(program, Some("cd" | "pushd")) {
                format!("changes to a directory outside the workspace: {list}")
            } else {
                format!("reads outside the workspace: {list}")
            });
        }
        (!unknown.is_empty()).then(|| {
            format!(
                "reads a path that is only known when it runs: {}",
                unknown.join(", ")
            )
        })
    }

    /// The reason when any of the write targets `items` is outside the workspace or only
    /// known when it runs ("writes outside the workspace: /home/u/.bashrc").
    pub(super) fn judge_writes(&self, items: &[PathItem]) -> Option<String> {
        let (outside, unknown) = self.places(items);
        if !outside.is_empty() {
            return Some(format!(
                "writes outside the workspace: {}",
                outside.join(", ")
            ));
        }
        (!unknown.is_empty()).then(|| {
            format!(
                "writes to a path that is only known when it runs: {}",
                unknown.join(", ")
            )
        })
    }

    /// The working directory itself, when it is outside the workspace.
    pub(super) fn cwd_outside(&self) -> Option<String> {
        match self.place(&PathItem::literal(".")) {
            Place::Outside(shown) => Some(shown),
            Place::Inside | Place::Unknown => None,
        }
    }

    /// The items outside (deduplicated, as shown) and those only known when it runs.
    fn places(&self, items: &[PathItem]) -> (Vec<String>, Vec<String>) {
        let mut outside: Vec<String> = Vec::new();
        let mut unknown: Vec<String> = Vec::new();
        for item in items {
            match self.place(item) {
                Place::Inside => {}
                Place::Outside(shown) => {
                    if !outside.contains(&shown) {
                        outside.push(shown);
                    }
                }
                Place::Unknown => unknown.push(format!("`{}`", item.written)),
            }
        }
        (outside, unknown)
    }

    fn place(&self, item: &PathItem) -> Place {
        let Some(text) = item.path.as_deref() else {
            return Place::Unknown;
        };
        if text.is_empty() || text == "-" {
            return Place::Inside;
        }
        let expanded = if text == "~" || text.starts_with("~/") {
            match &self.home {
                Some(home) => home.join(text[1..].trim_start_matches('/')),
                None => return Place::Outside(text.to_string()),
            }
        } else if text.starts_with('~') {
            // `~user`, `~+`, `~-`: another home or a directory stack entry.
            return Place::Outside(text.to_string());
        } else {
            PathBuf::from(text)
        };
        let joined = self.cwd.join(expanded);
        let lexical = normalize_path(&joined);
        if is_harmless_device(&lexical) {
            return Place::Inside;
        }
        let resolved = if item.glob {
            glob_matches(&joined)
        } else if item.entry
            && let (Some(parent), Some(name)) = (lexical.parent(), lexical.file_name())
        {
            vec![physical(parent).join(name)]
        } else {
            vec![physical(&joined)]
        };
        match resolved.into_iter().find(|p| !p.starts_with(&self.root)) {
            None => Place::Inside,
            Some(p) if lexical.starts_with(&self.root_as_given) && p != lexical => Place::Outside(
                format!("{} (which leads to {})", lexical.display(), p.display()),
            ),
            Some(_) => Place::Outside(lexical.display().to_string()),
        }
    }
}

/// Device files whose reads reveal nothing and whose writes change nothing that lasts.
fn is_harmless_device(path: &Path) -> bool {
    let Some(text) = path.to_str() else {
        return false;
    };
    matches!(
        text,
        "/dev/null"
            | "/dev/zero"
            | "/dev/random"
            | "/dev/urandom"
            | "/dev/stdin"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/tty"
    ) || text
        .strip_prefix("/dev/fd/")
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// `..` and `.` resolved lexically.
fn normalize_path(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The path as the kernel would resolve it: through symlinks for the part that exists,
/// lexically for the rest.
fn physical(path: &Path) -> PathBuf {
    if let Ok(resolved) = std::fs::canonicalize(path) {
        return resolved;
    }
    let parts: Vec<Component<'_>> = path.components().collect();
    for keep in (1..parts.len()).rev() {
        let prefix: PathBuf = parts[..keep].iter().collect();
        if let Ok(resolved) = std::fs::canonicalize(&prefix) {
            let rest: PathBuf = parts[keep..].iter().collect();
            return normalize_path(&resolved.join(rest));
        }
    }
    normalize_path(path)
}

/// The existing paths a glob matches, component by component, each resolved with
/// [`physical`]; a component that matches nothing is kept as written.
fn glob_matches(path: &Path) -> Vec<PathBuf> {
    let mut current = vec![PathBuf::new()];
    for component in path.components() {
        let name = component.as_os_str().to_string_lossy();
        let matcher = match component {
            Component::Normal(_) if name.contains(['*', '?', '[']) => {
                globset::Glob::new(&name).ok().map(|g| g.compile_matcher())
            }
            _ => None,
        };
        let Some(matcher) = matcher else {
            for p in &mut current {
                p.push(component);
            }
            continue;
        };
        let mut next = Vec::new();
        for dir in &current {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if matcher.is_match(Path::new(&entry.file_name())) {
                    next.push(dir.join(entry.file_name()));
                }
                if next.len() > MAX_GLOB_MATCHES {
                    return vec![physical(path)];
                }
            }
        }
        if next.is_empty() {
            for p in &mut current {
                p.push(component);
            }
        } else {
            current = next;
        }
    }
    current.iter().map(|p| physical(p)).collect()
}

impl Site {
    /// The words bash makes of a glob `pattern` in the working directory, sorted as bash
    /// sorts them (close enough: by bytes); `None` when nothing matches (bash then keeps the
    /// pattern) or the pattern has a directory part with a pattern in it. Names starting with
    /// `.` are only matched by a pattern that starts with `.`.
    pub(super) fn glob_words(&self, pattern: &str) -> Option<Vec<String>> {
        let (dir, name) = match pattern.rsplit_once('/') {
            Some((d, n)) => (Some(d), n),
            None => (None, pattern),
        };
        if dir.is_some_and(|d| d.contains(['*', '?', '['])) {
            return None;
        }
        let base = match dir {
            Some("") => PathBuf::from("/"),
            Some(d) => self.cwd.join(d),
            None => self.cwd.clone(),
        };
        let matcher = globset::GlobBuilder::new(name)
            .literal_separator(true)
            .build()
            .ok()?
            .compile_matcher();
        let mut out = Vec::new();
        for entry in std::fs::read_dir(base).ok()?.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            if file.starts_with('.') && !name.starts_with('.') {
                continue;
            }
            if matcher.is_match(&file) {
                out.push(match dir {
                    Some(d) => format!("{d}/{file}"),
                    None => file,
                });
            }
            if out.len() > MAX_GLOB_MATCHES {
                return None;
            }
        }
        out.sort();
        (!out.is_empty()).then_some(out)
    }
}
