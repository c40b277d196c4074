//! Applying the hunks of an update to a file's text.
//!
//! Each hunk's old lines (context and removed) are located in the file, starting after the
//! previous hunk, with decreasing strictness: exact, then ignoring trailing whitespace, then
//! ignoring surrounding whitespace, then also treating typographic punctuation (dashes,
//! curly quotes, odd spaces) as its ASCII form. This mirrors the reference tool, so patches
//! written for it apply here too.
//!
//! Line endings follow the reference tool (Codex's `apply_patch`):
//! - A line ends at `\n`; a `\r` right before it makes the ending CRLF. A lone `\r` (classic
//!   Mac) ends nothing: it is part of the line's text, so a file using only `\r` is one line.
//! - The file's *preferred* ending is that of its first line ending (LF when it has none).
//! - Lines outside every hunk keep their bytes, ending included, whatever the mixture.
//! - Every line a hunk spans — its context lines as well as its added lines — is written with
//!   the preferred ending. (Context lines keep the file's text, even when they matched only
//!   loosely; the reference writes the patch's text there, which differs only for loose
//!   matches, and rewriting `“quotes”` the model typed as `"` would be an edit nobody asked
//!   for.)
//! - The result ends with a line ending: an unterminated last line gets the preferred one.

use super::parse::{Hunk, HunkLine};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Eol {
    Lf,
    CrLf,
}

impl Eol {
    fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
        }
    }
}

#[derive(Debug, Clone)]
struct Line {
    text: String,
    eol: Option<Eol>,
}

/// A hunk that could not be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HunkError {
    /// 1-based index of the hunk within its update.
    pub(crate) hunk: usize,
    /// Patch line where the hunk starts.
    pub(crate) patch_line: usize,
    /// What was not found, in words, with the lines quoted.
    pub(crate) message: String,
}

/// Applies `hunks` in order to `content`.
///
/// # Errors
/// The first hunk whose anchor or old lines cannot be found.
pub(crate) fn apply_hunks(content: &str, hunks: &[Hunk]) -> Result<String, HunkError> {
    let (mut lines, preferred) = split_lines(content);
    let mut cursor = 0usize;
    for (index, hunk) in hunks.iter().enumerate() {
        let fail = |message: String| HunkError {
            hunk: index + 1,
            patch_line: hunk.line,
            message,
        };
        if let Some(anchor) = &hunk.anchor {
            let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
            match seek(&texts, &[anchor.as_str()], cursor, false) {
                Some(at) => cursor = at + 1,
                None => {
                    return Err(fail(format!(
                        "the anchor line `@@ {anchor}` was not found{}",
                        after_line(cursor)
                    )));
                }
            }
        }
        let mut body: Vec<&HunkLine> = hunk.lines.iter().collect();
        let old = hunk.old_lines();
        let at = if old.is_empty() {
            // Pure insertion: after the anchor when there is one, else at the end (before a
            // final blank line).
            if hunk.anchor.is_some() {
                cursor
            } else if lines.last().is_some_and(|l| l.text.is_empty()) {
                lines.len() - 1
            } else {
                lines.len()
            }
        } else {
            let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
            let mut found = seek(&texts, &old, cursor, hunk.end_of_file);
            if found.is_none() && old.last().is_some_and(|l| l.is_empty()) {
                // A trailing empty old line usually stands for the file's final newline.
                trim_trailing_empty_old(&mut body);
                let shorter: Vec<&str> = old[..old.len() - 1].to_vec();
                found = seek(&texts, &shorter, cursor, hunk.end_of_file);
            }
            match found {
                Some(at) => at,
                None => {
                    let quoted: Vec<String> = old.iter().map(|l| format!("    {l}")).collect();
                    let place = if hunk.end_of_file {
                        " at the end of the file".to_string()
                    } else {
                        after_line(cursor)
                    };
                    return Err(fail(format!(
                        "these lines were not found{place}:\n{}",
                        quoted.join("\n")
                    )));
                }
            }
        };
        let mut replacement: Vec<Line> = Vec::new();
        let mut pos = at;
        for line in body {
            match line {
                HunkLine::Context(_) => {
                    if let Some(existing) = lines.get(pos) {
                        replacement.push(Line {
                            text: existing.text.clone(),
                            eol: Some(preferred),
                        });
                    }
                    pos += 1;
                }
                HunkLine::Remove(_) => pos += 1,
                HunkLine::Add(text) => replacement.push(Line {
                    text: text.clone(),
                    eol: Some(preferred),
                }),
            }
        }
        let inserted = replacement.len();
        lines.splice(at..pos.min(lines.len()), replacement);
        cursor = at + inserted;
    }
    let mut out = String::with_capacity(content.len());
    for line in &lines {
        out.push_str(&line.text);
        out.push_str(line.eol.unwrap_or(preferred).as_str());
    }
    Ok(out)
}

fn after_line(cursor: usize) -> String {
    if cursor == 0 {
        String::new()
    } else {
        format!(" after line {cursor}")
    }
}

/// Drops the last old line (context or removal) when it is empty, and a trailing empty
/// added line with it, the way the reference tool retries.
fn trim_trailing_empty_old(body: &mut Vec<&HunkLine>) {
    if let Some(idx) = body
        .iter()
        .rposition(|l| matches!(l, HunkLine::Context(_) | HunkLine::Remove(_)))
    {
        let was_context = matches!(body[idx], HunkLine::Context(_));
        body.remove(idx);
        if !was_context
            && let Some(add) = body.iter().rposition(|l| matches!(l, HunkLine::Add(_)))
            && matches!(body[add], HunkLine::Add(t) if t.is_empty())
        {
            body.remove(add);
        }
    }
}

fn split_lines(content: &str) -> (Vec<Line>, Eol) {
    let mut lines = Vec::new();
    let mut preferred = None;
    let mut rest = content;
    while let Some(nl) = rest.find('\n') {
        let raw = &rest[..nl];
        let (text, eol) = match raw.strip_suffix('\r') {
            Some(t) => (t, Eol::CrLf),
            None => (raw, Eol::Lf),
        };
        preferred.get_or_insert(eol);
        lines.push(Line {
            text: text.to_string(),
            eol: Some(eol),
        });
        rest = &rest[nl + 1..];
    }
    if !rest.is_empty() {
        lines.push(Line {
            text: rest.to_string(),
            eol: None,
        });
    }
    (lines, preferred.unwrap_or(Eol::Lf))
}

/// Finds `pattern` in `lines` at or after `start` (only at the very end when `eof`), trying
/// each strictness level over the whole range before relaxing.
fn seek(lines: &[&str], pattern: &[&str], start: usize, eof: bool) -> Option<usize> {
    if pattern.is_empty() {
        return Some(start);
    }
    if pattern.len() > lines.len() {
        return None;
    }
    let last_start = lines.len() - pattern.len();
    let first = if eof { last_start } else { start };
    if first > last_start {
        return None;
    }
    let levels: [fn(&str, &str) -> bool; 4] = [
        |a, b| a == b,
        |a, b| a.trim_end() == b.trim_end(),
        |a, b| a.trim() == b.trim(),
        |a, b| normalized(a).eq(normalized(b)),
    ];
    levels.iter().find_map(|same| {
        (first..=last_start).find(|&i| {
            pattern
                .iter()
                .zip(&lines[i..i + pattern.len()])
                .all(|(p, l)| same(l, p))
        })
    })
}

/// Trimmed text with typographic punctuation mapped to ASCII.
fn normalized(s: &str) -> impl Iterator<Item = char> + '_ {
    s.trim().chars().map(|c| match c {
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' => '-',
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{00A0}' | '\u{2002}' | '\u{2003}' | '\u{2004}' | '\u{2005}' | '\u{2006}'
        | '\u{2007}' | '\u{2008}' | '\u{2009}' | '\u{200A}' | '\u{202F}' | '\u{205F}'
        | '\u{3000}' => ' ',
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse::PatchOp;
    use super::super::parse::parse_patch;
    use super::*;

    fn hunks(patch_body: &str) -> Vec<Hunk> {
        let text = format!("*** Begin Patch\n*** Update File: f\n{patch_body}*** End Patch\n");
        match parse_patch(&text).unwrap().remove(0) {
            PatchOp::Update { hunks, .. } => hunks,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn keeps_each_lines_ending_and_uses_the_first_for_new_lines() {
        let out = apply_hunks("a\r\nb\nc\r\n", &hunks("@@\n a\n-b\n+B\n+B2\n c\n")).unwrap();
        assert_eq!(out, "a\r\nB\r\nB2\r\nc\r\n");
    }

    #[test]
    fn context_lines_take_the_preferred_ending_and_lines_outside_keep_theirs() {
        // Preferred: LF (the first ending). `b` is context in the hunk, `d` is outside it.
        let out = apply_hunks("a\nb\r\nc\nd\r\n", &hunks("@@\n b\n-c\n+C\n")).unwrap();
        assert_eq!(out, "a\nb\nC\nd\r\n");
        // A lone CR ends no line: the whole `\r` file is one line, and gets an ending.
        let out = apply_hunks("x\ry\rz", &hunks("@@\n+w\n")).unwrap();
        assert_eq!(out, "x\ry\rz\nw\n");
    }

    #[test]
    fn context_lines_keep_the_files_text_when_matched_loosely() {
        let out = apply_hunks(
            "x = \u{201C}hi\u{201D}  \ny\n",
            &hunks("@@\n x = \"hi\"\n-y\n+z\n"),
        )
        .unwrap();
        assert_eq!(out, "x = \u{201C}hi\u{201D}  \nz\n");
    }

    #[test]
    fn trailing_whitespace_and_indentation_differences_still_match() {
        let out = apply_hunks("    a   \n\tb\n", &hunks("@@\n-a\n-b\n+c\n")).unwrap();
        assert_eq!(out, "c\n");
    }

    #[test]
    fn end_of_file_hunks_match_only_at_the_end() {
        let content = "x\nend\nx\nend\n";
        let out = apply_hunks(content, &hunks("@@\n x\n-end\n+END\n*** End of File\n")).unwrap();
        assert_eq!(out, "x\nend\nx\nEND\n");
        let err = apply_hunks("end\nx\n", &hunks("@@\n-end\n+END\n*** End of File\n")).unwrap_err();
        assert!(
            err.message.contains("at the end of the file"),
            "{}",
            err.message
        );
    }

    #[test]
    fn anchors_move_the_search_forward() {
        let content = "fn a() {\n    x\n}\nfn b() {\n    x\n}\n";
        let out = apply_hunks(content, &hunks("@@ fn b() {\n-    x\n+    y\n")).unwrap();
        assert_eq!(out, "fn a() {\n    x\n}\nfn b() {\n    y\n}\n");
    }

    #[test]
    fn pure_insertion_after_an_anchor() {
        let out = apply_hunks("class A:\n    pass\n", &hunks("@@ class A:\n+    x = 1\n")).unwrap();
        assert_eq!(out, "class A:\n    x = 1\n    pass\n");
    }

    #[test]
    fn missing_lines_are_quoted_in_the_error() {
        let err = apply_hunks("a\nb\n", &hunks("@@\n-a\n+A\n@@\n-zzz\n+Z\n")).unwrap_err();
        assert_eq!(err.hunk, 2);
        assert_eq!(err.patch_line, 6);
        assert_eq!(
            err.message,
            "these lines were not found after line 1:\n    zzz"
        );
    }

    /// The line endings a generated file mixes.
    const ENDINGS: [&str; 3] = ["\n", "\r\n", "\r"];

    /// A file's reference lines: split at `\n`, a `\r` before it belonging to the ending.
    /// Each is (start byte, text, ending) — an independent statement of the rule under test.
    fn reference_lines(file: &str) -> Vec<(usize, &str, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        while start < file.len() {
            let (body_end, next) = match file[start..].find('\n') {
                Some(i) => (start + i, start + i + 1),
                None => (file.len(), file.len()),
            };
            let (text_end, ending) = if next == body_end {
                (body_end, "")
            } else if file[start..body_end].ends_with('\r') {
                (body_end - 1, "\r\n")
            } else {
                (body_end, "\n")
            };
            out.push((start, &file[start..text_end], ending));
            start = next;
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// For files mixing LF, CRLF and lone CR in any order (each kind alone included), a
        /// hunk rewrites exactly the lines it spans, with the file's first ending; every other
        /// byte stays.
        #[test]
        fn endings_of_every_kind_and_mixture_follow_the_reference(
            units in proptest::collection::vec(0usize..3, 1..12),
            unterminated in proptest::bool::ANY,
            pick in 0usize..64,
            form in 0usize..3,
        ) {
            // Unique line texts, so each hunk matches in one place only.
            let mut file = String::new();
            for (i, kind) in units.iter().enumerate() {
                file.push_str(&format!("l{i}"));
                if !(unterminated && i + 1 == units.len()) {
                    file.push_str(ENDINGS[*kind]);
                }
            }
            let lines = reference_lines(&file);
            let preferred = lines
                .iter()
                .map(|l| l.2)
                .find(|e| !e.is_empty())
                .unwrap_or("\n");
            let k = pick % lines.len();
            // The span [first, last] the hunk covers and what it writes there.
            let (body, first, last, new): (String, usize, usize, Vec<String>) =
                match (form, lines.get(k + 1)) {
                    (1, Some(next)) => (
                        format!("@@\n {}\n-{}\n+NEW\n", lines[k].1, next.1),
                        k,
                        k + 1,
                        vec![lines[k].1.to_string(), "NEW".into()],
                    ),
                    (2, _) => (
                        format!("@@\n-{}\n+NEW\n+NEW2\n", lines[k].1),
                        k,
                        k,
                        vec!["NEW".into(), "NEW2".into()],
                    ),
                    _ => (format!("@@\n-{}\n+NEW\n", lines[k].1), k, k, vec!["NEW".into()]),
                };
            let out = apply_hunks(&file, &hunks(&body)).unwrap();
            let span_start = lines[first].0;
            let span_end = lines
                .get(last + 1)
                .map_or(file.len(), |l| l.0);
            let mut expected = file[..span_start].to_string();
            for text in &new {
                expected.push_str(text);
                expected.push_str(preferred);
            }
            expected.push_str(&file[span_end..]);
            if !expected.ends_with('\n') {
                expected.push_str(preferred);
            }
            proptest::prop_assert_eq!(out, expected, "file {:?}, hunk {:?}", file, body);
        }
    }
}
