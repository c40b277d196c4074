//! The step's environment facts (time, OS, workspace listing, project docs) rendered the way
//! each chat-native CLI prints them in its prompt: qwen-code, kimi-cli, kimi-code, opencode and
//! deepseek-tui.
//!
//! Everything here is a pure function of the frozen [`StepContext`], so a request is the same
//! bytes whenever it is shaped again (golden tests, the inspector's cross-wire view). The anchor
//! implementation cached the rendered prompt per process, which froze the date and listing for
//! the life of the process (openinterpreter 0.0.40, `core/src/harness/kimi_code.rs`); nothing is
//! cached here.
//!
//! Formats (sources in brackets):
//! - qwen-code: date `%A, %B %-d, %Y`; OS as Node's `process.platform` (`linux`, `darwin`,
//!   `win32`); a folder tree under a `<cwd>/` root line with `├───`/`└───` branches, at most 20
//!   items, files before folders, folders with a trailing `/` [capture of Qwen Code
//!   0.24.4, user part 1].
//! - kimi-cli: time as local ISO 8601 with microseconds and offset; OS `Linux`/`macOS`/
//!   `Windows`; a two-level tree, folders first, 30 root entries and 10 children per folder,
//!   then `... and N more` [capture of Kimi CLI 1.52.0].
//! - kimi-code: time as UTC RFC 3339 with milliseconds; a tree with folders first, names sorted
//!   case-insensitively, every folder expanded one level with at most 20 children [anchor
//!   `core/src/harness/kimi_code.rs`].
//! - opencode: date as JavaScript's `Date.toDateString()` (`Sun Nov 29 2026`), platform as
//!   `process.platform` [capture of opencode 1.18.33].

use chrono::{DateTime, FixedOffset, SecondsFormat, Utc};
use tack_protocol::{ListingEntry, StepContext};

/// The step's local time, parsed from [`StepContext::now`] (RFC 3339). `None` when the engine
/// handed over something unparseable; callers then print the raw text.
pub(crate) fn local_time(ctx: &StepContext) -> Option<DateTime<FixedOffset>> {
    DateTime::parse_from_rfc3339(&ctx.now).ok()
}

/// `Sunday, November 29, 2026` (qwen-code's startup context).
pub(crate) fn long_date(ctx: &StepContext) -> String {
    local_time(ctx).map_or_else(
        || ctx.now.clone(),
        |t| t.format("%A, %B %-d, %Y").to_string(),
    )
}

/// `Sun Nov 29 2026` (JavaScript `Date.toDateString()`, opencode's `<env>` block).
pub(crate) fn js_date_string(ctx: &StepContext) -> String {
    local_time(ctx).map_or_else(|| ctx.now.clone(), |t| t.format("%a %b %d %Y").to_string())
}

/// `2026-11-29T10:27:57.000000+00:00` (Python `datetime.now().astimezone().isoformat()`, kimi-cli).
pub(crate) fn iso_micros(ctx: &StepContext) -> String {
    local_time(ctx).map_or_else(
        || ctx.now.clone(),
        |t| t.format("%Y-%m-%dT%H:%M:%S%.6f%:z").to_string(),
    )
}

/// `2026-11-29T10:27:57.000Z` (UTC with milliseconds, kimi-code).
pub(crate) fn utc_millis(ctx: &StepContext) -> String {
    local_time(ctx).map_or_else(
        || ctx.now.clone(),
        |t| {
            t.with_timezone(&Utc)
                .to_rfc3339_opts(SecondsFormat::Millis, true)
        },
    )
}

/// `Sunday` in the step's local time (empty when the time does not parse).
pub(crate) fn weekday(ctx: &StepContext) -> String {
    local_time(ctx).map_or_else(String::new, |t| t.format("%A").to_string())
}

/// Node's `process.platform` for the step's OS (qwen-code, opencode).
pub(crate) fn node_platform(ctx: &StepContext) -> &'static str {
    match ctx.os.as_str() {
        "macos" => "darwin",
        "windows" => "win32",
        _ => "linux",
    }
}

/// Python's `platform.system()` spelled the way kimi prompts print it.
pub(crate) fn kimi_os(ctx: &StepContext) -> &'static str {
    match ctx.os.as_str() {
        "macos" => "macOS",
        "windows" => "Windows",
        _ => "Linux",
    }
}

/// The shell's basename (`bash` for `/bin/bash`).
pub(crate) fn shell_name(ctx: &StepContext) -> &str {
    ctx.shell.rsplit('/').next().unwrap_or(&ctx.shell)
}

/// One folder of the two-level workspace listing.
#[derive(Debug, Default)]
struct Folder<'a> {
    name: &'a str,
    children: Vec<(&'a str, bool)>,
}

/// Splits the engine's listing (paths relative to the workspace, two levels) into top-level
/// entries and their children. Entries deeper than two levels are ignored.
fn split_listing(listing: &[ListingEntry]) -> (Vec<(&str, bool)>, Vec<Folder<'_>>) {
    let mut top = Vec::new();
    let mut folders: Vec<Folder<'_>> = Vec::new();
    for entry in listing {
        match entry.path.split_once('/') {
            None => {
                top.push((entry.path.as_str(), entry.is_dir));
                if entry.is_dir {
                    folders.push(Folder {
                        name: &entry.path,
                        children: Vec::new(),
                    });
                }
            }
            Some((parent, child)) if !child.contains('/') => {
                if let Some(folder) = folders.iter_mut().find(|f| f.name == parent) {
                    folder.children.push((child, entry.is_dir));
                }
            }
            Some(_) => {}
        }
    }
    (top, folders)
}

fn folders_first_then(
    a: &(&str, bool),
    b: &(&str, bool),
    case_insensitive: bool,
) -> std::cmp::Ordering {
    b.1.cmp(&a.1).then_with(|| {
        if case_insensitive {
            a.0.to_lowercase()
                .cmp(&b.0.to_lowercase())
                .then_with(|| a.0.cmp(b.0))
        } else {
            a.0.cmp(b.0)
        }
    })
}

/// How a two-level `├──` tree is cut.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TreeLimits {
    /// Most top-level entries shown (`None`: all).
    pub(crate) root: Option<usize>,
    /// Most children shown per folder.
    pub(crate) children: usize,
    /// Sort names case-insensitively (kimi-code) rather than by code point (kimi-cli).
    pub(crate) case_insensitive: bool,
}

/// kimi-cli's limits: 30 root entries, 10 children per folder.
pub(crate) const KIMI_CLI_TREE: TreeLimits = TreeLimits {
    root: Some(30),
    children: 10,
    case_insensitive: false,
};

/// kimi-code's limits: every root entry, 20 children per folder, case-insensitive order.
pub(crate) const KIMI_CODE_TREE: TreeLimits = TreeLimits {
    root: None,
    children: 20,
    case_insensitive: true,
};

/// A two-level tree, folders first, in the kimi CLIs' layout:
///
/// ```text
/// ├── src/
/// │   ├── main.rs
/// │   └── ... and 3 more
/// └── README.md
/// ```
///
/// `(empty directory)` when there is nothing to list.
pub(crate) fn kimi_tree(listing: &[ListingEntry], limits: TreeLimits) -> String {
    let (mut top, folders) = split_listing(listing);
    if top.is_empty() {
        return "(empty directory)".to_string();
    }
    top.sort_by(|a, b| folders_first_then(a, b, limits.case_insensitive));
    let total = top.len();
    let shown = limits.root.map_or(total, |n| n.min(total));
    let more_root = total - shown;
    let mut lines = Vec::new();
    for (i, (name, is_dir)) in top.iter().take(shown).enumerate() {
        let last = i + 1 == shown && more_root == 0;
        let (branch, indent) = if last {
            ("└── ", "    ")
        } else {
            ("├── ", "│   ")
        };
        if *is_dir {
            lines.push(format!("{branch}{name}/"));
            let mut children = folders
                .iter()
                .find(|f| f.name == *name)
                .map(|f| f.children.clone())
                .unwrap_or_default();
            children.sort_by(|a, b| folders_first_then(a, b, limits.case_insensitive));
            let more = children.len().saturating_sub(limits.children);
            let kept = children.len() - more;
            for (j, (child, child_dir)) in children.iter().take(kept).enumerate() {
                let child_last = j + 1 == kept && more == 0;
                let child_branch = if child_last {
                    "└── "
                } else {
                    "├── "
                };
                let slash = if *child_dir { "/" } else { "" };
                lines.push(format!("{indent}{child_branch}{child}{slash}"));
            }
            if more > 0 {
                lines.push(format!("{indent}└── ... and {more} more"));
            }
        } else {
            lines.push(format!("{branch}{name}"));
        }
    }
    if more_root > 0 {
        lines.push(format!("└── ... and {more_root} more"));
    }
    lines.join("\n")
}

/// Most items in qwen-code's folder tree.
pub(crate) const QWEN_TREE_ITEMS: usize = 20;

/// qwen-code's folder tree: a `<cwd>/` root line, then the workspace breadth-first (files before
/// folders at each level, names compared case-insensitively) until [`QWEN_TREE_ITEMS`] items
/// are shown, drawn with `├───`/`└───` and `│   ` indents; a cut folder ends in `...`.
pub(crate) fn qwen_tree(cwd: &str, listing: &[ListingEntry]) -> String {
    let (mut top, folders) = split_listing(listing);
    let order = |a: &(&str, bool), b: &(&str, bool)| {
        a.1.cmp(&b.1)
            .then_with(|| a.0.to_lowercase().cmp(&b.0.to_lowercase()))
            .then_with(|| a.0.cmp(b.0))
    };
    top.sort_by(order);
    // Breadth-first budget: the whole first level, then children in folder order.
    let mut budget = QWEN_TREE_ITEMS;
    let top_shown = top.len().min(budget);
    budget -= top_shown;
    // (folder, children shown, whether some were cut)
    type Shown<'a> = (&'a str, Vec<(&'a str, bool)>, bool);
    let mut children_shown: Vec<Shown<'_>> = Vec::new();
    for (name, is_dir) in top.iter().take(top_shown) {
        if !is_dir {
            continue;
        }
        let mut children = folders
            .iter()
            .find(|f| f.name == *name)
            .map(|f| f.children.clone())
            .unwrap_or_default();
        children.sort_by(order);
        let take = children.len().min(budget);
        budget -= take;
        let cut = take < children.len();
        children.truncate(take);
        children_shown.push((name, children, cut));
    }
    let mut lines = vec![format!("{}/", cwd.trim_end_matches('/'))];
    let root_cut = top_shown < top.len();
    for (i, (name, is_dir)) in top.iter().take(top_shown).enumerate() {
        let last = i + 1 == top_shown && !root_cut;
        let (branch, indent) = if last {
            ("└───", "    ")
        } else {
            ("├───", "│   ")
        };
        let slash = if *is_dir { "/" } else { "" };
        lines.push(format!("{branch}{name}{slash}"));
        if let Some((_, children, cut)) = children_shown.iter().find(|(n, _, _)| n == name) {
            for (j, (child, child_dir)) in children.iter().enumerate() {
                let child_last = j + 1 == children.len() && !cut;
                let child_branch = if child_last {
                    "└───"
                } else {
                    "├───"
                };
                let child_slash = if *child_dir { "/" } else { "" };
                lines.push(format!("{indent}{child_branch}{child}{child_slash}"));
            }
            if *cut {
                lines.push(format!("{indent}└───..."));
            }
        }
    }
    if root_cut {
        lines.push("└───...".to_string());
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, is_dir: bool) -> ListingEntry {
        ListingEntry {
            path: path.into(),
            is_dir,
        }
    }

    fn listing() -> Vec<ListingEntry> {
        vec![
            entry("README.md", false),
            entry("hello.py", false),
            entry("src", true),
            entry("src/b.rs", false),
            entry("src/A.rs", false),
            entry("src/util", true),
        ]
    }

    #[test]
    fn kimi_tree_lists_folders_first_and_expands_them() {
        let tree = kimi_tree(&listing(), KIMI_CLI_TREE);
        assert_eq!(
            tree,
            "├── src/\n│   ├── util/\n│   ├── A.rs\n│   └── b.rs\n├── README.md\n└── hello.py"
        );
        let tree = kimi_tree(&listing(), KIMI_CODE_TREE);
        assert!(tree.ends_with("├── hello.py\n└── README.md"), "{tree}");
        assert_eq!(kimi_tree(&[], KIMI_CLI_TREE), "(empty directory)");
    }

    #[test]
    fn kimi_tree_cuts_long_folders() {
        let mut l = vec![entry("d", true)];
        for i in 0..12 {
            l.push(entry(&format!("d/f{i:02}"), false));
        }
        let tree = kimi_tree(&l, KIMI_CLI_TREE);
        assert!(tree.ends_with("    └── ... and 2 more"), "{tree}");
    }

    #[test]
    fn qwen_tree_puts_files_before_folders_under_a_root_line() {
        let tree = qwen_tree("/home/dev/project", &listing());
        assert_eq!(
            tree,
            "/home/dev/project/\n├───hello.py\n├───README.md\n└───src/\n    ├───A.rs\n    ├───b.rs\n    └───util/"
        );
    }

    #[test]
    fn qwen_tree_stops_at_twenty_items() {
        let l: Vec<ListingEntry> = (0..25).map(|i| entry(&format!("f{i:02}"), false)).collect();
        let tree = qwen_tree("/p", &l);
        assert_eq!(tree.lines().count(), 1 + QWEN_TREE_ITEMS + 1);
        assert!(tree.ends_with("└───..."));
    }
}
