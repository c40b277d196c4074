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

use std::fmt;
use std::path::Path;

use tack_protocol::Risk;
use tree_sitter::{Node, Parser};

use reads::{FILE_TESTS, listing, read_operands};
use site::{PathItem, Site};
use writes::{input_names_targets, write_operands};

mod reads;
mod site;
mod writes;

/// How far `bash -c`, `eval` and heredoc scripts are followed.
const MAX_NESTING: usize = 8;

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
    classify_script(command, 0, None, &mut parts);
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
    classify_script(command, 0, Some(&site), &mut parts);
    changes_from_outside(&site, &mut parts);
    summarize(parts)
}

/// Every part that changes something, when it runs outside the workspace: the working
/// directory is outside, or a `cd` leaves (conservatively for the whole line, since loops and
/// groups make "after the `cd`" hard to tell from the text).
fn changes_from_outside(site: &Site, parts: &mut [CommandPart]) {
    let away = match site.cwd_outside() {
        Some(cwd) => format!("runs in {cwd}, outside the workspace"),
        None => match parts.iter().find(|p| {
            matches!(p.program.as_deref(), Some("cd" | "pushd"))
                && p.class == CommandClass::ReadsOutside
        }) {
            Some(cd) => format!("runs after `{}`, which leaves the workspace", cd.text),
            None => return,
        },
    };
    for p in parts
        .iter_mut()
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

/// Parses `script` and appends its parts.
/// `script` with the first newline that the parse put between two words of one command
/// replaced by `;` (see [`classify_script`]); `None` when the parse has no such command. A
/// newline escaped with a backslash is a line continuation and stays.
fn separate_run_on_command(script: &str, node: Node<'_>) -> Option<String> {
    if node.kind() == "command" {
        let mut cursor = node.walk();
        let words: Vec<_> = node.named_children(&mut cursor).collect();
        for pair in words.windows(2) {
            let gap = pair[0].end_byte()..pair[1].start_byte();
            let text = &script[gap.clone()];
            if let Some(at) = text.find('\n')
                && !text[..at].ends_with('\\')
            {
                let mut repaired = script.to_string();
                repaired.replace_range(gap.start + at..gap.start + at + 1, ";");
                return Some(repaired);
            }
        }
    }
    let mut cursor = node.walk();
    let children: Vec<_> = node.children(&mut cursor).collect();
    children
        .into_iter()
        .find_map(|child| separate_run_on_command(script, child))
}

fn classify_script(script: &str, depth: usize, site: Option<&Site>, parts: &mut Vec<CommandPart>) {
    if depth > MAX_NESTING {
        parts.push(part(
            script,
            None,
            CommandClass::Mutating,
            "scripts nested too deeply to check",
        ));
        return;
    }
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .is_err()
    {
        parts.push(part(
            script,
            None,
            CommandClass::Mutating,
            "the shell grammar could not be loaded",
        ));
        return;
    }
    let Some(tree) = parser.parse(script, None) else {
        parts.push(part(
            script,
            None,
            CommandClass::Mutating,
            "the command line could not be parsed",
        ));
        return;
    };
    // tree-sitter-bash sometimes runs a command on past a newline (`a | b | echo $(c)` then a
    // newline: the next line's words become `echo`'s arguments), which would hide what the
    // next line does. A newline between a command's own words can only be a separator, so it
    // is made an explicit `;` and the line parsed again.
    if let Some(repaired) = separate_run_on_command(script, tree.root_node()) {
        classify_script(&repaired, depth, site, parts);
        return;
    }
    let root = tree.root_node();
    let walker = Walker {
        src: script,
        depth,
        site,
    };
    walker.visit(root, parts);
    if root.has_error() {
        // The grammar takes `{rm,-r,x}` for a broken `{ …; }` group, where bash expands the
        // word before anything else: judge the line with its braces expanded too.
        if let Some(expanded) = expand_line_braces(script) {
            classify_script(&expanded, depth + 1, site, parts);
        }
        if looks_like_fork_bomb(script) {
            parts.push(part(
                script,
                None,
                CommandClass::Dangerous,
                "a fork bomb starts processes until the machine stops responding",
            ));
        }
        if !parts.iter().any(|p| p.class >= CommandClass::Mutating) {
            parts.push(part(
                script,
                None,
                CommandClass::Mutating,
                "the command line is not valid shell syntax, so it cannot be checked completely",
            ));
        }
    }
}

fn part(
    text: &str,
    program: Option<&str>,
    class: CommandClass,
    reason: impl Into<String>,
) -> CommandPart {
    CommandPart {
        text: text.trim().to_string(),
        program: program.map(str::to_string),
        class,
        reason: reason.into(),
        literal_words: None,
        side_effect: None,
    }
}

/// `:(){ :|:& };:` and its spacing variants, for input the grammar rejects.
fn looks_like_fork_bomb(script: &str) -> bool {
    let compact: String = script.chars().filter(|c| !c.is_whitespace()).collect();
    compact.contains(":(){:|:&};:") || compact.contains(":(){:|:&}")
}

/// One word of a simple command.
#[derive(Debug, Clone)]
struct Word {
    /// The unquoted value when `literal`, else the source text.
    value: String,
    /// No expansion or substitution: the value is known before the command runs.
    literal: bool,
    /// Contains a substitution that runs a network downloader (`$(curl …)`, `<(wget …)`).
    downloads: bool,
    /// The whole word is a process substitution (`<(…)`): a pipe from commands judged on
    /// their own, not a file.
    process_substitution: bool,
    /// Has an unquoted `*`, `?` or `[`, which the shell matches against file names.
    glob: bool,
    /// The value as a path: the literal value, or the word with `$HOME`/`$PWD` expanded when
    /// nothing else in it is dynamic; `None` when only known when it runs.
    path: Option<String>,
    /// The program receives exactly `value`: literal, no glob, no brace or tilde expansion.
    plain: bool,
}

/// What a stage writes, for `… | xargs cat`: whether its lines are paths inside the
/// workspace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Listing {
    /// Anything.
    #[default]
    Other,
    /// Paths it found inside the workspace (`find .`, `git ls-files`, `grep -l x src`).
    PathsInside,
    /// A selection of its input lines (`sort`, `head`, `grep x`): paths if its input was.
    InputLines,
}

/// What a command contributes to its pipeline, for rules that span stages.
#[derive(Debug, Clone, Default)]
struct Stage {
    program: Option<String>,
    /// A shell or interpreter reading its program from stdin.
    runs_stdin: bool,
    /// The literal text an `echo`/`printf` stage writes, when a shell reading it would see
    /// exactly that text (no escapes or formats to interpret).
    literal_output: Option<String>,
    /// `xargs` giving a read-only program file names from its input.
    reads_input_paths: bool,
    /// `xargs` giving a file-changing program (`rm`, `sed -i`, …) file names from its input.
    writes_input_paths: bool,
    /// What its output lines are.
    listing: Listing,
}

struct Walker<'s> {
    src: &'s str,
    depth: usize,
    /// Where the command runs, when reads are to be checked.
    site: Option<&'s Site>,
}

impl<'s> Walker<'s> {
    fn text(&self, node: Node<'_>) -> &'s str {
        node.utf8_text(self.src.as_bytes()).unwrap_or("")
    }

    /// Visits a node, appending parts; returns stage information for pipelines.
    fn visit(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) -> Stage {
        match node.kind() {
            // A bare `command_name` is error recovery (`{rm,-r,x}` alone): judge it as a
            // command all the same.
            "command" | "command_name" => self.command(node, parts),
            "test_command" => {
                self.test_command(node, parts);
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.visit(child, parts);
                }
                Stage::default()
            }
            "redirected_statement" => self.redirected(node, parts),
            "pipeline" => {
                self.pipeline(node, parts);
                Stage::default()
            }
            "function_definition" => {
                self.function(node, parts);
                Stage::default()
            }
            "variable_assignment" => {
                self.assignment(node, parts);
                Stage::default()
            }
            "declaration_command" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if child.kind() == "variable_assignment" {
                        self.assignment(child, parts);
                    } else {
                        self.substitutions(child, parts);
                    }
                }
                Stage::default()
            }
            "comment" | "heredoc_body" | "heredoc_content" | "heredoc_start" | "heredoc_end" => {
                Stage::default()
            }
            "file_redirect" => {
                self.file_redirect(node, parts);
                Stage::default()
            }
            // A group shares its input with the commands in it: `… | (sh)` and `… | while
            // read l; do sh; done` feed the pipe to `sh`.
            "subshell"
            | "compound_statement"
            | "list"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "case_statement"
            | "case_item"
            | "do_group"
            | "negated_command" => {
                let mut group = Stage::default();
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let stage = self.visit(child, parts);
                    if stage.runs_stdin && !group.runs_stdin {
                        group = Stage {
                            program: stage.program,
                            runs_stdin: true,
                            ..Stage::default()
                        };
                    }
                }
                group
            }
            _ => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.visit(child, parts);
                }
                Stage::default()
            }
        }
    }

    /// Visits every command substitution, process substitution and nested statement inside
    /// a word-like node.
    fn substitutions(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) {
        match node.kind() {
            "command_substitution" | "process_substitution" => {
                // `tee >(sh)`: whatever is written to an output substitution is its input.
                let feeds_input = self.text(node).starts_with(">(");
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let stage = self.visit(child, parts);
                    if feeds_input && stage.runs_stdin {
                        let program = stage.program.as_deref().unwrap_or("?");
                        parts.push(part(
                            self.text(node),
                            Some(program),
                            CommandClass::Dangerous,
                            format!(
                                "`{program}` in `>(…)` runs what is written to it as a {} that cannot be checked",
                                script_or_program(program)
                            ),
                        ));
                    }
                }
            }
            _ => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.substitutions(child, parts);
                }
            }
        }
    }

    fn word(&self, node: Node<'_>) -> Word {
        let raw = self.text(node);
        let literal = is_literal(node);
        let value = if literal {
            match node.kind() {
                "raw_string" => raw.trim_matches('\'').to_string(),
                "number" => raw.to_string(),
                _ => unquote(raw),
            }
        } else {
            raw.to_string()
        };
        let path = if literal {
            Some(value.clone())
        } else {
            self.site.and_then(|site| self.expand_path_word(node, site))
        };
        Word {
            value,
            literal,
            downloads: self.runs_downloader(node),
            process_substitution: node.kind() == "process_substitution",
            glob: matches!(node.kind(), "word" | "concatenation") && has_unquoted_glob(raw),
            plain: literal
                && !raw.starts_with('~')
                && !(matches!(node.kind(), "word" | "concatenation") && has_unquoted_glob(raw)),
            path,
        }
    }

    /// The words a word node stands for after brace expansion (`{rm,-r,x}` is three words).
    fn words(&self, node: Node<'_>) -> Vec<Word> {
        let word = self.word(node);
        if !word.literal {
            return vec![word];
        }
        let Some(expanded) = expand_braces(self.text(node)) else {
            return vec![word];
        };
        if expanded.len() > MAX_BRACE_WORDS {
            return vec![Word {
                literal: false,
                plain: false,
                path: None,
                ..word
            }];
        }
        expanded
            .into_iter()
            .map(|raw| {
                let value = unquote(&raw);
                Word {
                    path: Some(value.clone()),
                    value,
                    literal: true,
                    downloads: word.downloads,
                    process_substitution: false,
                    glob: has_unquoted_glob(&raw),
                    plain: false,
                }
            })
            .collect()
    }

    /// The text of a non-literal word with `$HOME`, `${HOME}`, `$PWD` and `${PWD}` expanded,
    /// or `None` when anything else in it is only known when it runs.
    fn expand_path_word(&self, node: Node<'_>, site: &Site) -> Option<String> {
        let start = node.start_byte();
        let raw = self.text(node);
        let mut replacements: Vec<(usize, usize, String)> = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "simple_expansion" | "expansion" => {
                    let value = match self.text(n) {
                        "$HOME" | "${HOME}" => site.home.as_ref()?.to_string_lossy().into_owned(),
                        "$PWD" | "${PWD}" => site.cwd.to_string_lossy().into_owned(),
                        _ => return None,
                    };
                    let quoted = n.parent().is_some_and(|p| p.kind() == "string");
                    replacements.push((
                        n.start_byte() - start,
                        n.end_byte() - start,
                        escape_for_shell(&value, quoted),
                    ));
                }
                "command_substitution"
                | "process_substitution"
                | "arithmetic_expansion"
                | "ansi_c_string"
                | "translated_string" => return None,
                _ => {
                    let mut cursor = n.walk();
                    stack.extend(n.named_children(&mut cursor));
                }
            }
        }
        replacements.sort_by_key(|r| r.0);
        let mut text = String::new();
        let mut at = 0;
        for (from, to, value) in replacements {
            text.push_str(raw.get(at..from)?);
            text.push_str(&value);
            at = to;
        }
        text.push_str(raw.get(at..)?);
        Some(unquote(&text))
    }

    /// Whether a substitution inside `node` runs curl/wget.
    fn runs_downloader(&self, node: Node<'_>) -> bool {
        if node.kind() == "command_name" {
            return is_downloader(program_name(self.text(node)));
        }
        let mut cursor = node.walk();
        node.named_children(&mut cursor)
            .any(|c| self.runs_downloader(c))
    }

    fn command(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) -> Stage {
        let text = self.text(node);
        let mut words: Vec<Word> = Vec::new();
        let mut assignments: Vec<(String, Node<'_>)> = Vec::new();
        let mut redirects: Vec<Node<'_>> = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => {
                    let name = child
                        .child_by_field_name("name")
                        .map(|n| self.text(n).to_string())
                        .unwrap_or_default();
                    assignments.push((name, child));
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    redirects.push(child)
                }
                "command_name" => {
                    let inner = child.named_child(0).unwrap_or(child);
                    words.extend(self.words(inner));
                }
                // Statements only appear here when `node` is error recovery around a
                // command name the grammar could not place (`ls; {rm,-r,x}`).
                "subshell"
                | "command"
                | "list"
                | "pipeline"
                | "redirected_statement"
                | "compound_statement" => {
                    self.visit(child, parts);
                }
                // `sh 0< x`: the grammar reads the descriptor of a redirection that
                // follows without a space as an argument.
                "number"
                    if matches!(self.src.as_bytes().get(child.end_byte()), Some(b'<' | b'>')) => {}
                _ => words.extend(self.words(child)),
            }
        }
        let mut verdicts: Vec<(CommandClass, String)> = Vec::new();
        for (name, _) in &assignments {
            if let Some(reason) = risky_variable(name) {
                verdicts.push((CommandClass::Mutating, reason));
            }
        }
        let mut nested: Vec<CommandPart> = Vec::new();
        let judged = if words.is_empty() {
            Judged::read_only(None, "sets shell variables")
        } else {
            self.judge(&words, &mut nested)
        };
        verdicts.push((judged.class, judged.reason.clone()));
        let (class, reason) = worst(verdicts);
        let mut own = part(text, judged.program.as_deref(), class, reason);
        own.side_effect = judged.side_effect.clone();
        // Saved rules match prefixes of these words, so they must be what the program gets.
        if assignments.is_empty() && redirects.is_empty() && words.iter().all(|w| w.plain) {
            own.literal_words = Some(words.iter().map(|w| w.value.clone()).collect());
        }
        parts.push(own);
        parts.extend(nested);
        for (_, assignment) in &assignments {
            self.substitutions(*assignment, parts);
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if !matches!(
                child.kind(),
                "variable_assignment"
                    | "file_redirect"
                    | "heredoc_redirect"
                    | "herestring_redirect"
                    | "subshell"
                    | "command"
                    | "list"
                    | "pipeline"
                    | "redirected_statement"
                    | "compound_statement"
            ) {
                self.substitutions(child, parts);
            }
        }
        for redirect in redirects {
            self.redirect(redirect, &judged.stage, parts);
        }
        judged.stage
    }

    fn redirected(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) -> Stage {
        let from = parts.len();
        let stage = match node.child_by_field_name("body") {
            Some(body) => self.visit(body, parts),
            None => Stage::default(),
        };
        // A redirection changes what the command does, so no part under it is plain words.
        for p in &mut parts[from..] {
            p.literal_words = None;
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if matches!(
                child.kind(),
                "file_redirect" | "heredoc_redirect" | "herestring_redirect"
            ) {
                self.redirect(child, &stage, parts);
            }
        }
        stage
    }

    fn redirect(&self, node: Node<'_>, stage: &Stage, parts: &mut Vec<CommandPart>) {
        match node.kind() {
            "file_redirect" => {
                if stage.runs_stdin && self.redirect_operator(node) == "<" {
                    let program = stage.program.as_deref().unwrap_or("?");
                    let source = node
                        .child_by_field_name("destination")
                        .map(|d| self.word(d).value)
                        .unwrap_or_default();
                    parts.push(part(
                        self.text(node),
                        Some(program),
                        CommandClass::Dangerous,
                        format!(
                            "feeds `{source}` into `{program}`, which runs it as a {} that cannot be checked",
                            script_or_program(program)
                        ),
                    ));
                }
                self.file_redirect(node, parts)
            }
            "heredoc_redirect" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    match child.kind() {
                        "heredoc_body" if stage.runs_stdin => {
                            let body = self.text(child);
                            self.nested_script(body, stage.program.as_deref(), node, parts);
                        }
                        "heredoc_body" => self.substitutions(child, parts),
                        "file_redirect" => self.file_redirect(child, parts),
                        "pipeline" | "command" | "list" => {
                            self.visit(child, parts);
                        }
                        _ => {}
                    }
                }
            }
            "herestring_redirect" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let word = self.word(child);
                    if stage.runs_stdin {
                        if word.literal {
                            self.nested_script(&word.value, stage.program.as_deref(), node, parts);
                        } else {
                            let program = stage.program.as_deref().unwrap_or("?");
                            parts.push(part(
                                self.text(node),
                                stage.program.as_deref(),
                                CommandClass::Dangerous,
                                format!(
                                    "`{program}` runs a {} whose text is only known when it runs, so it cannot be checked",
                                    script_or_program(program)
                                ),
                            ));
                        }
                    }
                    self.substitutions(child, parts);
                }
            }
            _ => {}
        }
    }

    fn nested_script(
        &self,
        script: &str,
        program: Option<&str>,
        node: Node<'_>,
        parts: &mut Vec<CommandPart>,
    ) {
        if program.is_some_and(is_shell) {
            classify_script(script, self.depth + 1, self.site, parts);
        } else {
            parts.push(part(
                self.text(node),
                program,
                CommandClass::Dangerous,
                format!(
                    "`{}` runs a program from its input, which cannot be checked",
                    program.unwrap_or("?")
                ),
            ));
        }
    }

    fn file_redirect(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) {
        let text = self.text(node);
        let operator = self.redirect_operator(node);
        let Some(dest) = node.child_by_field_name("destination") else {
            return;
        };
        self.substitutions(dest, parts);
        let dest_word = self.word(dest);
        if operator == "<"
            && let Some(site) = self.site
            && let Some(reason) = site.judge_reads(
                None,
                &PathItem::from_word(&dest_word)
                    .into_iter()
                    .collect::<Vec<_>>(),
            )
        {
            parts.push(part(text, None, CommandClass::ReadsOutside, reason));
        }
        let writes = match operator.as_str() {
            "<" | "<<<" => false,
            // `2>&1`, `>&2`, `<&0`, `>&-`: duplicating or closing descriptors.
            ">&" | "<&" | "&>" | "&>>" | ">" | ">>" | ">|" | "<>" | "<&-" | ">&-" => {
                !(matches!(operator.as_str(), ">&" | "<&" | "<&-" | ">&-")
                    && (dest.kind() == "number"
                        || dest_word.value == "-"
                        || dest_word.value.chars().all(|c| c.is_ascii_digit())))
            }
            _ => true,
        };
        if !writes {
            return;
        }
        let outside = self.site.and_then(|site| {
            site.judge_writes(
                &PathItem::from_word(&dest_word)
                    .into_iter()
                    .collect::<Vec<_>>(),
            )
        });
        if !dest_word.literal {
            parts.push(match outside {
                Some(reason) => part(text, None, CommandClass::WritesOutside, reason),
                None => part(
                    text,
                    None,
                    CommandClass::Mutating,
                    "redirects output to a file whose name is only known when it runs",
                ),
            });
            return;
        }
        let target = dest_word.value.as_str();
        if is_harmless_sink(target) {
            return;
        }
        if let Some(reason) = dangerous_write_target(target) {
            parts.push(part(text, None, CommandClass::Dangerous, reason));
            return;
        }
        if let Some(reason) = outside {
            parts.push(part(text, None, CommandClass::WritesOutside, reason));
            return;
        }
        let verb = if operator.contains(">>") {
            "appends to"
        } else {
            "writes"
        };
        parts.push(part(
            text,
            None,
            CommandClass::Mutating,
            format!("`{operator}` {verb} the file `{target}`"),
        ));
    }

    fn pipeline(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) {
        let mut stages: Vec<Stage> = Vec::new();
        // Index of each stage's own part, to settle it once the neighbours are known.
        let mut own_part: Vec<usize> = Vec::new();
        // tree-sitter-bash parses `a | b | c && d` as `a | (list (b | c) && d)`: bash binds
        // `|` tighter than `&&`, so the list's first element continues this pipeline and the
        // rest are separate statements, judged after it.
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let mut trailing: Vec<Node<'_>> = Vec::new();
        let mut stage_nodes: Vec<Node<'_>> = Vec::new();
        for (i, child) in children.iter().enumerate() {
            if child.kind() == "list" && i + 1 == children.len() {
                let mut c = child.walk();
                let mut items = child.named_children(&mut c);
                if let Some(first) = items.next() {
                    if first.kind() == "pipeline" {
                        let mut pc = first.walk();
                        stage_nodes.extend(first.named_children(&mut pc));
                    } else {
                        stage_nodes.push(first);
                    }
                }
                trailing.extend(items);
            } else {
                stage_nodes.push(*child);
            }
        }
        for child in stage_nodes {
            own_part.push(parts.len());
            stages.push(self.visit(child, parts));
        }
        for child in trailing {
            self.visit(child, parts);
        }
        // `find . | sort | xargs cat`: xargs reads the paths `find` found inside.
        let mut lists_inside = false;
        for (i, stage) in stages.iter().enumerate() {
            if stage.reads_input_paths
                && lists_inside
                && let Some(own) = parts.get_mut(own_part[i])
                && own.class == CommandClass::ReadsOutside
                && own.program == stage.program
            {
                own.class = CommandClass::ReadOnly;
                own.reason = format!(
                    "`xargs` gives `{}` paths found inside the workspace",
                    stage.program.as_deref().unwrap_or("?")
                );
            }
            if stage.writes_input_paths
                && lists_inside
                && let Some(own) = parts.get_mut(own_part[i])
                && own.class == CommandClass::WritesOutside
                && own.program == stage.program
            {
                own.class = CommandClass::Mutating;
                own.reason = format!(
                    "`xargs` gives `{}` paths found inside the workspace",
                    stage.program.as_deref().unwrap_or("?")
                );
            }
            lists_inside = match stage.listing {
                Listing::PathsInside => true,
                Listing::InputLines => lists_inside,
                Listing::Other => false,
            };
        }
        for (i, stage) in stages.iter().enumerate() {
            if !stage.runs_stdin {
                continue;
            }
            let program = stage.program.as_deref().unwrap_or("?");
            if stages[..i]
                .iter()
                .any(|s| s.program.as_deref().is_some_and(is_downloader))
            {
                parts.push(part(
                    self.text(node),
                    Some(program),
                    CommandClass::Dangerous,
                    format!(
                        "pipes a download from the network into `{program}`, which runs it unseen"
                    ),
                ));
            } else if let Some(text) = i
                .checked_sub(1)
                .and_then(|p| stages[p].literal_output.clone())
            {
                if is_shell(program)
                    && let Some(own) = parts.get_mut(own_part[i])
                    && own.program.as_deref() == Some(program)
                {
                    // The script is known: its own parts decide.
                    own.class = CommandClass::ReadOnly;
                    own.reason =
                        format!("`{program}` runs a literal script (its parts are judged)");
                }
                self.nested_script(&text, Some(program), node, parts);
            } else if i > 0 {
                let from = stages[i - 1]
                    .program
                    .as_deref()
                    .map_or_else(|| "the previous command".to_string(), |p| format!("`{p}`"));
                parts.push(part(
                    self.text(node),
                    Some(program),
                    CommandClass::Dangerous,
                    format!(
                        "pipes the output of {from} into `{program}`, which runs it as a {} that cannot be checked",
                        script_or_program(program)
                    ),
                ));
            }
        }
    }

    fn function(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n))
            .unwrap_or("");
        if let Some(body) = node.child_by_field_name("body") {
            let mut inner = Vec::new();
            self.visit(body, &mut inner);
            if !name.is_empty() && inner.iter().any(|p| p.program.as_deref() == Some(name)) {
                parts.push(part(
                    self.text(node),
                    Some(name),
                    CommandClass::Dangerous,
                    format!("the function `{name}` calls itself: a fork bomb pattern that starts processes until the machine stops responding"),
                ));
            } else {
                parts.push(part(
                    self.text(node),
                    None,
                    CommandClass::Mutating,
                    format!(
                        "defines the shell function `{name}`, which can stand in for any command"
                    ),
                ));
            }
            parts.extend(inner);
        }
    }

    fn assignment(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n))
            .unwrap_or("");
        if let Some(reason) = risky_variable(name) {
            parts.push(part(self.text(node), None, CommandClass::Mutating, reason));
        }
        self.substitutions(node, parts);
    }

    /// Judges a simple command given its words (program first), then where a command that
    /// changes files writes.
    fn judge(&self, words: &[Word], nested: &mut Vec<CommandPart>) -> Judged {
        let mut judged = self.judge_program(words, nested);
        // A wrapper (`timeout 5 rm x`, `xargs cat`, `sudo …`) runs another program.
        if judged.side_effect.is_none()
            && let (Some(first), Some(inner)) = (words.first(), judged.program.as_deref())
            && first.literal
            && program_name(&first.value) != inner
        {
            judged.side_effect = Some(format!("`{}` runs `{inner}`", program_name(&first.value)));
        }
        if let Some(site) = self.site
            && judged.class == CommandClass::Mutating
            && let Some((first, args)) = words.split_first()
            && first.literal
            && (!first.value.contains('/') || is_system_bin(&first.value))
            && let Some(items) = write_operands(program_name(&first.value), args)
            && let Some(reason) = site.judge_writes(&items)
        {
            judged.class = CommandClass::WritesOutside;
            judged.reason = reason;
        }
        judged
    }

    /// Judges a simple command given its words (program first), without the write check.
    fn judge_program(&self, words: &[Word], nested: &mut Vec<CommandPart>) -> Judged {
        use CommandClass::{Dangerous, Mutating, ReadOnly, ReadsOutside};
        let first = &words[0];
        if !first.literal {
            return Judged::new(
                None,
                Dangerous,
                format!(
                    "the program name `{}` is only known when it runs, so what runs cannot be checked",
                    first.value
                ),
            );
        }
        if first.glob && !matches!(first.value.as_str(), "[" | "[[") {
            return Judged::new(
                None,
                Dangerous,
                format!(
                    "the program name `{}` is a file-name pattern, so which program runs is only known when it runs",
                    first.value
                ),
            );
        }
        let raw_program = first.value.as_str();
        let program = program_name(raw_program);
        let args = &words[1..];
        // `./ls` or `bin/cat` is a local program that merely shares a name.
        if raw_program.contains('/') && !is_system_bin(raw_program) {
            return Judged::new(
                Some(raw_program),
                Mutating,
                format!("runs the program `{raw_program}`"),
            );
        }
        let values: Vec<&str> = args.iter().map(|w| w.value.as_str()).collect();
        let p = Some(program);

        // Privilege and wrappers first: they decide what the rest means.
        match program {
            "sudo" | "doas" | "pkexec" | "su" | "run0" => {
                let inner = skip_options(
                    args,
                    &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-c"],
                );
                if program != "su" && !inner.is_empty() {
                    let inner_judged = self.judge(inner, nested);
                    nested.push(part(
                        &join_words(inner),
                        inner_judged.program.as_deref(),
                        inner_judged.class,
                        inner_judged.reason,
                    ));
                }
                return Judged::new(
                    p,
                    Dangerous,
                    format!("`{program}` runs a command with elevated privileges"),
                );
            }
            "env" => {
                let mut rest = args;
                let mut chdir: Option<&Word> = None;
                while let Some((w, tail)) = rest.split_first() {
                    let v = w.value.as_str();
                    if v == "-S" || v == "--split-string" || v.starts_with("--split-string=") {
                        // `env -S 'cmd args'` splits its text into the command it runs.
                        let (text, after) = match v.strip_prefix("--split-string=") {
                            Some(t) => (t.to_string(), tail),
                            None => match tail.split_first() {
                                Some((t, after)) => (t.value.clone(), after),
                                None => (String::new(), tail),
                            },
                        };
                        let script = [text, join_words(after)].join(" ");
                        classify_script(&script, self.depth + 1, self.site, nested);
                        return Judged::read_only(
                            p,
                            "`env -S` runs the command in its text (its parts are judged)",
                        );
                    }
                    if v == "-u" || v == "--unset" || v == "-C" || v == "--chdir" {
                        if v == "-C" || v == "--chdir" {
                            chdir = tail.first();
                        }
                        rest = tail.get(1..).unwrap_or(&[]);
                    } else if v.starts_with('-') || (v.contains('=') && !v.starts_with('=')) {
                        if let Some((name, _)) = v.split_once('=')
                            && let Some(reason) = risky_variable(name)
                        {
                            nested.push(part(v, None, Mutating, reason));
                        }
                        rest = tail;
                    } else {
                        break;
                    }
                }
                if rest.is_empty() {
                    return Judged::read_only(p, "`env` prints the environment");
                }
                let mut judged = self.judge(rest, nested);
                // `env -C DIR cmd` runs `cmd` in `DIR`.
                if judged.class == Mutating
                    && let Some(site) = self.site
                    && let Some(reason) = site.judge_writes(
                        &chdir
                            .and_then(PathItem::from_word)
                            .into_iter()
                            .collect::<Vec<_>>(),
                    )
                {
                    judged.class = CommandClass::WritesOutside;
                    judged.reason = format!("{reason} (`env -C`)");
                }
                return judged;
            }
            "nice" | "ionice" | "stdbuf" | "chrt" | "taskset" | "time" | "command" | "builtin"
            | "exec" | "nohup" | "setsid" | "watch" | "timeout" => {
                if program == "command" && values.first().is_some_and(|v| *v == "-v" || *v == "-V")
                {
                    return Judged::read_only(p, "`command -v` looks a program up");
                }
                let inner = wrapped_command(program, args);
                if inner.is_empty() {
                    return Judged::new(p, Mutating, format!("`{program}` without a command"));
                }
                // `watch` hands its words, joined by spaces, to `sh -c` (unless `-x`).
                if program == "watch" && !values.iter().any(|v| matches!(*v, "-x" | "--exec")) {
                    if inner.iter().all(|w| w.literal) {
                        classify_script(&join_words(inner), self.depth + 1, self.site, nested);
                        return Judged::read_only(
                            p,
                            "`watch` runs a literal script (its parts are judged)",
                        );
                    }
                    return Judged::new(
                        p,
                        Dangerous,
                        "`watch` runs a script that is only known when it runs, so it cannot be checked",
                    );
                }
                let mut judged = self.judge(inner, nested);
                if program == "nohup" && judged.class <= ReadsOutside {
                    judged.class = Mutating;
                    judged.reason = "`nohup` writes `nohup.out`".to_string();
                }
                return judged;
            }
            "alias" | "trap" => {
                // Both hold command text the shell runs later: `alias x='rm -r'`, `trap
                // 'rm -r d' EXIT`.
                let scripts: Vec<&Word> = if program == "alias" {
                    args.iter().filter(|w| w.value.contains('=')).collect()
                } else {
                    // `trap ACTION SIGNAL…`; a lone word is a signal to reset.
                    let operands: Vec<&Word> = args
                        .iter()
                        .skip_while(|w| {
                            w.literal && matches!(w.value.as_str(), "-p" | "-l" | "-P" | "--")
                        })
                        .collect();
                    match operands.first() {
                        Some(action) if operands.len() >= 2 && action.value != "-" => {
                            vec![*action]
                        }
                        _ => Vec::new(),
                    }
                };
                for script in &scripts {
                    if !script.literal {
                        return Judged::new(
                            p,
                            Dangerous,
                            format!(
                                "`{program}` holds a command that is only known when it runs, so it cannot be checked"
                            ),
                        );
                    }
                    let text = match program {
                        "alias" => script.value.split_once('=').map_or("", |(_, v)| v),
                        _ => script.value.as_str(),
                    };
                    classify_script(text, self.depth + 1, self.site, nested);
                }
                return Judged::read_only(
                    p,
                    &format!("`{program}` of literal commands (their parts are judged)"),
                );
            }
            "strace" | "ltrace" | "fakeroot" | "unbuffer" | "xvfb-run" | "dbus-run-session"
            | "uv" | "poetry" | "pipenv" | "bundle" | "bundler" => {
                let inner = runner_command(program, args);
                if !inner.is_empty() {
                    let judged = self.judge(inner, nested);
                    if judged.class >= Mutating {
                        return judged;
                    }
                    return Judged::new(
                        p,
                        Mutating,
                        format!("`{program}` runs `{}`", inner[0].value),
                    );
                }
            }
            "busybox" => {
                // `busybox rm -r x` runs the applet named by its first word.
                return if args.is_empty() {
                    Judged::read_only(p, "`busybox` without an applet lists its applets")
                } else {
                    self.judge(args, nested)
                };
            }
            "xargs" => {
                let inner = xargs_command(args);
                if inner.is_empty() {
                    let mut judged =
                        Judged::read_only(p, "`xargs` without a command echoes its input");
                    judged.stage.listing = Listing::InputLines;
                    return judged;
                }
                let mut judged = self.judge(inner, nested);
                // `… | xargs rm`: the files it changes come from its input.
                if judged.class == Mutating
                    && self.site.is_some()
                    && let Some(inner_program) = judged.program.clone()
                    && input_names_targets(&inner_program, &inner[1..])
                {
                    judged.class = CommandClass::WritesOutside;
                    judged.reason = format!(
                        "`xargs` gives `{inner_program}` paths from its input, so what it changes is only known when it runs"
                    );
                    judged.stage.writes_input_paths = !values
                        .iter()
                        .any(|v| *v == "-a" || v.starts_with("--arg-file"));
                }
                if judged.class == ReadOnly
                    && self.site.is_some()
                    && judged
                        .program
                        .as_deref()
                        .is_some_and(|inner| read_operands(inner, &[]).is_some())
                {
                    let inner_program = judged.program.clone().unwrap_or_default();
                    judged.class = ReadsOutside;
                    judged.reason = format!(
                        "`xargs` gives `{inner_program}` paths from its input, so what it reads is only known when it runs"
                    );
                    judged.stage.reads_input_paths = !values
                        .iter()
                        .any(|v| *v == "-a" || v.starts_with("--arg-file"));
                }
                return judged;
            }
            _ => {}
        }

        if is_shell(program) {
            return self.judge_shell(program, args, nested);
        }
        if program == "eval" {
            if args.iter().all(|w| w.literal) {
                let script = values.join(" ");
                classify_script(&script, self.depth + 1, self.site, nested);
                return Judged::new(
                    p,
                    ReadOnly,
                    "`eval` of a literal script (its parts are judged)",
                );
            }
            return if args.iter().any(|w| w.downloads) {
                Judged::new(p, Dangerous, "`eval` runs text downloaded from the network")
            } else {
                Judged::new(
                    p,
                    Dangerous,
                    "`eval` runs text that is only known when it runs, so it cannot be checked",
                )
            };
        }
        if program == "source" || program == "." {
            return if args.iter().any(|w| w.downloads) {
                Judged::new(
                    p,
                    Dangerous,
                    format!("`{program}` runs a script downloaded from the network"),
                )
            } else if args.first().is_some_and(|w| w.process_substitution) {
                Judged::new(
                    p,
                    Dangerous,
                    format!(
                        "`{program}` runs the output of another command as a script, which cannot be checked"
                    ),
                )
            } else {
                Judged::new(
                    p,
                    Mutating,
                    format!("`{program}` runs a script in the current shell"),
                )
            };
        }
        if let Some(judged) = version_or_help(program, &values) {
            return judged;
        }
        if let Some(judged) = judge_dangerous(program, &values) {
            return judged;
        }
        if let Some(mut judged) = self.judge_read_only(program, args, nested) {
            // On a read-only program, only an option or operand can make it write or run.
            if judged.class >= Mutating && judged.side_effect.is_none() && program != "git" {
                judged.side_effect = Some(judged.reason.clone());
            }
            if judged.class == ReadOnly {
                let reads = read_operands(program, args);
                if let Some(site) = self.site
                    && let Some(items) = &reads
                    && let Some(reason) = site.judge_reads(Some(program), items)
                {
                    judged.class = ReadsOutside;
                    judged.reason = reason;
                }
                let stdin = reads.is_none_or(|items| items.is_empty());
                judged.stage.listing = match listing(program, &values, stdin) {
                    // Only paths it found inside count as inside.
                    Listing::PathsInside if judged.class != ReadOnly => Listing::Other,
                    other => other,
                };
            }
            if matches!(program, "echo" | "printf") && args.iter().all(|w| w.literal) {
                judged.stage.literal_output = printed_text(program, &values);
            }
            if matches!(program, "sed" | "awk" | "gawk" | "mawk" | "nawk") {
                return self.program_from_file(judged, args, &["--file"]);
            }
            return judged;
        }
        if is_interpreter(program) {
            if let Some(option) = inline_code_option(program, &values) {
                return Judged::new(
                    p,
                    Dangerous,
                    format!(
                        "`{program} {option}` runs code given on the command line, which cannot be checked"
                    ),
                );
            }
            let script = args
                .iter()
                .find(|w| !w.value.starts_with('-') || w.process_substitution);
            if script.is_some_and(|w| w.process_substitution) {
                return Judged::new(
                    p,
                    Dangerous,
                    format!(
                        "`{program}` runs the output of another command as a program, which cannot be checked"
                    ),
                );
            }
            let mut judged = Judged::new(p, Mutating, format!("`{program}` runs a program"));
            if script.is_none_or(|w| is_stdin_path(&w.value)) {
                judged.stage.runs_stdin = true;
            }
            return judged;
        }
        let judged = Judged::new(p, Mutating, mutating_reason(program));
        // Build tools run the recipes of the file they are given: from their input, that is
        // code like `… | sh`.
        match program {
            "make" | "gmake" => self.program_from_file(judged, args, &["--file", "--makefile"]),
            "just" => self.program_from_file(judged, args, &["--justfile"]),
            "ninja" => self.program_from_file(judged, args, &[]),
            _ => judged,
        }
    }

    /// `judged` for a program given the file of its program with `-f FILE` (or one of `long`):
    /// dangerous when that is another command's output (`-f <(…)`), and reading its program
    /// from its input when it is `-` or `/dev/stdin` (so `… | make -f -` and `make -f
    /// /dev/stdin <<< …` are judged like `… | sh`).
    fn program_from_file(&self, mut judged: Judged, args: &[Word], long: &[&str]) -> Judged {
        let program = judged.program.clone().unwrap_or_default();
        let mut i = 0;
        while i < args.len() {
            let v = args[i].value.as_str();
            i += 1;
            if !args[i - 1].literal {
                continue;
            }
            if v == "--" {
                break;
            }
            let attached = v
                .strip_prefix("-f")
                .filter(|rest| !rest.is_empty())
                .or_else(|| {
                    long.iter()
                        .find_map(|l| v.strip_prefix(*l).and_then(|r| r.strip_prefix('=')))
                });
            let (file, substituted) = match attached {
                Some(rest) => (rest.to_string(), false),
                None if v == "-f" || long.contains(&v) => match args.get(i) {
                    Some(next) => (next.value.clone(), next.process_substitution),
                    None => continue,
                },
                None => continue,
            };
            if substituted {
                return Judged::new(
                    Some(&program),
                    CommandClass::Dangerous,
                    format!(
                        "`{program} -f` runs the output of another command as a program, which cannot be checked"
                    ),
                );
            }
            if file == "-" || is_stdin_path(&file) {
                judged.class = judged.class.max(CommandClass::Mutating);
                judged.reason = format!("`{program}` runs a program from its input");
                judged.stage.runs_stdin = true;
            }
        }
        judged
    }

    fn judge_shell(&self, program: &str, args: &[Word], nested: &mut Vec<CommandPart>) -> Judged {
        use CommandClass::{Dangerous, Mutating, ReadOnly};
        let p = Some(program);
        let mut i = 0;
        let mut script_at = None;
        let mut reads_stdin = false;
        while i < args.len() {
            let v = args[i].value.as_str();
            if v == "--" {
                i += 1;
                break;
            }
            if v == "-o"
                || v == "+o"
                || v == "-O"
                || v == "+O"
                || v == "--rcfile"
                || v == "--init-file"
            {
                i += 2;
                continue;
            }
            if v.starts_with('-') && v.len() > 1 && !v.starts_with("--") {
                if v.contains('c') {
                    script_at = Some(i + 1);
                    break;
                }
                // `-s`: the script comes from stdin, the words after it are its arguments.
                if v.contains('s') {
                    reads_stdin = true;
                    break;
                }
                i += 1;
                continue;
            }
            if v.starts_with("--") {
                i += 1;
                continue;
            }
            break;
        }
        if let Some(at) = script_at {
            return match args.get(at) {
                Some(script) if script.literal => {
                    classify_script(&script.value, self.depth + 1, self.site, nested);
                    Judged::new(
                        p,
                        ReadOnly,
                        format!("`{program} -c` of a literal script (its parts are judged)"),
                    )
                }
                Some(script) if script.downloads => Judged::new(
                    p,
                    Dangerous,
                    format!("`{program} -c` runs a script downloaded from the network"),
                ),
                Some(_) => Judged::new(
                    p,
                    Dangerous,
                    format!(
                        "`{program} -c` runs a script that is only known when it runs, so it cannot be checked"
                    ),
                ),
                None => Judged::new(p, Mutating, format!("`{program} -c` without a script")),
            };
        }
        let script = if reads_stdin { None } else { args.get(i) };
        match script {
            Some(script) if script.downloads => Judged::new(
                p,
                Dangerous,
                format!("`{program}` runs a script downloaded from the network"),
            ),
            Some(script) if script.process_substitution => Judged::new(
                p,
                Dangerous,
                format!(
                    "`{program}` runs the output of another command as a script, which cannot be checked"
                ),
            ),
            Some(script) if script.value != "-" && !is_stdin_path(&script.value) => Judged::new(
                p,
                Mutating,
                format!("`{program}` runs the script `{}`", script.value),
            ),
            _ => {
                let mut judged = Judged::new(
                    p,
                    Mutating,
                    format!("`{program}` runs commands from its input"),
                );
                judged.stage.runs_stdin = true;
                judged
            }
        }
    }

    /// `Some` when `program` is a known read-only program; the verdict may still be
    /// mutating because of an argument.
    fn judge_read_only(
        &self,
        program: &str,
        args: &[Word],
        nested: &mut Vec<CommandPart>,
    ) -> Option<Judged> {
        use CommandClass::{Dangerous, Mutating};
        let values: Vec<&str> = args.iter().map(|w| w.value.as_str()).collect();
        let p = Some(program);
        let ro = |reason: &str| Some(Judged::read_only(p, reason));
        let writes = |reason: String| Some(Judged::new(p, Mutating, reason));
        let has = |flags: &[&str]| {
            values.iter().any(|v| {
                flags
                    .iter()
                    .any(|f| v == f || (f.starts_with("--") && v.starts_with(&format!("{f}="))))
            })
        };
        let positionals = || values.iter().filter(|v| !v.starts_with('-')).count();
        match program {
            "ls" | "dir" | "vdir" | "cat" | "head" | "tail" | "wc" | "pwd" | "stat" | "which"
            | "whoami" | "uname" | "du" | "df" | "diff" | "cmp" | "basename" | "dirname"
            | "realpath" | "readlink" | "true" | "false" | "test" | "[" | "nl" | "od"
            | "hexdump" | "md5sum" | "sha1sum" | "sha224sum" | "sha256sum" | "sha384sum"
            | "sha512sum" | "b2sum" | "cksum" | "shasum" | "cut" | "tr" | "column" | "paste"
            | "join" | "comm" | "fold" | "fmt" | "expand" | "unexpand" | "rev" | "tac" | "seq"
            | "sleep" | "type" | "id" | "groups" | "nproc" | "arch" | "printenv" | "less"
            | "more" | "man" | "jq" | "ps" | "free" | "uptime" | "lsof" | "whereis" | "locate"
            | "cd" | "pushd" | "popd" | "dirs" | "read" | "wait" | "jobs" | ":" | "tty"
            | "locale" | "getconf" | "lscpu" | "lsblk" | "strings" | "zcat" | "bzcat" | "xzcat"
            | "zgrep" | "egrep" | "fgrep" | "grep" | "ag" | "ack" | "echo" | "printf" | "tree"
            | "file" | "date" | "hostname" | "sort" | "uniq" | "tee" | "xxd" | "yes" | "unset"
            | "shift" | "set" | "shopt" | "rg" | "fd" | "fdfind" | "bat" | "batcat" | "exa"
            | "eza" | "pgrep" | "w" | "who" | "last" => {}
            "find" => return Some(self.judge_find(args, nested)),
            "sed" => return Some(judge_sed(&values)),
            "awk" | "gawk" | "mawk" | "nawk" => return Some(judge_awk(&values)),
            "git" => return Some(judge_git(&values)),
            _ => return None,
        }
        match program {
            "sort"
                if has(&["-o", "--output", "--compress-program"])
                    || values.iter().any(|v| v.starts_with("-o") && v.len() > 2) =>
            {
                writes("`sort -o` writes its output to a file".to_string())
            }
            "uniq" if positionals() >= 2 => {
                writes("`uniq` with two file names writes the second".to_string())
            }
            "xxd" if positionals() >= 2 => {
                writes("`xxd` with two file names writes the second".to_string())
            }
            "tree" if has(&["-o"]) => writes("`tree -o` writes its output to a file".to_string()),
            "date" if has(&["-s", "--set"]) => {
                writes("`date -s` sets the system clock".to_string())
            }
            "hostname" if positionals() >= 1 || has(&["-F", "--file", "-b", "--boot"]) => {
                writes("`hostname NAME` renames the machine".to_string())
            }
            "file" if has(&["-C", "--compile"]) => {
                writes("`file -C` writes a magic file".to_string())
            }
            "rg" if has(&["--pre"]) => {
                writes("`rg --pre` runs a program on every file".to_string())
            }
            "fd" | "fdfind" if has(&["-x", "--exec", "-X", "--exec-batch"]) => {
                // The command is every word after the option (up to a `;`), run per match.
                let at = values
                    .iter()
                    .position(|v| {
                        matches!(*v, "-x" | "--exec" | "-X" | "--exec-batch")
                            || v.starts_with("--exec=")
                            || v.starts_with("--exec-batch=")
                    })
                    .unwrap_or(values.len());
                let end = values[at..]
                    .iter()
                    .position(|v| *v == ";")
                    .map_or(values.len(), |e| at + e);
                let inner = args.get(at + 1..end).unwrap_or(&[]);
                let mut verdicts = vec![(
                    Mutating,
                    format!("`{program} --exec` runs a command on every match"),
                )];
                if !inner.is_empty() {
                    let judged = self.judge(inner, nested);
                    nested.push(part(
                        &join_words(inner),
                        judged.program.as_deref(),
                        judged.class,
                        judged.reason.clone(),
                    ));
                    verdicts.push((
                        judged.class,
                        format!(
                            "`{program} --exec` runs `{}`: {}",
                            inner[0].value, judged.reason
                        ),
                    ));
                }
                let (class, reason) = worst(verdicts);
                let mut judged = Judged::new(p, class, reason);
                judged.side_effect =
                    Some(format!("`{program} --exec` runs a command on every match"));
                Some(judged)
            }
            "man"
                if has(&["-P", "--pager", "-H", "--html"])
                    || values
                        .iter()
                        .any(|v| v.starts_with("-P") || v.starts_with("-H")) =>
            {
                Some(Judged::new(
                    p,
                    Dangerous,
                    "`man -P`/`-H` runs the given text as a shell command, which cannot be checked",
                ))
            }
            "bat" | "batcat" if has(&["--pager"]) => Some(Judged::new(
                p,
                Dangerous,
                format!(
                    "`{program} --pager` runs the given text as a command, which cannot be checked"
                ),
            )),
            "tee" => {
                let targets: Vec<&str> = values
                    .iter()
                    .filter(|v| !v.starts_with('-'))
                    .copied()
                    .filter(|v| !is_harmless_sink(v))
                    .collect();
                if targets.is_empty() {
                    ro("`tee` without files only copies its input")
                } else if let Some(reason) = targets.iter().find_map(|t| dangerous_write_target(t))
                {
                    Some(Judged::new(p, Dangerous, reason))
                } else {
                    writes(format!("`tee` writes `{}`", targets.join("`, `")))
                }
            }
            _ => {
                if args.iter().any(|w| w.downloads) {
                    return Some(Judged::new(
                        p,
                        Mutating,
                        format!("`{program}` takes an argument fetched from the network"),
                    ));
                }
                ro(&format!("`{program}` only reads"))
            }
        }
    }

    fn judge_find(&self, args: &[Word], nested: &mut Vec<CommandPart>) -> Judged {
        use CommandClass::{Dangerous, Mutating, ReadOnly};
        let p = Some("find");
        let mut verdicts = vec![(ReadOnly, "`find` only lists files".to_string())];
        let mut effects: Vec<String> = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let v = args[i].value.as_str();
            match v {
                "-delete" => verdicts.push((
                    Dangerous,
                    "`find -delete` deletes every file it matches".to_string(),
                )),
                "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                    let target = args.get(i + 1).map(|w| w.value.as_str()).unwrap_or("?");
                    verdicts.push((Mutating, format!("`find {v}` writes the file `{target}`")));
                }
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let start = i + 1;
                    let mut end = start;
                    while end < args.len() && !matches!(args[end].value.as_str(), ";" | "+") {
                        end += 1;
                    }
                    let inner = &args[start..end];
                    effects.push(format!(
                        "`find {v}` runs `{}`",
                        inner.first().map_or("?", |w| w.value.as_str())
                    ));
                    if inner.is_empty() {
                        verdicts.push((Mutating, format!("`find {v}` without a command")));
                    } else {
                        let judged = self.judge(inner, nested);
                        nested.push(part(
                            &join_words(inner),
                            judged.program.as_deref(),
                            judged.class,
                            judged.reason.clone(),
                        ));
                        verdicts.push((
                            judged.class,
                            format!("`find {v}` runs `{}`: {}", inner[0].value, judged.reason),
                        ));
                    }
                    i = end;
                }
                _ => {}
            }
            i += 1;
        }
        let (class, reason) = worst(verdicts);
        let mut judged = Judged::new(p, class, reason);
        if class >= Mutating {
            effects.insert(0, judged.reason.clone());
        }
        if !effects.is_empty() {
            judged.side_effect = Some(effects.join("; "));
        }
        judged
    }
}

/// The verdict on one simple command.
struct Judged {
    program: Option<String>,
    class: CommandClass,
    reason: String,
    /// See [`CommandPart::side_effect`].
    side_effect: Option<String>,
    stage: Stage,
}

impl Judged {
    fn new(program: Option<&str>, class: CommandClass, reason: impl Into<String>) -> Self {
        Judged {
            program: program.map(str::to_string),
            class,
            reason: reason.into(),
            side_effect: None,
            stage: Stage {
                program: program.map(str::to_string),
                ..Stage::default()
            },
        }
    }

    fn read_only(program: Option<&str>, reason: &str) -> Self {
        Judged::new(program, CommandClass::ReadOnly, reason)
    }

    /// The verdict with its reason as the side effect (see [`CommandPart::side_effect`]).
    fn effect(mut self) -> Self {
        self.side_effect = Some(self.reason.clone());
        self
    }
}

/// The first of the most severe verdicts.
fn worst(verdicts: Vec<(CommandClass, String)>) -> (CommandClass, String) {
    let max = verdicts
        .iter()
        .map(|(c, _)| *c)
        .max()
        .unwrap_or(CommandClass::ReadOnly);
    verdicts
        .into_iter()
        .find(|(c, _)| *c == max)
        .unwrap_or((CommandClass::ReadOnly, String::new()))
}

/// What `echo`/`printf` with literal arguments write, when that is exactly the text (no
/// backslash escapes or `%` conversions that the reader of `echo … | sh` would have to
/// interpret: `printf 'r\155 -r x' | sh` runs `rm`).
fn printed_text(program: &str, values: &[&str]) -> Option<String> {
    let text = if program == "printf" {
        let format = values.first()?.replace("\\n", "\n");
        if format.contains('%') || format.starts_with('-') {
            return None;
        }
        format
    } else {
        let flags: Vec<&str> = values
            .iter()
            .take_while(|v| {
                v.len() > 1 && v.starts_with('-') && v[1..].chars().all(|c| "neE".contains(c))
            })
            .copied()
            .collect();
        if flags.iter().any(|f| f.contains('e')) {
            return None;
        }
        values[flags.len()..].join(" ")
    };
    (!text.contains('\\')).then_some(text)
}

/// Unquotes one shell word the grammar has delimited (`'a b'` → `a b`, `r\m` → `rm`).
fn unquote(raw: &str) -> String {
    shell_words::split(raw)
        .ok()
        .map(|w| w.join(" "))
        .unwrap_or_else(|| raw.to_string())
}

/// Escapes an expanded value so that [`unquote`] gives it back (`quoted`: inside `"…"`).
fn escape_for_shell(value: &str, quoted: bool) -> String {
    let mut out = String::new();
    for c in value.chars() {
        let special = if quoted {
            matches!(c, '\\' | '"' | '$' | '`')
        } else {
            !(c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
        };
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Calls `f` with each character of a shell word and whether it is outside quotes and not
/// escaped; stops when `f` returns `true`.
fn any_unquoted(raw: &str, mut f: impl FnMut(usize, char, bool) -> bool) -> bool {
    let mut single = false;
    let mut double = false;
    let mut escaped = false;
    for (i, c) in raw.char_indices() {
        if escaped {
            escaped = false;
            if f(i, c, false) {
                return true;
            }
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ => {
                if f(i, c, !single && !double) {
                    return true;
                }
            }
        }
    }
    false
}

/// Whether a word has an unquoted `*`, `?` or `[` (a pattern the shell matches against file
/// names).
fn has_unquoted_glob(raw: &str) -> bool {
    any_unquoted(raw, |_, c, unquoted| {
        unquoted && matches!(c, '*' | '?' | '[')
    })
}

/// Words beyond which a brace expansion is not followed.
const MAX_BRACE_WORDS: usize = 256;

/// Brace expansion as bash does it before anything else (`{rm,-r,x}` → `rm`, `-r`, `x`;
/// `a{b,c}d` → `abd`, `acd`), on the source text of a literal word; `None` when the word has
/// no unquoted `{…,…}`. Stops after a little more than [`MAX_BRACE_WORDS`] words.
fn expand_braces(raw: &str) -> Option<Vec<String>> {
    let (open, commas, close) = brace_group(raw)?;
    let prefix = &raw[..open];
    let suffix = &raw[close + 1..];
    let mut out = Vec::new();
    let mut start = open + 1;
    for end in commas.iter().copied().chain(std::iter::once(close)) {
        let joined = format!("{prefix}{}{suffix}", &raw[start..end]);
        start = end + 1;
        match expand_braces(&joined) {
            Some(more) => out.extend(more),
            None => out.push(joined),
        }
        if out.len() > MAX_BRACE_WORDS {
            out.truncate(MAX_BRACE_WORDS + 1);
            break;
        }
    }
    Some(out)
}

/// A command line with its first unquoted `{…,…}` group expanded in place, as the words bash
/// would make of it.
fn expand_line_braces(script: &str) -> Option<String> {
    let (open, _, close) = brace_group(script)?;
    let boundary =
        |c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>');
    let start = script[..open]
        .char_indices()
        .rev()
        .find(|(_, c)| boundary(*c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let end = script[close..]
        .find(boundary)
        .map_or(script.len(), |i| close + i);
    let words = expand_braces(&script[start..end])?;
    if words.len() > MAX_BRACE_WORDS {
        return None;
    }
    Some(format!(
        "{}{}{}",
        &script[..start],
        words.join(" "),
        &script[end..]
    ))
}

/// The first unquoted `{` with its top-level commas and matching `}`, if it has a comma.
fn brace_group(raw: &str) -> Option<(usize, Vec<usize>, usize)> {
    let bytes = raw.as_bytes();
    let mut from = 0;
    while from < raw.len() {
        let mut open = None;
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut found = None;
        any_unquoted(&raw[from..], |i, c, unquoted| {
            let i = i + from;
            if !unquoted {
                return false;
            }
            match c {
                '{' if !(i > 0 && bytes[i - 1] == b'$') => {
                    if open.is_none() {
                        open = Some(i);
                    }
                    depth += 1;
                }
                ',' if depth == 1 => commas.push(i),
                '}' if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        found = open.map(|o| (o, std::mem::take(&mut commas), i));
                        return true;
                    }
                }
                _ => {}
            }
            false
        });
        match found {
            Some((o, c, close)) if !c.is_empty() => return Some((o, c, close)),
            // `{a}` is not an expansion, but a group inside it may be.
            Some((o, _, _)) => from = o + 1,
            None => return None,
        }
    }
    None
}

fn is_literal(node: Node<'_>) -> bool {
    match node.kind() {
        // A `{1..3}` sequence only adds digits or letters, never a separator or a quote.
        "word" | "raw_string" | "number" | "string_content" | "brace_expression" => true,
        "string" | "concatenation" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor).all(is_literal)
        }
        _ => false,
    }
}

fn join_words(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.value.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `/usr/bin/rm` → `rm`.
fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_system_bin(path: &str) -> bool {
    [
        "/bin/",
        "/usr/bin/",
        "/usr/local/bin/",
        "/sbin/",
        "/usr/sbin/",
        "/opt/homebrew/bin/",
    ]
    .iter()
    .any(|dir| path.starts_with(dir) && !path[dir.len()..].contains('/'))
}

/// Names of a process's own standard input.
fn is_stdin_path(path: &str) -> bool {
    matches!(path, "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

fn is_shell(program: &str) -> bool {
    matches!(
        program,
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish" | "hush" | "yash"
    )
}

fn is_interpreter(program: &str) -> bool {
    matches!(
        program,
        "python"
            | "python2"
            | "python3"
            | "pypy"
            | "pypy3"
            | "node"
            | "nodejs"
            | "ruby"
            | "perl"
            | "php"
            | "lua"
            | "luajit"
            | "deno"
            | "bun"
            | "Rscript"
            | "julia"
            | "tclsh"
            | "pwsh"
            | "powershell"
            | "osascript"
    ) || program.starts_with("python3.")
        || program.starts_with("lua5.")
}

/// The option with which an interpreter runs code given on its command line (`python -c`,
/// `perl -e`, `node --eval`, …), if one is given before the script operand.
///
/// Options are read as each interpreter reads them: single-letter options can be grouped
/// (`perl -lne`, `python3 -Ic`); some letters take the rest of the group as their value
/// (`perl -i.bak`, `ruby -rjson`), or the next word when nothing is attached (`python -W
/// ignore`, `php -d x=1`); some take only digits (`perl -l0`); `python -m` runs a module.
fn inline_code_option(program: &str, values: &[&str]) -> Option<String> {
    struct Letters<'a> {
        /// Run code given as the value.
        code: &'a str,
        /// Take the rest of the group as their value.
        rest: &'a str,
        /// Of `rest`, those that take the next word when nothing is attached.
        next_word: &'a str,
        /// Take the digits that follow.
        digits: &'a str,
        /// Long options that run code.
        long: &'a [&'a str],
        /// Runs a named module instead of a script (`python -m`).
        module: Option<char>,
    }
    let letters = |code, rest, next_word, digits, long| Letters {
        code,
        rest,
        next_word,
        digits,
        long,
        module: None,
    };
    let l = match program {
        p if p.starts_with("python") || p.starts_with("pypy") => Letters {
            module: Some('m'),
            ..letters("c", "WXQ", "WXQ", "", &[])
        },
        "perl" => letters("eE", "IMmxFCidD", "IMm", "l0", &[]),
        "ruby" => letters("e", "rICEFixWK", "rICE", "0T", &[]),
        "node" | "nodejs" | "bun" => letters("ep", "r", "r", "", &["eval", "print"]),
        "php" => letters("rRBE", "cdzfFtS", "cdzfFtS", "", &[]),
        p if p.starts_with("lua") => letters("e", "l", "l", "", &[]),
        "osascript" => letters("e", "ls", "ls", "", &[]),
        "Rscript" => letters("e", "", "", "", &[]),
        "julia" => letters("eE", "pJCLOt", "pJCLt", "", &["eval", "print"]),
        "deno" => {
            let sub = values.iter().find(|v| !v.starts_with('-'))?;
            return (*sub == "eval").then(|| "eval".to_string());
        }
        "pwsh" | "powershell" => {
            return values
                .iter()
                .take_while(|v| v.starts_with('-') || v.starts_with('/'))
                .find(|v| {
                    let lower = v.trim_start_matches(['-', '/']).to_ascii_lowercase();
                    matches!(
                        lower.as_str(),
                        "c" | "command" | "e" | "ec" | "enc" | "encodedcommand"
                    )
                })
                .map(|v| v.to_string());
        }
        _ => return None,
    };
    let mut i = 0;
    while i < values.len() {
        let v = values[i];
        i += 1;
        if v == "--" || v == "-" {
            return None;
        }
        if let Some(name) = v.strip_prefix("--") {
            let name = name.split('=').next().unwrap_or(name);
            if l.long.contains(&name) {
                return Some(format!("--{name}"));
            }
            continue;
        }
        // The first operand is the script; what follows is its own arguments.
        let cluster = v.strip_prefix('-')?;
        let chars: Vec<char> = cluster.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let letter = chars[k];
            k += 1;
            if l.code.contains(letter) {
                return Some(format!("-{letter}"));
            }
            if l.module == Some(letter) {
                return None;
            }
            if l.digits.contains(letter) {
                while k < chars.len() && chars[k].is_ascii_digit() {
                    k += 1;
                }
            } else if l.rest.contains(letter) {
                if k == chars.len() && l.next_word.contains(letter) {
                    i += 1;
                }
                break;
            }
        }
    }
    None
}

fn is_downloader(program: &str) -> bool {
    matches!(
        program,
        "curl" | "wget" | "fetch" | "aria2c" | "http" | "https" | "xh"
    )
}

/// Variables that change which programs or libraries later commands run.
fn risky_variable(name: &str) -> Option<String> {
    matches!(
        name,
        "PATH"
            | "LD_PRELOAD"
            | "LD_LIBRARY_PATH"
            | "DYLD_INSERT_LIBRARIES"
            | "DYLD_LIBRARY_PATH"
            | "BASH_ENV"
            | "ENV"
            | "IFS"
            | "PROMPT_COMMAND"
            | "GIT_SSH_COMMAND"
            | "GIT_EXTERNAL_DIFF"
            | "PAGER"
            | "GIT_PAGER"
            | "EDITOR"
            | "SHELLOPTS"
            | "PYTHONSTARTUP"
    )
    .then(|| format!("setting `{name}` changes which programs later commands run"))
}

fn is_harmless_sink(target: &str) -> bool {
    matches!(
        target,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
    ) || target
        .strip_prefix("/dev/fd/")
        .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
}

/// A reason when writing `target` would damage the system rather than a project.
fn dangerous_write_target(target: &str) -> Option<String> {
    const DISKS: [&str; 9] = [
        "/dev/sd",
        "/dev/hd",
        "/dev/vd",
        "/dev/xvd",
        "/dev/nvme",
        "/dev/mmcblk",
        "/dev/disk",
        "/dev/loop",
        "/dev/md",
    ];
    if DISKS.iter().any(|d| target.starts_with(d))
        || matches!(target, "/dev/mem" | "/dev/kmem" | "/dev/port")
    {
        return Some(format!(
            "writes directly to the device `{target}`, destroying its data"
        ));
    }
    const SYSTEM: [&str; 12] = [
        "/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/sys",
        "/proc", "/var/lib",
    ];
    SYSTEM
        .iter()
        .find(|dir| target == **dir || target.starts_with(&format!("{dir}/")))
        .map(|dir| format!("writes under `{dir}`, which belongs to the system"))
}

fn mutating_reason(program: &str) -> String {
    match program {
        "rm" | "unlink" | "rmdir" => format!("`{program}` deletes files"),
        "mv" => "`mv` moves or renames files".to_string(),
        "cp" => "`cp` copies files".to_string(),
        "touch" | "mkdir" | "ln" | "install" | "truncate" => {
            format!("`{program}` creates or changes files")
        }
        "chmod" | "chown" | "chgrp" => format!("`{program}` changes file permissions or ownership"),
        "curl" | "wget" => format!("`{program}` uses the network"),
        "ssh" | "scp" | "sftp" | "rsync" => {
            format!("`{program}` acts on another machine or copies files")
        }
        _ => format!("`{program}` is not a known read-only command"),
    }
}

/// Option words of `sudo`-like wrappers that take a value.
fn skip_options<'w>(args: &'w [Word], with_value: &[&str]) -> &'w [Word] {
    let mut i = 0;
    while i < args.len() {
        let v = args[i].value.as_str();
        if v == "--" {
            return &args[i + 1..];
        }
        if !v.starts_with('-') {
            break;
        }
        i += if with_value.contains(&v) { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}

/// The command a wrapper (`timeout 5 cmd`, `nice -n 5 cmd`, …) runs.
fn wrapped_command<'w>(program: &str, args: &'w [Word]) -> &'w [Word] {
    let with_value: &[&str] = match program {
        "nice" => &["-n", "--adjustment"],
        "ionice" => &["-c", "-n", "-p", "--class", "--classdata"],
        "stdbuf" => &["-i", "-o", "-e"],
        "timeout" => &["-s", "--signal", "-k", "--kill-after"],
        "watch" => &["-n", "--interval"],
        "exec" => &["-a"],
        "taskset" | "chrt" => &["-p"],
        _ => &[],
    };
    let rest = skip_options(args, with_value);
    match program {
        // `timeout DURATION cmd`, `taskset MASK cmd`, `chrt PRIO cmd`
        "timeout" | "taskset" | "chrt" => rest.get(1..).unwrap_or(&[]),
        _ => rest,
    }
}

/// The command a program runs for you (`strace -f cmd`, `uv run cmd`, `bundle exec cmd`), or
/// nothing when it is not used that way.
fn runner_command<'w>(program: &str, args: &'w [Word]) -> &'w [Word] {
    match program {
        "strace" | "ltrace" => skip_options(
            args,
            &[
                "-o", "-e", "-p", "-s", "-u", "-E", "-a", "-P", "-I", "-b", "-X", "-O", "-S", "-n",
                "-l",
            ],
        ),
        "fakeroot" => skip_options(args, &["-l", "-s", "-i", "-b"]),
        "xvfb-run" => skip_options(args, &["-n", "-s", "-f", "-e", "-p", "-w"]),
        "unbuffer" | "dbus-run-session" => skip_options(args, &[]),
        _ => {
            let verb = if matches!(program, "bundle" | "bundler") {
                "exec"
            } else {
                "run"
            };
            match args.first() {
                Some(first) if first.value == verb => skip_options(
                    &args[1..],
                    &[
                        "-p",
                        "--python",
                        "--with",
                        "--directory",
                        "--project",
                        "--env-file",
                        "--extra",
                        "--group",
                        "--package",
                        "--index",
                        "--gemfile",
                    ],
                ),
                _ => &[],
            }
        }
    }
}

fn xargs_command(args: &[Word]) -> &[Word] {
    const WITH_VALUE: [&str; 10] = [
        "-n",
        "-I",
        "-P",
        "-L",
        "-d",
        "-E",
        "-s",
        "-a",
        "--max-args",
        "--delimiter",
    ];
    let mut i = 0;
    while i < args.len() {
        let v = args[i].value.as_str();
        if !v.starts_with('-') {
            break;
        }
        i += if WITH_VALUE.contains(&v) { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}

/// `X --version`, `X --help`, `go version`, … for well-known tools.
fn version_or_help(program: &str, values: &[&str]) -> Option<Judged> {
    const TOOLS: &[&str] = &[
        "curl",
        "wget",
        "ssh",
        "rsync",
        "jq",
        "rg",
        "cargo",
        "rustc",
        "rustup",
        "rustfmt",
        "node",
        "npm",
        "npx",
        "pnpm",
        "yarn",
        "python",
        "python3",
        "pip",
        "pip3",
        "go",
        "java",
        "javac",
        "gcc",
        "g++",
        "clang",
        "make",
        "cmake",
        "docker",
        "git",
        "deno",
        "bun",
        "ruby",
        "perl",
        "php",
        "tsc",
        "kubectl",
        "terraform",
        "uv",
        "poetry",
        "bash",
        "cc",
        "clippy-driver",
    ];
    if !TOOLS.contains(&program) || values.len() != 1 {
        return None;
    }
    let v = values[0];
    let versiony = matches!(v, "--version" | "-V" | "version")
        || (v == "-v"
            && matches!(
                program,
                "node"
                    | "npm"
                    | "pnpm"
                    | "yarn"
                    | "bun"
                    | "deno"
                    | "gcc"
                    | "g++"
                    | "clang"
                    | "make"
            ));
    let helpy = matches!(v, "--help" | "-h" | "help");
    if versiony {
        Some(Judged::read_only(Some(program), "prints the version"))
    } else if helpy {
        Some(Judged::read_only(Some(program), "prints help"))
    } else {
        None
    }
}

/// Rules that make a command dangerous (or, for some tools, read-only subcommands).
fn judge_dangerous(program: &str, values: &[&str]) -> Option<Judged> {
    use CommandClass::{Dangerous, Mutating};
    let p = Some(program);
    let danger = |reason: String| Some(Judged::new(p, Dangerous, reason));
    let opts_until_dashdash: Vec<&str> =
        values.iter().take_while(|v| **v != "--").copied().collect();
    let short_flag = |c: char| {
        opts_until_dashdash
            .iter()
            .any(|v| v.starts_with('-') && !v.starts_with("--") && v[1..].contains(c))
    };
    let long_flag = |f: &str| {
        opts_until_dashdash
            .iter()
            .any(|v| *v == f || v.starts_with(&format!("{f}=")))
    };
    let positional: Vec<&str> = values
        .iter()
        .filter(|v| !v.starts_with('-'))
        .copied()
        .collect();
    match program {
        "rm" => {
            if short_flag('r') || short_flag('R') || long_flag("--recursive") {
                return danger("`rm -r` deletes recursively".to_string());
            }
            if long_flag("--no-preserve-root") {
                return danger("`rm --no-preserve-root` can delete the whole system".to_string());
            }
            if let Some(reason) = positional.iter().find_map(|t| dangerous_write_target(t)) {
                return danger(format!("`rm` {reason}"));
            }
            None
        }
        "shred" => danger("`shred` overwrites files so they cannot be recovered".to_string()),
        "dd" => danger("`dd` writes raw bytes to files or devices".to_string()),
        "wipefs" => danger("`wipefs` erases filesystem signatures".to_string()),
        "fdisk" | "sfdisk" | "cfdisk" | "gdisk" | "sgdisk" | "parted" => {
            danger(format!("`{program}` changes disk partitions"))
        }
        "mkswap" | "mke2fs" => danger(format!("`{program}` formats a device")),
        _ if program.starts_with("mkfs") => {
            danger(format!("`{program}` formats a filesystem, erasing it"))
        }
        "chmod" | "chown" | "chgrp" => {
            if short_flag('R') || long_flag("--recursive") {
                return danger(format!(
                    "`{program} -R` changes {} recursively",
                    if program == "chmod" {
                        "permissions"
                    } else {
                        "ownership"
                    }
                ));
            }
            positional
                .iter()
                .skip(1)
                .find_map(|t| dangerous_write_target(t))
                .map(|reason| Judged::new(p, Dangerous, format!("`{program}` {reason}")))
        }
        "mv" | "cp" | "ln" | "install" | "touch" | "mkdir" | "truncate" | "rsync" | "scp" => {
            if program == "mv" && positional.last() == Some(&"/dev/null") {
                return danger("`mv … /dev/null` destroys the file".to_string());
            }
            if program == "rsync"
                && opts_until_dashdash
                    .iter()
                    .any(|v| v.starts_with("--delete") || *v == "--remove-source-files")
            {
                return danger("`rsync --delete` deletes files at the destination".to_string());
            }
            let targets: Vec<&str> = if matches!(program, "touch" | "mkdir" | "truncate") {
                positional.clone()
            } else {
                positional.last().copied().into_iter().collect()
            };
            targets
                .iter()
                .find_map(|t| dangerous_write_target(t))
                .map(|reason| Judged::new(p, Dangerous, format!("`{program}` {reason}")))
        }
        "kill" => {
            let targets: Vec<&str> = values
                .iter()
                .skip_while(|v| v.starts_with('-') && **v != "-1" && **v != "--")
                .copied()
                .collect();
            if targets.contains(&"-1") {
                return danger("`kill -1` signals every process you may signal".to_string());
            }
            if targets.contains(&"1") {
                return danger("`kill 1` signals init, which stops the system".to_string());
            }
            None
        }
        "shutdown" | "reboot" | "halt" | "poweroff" => {
            danger(format!("`{program}` shuts the machine down or restarts it"))
        }
        "init" | "telinit" if positional.iter().any(|v| matches!(*v, "0" | "6")) => {
            danger(format!("`{program}` shuts the machine down or restarts it"))
        }
        "systemctl" => match positional.first().copied() {
            Some(
                "status" | "show" | "cat" | "is-active" | "is-enabled" | "is-failed" | "list-units"
                | "list-unit-files" | "list-timers",
            )
            | None => Some(Judged::read_only(p, "`systemctl` only shows status")),
            Some(verb @ ("poweroff" | "reboot" | "halt" | "suspend" | "hibernate" | "kexec")) => {
                danger(format!(
                    "`systemctl {verb}` shuts the machine down or restarts it"
                ))
            }
            Some(verb) => danger(format!("`systemctl {verb}` changes system services")),
        },
        "mount" | "umount" | "swapon" | "swapoff" | "modprobe" | "insmod" | "rmmod"
        | "iptables" | "ip6tables" | "nft" | "ufw" | "useradd" | "userdel" | "usermod"
        | "groupadd" | "groupdel" | "passwd" | "chpasswd" | "visudo" | "setenforce" | "chattr" => {
            if program == "mount" && values.is_empty() {
                return Some(Judged::read_only(
                    p,
                    "`mount` without arguments lists mounts",
                ));
            }
            danger(format!("`{program}` changes system configuration"))
        }
        "sysctl" if values.iter().any(|v| *v == "-w" || v.contains('=')) => {
            danger("`sysctl -w` changes kernel settings".to_string())
        }
        "sysctl" => Some(Judged::read_only(p, "`sysctl` only reads kernel settings")),
        "crontab" => {
            if short_flag('r') {
                danger("`crontab -r` deletes every cron job".to_string())
            } else if short_flag('l') {
                Some(Judged::read_only(p, "`crontab -l` lists cron jobs"))
            } else {
                Some(Judged::new(p, Mutating, "`crontab` changes scheduled jobs"))
            }
        }
        "curl" | "wget" | "http" | "xh" => {
            let sends = values.iter().any(|v| {
                matches!(
                    *v,
                    "-d" | "-F"
                        | "-T"
                        | "--form"
                        | "--upload-file"
                        | "--post-data"
                        | "--post-file"
                        | "--body-data"
                        | "--body-file"
                ) || v.starts_with("--data")
                    || v.starts_with("--json")
                    || v.starts_with("-d")
            }) || method_writes(values);
            if !sends {
                return None;
            }
            let urls: Vec<&str> = values
                .iter()
                .filter(|v| v.contains("://") || v.starts_with("localhost"))
                .copied()
                .collect();
            if !urls.is_empty() && urls.iter().all(|u| is_loopback_url(u)) {
                return Some(Judged::new(
                    p,
                    Mutating,
                    format!("`{program}` sends data to a local server"),
                ));
            }
            danger(format!("`{program}` sends data to a server"))
        }
        "npm" | "pnpm" | "yarn"
            if positional
                .first()
                .is_some_and(|v| matches!(*v, "publish" | "unpublish" | "deprecate")) =>
        {
            danger(format!(
                "`{program} {}` publishes to the package registry",
                positional[0]
            ))
        }
        "npm" | "pnpm" | "yarn"
            if positional.first().is_some_and(|v| {
                matches!(
                    *v,
                    "ls" | "list" | "view" | "info" | "outdated" | "why" | "explain"
                )
            }) =>
        {
            Some(Judged::read_only(p, "only shows package information"))
        }
        "pip" | "pip3"
            if positional
                .first()
                .is_some_and(|v| matches!(*v, "list" | "show" | "freeze" | "check")) =>
        {
            Some(Judged::read_only(p, "only shows package information"))
        }
        "cargo" => match positional.first().copied() {
            Some("publish" | "yank" | "owner") => danger(format!(
                "`cargo {}` changes a package on the registry",
                positional[0]
            )),
            _ if values.is_empty()
                || values
                    .iter()
                    .all(|v| matches!(*v, "--list" | "-V" | "--version")) =>
            {
                Some(Judged::read_only(p, "`cargo` only prints information"))
            }
            _ => None,
        },
        "twine" | "gem"
            if positional
                .first()
                .is_some_and(|v| matches!(*v, "upload" | "push" | "yank")) =>
        {
            danger(format!(
                "`{program} {}` publishes to the package registry",
                positional[0]
            ))
        }
        "docker" | "podman" => match positional.first().copied() {
            Some("push") => danger(format!("`{program} push` publishes an image")),
            Some("system" | "volume" | "image" | "container" | "network" | "builder")
                if positional
                    .get(1)
                    .is_some_and(|v| matches!(*v, "prune" | "rm")) =>
            {
                danger(format!(
                    "`{program} {} {}` deletes data",
                    positional[0], positional[1]
                ))
            }
            Some("ps" | "images" | "inspect" | "logs" | "version" | "info") => {
                Some(Judged::read_only(p, "only shows information"))
            }
            _ => None,
        },
        "kubectl" if positional.first().is_some_and(|v| *v == "delete") => {
            danger("`kubectl delete` deletes cluster resources".to_string())
        }
        "kubectl"
            if positional.first().is_some_and(|v| {
                matches!(*v, "get" | "describe" | "logs" | "version" | "explain")
            }) =>
        {
            Some(Judged::read_only(p, "only shows cluster information"))
        }
        "terraform" | "tofu" if positional.first().is_some_and(|v| *v == "destroy") => {
            danger(format!("`{program} destroy` destroys infrastructure"))
        }
        "helm"
            if positional
                .first()
                .is_some_and(|v| matches!(*v, "uninstall" | "delete")) =>
        {
            danger("`helm uninstall` removes a release".to_string())
        }
        "gh" if positional
            .first()
            .is_some_and(|v| matches!(*v, "release" | "repo"))
            && positional
                .get(1)
                .is_some_and(|v| matches!(*v, "create" | "delete" | "upload")) =>
        {
            danger(format!(
                "`gh {} {}` publishes or deletes on GitHub",
                positional[0], positional[1]
            ))
        }
        _ => None,
    }
}

fn method_writes(values: &[&str]) -> bool {
    values.windows(2).any(|w| {
        matches!(w[0], "-X" | "--request" | "--method")
            && !matches!(
                w[1].to_ascii_uppercase().as_str(),
                "GET" | "HEAD" | "OPTIONS"
            )
    }) || values.iter().any(|v| {
        v.strip_prefix("-X")
            .or_else(|| v.strip_prefix("--request="))
            .or_else(|| v.strip_prefix("--method="))
            .is_some_and(|m| {
                !m.is_empty()
                    && !matches!(m.to_ascii_uppercase().as_str(), "GET" | "HEAD" | "OPTIONS")
            })
    })
}

fn is_loopback_url(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?']).next().unwrap_or("");
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split(']').next().map(|h| &h[1..]).unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    host == "localhost" || host.starts_with("127.") || host == "::1" || host == "0.0.0.0"
}

/// `sed` is read-only without `-i` and with a script of printing commands only.
fn judge_sed(values: &[&str]) -> Judged {
    use CommandClass::{Mutating, ReadOnly};
    let p = Some("sed");
    let mut scripts: Vec<&str> = Vec::new();
    let mut i = 0;
    let mut explicit_script = false;
    while i < values.len() {
        let v = values[i];
        if v == "-i"
            || v.starts_with("--in-place")
            || (v.starts_with('-')
                && !v.starts_with("--")
                && v[1..].contains('i')
                && !v.starts_with("-e"))
        {
            return Judged::new(p, Mutating, "`sed -i` edits files in place");
        }
        match v {
            "-e" | "--expression" => {
                if let Some(s) = values.get(i + 1) {
                    scripts.push(s);
                }
                explicit_script = true;
                i += 2;
                continue;
            }
            "-f" | "--file" => {
                return Judged::new(p, Mutating, "`sed -f` runs a script from a file");
            }
            _ => {}
        }
        if let Some(s) = v.strip_prefix("--expression=") {
            scripts.push(s);
            explicit_script = true;
        } else if !v.starts_with('-') && !explicit_script && scripts.is_empty() {
            scripts.push(v);
        }
        i += 1;
    }
    match scripts.iter().map(|s| sed_script_effect(s)).max() {
        None | Some(SedEffect::Prints) => {
            Judged::new(p, ReadOnly, "`sed` without `-i` only prints")
        }
        Some(SedEffect::Writes) => Judged::new(
            p,
            Mutating,
            "the `sed` script may write or read other files (`w`, `r`)",
        ),
        Some(SedEffect::Runs) => Judged::new(
            p,
            CommandClass::Dangerous,
            "the `sed` script runs shell commands (`e`), which cannot be checked",
        ),
    }
}

/// What a sed script can do beyond printing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum SedEffect {
    /// Only prints or edits the pattern space.
    Prints,
    /// Writes or reads other files (`w`, `W`, `r`, `R`, the `w` flag), or could not be
    /// parsed completely.
    Writes,
    /// Runs shell commands (the `e` command or the `e` flag of `s`).
    Runs,
}

/// A conservative reading of a sed script: only commands that print or edit the pattern space
/// are [`SedEffect::Prints`]; anything this reader does not know is [`SedEffect::Writes`].
fn sed_script_effect(script: &str) -> SedEffect {
    let mut effect = SedEffect::Prints;
    let mut rest = script;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ';');
        if rest.is_empty() {
            return effect;
        }
        // Addresses: numbers, `$`, `/re/`, `\cREc`, ranges, steps, negation.
        loop {
            let before = rest.len();
            rest = rest.trim_start_matches(|c: char| {
                c.is_ascii_digit() || matches!(c, '$' | ',' | '~' | '!' | '+' | ' ')
            });
            if let Some(after) = rest.strip_prefix('/') {
                match skip_delimited(after, '/') {
                    Some(r) => rest = r.trim_start_matches(['I', 'M']),
                    None => return effect.max(SedEffect::Writes),
                }
            } else if let Some(after) = rest.strip_prefix('\\') {
                let mut chars = after.chars();
                let Some(delim) = chars.next() else {
                    return effect.max(SedEffect::Writes);
                };
                match skip_delimited(chars.as_str(), delim) {
                    Some(r) => rest = r,
                    None => return effect.max(SedEffect::Writes),
                }
            }
            if rest.len() == before {
                break;
            }
        }
        let mut chars = rest.chars();
        let Some(command) = chars.next() else {
            return effect;
        };
        rest = chars.as_str();
        match command {
            'p' | 'P' | 'd' | 'D' | 'q' | 'Q' | 'n' | 'N' | '=' | 'l' | 'g' | 'G' | 'h' | 'H'
            | 'x' | 'z' | '{' | '}' | 'F' => {}
            'e' => return SedEffect::Runs,
            // The file name runs to the end of the line.
            'w' | 'W' | 'r' | 'R' => {
                effect = effect.max(SedEffect::Writes);
                rest = rest.find('\n').map_or("", |i| &rest[i..]);
            }
            // Labels and branches run to the end of the command.
            'b' | 't' | 'T' | ':' => {
                rest = rest.find([';', '\n']).map_or("", |i| &rest[i..]);
            }
            // Text commands: the rest of the line is text.
            'a' | 'i' | 'c' => {
                rest = rest.find('\n').map_or("", |i| &rest[i..]);
            }
            'y' | 's' => {
                let mut chars = rest.chars();
                let Some(delim) = chars.next() else {
                    return effect.max(SedEffect::Writes);
                };
                let Some(after_first) = skip_delimited(chars.as_str(), delim) else {
                    return effect.max(SedEffect::Writes);
                };
                let Some(after_second) = skip_delimited(after_first, delim) else {
                    return effect.max(SedEffect::Writes);
                };
                rest = after_second;
                if command == 's' {
                    // Flags, up to the end of the command; `w` takes the rest of the line.
                    while let Some(flag) = rest.chars().next() {
                        match flag {
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => rest = &rest[1..],
                            'e' => return SedEffect::Runs,
                            'w' => {
                                effect = effect.max(SedEffect::Writes);
                                rest = rest.find('\n').map_or("", |i| &rest[i..]);
                                break;
                            }
                            ';' | '\n' | '}' | ' ' | '\t' => break,
                            _ => return effect.max(SedEffect::Writes),
                        }
                    }
                } else {
                    let end = rest.find([';', '\n', '}']).unwrap_or(rest.len());
                    if !rest[..end].trim().is_empty() {
                        return effect.max(SedEffect::Writes);
                    }
                    rest = &rest[end..];
                }
            }
            _ => return effect.max(SedEffect::Writes),
        }
    }
}

/// Skips to just after the next unescaped `delim`.
fn skip_delimited(s: &str, delim: char) -> Option<&str> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == delim {
            return Some(&s[i + c.len_utf8()..]);
        }
    }
    None
}

/// `awk` is read-only when its program cannot write or run anything.
fn judge_awk(values: &[&str]) -> Judged {
    use CommandClass::{Mutating, ReadOnly};
    let p = Some("awk");
    let mut i = 0;
    let mut program: Option<&str> = None;
    while i < values.len() {
        let v = values[i];
        match v {
            "-f" | "--file" => {
                return Judged::new(p, Mutating, "`awk -f` runs a program from a file");
            }
            "-F" | "-v" | "--assign" | "--field-separator" => i += 2,
            _ if v.starts_with('-') && v.len() > 1 => i += 1,
            _ => {
                program = Some(v);
                break;
            }
        }
    }
    match program {
        Some(prog) if awk_runs_commands(prog) => Judged::new(
            p,
            CommandClass::Dangerous,
            "the `awk` program runs shell commands (`system`, `| getline`, `| \"cmd\"`), which cannot be checked",
        ),
        Some(prog) if !prog.contains('|') && !prog.contains('>') && !prog.contains("system") => {
            Judged::new(p, ReadOnly, "the `awk` program only reads and prints")
        }
        Some(_) => Judged::new(
            p,
            Mutating,
            "the `awk` program may write files or run commands (`>`, `|`, `system`)",
        ),
        None => Judged::new(p, Mutating, "`awk` without a program"),
    }
}

/// Whether an awk program runs shell commands: `system(…)`, `"cmd" | getline`, `print |
/// "cmd"`, `|&` (a regular expression's `a|b` is not a pipe).
fn awk_runs_commands(program: &str) -> bool {
    let calls_system = program.match_indices("system").any(|(i, _)| {
        let before = program[..i].chars().next_back();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && program[i + "system".len()..].trim_start().starts_with('(')
    });
    if calls_system || program.contains("|&") {
        return true;
    }
    program.match_indices('|').any(|(i, _)| {
        let after = program[i + 1..].trim_start();
        let before = program[..i].trim_end();
        after.starts_with("getline") || after.starts_with('"') || before.ends_with('"')
    })
}

/// `git`: read-only subcommands, destructive ones, and everything else.
fn judge_git(values: &[&str]) -> Judged {
    use CommandClass::{Dangerous, Mutating, ReadOnly};
    let p = Some("git");
    let mut i = 0;
    while i < values.len() {
        let v = values[i];
        match v {
            "-C" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
            "-c" | "--config-env" | "--exec-path" => {
                return Judged::new(
                    p,
                    Mutating,
                    "`git -c` sets configuration that can make git run other programs",
                )
                .effect();
            }
            _ if v.starts_with("--exec-path=") => {
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
    let flag = |f: &str| {
        args.iter()
            .take_while(|a| **a != "--")
            .any(|a| *a == f || a.starts_with(&format!("{f}=")))
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
            if flag("--output") {
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
                    || flag("--list")
                    || short('l')
                    || flag("--contains")
                    || flag("--merged")
                    || flag("--no-merged")
                    || flag("--points-at"))
            {
                mutates("`git branch` with these arguments changes branches".to_string())
            } else {
                ro("`git branch` only lists branches".to_string())
            }
        }
        "tag" => {
            if args.is_empty()
                || flag("--list")
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
            let reads = flag("--get")
                || flag("--get-all")
                || flag("--get-regexp")
                || flag("--list")
                || short('l')
                || flag("--show-origin") && positional.len() <= 1
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
                || positional.contains(&".")
                || (sub == "restore" && positional.contains(&":/")) =>
        {
            danger(format!(
                "`git {sub}` with `.` or `--force` discards uncommitted changes"
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

impl Walker<'_> {
    /// The operator of a redirection (`<`, `>>`, `2>&`, …), without its descriptor number.
    fn redirect_operator(&self, node: Node<'_>) -> String {
        let mut operator = String::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if !child.is_named() {
                operator.push_str(self.text(child));
            }
        }
        operator
    }

    /// `[ -f PATH ]` and `[[ A -nt B ]]` look at files: check where they are.
    fn test_command(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) {
        let Some(site) = self.site else {
            return;
        };
        let mut items = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            let mut cursor = n.walk();
            let children: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
            let operator = n
                .child_by_field_name("operator")
                .map(|o| self.text(o))
                .unwrap_or("");
            match n.kind() {
                "unary_expression" if FILE_TESTS.contains(&operator) => {
                    items.extend(
                        children
                            .iter()
                            .filter(|c| c.kind() != "test_operator")
                            .filter_map(|c| PathItem::from_word(&self.word(*c))),
                    );
                }
                "binary_expression" if matches!(operator, "-nt" | "-ot" | "-ef") => {
                    for field in ["left", "right"] {
                        if let Some(side) = n.child_by_field_name(field) {
                            items.extend(PathItem::from_word(&self.word(side)));
                        }
                    }
                }
                "command_substitution" | "process_substitution" => {}
                _ => stack.extend(children),
            }
        }
        if let Some(reason) = site.judge_reads(Some("test"), &items) {
            parts.push(part(
                self.text(node),
                Some("test"),
                CommandClass::ReadsOutside,
                reason,
            ));
        }
    }
}

/// "script" for a shell, "program" for another interpreter.
fn script_or_program(program: &str) -> &'static str {
    if is_shell(program) {
        "script"
    } else {
        "program"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(command: &str) -> CommandClass {
        classify(command).class
    }

    #[test]
    fn sed_scripts() {
        use SedEffect::{Prints, Runs, Writes};
        let table = [
            ("1,10p", Prints),
            ("s/a;b/c/g", Prints),
            ("/start/,/end/d", Prints),
            ("/x/{p;d}", Prints),
            ("y/abc/xyz/;$!N", Prints),
            ("s/a/b/2g;p", Prints),
            ("s/a/b/w out", Writes),
            ("s/a/b/w notes.txt", Writes),
            ("w out.txt", Writes),
            ("p;w out", Writes),
            ("/x/r other.txt", Writes),
            ("1e date", Runs),
            ("e", Runs),
            ("s/a/b/e", Runs),
            ("s/x/rm -r d/ge", Runs),
            ("w out\n1e rm -r d", Runs),
            ("p;/x/e touch y", Runs),
        ];
        for (script, effect) in table {
            assert_eq!(sed_script_effect(script), effect, "{script:?}");
        }
    }

    #[test]
    fn loopback_urls() {
        assert!(is_loopback_url("http://localhost:3000/api"));
        assert!(is_loopback_url("http://127.0.0.1/x"));
        assert!(is_loopback_url("http://[::1]:8080/"));
        assert!(!is_loopback_url("https://example.com/"));
    }

    #[test]
    fn fork_bomb_is_dangerous() {
        assert_eq!(class(":(){ :|:& };:"), CommandClass::Dangerous);
        assert_eq!(
            class("bomb() { bomb | bomb & }; bomb"),
            CommandClass::Dangerous
        );
    }
}
