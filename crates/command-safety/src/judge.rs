//! Judging one simple command from its words: wrappers and privilege first, then shells,
//! the families of [`crate::rules`], and finally "not known to be read-only".

use crate::reads::{listing, read_operands};
use crate::rules::awk::judge_awk;
use crate::rules::git::judge_git;
use crate::rules::interpreters::judge_interpreter;
use crate::rules::sed::judge_sed;
use crate::rules::shells::printed_text;
use crate::rules::system::judge_dangerous;
use crate::rules::*;
use crate::verdicts::*;
use crate::walker::Walker;
use crate::words::*;
use crate::writes::write_operands;
use crate::{CommandClass, CommandPart};

impl<'s> Walker<'s> {
    /// Judges a simple command given its words (program first), then where a command that
    /// changes files writes.
    pub(crate) fn judge(&self, words: &[Word], nested: &mut Vec<CommandPart>) -> Judged {
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
    pub(crate) fn judge_program(&self, words: &[Word], nested: &mut Vec<CommandPart>) -> Judged {
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
        if let Some(judged) = self.judge_wrapper(program, args, nested) {
            return judged;
        }

        if is_shell(program) {
            return self.judge_shell(program, args, nested);
        }
        if let Some(judged) = self.judge_eval_or_source(program, args, nested) {
            return judged;
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
        if let Some(judged) = judge_interpreter(program, args) {
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

    /// `Some` when `program` is a known read-only program; the verdict may still be
    /// mutating because of an argument.
    pub(crate) fn judge_read_only(
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
}

/// `X --version`, `X --help`, `go version`, … for well-known tools.
pub(crate) fn version_or_help(program: &str, values: &[&str]) -> Option<Judged> {
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

pub(crate) fn mutating_reason(program: &str) -> String {
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
