//! `awk`: read-only when its program cannot write or run anything.

use crate::CommandClass;
use crate::verdicts::Judged;

/// `awk` is read-only when its program cannot write or run anything.
pub(crate) fn judge_awk(values: &[&str]) -> Judged {
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
