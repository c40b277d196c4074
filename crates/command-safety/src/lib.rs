//! Classifies shell command lines for the approval gate.
//!
//! A command line is parsed with the tree-sitter bash grammar (a real parser: quoting,
//! `&&`/`||`/`;`/`|`/`&`/newlines, subshells, `$( … )`, backticks, process substitution,
//! heredocs, `if`/`for`/`while`/`case`, functions), and every simple command in it becomes a
//! [`CommandPart`]. Each part is judged on its own: the program, its arguments, and its
//! redirections. The text of `bash -c '…'`, `eval '…'` and of a heredoc fed to a shell is
//! parsed and judged the same way. A compound command is as dangerous as its most dangerous
//! part.
//!
//! Why tree-sitter rather than a word splitter: a word splitter (`shell-words`, `shlex`)
//! knows quoting but not the grammar, so it cannot tell `a && b` from `"a && b"` without a
//! hand-written operator lexer on top, and that lexer is where classifiers go wrong
//! (heredocs, nested substitutions, `case` patterns). The grammar gives the structure;
//! `shell-words` then unquotes single words the grammar has delimited.
//!
//! The judgement is conservative: a part is [`CommandClass::ReadOnly`] only when the program
//! is on a list of known read-only programs and none of its arguments turns it into a writer
//! (`sort -o`, `find -delete`, `sed -i`, `git branch -D`, …). Anything unknown is
//! [`CommandClass::Mutating`]. [`CommandClass::Dangerous`] is kept for destructive,
//! privileged or system-wide effects, each with a reason that names the rule, and for code
//! the classifier cannot see, since it could be any of those: a program name that is not a
//! literal word (`$(echo rm) -r x`, `$X`, `{rm,-r,x}`, `/bin/r?`), text piped or redirected
//! into a shell or an interpreter (`… | base64 -d | sh`, `sh < x`, `python3 <<EOF`; a literal
//! `echo … | sh` is judged by its parts instead), a script only known when it runs (`sh -c
//! "$X"`, `eval "$X"`, `bash <(…)`), and code on an interpreter's command line (`python -c`,
//! `perl -e`, `node -e`, `ruby -e`, `php -r`, `awk '…system(…)…'`, `sed '…e…'`).
//!
//! [`classify_in`] also knows where the command runs, and tells reads inside the workspace
//! from reads outside it ([`CommandClass::ReadsOutside`]), and changes inside the workspace
//! from changes outside it ([`CommandClass::WritesOutside`]).
//!
//! The crate is split by job: `walker` (the syntax walk, bounded in depth: a line nested
//! deeper than the walk can follow on a small stack is Dangerous, "too deeply nested to
//! judge"), `words` (unquoting, expansion, globs, braces), `verdicts`, `args` (one argument
//! view with getopt semantics: clusters, attached values, GNU abbreviations, `--`, `-`),
//! `judge` (one simple command), one module per program family under `rules` (git, sed,
//! awk, find, coreutils' writing options as a table, wrappers, shells, interpreters, system
//! programs, code bash evaluates inside strings), [`env`] (the risky-variable table),
//! `git_repo` (the repository's own configuration), and `site`/`reads`/`writes` (where paths
//! lead). It is pure apart from reading the workspace: directory entries for globs, symlinks,
//! and a repository's `.git/config`; it starts no process and writes nothing.

use std::fmt;
use std::path::Path;

use tack_protocol::Risk;

use site::Site;
use verdicts::Listing;
use walker::classify_script;
use words::Word;

mod args;
pub mod env;
mod git_repo;
mod judge;
mod reads;
mod rules;
mod site;
mod verdicts;
mod walker;
mod words;
mod writes;

/// The verdict on a command line or one of its parts, ordered from harmless to dangerous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CommandClass {
    /// Only reads: a known read-only program with safe arguments and no writing redirection.
    ReadOnly,
    /// A known read-only program that reads outside the workspace, or reads a path that is
    /// only known when it runs. Only [`classify_in`] gives this verdict.
    ReadsOutside,
    /// Changes files or state, or is not known to be read-only.
    Mutating,
    /// Changes files outside the workspace (a redirection or a known file-changing command
    /// whose target resolves outside it, or is only known when it runs), or changes anything
    /// from a working directory outside it. Only [`classify_in`] gives this verdict.
    WritesOutside,
    /// Destructive, privileged or system-wide (`rm -r`, `sudo`, `git push --force`, …), or
    /// runs code that cannot be checked (`$X args`, `… | sh`, `python -c`).
    Dangerous,
}

impl CommandClass {
    /// The risk shown with an approval request.
    pub fn risk(self) -> Risk {
        match self {
            CommandClass::ReadOnly => Risk::Low,
            CommandClass::ReadsOutside | CommandClass::Mutating => Risk::Medium,
            CommandClass::WritesOutside | CommandClass::Dangerous => Risk::High,
        }
    }

    /// `read-only`, `reads-outside`, `mutating`, `writes-outside` or `dangerous`.
    pub fn as_str(self) -> &'static str {
        match self {
            CommandClass::ReadOnly => "read-only",
            CommandClass::ReadsOutside => "reads-outside",
            CommandClass::Mutating => "mutating",
            CommandClass::WritesOutside => "writes-outside",
            CommandClass::Dangerous => "dangerous",
        }
    }
}

impl fmt::Display for CommandClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One simple command (or redirection) of a command line, judged on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPart {
    /// The source text of the part, as written.
    pub text: String,
    /// The program it runs after unwrapping `env`, `timeout`, `xargs`, … (`None` for a bare
    /// redirection or a dynamic command name).
    pub program: Option<String>,
    /// Verdict for this part.
    pub class: CommandClass,
    /// Why, naming the rule (e.g. "`rm -r` deletes recursively").
    pub reason: String,
    /// The part's words as the program receives them (unquoted), when every word is a plain
    /// literal: no expansion, substitution or glob, no variable assignment before it, no
    /// redirection. `None` otherwise. Saved rules match command prefixes against these.
    pub literal_words: Option<Vec<String>>,
    /// Set when an option or operand makes the program write a file or run another program
    /// (`git diff --output=x`, `--ext-diff`, sed's `w`/`e`, `find -exec`, `sort -o`, …), in
    /// words. A rule's prefix never covers such a part unless it names it word for word.
    pub side_effect: Option<String>,
}

/// The verdict on a whole command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandAssessment {
    /// The class of the most dangerous part.
    pub class: CommandClass,
    /// The reason of the (first) most dangerous part.
    pub reason: String,
    /// Every part, in source order (nested scripts after their command).
    pub parts: Vec<CommandPart>,
}

/// Classifies a command line as given to `bash -lc`, without looking at where it runs: no
/// verdict is [`CommandClass::ReadsOutside`] or [`CommandClass::WritesOutside`].
pub fn classify(command: &str) -> CommandAssessment {
    let mut parts = Vec::new();
    classify_script(command, 0, 0, None, &mut parts);
    summarize(parts)
}

/// Where a command line runs, so that reads can be told apart by place.
#[derive(Debug, Clone, Copy)]
pub struct CommandSite<'a> {
    /// The workspace root (absolute).
    pub workspace: &'a Path,
    /// The directory the command runs in (absolute); relative paths resolve against it.
    pub cwd: &'a Path,
    /// The user's home directory, for `~` and `$HOME` (`None`: such paths count as outside).
    pub home: Option<&'a Path>,
}

/// Classifies a command line as [`classify`] does, and also checks the paths that known
/// read-only commands read: a part that reads outside the workspace, or reads a path only
/// known when it runs (`cat "$f"`), becomes [`CommandClass::ReadsOutside`].
///
/// Which words are paths: every operand of a read-only program, except the pattern, script
/// or filter that comes first for `grep`/`rg`/`ag`/`ack`/`fd`, `sed`, `awk` and `jq` (unless
/// given with `-e`/`-f`), the values of options known to take a non-path value (`cut -d /`,
/// `head -n 5`), and the expression of `find` after its starting points. Values of options
/// known to name a file (`grep -f FILE`, `--file=FILE`, `git -C DIR`, `find -newer FILE`) are
/// paths. Listing commands without a path (`ls`, `find`, `rg`, `git`, `grep -r`) read the
/// working directory. `cd` counts too, since it moves later reads. Input redirections (`<
/// FILE`) are reads for any command. `~`, `$HOME` and `$PWD` are expanded; any other
/// expansion makes the path unknown (a process substitution `<(…)` is not a path).
///
/// A path is resolved against `cwd` (lexically for `..`, then through the filesystem where it
/// exists, so a symlink inside the workspace that points out counts as outside; a glob is
/// matched against the directory entries) and compared with the workspace root, itself
/// resolved through symlinks. `/dev/null`, `/dev/zero`, `/dev/random`, `/dev/urandom`,
/// `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/tty` and `/dev/fd/N` count as inside.
///
/// Writes are checked the same way, for any command that is not read-only: a part becomes
/// [`CommandClass::WritesOutside`] when a target resolves outside the workspace or is only
/// known when it runs (`> "$f"`, `cp a $(…)`, `… | xargs rm` unless the names come from
/// `find`/`git ls-files`/`grep -l` inside). Targets are output redirections (`>`, `>>`, `&>`,
/// `>|`, `2>`, …, on any command) and, for known file-changing commands, the words that name
/// what changes: the destination of `cp`/`install`/`ln`/`rsync`/`scp` (last operand or `-t
/// DIR`), every operand of `mv`, `rm`, `rmdir`, `unlink`, `touch`, `mkdir`, `truncate`, `tee`,
/// the files of `chmod`/`chown`/`chgrp`, `dd of=`, the archive of `tar c` (`-f`) and the
/// directory of `tar x` (`-C`), `unzip -d`, the files of `sed -i`, `git -C`/`--work-tree`/
/// `--git-dir` and the directory of `git clone`/`init`/`worktree add`, `curl -o`/`-D`/`-c`/
/// `--output-dir`, `wget -O`/`-P`/`-o`, `patch -d`/`-o` and its file operand, `sort -o`, `find`
/// `-fprint` (and its starting points with `-exec`). Sources that are only read do not count.
/// When the working directory is outside the workspace, or a `cd`/`pushd` in the line leaves
/// it, every part that changes anything becomes [`CommandClass::WritesOutside`] too.
pub fn classify_in(command: &str, site: &CommandSite<'_>) -> CommandAssessment {
    let site = Site::new(site);
    let mut parts = Vec::new();
    classify_script(command, 0, 0, Some(&site), &mut parts);
    changes_from_outside(&site, &mut parts);
    summarize(parts)
}

/// Every part that changes something, when it runs outside the workspace: the working
/// directory is outside, or a `cd` leaves (conservatively for the whole line, since loops and
/// groups make "after the `cd`" hard to tell from the text).
fn changes_from_outside(site: &Site, parts: &mut [CommandPart]) {
    // `CDPATH=/etc cd x` goes where `CDPATH` says; a symlink made by `ln -s` in the line can
    // lead anywhere, and later writes through it land there.
    let sets_cdpath = parts.iter().any(|p| p.text.contains("CDPATH="));
    let symlink = parts.iter().position(|p| {
        p.program.as_deref() == Some("ln")
            && p.text.split_whitespace().any(|w| {
                w == "--symbolic" || (w.starts_with('-') && !w.starts_with("--") && w.contains('s'))
            })
    });
    let mut from = 0;
    let away = match site.cwd_outside() {
        Some(cwd) => format!("runs in {cwd}, outside the workspace"),
        None => match parts.iter().find(|p| {
            matches!(p.program.as_deref(), Some("cd" | "pushd"))
                && (p.class == CommandClass::ReadsOutside || sets_cdpath)
        }) {
            Some(cd) => format!("runs after `{}`, which leaves the workspace", cd.text),
            None => match symlink {
                Some(at) => {
                    from = at + 1;
                    format!(
                        "may write through the symlink `{}` makes, which can lead outside the workspace",
                        parts[at].text
                    )
                }
                None => return,
            },
        },
    };
    for p in parts
        .iter_mut()
        .skip(from)
        .filter(|p| p.class == CommandClass::Mutating)
    {
        p.class = CommandClass::WritesOutside;
        p.reason = format!("may write outside the workspace: `{}` {away}", p.text);
    }
}

fn summarize(parts: Vec<CommandPart>) -> CommandAssessment {
    let worst = parts.iter().map(|p| p.class).max();
    match worst {
        None => CommandAssessment {
            class: CommandClass::ReadOnly,
            reason: "the command line is empty".to_string(),
            parts,
        },
        Some(CommandClass::ReadOnly) => {
            let mut programs: Vec<String> = Vec::new();
            for p in parts.iter().filter_map(|p| p.program.clone()) {
                if !programs.contains(&p) {
                    programs.push(p);
                }
            }
            let reason = if programs.is_empty() {
                "no part of the command changes anything".to_string()
            } else {
                format!(
                    "only known read-only commands: {}",
                    programs
                        .iter()
                        .map(|p| format!("`{p}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            CommandAssessment {
                class: CommandClass::ReadOnly,
                reason,
                parts,
            }
        }
        Some(class) => {
            let reason = parts
                .iter()
                .find(|p| p.class == class)
                .map(|p| p.reason.clone())
                .unwrap_or_default();
            CommandAssessment {
                class,
                reason,
                parts,
            }
        }
    }
}
