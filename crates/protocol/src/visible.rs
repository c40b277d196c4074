//! Showing untrusted text (a command, a path, a reason) so that what is displayed is exactly
//! what it contains.
//!
//! A command the model wrote is shown to the user before it runs, and the user decides from
//! what they see. Text that a terminal or a browser *interprets* instead of showing breaks
//! that: `\e[2K\e[1A` after a `#` erases the prompt line and redraws a harmless one, U+202E
//! (right-to-left override) reorders what follows, U+200B hides inside a word, a no-break
//! space looks like the space that separates shell words. [`visible`] replaces every such
//! character with a token that names it, so the display can't be redrawn, reordered or
//! padded with invisible text, and two different strings never display the same.
//!
//! Tokens are `⟨…⟩` (U+27E8 … U+27E9):
//! - `⟨\e⟩` ESC, `⟨\0⟩` NUL, `⟨\r⟩` CR, `⟨\t⟩` tab, `⟨\n⟩` newline (followed by a real line
//!   break, so a script stays readable), `⟨\x07⟩` the other C0 controls and DEL;
//! - `⟨U+009B⟩` C1 controls, bidi controls, zero-width and other invisible characters,
//!   spaces other than the ASCII space (they look like a word separator but are not one);
//! - `⟨U+27E8⟩` a literal `⟨`, so a token can't be forged by writing one.
//!
//! Everything else is kept as is. Because every `⟨` in the output starts a token and tokens
//! never contain `⟩`, the output reads back unambiguously: the function is injective.

/// The opening bracket of a token (U+27E8); escaped itself when it occurs in the text.
const OPEN: char = '⟨';
/// The closing bracket of a token (U+27E9).
const CLOSE: char = '⟩';

/// `text` with control characters (C0, DEL, C1, so also every ESC sequence), bidi controls,
/// zero-width and other invisible or space-like characters replaced by visible tokens
/// (`⟨\e⟩`, `⟨\x07⟩`, `⟨U+202E⟩`, …; see the [module docs](self)). Newlines become `⟨\n⟩`
/// followed by a line break; nothing is dropped or shortened.
///
/// The result contains no control character other than those line breaks, each right after
/// a `⟨\n⟩` token, and no bidi, zero-width or format character; different inputs give
/// different results.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match escape(c) {
            Some(Token::Named(name)) => {
                out.push(OPEN);
                out.push_str(name);
                out.push(CLOSE);
                if c == '\n' {
                    out.push('\n');
                }
            }
            Some(Token::Byte(b)) => {
                out.push(OPEN);
                out.push_str(&format!("\\x{b:02x}"));
                out.push(CLOSE);
            }
            Some(Token::CodePoint(u)) => {
                out.push(OPEN);
                out.push_str(&format!("U+{u:04X}"));
                out.push(CLOSE);
            }
            None => out.push(c),
        }
    }
    out
}

/// Whether [`visible`] changes `text` (it holds a character that is shown as a token).
pub fn has_hidden(text: &str) -> bool {
    text.chars().any(|c| escape(c).is_some())
}

enum Token {
    /// A C0 control with a conventional short name (`\e`, `\n`, …).
    Named(&'static str),
    /// Another C0 control or DEL, as `\xNN`.
    Byte(u32),
    /// Anything else shown by code point.
    CodePoint(u32),
}

fn escape(c: char) -> Option<Token> {
    let u = u32::from(c);
    Some(match c {
        '\u{1b}' => Token::Named("\\e"),
        '\0' => Token::Named("\\0"),
        '\n' => Token::Named("\\n"),
        '\r' => Token::Named("\\r"),
        '\t' => Token::Named("\\t"),
        '\u{0}'..='\u{1f}' | '\u{7f}' => Token::Byte(u),
        OPEN => Token::CodePoint(u),
        c if is_hidden(c) => Token::CodePoint(u),
        _ => return None,
    })
}

/// Characters that render as nothing, as something else, or as a plain space, or change how
/// the text around them is laid out.
fn is_hidden(c: char) -> bool {
    matches!(c,
        // C1 controls (U+009B is a one-character CSI on some terminals).
        '\u{80}'..='\u{9f}'
        // No-break space, soft hyphen, combining grapheme joiner.
        | '\u{a0}' | '\u{ad}' | '\u{34f}'
        // Arabic letter mark (bidi).
        | '\u{61c}'
        // Hangul fillers, Khmer inherent vowels, Mongolian selectors and vowel separator:
        // letters that draw nothing.
        | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}' | '\u{180b}'..='\u{180f}'
        | '\u{3164}' | '\u{ffa0}'
        // Ogham space mark and the typographic spaces (look like a word separator).
        | '\u{1680}' | '\u{2000}'..='\u{200a}'
        // Zero-width space/joiners, LRM/RLM.
        | '\u{200b}'..='\u{200f}'
        // Line/paragraph separators, bidi embeddings and overrides (U+202A–U+202E),
        // narrow no-break space.
        | '\u{2028}'..='\u{202f}'
        // Medium mathematical space, word joiner, invisible operators, bidi isolates
        // (U+2066–U+2069), deprecated format characters.
        | '\u{205f}'..='\u{206f}'
        // Ideographic space.
        | '\u{3000}'
        // Variation selectors.
        | '\u{fe00}'..='\u{fe0f}'
        // Byte order mark / zero-width no-break space.
        | '\u{feff}'
        // Interlinear annotation controls.
        | '\u{fff9}'..='\u{fffb}'
        // Musical symbol format controls.
        | '\u{1d173}'..='\u{1d17a}'
        // Tag characters (invisible ASCII look-alikes), variation selectors supplement.
        | '\u{e0000}'..='\u{e007f}' | '\u{e0100}'..='\u{e01ef}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Reads [`visible`]'s output back; that this always succeeds and returns the input is
    /// the proof that two different inputs never display the same.
    fn decode(shown: &str) -> Option<String> {
        let mut out = String::new();
        let mut rest = shown;
        while let Some(at) = rest.find(OPEN) {
            out.push_str(&rest[..at]);
            let after = &rest[at + OPEN.len_utf8()..];
            let end = after.find(CLOSE)?;
            let token = &after[..end];
            rest = &after[end + CLOSE.len_utf8()..];
            let c = match token {
                "\\e" => '\u{1b}',
                "\\0" => '\0',
                "\\n" => {
                    rest = rest.strip_prefix('\n')?;
                    '\n'
                }
                "\\r" => '\r',
                "\\t" => '\t',
                t if t.starts_with("\\x") => {
                    char::from_u32(u32::from_str_radix(&t[2..], 16).ok()?)?
                }
                t if t.starts_with("U+") => char::from_u32(u32::from_str_radix(&t[2..], 16).ok()?)?,
                _ => return None,
            };
            out.push(c);
        }
        out.push_str(rest);
        Some(out)
    }

    fn is_bidi_or_invisible(c: char) -> bool {
        matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}'
            | '\u{61c}' | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}')
    }

    /// Strings rich in the characters that matter, plus anything at all.
    fn tricky() -> impl Strategy<Value = String> {
        let interesting = prop_oneof![
            Just('\u{1b}'),
            Just('\n'),
            Just('\r'),
            Just('\t'),
            Just('\0'),
            Just('\u{7}'),
            Just('\u{7f}'),
            Just('\u{9b}'),
            Just('\u{85}'),
            Just('\u{202e}'),
            Just('\u{2066}'),
            Just('\u{200b}'),
            Just('\u{200d}'),
            Just('\u{feff}'),
            Just('\u{a0}'),
            Just('⟨'),
            Just('⟩'),
            Just('\\'),
            Just('#'),
            Just('['),
            Just('x'),
            Just('U'),
            Just('+'),
            any::<char>(),
        ];
        proptest::collection::vec(interesting, 0..40).prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #[test]
        fn the_output_shows_everything_and_reads_back(text in tricky()) {
            let shown = visible(&text);
            let chars: Vec<char> = shown.chars().collect();
            for (i, &c) in chars.iter().enumerate() {
                if c == '\n' {
                    prop_assert!(shown[..shown.char_indices().nth(i).map_or(0, |(b, _)| b)].ends_with("⟨\\n⟩"));
                } else {
                    prop_assert!(!c.is_control(), "{c:?} in {shown:?}");
                }
                prop_assert!(!is_bidi_or_invisible(c), "{c:?} in {shown:?}");
                prop_assert!(!is_hidden(c), "{c:?} in {shown:?}");
            }
            prop_assert_eq!(decode(&shown), Some(text.clone()));
            prop_assert_eq!(has_hidden(&text), shown != text);
        }

        #[test]
        fn different_texts_never_display_the_same(a in tricky(), b in tricky()) {
            prop_assume!(a != b);
            prop_assert_ne!(visible(&a), visible(&b));
        }
    }

    #[test]
    fn a_redrawing_command_is_shown_as_written() {
        let cmd = "rm -rf ~ #\u{1b}[2K\u{1b}[1A\r$ ls\u{7}";
        assert_eq!(visible(cmd), "rm -rf ~ #⟨\\e⟩[2K⟨\\e⟩[1A⟨\\r⟩$ ls⟨\\x07⟩");
        assert_eq!(
            visible("a\u{202e}b\u{200b}c\u{9b}d"),
            "a⟨U+202E⟩b⟨U+200B⟩c⟨U+009B⟩d"
        );
        assert_eq!(visible("x\ny\tz"), "x⟨\\n⟩\ny⟨\\t⟩z");
        // A forged token is not a token.
        assert_eq!(visible("⟨\\e⟩"), "⟨U+27E8⟩\\e⟩");
        assert_eq!(visible("ls -la ./src"), "ls -la ./src");
        assert!(!has_hidden("plain ü text ⟩"));
    }
}
