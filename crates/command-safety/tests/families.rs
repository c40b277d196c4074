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
