//! `awk`: read-only when its program cannot write or run anything.

use crate::CommandClass;
use crate::args::{ArgView, OptionSpec};
use crate::verdicts::Judged;
use crate::words::Word;

/// How gawk, mawk and POSIX awk read their options.
const AWK: OptionSpec = OptionSpec {
    short_values: "fvFeilEW",
    short_attached: "opd",
    long_values: &[
        "file",
        "assign",
        "field-separator",
        "source",
        "include",
        "load",
        "exec",
    ],
    long_flags: &[
        "pretty-print",
        "profile",
        "dump-variables",
        "debug",
        "sandbox",
        "bignum",
        "optimize",
        "no-optimize",
        "characters-as-bytes",
        "traditional",
        "posix",
        "lint",
        "gen-pot",
        "re-interval",
        "non-decimal-data",
        "use-lc-numeric",
        "copyright",
        "help",
        "version",
        "csv",
    ],
    options_first: true,
};

/// `-W` values (mawk, POSIX) that only change how it reads or print information.
const HARMLESS_W: &[&str] = &[
    "version",
    "v",
    "help",
    "usage",
    "posix",
    "traditional",
    "lint",
    "compat",
    "posix_space",
    "sprintf",
    "interactive",
    "i",
];

/// `awk` is read-only when its program cannot write, run anything or change which files it
/// reads, and it is given on the command line.
pub(crate) fn judge_awk(args: &[Word]) -> Judged {
    use CommandClass::{Dangerous, Mutating, ReadOnly};
    let p = Some("awk");
    let view = ArgView::parse(args, &AWK);
    let named = |names: &[&str]| view.find(names).next().map(|o| o.name.clone());
    if let Some(opt) = named(&["-l", "--load"]) {
        return Judged::new(
            p,
            Dangerous,
            format!("`awk {opt}` loads a shared library, which runs unseen code"),
        )
        .effect();
    }
    if let Some(opt) = named(&["-f", "--file", "-E", "--exec", "-i", "--include"]) {
        return Judged::new(
            p,
            Mutating,
            format!("`awk {opt}` runs a program from a file, which is not checked"),
        )
        .effect();
    }
    if let Some(opt) = named(&[
        "-o",
        "--pretty-print",
        "-p",
        "--profile",
        "-d",
        "--dump-variables",
    ]) {
        return Judged::new(
            p,
            Mutating,
            format!("`awk {opt}` writes a file (its profile, listing or variables)"),
        )
        .effect();
    }
    if let Some(w) = view.find(&["-W"]).find(|o| {
        let v = o.value.as_deref().unwrap_or("");
        !HARMLESS_W.contains(&v.split('=').next().unwrap_or(v))
    }) {
        return Judged::new(
            p,
            Mutating,
            format!(
                "`awk -W {}` may read its program from a file or write one",
                w.value.as_deref().unwrap_or("")
            ),
        )
        .effect();
    }
    if view.dynamic_option {
        return Judged::new(p, Mutating, "an argument of `awk` is only known when it runs, and could be an option that runs a file").effect();
    }
    let mut programs: Vec<String> = view
        .find(&["-e", "--source"])
        .map(|o| o.value.clone().unwrap_or_default())
        .collect();
    if programs.is_empty()
        && let Some(&first) = view.operands.first()
    {
        programs.push(args[first].value.clone());
    }
    if programs.is_empty() {
        return Judged::new(p, Mutating, "`awk` without a program");
    }
    let text = programs.join("\n");
    if awk_runs_commands(&text) || text.contains("@load") {
        return Judged::new(
            p,
            Dangerous,
            "the `awk` program runs shell commands (`system`, `| getline`, `| \"cmd\"`, `@load`), which cannot be checked",
        )
        .effect();
    }
    if text.contains('|')
        || text.contains('>')
        || text.contains("system")
        || text.contains("@include")
    {
        return Judged::new(
            p,
            Mutating,
            "the `awk` program may write files or run commands (`>`, `|`, `system`)",
        )
        .effect();
    }
    if text.contains("ARGV") || text.contains("ARGC") {
        return Judged::new(
            p,
            Mutating,
            "the `awk` program changes `ARGV`, so which files it reads is only known when it runs",
        )
        .effect();
    }
    Judged::new(p, ReadOnly, "the `awk` program only reads and prints")
}

/// Whether an awk program runs shell commands: `system(…)`, `"cmd" | getline`, `print |
/// "cmd"`, `|&` (a regular expression's `a|b` is not a pipe).
pub(crate) fn awk_runs_commands(program: &str) -> bool {
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
