//! Shells: `bash -c SCRIPT`, `sh FILE`, `sh` reading its input, and what `echo`/`printf`
//! print into a shell.

use crate::rules::is_stdin_path;
use crate::verdicts::Judged;
use crate::walker::{Walker, classify_script};
use crate::words::Word;
use crate::{CommandClass, CommandPart};

impl<'s> Walker<'s> {
    pub(crate) fn judge_shell(
        &self,
        program: &str,
        args: &[Word],
        nested: &mut Vec<CommandPart>,
    ) -> Judged {
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
                    classify_script(
                        &script.value,
                        self.depth + 1,
                        self.levels,
                        self.site,
                        nested,
                    );
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
}

/// What `echo`/`printf` with literal arguments write, when that is exactly the text (no
/// backslash escapes or `%` conversions that the reader of `echo … | sh` would have to
/// interpret: `printf 'r\155 -r x' | sh` runs `rm`).
pub(crate) fn printed_text(program: &str, values: &[&str]) -> Option<String> {
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

impl<'s> Walker<'s> {
    /// `eval WORDS` and `source FILE`/`. FILE`; `None` for another program.
    pub(crate) fn judge_eval_or_source(
        &self,
        program: &str,
        args: &[Word],
        nested: &mut Vec<CommandPart>,
    ) -> Option<Judged> {
        use CommandClass::{Dangerous, Mutating, ReadOnly};
        let values: Vec<&str> = args.iter().map(|w| w.value.as_str()).collect();
        let p = Some(program);
        if program == "eval" {
            if args.iter().all(|w| w.literal) {
                let script = values.join(" ");
                classify_script(&script, self.depth + 1, self.levels, self.site, nested);

                return Some(Judged::new(
                    p,
                    ReadOnly,
                    "`eval` of a literal script (its parts are judged)",
                ));
            }

            return Some(if args.iter().any(|w| w.downloads) {
                Judged::new(p, Dangerous, "`eval` runs text downloaded from the network")
            } else {
                Judged::new(
                    p,
                    Dangerous,
                    "`eval` runs text that is only known when it runs, so it cannot be checked",
                )
            });
        }
        if program == "source" || program == "." {
            return Some(if args.iter().any(|w| w.downloads) {
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
            });
        }
        None
    }
}
