//! Interpreters (`python`, `perl`, `node`, …) and programs that read their program from a
//! file (`sed -f`, `awk -f`, `make -f`).

use crate::CommandClass;
use crate::rules::{is_interpreter, is_stdin_path};
use crate::verdicts::Judged;
use crate::walker::Walker;
use crate::words::Word;

impl<'s> Walker<'s> {
    /// `judged` for a program given the file of its program with `-f FILE` (or one of `long`):
    /// dangerous when that is another command's output (`-f <(…)`), and reading its program
    /// from its input when it is `-` or `/dev/stdin` (so `… | make -f -` and `make -f
    /// /dev/stdin <<< …` are judged like `… | sh`).
    pub(crate) fn program_from_file(
        &self,
        mut judged: Judged,
        args: &[Word],
        long: &[&str],
    ) -> Judged {
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
}

/// The option with which an interpreter runs code given on its command line (`python -c`,
/// `perl -e`, `node --eval`, …), if one is given before the script operand.
///
/// Options are read as each interpreter reads them: single-letter options can be grouped
/// (`perl -lne`, `python3 -Ic`); some letters take the rest of the group as their value
/// (`perl -i.bak`, `ruby -rjson`), or the next word when nothing is attached (`python -W
/// ignore`, `php -d x=1`); some take only digits (`perl -l0`); `python -m` runs a module.
pub(crate) fn inline_code_option(program: &str, values: &[&str]) -> Option<String> {
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

/// An interpreter (`python3 x.py`, `perl -e …`); `None` for another program.
pub(crate) fn judge_interpreter(program: &str, args: &[Word]) -> Option<Judged> {
    use CommandClass::{Dangerous, Mutating};
    let values: Vec<&str> = args.iter().map(|w| w.value.as_str()).collect();
    let p = Some(program);
    if is_interpreter(program) {
        if let Some(option) = inline_code_option(program, &values) {
            return Some(Judged::new(
                p,
                Dangerous,
                format!(
                    "`{program} {option}` runs code given on the command line, which cannot be checked"
                ),
            ));
        }
        let script = args
            .iter()
            .find(|w| !w.value.starts_with('-') || w.process_substitution);
        if script.is_some_and(|w| w.process_substitution) {
            return Some(Judged::new(
                p,
                Dangerous,
                format!(
                    "`{program}` runs the output of another command as a program, which cannot be checked"
                ),
            ));
        }
        let mut judged = Judged::new(p, Mutating, format!("`{program}` runs a program"));
        if script.is_none_or(|w| is_stdin_path(&w.value)) {
            judged.stage.runs_stdin = true;
        }

        return Some(judged);
    }
    None
}
