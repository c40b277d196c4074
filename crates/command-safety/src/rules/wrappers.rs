//! Wrappers that run another command: where in their words that command starts.

use crate::args::{ArgView, OptionSpec};
use crate::env::risky_variable;
use crate::reads::read_operands;
use crate::site::PathItem;
use crate::verdicts::{Judged, Listing, part};
use crate::walker::{Walker, classify_script};
use crate::words::{Word, join_words};
use crate::writes::input_names_targets;
use crate::{CommandClass, CommandPart};

/// Option words of `sudo`-like wrappers that take a value.
pub(crate) fn skip_options<'w>(args: &'w [Word], with_value: &[&str]) -> &'w [Word] {
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
pub(crate) fn wrapped_command<'w>(program: &str, args: &'w [Word]) -> &'w [Word] {
    let with_value: &[&str] = match program {
        "nice" => &["-n", "--adjustment"],
        "ionice" => &["-c", "-n", "-p", "--class", "--classdata"],
        "stdbuf" => &["-i", "-o", "-e"],
        "timeout" => &["-s", "--signal", "-k", "--kill-after"],
        "watch" => &["-n", "--interval"],
        "exec" => &["-a"],
        "time" => &["-o", "--output", "-f", "--format"],
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
pub(crate) fn runner_command<'w>(program: &str, args: &'w [Word]) -> &'w [Word] {
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

pub(crate) fn xargs_command(args: &[Word]) -> &[Word] {
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

impl<'s> Walker<'s> {
    /// Privilege and wrappers (`sudo`, `env`, `timeout`, `xargs`, `alias`, runners): they
    /// decide what the rest of the words mean. `None` for another program.
    pub(crate) fn judge_wrapper(
        &self,
        program: &str,
        args: &[Word],
        nested: &mut Vec<CommandPart>,
    ) -> Option<Judged> {
        match program {
            "sudo" | "doas" | "pkexec" | "su" | "run0" => {
                self.wrap_privileged(program, args, nested)
            }
            "env" => self.wrap_env(program, args, nested),
            "nice" | "ionice" | "stdbuf" | "chrt" | "taskset" | "time" | "command" | "builtin"
            | "exec" | "nohup" | "setsid" | "watch" | "timeout" => {
                self.wrap_wrapped(program, args, nested)
            }
            "alias" | "trap" => self.wrap_alias_or_trap(program, args, nested),
            "strace" | "ltrace" | "fakeroot" | "unbuffer" | "xvfb-run" | "dbus-run-session"
            | "uv" | "poetry" | "pipenv" | "bundle" | "bundler" => {
                self.wrap_runner(program, args, nested)
            }
            "busybox" => self.wrap_busybox(program, args, nested),
            "xargs" => self.wrap_xargs(program, args, nested),
            _ => None,
        }
    }

    /// `sudo`, `doas`, `pkexec`, `su`, `run0`: the command they run is judged, and the whole is Dangerous.
    fn wrap_privileged(
        &self,
        program: &str,
        args: &[Word],
        nested: &mut Vec<CommandPart>,
    ) -> Option<Judged> {
        use CommandClass::Dangerous;
        let p = Some(program);
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

        Some(Judged::new(
            p,
            Dangerous,
            format!("`{program}` runs a command with elevated privileges"),
        ))
    }

    /// `env [-i] [-u NAME] [-C DIR] [NAME=VALUE]… [-S TEXT] CMD`.
    fn wrap_env(
        &self,
        program: &str,
        args: &[Word],
        nested: &mut Vec<CommandPart>,
    ) -> Option<Judged> {
        use CommandClass::Mutating;
        let p = Some(program);
        let mut rest = args;
        let mut chdir: Option<&Word> = None;
        let mut chdir_text: Option<String> = None;
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
                classify_script(&script, self.depth + 1, self.levels, self.site, nested);

                return Some(Judged::read_only(
                    p,
                    "`env -S` runs the command in its text (its parts are judged)",
                ));
            }
            // `--chdir=DIR`, `--ch DIR`, `-CDIR`: the directory the command runs in.
            let long_chdir =
                v.len() >= 4 && "--chdir".starts_with(v.split('=').next().unwrap_or(v));
            if let Some(dir) = v
                .split_once('=')
                .filter(|_| long_chdir)
                .map(|(_, d)| d)
                .or_else(|| v.strip_prefix("-C").filter(|d| !d.is_empty()))
            {
                chdir_text = Some(dir.to_string());
                rest = tail;
                continue;
            }
            let v = if long_chdir { "--chdir" } else { v };
            if v == "-u" || v == "--unset" || v == "-C" || v == "--chdir" {
                if v == "-C" || v == "--chdir" {
                    chdir = tail.first();
                }
                rest = tail.get(1..).unwrap_or(&[]);
            } else if v.starts_with('-') || (v.contains('=') && !v.starts_with('=')) {
                if let Some((name, _)) = v.split_once('=')
                    && let Some((class, reason)) = risky_variable(name)
                {
                    nested.push(part(v, None, class, reason));
                }
                rest = tail;
            } else {
                break;
            }
        }
        if rest.is_empty() {
            return Some(Judged::read_only(p, "`env` prints the environment"));
        }
        let mut judged = self.judge(rest, nested);
        // `env -C DIR cmd` runs `cmd` in `DIR`.
        if judged.class == Mutating
            && let Some(site) = self.site
            && let Some(reason) = site.judge_writes(
                &chdir
                    .and_then(PathItem::from_word)
                    .into_iter()
                    .chain(chdir_text.as_deref().map(PathItem::literal))
                    .collect::<Vec<_>>(),
            )
        {
            judged.class = CommandClass::WritesOutside;
            judged.reason = format!("{reason} (`env -C`)");
        }

        Some(judged)
    }

    /// Wrappers that run their command unchanged (`nice`, `timeout`, `time`, `watch`, `exec`, …).
    fn wrap_wrapped(
        &self,
        program: &str,
        args: &[Word],
        nested: &mut Vec<CommandPart>,
    ) -> Option<Judged> {
        use CommandClass::{Dangerous, Mutating, ReadsOutside};
        let values: Vec<&str> = args.iter().map(|w| w.value.as_str()).collect();
        let p = Some(program);
        if program == "command" && values.first().is_some_and(|v| *v == "-v" || *v == "-V") {
            return Some(Judged::read_only(p, "`command -v` looks a program up"));
        }
        let inner = wrapped_command(program, args);
        if inner.is_empty() {
            return Some(Judged::new(
                p,
                Mutating,
                format!("`{program}` without a command"),
            ));
        }
        // `watch` hands its words, joined by spaces, to `sh -c` (unless `-x`).
        if program == "watch" && !values.iter().any(|v| matches!(*v, "-x" | "--exec")) {
            if inner.iter().all(|w| w.literal) {
                classify_script(
                    &join_words(inner),
                    self.depth + 1,
                    self.levels,
                    self.site,
                    nested,
                );

                return Some(Judged::read_only(
                    p,
                    "`watch` runs a literal script (its parts are judged)",
                ));
            }

            return Some(Judged::new(
                p,
                Dangerous,
                "`watch` runs a script that is only known when it runs, so it cannot be checked",
            ));
        }
        let mut judged = self.judge(inner, nested);
        // `time -o FILE` (`--output`, `--app -o`) writes its report to `FILE`.
        if program == "time" {
            let view = ArgView::parse(
                args,
                &OptionSpec {
                    short_values: "of",
                    short_attached: "",
                    long_values: &["output", "format"],
                    long_flags: &[
                        "append",
                        "portability",
                        "verbose",
                        "quiet",
                        "help",
                        "version",
                    ],
                    options_first: true,
                },
            );
            if let Some(out) = view.find(&["-o", "--output"]).next() {
                let file = out.value.clone().unwrap_or_default();
                return Some(
                    Judged::new(
                        p,
                        judged.class.max(Mutating),
                        format!("`time {} {file}` writes its report to `{file}`", out.name),
                    )
                    .effect(),
                );
            }
        }
        if program == "nohup" && judged.class <= ReadsOutside {
            judged.class = Mutating;
            judged.reason = "`nohup` writes `nohup.out`".to_string();
        }

        Some(judged)
    }

    /// `alias x='…'` and `trap '…' SIG`: command text the shell runs later.
    fn wrap_alias_or_trap(
        &self,
        program: &str,
        args: &[Word],
        nested: &mut Vec<CommandPart>,
    ) -> Option<Judged> {
        use CommandClass::Dangerous;
        let p = Some(program);
        // Both hold command text the shell runs later: `alias x='rm -r'`, `trap
        // 'rm -r d' EXIT`.
        let scripts: Vec<&Word> = if program == "alias" {
            args.iter().filter(|w| w.value.contains('=')).collect()
        } else {
            // `trap ACTION SIGNAL…`; a lone word is a signal to reset.
            let operands: Vec<&Word> = args
                .iter()
                .skip_while(|w| w.literal && matches!(w.value.as_str(), "-p" | "-l" | "-P" | "--"))
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
                return Some(Judged::new(
                    p,
                    Dangerous,
                    format!(
                        "`{program}` holds a command that is only known when it runs, so it cannot be checked"
                    ),
                ));
            }
            let text = match program {
                "alias" => script.value.split_once('=').map_or("", |(_, v)| v),
                _ => script.value.as_str(),
            };
            classify_script(text, self.depth + 1, self.levels, self.site, nested);
        }

        Some(Judged::read_only(
            p,
            &format!("`{program}` of literal commands (their parts are judged)"),
        ))
    }

    /// Programs that run a command for you (`strace`, `uv run`, `bundle exec`, …).
    fn wrap_runner(
        &self,
        program: &str,
        args: &[Word],
        nested: &mut Vec<CommandPart>,
    ) -> Option<Judged> {
        use CommandClass::Mutating;
        let p = Some(program);
        let inner = runner_command(program, args);
        if !inner.is_empty() {
            let judged = self.judge(inner, nested);
            if judged.class >= Mutating {
                return Some(judged);
            }

            return Some(Judged::new(
                p,
                Mutating,
                format!("`{program}` runs `{}`", inner[0].value),
            ));
        }
        None
    }

    /// `busybox APPLET …` runs the applet named by its first word.
    fn wrap_busybox(
        &self,
        program: &str,
        args: &[Word],
        nested: &mut Vec<CommandPart>,
    ) -> Option<Judged> {
        let p = Some(program);
        // `busybox rm -r x` runs the applet named by its first word.

        Some(if args.is_empty() {
            Judged::read_only(p, "`busybox` without an applet lists its applets")
        } else {
            self.judge(args, nested)
        })
    }

    /// `xargs CMD`: the command runs on names from its input.
    fn wrap_xargs(
        &self,
        program: &str,
        args: &[Word],
        nested: &mut Vec<CommandPart>,
    ) -> Option<Judged> {
        use CommandClass::{Mutating, ReadOnly, ReadsOutside};
        let values: Vec<&str> = args.iter().map(|w| w.value.as_str()).collect();
        let p = Some(program);
        let inner = xargs_command(args);
        if inner.is_empty() {
            let mut judged = Judged::read_only(p, "`xargs` without a command echoes its input");
            judged.stage.listing = Listing::InputLines;

            return Some(judged);
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

        Some(judged)
    }
}
