//! Finding the action in a swe-agent reply's text.
//!
//! The forms, in the order they are tried (the anchor, openinterpreter 0.0.40
//! `codex-rs/core/src/harness/swe_agent.rs` and its tests):
//! 1. `<tool_invoke>` blocks naming `execute_bash` (or `bash`), the command in `<code>`;
//! 2. `<invoke name="…">` blocks (double, single or no quotes around the name): for `bash` /
//!    `execute_bash` the command is in `<parameter name="command">` (which may itself contain
//!    `<parameter>` text) or in a `<command>` tag; `str_replace_editor` takes its arguments from
//!    the `<parameter>` tags; `submit` needs none;
//! 3. an `<execute_bash>` tag, optionally wrapping a `<code>` tag;
//! 4. a fenced code block, by CommonMark's fence rules (spec 0.31, "Fenced code blocks"): an
//!    opening fence is three or more backticks or tildes indented at most three spaces (a
//!    backtick fence's info string has no backtick); the block ends at a line of the same
//!    character, at least as long, indented at most three spaces, with only spaces or tabs
//!    after; content lines lose up to as many leading spaces as the opening fence had. So a
//!    command that itself contains fenced text (a heredoc writing a README, say) comes out
//!    whole when its fence is longer (or of the other character) than the ones inside, as
//!    any Markdown reader would show it. The **last** closed block whose language (the info
//!    string's first word) is a shell's (`bash`, `sh`, `shell`, or none) is the action; a
//!    `python` block is an example, and a block the reply did not close is not an action.
//!    (Block quotes and list items are not containers here: a fence inside them counts as
//!    if it stood alone.)
//!
//! XML entities are decoded in the XML forms only: inside a fence, `&amp;` is shell text. Other
//! function-call dialects (`<function=bash>…`) are deliberately not actions here, as in the
//! anchor; a provider that leaks those is handled by [`crate::recovery`].
//!
//! Then the command is classified the way SWE-agent's tool bundles see a command line:
//! `submit` is the submit tool, `str_replace_editor …` the editor tool (its command line parsed
//! with shell quoting, flags `--file_text`, `--old_str`, `--new_str`, `--insert_line`,
//! `--view_range`), anything else a shell command.

use serde_json::{Map, Value};

use crate::harnesses::text_protocol::decode_entities;

/// What a reply asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    /// A shell command line.
    Shell(String),
    /// A `str_replace_editor` call; the arguments object in the tool's own schema, or why the
    /// command line could not be read.
    Editor(Result<Map<String, Value>, String>),
    /// The `submit` tool.
    Submit,
}

/// Finds and classifies the action in `text`; `None` when the reply has none.
pub(crate) fn parse(text: &str) -> Option<Action> {
    if let Some(command) = tool_invoke(text) {
        return classify(&command);
    }
    if let Some(action) = invoke(text) {
        return Some(action);
    }
    if let Some(command) = execute_bash_tag(text) {
        return classify(&command);
    }
    fenced(text).and_then(|c| classify(&c))
}

/// Classifies a command line; `None` when it is blank.
pub(crate) fn classify(command: &str) -> Option<Action> {
    let command = command.trim();
    if command.is_empty() {
        return None;
    }
    let mut words = command.split_whitespace();
    if words.next() == Some("submit") && words.all(|w| w.starts_with('-')) {
        return Some(Action::Submit);
    }
    if let Some(rest) = command.strip_prefix("str_replace_editor")
        && (rest.is_empty() || rest.starts_with(char::is_whitespace))
    {
        return Some(Action::Editor(editor_args(rest)));
    }
    Some(Action::Shell(command.to_string()))
}

/// Parses `<command> <path> [--flag value]…` of an editor command line.
fn editor_args(rest: &str) -> Result<Map<String, Value>, String> {
    let words = shell_words::split(rest).map_err(|e| format!("cannot read the arguments ({e})"))?;
    let mut words = words.into_iter();
    let mut args = Map::new();
    let command = words.next().ok_or_else(|| {
        "missing the subcommand (view, create, str_replace or insert)".to_string()
    })?;
    args.insert("command".into(), Value::String(command));
    let path = words.next().ok_or_else(|| "missing the path".to_string())?;
    args.insert("path".into(), Value::String(path));
    let mut words = words.peekable();
    while let Some(flag) = words.next() {
        let name = flag
            .strip_prefix("--")
            .ok_or_else(|| format!("unexpected argument `{flag}`"))?;
        match name {
            "file_text" | "old_str" | "new_str" => {
                let value = words
                    .next()
                    .ok_or_else(|| format!("`--{name}` needs a value"))?;
                args.insert(name.into(), Value::String(value));
            }
            "insert_line" => {
                let value = words
                    .next()
                    .ok_or_else(|| "`--insert_line` needs a line number".to_string())?;
                let n: u64 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("`--insert_line` must be a line number, got `{value}`"))?;
                args.insert(name.into(), Value::from(n));
            }
            "view_range" => {
                // `--view_range 1 20` (how the bundle formats the array) or `--view_range '[1, 20]'`.
                let first = words
                    .next()
                    .ok_or_else(|| "`--view_range` needs two line numbers".to_string())?;
                let mut numbers: Vec<i64> = first
                    .split(|c: char| !(c.is_ascii_digit() || c == '-'))
                    .filter(|s| !s.is_empty())
                    .filter_map(|s| s.parse().ok())
                    .collect();
                if numbers.len() < 2
                    && let Some(second) = words.next_if(|w| w.trim().parse::<i64>().is_ok())
                {
                    numbers.extend(second.trim().parse::<i64>().ok());
                }
                let [start, end] = numbers[..] else {
                    return Err(
                        "`--view_range` needs two line numbers, e.g. `--view_range 1 20`".into(),
                    );
                };
                args.insert(name.into(), Value::from(vec![start, end]));
            }
            other => return Err(format!("unknown flag `--{other}`")),
        }
    }
    Ok(args)
}

/// The text between `open` and the matching `close` at or after `from`, honouring nested
/// `open`s (so a parameter value may contain `<parameter>` text); `None` if unclosed.
fn balanced<'t>(text: &'t str, from: usize, open: &str, close: &str) -> Option<(&'t str, usize)> {
    let start = from;
    let mut depth = 1usize;
    let mut pos = from;
    loop {
        let next_close = text[pos..].find(close)? + pos;
        let next_open = text[pos..].find(open).map(|i| i + pos);
        match next_open {
            Some(o) if o < next_close => {
                depth += 1;
                pos = o + open.len();
            }
            _ => {
                depth -= 1;
                if depth == 0 {
                    return Some((&text[start..next_close], next_close + close.len()));
                }
                pos = next_close + close.len();
            }
        }
    }
}

/// The inner text of the first `<tag>…</tag>` in `text`.
fn tag<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let open = format!("<{name}>");
    let start = text.find(&open)? + open.len();
    balanced(text, start, &open, &format!("</{name}>")).map(|(inner, _)| inner)
}

fn tool_invoke(text: &str) -> Option<String> {
    let mut pos = 0;
    while let Some(i) = text[pos..].find("<tool_invoke>") {
        let start = pos + i + "<tool_invoke>".len();
        let (block, end) = balanced(text, start, "<tool_invoke>", "</tool_invoke>")?;
        let name = tag(block, "name").map(str::trim);
        if matches!(name, Some("execute_bash" | "bash"))
            && let Some(code) = tag(block, "code")
        {
            return Some(decode_entities(code));
        }
        pos = end;
    }
    None
}

/// `<invoke name="x">` → `x` and the offset after the `>`.
fn invoke_open(text: &str, at: usize) -> Option<(String, usize)> {
    let rest = &text[at + "<invoke".len()..];
    let close = rest.find('>')?;
    let attrs = rest[..close].trim();
    let value = attrs
        .strip_prefix("name")?
        .trim_start()
        .strip_prefix('=')?
        .trim();
    let name = value.trim_matches(|c| c == '"' || c == '\'').trim();
    Some((name.to_string(), at + "<invoke".len() + close + 1))
}

/// `<parameter name="x">value</parameter>` pairs at the top level of an invoke block.
fn parameters(block: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(i) = block[pos..].find("<parameter") {
        let at = pos + i;
        let Some(gt) = block[at..].find('>') else {
            break;
        };
        let head = &block[at + "<parameter".len()..at + gt];
        let body_start = at + gt + 1;
        let name = head
            .trim()
            .strip_prefix("name")
            .and_then(|r| r.trim_start().strip_prefix('='))
            .map(|v| {
                v.trim()
                    .trim_matches(|c| c == '"' || c == '\'')
                    .trim()
                    .to_string()
            });
        let Some((value, end)) = balanced(block, body_start, "<parameter", "</parameter>") else {
            break;
        };
        if let Some(name) = name {
            out.push((name, decode_entities(value)));
        }
        pos = end;
    }
    out
}

fn invoke(text: &str) -> Option<Action> {
    let mut pos = 0;
    while let Some(i) = text[pos..].find("<invoke") {
        let at = pos + i;
        let Some((name, body_start)) = invoke_open(text, at) else {
            pos = at + 1;
            continue;
        };
        let (block, end) = balanced(text, body_start, "<invoke", "</invoke>")?;
        let params = parameters(block);
        match name.as_str() {
            "bash" | "execute_bash" => {
                let command = params
                    .iter()
                    .find(|(k, _)| k == "command")
                    .map(|(_, v)| v.clone())
                    .or_else(|| tag(block, "command").map(decode_entities));
                if let Some(action) = command.as_deref().and_then(classify) {
                    return Some(action);
                }
            }
            "str_replace_editor" => {
                let mut args = Map::new();
                for (k, v) in params {
                    let value = match k.as_str() {
                        "insert_line" => v
                            .trim()
                            .parse::<u64>()
                            .map(Value::from)
                            .unwrap_or(Value::String(v)),
                        "view_range" => {
                            serde_json::from_str::<Value>(&v).unwrap_or(Value::String(v))
                        }
                        _ => Value::String(v),
                    };
                    args.insert(k, value);
                }
                return Some(Action::Editor(Ok(args)));
            }
            "submit" => return Some(Action::Submit),
            _ => {}
        }
        pos = end;
    }
    None
}

fn execute_bash_tag(text: &str) -> Option<String> {
    let inner = tag(text, "execute_bash")?;
    Some(decode_entities(tag(inner, "code").unwrap_or(inner)))
}

/// Languages whose fenced block is a shell command.
fn is_shell_language(lang: &str) -> bool {
    matches!(
        lang.to_ascii_lowercase().as_str(),
        "" | "bash" | "sh" | "shell"
    )
}

/// One fenced code block of a text, by CommonMark's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FencedBlock {
    /// The info string's first word (the language), possibly empty.
    pub(crate) lang: String,
    /// The content lines, each with its line end (the last one's only if the text had one),
    /// indentation removed as CommonMark does.
    pub(crate) content: String,
    /// Whether a closing fence ended it (else it ran to the end of the text).
    pub(crate) closed: bool,
}

/// A fence line: its indentation, character, run length and the rest of the line.
fn fence_line(line: &str) -> Option<(usize, u8, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let mark = *rest.as_bytes().first()?;
    if mark != b'`' && mark != b'~' {
        return None;
    }
    let run = rest.len() - rest.trim_start_matches(mark as char).len();
    (run >= 3).then(|| (indent, mark, run, &rest[run..]))
}

/// Every fenced code block of `text`, in order. Iterative, one pass over the lines.
pub(crate) fn fenced_blocks(text: &str) -> Vec<FencedBlock> {
    let mut blocks = Vec::new();
    // The open fence: (indentation, character, length, language), and its content so far.
    let mut open: Option<(usize, u8, usize, String)> = None;
    let mut content = String::new();
    for raw in text.split_inclusive('\n') {
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        match &open {
            None => {
                if let Some((indent, mark, run, info)) = fence_line(line)
                    && !(mark == b'`' && info.contains('`'))
                {
                    let lang = info.split_whitespace().next().unwrap_or("").to_string();
                    open = Some((indent, mark, run, lang));
                    content.clear();
                }
            }
            Some((indent, mark, run, lang)) => {
                let closes = fence_line(line).is_some_and(|(_, m, r, rest)| {
                    m == *mark && r >= *run && rest.trim_matches([' ', '\t']).is_empty()
                });
                if closes {
                    blocks.push(FencedBlock {
                        lang: lang.clone(),
                        content: std::mem::take(&mut content),
                        closed: true,
                    });
                    open = None;
                } else {
                    let strip = line.len() - line.trim_start_matches(' ').len();
                    content.push_str(&line[strip.min(*indent)..]);
                    if raw.ends_with('\n') {
                        content.push('\n');
                    }
                }
            }
        }
    }
    if let Some((_, _, _, lang)) = open {
        blocks.push(FencedBlock {
            lang,
            content,
            closed: false,
        });
    }
    blocks
}

/// The last closed shell-language fenced block (see the module docs).
fn fenced(text: &str) -> Option<String> {
    fenced_blocks(text)
        .into_iter()
        .rev()
        .find(|b| b.closed && is_shell_language(&b.lang))
        .map(|b| b.content.trim_end_matches('\n').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn shell(s: &str) -> Option<Action> {
        Some(Action::Shell(s.to_string()))
    }

    #[test]
    fn each_form_is_found() {
        assert_eq!(
            parse("DISCUSSION\nLook first.\n```\nls -a\n```\n"),
            shell("ls -a")
        );
        assert_eq!(
            parse("```bash\ngrep -rn foo .\n```"),
            shell("grep -rn foo .")
        );
        assert_eq!(
            parse("<execute_bash>\nls &amp;&amp; pwd\n</execute_bash>"),
            shell("ls && pwd")
        );
        assert_eq!(
            parse("<execute_bash><code>echo &lt;hi&gt;</code></execute_bash>"),
            shell("echo <hi>")
        );
        assert_eq!(
            parse("<tool_invoke><name>execute_bash</name><code>cat a.txt</code></tool_invoke>"),
            shell("cat a.txt")
        );
        assert_eq!(
            parse("<invoke name=\"bash\"><parameter name=\"command\">ls -l</parameter></invoke>"),
            shell("ls -l")
        );
        assert_eq!(
            parse("<invoke name='execute_bash'><command>pwd</command></invoke>"),
            shell("pwd")
        );
    }

    #[test]
    fn priority_prefers_xml_forms_over_fences() {
        let text = "```bash\nls\n```\n<execute_bash>pwd</execute_bash>";
        assert_eq!(parse(text), shell("pwd"));
    }

    #[test]
    fn a_parameter_value_may_contain_parameter_text() {
        let text = "<invoke name=\"bash\"><parameter name=\"command\">echo '<parameter name=\"x\">y</parameter>'</parameter></invoke>";
        assert_eq!(
            parse(text),
            shell("echo '<parameter name=\"x\">y</parameter>'")
        );
    }

    #[test]
    fn nested_fences_come_out_whole_and_the_last_shell_block_wins() {
        // A longer outer fence (or the other character) holds the inner one whole.
        for outer in ["````", "~~~"] {
            let text = format!(
                "Write the readme:\n{outer}bash\ncat <<'EOF' > README.md\n```python\nprint(1)\n```\nEOF\n{outer}\n"
            );
            assert_eq!(
                parse(&text),
                shell("cat <<'EOF' > README.md\n```python\nprint(1)\n```\nEOF"),
                "{outer}"
            );
        }
        // Same length: the inner bare fence closes the block, as every Markdown reader shows
        // it; the trailing fence opens a block the reply never closes.
        let text = "```bash\ncat <<'EOF' > README.md\n```python\nprint(1)\n```\nEOF\n```\n";
        assert_eq!(
            parse(text),
            shell("cat <<'EOF' > README.md\n```python\nprint(1)")
        );
        let two = "```bash\nls\n```\nthen\n```sh\npwd\n```";
        assert_eq!(parse(two), shell("pwd"));
    }

    #[test]
    fn fence_rules_indentation_length_and_info_strings() {
        // Up to three spaces of indentation, removed from the content as far as it goes.
        assert_eq!(parse("  ```bash\n  ls\n    pwd\n  ```"), shell("ls\n  pwd"));
        // Four spaces: not a fence.
        assert_eq!(parse("    ```bash\n    ls\n    ```"), None);
        // A closing fence may be longer, never shorter, and only whitespace may follow it.
        assert_eq!(parse("````\nls\n```\n`````  \n"), shell("ls\n```"));
        assert_eq!(parse("```\nls\n``` x\n```"), shell("ls\n``` x"));
        // Tildes close only tildes.
        assert_eq!(parse("~~~sh\nls\n```\n~~~"), shell("ls\n```"));
        // A backtick in a backtick fence's info string: not a fence (inline code).
        assert_eq!(parse("```ba`sh\nls\n```"), None);
        // The language is the info string's first word.
        assert_eq!(parse("```bash title=x\nls\n```"), shell("ls"));
        assert_eq!(parse("```python3 x\nls\n```"), None);
    }

    #[test]
    fn a_python_fence_is_not_an_action() {
        assert_eq!(parse("```python\nprint('hi')\n```"), None);
        assert_eq!(
            parse("```python\nx = 1\n```\n```bash\npython x.py\n```"),
            shell("python x.py")
        );
        assert_eq!(
            parse("```bash\nls\n```\n```python\nprint(1)\n```"),
            shell("ls")
        );
    }

    #[test]
    fn unclosed_or_empty_blocks_and_other_dialects_are_not_actions() {
        assert_eq!(parse("```bash\nls -la\n"), None);
        assert_eq!(parse("```\n   \n```"), None);
        assert_eq!(parse("I'm done."), None);
        assert_eq!(
            parse("<function=bash><parameter=command>ls</parameter></function>"),
            None
        );
    }

    #[test]
    fn fences_are_not_xml_decoded() {
        assert_eq!(parse("```\necho '&amp;'\n```"), shell("echo '&amp;'"));
    }

    #[test]
    fn submit_and_editor_commands_are_classified() {
        assert_eq!(parse("```\nsubmit\n```"), Some(Action::Submit));
        assert_eq!(
            parse("<invoke name=\"submit\"></invoke>"),
            Some(Action::Submit)
        );
        assert_eq!(classify("submitted"), shell("submitted"));
        let Some(Action::Editor(Ok(args))) = parse(
            "```\nstr_replace_editor str_replace /r/a.py --old_str 'x = 1' --new_str \"x = 2\"\n```",
        ) else {
            panic!("not an editor call");
        };
        assert_eq!(
            Value::Object(args),
            serde_json::json!({"command": "str_replace", "path": "/r/a.py", "old_str": "x = 1", "new_str": "x = 2"})
        );
        let Some(Action::Editor(Ok(args))) =
            classify("str_replace_editor view /r/a.py --view_range 3 9")
        else {
            panic!();
        };
        assert_eq!(args["view_range"], serde_json::json!([3, 9]));
        let Some(Action::Editor(Ok(args))) =
            classify("str_replace_editor view /r --view_range '[1, -1]'")
        else {
            panic!();
        };
        assert_eq!(args["view_range"], serde_json::json!([1, -1]));
        assert!(matches!(
            classify("str_replace_editor create /x --file_text 'unclosed"),
            Some(Action::Editor(Err(_)))
        ));
        assert!(matches!(
            classify("str_replace_editor"),
            Some(Action::Editor(Err(_)))
        ));
        let Some(Action::Editor(Ok(args))) = parse(
            "<invoke name=\"str_replace_editor\"><parameter name=\"command\">insert</parameter><parameter name=\"path\">/a</parameter><parameter name=\"insert_line\">3</parameter><parameter name=\"new_str\">a &lt; b</parameter></invoke>",
        ) else {
            panic!();
        };
        assert_eq!(
            Value::Object(args),
            serde_json::json!({"command": "insert", "path": "/a", "insert_line": 3, "new_str": "a < b"})
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Fuzz: any text parses without panicking, and an action, when found, is never blank.
        #[test]
        fn never_panics_and_actions_are_not_blank(text in "(?s).{0,300}") {
            match parse(&text) {
                Some(Action::Shell(c)) => prop_assert!(!c.trim().is_empty()),
                Some(Action::Editor(_) | Action::Submit) | None => {}
            }
        }

        /// Fuzz with the syntax's own pieces, so the structural paths are actually exercised.
        #[test]
        fn never_panics_on_markup_soup(parts in proptest::collection::vec(prop_oneof![
            Just("```"), Just("```bash\n"), Just("```python\n"), Just("\n"), Just("<invoke name=\"bash\">"),
            Just("</invoke>"), Just("<parameter name=\"command\">"), Just("</parameter>"), Just("<execute_bash>"),
            Just("</execute_bash>"), Just("<code>"), Just("</code>"), Just("<tool_invoke>"), Just("</tool_invoke>"),
            Just("<name>execute_bash</name>"), Just("&amp;"), Just("&#x"), Just("ls -la"), Just("submit"),
            Just("str_replace_editor view /a"), Just("'"), Just("é"),
        ], 0..40)) {
            let text: String = parts.concat();
            let _ = parse(&text);
        }

        /// Any shell command (without fence lines of its own) put in a bash fence with prose
        /// around it comes back exactly.
        #[test]
        fn a_fenced_command_round_trips(
            before in "[a-zA-Z .,]{0,40}",
            command in "[a-z0-9 ./|&;<>'\"$-]{1,40}(\n[a-z0-9 ./|&;-]{1,30}){0,3}",
            after in "[a-zA-Z .,]{0,40}",
        ) {
            prop_assume!(!command.trim().is_empty());
            prop_assume!(!command.trim().starts_with("submit") && !command.trim().starts_with("str_replace_editor"));
            let text = format!("{before}\n```bash\n{command}\n```\n{after}");
            prop_assert_eq!(parse(&text), Some(Action::Shell(command.trim().to_string())));
        }

        /// A command containing its own fenced block (heredoc) still comes out whole when
        /// its fence is longer than the inner one, or of the other character.
        #[test]
        fn nested_fences_round_trip(
            lang in "(python|json|rust|text)",
            body in "[a-z =()0-9]{0,30}",
            inner in 3usize..5,
            tilde in any::<bool>(),
        ) {
            let inner = "`".repeat(inner);
            let command = format!("cat <<'EOF' > notes.md\n{inner}{lang}\n{body}\n{inner}\nEOF");
            let outer = if tilde { "~~~".to_string() } else { "`".repeat(inner.len() + 1) };
            let text = format!("Here:\n{outer}bash\n{command}\n{outer}\n");
            prop_assert_eq!(parse(&text), Some(Action::Shell(command)));
        }
    }

    /// The fenced blocks pulldown-cmark (the CommonMark reference behaviour) finds.
    fn oracle(text: &str) -> Vec<(String, String)> {
        use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
        let mut blocks = Vec::new();
        let mut current: Option<(String, String)> = None;
        for event in Parser::new(text) {
            match event {
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                    let lang = info.split_whitespace().next().unwrap_or("").to_string();
                    current = Some((lang, String::new()));
                }
                Event::Text(t) => {
                    if let Some((_, content)) = &mut current {
                        content.push_str(&t);
                    }
                }
                Event::End(TagEnd::CodeBlock) => {
                    if let Some(block) = current.take() {
                        blocks.push(block);
                    }
                }
                _ => {}
            }
        }
        blocks
    }

    /// Lines of documents that exercise the fence rules and nothing else of Markdown (no
    /// containers, headings, breaks or tabs, which these scanners do not model).
    fn line() -> impl Strategy<Value = String> {
        let fence = (
            0usize..5,
            prop_oneof![Just('`'), Just('~')],
            3usize..6,
            prop_oneof![
                Just(""),
                Just("bash"),
                Just("python"),
                Just("sh x=1"),
                Just("a`b"),
                Just("  "),
                Just(" x")
            ],
        )
            .prop_map(|(indent, c, n, info)| {
                format!("{}{}{info}", " ".repeat(indent), c.to_string().repeat(n))
            });
        prop_oneof![
            3 => fence,
            2 => Just(String::new()),
            2 => prop_oneof![Just("ls -la"), Just("echo hi"), Just("text here"), Just("  two"), Just("     five")]
                .prop_map(str::to_string),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Every fenced block, its language and its content, as CommonMark reads them.
        #[test]
        fn fenced_blocks_agree_with_commonmark(lines in proptest::collection::vec(line(), 0..14)) {
            let text = lines.join("\n");
            let ours: Vec<(String, String)> = fenced_blocks(&text)
                .into_iter()
                .map(|b| (b.lang, b.content))
                .collect();
            prop_assert_eq!(ours, oracle(&text), "{:?}", text);
        }
    }
}
