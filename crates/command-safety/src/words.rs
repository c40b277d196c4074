//! Word handling: unquoting, `$HOME`/`$PWD` expansion for paths, globs, brace expansion.

use tree_sitter::Node;

use crate::rules::is_downloader;
use crate::site::Site;
use crate::walker::Walker;

/// One word of a simple command.
#[derive(Debug, Clone)]
pub(crate) struct Word {
    /// The unquoted value when `literal`, else the source text.
    pub(crate) value: String,
    /// No expansion or substitution: the value is known before the command runs.
    pub(crate) literal: bool,
    /// Contains a substitution that runs a network downloader (`$(curl …)`, `<(wget …)`).
    pub(crate) downloads: bool,
    /// The whole word is a process substitution (`<(…)`): a pipe from commands judged on
    /// their own, not a file.
    pub(crate) process_substitution: bool,
    /// Has an unquoted `*`, `?` or `[`, which the shell matches against file names.
    pub(crate) glob: bool,
    /// The value as a path: the literal value, or the word with `$HOME`/`$PWD` expanded when
    /// nothing else in it is dynamic; `None` when only known when it runs.
    pub(crate) path: Option<String>,
    /// The program receives exactly `value`: literal, no glob, no brace or tilde expansion.
    pub(crate) plain: bool,
}

impl<'s> Walker<'s> {
    pub(crate) fn word(&self, node: Node<'_>) -> Word {
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
    pub(crate) fn words(&self, node: Node<'_>) -> Vec<Word> {
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
    pub(crate) fn expand_path_word(&self, node: Node<'_>, site: &Site) -> Option<String> {
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
    pub(crate) fn runs_downloader(&self, node: Node<'_>) -> bool {
        if node.kind() == "command_name" {
            return is_downloader(program_name(self.text(node)));
        }
        let mut cursor = node.walk();
        node.named_children(&mut cursor)
            .any(|c| self.runs_downloader(c))
    }
}

/// Unquotes one shell word the grammar has delimited (`'a b'` → `a b`, `r\m` → `rm`).
pub(crate) fn unquote(raw: &str) -> String {
    shell_words::split(raw)
        .ok()
        .map(|w| w.join(" "))
        .unwrap_or_else(|| raw.to_string())
}

/// Escapes an expanded value so that [`unquote`] gives it back (`quoted`: inside `"…"`).
pub(crate) fn escape_for_shell(value: &str, quoted: bool) -> String {
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
pub(crate) fn any_unquoted(raw: &str, mut f: impl FnMut(usize, char, bool) -> bool) -> bool {
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
pub(crate) fn has_unquoted_glob(raw: &str) -> bool {
    any_unquoted(raw, |_, c, unquoted| {
        unquoted && matches!(c, '*' | '?' | '[')
    })
}

/// Words beyond which a brace expansion is not followed.
pub(crate) const MAX_BRACE_WORDS: usize = 256;

/// Brace groups in one word beyond which brace expansion is not followed.
const MAX_BRACE_DEPTH: usize = 16;

/// Brace expansion as bash does it before anything else (`{rm,-r,x}` → `rm`, `-r`, `x`;
/// `a{b,c}d` → `abd`, `acd`), on the source text of a literal word; `None` when the word has
/// no unquoted `{…,…}`. Stops after a little more than [`MAX_BRACE_WORDS`] words.
pub(crate) fn expand_braces(raw: &str) -> Option<Vec<String>> {
    expand_braces_within(raw, 0)
}

/// [`expand_braces`] for a word inside `depth` groups already expanded: each group is one
/// level of recursion, so past [`MAX_BRACE_DEPTH`] the word counts as expanding to more than
/// [`MAX_BRACE_WORDS`] words (which the callers treat as not followed).
fn expand_braces_within(raw: &str, depth: usize) -> Option<Vec<String>> {
    if depth > MAX_BRACE_DEPTH {
        return Some(vec![raw.to_string(); MAX_BRACE_WORDS + 1]);
    }
    let (open, commas, close) = brace_group(raw)?;
    let prefix = &raw[..open];
    let suffix = &raw[close + 1..];
    let mut out = Vec::new();
    let mut start = open + 1;
    for end in commas.iter().copied().chain(std::iter::once(close)) {
        let joined = format!("{prefix}{}{suffix}", &raw[start..end]);
        start = end + 1;
        match expand_braces_within(&joined, depth + 1) {
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
pub(crate) fn expand_line_braces(script: &str) -> Option<String> {
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
pub(crate) fn brace_group(raw: &str) -> Option<(usize, Vec<usize>, usize)> {
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

pub(crate) fn is_literal(node: Node<'_>) -> bool {
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

pub(crate) fn join_words(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.value.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `/usr/bin/rm` → `rm`.
pub(crate) fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}
