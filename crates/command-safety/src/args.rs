//! One view of a command's arguments with getopt semantics, shared by the rule modules.
//!
//! - `--` ends the options; every word after it is an operand.
//! - `-` alone is an operand (stdin or stdout).
//! - `--name=value` attaches a value; `--name value` takes the next word when `name` takes a
//!   value.
//! - GNU long options may be abbreviated: `--out` is `--output` when it is the unambiguous
//!   prefix of one known long option. An abbreviation that could be a listed option that
//!   writes or runs is read as that option even when it is ambiguous (the program then either
//!   does that or refuses to run), so the view never under-reads.
//! - `-abc` is a cluster of single letters; a letter that takes a value takes the rest of the
//!   word (`-oFILE`) or, when nothing is attached, the next word (`-o FILE`).
//! - A word that is not literal (`$X`, `$(…)`) could be any option when it runs: it is kept
//!   as an operand and flagged, so rules can refuse to call the command read-only.

use crate::words::Word;

/// How a program reads its options: which take a value.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OptionSpec {
    /// Single letters that take a value (`"otk"` for `sort -o F -t , -k 2`).
    pub(crate) short_values: &'static str,
    /// Single letters that take the rest of the cluster as their value, and never the next
    /// word (`sed -i.bak`, `gawk -pprof.out`).
    pub(crate) short_attached: &'static str,
    /// Long options that take a value, without `--`.
    pub(crate) long_values: &'static [&'static str],
    /// Long options that take no value, without `--` (for abbreviations).
    pub(crate) long_flags: &'static [&'static str],
    /// Options are only read before the first operand (`sed` reads them anywhere, `env`
    /// and `xargs` stop at the command).
    pub(crate) options_first: bool,
}

/// One option as the program reads it.
#[derive(Debug, Clone)]
pub(crate) struct Opt {
    /// `-o` or `--output` (the full name when an abbreviation resolved).
    pub(crate) name: String,
    /// Every full long name the word could stand for (an ambiguous abbreviation).
    pub(crate) could_be: Vec<String>,
    /// The value: attached (`-oX`, `--output=X`) or the next word.
    pub(crate) value: Option<String>,
}

/// The arguments of one command, read with getopt semantics (see the module docs).
#[derive(Debug, Clone, Default)]
pub(crate) struct ArgView {
    /// Options in order.
    pub(crate) options: Vec<Opt>,
    /// Indices of the operand words, in order.
    pub(crate) operands: Vec<usize>,
    /// A word before `--` is not literal, so it could be any option.
    pub(crate) dynamic_option: bool,
}

impl ArgView {
    /// Reads `args` with `spec`.
    pub(crate) fn parse(args: &[Word], spec: &OptionSpec) -> ArgView {
        let mut view = ArgView::default();
        let mut i = 0;
        let mut ended = false;
        while i < args.len() {
            let word = &args[i];
            let v = word.value.as_str();
            let at = i;
            i += 1;
            if ended {
                view.operands.push(at);
                continue;
            }
            if !word.literal {
                view.dynamic_option = true;
                view.operands.push(at);
                continue;
            }
            if v == "--" {
                ended = true;
                continue;
            }
            if v == "-" || !v.starts_with('-') {
                view.operands.push(at);
                if spec.options_first {
                    ended = true;
                }
                continue;
            }
            if let Some(long) = v.strip_prefix("--") {
                let (name, attached) = match long.split_once('=') {
                    Some((n, a)) => (n, Some(a.to_string())),
                    None => (long, None),
                };
                let could_be = resolve_long(name, spec);
                let full = match could_be.as_slice() {
                    [one] => one.clone(),
                    _ => name.to_string(),
                };
                let takes = could_be
                    .iter()
                    .any(|n| spec.long_values.contains(&n.as_str()));
                let value = match attached {
                    Some(a) => Some(a),
                    None if takes => {
                        i += 1;
                        args.get(at + 1).map(|w| w.value.clone())
                    }
                    None => None,
                };
                view.options.push(Opt {
                    name: format!("--{full}"),
                    could_be: could_be.iter().map(|n| format!("--{n}")).collect(),
                    value,
                });
                continue;
            }
            for (pos, letter) in v.char_indices().skip(1) {
                let name = format!("-{letter}");
                if spec.short_attached.contains(letter) {
                    let rest = &v[pos + letter.len_utf8()..];
                    view.options.push(Opt {
                        could_be: vec![name.clone()],
                        name,
                        value: (!rest.is_empty()).then(|| rest.to_string()),
                    });
                    break;
                }
                if spec.short_values.contains(letter) {
                    let rest = &v[pos + letter.len_utf8()..];
                    let value = if rest.is_empty() {
                        i += 1;
                        args.get(at + 1).map(|w| w.value.clone())
                    } else {
                        Some(rest.to_string())
                    };
                    view.options.push(Opt {
                        could_be: vec![name.clone()],
                        name,
                        value,
                    });
                    break;
                }
                view.options.push(Opt {
                    could_be: vec![name.clone()],
                    name,
                    value: None,
                });
            }
        }
        view
    }

    /// The options that are (or could be, abbreviated) one of `names` (`-o`, `--output`).
    pub(crate) fn find<'a>(&'a self, names: &'a [&str]) -> impl Iterator<Item = &'a Opt> + 'a {
        self.options
            .iter()
            .filter(move |o| o.could_be.iter().any(|n| names.contains(&n.as_str())))
    }

    /// Whether any option is (or could be) one of `names`.
    #[cfg(test)]
    pub(crate) fn has(&self, names: &[&str]) -> bool {
        self.find(names).next().is_some()
    }
}

/// The full long names `name` could stand for: itself when it is listed exactly, else every
/// listed name it is a prefix of; itself when none (an option this view does not know).
fn resolve_long(name: &str, spec: &OptionSpec) -> Vec<String> {
    let all = spec.long_values.iter().chain(spec.long_flags);
    if all.clone().any(|n| *n == name) {
        return vec![name.to_string()];
    }
    let matches: Vec<String> = all
        .filter(|n| !name.is_empty() && n.starts_with(name))
        .map(|n| n.to_string())
        .collect();
    if matches.is_empty() {
        vec![name.to_string()]
    } else {
        matches
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(v: &str) -> Word {
        Word {
            value: v.to_string(),
            literal: true,
            downloads: false,
            process_substitution: false,
            glob: false,
            path: Some(v.to_string()),
            plain: true,
        }
    }

    const SORT: OptionSpec = OptionSpec {
        short_values: "otkST",
        short_attached: "",
        long_values: &["output", "key", "field-separator", "compress-program"],
        long_flags: &["reverse", "numeric-sort", "unique"],
        options_first: false,
    };

    fn view(words: &[&str]) -> ArgView {
        let args: Vec<Word> = words.iter().map(|v| w(v)).collect();
        ArgView::parse(&args, &SORT)
    }

    #[test]
    fn getopt_semantics() {
        for words in [
            &["-o", "x"][..],
            &["-ox"],
            &["-ro", "x"],
            &["-rox"],
            &["--output=x"],
            &["--output", "x"],
            &["--out=x"],
            &["--o", "x"],
            &["a", "-o", "x"],
        ] {
            let v = view(words);
            let out: Vec<_> = v.find(&["-o", "--output"]).collect();
            assert_eq!(out.len(), 1, "{words:?}: {v:?}");
            assert_eq!(out[0].value.as_deref(), Some("x"), "{words:?}");
        }
        assert!(!view(&["--", "-o", "x"]).has(&["-o"]));
        assert!(!view(&["-t", "o"]).has(&["-o"]));
        assert!(!view(&["-to"]).has(&["-o"]));
        assert_eq!(view(&["-", "out"]).operands, vec![0, 1]);
        // `--re` is only `--reverse`: not a writing option.
        assert!(!view(&["--re"]).has(&["--output"]));
    }
}
