//! Parsing the `*** Begin Patch` … `*** End Patch` envelope.
//!
//! The format (as used by Codex-family agents):
//! ```text
//! *** Begin Patch
//! *** Add File: path          then every content line prefixed with `+`
//! *** Delete File: path
//! *** Update File: path
//! *** Move to: new/path       optional, right after Update File
//! @@ optional anchor line     then ` ` context, `-` removed, `+` added lines
//! *** End of File             optional: the hunk ends at the end of the file
//! *** End Patch
//! ```
//! Leniencies, each seen in real model output: whitespace around marker lines, blank lines
//! between operations and hunks, a first hunk without `@@`, unified-diff hunk headers
//! (`@@ -3,4 +3,5 @@`, whose numbers are ignored), CRLF transport, and the whole patch wrapped
//! in a `<<'EOF'` heredoc.

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE_TO: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// One file operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PatchOp {
    /// Create (or overwrite) a file.
    Add {
        /// Path as written in the patch.
        path: String,
        /// Full content (every `+` line plus a newline).
        content: String,
        /// 1-based line of the header in the patch.
        line: usize,
    },
    /// Delete a file.
    Delete {
        /// Path as written in the patch.
        path: String,
        /// 1-based line of the header in the patch.
        line: usize,
    },
    /// Change a file in place, optionally moving it.
    Update {
        /// Path as written in the patch.
        path: String,
        /// Destination of a move.
        move_to: Option<String>,
        /// Hunks in file order.
        hunks: Vec<Hunk>,
        /// 1-based line of the header in the patch.
        line: usize,
    },
}

impl PatchOp {
    /// The patch line of the operation's header.
    pub(crate) fn line(&self) -> usize {
        match self {
            PatchOp::Add { line, .. }
            | PatchOp::Delete { line, .. }
            | PatchOp::Update { line, .. } => *line,
        }
    }

    /// "Update File `a.txt`" for messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            PatchOp::Add { path, .. } => format!("Add File `{path}`"),
            PatchOp::Delete { path, .. } => format!("Delete File `{path}`"),
            PatchOp::Update { path, .. } => format!("Update File `{path}`"),
        }
    }
}

/// One `@@` hunk of an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk {
    /// The `@@ <anchor>` line: the hunk applies after the first line matching it.
    pub(crate) anchor: Option<String>,
    /// Body lines in order.
    pub(crate) lines: Vec<HunkLine>,
    /// `*** End of File`: the old lines must be the last lines of the file.
    pub(crate) end_of_file: bool,
    /// 1-based patch line where the hunk starts.
    pub(crate) line: usize,
}

impl Hunk {
    /// The lines the hunk expects in the file (context and removed).
    pub(crate) fn old_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(t) | HunkLine::Remove(t) => Some(t.as_str()),
                HunkLine::Add(_) => None,
            })
            .collect()
    }
}

/// One body line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HunkLine {
    /// ` text`: must be present, kept.
    Context(String),
    /// `-text`: must be present, removed.
    Remove(String),
    /// `+text`: inserted.
    Add(String),
}

/// Parses a patch into operations.
///
/// # Errors
/// A message naming the patch line and what was expected there.
pub(crate) fn parse_patch(text: &str) -> Result<Vec<PatchOp>, String> {
    let lines: Vec<&str> = text
        .trim()
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let body = envelope(&lines)?;
    // Line numbers are 1-based in the trimmed patch text.
    let first_line = body.start + 1;
    let body_lines = &lines[body.start..body.end];
    let mut ops = Vec::new();
    let mut i = 0;
    while i < body_lines.len() {
        let raw = body_lines[i];
        let line_no = first_line + i;
        let header = raw.trim();
        if header.is_empty() {
            i += 1;
            continue;
        }
        if let Some(path) = header.strip_prefix(ADD) {
            let path = non_empty_path(path, line_no)?;
            let mut content = String::new();
            i += 1;
            while let Some(rest) = body_lines.get(i).and_then(|l| l.strip_prefix('+')) {
                content.push_str(rest);
                content.push('\n');
                i += 1;
            }
            ops.push(PatchOp::Add {
                path,
                content,
                line: line_no,
            });
        } else if let Some(path) = header.strip_prefix(DELETE) {
            let path = non_empty_path(path, line_no)?;
            ops.push(PatchOp::Delete {
                path,
                line: line_no,
            });
            i += 1;
        } else if let Some(path) = header.strip_prefix(UPDATE) {
            let path = non_empty_path(path, line_no)?;
            i += 1;
            let mut move_to = None;
            if let Some(dest) = body_lines
                .get(i)
                .and_then(|l| l.trim().strip_prefix(MOVE_TO))
            {
                move_to = Some(non_empty_path(dest, first_line + i)?);
                i += 1;
            }
            let (hunks, next) = parse_hunks(body_lines, i, first_line)?;
            if hunks.is_empty() {
                return Err(format!(
                    "line {line_no}: `*** Update File: {path}` has no hunks; add `@@` hunks with \
                     ` ` context, `-` removed and `+` added lines (or use `*** Delete File`)."
                ));
            }
            i = next;
            ops.push(PatchOp::Update {
                path,
                move_to,
                hunks,
                line: line_no,
            });
        } else {
            return Err(format!(
                "line {line_no}: `{header}` is not a file operation; expected `*** Add File: \
                 <path>`, `*** Delete File: <path>` or `*** Update File: <path>`."
            ));
        }
    }
    if ops.is_empty() {
        return Err("the patch contains no file operations, so nothing was changed.".to_string());
    }
    Ok(ops)
}

struct Body {
    /// First body line index.
    start: usize,
    /// One past the last body line index.
    end: usize,
}

fn envelope(lines: &[&str]) -> Result<Body, String> {
    let is_begin = |l: &str| l.trim() == BEGIN;
    let is_end = |l: &str| l.trim() == END;
    match lines {
        [first, .., last] if is_begin(first) && is_end(last) => Ok(Body {
            start: 1,
            end: lines.len() - 1,
        }),
        // `<<'EOF'` … `EOF`, left over from a shell heredoc.
        [first, second, .., before_last, last]
            if matches!(first.trim(), "<<EOF" | "<<'EOF'" | "<<\"EOF\"")
                && last.trim().ends_with("EOF")
                && is_begin(second)
                && is_end(before_last) =>
        {
            Ok(Body {
                start: 2,
                end: lines.len() - 2,
            })
        }
        [first, ..] if !is_begin(first) => Err(format!(
            "the first line of the patch must be `{BEGIN}`, not `{}`.",
            first.trim()
        )),
        _ => Err(format!("the last line of the patch must be `{END}`.")),
    }
}

fn non_empty_path(path: &str, line_no: usize) -> Result<String, String> {
    let path = path.trim();
    if path.is_empty() {
        Err(format!("line {line_no}: the file path is missing."))
    } else {
        Ok(path.to_string())
    }
}

/// Parses the hunks of an update starting at `i`; returns them and the index after them.
fn parse_hunks(
    lines: &[&str],
    mut i: usize,
    first_line: usize,
) -> Result<(Vec<Hunk>, usize), String> {
    let mut hunks: Vec<Hunk> = Vec::new();
    while i < lines.len() {
        let raw = lines[i];
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            // Blank lines between hunks; inside a hunk they are consumed as empty context.
            i += 1;
            continue;
        }
        if raw.starts_with("***") || trimmed.starts_with("*** ") {
            break;
        }
        let line_no = first_line + i;
        let anchor = if let Some(rest) = trimmed.strip_prefix("@@") {
            i += 1;
            Some(hunk_anchor(rest))
        } else if hunks.is_empty() {
            // The first hunk may start directly with body lines.
            None
        } else {
            return Err(format!(
                "line {line_no}: expected a `@@` hunk header or the next `***` operation, found \
                 `{raw}`; every hunk line starts with ` ` (context), `-` (removed) or `+` (added)."
            ));
        };
        let mut hunk = Hunk {
            anchor: anchor.flatten(),
            lines: Vec::new(),
            end_of_file: false,
            line: line_no,
        };
        while i < lines.len() {
            let raw = lines[i];
            if raw.trim() == END_OF_FILE {
                hunk.end_of_file = true;
                i += 1;
                break;
            }
            let parsed = match raw.chars().next() {
                None => HunkLine::Context(String::new()),
                Some(' ') => HunkLine::Context(raw[1..].to_string()),
                Some('-') => HunkLine::Remove(raw[1..].to_string()),
                Some('+') => HunkLine::Add(raw[1..].to_string()),
                Some(_) => break,
            };
            hunk.lines.push(parsed);
            i += 1;
        }
        if hunk.lines.is_empty() {
            let at = first_line + i;
            return Err(format!(
                "line {line_no}: the hunk has no lines; expected ` ` context, `-` removed or `+` \
                 added lines before line {at}."
            ));
        }
        // A blank line right before the next operation (or the end) separates; it is not
        // context.
        if matches!(hunk.lines.last(), Some(HunkLine::Context(t)) if t.is_empty())
            && lines.get(i.wrapping_sub(1)).is_some_and(|l| l.is_empty())
            && lines
                .get(i)
                .is_none_or(|l| l.trim_start().starts_with("***"))
            && hunk.lines.len() > 1
        {
            hunk.lines.pop();
        }
        hunks.push(hunk);
    }
    Ok((hunks, i))
}

/// The anchor after `@@`: `None` for a bare `@@` or a unified-diff range header.
fn hunk_anchor(rest: &str) -> Option<String> {
    let rest = rest.trim();
    if rest.is_empty() {
        return None;
    }
    // `@@ -12,5 +12,6 @@ fn name()`: keep only what follows the second `@@`.
    if rest.starts_with('-')
        && let Some((range, tail)) = rest.split_once("@@")
        && range.trim().split(' ').all(|p| {
            p.starts_with(['-', '+'])
                && p[1..]
                    .split(',')
                    .all(|n| n.chars().all(|c| c.is_ascii_digit()))
        })
    {
        let tail = tail.trim();
        return if tail.is_empty() {
            None
        } else {
            Some(tail.to_string())
        };
    }
    Some(rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_operation_kind() {
        let ops = parse_patch(
            "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** Delete File: b.txt\n\
             *** Update File: c.txt\n*** Move to: d.txt\n@@ fn main()\n ctx\n-old\n+new\n\
             *** End of File\n*** End Patch\n",
        )
        .unwrap();
        assert_eq!(ops.len(), 3);
        assert_eq!(
            ops[0],
            PatchOp::Add {
                path: "a.txt".into(),
                content: "one\ntwo\n".into(),
                line: 2
            }
        );
        assert_eq!(
            ops[1],
            PatchOp::Delete {
                path: "b.txt".into(),
                line: 5
            }
        );
        let PatchOp::Update {
            path,
            move_to,
            hunks,
            line,
        } = &ops[2]
        else {
            panic!()
        };
        assert_eq!(
            (path.as_str(), move_to.as_deref(), *line),
            ("c.txt", Some("d.txt"), 6)
        );
        assert_eq!(hunks[0].anchor.as_deref(), Some("fn main()"));
        assert!(hunks[0].end_of_file);
        assert_eq!(
            hunks[0].lines,
            vec![
                HunkLine::Context("ctx".into()),
                HunkLine::Remove("old".into()),
                HunkLine::Add("new".into())
            ]
        );
    }

    #[test]
    fn unified_diff_range_headers_carry_no_anchor() {
        assert_eq!(hunk_anchor(" -3,4 +3,5 @@"), None);
        assert_eq!(hunk_anchor(" -3,4 +3,5 @@ fn x()"), Some("fn x()".into()));
        assert_eq!(hunk_anchor(" class Foo"), Some("class Foo".into()));
    }

    #[test]
    fn heredoc_wrapping_and_crlf_transport_are_accepted() {
        let ops = parse_patch(
            "<<'EOF'\r\n*** Begin Patch\r\n*** Delete File: x\r\n*** End Patch\r\nEOF\r\n",
        )
        .unwrap();
        assert_eq!(
            ops,
            vec![PatchOp::Delete {
                path: "x".into(),
                line: 3
            }]
        );
    }

    #[test]
    fn errors_name_the_line() {
        let err =
            parse_patch("*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch").unwrap_err();
        assert!(
            err.starts_with("line 2: `*** Frobnicate File: foo` is not a file operation"),
            "{err}"
        );
        let err = parse_patch("*** Update File: foo\n*** End Patch").unwrap_err();
        assert!(
            err.contains("first line of the patch must be `*** Begin Patch`"),
            "{err}"
        );
        let err = parse_patch("*** Begin Patch\n*** Update File: foo\n*** End Patch").unwrap_err();
        assert!(err.contains("has no hunks"), "{err}");
        let err = parse_patch("*** Begin Patch\n*** Update File: f\n@@\n-a\n@@\n*** End Patch")
            .unwrap_err();
        assert!(err.starts_with("line 5: the hunk has no lines"), "{err}");
        let err = parse_patch("*** Begin Patch\n*** End Patch").unwrap_err();
        assert!(err.contains("no file operations"), "{err}");
    }
}
