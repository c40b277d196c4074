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
use crate::site::PathItem;
use crate::verdicts::*;
use crate::walker::Walker;
use crate::words::*;
use crate::writes::write_operands;
use crate::{CommandClass, CommandPart};

impl<'s> Walker<'s> {
    /// Judges a simple command given its words (program first), then where a command that
    /// changes files writes.
    pub(crate) fn judge(&self, words: &[Word], nested: &mut Vec<CommandPart>) -> Judged {
        // `rm *` beside a file named `-rf` is `rm -rf …`: a glob that matches a name that
        // looks like an option is judged as the words bash makes of it.
        if let Some(expanded) = self.expand_option_globs(words) {
            let mut judged = self.judge(&expanded, nested);
            judged.reason = format!(
                "{} (after the pattern matches a file named like an option)",
                judged.reason
            );
            return judged;
        }
        let mut judged = self.judge_program(words, nested);
        // A wrapper (`timeout 5 rm x`, `xargs cat`, `sudo …`) runs another program.
        if judged.side_effect.is_none()
            && let (Some(first), Some(inner)) = (words.first(), judged.program.as_deref())
            && first.literal
            && program_name(&first.value) != inner
        {
            judged.side_effect = Some(format!("`{}` runs `{inner}`", program_name(&first.value)));
        }
        // `bash x.sh`, `python3 /tmp/x.py`: the script is unseen code, and one that is not in
        // the workspace may write anywhere.
        if let Some(site) = self.site
            && judged.class == CommandClass::Mutating
            && let Some((first, args)) = words.split_first()
            && (is_shell(program_name(&first.value)) || is_interpreter(program_name(&first.value)))
            && let Some(script) = args.iter().find(|w| !w.value.starts_with('-'))
            && let Some(item) = PathItem::from_word(script)
            && site.judge_reads(None, &[item]).is_some()
        {
            judged.class = CommandClass::WritesOutside;
            judged.reason = format!(
                "runs the script `{}`, which is not in the workspace, so what it writes is unseen",
                script.value
            );
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

    /// `words` with their globs expanded against the working directory, when one of them
    /// matches a name starting with `-`; `None` otherwise (or without a site).
    fn expand_option_globs(&self, words: &[Word]) -> Option<Vec<Word>> {
        let site = self.site?;
        let mut option_like = false;
        let mut out = Vec::with_capacity(words.len());
        for (i, word) in words.iter().enumerate() {
            let matches = (i > 0 && word.glob && word.literal)
                .then(|| site.glob_words(&word.value))
                .flatten();
            match matches {
                Some(names) => {
                    option_like |= names.iter().any(|n| n.starts_with('-'));
                    out.extend(names.into_iter().map(|n| Word {
                        path: Some(n.clone()),
                        value: n,
                        glob: false,
                        plain: false,
                        ..word.clone()
                    }));
                }
                None => out.push(word.clone()),
            }
        }
        option_like.then_some(out)
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
        use CommandClass::{Mutating, ReadOnly};
        let values: Vec<&str> = args.iter().map(|w| w.value.as_str()).collect();
        let p = Some(program);
        let ro = |reason: &str| Some(Judged::read_only(p, reason));
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
            "sed" => return Some(judge_sed(args)),
            "awk" | "gawk" | "mawk" | "nawk" => return Some(judge_awk(args)),
            "git" => {
                let mut judged = judge_git(&values);
                if judged.class == ReadOnly
                    && let Some(site) = self.site
                    && let Some(reason) =
                        crate::git_repo::config_names_program(&git_dir_of(&site.cwd, args))
                {
                    judged.class = Mutating;
                    judged.reason = reason;
                }
                return Some(judged);
            }
            _ => return None,
        }
        if matches!(program, "fd" | "fdfind")
            && let Some(judged) = self.judge_fd(program, args, nested)
        {
            return Some(judged);
        }
        if let Some(judged) = crate::rules::coreutils::judge_options(program, args) {
            return Some(judged);
        }
        if let Some(judged) = variable_names(program, args) {
            return Some(judged);
        }
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

/// `read NAME…`, `printf -v NAME`, `mapfile NAME`: setting a variable that changes what
/// later commands run (see [`crate::env`]) is not read-only.
fn variable_names(program: &str, args: &[Word]) -> Option<Judged> {
    let names: Vec<&str> = match program {
        "read" | "mapfile" | "readarray" => args
            .iter()
            .filter(|w| !w.value.starts_with('-'))
            .map(|w| w.value.as_str())
            .collect(),
        "printf" => args
            .windows(2)
            .filter(|w| w[0].value == "-v")
            .map(|w| w[1].value.as_str())
            .collect(),
        _ => return None,
    };
    names.iter().find_map(|name| {
        let base = name.split('[').next().unwrap_or(name);
        crate::env::risky_variable(base)
            .map(|(class, reason)| Judged::new(Some(program), class, reason).effect())
    })
}

/// Where `git [-C DIR]… ARGS` runs: `cwd` with each `-C` applied.
fn git_dir_of(cwd: &std::path::Path, args: &[Word]) -> std::path::PathBuf {
    let mut dir = cwd.to_path_buf();
    for pair in args.windows(2) {
        if pair[0].value == "-C" {
            dir = dir.join(&pair[1].value);
        }
        if !pair[0].value.starts_with('-') {
            break;
        }
    }
    dir
}
