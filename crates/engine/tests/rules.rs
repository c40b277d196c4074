//! Saved approval rules: allow rules never widen, deny rules win, scopes hold, suggestions
//! cover what they are offered for, and `[[rules]]` loads and saves in place.
//!
//! Two kinds of assessments are used. Hand-built ones (`part(…)`) pin the matching logic to
//! the documented meaning of `CommandPart::literal_words` and `side_effect`. Real ones
//! (`classify_in`) check the whole path from a command line; the tests in `real_lines` that
//! expect `Allowed` need the classifier to fill `literal_words` (they fail while it leaves
//! them `None`), while every "never allowed" property holds either way.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use tack_engine::command_safety::{
    CommandAssessment, CommandClass, CommandPart, CommandSite, classify_in,
};
use tack_engine::config::{Config, ConfigDocument, ConfigError};
use tack_engine::rules::{RuleOutcome, RuleSet, check_rule, deny_matches, suggest, validate_allow};
use tack_protocol::{Rule, RuleDecision};

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

fn allow(command: &str) -> Rule {
    Rule {
        decision: RuleDecision::Allow,
        command: words(command),
        workspace: None,
    }
}

fn deny(command: &str) -> Rule {
    Rule {
        decision: RuleDecision::Deny,
        ..allow(command)
    }
}

fn scoped(mut rule: Rule, ws: &str) -> Rule {
    rule.workspace = Some(ws.to_string());
    rule
}

/// A literal part as the classifier documents it: all words plain, no side effect.
fn part(text: &str, class: CommandClass) -> CommandPart {
    let w = words(text);
    CommandPart {
        text: text.to_string(),
        program: w.first().cloned(),
        class,
        reason: format!("`{text}` judged {class}"),
        literal_words: Some(w),
        side_effect: None,
    }
}

fn line(parts: Vec<CommandPart>) -> CommandAssessment {
    let class = parts
        .iter()
        .map(|p| p.class)
        .max()
        .unwrap_or(CommandClass::ReadOnly);
    CommandAssessment {
        class,
        reason: String::new(),
        parts,
    }
}

const WS: &str = "/home/me/app";

fn judge(rules: &[Rule], parts: Vec<CommandPart>) -> RuleOutcome {
    RuleSet::new(rules.iter().cloned()).judge(&line(parts), Path::new(WS))
}

// ---------------------------------------------------------------------------------------------
// The matching logic, on hand-built parts.

#[test]
fn an_allow_prefix_covers_the_command_and_harmless_arguments() {
    let rules = [allow("npm test")];
    for text in ["npm test", "npm test --watch", "npm test -- src/a.test.ts"] {
        assert_eq!(
            judge(&rules, vec![part(text, CommandClass::Mutating)]),
            RuleOutcome::Allowed {
                rules: vec![allow("npm test")]
            },
            "{text}"
        );
    }
    for text in ["npm", "npm install", "npm tests", "npx test"] {
        assert_eq!(
            judge(&rules, vec![part(text, CommandClass::Mutating)]),
            RuleOutcome::NotDecided,
            "{text}"
        );
    }
}

#[test]
fn a_prefix_never_covers_an_added_side_effect_a_danger_or_a_write_outside() {
    let rules = [allow("git diff")];
    let mut output = part("git diff --output=x", CommandClass::Mutating);
    output.side_effect = Some("`--output` writes a file".into());
    assert_eq!(judge(&rules, vec![output.clone()]), RuleOutcome::NotDecided);
    // Named word for word, the same part is covered: the user saw exactly that.
    assert!(matches!(
        judge(&[allow("git diff --output=x")], vec![output]),
        RuleOutcome::Allowed { .. }
    ));
    let danger = part("git diff --no-index a b", CommandClass::Dangerous);
    assert_eq!(judge(&rules, vec![danger.clone()]), RuleOutcome::NotDecided);
    assert!(matches!(
        judge(&[allow("git diff --no-index a b")], vec![danger]),
        RuleOutcome::Allowed { .. }
    ));
    let outside = part("git diff --stat", CommandClass::WritesOutside);
    assert_eq!(judge(&rules, vec![outside]), RuleOutcome::NotDecided);
    // Reading outside the workspace widens too: only the exact words cover it.
    let reads = part("git diff /etc/x", CommandClass::ReadsOutside);
    assert_eq!(judge(&rules, vec![reads.clone()]), RuleOutcome::NotDecided);
    assert!(matches!(
        judge(&[allow("git diff /etc/x")], vec![reads]),
        RuleOutcome::Allowed { .. }
    ));
}

#[test]
fn read_only_parts_need_no_rule_but_one_part_must_be_covered() {
    let rules = [allow("npm test")];
    let status = part("git status", CommandClass::ReadOnly);
    let test = part("npm test", CommandClass::Mutating);
    assert!(matches!(
        judge(&rules, vec![status.clone(), test]),
        RuleOutcome::Allowed { .. }
    ));
    // Nothing covered by a rule: not the rules' decision.
    assert_eq!(judge(&rules, vec![status]), RuleOutcome::NotDecided);
}

#[test]
fn a_part_without_literal_words_is_never_covered() {
    let mut assigned = part("GIT_EXTERNAL_DIFF=x git diff", CommandClass::Mutating);
    assigned.program = Some("git".into());
    assigned.literal_words = None;
    assert_eq!(
        judge(
            &[allow("git diff"), allow("GIT_EXTERNAL_DIFF=x git diff")],
            vec![assigned]
        ),
        RuleOutcome::NotDecided
    );
}

#[test]
fn every_part_of_a_compound_line_must_be_covered_by_itself() {
    let rules = [allow("git diff"), allow("git status")];
    let both = vec![
        part("git diff", CommandClass::ReadOnly),
        part("git status", CommandClass::ReadOnly),
    ];
    assert_eq!(
        judge(&rules, both),
        RuleOutcome::Allowed {
            rules: vec![allow("git diff"), allow("git status")]
        }
    );
    let with_rm = vec![
        part("git diff", CommandClass::ReadOnly),
        part("rm x", CommandClass::Mutating),
    ];
    assert_eq!(judge(&rules, with_rm), RuleOutcome::NotDecided);
    // A rule used twice is reported once.
    assert_eq!(
        judge(
            &rules,
            vec![
                part("git diff", CommandClass::ReadOnly),
                part("git diff --stat", CommandClass::ReadOnly)
            ]
        ),
        RuleOutcome::Allowed {
            rules: vec![allow("git diff")]
        }
    );
    // An empty line is not "all parts covered".
    assert_eq!(judge(&rules, vec![]), RuleOutcome::NotDecided);
}

#[test]
fn deny_wins_and_matches_eagerly() {
    let rules = [allow("git"), deny("git push")];
    let push = part("git push origin main", CommandClass::Mutating);
    assert_eq!(
        judge(&rules, vec![push]),
        RuleOutcome::Denied {
            rule: deny("git push")
        }
    );
    // Words in the text, with other words between, quotes and substitutions dropped.
    for text in [
        "git -c x=y push",
        "\"git\" push",
        "/usr/bin/git push",
        "$(echo git) push",
    ] {
        let mut p = part(text, CommandClass::Dangerous);
        p.literal_words = None;
        p.program = None;
        assert!(
            matches!(judge(&rules, vec![p]), RuleOutcome::Denied { .. }),
            "{text}"
        );
    }
    // A one-word deny matches the unwrapped program.
    let mut wrapped = part("env X=1 curl https://x", CommandClass::Mutating);
    wrapped.program = Some("curl".into());
    wrapped.literal_words = None;
    assert!(matches!(
        judge(&[deny("curl")], vec![wrapped]),
        RuleOutcome::Denied { .. }
    ));
    // In a compound line, one denied part denies the line.
    assert!(matches!(
        judge(
            &rules,
            vec![
                part("git status", CommandClass::ReadOnly),
                part("\\rm x", CommandClass::Mutating)
            ]
            .into_iter()
            .chain([part("git push", CommandClass::Mutating)])
            .collect()
        ),
        RuleOutcome::Denied { .. }
    ));
    // Not a word of the text: no match.
    assert!(matches!(
        judge(&rules, vec![part("git pushy", CommandClass::Mutating)]),
        RuleOutcome::Allowed { .. }
    ));
    // The first deny rule in list order is the one reported.
    assert_eq!(
        judge(
            &[deny("rm"), deny("rm -r")],
            vec![part("rm -r x", CommandClass::Dangerous)]
        ),
        RuleOutcome::Denied { rule: deny("rm") }
    );
}

#[test]
fn a_scoped_rule_applies_in_its_workspace_and_below_only() {
    let rules = [scoped(allow("make"), "/home/me/app/")];
    let make = || vec![part("make", CommandClass::Mutating)];
    let set = RuleSet::new(rules.iter().cloned());
    for ws in [
        "/home/me/app",
        "/home/me/app/sub",
        "/home/me/app/./sub/../x",
    ] {
        assert!(
            matches!(
                set.judge(&line(make()), Path::new(ws)),
                RuleOutcome::Allowed { .. }
            ),
            "{ws}"
        );
    }
    for ws in ["/home/me/app-other", "/home/me", "/home/me/app/../other"] {
        assert_eq!(
            set.judge(&line(make()), Path::new(ws)),
            RuleOutcome::NotDecided,
            "{ws}"
        );
    }
    let deny_here = RuleSet::new([allow("make"), scoped(deny("make"), WS)]);
    assert!(matches!(
        deny_here.judge(&line(make()), Path::new(WS)),
        RuleOutcome::Denied { .. }
    ));
    assert!(matches!(
        deny_here.judge(&line(make()), Path::new("/srv/other")),
        RuleOutcome::Allowed { .. }
    ));
}

#[test]
fn malformed_rules_are_refused_and_never_cover_anything() {
    let empty = Rule {
        decision: RuleDecision::Allow,
        command: vec![],
        workspace: None,
    };
    assert!(check_rule(&empty).is_err());
    assert!(check_rule(&scoped(allow("ls"), "relative/dir")).is_err());
    assert!(
        check_rule(&Rule {
            command: vec!["ls".into(), String::new()],
            ..allow("ls")
        })
        .is_err()
    );
    let mut set = RuleSet::new([empty.clone()]);
    assert!(set.is_empty());
    assert!(set.add(allow("ls")));
    assert!(!set.add(allow("ls")), "a duplicate is not added");
    assert_eq!(set.len(), 1);
    assert_eq!(
        judge(&[empty], vec![part("rm -rf /", CommandClass::Dangerous)]),
        RuleOutcome::NotDecided
    );
}

#[test]
fn suggestions_take_the_program_and_its_subcommand_words() {
    let s = |parts: Vec<CommandPart>| suggest(&line(parts));
    let m = CommandClass::Mutating;
    assert_eq!(s(vec![part("npm test", m)]), Some(words("npm test")));
    assert_eq!(
        s(vec![part("npm run build", m)]),
        Some(words("npm run build"))
    );
    assert_eq!(
        s(vec![part("cargo check -p x", m)]),
        Some(words("cargo check"))
    );
    assert_eq!(
        s(vec![part("git commit -m fix", m)]),
        Some(words("git commit"))
    );
    assert_eq!(s(vec![part("cat src/main.rs", m)]), Some(words("cat")));
    assert_eq!(
        s(vec![part("docker compose up web", m)]),
        Some(words("docker compose up"))
    );
    // The same prefix for every part: one rule covers the line.
    assert_eq!(
        s(vec![part("git diff", m), part("git diff --stat", m)]),
        Some(words("git diff"))
    );
    // Different programs, a dangerous part, a side effect, a dynamic part: nothing offered.
    assert_eq!(s(vec![part("cd web", m), part("npm test", m)]), None);
    assert_eq!(s(vec![part("rm -rf build", CommandClass::Dangerous)]), None);
    assert_eq!(s(vec![part("make", CommandClass::WritesOutside)]), None);
    let mut effect = part("git diff --output=x", m);
    effect.side_effect = Some("writes a file".into());
    assert_eq!(s(vec![effect]), None);
    let mut dynamic = part("$X run", m);
    dynamic.literal_words = None;
    assert_eq!(s(vec![dynamic]), None);
    assert_eq!(s(vec![]), None);
}

#[test]
fn validate_allow_refuses_a_rule_that_does_not_cover_the_command() {
    let a = line(vec![
        part("npm test", CommandClass::Mutating),
        part("rm x", CommandClass::Mutating),
    ]);
    let err = validate_allow(&allow("npm test"), &a).unwrap_err();
    assert!(err.contains("`rm x`"), "{err}");
    assert!(
        validate_allow(
            &allow("npm test"),
            &line(vec![part("npm test -w", CommandClass::Mutating)])
        )
        .is_ok()
    );
    assert!(
        validate_allow(
            &deny("npm test"),
            &line(vec![part("npm test", CommandClass::Mutating)])
        )
        .is_err()
    );
    assert!(validate_allow(&allow("npm test"), &line(vec![])).is_err());
    let mut effect = part("git diff --ext-diff", CommandClass::ReadOnly);
    effect.side_effect = Some("`--ext-diff` runs an external diff program".into());
    let err = validate_allow(&allow("git diff"), &line(vec![effect])).unwrap_err();
    assert!(err.contains("--ext-diff"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Properties on hand-built parts: whatever the rules, Allowed means each part is covered by
// one of the reported rules on its own terms, and a matching deny always wins.

fn arb_word() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "git",
        "diff",
        "npm",
        "test",
        "rm",
        "-r",
        "--output=x",
        "push",
        "x",
        "--stat",
    ])
    .prop_map(str::to_string)
}

fn arb_part() -> impl Strategy<Value = CommandPart> {
    (
        prop::collection::vec(arb_word(), 1..5),
        prop::sample::select(vec![
            CommandClass::ReadOnly,
            CommandClass::ReadsOutside,
            CommandClass::Mutating,
            CommandClass::WritesOutside,
            CommandClass::Dangerous,
        ]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(w, class, literal, effect)| CommandPart {
            text: w.join(" "),
            program: w.first().cloned(),
            class,
            reason: String::new(),
            literal_words: literal.then_some(w),
            side_effect: effect.then(|| "writes a file".to_string()),
        })
}

fn arb_rule() -> impl Strategy<Value = Rule> {
    (prop::collection::vec(arb_word(), 1..3), any::<bool>()).prop_map(|(command, allow)| Rule {
        decision: if allow {
            RuleDecision::Allow
        } else {
            RuleDecision::Deny
        },
        command,
        workspace: None,
    })
}

/// The oracle, written apart from the implementation.
fn covers_by_itself(rule: &Rule, part: &CommandPart) -> bool {
    let Some(w) = &part.literal_words else {
        return false;
    };
    w.len() >= rule.command.len()
        && w[..rule.command.len()] == rule.command[..]
        && (w.len() == rule.command.len()
            || (part.side_effect.is_none()
                && part.class != CommandClass::Dangerous
                && part.class != CommandClass::WritesOutside
                && part.class != CommandClass::ReadsOutside))
}

/// Parts that need no rule: known read-only, no side effect.
fn needs_no_rule(part: &CommandPart) -> bool {
    part.class == CommandClass::ReadOnly && part.side_effect.is_none()
}

proptest! {
    #[test]
    fn allowed_means_every_part_is_covered_by_itself(
        parts in prop::collection::vec(arb_part(), 0..4),
        rules in prop::collection::vec(arb_rule(), 0..6),
    ) {
        let outcome = judge(&rules, parts.clone());
        if let RuleOutcome::Allowed { rules: used } = &outcome {
            prop_assert!(!parts.is_empty());
            prop_assert!(!used.is_empty(), "some rule decided");
            for p in &parts {
                prop_assert!(
                    needs_no_rule(p)
                        || used.iter().any(|r| r.decision == RuleDecision::Allow && covers_by_itself(r, p)),
                    "{:?} allowed by {:?}", p, used
                );
            }
        }
        // Completeness: when every part is covered by some allow rule and no deny rule is in
        // the set, the line is allowed.
        let any_deny = rules.iter().any(|r| r.decision == RuleDecision::Deny);
        let covered = |p: &CommandPart| rules.iter().any(|r| r.decision == RuleDecision::Allow && covers_by_itself(r, p));
        let all_covered = parts.iter().any(covered)
            && parts.iter().all(|p| needs_no_rule(p) || covered(p));
        if !any_deny && all_covered {
            prop_assert!(matches!(outcome, RuleOutcome::Allowed { .. }), "{:?}", outcome);
        }
    }

    #[test]
    fn a_matching_deny_rule_always_wins(
        parts in prop::collection::vec(arb_part(), 1..4),
        rules in prop::collection::vec(arb_rule(), 0..6),
        pick in any::<prop::sample::Index>(),
    ) {
        let target = &parts[pick.index(parts.len())];
        let mut with_deny = rules.clone();
        with_deny.push(Rule {
            decision: RuleDecision::Deny,
            command: words(&target.text)[..1].to_vec(),
            workspace: None,
        });
        let outcome = judge(&with_deny, parts.clone());
        prop_assert!(matches!(outcome, RuleOutcome::Denied { .. }), "{:?}", outcome);
    }

    #[test]
    fn the_deny_index_finds_what_a_scan_of_every_rule_finds(
        parts in prop::collection::vec(arb_part(), 0..4),
        rules in prop::collection::vec(arb_rule(), 0..8),
    ) {
        let scan = rules.iter().find(|r| {
            r.decision == RuleDecision::Deny && parts.iter().any(|p| deny_matches(&r.command, p))
        });
        let outcome = judge(&rules, parts.clone());
        match scan {
            Some(rule) => prop_assert_eq!(outcome, RuleOutcome::Denied { rule: rule.clone() }),
            None => prop_assert!(!matches!(outcome, RuleOutcome::Denied { .. }), "{:?}", outcome),
        }
    }

    #[test]
    fn a_suggestion_always_passes_validation(parts in prop::collection::vec(arb_part(), 0..4)) {
        let a = line(parts);
        if let Some(command) = suggest(&a) {
            let rule = Rule { decision: RuleDecision::Allow, command, workspace: None };
            prop_assert!(validate_allow(&rule, &a).is_ok(), "{:?}", validate_allow(&rule, &a));
            let outcome = RuleSet::new([rule]).judge(&a, Path::new(WS));
            prop_assert!(matches!(outcome, RuleOutcome::Allowed { .. }), "{:?}", outcome);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Real command lines through the classifier.

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    (dir, root)
}

fn assess_in(root: &Path, command: &str) -> CommandAssessment {
    classify_in(
        command,
        &CommandSite {
            workspace: root,
            cwd: root,
            home: None,
        },
    )
}

fn judge_real(rules: &[Rule], root: &Path, command: &str) -> RuleOutcome {
    RuleSet::new(rules.iter().cloned()).judge(&assess_in(root, command), root)
}

mod real_lines {
    use super::*;

    /// Waits on the classifier filling `literal_words`.
    #[test]
    fn a_saved_prefix_allows_the_command_and_harmless_arguments() {
        let (_d, root) = workspace();
        for (rule, command) in [
            ("npm test", "npm test"),
            ("npm test", "npm test --watch"),
            ("git diff", "git diff --stat src"),
            ("cargo check", "cargo check -p tack-engine"),
            ("git diff", "git diff && git diff --stat"),
        ] {
            assert!(
                matches!(
                    judge_real(&[allow(rule)], &root, command),
                    RuleOutcome::Allowed { .. }
                ),
                "`{rule}` should allow `{command}`: {:?}",
                assess_in(&root, command).parts
            );
        }
    }

    /// Waits on the classifier filling `literal_words` (else nothing is offered).
    #[test]
    fn the_suggestion_for_a_plain_command_is_offered_and_covers_it() {
        let (_d, root) = workspace();
        assert_eq!(
            suggest(&assess_in(&root, "npm test -- --watch")),
            Some(words("npm test"))
        );
        assert_eq!(
            suggest(&assess_in(&root, "cargo check -p x")),
            Some(words("cargo check"))
        );
    }

    #[test]
    fn nothing_is_suggested_for_dangerous_dynamic_or_mixed_lines() {
        let (_d, root) = workspace();
        for command in [
            "rm -rf build",
            "$X test",
            "make && npm test",
            "npm test; rm x",
            "X=1 npm test",
            "npm test > /tmp/out",
            "git diff --output=../x",
        ] {
            assert_eq!(suggest(&assess_in(&root, command)), None, "{command}");
        }
    }

    #[test]
    fn the_documented_escapes_are_never_allowed() {
        let (_d, root) = workspace();
        let rules = [allow("git diff")];
        for command in [
            "git diff --output=x",
            "git diff --ext-diff",
            "git -c diff.external=x diff",
            "git diff; rm x",
            "git diff && rm x",
            "git diff | sh",
            "git diff $(rm x)",
            "GIT_EXTERNAL_DIFF=x git diff",
            "git diff > ../out",
        ] {
            assert_eq!(
                judge_real(&rules, &root, command),
                RuleOutcome::NotDecided,
                "{command}: {:?}",
                assess_in(&root, command).parts
            );
        }
    }

    #[test]
    fn deny_rules_refuse_real_lines_however_written() {
        let (_d, root) = workspace();
        let rules = [allow("git"), deny("git push")];
        for command in [
            "git push",
            "git push --force origin main",
            "git -c x=y push",
            "ls && git push",
            "bash -c 'git push'",
            "\"git\" push",
            "$(echo git) push",
        ] {
            assert!(
                matches!(
                    judge_real(&rules, &root, command),
                    RuleOutcome::Denied { .. }
                ),
                "{command}"
            );
        }
        assert!(matches!(
            judge_real(&[deny("curl")], &root, "env A=1 curl https://x.example"),
            RuleOutcome::Denied { .. }
        ));
    }
}

/// What can be appended to an allowed prefix to try to widen it.
fn escapes() -> Vec<(&'static str, &'static str)> {
    // (prefix, line with the prefix first) — every line has a part the prefix must not
    // cover: an option that writes or runs a program, another program after a separator or
    // in a substitution, an assignment, a redirection out of the workspace.
    vec![
        ("git diff", "git diff --output=x"),
        ("git diff", "git diff --ext-diff"),
        ("git diff", "git diff --output x"),
        ("sort", "sort -o out a.txt"),
        ("sort", "sort --output=out a.txt"),
        ("find .", "find . -exec rm {} ;"),
        ("find .", "find . -execdir sh -c x ;"),
        ("find .", "find . -fprint out"),
        ("find .", "find . -delete"),
        ("sed -n", "sed -n w/tmp/x a.txt"),
        ("sed -n", "sed -n e a.txt"),
    ]
}

const SEPARATORS: &[&str] = &["; ", " && ", " || ", " | ", " & ", "\n"];
const OTHERS: &[&str] = &[
    "rm x",
    "curl https://x.example",
    "sh",
    "python3 y.py",
    "npm publish",
];
const ASSIGNMENTS: &[&str] = &[
    "X=1 ",
    "GIT_EXTERNAL_DIFF=x ",
    "LD_PRELOAD=/tmp/x.so ",
    "PAGER=sh ",
];
const HARMLESS: &[&str] = &["--stat", "-v", "src", "--", "a.txt"];

fn arb_prefix() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "git diff",
        "npm test",
        "cargo check",
        "ls",
        "sort",
        "find .",
        "sed -n",
    ])
}

fn arb_tail() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(HARMLESS.to_vec()), 0..3)
        .prop_map(|w| w.iter().map(|w| format!(" {w}")).collect::<String>())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn an_appended_writing_or_running_option_is_never_allowed(
        pick in any::<prop::sample::Index>(),
        tail in arb_tail(),
    ) {
        let (_d, root) = workspace();
        let all = escapes();
        let (prefix, command) = all[pick.index(all.len())];
        let command = format!("{command}{tail}");
        prop_assert_eq!(judge_real(&[allow(prefix)], &root, &command), RuleOutcome::NotDecided, "{}", command);
    }

    #[test]
    fn another_program_after_a_separator_is_never_allowed(
        prefix in arb_prefix(),
        tail in arb_tail(),
        sep in prop::sample::select(SEPARATORS.to_vec()),
        other in prop::sample::select(OTHERS.to_vec()),
        other_first in any::<bool>(),
    ) {
        let (_d, root) = workspace();
        let mine = format!("{prefix}{tail}");
        let command = if other_first { format!("{other}{sep}{mine}") } else { format!("{mine}{sep}{other}") };
        prop_assert_eq!(judge_real(&[allow(prefix)], &root, &command), RuleOutcome::NotDecided, "{}", command);
    }

    #[test]
    fn a_substitution_or_an_assignment_is_never_allowed(
        prefix in arb_prefix(),
        tail in arb_tail(),
        other in prop::sample::select(OTHERS.to_vec()),
        assignment in prop::sample::select(ASSIGNMENTS.to_vec()),
        form in 0..4usize,
    ) {
        let (_d, root) = workspace();
        let command = match form {
            0 => format!("{prefix}{tail} $({other})"),
            1 => format!("{prefix}{tail} `{other}`"),
            2 => format!("{assignment}{prefix}{tail}"),
            _ => format!("{prefix}{tail} \"$({other})\""),
        };
        prop_assert_eq!(judge_real(&[allow(prefix)], &root, &command), RuleOutcome::NotDecided, "{}", command);
    }
}

// ---------------------------------------------------------------------------------------------
// `[[rules]]` in config.toml.

const FILE: &str = r#"# My settings.
approval = "untrusted"   # ask first

[[rules]]
# Tests are fine.
decision = "allow"
command = "npm test"

[[rules]]
decision = "deny"
command = ["git", "push"]
workspace = "/home/me/app"
"#;

fn config_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn rules_load_from_strings_or_words() {
    let (_d, path) = config_file(FILE);
    let config = Config::load(&path).unwrap();
    assert_eq!(
        config.rules,
        vec![allow("npm test"), scoped(deny("git push"), "/home/me/app")]
    );
    let set = RuleSet::from_config(&config);
    assert_eq!(set.len(), 2);
    // Quoting splits as a shell would.
    let (_d, path) = config_file("[[rules]]\ndecision = \"allow\"\ncommand = \"grep -e 'a b'\"\n");
    assert_eq!(
        Config::load(&path).unwrap().rules[0].command,
        vec!["grep", "-e", "a b"]
    );
}

#[test]
fn a_bad_rule_is_a_load_error_with_its_line_and_column() {
    for (text, line, needle) in [
        (
            "[[rules]]\ndecision = \"allow\"\ncommand = \"\"\n",
            3,
            "at least one word",
        ),
        (
            "[[rules]]\ndecision = \"allow\"\ncommand = []\n",
            3,
            "at least one word",
        ),
        (
            "[[rules]]\ndecision = \"allow\"\ncommand = \"a 'b\"\n",
            3,
            "does not split",
        ),
        (
            "[[rules]]\ndecision = \"maybe\"\ncommand = \"ls\"\n",
            2,
            "maybe",
        ),
        (
            "[[rules]]\ndecision = \"allow\"\ncommand = \"ls\"\nworkspace = \"rel\"\n",
            4,
            "absolute",
        ),
        (
            "[[rules]]\ndecision = \"allow\"\ncommand = \"ls\"\nscope = \"x\"\n",
            4,
            "scope",
        ),
    ] {
        let (_d, path) = config_file(text);
        let err = ConfigDocument::load(&path).unwrap_err();
        match &err {
            ConfigError::Parse { line: l, .. } => assert_eq!(*l, Some(line), "{text}: {err}"),
            other => panic!("{text}: {other}"),
        }
        assert!(err.to_string().contains(needle), "{text}: {err}");
    }
}

#[test]
fn adding_and_removing_rules_edits_the_file_in_place() {
    let (_d, path) = config_file(FILE);
    let mut doc = ConfigDocument::load(&path).unwrap();
    let make = scoped(allow("make check"), "/home/me/app");
    assert!(doc.add_rule(&make).unwrap());
    assert!(
        !doc.add_rule(&make).unwrap(),
        "an exact duplicate is not added"
    );
    doc.save().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text,
        format!(
            "{FILE}\n[[rules]]\ndecision = \"allow\"\ncommand = \"make check\"\nworkspace = \"/home/me/app\"\n"
        )
    );
    // Words that need quoting are quoted so they split back the same.
    let quoted = allow("x");
    let quoted = Rule {
        command: vec!["grep".into(), "-e".into(), "a b".into()],
        ..quoted
    };
    let mut doc = ConfigDocument::load(&path).unwrap();
    doc.add_rule(&quoted).unwrap();
    doc.save().unwrap();
    assert_eq!(Config::load(&path).unwrap().rules[3], quoted);

    // Removing by index and by exact rule; comments and other settings stay.
    let mut doc = ConfigDocument::load(&path).unwrap();
    assert_eq!(doc.remove_rule(0).unwrap(), Some(allow("npm test")));
    assert_eq!(doc.remove_rule(9).unwrap(), None);
    assert!(doc.remove_rule_exact(&make).unwrap());
    assert!(!doc.remove_rule_exact(&make).unwrap());
    assert_eq!(
        doc.rules(),
        &[scoped(deny("git push"), "/home/me/app"), quoted.clone()]
    );
    let text = doc.text();
    assert!(
        text.starts_with("# My settings.\napproval = \"untrusted\"   # ask first\n"),
        "{text}"
    );
    assert!(!text.contains("npm test"));
    // The last rule gone, the key goes too.
    doc.remove_rule(0).unwrap();
    doc.remove_rule(0).unwrap();
    assert!(!doc.text().contains("[[rules]]"), "{}", doc.text());
    // A malformed rule is refused, the document unchanged.
    let before = doc.text();
    assert!(matches!(
        doc.add_rule(&Rule {
            command: vec![],
            ..allow("x")
        }),
        Err(ConfigError::InvalidRule(_))
    ));
    assert_eq!(doc.text(), before);
}

#[test]
fn inline_rule_lists_are_edited_too_and_a_broken_file_is_never_written() {
    let (_d, path) = config_file("rules = [ { decision = \"allow\", command = \"ls\" } ]\n");
    let mut doc = ConfigDocument::load(&path).unwrap();
    doc.add_rule(&deny("rm")).unwrap();
    assert_eq!(doc.rules(), &[allow("ls"), deny("rm")]);
    assert_eq!(doc.remove_rule(0).unwrap(), Some(allow("ls")));
    assert_eq!(doc.rules(), &[deny("rm")]);

    let broken = "[[rules]]\ndecision = \"allow\"\ncommand = \"\"\n";
    let (_d, path) = config_file(broken);
    assert!(tack_engine::rules::add_rule(&path, &allow("ls")).is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
}

#[test]
fn the_file_level_api_lists_adds_and_deletes() {
    use tack_engine::rules::{RuleSelector, add_rule, delete_rule, list_rules};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub").join("config.toml");
    assert!(list_rules(&path).unwrap().is_empty());
    assert!(add_rule(&path, &allow("npm test")).unwrap());
    assert!(add_rule(&path, &deny("git push")).unwrap());
    assert!(!add_rule(&path, &deny("git push")).unwrap());
    assert_eq!(
        list_rules(&path).unwrap(),
        vec![allow("npm test"), deny("git push")]
    );
    assert_eq!(
        delete_rule(&path, &RuleSelector::Exact(allow("npm test"))).unwrap(),
        Some(allow("npm test"))
    );
    assert_eq!(delete_rule(&path, &RuleSelector::Index(5)).unwrap(), None);
    assert_eq!(
        delete_rule(&path, &RuleSelector::Index(0)).unwrap(),
        Some(deny("git push"))
    );
    assert!(list_rules(&path).unwrap().is_empty());
}

#[test]
fn a_config_with_rules_saves_and_loads_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let config = Config {
        rules: vec![
            allow("npm test"),
            scoped(deny("git push"), "/home/me/app"),
            Rule {
                command: vec!["grep".into(), "-e".into(), "it's a b".into()],
                ..allow("x")
            },
        ],
        ..Config::default()
    };
    config.save(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("command = \"npm test\""), "{text}");
    assert_eq!(Config::load(&path).unwrap(), config);
}
