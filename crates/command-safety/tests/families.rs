//! The families of misjudgement an adversarial tester found: each a table of examples and a
//! property over the whole family.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use proptest::prelude::*;
use tack_command_safety::env::{RISKY_NAMES, RISKY_PREFIXES, risky_variable};
use tack_command_safety::{CommandClass, classify};

use CommandClass::{Dangerous, Mutating, ReadOnly};

#[track_caller]
fn at_least(expected: CommandClass, commands: &[&str]) {
    let wrong: Vec<String> = commands
        .iter()
        .filter_map(|c| {
            let got = classify(c);
            (got.class < expected).then(|| format!("{c:?}: {} ({})", got.class, got.reason))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "expected at least {expected}:\n{}",
        wrong.join("\n")
    );
}

#[track_caller]
fn read_only(commands: &[&str]) {
    let wrong: Vec<String> = commands
        .iter()
        .filter_map(|c| {
            let got = classify(c);
            (got.class != ReadOnly).then(|| format!("{c:?}: {} ({})", got.class, got.reason))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "expected read-only:\n{}",
        wrong.join("\n")
    );
}

/// Ways to set a variable for a read-only command.
const SETTERS: &[&str] = &[
    "{V}=x git status",
    "{V}=x ls",
    "env {V}=x git log",
    "env -i {V}=x cat a",
    "export {V}=x; git diff",
    "declare -x {V}=x; ls",
    "local {V}=x",
    "readonly {V}=x",
    "{V}=x",
    "typeset {V}=x; cat a",
];

#[test]
fn risky_variables_table() {
    for name in [
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG_KEY_0",
        "GIT_CONFIG_VALUE_0",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_TRACE",
        "GIT_TRACE_PACKET",
        "GIT_EXTERNAL_DIFF",
        "GIT_PAGER",
        "GIT_SSH_COMMAND",
        "GIT_ASKPASS",
        "GIT_EDITOR",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "HOME",
        "XDG_CONFIG_HOME",
        "LESSOPEN",
        "LESSCLOSE",
        "LESS",
        "PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "BASH_ENV",
        "ENV",
        "BASH_FUNC_ls%%",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "PATH",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PERL5OPT",
        "PERL5LIB",
        "RUBYOPT",
        "RUBYLIB",
        "NODE_OPTIONS",
        "IFS",
        "PS4",
        "PROMPT_COMMAND",
        "RIPGREP_CONFIG_PATH",
        "GREP_OPTIONS",
        "FZF_DEFAULT_COMMAND",
        "JQ_LIBRARY_PATH",
        "CDPATH",
        "SHELLOPTS",
    ] {
        assert!(risky_variable(name).is_some(), "{name}");
    }
    for name in ["FOO", "LANG", "TZ", "COLUMNS", "RUST_LOG", "NO_COLOR", "CI"] {
        assert!(risky_variable(name).is_none(), "{name}");
    }
}

proptest! {
    /// Any risky variable, set any way, makes the line not read-only.
    #[test]
    fn any_risky_variable_prefix_is_never_read_only(
        pick in 0..(RISKY_NAMES.len() + RISKY_PREFIXES.len()),
        suffix in "[A-Z0-9_]{0,6}",
        setter in 0..SETTERS.len(),
    ) {
        let name = if pick < RISKY_NAMES.len() {
            RISKY_NAMES[pick].0.to_string()
        } else {
            format!("{}{suffix}", RISKY_PREFIXES[pick - RISKY_NAMES.len()].0)
        };
        let command = SETTERS[setter].replace("{V}", &name);
        let got = classify(&command);
        prop_assert!(got.class >= Mutating, "{command:?}: {} ({})", got.class, got.reason);
    }
}

#[test]
fn bash_evaluates_code_inside_strings() {
    at_least(
        Dangerous,
        &[
            "test -v 'a[$(rm -r x)]'",
            "[ -v 'a[$(id)]' ]",
            "[[ -v 'a[$(id)]' ]]",
            "printf -v 'a[$(id)]' %s x",
            "read 'a[$(id)]' <<< x",
            "x='a[$(id)]'; echo $((x))",
            "x='a[$(id)]'; (( x ))",
            "let 'a[$(id)]=1'",
            "x='a[`id`]'; echo ${!x}",
            "echo ${x@P}",
            "declare 'a[$(id)]=1'",
            "local 'a[$(id)]'",
            "x='a[$(id)]'; [[ $x -eq 1 ]]",
            "echo 'a[$(id)]' | { read v; echo $((v)); }",
            "unset 'a[$(id)]'",
        ],
    );
    read_only(&[
        "echo $((1 + 2))",
        "echo '$(x)'",
        "test -v HOME",
        "[[ -n $x ]]",
        "echo 'a[1]'",
    ]);
}

proptest! {
    /// Any command substitution in a subscript bash evaluates is Dangerous, whatever the
    /// context that evaluates it.
    #[test]
    fn any_subscript_code_is_dangerous(
        context in prop::sample::select(vec![
            "test -v '{S}'", "[[ -v '{S}' ]]", "printf -v '{S}' x", "read '{S}' <<< 1",
            "x='{S}'; echo $((x))", "let '{S}=1'", "declare '{S}=1'", "x='{S}'; : ${!x}",
        ]),
        inner in prop::sample::select(vec!["$(id)", "`id`", "$(rm -r x)", "$x", "${x}"]),
        name in "[a-z]{1,4}",
    ) {
        let command = context.replace("{S}", &format!("{name}[{inner}]"));
        let got = classify(&command);
        prop_assert_eq!(got.class, Dangerous, "{:?}: {}", command, got.reason);
    }
}

/// Long options that make a read-only program write a file or run a program.
const WRITING_LONG_OPTIONS: &[(&str, &str, &str)] = &[
    ("sort", "--output", "=x a"),
    ("sort", "--compress-program", "=gzip a"),
    ("sed", "--in-place", " s/a/b/ f"),
    ("sed", "--expression", "='1e id' f"),
    ("sed", "--file", "=x f"),
    ("git log", "--output", "=x"),
    ("git diff", "--output", "=x"),
    ("git diff", "--ext-diff", ""),
    ("git ls-remote", "--upload-pack", "=x origin"),
    ("git grep", "--open-files-in-pager", "=x y"),
    ("rg", "--pre", "=x y"),
    ("man", "--pager", "=x ls"),
    ("bat", "--pager", "=x f"),
    ("less", "--log-file", "=x f"),
    ("awk", "--load", "=x '{print}'"),
    ("awk", "--file", "=x"),
    ("awk", "--pretty-print", "=x '{print}'"),
    ("file", "--compile", " x"),
    ("date", "--set", "=x"),
];

proptest! {
    /// Any abbreviation of a writing long option (at least three letters, as git and getopt
    /// read them) is never read-only.
    #[test]
    fn any_abbreviation_of_a_writing_option_is_never_read_only(
        pick in 0..WRITING_LONG_OPTIONS.len(),
        cut in 3usize..30,
    ) {
        let (program, option, rest) = WRITING_LONG_OPTIONS[pick];
        let cut = cut.min(option.len());
        let command = format!("{program} {}{rest}", &option[..cut]);
        let got = classify(&command);
        prop_assert!(got.class >= Mutating, "{command:?}: {} ({})", got.class, got.reason);
    }
}

#[test]
fn options_that_write_or_run_in_every_spelling() {
    at_least(
        Mutating,
        &[
            "sort -ox a",
            "sort -rox a",
            "sort a -o x",
            "sort --out=x a",
            "sort --o x a",
            "sed -ni 's/a/b/' f",
            "sed -i.bak s/a/b/ f",
            "sed --in s/a/b/ f",
            "sed --e='w out' f",
            "sed -e p -e 'w out' f",
            "sed -f script.sed f",
            "sed -n -f x f",
            "sed 's/a/b/w out' f",
            "sed 'W out' f",
            "sed '1r /etc/passwd' f",
            "awk -f prog.awk f",
            "awk -fprog.awk f",
            "awk -E x f",
            "awk -W exec x",
            "awk -o '{print}' f",
            "gawk -pprof '{print}' f",
            "awk '{print > \"out\"}' f",
            "awk 'BEGIN{ARGV[1]=\"/etc/shadow\"}{print}' f",
            "awk -i inc '{print}' f",
            "uniq - out",
            "uniq in out",
            "uniq -c in out",
            "xxd in out",
            "tee -- -x",
            "tee -a log",
            "tree -o out",
            "date -s now",
            "file -C -m x",
            "git diff --outp=x",
            "git log --output x",
            "git ext-diff",
            "git show --ext-diff",
            "git -c core.pager=x log",
            "git -c diff.x.textconv=y diff",
            "git ls-remote --upload-pack=x origin",
            "git ls-remote 'ext::sh -c id'",
            "git grep -O x",
            "git --exec-path=x log",
            "less -o log f",
            "less '+!id' f",
        ],
    );
    at_least(
        Dangerous,
        &[
            "sed -n '1e id' f",
            "sed --expression='s/x/id/e' f",
            "awk --load x '{print}'",
            "awk 'BEGIN{system(\"id\")}'",
            "awk '{print | \"sh\"}'",
            "awk 'BEGIN{\"id\" | getline}'",
            "rg --pre ./x y",
            "rg --pr=./x y",
            "man -P 'rm -r d' ls",
            "man --pag=x ls",
            "bat --pager x f",
            "git ls-remote --upload-pack=x origin",
            "git reset --har",
            "git reset --hard",
            "git clean --forc -d",
            "git checkout -- ./",
            "git checkout .",
            "git restore x",
            "git restore .",
            "git stash drop",
            "git stash clear",
            "git branch -D x",
            "git push --force-w",
            "git push origin +main",
            "git push --forc",
        ],
    );
    read_only(&[
        "sort -t o a",
        "sort -k 2 -n a",
        "sort --reverse a",
        "sed -n 1p f",
        "sed -e p f",
        "awk '{print $1}' f",
        "awk -F: '{print $1}' f",
        "uniq -c a",
        "uniq a",
        "git diff",
        "git log --oneline",
        "git diff --stat",
        "tee",
        "date",
        "git grep x",
        "less f",
    ]);
}

#[test]
fn files_named_by_options_and_jobs_in_loops() {
    at_least(
        Mutating,
        &[
            "time -o out ls",
            "time --output=out ls",
            "time -a -o out ls",
            "time --app -o x ls",
            "while :; do sleep 100 & done",
            "for i in 1 2 3; do sleep 9 & done",
            "until false; do yes > /dev/null & done",
        ],
    );
    read_only(&[
        "time ls",
        "while read l; do echo $l; done < a",
        "sleep 1 & wait",
    ]);
}
