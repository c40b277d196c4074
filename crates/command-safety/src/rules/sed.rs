//! `sed`: read-only without `-i` and with a script of printing commands only.

use crate::CommandClass;
use crate::args::{ArgView, OptionSpec};
use crate::verdicts::Judged;
use crate::words::Word;

/// How GNU sed reads its options.
const SED: OptionSpec = OptionSpec {
    short_values: "efl",
    short_attached: "i",
    long_values: &["expression", "file", "line-length"],
    long_flags: &[
        "in-place",
        "quiet",
        "silent",
        "debug",
        "posix",
        "regexp-extended",
        "separate",
        "sandbox",
        "follow-symlinks",
        "unbuffered",
        "null-data",
        "zero-terminated",
        "binary",
        "help",
        "version",
    ],
    options_first: false,
};

/// `sed` is read-only without `-i` (in any spelling: `-ni`, `--in`, `--in-place=.bak`), without
/// a script file, and with a script of printing commands only.
pub(crate) fn judge_sed(args: &[Word]) -> Judged {
    use CommandClass::{Mutating, ReadOnly};
    let p = Some("sed");
    let view = ArgView::parse(args, &SED);
    if let Some(opt) = view.find(&["-i", "--in-place"]).next() {
        return Judged::new(
            p,
            Mutating,
            format!("`sed {}` edits files in place", opt.name),
        )
        .effect();
    }
    if let Some(opt) = view.find(&["-f", "--file"]).next() {
        let file = opt.value.as_deref().unwrap_or("?");
        return Judged::new(
            p,
            Mutating,
            format!(
                "`sed {} {file}` runs a script from a file, which is not checked",
                opt.name
            ),
        )
        .effect();
    }
    if view.dynamic_option {
        return Judged::new(
            p,
            Mutating,
            "an argument of `sed` is only known when it runs, and could be `-i` or a script that writes",
        )
        .effect();
    }
    let mut scripts: Vec<String> = view
        .find(&["-e", "--expression"])
        .map(|o| o.value.clone().unwrap_or_default())
        .collect();
    if scripts.is_empty()
        && let Some(&first) = view.operands.first()
    {
        scripts.push(args[first].value.clone());
    }
    match scripts.iter().map(|s| sed_script_effect(s)).max() {
        None | Some(SedEffect::Prints) => {
            Judged::new(p, ReadOnly, "`sed` without `-i` only prints")
        }
        Some(SedEffect::Writes) => Judged::new(
            p,
            Mutating,
            "the `sed` script may write or read other files (`w`, `W`, `r`, `R`)",
        )
        .effect(),
        Some(SedEffect::Runs) => Judged::new(
            p,
            CommandClass::Dangerous,
            "the `sed` script runs shell commands (`e`), which cannot be checked",
        )
        .effect(),
    }
}

/// What a sed script can do beyond printing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum SedEffect {
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
pub(crate) fn sed_script_effect(script: &str) -> SedEffect {
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
pub(crate) fn skip_delimited(s: &str, delim: char) -> Option<&str> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
