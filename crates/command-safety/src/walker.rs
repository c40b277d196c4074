//! The syntax walk: a command line parsed with tree-sitter-bash, every simple command,
//! redirection, pipeline, function and assignment in it turned into [`CommandPart`]s.
//!
//! The walk goes down the tree recursively, so its depth is bounded ([`MAX_DEPTH`]): a model
//! can write `$( $( $( … ) ) )` thousands deep, and a deeper line is judged Dangerous ("too
//! deeply nested to judge") instead of being walked.

use tree_sitter::{Node, Parser};

use crate::env::risky_variable;
use crate::reads::FILE_TESTS;
use crate::rules::*;
use crate::site::{PathItem, Site};
use crate::verdicts::*;
use crate::words::*;
use crate::{CommandClass, CommandPart};

/// How far `bash -c`, `eval` and heredoc scripts are followed.
pub(crate) const MAX_NESTING: usize = 8;

/// How deep the syntax tree of a command line may be, counting the trees of the scripts it
/// runs (`bash -c '…'`) on top of the tree they appear in. The walk recurses once (or a few
/// times) per level, so this bounds the stack it needs; real command lines stay far below.
pub(crate) const MAX_TREE_DEPTH: usize = 64;

/// How many run-on newlines ([`separate_run_on_command`]) are repaired before giving up.
const MAX_REPAIRS: usize = 64;

/// The reason for a line too deep to walk.
pub(crate) const TOO_DEEP: &str = "too deeply nested to judge: asks for approval";

/// `script` with the first newline that the parse put between two words of one command
/// replaced by `;` (see [`classify_script`]); `None` when the parse has no such command. A
/// newline escaped with a backslash is a line continuation and stays. Iterative: the tree
/// may be deep.
pub(crate) fn separate_run_on_command(script: &str, root: Node<'_>) -> Option<String> {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "command" {
            let mut cursor = node.walk();
            let words: Vec<_> = node.named_children(&mut cursor).collect();
            for pair in words.windows(2) {
                let gap = pair[0].end_byte()..pair[1].start_byte();
                let text = script.get(gap.clone()).unwrap_or("");
                if let Some(at) = text.find('\n')
                    && !text[..at].ends_with('\\')
                {
                    let mut repaired = script.to_string();
                    repaired.replace_range(gap.start + at..gap.start + at + 1, ";");
                    return Some(repaired);
                }
            }
        }
        // Children in reverse, so the first one in the source is looked at first.
        let mut cursor = node.walk();
        let children: Vec<_> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

/// The depth of the tree under `root`, at most `limit + 1`, walked with a cursor (no
/// recursion, whatever the depth).
fn tree_depth(root: Node<'_>, limit: usize) -> usize {
    let mut cursor = root.walk();
    let (mut depth, mut max) = (0usize, 0usize);
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            max = max.max(depth);
            if max > limit {
                return max;
            }
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return max;
            }
            depth = depth.saturating_sub(1);
        }
    }
}

/// How deep brackets (`(`, `{`, `[`) nest in `script`, read as plain text: quotes are not
/// told apart, so this over-counts at worst, and it never recurses.
fn bracket_depth(script: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in script.bytes() {
        match b {
            b'(' | b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The reason for a line the grammar could not parse within its budget.
pub(crate) const TOO_COMPLEX: &str =
    "too complex to parse within the classifier's budget: asks for approval";

/// How long one parse may take. The grammar is ambiguous in places: a pipeline of thousands of
/// stages takes tens of seconds, quadratic in its length, where any real command line takes
/// milliseconds. Only such a line ever meets this limit, so the verdict it gives (Dangerous,
/// [`TOO_COMPLEX`]) does not depend on the machine for any line a person would write.
const PARSE_BUDGET: std::time::Duration = std::time::Duration::from_millis(1_500);

/// Parses `script`, giving up (`None`) after [`PARSE_BUDGET`]. The parser reports progress
/// every hundred of its operations, which is where the clock is read.
fn parse_bounded(parser: &mut Parser, script: &str) -> Option<tree_sitter::Tree> {
    let start = std::time::Instant::now();
    let mut progress = |_: &tree_sitter::ParseState| start.elapsed() > PARSE_BUDGET;
    let bytes = script.as_bytes();
    parser.parse_with_options(
        &mut |at, _| bytes.get(at..).unwrap_or(&[]),
        None,
        Some(tree_sitter::ParseOptions::new().progress_callback(&mut progress)),
    )
}

/// Unquoted `|` characters beyond which a line is not parsed (see [`PARSE_BUDGET`]).
const MAX_PIPES: usize = 256;

/// How many `|` characters are outside quotes in `script` (heredoc text counts too, which
/// over-counts at worst).
fn unquoted_pipes(script: &str) -> usize {
    let mut pipes = 0;
    any_unquoted(script, |_, c, unquoted| {
        pipes += usize::from(unquoted && c == '|');
        false
    });
    pipes
}

/// Parses `script` and appends its parts. `depth` counts the scripts it is nested in
/// (`bash -c`), `levels` the tree levels of those scripts' trees (see [`MAX_TREE_DEPTH`]).
pub(crate) fn classify_script(
    script: &str,
    depth: usize,
    levels: usize,
    site: Option<&Site>,
    parts: &mut Vec<CommandPart>,
) {
    if depth > MAX_NESTING {
        parts.push(part(
            script,
            None,
            CommandClass::Mutating,
            "scripts nested too deeply to check",
        ));
        return;
    }
    // The grammar's error recovery takes seconds on thousands of unclosed brackets, so a line
    // nested that deep is refused before it is parsed.
    if levels + bracket_depth(script) > MAX_TREE_DEPTH {
        parts.push(part(script, None, CommandClass::Dangerous, TOO_DEEP));
        return;
    }
    // Its time on a pipeline grows with the square of the number of stages.
    if unquoted_pipes(script) > MAX_PIPES {
        parts.push(part(script, None, CommandClass::Dangerous, TOO_COMPLEX));
        return;
    }
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .is_err()
    {
        parts.push(part(
            script,
            None,
            CommandClass::Mutating,
            "the shell grammar could not be loaded",
        ));
        return;
    }
    // tree-sitter-bash sometimes runs a command on past a newline (`a | b | echo $(c)` then a
    // newline: the next line's words become `echo`'s arguments), which would hide what the
    // next line does. A newline between a command's own words can only be a separator, so it
    // is made an explicit `;` and the line parsed again.
    let mut script = std::borrow::Cow::Borrowed(script);
    let mut repairs = 0;
    let tree = loop {
        let Some(tree) = parse_bounded(&mut parser, &script) else {
            parts.push(part(&script, None, CommandClass::Dangerous, TOO_COMPLEX));
            return;
        };
        let root = tree.root_node();
        let used = tree_depth(root, MAX_TREE_DEPTH);
        if levels + used > MAX_TREE_DEPTH {
            parts.push(part(&script, None, CommandClass::Dangerous, TOO_DEEP));
            return;
        }
        match separate_run_on_command(&script, root) {
            Some(repaired) if repairs < MAX_REPAIRS => {
                repairs += 1;
                script = std::borrow::Cow::Owned(repaired);
            }
            Some(_) => {
                parts.push(part(
                    &script,
                    None,
                    CommandClass::Mutating,
                    "the command line runs commands on past too many newlines to check",
                ));
                return;
            }
            None => break tree,
        }
    };
    let script = script.as_ref();
    let root = tree.root_node();
    let walker = Walker {
        src: script,
        depth,
        levels: levels + tree_depth(root, MAX_TREE_DEPTH),
        site,
    };
    walker.visit(root, parts);
    if let Some(reason) = crate::rules::bash_eval::evaluated_in_strings(script, root) {
        parts.push(part(script, None, CommandClass::Dangerous, reason));
    }
    if root.has_error() {
        // The grammar takes `{rm,-r,x}` for a broken `{ …; }` group, where bash expands the
        // word before anything else: judge the line with its braces expanded too.
        if let Some(expanded) = expand_line_braces(script) {
            classify_script(&expanded, depth + 1, walker.levels, site, parts);
        }
        if looks_like_fork_bomb(script) {
            parts.push(part(
                script,
                None,
                CommandClass::Dangerous,
                "a fork bomb starts processes until the machine stops responding",
            ));
        }
        if !parts.iter().any(|p| p.class >= CommandClass::Mutating) {
            parts.push(part(
                script,
                None,
                CommandClass::Mutating,
                "the command line is not valid shell syntax, so it cannot be checked completely",
            ));
        }
    }
}

/// Whether a `&` (a background job) is anywhere under `node`, walked with a cursor.
fn backgrounds(node: Node<'_>) -> bool {
    let mut cursor = node.walk();
    loop {
        let n = cursor.node();
        if !n.is_named() && n.kind() == "&" {
            return true;
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() || cursor.node() == node {
                return false;
            }
        }
    }
}

/// `:(){ :|:& };:` and its spacing variants, for input the grammar rejects.
pub(crate) fn looks_like_fork_bomb(script: &str) -> bool {
    let compact: String = script.chars().filter(|c| !c.is_whitespace()).collect();
    compact.contains(":(){:|:&};:") || compact.contains(":(){:|:&}")
}

pub(crate) struct Walker<'s> {
    pub(crate) src: &'s str,
    pub(crate) depth: usize,
    /// Tree levels used by this script and the scripts it is nested in (see
    /// [`MAX_TREE_DEPTH`]).
    pub(crate) levels: usize,
    /// Where the command runs, when reads are to be checked.
    pub(crate) site: Option<&'s Site>,
}

impl<'s> Walker<'s> {
    pub(crate) fn text(&self, node: Node<'_>) -> &'s str {
        node.utf8_text(self.src.as_bytes()).unwrap_or("")
    }

    /// Visits a node, appending parts; returns stage information for pipelines.
    pub(crate) fn visit(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) -> Stage {
        match node.kind() {
            // A bare `command_name` is error recovery (`{rm,-r,x}` alone): judge it as a
            // command all the same.
            "command" | "command_name" => self.command(node, parts),
            "test_command" => {
                self.test_command(node, parts);
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.visit(child, parts);
                }
                Stage::default()
            }
            "redirected_statement" => self.redirected(node, parts),
            "pipeline" => {
                self.pipeline(node, parts);
                Stage::default()
            }
            "function_definition" => {
                self.function(node, parts);
                Stage::default()
            }
            "variable_assignment" => {
                self.assignment(node, parts);
                Stage::default()
            }
            "declaration_command" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if child.kind() == "variable_assignment" {
                        self.assignment(child, parts);
                    } else {
                        self.substitutions(child, parts);
                    }
                }
                Stage::default()
            }
            "comment" | "heredoc_body" | "heredoc_content" | "heredoc_start" | "heredoc_end" => {
                Stage::default()
            }
            "file_redirect" => {
                self.file_redirect(node, parts);
                Stage::default()
            }
            // A group shares its input with the commands in it: `… | (sh)` and `… | while
            // read l; do sh; done` feed the pipe to `sh`.
            "subshell"
            | "compound_statement"
            | "list"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "case_statement"
            | "case_item"
            | "do_group"
            | "negated_command" => {
                if matches!(
                    node.kind(),
                    "while_statement" | "for_statement" | "c_style_for_statement"
                ) && backgrounds(node)
                {
                    parts.push(part(
                        self.text(node),
                        None,
                        CommandClass::Mutating,
                        "starts a background job on every pass of a loop, without bound",
                    ));
                }
                let mut group = Stage::default();
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let stage = self.visit(child, parts);
                    if stage.runs_stdin && !group.runs_stdin {
                        group = Stage {
                            program: stage.program,
                            runs_stdin: true,
                            ..Stage::default()
                        };
                    }
                }
                group
            }
            _ => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.visit(child, parts);
                }
                Stage::default()
            }
        }
    }

    /// Visits every command substitution, process substitution and nested statement inside
    /// a word-like node.
    pub(crate) fn substitutions(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) {
        match node.kind() {
            "command_substitution" | "process_substitution" => {
                // `tee >(sh)`: whatever is written to an output substitution is its input.
                let feeds_input = self.text(node).starts_with(">(");
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let stage = self.visit(child, parts);
                    if feeds_input && stage.runs_stdin {
                        let program = stage.program.as_deref().unwrap_or("?");
                        parts.push(part(
                            self.text(node),
                            Some(program),
                            CommandClass::Dangerous,
                            format!(
                                "`{program}` in `>(…)` runs what is written to it as a {} that cannot be checked",
                                script_or_program(program)
                            ),
                        ));
                    }
                }
            }
            _ => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.substitutions(child, parts);
                }
            }
        }
    }

    pub(crate) fn command(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) -> Stage {
        let text = self.text(node);
        let mut words: Vec<Word> = Vec::new();
        let mut assignments: Vec<(String, Node<'_>)> = Vec::new();
        let mut redirects: Vec<Node<'_>> = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => {
                    let name = child
                        .child_by_field_name("name")
                        .map(|n| self.text(n).to_string())
                        .unwrap_or_default();
                    assignments.push((name, child));
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    redirects.push(child)
                }
                "command_name" => {
                    let inner = child.named_child(0).unwrap_or(child);
                    words.extend(self.words(inner));
                }
                // Statements only appear here when `node` is error recovery around a
                // command name the grammar could not place (`ls; {rm,-r,x}`).
                "subshell"
                | "command"
                | "list"
                | "pipeline"
                | "redirected_statement"
                | "compound_statement" => {
                    self.visit(child, parts);
                }
                // `sh 0< x`: the grammar reads the descriptor of a redirection that
                // follows without a space as an argument.
                "number"
                    if matches!(self.src.as_bytes().get(child.end_byte()), Some(b'<' | b'>')) => {}
                _ => words.extend(self.words(child)),
            }
        }
        let mut verdicts: Vec<(CommandClass, String)> = Vec::new();
        for (name, assignment) in &assignments {
            if let Some((class, reason)) = risky_variable(name) {
                verdicts.push((class, reason));
            }
            // `GIT_DIR=/tmp/x git init`, `GIT_TRACE=/tmp/log git status`: git writes there.
            if let Some(site) = self.site
                && (matches!(
                    name.as_str(),
                    "GIT_DIR" | "GIT_WORK_TREE" | "GIT_INDEX_FILE"
                ) || name.starts_with("GIT_TRACE"))
                && let Some(value) = assignment.child_by_field_name("value")
                && let Some(item) = PathItem::from_word(&self.word(value))
                && (item.path.as_deref().is_none_or(|v| v.contains('/'))
                    || !name.starts_with("GIT_TRACE"))
                && let Some(reason) = site.judge_writes(&[item])
            {
                verdicts.push((
                    CommandClass::WritesOutside,
                    format!("`{name}` points git outside the workspace: {reason}"),
                ));
            }
        }
        let mut nested: Vec<CommandPart> = Vec::new();
        let judged = if words.is_empty() {
            Judged::read_only(None, "sets shell variables")
        } else {
            self.judge(&words, &mut nested)
        };
        verdicts.push((judged.class, judged.reason.clone()));
        let (class, reason) = worst(verdicts);
        let mut own = part(text, judged.program.as_deref(), class, reason);
        own.side_effect = judged.side_effect.clone();
        // Saved rules match prefixes of these words, so they must be what the program gets.
        if assignments.is_empty() && redirects.is_empty() && words.iter().all(|w| w.plain) {
            own.literal_words = Some(words.iter().map(|w| w.value.clone()).collect());
        }
        parts.push(own);
        parts.extend(nested);
        for (_, assignment) in &assignments {
            self.substitutions(*assignment, parts);
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if !matches!(
                child.kind(),
                "variable_assignment"
                    | "file_redirect"
                    | "heredoc_redirect"
                    | "herestring_redirect"
                    | "subshell"
                    | "command"
                    | "list"
                    | "pipeline"
                    | "redirected_statement"
                    | "compound_statement"
            ) {
                self.substitutions(child, parts);
            }
        }
        for redirect in redirects {
            self.redirect(redirect, &judged.stage, parts);
        }
        judged.stage
    }

    pub(crate) fn redirected(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) -> Stage {
        let from = parts.len();
        let stage = match node.child_by_field_name("body") {
            Some(body) => self.visit(body, parts),
            None => Stage::default(),
        };
        // A redirection changes what the command does, so no part under it is plain words.
        for p in &mut parts[from..] {
            p.literal_words = None;
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if matches!(
                child.kind(),
                "file_redirect" | "heredoc_redirect" | "herestring_redirect"
            ) {
                self.redirect(child, &stage, parts);
            }
        }
        stage
    }

    pub(crate) fn redirect(&self, node: Node<'_>, stage: &Stage, parts: &mut Vec<CommandPart>) {
        match node.kind() {
            "file_redirect" => {
                if stage.runs_stdin && self.redirect_operator(node) == "<" {
                    let program = stage.program.as_deref().unwrap_or("?");
                    let source = node
                        .child_by_field_name("destination")
                        .map(|d| self.word(d).value)
                        .unwrap_or_default();
                    parts.push(part(
                        self.text(node),
                        Some(program),
                        CommandClass::Dangerous,
                        format!(
                            "feeds `{source}` into `{program}`, which runs it as a {} that cannot be checked",
                            script_or_program(program)
                        ),
                    ));
                }
                self.file_redirect(node, parts)
            }
            "heredoc_redirect" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    match child.kind() {
                        "heredoc_body" if stage.runs_stdin => {
                            let body = self.text(child);
                            self.nested_script(body, stage.program.as_deref(), node, parts);
                        }
                        "heredoc_body" => self.substitutions(child, parts),
                        "file_redirect" => self.file_redirect(child, parts),
                        "pipeline" | "command" | "list" => {
                            self.visit(child, parts);
                        }
                        _ => {}
                    }
                }
            }
            "herestring_redirect" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let word = self.word(child);
                    if stage.runs_stdin {
                        if word.literal {
                            self.nested_script(&word.value, stage.program.as_deref(), node, parts);
                        } else {
                            let program = stage.program.as_deref().unwrap_or("?");
                            parts.push(part(
                                self.text(node),
                                stage.program.as_deref(),
                                CommandClass::Dangerous,
                                format!(
                                    "`{program}` runs a {} whose text is only known when it runs, so it cannot be checked",
                                    script_or_program(program)
                                ),
                            ));
                        }
                    }
                    self.substitutions(child, parts);
                }
            }
            _ => {}
        }
    }

    pub(crate) fn nested_script(
        &self,
        script: &str,
        program: Option<&str>,
        node: Node<'_>,
        parts: &mut Vec<CommandPart>,
    ) {
        if program.is_some_and(is_shell) {
            classify_script(script, self.depth + 1, self.levels, self.site, parts);
        } else {
            parts.push(part(
                self.text(node),
                program,
                CommandClass::Dangerous,
                format!(
                    "`{}` runs a program from its input, which cannot be checked",
                    program.unwrap_or("?")
                ),
            ));
        }
    }

    pub(crate) fn file_redirect(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) {
        let text = self.text(node);
        let operator = self.redirect_operator(node);
        let Some(dest) = node.child_by_field_name("destination") else {
            return;
        };
        self.substitutions(dest, parts);
        let dest_word = self.word(dest);
        if operator == "<"
            && let Some(site) = self.site
            && let Some(reason) = site.judge_reads(
                None,
                &PathItem::from_word(&dest_word)
                    .into_iter()
                    .collect::<Vec<_>>(),
            )
        {
            parts.push(part(text, None, CommandClass::ReadsOutside, reason));
        }
        let writes = match operator.as_str() {
            "<" | "<<<" => false,
            // `2>&1`, `>&2`, `<&0`, `>&-`: duplicating or closing descriptors.
            ">&" | "<&" | "&>" | "&>>" | ">" | ">>" | ">|" | "<>" | "<&-" | ">&-" => {
                !(matches!(operator.as_str(), ">&" | "<&" | "<&-" | ">&-")
                    && (dest.kind() == "number"
                        || dest_word.value == "-"
                        || dest_word.value.chars().all(|c| c.is_ascii_digit())))
            }
            _ => true,
        };
        if !writes {
            return;
        }
        let outside = self.site.and_then(|site| {
            site.judge_writes(
                &PathItem::from_word(&dest_word)
                    .into_iter()
                    .collect::<Vec<_>>(),
            )
        });
        if !dest_word.literal {
            parts.push(match outside {
                Some(reason) => part(text, None, CommandClass::WritesOutside, reason),
                None => part(
                    text,
                    None,
                    CommandClass::Mutating,
                    "redirects output to a file whose name is only known when it runs",
                ),
            });
            return;
        }
        let target = dest_word.value.as_str();
        if is_harmless_sink(target) {
            return;
        }
        if let Some(reason) = dangerous_write_target(target) {
            parts.push(part(text, None, CommandClass::Dangerous, reason));
            return;
        }
        if let Some(reason) = outside {
            parts.push(part(text, None, CommandClass::WritesOutside, reason));
            return;
        }
        let verb = if operator.contains(">>") {
            "appends to"
        } else {
            "writes"
        };
        parts.push(part(
            text,
            None,
            CommandClass::Mutating,
            format!("`{operator}` {verb} the file `{target}`"),
        ));
    }

    pub(crate) fn pipeline(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) {
        let mut stages: Vec<Stage> = Vec::new();
        // Index of each stage's own part, to settle it once the neighbours are known.
        let mut own_part: Vec<usize> = Vec::new();
        // tree-sitter-bash parses `a | b | c && d` as `a | (list (b | c) && d)`: bash binds
        // `|` tighter than `&&`, so the list's first element continues this pipeline and the
        // rest are separate statements, judged after it.
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let mut trailing: Vec<Node<'_>> = Vec::new();
        let mut stage_nodes: Vec<Node<'_>> = Vec::new();
        for (i, child) in children.iter().enumerate() {
            if child.kind() == "list" && i + 1 == children.len() {
                let mut c = child.walk();
                let mut items = child.named_children(&mut c);
                if let Some(first) = items.next() {
                    if first.kind() == "pipeline" {
                        let mut pc = first.walk();
                        stage_nodes.extend(first.named_children(&mut pc));
                    } else {
                        stage_nodes.push(first);
                    }
                }
                trailing.extend(items);
            } else {
                stage_nodes.push(*child);
            }
        }
        for child in stage_nodes {
            own_part.push(parts.len());
            stages.push(self.visit(child, parts));
        }
        for child in trailing {
            self.visit(child, parts);
        }
        // `find . | sort | xargs cat`: xargs reads the paths `find` found inside.
        let mut lists_inside = false;
        for (i, stage) in stages.iter().enumerate() {
            if stage.reads_input_paths
                && lists_inside
                && let Some(own) = parts.get_mut(own_part[i])
                && own.class == CommandClass::ReadsOutside
                && own.program == stage.program
            {
                own.class = CommandClass::ReadOnly;
                own.reason = format!(
                    "`xargs` gives `{}` paths found inside the workspace",
                    stage.program.as_deref().unwrap_or("?")
                );
            }
            if stage.writes_input_paths
                && lists_inside
                && let Some(own) = parts.get_mut(own_part[i])
                && own.class == CommandClass::WritesOutside
                && own.program == stage.program
            {
                own.class = CommandClass::Mutating;
                own.reason = format!(
                    "`xargs` gives `{}` paths found inside the workspace",
                    stage.program.as_deref().unwrap_or("?")
                );
            }
            lists_inside = match stage.listing {
                Listing::PathsInside => true,
                Listing::InputLines => lists_inside,
                Listing::Other => false,
            };
        }
        for (i, stage) in stages.iter().enumerate() {
            if !stage.runs_stdin {
                continue;
            }
            let program = stage.program.as_deref().unwrap_or("?");
            if stages[..i]
                .iter()
                .any(|s| s.program.as_deref().is_some_and(is_downloader))
            {
                parts.push(part(
                    self.text(node),
                    Some(program),
                    CommandClass::Dangerous,
                    format!(
                        "pipes a download from the network into `{program}`, which runs it unseen"
                    ),
                ));
            } else if let Some(text) = i
                .checked_sub(1)
                .and_then(|p| stages[p].literal_output.clone())
            {
                if is_shell(program)
                    && let Some(own) = parts.get_mut(own_part[i])
                    && own.program.as_deref() == Some(program)
                {
                    // The script is known: its own parts decide.
                    own.class = CommandClass::ReadOnly;
                    own.reason =
                        format!("`{program}` runs a literal script (its parts are judged)");
                }
                self.nested_script(&text, Some(program), node, parts);
            } else if i > 0 {
                let from = stages[i - 1]
                    .program
                    .as_deref()
                    .map_or_else(|| "the previous command".to_string(), |p| format!("`{p}`"));
                parts.push(part(
                    self.text(node),
                    Some(program),
                    CommandClass::Dangerous,
                    format!(
                        "pipes the output of {from} into `{program}`, which runs it as a {} that cannot be checked",
                        script_or_program(program)
                    ),
                ));
            }
        }
    }

    pub(crate) fn function(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n))
            .unwrap_or("");
        if let Some(body) = node.child_by_field_name("body") {
            let mut inner = Vec::new();
            self.visit(body, &mut inner);
            if !name.is_empty() && inner.iter().any(|p| p.program.as_deref() == Some(name)) {
                parts.push(part(
                    self.text(node),
                    Some(name),
                    CommandClass::Dangerous,
                    format!("the function `{name}` calls itself: a fork bomb pattern that starts processes until the machine stops responding"),
                ));
            } else {
                parts.push(part(
                    self.text(node),
                    None,
                    CommandClass::Mutating,
                    format!(
                        "defines the shell function `{name}`, which can stand in for any command"
                    ),
                ));
            }
            parts.extend(inner);
        }
    }

    pub(crate) fn assignment(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n))
            .unwrap_or("");
        if let Some((class, reason)) = risky_variable(name) {
            parts.push(part(self.text(node), None, class, reason));
        }
        self.substitutions(node, parts);
    }

    /// The operator of a redirection (`<`, `>>`, `2>&`, …), without its descriptor number.
    pub(crate) fn redirect_operator(&self, node: Node<'_>) -> String {
        let mut operator = String::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if !child.is_named() {
                operator.push_str(self.text(child));
            }
        }
        operator
    }

    /// `[ -f PATH ]` and `[[ A -nt B ]]` look at files: check where they are.
    pub(crate) fn test_command(&self, node: Node<'_>, parts: &mut Vec<CommandPart>) {
        let Some(site) = self.site else {
            return;
        };
        let mut items = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            let mut cursor = n.walk();
            let children: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
            let operator = n
                .child_by_field_name("operator")
                .map(|o| self.text(o))
                .unwrap_or("");
            match n.kind() {
                "unary_expression" if FILE_TESTS.contains(&operator) => {
                    items.extend(
                        children
                            .iter()
                            .filter(|c| c.kind() != "test_operator")
                            .filter_map(|c| PathItem::from_word(&self.word(*c))),
                    );
                }
                "binary_expression" if matches!(operator, "-nt" | "-ot" | "-ef") => {
                    for field in ["left", "right"] {
                        if let Some(side) = n.child_by_field_name(field) {
                            items.extend(PathItem::from_word(&self.word(side)));
                        }
                    }
                }
                "command_substitution" | "process_substitution" => {}
                _ => stack.extend(children),
            }
        }
        if let Some(reason) = site.judge_reads(Some("test"), &items) {
            parts.push(part(
                self.text(node),
                Some("test"),
                CommandClass::ReadsOutside,
                reason,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{CommandClass, classify};

    fn class(command: &str) -> CommandClass {
        classify(command).class
    }

    #[test]
    fn fork_bomb_is_dangerous() {
        assert_eq!(class(":(){ :|:& };:"), CommandClass::Dangerous);
        assert_eq!(
            class("bomb() { bomb | bomb & }; bomb"),
            CommandClass::Dangerous
        );
    }
}
