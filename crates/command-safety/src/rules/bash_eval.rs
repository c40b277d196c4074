//! Code bash finds inside strings: an array subscript is arithmetic, and bash expands
//! `$(…)`, `` `…` `` and `$x` inside it when it evaluates the subscript, even when the text
//! came from a single-quoted literal or a variable's value (`test -v 'a[$(rm -r x)]'`,
//! `printf -v 'a[$(…)]'`, `read 'a[$(…)]'`, `x='a[$(…)]'; echo $((x))`, `${!x}`). Prompt
//! expansion (`${x@P}`) runs the substitutions in a value too.
//!
//! The check is on the whole line: when some literal text holds a subscript with an
//! expansion in it, and the line has any place where bash evaluates names or arithmetic, the
//! line is Dangerous. Both are read from the syntax tree with a cursor (no recursion).

use tree_sitter::Node;

/// Commands that take variable names or arithmetic as arguments.
const EVALUATING_COMMANDS: &[&str] = &[
    "test",
    "[",
    "let",
    "printf",
    "read",
    "mapfile",
    "readarray",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "unset",
    "getopts",
    "wait",
    "eval",
    "source",
    ".",
];

/// Node kinds where bash evaluates arithmetic or variable names.
const EVALUATING_NODES: &[&str] = &[
    "arithmetic_expansion",
    "c_style_for_statement",
    "subscript",
    "test_command",
    "declaration_command",
    "unset_command",
];

/// Whether text bash may evaluate holds a subscript with an expansion (`a[$(…)]`, `a[$x]`).
pub(crate) fn holds_subscript_code(text: &str) -> bool {
    text.find('[')
        .is_some_and(|at| text[at..].contains(['$', '`']))
}

/// The reason when the tree under `root` (of `src`) has code that bash evaluates inside a
/// string, or prompt expansion of a value.
pub(crate) fn evaluated_in_strings(src: &str, root: Node<'_>) -> Option<String> {
    let text = |n: Node<'_>| n.utf8_text(src.as_bytes()).unwrap_or("");
    let mut latent: Option<String> = None;
    let mut evaluates = false;
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        match node.kind() {
            "raw_string" | "string_content" | "heredoc_body" | "heredoc_content"
            | "ansi_c_string" | "word"
                if latent.is_none() && holds_subscript_code(text(node)) =>
            {
                // A plain word `a[$x]` is a subscript the grammar already shows; only text
                // whose `$` the shell did not expand counts as latent.
                if node.kind() != "word" || text(node).contains("\\$") {
                    latent = Some(text(node).to_string());
                }
            }
            "expansion" => {
                let t = text(node);
                if t.contains("@P") {
                    return Some(format!(
                        "`{t}` expands the value as a prompt, running the substitutions in it"
                    ));
                }
                evaluates |= t.starts_with("${!") || t.contains('[');
            }
            "command_name" => evaluates |= EVALUATING_COMMANDS.contains(&text(node)),
            "compound_statement" => evaluates |= text(node).starts_with("(("),
            kind => evaluates |= EVALUATING_NODES.contains(&kind),
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return match (latent, evaluates) {
                    (Some(code), true) => Some(format!(
                        "bash evaluates the subscript in `{code}` as code, running what is in it"
                    )),
                    _ => None,
                };
            }
        }
    }
}
