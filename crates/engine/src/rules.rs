//! Saved approval rules: "always allow `npm test`", "always deny `git push`".
//!
//! A [`RuleSet`] holds the rules of `config.toml` (`[[rules]]`, see [`crate::config`]) and
//! those saved while Tack runs, and judges a classified command line against them
//! ([`RuleSet::judge`]). The judgement is made per part of the line (every simple command the
//! classifier found, nested scripts included), because that is the unit a person approves:
//! "`npm test` may run" says nothing about the `rm` after a `;`.
//!
//! # Allow rules never widen
//!
//! An allow rule with prefix `P` covers a part only when
//! - the part's [`literal_words`](CommandPart::literal_words) are known (every word a plain
//!   literal: no expansion, substitution, glob, variable assignment or redirection), and start
//!   with `P` word for word; and
//! - either the words are exactly `P`, or the part has no
//!   [`side_effect`](CommandPart::side_effect) (an option that writes a file or runs a
//!   program: `git diff --output=x`), and is neither [`CommandClass::Dangerous`],
//!   [`CommandClass::WritesOutside`] nor [`CommandClass::ReadsOutside`] (allow `cat`, saved
//!   for `cat README.md`, does not run `cat ~/.ssh/id_ed25519`). A prefix stands for "this
//!   command with harmless arguments"; only a rule that names the whole command covers more.
//!
//! A compound line is allowed only when **every** part is covered by some rule on its own,
//! or is a known read-only command inside the workspace (which runs under every policy
//! anyway), and at least one part is covered by a rule: allow `npm test` runs `git status &&
//! npm test`, not `npm test; rm -rf x`.
//!
//! # Deny rules match eagerly
//!
//! A wrong allow runs something the user never saw; a wrong deny only refuses a command the
//! model can ask about again. So a deny rule with prefix `P` matches a part when any of these
//! holds:
//! - the part's literal words start with `P` (the allow test, without the side-effect
//!   condition);
//! - `P` is one word and it is the part's [`program`](CommandPart::program) (after the
//!   classifier unwrapped `env`, `timeout`, `sudo`, …): deny `curl` refuses `env X=1 curl …`;
//! - `P`'s words appear in order among the words of the part's text (quotes, backslashes and
//!   shell punctuation dropped; the first word of `P` also matches a path ending in it, so
//!   `rm` matches `/bin/rm` and `\rm`). Deny `git push` thus refuses `git -c x=y push`,
//!   `"git" push` and `$(echo git) push`; it also refuses `git log --grep push`, which is
//!   the price of matching text rather than meaning.
//!
//! Deny rules are checked first and win over any allow rule.
//!
//! # Scope
//!
//! A rule with a `workspace` applies to sessions whose workspace is that folder or inside it
//! (paths compared lexically after resolving `.` and `..`); a rule without one applies
//! everywhere.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use tack_protocol::{Rule, RuleDecision};

use crate::command_safety::{CommandAssessment, CommandClass, CommandPart};
use crate::config::{ConfigDocument, ConfigError, Paths};

/// What the saved rules say about a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleOutcome {
    /// A deny rule matched a part of the line; the command must not run.
    Denied {
        /// The first deny rule (in list order) that matched.
        rule: Rule,
    },
    /// Every part of the line is covered by an allow rule on its own.
    Allowed {
        /// The rules that covered the parts, each once, in the order of the parts.
        rules: Vec<Rule>,
    },
    /// No deny rule matched and some part is not covered: the policy decides.
    NotDecided,
}

/// One rule with its scope resolved once, so judging does not normalize paths per rule.
#[derive(Debug, Clone)]
struct Entry {
    rule: Rule,
    scope: Option<PathBuf>,
}

/// The saved rules, ready to judge commands.
///
/// Rules are indexed by their first word, so judging looks only at rules that can match and
/// its cost does not grow with unrelated rules: a part can only be covered by an allow rule
/// whose first word is the part's first word, and a deny rule can only match a part when its
/// first word is the part's first word, its program, or a word (or a path's last name) of
/// its text.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    entries: Vec<Entry>,
    allow_by_first_word: HashMap<String, Vec<usize>>,
    /// Indexes in ascending order, so the first match found is the first in list order.
    deny_by_first_word: HashMap<String, Vec<usize>>,
}

impl RuleSet {
    /// A rule set of these rules, in this order. Rules that are not well formed (see
    /// [`check_rule`]) are left out, since an empty prefix would cover every command.
    pub fn new(rules: impl IntoIterator<Item = Rule>) -> RuleSet {
        let mut set = RuleSet::default();
        for rule in rules {
            set.add(rule);
        }
        set
    }

    /// The rules of a loaded config file.
    pub fn from_config(config: &crate::config::Config) -> RuleSet {
        RuleSet::new(config.rules.iter().cloned())
    }

    /// Adds a rule (saved while Tack runs). Returns `false`, and changes nothing, when the
    /// rule is not well formed or the set has it already.
    pub fn add(&mut self, rule: Rule) -> bool {
        if check_rule(&rule).is_err() || self.entries.iter().any(|e| e.rule == rule) {
            return false;
        }
        let index = self.entries.len();
        match rule.decision {
            RuleDecision::Allow => {
                if let Some(first) = rule.command.first() {
                    self.allow_by_first_word
                        .entry(first.clone())
                        .or_default()
                        .push(index);
                }
            }
            RuleDecision::Deny => {
                if let Some(first) = rule.command.first() {
                    self.deny_by_first_word
                        .entry(first.clone())
                        .or_default()
                        .push(index);
                }
            }
        }
        let scope = rule.workspace.as_deref().map(|w| normalize(Path::new(w)));
        self.entries.push(Entry { rule, scope });
        true
    }

    /// The rules, in the order they were added.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.entries.iter().map(|e| &e.rule)
    }

    /// How many rules the set has.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the set has no rules.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The prefix an "Always allow …" would save for this command line ([`suggest`]).
    pub fn suggest(&self, assessment: &CommandAssessment) -> Option<Vec<String>> {
        suggest(assessment)
    }

    /// Judges a classified command line, for a session in `workspace`. See the module doc
    /// for what matches.
    pub fn judge(&self, assessment: &CommandAssessment, workspace: &Path) -> RuleOutcome {
        let workspace = normalize(workspace);
        let applies = |e: &Entry| e.scope.as_ref().is_none_or(|s| workspace.starts_with(s));
        if !self.deny_by_first_word.is_empty() {
            // The first matching deny rule in list order, over all parts.
            let mut first_match: Option<usize> = None;
            for part in &assessment.parts {
                let words = text_words(&part.text);
                let names = words
                    .iter()
                    .flat_map(|w| [w.as_str(), w.rsplit('/').next().unwrap_or(w)])
                    .chain(part.program.as_deref())
                    .chain(
                        part.literal_words
                            .iter()
                            .flatten()
                            .map(String::as_str)
                            .take(1),
                    );
                for name in names {
                    let Some(candidates) = self.deny_by_first_word.get(name) else {
                        continue;
                    };
                    let found = candidates
                        .iter()
                        .copied()
                        .take_while(|&i| first_match.is_none_or(|m| i < m))
                        .find(|&i| {
                            let e = &self.entries[i];
                            applies(e) && deny_matches_words(&e.rule.command, part, &words)
                        });
                    if found.is_some() {
                        first_match = found;
                    }
                }
            }
            if let Some(i) = first_match {
                return RuleOutcome::Denied {
                    rule: self.entries[i].rule.clone(),
                };
            }
        }
        // An empty line has no part to cover; "every part is covered" must not hold by
        // default.
        if assessment.parts.is_empty() {
            return RuleOutcome::NotDecided;
        }
        let mut used: Vec<usize> = Vec::new();
        for part in &assessment.parts {
            // A known read-only part inside the workspace runs under every policy without a
            // rule, so it needs none: `git status && npm test` is allowed by `npm test`.
            // At least one part must still be covered by a rule (checked below).
            let optional = part.class == CommandClass::ReadOnly && part.side_effect.is_none();
            let Some(first) = part.literal_words.as_ref().and_then(|w| w.first()) else {
                if optional {
                    continue;
                }
                return RuleOutcome::NotDecided;
            };
            let covering = self.allow_by_first_word.get(first).and_then(|candidates| {
                candidates.iter().copied().find(|&i| {
                    let e = &self.entries[i];
                    applies(e) && allow_covers(&e.rule.command, part)
                })
            });
            match covering {
                Some(i) if !used.contains(&i) => used.push(i),
                Some(_) => {}
                None if optional => {}
                None => return RuleOutcome::NotDecided,
            }
        }
        if used.is_empty() {
            return RuleOutcome::NotDecided;
        }
        RuleOutcome::Allowed {
            rules: used
                .into_iter()
                .map(|i| self.entries[i].rule.clone())
                .collect(),
        }
    }
}

/// Whether an allow rule with prefix `prefix` covers `part` on its own (module doc, "Allow
/// rules never widen").
pub fn allow_covers(prefix: &[String], part: &CommandPart) -> bool {
    let Some(words) = &part.literal_words else {
        return false;
    };
    if prefix.is_empty() || !words.starts_with(prefix) {
        return false;
    }
    // Reading outside the workspace is a widening too: "always allow `cat`", saved for
    // `cat README.md`, must not let `cat ~/.ssh/id_ed25519` run unasked.
    words.len() == prefix.len()
        || (part.side_effect.is_none()
            && !matches!(
                part.class,
                CommandClass::Dangerous | CommandClass::WritesOutside | CommandClass::ReadsOutside
            ))
}

/// Whether a deny rule with prefix `prefix` matches `part` (module doc, "Deny rules match
/// eagerly").
pub fn deny_matches(prefix: &[String], part: &CommandPart) -> bool {
    deny_matches_words(prefix, part, &text_words(&part.text))
}

/// [`deny_matches`] with the part's text already split by [`text_words`].
fn deny_matches_words(prefix: &[String], part: &CommandPart, words: &[String]) -> bool {
    let Some(first) = prefix.first() else {
        return false;
    };
    if part
        .literal_words
        .as_ref()
        .is_some_and(|w| w.starts_with(prefix))
    {
        return true;
    }
    if prefix.len() == 1 && part.program.as_deref() == Some(first.as_str()) {
        return true;
    }
    let Some(start) = words.iter().position(|w| names_program(w, first)) else {
        return false;
    };
    let mut rest = words[start + 1..].iter();
    prefix[1..].iter().all(|p| rest.any(|w| w == p))
}

/// Whether `word` is `program`, or a path to it (`/bin/rm` for `rm`).
fn names_program(word: &str, program: &str) -> bool {
    word == program
        || word
            .rsplit_once('/')
            .is_some_and(|(_, name)| name == program)
}

/// The words of a part's source text for deny matching: split at blanks and shell
/// punctuation, with quotes and backslashes dropped, so `"git" push`, `\rm` and
/// `$(echo rm)` show their words.
fn text_words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || ";&|()<>{}`$,".contains(c))
        .map(|w| {
            w.chars()
                .filter(|c| !"'\"\\".contains(*c))
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// The prefix an "Always allow …" would save for this command line, or `None` when no rule
/// should be offered.
///
/// For each part: its program word, then at most two more words while they look like
/// subcommands (letters, digits, `_`, `-`, `:`, `+`, not starting with `-`), stopping at the
/// first option, path, file name or other operand: `npm test`, `npm run build`, `cargo check`
/// for `cargo check -p x`, `git commit` for `git commit -m …`. Options are never kept, so the
/// rule is always shorter than or equal to what the user sees, and predictable.
///
/// `None` when the line is empty, when any part is not all literal words (an expansion, an
/// assignment, a redirection), is dangerous, writes outside the workspace or has a side
/// effect (a shorter prefix would not cover it, and saving the whole line as a rule is not
/// what "always" means), or when the parts that need a rule would need different prefixes
/// (`make && npm test`): one rule must cover the whole line, or the dialog offers none.
/// Known read-only parts need no rule, so `cd src && npm test` is offered `npm test`.
pub fn suggest(assessment: &CommandAssessment) -> Option<Vec<String>> {
    // (needs a rule, prefix) for every part that could carry one.
    let mut candidates: Vec<(bool, Vec<String>)> = Vec::new();
    for part in &assessment.parts {
        // Read-only parts need no rule (as in `RuleSet::judge`), but a line of nothing else
        // may still be offered one.
        let optional = part.class == CommandClass::ReadOnly && part.side_effect.is_none();
        let Some(words) = part.literal_words.as_ref() else {
            if optional {
                continue;
            }
            return None;
        };
        if part.side_effect.is_some()
            || matches!(
                part.class,
                CommandClass::Dangerous | CommandClass::WritesOutside | CommandClass::ReadsOutside
            )
        {
            return None;
        }
        let (program, rest) = words.split_first()?;
        let mut prefix = vec![program.clone()];
        prefix.extend(
            rest.iter()
                .take_while(|w| is_subcommand(w))
                .take(2)
                .cloned(),
        );
        candidates.push((!optional, prefix));
    }
    let needed = candidates.iter().any(|(needs, _)| *needs);
    let mut chosen = candidates
        .into_iter()
        .filter(|(needs, _)| *needs || !needed)
        .map(|(_, prefix)| prefix);
    let first = chosen.next()?;
    chosen.all(|p| p == first).then_some(first)
}

/// Whether a word reads like a subcommand (`test`, `run`, `test:unit`, `c++`) rather than an
/// option, a path or a value.
fn is_subcommand(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || "_-:+".contains(c))
}

/// Checks an "Always allow" answer: the rule must be a well formed allow rule that covers
/// every part of the command it answers on its own. The engine refuses the decision
/// otherwise, so a rule the user saw can never allow less than the command it ran, and a
/// crafted answer can't save a rule that allows more than was asked.
///
/// # Errors
/// Why not, in words naming the rule and the part it does not cover.
pub fn validate_allow(rule: &Rule, assessment: &CommandAssessment) -> Result<(), String> {
    check_rule(rule)?;
    if rule.decision != RuleDecision::Allow {
        return Err(format!("{} is not an allow rule", rule.describe()));
    }
    if assessment.parts.is_empty() {
        return Err("the command is empty: there is nothing for a rule to allow".to_string());
    }
    let needs_rule =
        |p: &&CommandPart| !(p.class == CommandClass::ReadOnly && p.side_effect.is_none());
    match assessment
        .parts
        .iter()
        .filter(needs_rule)
        .find(|p| !allow_covers(&rule.command, p))
    {
        None if assessment
            .parts
            .iter()
            .any(|p| allow_covers(&rule.command, p)) =>
        {
            Ok(())
        }
        None => Err(format!(
            "{} covers no part of the command that needs a rule",
            rule.describe()
        )),
        Some(part) => Err(format!(
            "{} does not cover `{}`{}",
            rule.describe(),
            part.text,
            why_not_covered(&rule.command, part)
        )),
    }
}

/// Why [`allow_covers`] said no, as a clause starting with ": " (or nothing).
fn why_not_covered(prefix: &[String], part: &CommandPart) -> String {
    match &part.literal_words {
        None => {
            ": it is not plain literal words (an expansion, assignment or redirection)".to_string()
        }
        Some(words) if !words.starts_with(prefix) => {
            ": it does not start with the rule's words".to_string()
        }
        Some(_) => match &part.side_effect {
            Some(effect) => format!(": {effect}"),
            None => format!(": {}", part.reason),
        },
    }
}

/// Splits a command as typed (`npm test`, `grep -e 'a b'`) into a rule's words, as a shell
/// would split it; what `[[rules]]` does with a `command` string and what Settings' form
/// does with its text.
///
/// # Errors
/// Unbalanced quotes, or no words at all.
pub fn parse_command(text: &str) -> Result<Vec<String>, String> {
    let words = shell_words::split(text)
        .map_err(|e| format!("the command `{text}` does not split into words: {e}"))?;
    if words.is_empty() {
        return Err("a rule needs a command (at least one word)".to_string());
    }
    Ok(words)
}

/// Checks that a rule is well formed: at least one word, no empty word, and a workspace, if
/// any, that is an absolute path.
///
/// # Errors
/// What is wrong, in words.
pub fn check_rule(rule: &Rule) -> Result<(), String> {
    if rule.command.is_empty() {
        return Err("a rule needs a command (at least one word)".to_string());
    }
    if rule.command.iter().any(String::is_empty) {
        return Err("a rule's command has an empty word".to_string());
    }
    if let Some(ws) = &rule.workspace
        && !Path::new(ws).is_absolute()
    {
        return Err(format!(
            "a rule's workspace must be an absolute path, not `{ws}`"
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Saved in config.toml: what the desktop's Settings and the CLI call. Each call re-reads the
// file and edits it in place ([`ConfigDocument`]); a file that does not load is never
// written.

/// Which saved rule to delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleSelector {
    /// The rule at this index of [`list_rules`] (as the file is now).
    Index(usize),
    /// Every entry that is exactly this rule: what a window that may show an older list
    /// should use, since indexes move when the file is edited by hand.
    Exact(Rule),
}

/// The rules of the config file at `path`, in file order (none when it does not exist).
///
/// # Errors
/// [`ConfigError`] for a file that cannot be read or does not load.
pub fn list_rules(path: &Path) -> Result<Vec<Rule>, ConfigError> {
    Ok(crate::config::Config::load(path)?.rules)
}

/// Saves a rule at the end of `[[rules]]` in the config file at `path` (created if needed);
/// `false` when the file has the exact rule already.
///
/// # Errors
/// [`ConfigError::InvalidRule`] for a rule that is not well formed; [`ConfigError`] for a
/// file that cannot be read, does not load, or cannot be written.
pub fn add_rule(path: &Path, rule: &Rule) -> Result<bool, ConfigError> {
    let mut doc = ConfigDocument::load(path)?;
    let added = doc.add_rule(rule)?;
    if added {
        doc.save()?;
    }
    Ok(added)
}

/// Saves a rule in the config file of these folders ([`add_rule`] on
/// [`Paths::config_file`]); what the engine does with an "Always allow/deny" answer.
///
/// # Errors
/// As [`add_rule`].
pub fn save_rule(paths: &Paths, rule: &Rule) -> Result<bool, ConfigError> {
    add_rule(&paths.config_file(), rule)
}

/// Deletes a rule from the config file at `path`; returns the rule deleted (`None`: no such
/// rule, and the file is left alone).
///
/// # Errors
/// [`ConfigError`] for a file that cannot be read, does not load, or cannot be written.
pub fn delete_rule(path: &Path, which: &RuleSelector) -> Result<Option<Rule>, ConfigError> {
    let mut doc = ConfigDocument::load(path)?;
    let deleted = match which {
        RuleSelector::Index(i) => doc.remove_rule(*i)?,
        RuleSelector::Exact(rule) => doc.remove_rule_exact(rule)?.then(|| rule.clone()),
    };
    if deleted.is_some() {
        doc.save()?;
    }
    Ok(deleted)
}

/// `path` with `.` dropped and `..` resolved lexically (and a trailing `/` gone).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(words: &[&str]) -> CommandPart {
        CommandPart {
            text: words.join(" "),
            program: words.first().map(|w| (*w).to_string()),
            class: CommandClass::Mutating,
            reason: String::new(),
            literal_words: Some(words.iter().map(|w| (*w).to_string()).collect()),
            side_effect: None,
        }
    }

    fn w(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_string()).collect()
    }

    #[test]
    fn text_words_drop_quotes_and_punctuation() {
        assert_eq!(
            text_words(r#"$(echo "git") \push;x"#),
            w(&["echo", "git", "push", "x"])
        );
    }

    #[test]
    fn a_prefix_covers_longer_words_only_without_side_effects() {
        let mut p = part(&["git", "diff", "--output=x"]);
        assert!(allow_covers(&w(&["git", "diff"]), &p));
        p.side_effect = Some("`--output` writes a file".into());
        assert!(!allow_covers(&w(&["git", "diff"]), &p));
        assert!(allow_covers(&w(&["git", "diff", "--output=x"]), &p));
        assert!(!allow_covers(&[], &part(&["ls"])));
    }

    #[test]
    fn subcommand_words_stop_at_options_and_paths() {
        for (word, yes) in [
            ("test", true),
            ("test:unit", true),
            ("-p", false),
            ("src/x", false),
            ("main.rs", false),
            ("", false),
        ] {
            assert_eq!(is_subcommand(word), yes, "{word}");
        }
    }
}
