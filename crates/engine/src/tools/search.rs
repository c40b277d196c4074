//! The directory walk shared by `list_dir`, `glob` and `grep`: ripgrep's `ignore` walker,
//! honouring `.gitignore` (also outside a git repository), `.ignore` and git's excludes, and
//! never descending into `.git`.

use std::path::Path;

use ignore::WalkBuilder;

/// A walker over `root`; `skip_hidden` leaves out dot files and dot directories.
pub(crate) fn walker(root: &Path, skip_hidden: bool) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(skip_hidden)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .ignore(true)
        .parents(true)
        // A workspace that is not (yet) a git repository still has a meaningful .gitignore.
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| entry.file_name() != ".git");
    builder
}
