//! `git`: read-only subcommands, destructive ones, and everything else.

use crate::CommandClass;
use crate::verdicts::Judged;

/// Options of read-only subcommands that name a program git runs.
const PROGRAM_OPTIONS: &[&str] = &["--upload-pack", "--receive-pack", "--exec"];

/// `git`: read-only subcommands, destructive ones, and everything else.
pub(crate) fn judge_git(values: &[&str]) -> Judged {
    use CommandClass::{Dangerous, Mutating, ReadOnly};
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
    let args = &values[i + 1..];
    let options: Vec<&str> = args.iter().take_while(|a| **a != "--").copied().collect();
    let exact = |f: &str| {
        options
            .iter()
            .any(|a| *a == f || a.starts_with(&format!("{f}=")))
    };
    // git's option parser takes unambiguous abbreviations (`--har` is `--hard`, `--force-w`
    // is `--force-with-lease`); an abbreviation is read as every option it could stand for.
    let flag = |f: &str| {
        exact(f)
            || options.iter().any(|a| {
                let name = a.split('=').next().unwrap_or(a);
                a.starts_with("--") && name.len() >= 3 && f.starts_with(name)
            })
    };
    let short = |c: char| {
        args.iter()
            .take_while(|a| **a != "--")
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c))
    };
    let positional: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let ro = |reason: String| Judged::new(p, ReadOnly, reason);
    let mutates = |reason: String| Judged::new(p, Mutating, reason);
    let danger = |reason: String| Judged::new(p, Dangerous, reason);
    match sub {
        "status" | "log" | "diff" | "show" | "rev-parse" | "ls-files" | "ls-tree" | "blame"
        | "annotate" | "shortlog" | "describe" | "cat-file" | "grep" | "rev-list"
        | "merge-base" | "name-rev" | "count-objects" | "var" | "whatchanged" | "help"
        | "version" | "show-ref" | "for-each-ref" | "cherry" | "range-diff" | "diff-tree"
        | "diff-files" | "diff-index" | "check-ignore" | "check-attr" | "ls-remote"
        | "verify-commit" | "verify-tag" => {
            if let Some(option) = PROGRAM_OPTIONS.iter().find(|o| flag(o)) {
                danger(format!("`git {sub} {option}` runs another program")).effect()
            } else if sub == "grep" && (short('O') || flag("--open-files-in-pager")) {
                danger("`git grep -O` runs a pager program on the matching files".to_string())
                    .effect()
            } else if sub == "ls-remote"
                && positional
                    .iter()
                    .any(|u| u.starts_with("ext::") || u.starts_with("fd::"))
            {
                danger("`git ls-remote ext::…` runs the command in the address".to_string())
                    .effect()
            } else if flag("--ext-diff") || flag("--textconv") || flag("--filters") {
                mutates(format!(
                    "`git {sub}` with `--ext-diff`/`--textconv` runs configured programs"
                ))
                .effect()
            } else if flag("--output") {
                mutates(format!("`git {sub} --output` writes a file")).effect()
            } else {
                ro(format!("`git {sub}` only reads"))
            }
        }
        "branch" => {
            if flag("-D")
                || (short('d') && (short('f') || flag("--force")))
                || (flag("--delete") && flag("--force"))
            {
                danger("`git branch -D` deletes a branch even if it is not merged".to_string())
            } else if short('d')
                || short('m')
                || short('M')
                || short('c')
                || short('C')
                || short('u')
                || flag("--delete")
                || flag("--move")
                || flag("--copy")
                || flag("--set-upstream-to")
                || flag("--unset-upstream")
                || flag("--edit-description")
                || flag("--force")
                || !(positional.is_empty()
                    || exact("--list")
                    || short('l')
                    || exact("--contains")
                    || exact("--merged")
                    || exact("--no-merged")
                    || exact("--points-at"))
            {
                mutates("`git branch` with these arguments changes branches".to_string())
            } else {
                ro("`git branch` only lists branches".to_string())
            }
        }
        "tag" => {
            if args.is_empty()
                || exact("--list")
                || short('l')
                || (positional.is_empty()
                    && !short('d')
                    && !short('a')
                    && !short('s')
                    && !short('f'))
            {
                ro("`git tag` only lists tags".to_string())
            } else {
                mutates("`git tag` with these arguments changes tags".to_string())
            }
        }
        "remote" => match positional.first().copied() {
            None | Some("show" | "get-url") => ro("`git remote` only lists remotes".to_string()),
            Some(verb) => mutates(format!("`git remote {verb}` changes remotes")),
        },
        "stash" => match positional.first().copied() {
            Some("list" | "show") => ro("`git stash list` only reads".to_string()),
            Some(verb @ ("drop" | "clear")) => {
                danger(format!("`git stash {verb}` discards stashed changes"))
            }
            _ => mutates("`git stash` changes the working tree".to_string()),
        },
        "config" => {
            let reads = exact("--get")
                || exact("--get-all")
                || exact("--get-regexp")
                || exact("--list")
                || short('l')
                || exact("--show-origin") && positional.len() <= 1
                || positional
                    .first()
                    .is_some_and(|v| *v == "get" || *v == "list")
                || (positional.len() == 1
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
        "reflog" => match positional.first().copied() {
            Some(verb @ ("expire" | "delete")) => danger(format!(
                "`git reflog {verb}` deletes the history used to recover lost commits"
            )),
            _ => ro("`git reflog` only reads".to_string()),
        },
        "push" => {
            if short('f')
                || flag("--force")
                || flag("--force-with-lease")
                || flag("--force-if-includes")
                || flag("--mirror")
                || positional.iter().skip(1).any(|r| r.starts_with('+'))
            {
                danger("`git push --force` overwrites history on the remote".to_string())
            } else if short('d')
                || flag("--delete")
                || flag("--prune")
                || positional.iter().skip(1).any(|r| r.starts_with(':'))
            {
                danger("`git push --delete` deletes branches or tags on the remote".to_string())
            } else {
                mutates("`git push` publishes commits to a remote".to_string())
            }
        }
        "reset" if flag("--hard") => {
            danger("`git reset --hard` discards uncommitted changes".to_string())
        }
        "clean" => {
            if short('n') || flag("--dry-run") {
                ro("`git clean -n` only lists what it would delete".to_string())
            } else if short('f') || flag("--force") {
                danger("`git clean -f` deletes untracked files".to_string())
            } else {
                mutates("`git clean` deletes untracked files".to_string())
            }
        }
        "checkout" | "restore"
            if short('f')
                || flag("--force")
                || positional
                    .iter()
                    .any(|p| matches!(*p, "." | "./" | ":/" | "*" | ":/*"))
                || (sub == "restore"
                    && !positional.is_empty()
                    && !(flag("--staged") && !flag("--worktree") && !short('W'))) =>
        {
            danger(format!(
                "`git {sub}` of paths (or with `--force`) discards their uncommitted changes"
            ))
        }
        "filter-branch" | "filter-repo" => danger(format!(
            "`git {sub}` rewrites the history of the repository"
        )),
        "update-ref" if short('d') => danger("`git update-ref -d` deletes a reference".to_string()),
        "gc" | "prune" if args.iter().any(|a| a.starts_with("--prune")) || sub == "prune" => {
            danger("pruning deletes unreachable commits for good".to_string())
        }
        _ => mutates(format!("`git {sub}` changes the repository")),
    }
}
