//! What each part tells the rule engine: its plain words, and the side effect an option gives it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use tack_command_safety::{CommandPart, classify};

/// The part whose program is `program` (the first one).
fn part_of(command: &str, program: &str) -> CommandPart {
    classify(command)
        .parts
        .into_iter()
        .find(|p| p.program.as_deref() == Some(program))
        .unwrap_or_else(|| panic!("no `{program}` part in {command:?}"))
}

fn words(command: &str) -> Option<Vec<String>> {
    classify(command)
        .parts
        .into_iter()
        .next()
        .and_then(|p| p.literal_words)
}

#[test]
fn literal_words_are_what_the_program_receives() {
    let owned = |w: &[&str]| Some(w.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(words("git status"), owned(&["git", "status"]));
    assert_eq!(
        words("git log --oneline -5"),
        owned(&["git", "log", "--oneline", "-5"])
    );
    assert_eq!(
        words("grep 'a b' \"c d\" e\\ f"),
        owned(&["grep", "a b", "c d", "e f"])
    );
    assert_eq!(
        words("cargo test -p x"),
        owned(&["cargo", "test", "-p", "x"])
    );
    // The first command of a list has its own words.
    assert_eq!(words("ls && rm x"), owned(&["ls"]));
    assert_eq!(
        part_of("ls && rm x", "rm").literal_words,
        owned(&["rm", "x"])
    );
    // A nested script's commands too.
    assert_eq!(
        part_of("bash -c 'cat a'", "cat").literal_words,
        owned(&["cat", "a"])
    );
}

#[test]
fn literal_words_are_none_when_anything_is_dynamic() {
    for command in [
        "cat $f",
        "cat \"$f\"",
        "cat $(ls)",
        "cat `ls`",
        "cat *.rs",
        "cat a?",
        "cat ~/x",
        "cat {a,b}",
        "X=1 cat a",
        "cat a > b",
        "cat a 2>/dev/null",
        "cat < a",
        "cat <<EOF\nx\nEOF",
        "cat <<< x",
        "$X a",
        "cat $((1+2))",
    ] {
        let parts = classify(command).parts;
        let own = parts.iter().find(|p| p.program.as_deref() == Some("cat"));
        if let Some(own) = own {
            assert_eq!(own.literal_words, None, "{command:?}: {own:?}");
        }
        assert!(
            parts.first().is_some_and(|p| p.literal_words.is_none()),
            "{command:?}: {parts:?}"
        );
    }
}

#[test]
fn side_effects_name_what_an_option_makes_the_program_do() {
    for (command, program) in [
        ("git diff --output=x", "git"),
        ("git -c core.pager=x log", "git"),
        ("sed 'w out' a", "sed"),
        ("sed -n '1e date' a", "sed"),
        ("sed -i s/a/b/ f", "sed"),
        ("find . -delete", "find"),
        ("find . -exec cat {} ;", "find"),
        ("find . -fprint out", "find"),
        ("sort -o out a", "sort"),
        ("sort a -o out", "sort"),
        ("tee out", "tee"),
        ("rg --pre x y", "rg"),
        ("awk '{print > \"f\"}' a", "awk"),
        ("fd -x rm", "fd"),
        ("uniq a b", "uniq"),
        ("man -P cat ls", "man"),
    ] {
        let part = classify(command)
            .parts
            .into_iter()
            .find(|p| p.program.as_deref() == Some(program))
            .unwrap_or_else(|| panic!("{command:?}: no `{program}` part"));
        assert!(part.side_effect.is_some(), "{command:?}: {part:?}");
    }
    for command in [
        "git diff",
        "git status",
        "sed -n 1p a",
        "find . -name x",
        "sort a",
        "cat a",
        "ls -la",
    ] {
        let parts = classify(command).parts;
        assert!(
            parts.iter().all(|p| p.side_effect.is_none()),
            "{command:?}: {parts:?}"
        );
    }
}

#[test]
fn wrappers_run_another_program() {
    for (command, program) in [
        ("timeout 5 cat a", "cat"),
        ("xargs cat", "cat"),
        ("env cat a", "cat"),
        ("nice -n 5 ls", "ls"),
    ] {
        let part = part_of(command, program);
        assert!(part.side_effect.is_some(), "{command:?}: {part:?}");
    }
}
