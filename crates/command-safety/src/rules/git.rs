//! `git`: read-only subcommands, destructive ones, and everything else.

use crate::CommandClass;
use crate::verdicts::Judged;

/// Options of read-only subcommands that name a program git runs.
const PROGRAM_OPTIONS: &[&str] = &["--upload-pack", "--receive-pack", "--exec"];

/// `git`: read-only subcommands, destructive ones, and everything else.
pub(crate) fn judge_git(values: &[&str]) -> Judged {
    use CommandClass::{Mutating, ReadOnly};
    let p = Some("git");
    let mut i = 0;
    while i < values.len() {
        let v = values[i];
        match v {
            "-C" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
            "-c" | "--config-env" => {
                let key = values
                    .get(i + 1)
                    .map_or("", |kv| kv.split('=').next().unwrap_or(kv));
                if let Some(found) = crate::git_repo::program_key(
                    key,
                    values
                        .get(i + 1)
                        .and_then(|kv| kv.split_once('='))
                        .map_or("", |(_, v)| v),
                ) {
                    return Judged::new(
                        p,
                        Mutating,
                        format!("`git -c {key}` names a program git runs ({found})"),
                    )
                    .effect();
                }
                return Judged::new(
                    p,
                    Mutating,
                    "`git -c` sets configuration that can make git run other programs",
                )
                .effect();
            }
            _ if v.starts_with("--exec-path") => {
                return Judged::new(
                    p,
                    Mutating,
                    "`git --exec-path` runs git programs from another directory",
                )
                .effect();
            }
            _ if v.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let Some(sub) = values.get(i).copied() else {
        return Judged::new(p, ReadOnly, "`git` without a subcommand prints help");
    };
    judge_subcommand(sub, &values[i + 1..])
}

/// The words after a git subcommand, read the way git's option parser reads them.
struct GitArgs<'a> {
    args: &'a [&'a str],
    /// The words before `--`.
    options: Vec<&'a str>,
    /// The words that do not start with `-`.
    positional: Vec<&'a str>,
}

impl<'a> GitArgs<'a> {
    fn new(args: &'a [&'a str]) -> Self {
        GitArgs {
            args,
            options: args.iter().take_while(|a| **a != "--").copied().collect(),
            positional: args
                .iter()
                .filter(|a| !a.starts_with('-'))
                .copied()
                .collect(),
        }
    }

    /// `f` exactly, or `f=…`.
    fn exact(&self, f: &str) -> bool {
        self.options
            .iter()
            .any(|a| *a == f || a.starts_with(&format!("{f}=")))
    }

    /// `f`, or an abbreviation of it: git's option parser takes unambiguous abbreviations
    /// (`--har` is `--hard`, `--force-w` is `--force-with-lease`); an abbreviation is read as
    /// every option it could stand for.
    fn flag(&self, f: &str) -> bool {
        self.exact(f)
            || self.options.iter().any(|a| {
                let name = a.split('=').next().unwrap_or(a);
                a.starts_with("--") && name.len() >= 3 && f.starts_with(name)
            })
    }

    /// The single letter `c` in a cluster of short options.
    fn short(&self, c: char) -> bool {
        self.options
            .iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c))
    }
}

fn ro(reason: String) -> Judged {
    Judged::new(Some("git"), CommandClass::ReadOnly, reason)
}

fn mutates(reason: String) -> Judged {
    Judged::new(Some("git"), CommandClass::Mutating, reason)
}

fn danger(reason: String) -> Judged {
    Judged::new(Some("git"), CommandClass::Dangerous, reason)
}

/// A subcommand that only reads, or changes branches, tags, remotes, stashes or settings.
fn judge_subcommand(sub: &str, args: &[&str]) -> Judged {
    let a = GitArgs::new(args);

    match sub {
        "status" | "log" | "diff" | "show" | "rev-parse" | "ls-files" | "ls-tree" | "blame"
        | "annotate" | "shortlog" | "describe" | "cat-file" | "grep" | "rev-list"
        | "merge-base" | "name-rev" | "count-objects" | "var" | "whatchanged" | "help"
        | "version" | "show-ref" | "for-each-ref" | "cherry" | "range-diff" | "diff-tree"
        | "diff-files" | "diff-index" | "check-ignore" | "check-attr" | "ls-remote"
        | "verify-commit" | "verify-tag" => {
            if let Some(option) = PROGRAM_OPTIONS.iter().find(|o| a.flag(o)) {
                danger(format!("`git {sub} {option}` runs another program")).effect()
            } else if sub == "grep" && (a.short('O') || a.flag("--open-files-in-pager")) {
                danger("`git grep -O` runs a pager program on the matching files".to_string())
                    .effect()
            } else if sub == "ls-remote"
                && a.positional
                    .iter()
                    .any(|u| u.starts_with("ext::") || u.starts_with("fd::"))
            {
                danger("`git ls-remote ext::…` runs the command in the address".to_string())
                    .effect()
            } else if a.flag("--ext-diff") || a.flag("--textconv") || a.flag("--filters") {
                mutates(format!(
                    "`git {sub}` with `--ext-diff`/`--textconv` runs configured programs"
                ))
                .effect()
            } else if a.flag("--output") {
                mutates(format!("`git {sub} --output` writes a file")).effect()
            } else {
                ro(format!("`git {sub}` only reads"))
            }
        }
        "branch" => {
            if a.flag("-D")
                || (a.short('d') && (a.short('f') || a.flag("--force")))
                || (a.flag("--delete") && a.flag("--force"))
            {
                danger("`git branch -D` deletes a branch even if it is not merged".to_string())
            } else if a.short('d')
                || a.short('m')
                || a.short('M')
                || a.short('c')
                || a.short('C')
                || a.short('u')
                || a.flag("--delete")
                || a.flag("--move")
                || a.flag("--copy")
                || a.flag("--set-upstream-to")
                || a.flag("--unset-upstream")
                || a.flag("--edit-description")
                || a.flag("--force")
                || !(a.positional.is_empty()
                    || a.exact("--list")
                    || a.short('l')
                    || a.exact("--contains")
                    || a.exact("--merged")
                    || a.exact("--no-merged")
                    || a.exact("--points-at"))
            {
                mutates("`git branch` with these arguments changes branches".to_string())
            } else {
                ro("`git branch` only lists branches".to_string())
            }
        }
        "tag" => {
            if args.is_empty()
                || a.exact("--list")
                || a.short('l')
                || (a.positional.is_empty()
                    && !a.short('d')
                    && !a.short('a')
                    && !a.short('s')
                    && !a.short('f'))
            {
                ro("`git tag` only lists tags".to_string())
            } else {
                mutates("`git tag` with these arguments changes tags".to_string())
            }
        }
        "remote" => match a.positional.first().copied() {
            None | Some("show" | "get-url") => ro("`git remote` only lists remotes".to_string()),
            Some(verb) => mutates(format!("`git remote {verb}` changes remotes")),
        },
        "stash" => match a.positional.first().copied() {
            Some("list" | "show") => ro("`git stash list` only reads".to_string()),
            Some(verb @ ("drop" | "clear")) => {
                danger(format!("`git stash {verb}` discards stashed changes"))
            }
            _ => mutates("`git stash` changes the working tree".to_string()),
        },
        "config" => {
            let reads = a.exact("--get")
                || a.exact("--get-all")
                || a.exact("--get-regexp")
                || a.exact("--list")
                || a.short('l')
                || a.exact("--show-origin") && a.positional.len() <= 1
                || a.positional
                    .first()
                    .is_some_and(|v| *v == "get" || *v == "list")
                || (a.positional.len() == 1
                    && !args.iter().any(|a| {
                        matches!(
                            *a,
                            "--unset"
                                | "--unset-all"
                                | "--add"
                                | "--replace-all"
                                | "--edit"
                                | "-e"
                                | "--rename-section"
                                | "--remove-section"
                        )
                    }));
            if reads {
                ro("`git config` only reads settings".to_string())
            } else {
                mutates("`git config` changes settings".to_string())
            }
        }
        _ => judge_history(sub, &a),
    }
}

/// A subcommand that changes history, the working tree or a remote.
fn judge_history(sub: &str, a: &GitArgs<'_>) -> Judged {
    let args = a.args;
    match sub {
        "reflog" => match a.positional.first().copied() {
            Some(verb @ ("expire" | "delete")) => danger(format!(
                "`git reflog {verb}` deletes the history used to recover lost commits"
            )),
            _ => ro("`git reflog` only reads".to_string()),
        },
        "push" => {
            if a.short('f')
                || a.flag("--force")
                || a.flag("--force-with-lease")
                || a.flag("--force-if-includes")
                || a.flag("--mirror")
                || a.positional.iter().skip(1).any(|r| r.starts_with('+'))
            {
                danger("`git push --force` overwrites history on the remote".to_string())
            } else if a.short('d')
                || a.flag("--delete")
                || a.flag("--prune")
                || a.positional.iter().skip(1).any(|r| r.starts_with(':'))
            {
                danger("`git push --delete` deletes branches or tags on the remote".to_string())
            } else {
                mutates("`git push` publishes commits to a remote".to_string())
            }
        }
        "reset" if a.flag("--hard") => {
            danger("`git reset --hard` discards uncommitted changes".to_string())
        }
        "clean" => {
            if a.short('n') || a.flag("--dry-run") {
                ro("`git clean -n` only lists what it would delete".to_string())
            } else if a.short('f') || a.flag("--force") {
                danger("`git clean -f` deletes untracked files".to_string())
            } else {
                mutates("`git clean` deletes untracked files".to_string())
            }
        }
        "checkout" | "restore"
            if a.short('f')
                || a.flag("--force")
                || a.positional
                    .iter()
                    .any(|p| matches!(*p, "." | "./" | ":/" | "*" | ":/*"))
                || (sub == "restore"
                    && !a.positional.is_empty()
                    && !(a.flag("--staged") && !a.flag("--worktree") && !a.short('W'))) =>
        {
            danger(format!(
                "`git {sub}` of paths (or with `--force`) discards their uncommitted changes"
            ))
        }
        "filter-branch" | "filter-repo" => danger(format!(
            "`git {sub}` rewrites the history of the repository"
        )),
        "update-ref" if a.short('d') => {
            danger("`git update-ref -d` deletes a reference".to_string())
        }
        "gc" | "prune" if args.iter().any(|a| a.starts_with("--prune")) || sub == "prune" => {
            danger("pruning deletes unreachable commits for good".to_string())
        }
        _ => mutates(format!("`git {sub}` changes the repository")),
    }
}
