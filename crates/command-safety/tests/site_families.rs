//! Families that depend on the workspace: the repository's own git configuration, and globs
//! that match file names that look like options.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use proptest::prelude::*;
use std::path::Path;
use tack_command_safety::{CommandClass, CommandSite, classify_in};

fn judge(root: &Path, command: &str) -> (CommandClass, String) {
    let site = CommandSite {
        workspace: root,
        cwd: root,
        home: None,
    };
    let got = classify_in(command, &site);
    (got.class, got.reason)
}

fn repo(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join(".git/config"), config).unwrap();
    dir
}

/// Configuration a hostile repository can carry that names a program.
const HOSTILE: &[&str] = &[
    "[core]\n\tfsmonitor = ./x\n",
    "[core]\n\tpager = ./x\n",
    "[core]\n\tsshCommand = ./x\n",
    "[core]\n\thooksPath = ./hooks\n",
    "[core]\n\teditor = ./x\n",
    "[sequence]\n\teditor = ./x\n",
    "[gpg]\n\tprogram = ./x\n",
    "[credential]\n\thelper = ./x\n",
    "[diff \"x\"]\n\ttextconv = ./x\n",
    "[diff \"x\"]\n\tcommand = ./x\n",
    "[filter \"x\"]\n\tclean = ./x\n",
    "[filter \"x\"]\n\tsmudge = ./x\n",
    "[filter \"x\"]\n\tprocess = ./x\n",
    "[include]\n\tpath = ../x\n",
    "[includeIf \"gitdir:/\"]\n\tpath = ../x\n",
    "[alias]\n\tst = !./x\n",
    "[CORE]\n\tPAGER = ./x\n",
    "[diff.x]\n\ttextconv = ./x\n",
];

proptest! {
    /// Whatever program-naming key a repository sets, no git command in it is read-only.
    #[test]
    fn a_hostile_repository_config_is_never_read_only(
        config in 0..HOSTILE.len(),
        command in prop::sample::select(vec!["git status", "git diff", "git log -p", "git show", "git blame a"]),
    ) {
        let dir = repo(HOSTILE[config]);
        let (class, reason) = judge(dir.path(), command);
        prop_assert!(class >= CommandClass::Mutating, "{command} with {:?}: {class} ({reason})", HOSTILE[config]);
    }
}

#[test]
fn a_plain_repository_is_read_only() {
    let dir = repo(
        "[core]\n\tbare = false\n\tfsmonitor = false\n[user]\n\tname = x\n[alias]\n\tst = status\n",
    );
    for command in ["git status", "git diff", "git log --oneline"] {
        let (class, reason) = judge(dir.path(), command);
        assert_eq!(class, CommandClass::ReadOnly, "{command}: {reason}");
    }
}

#[test]
fn globs_matching_option_names_are_those_options() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["-rf", "a.txt", "--output=x"] {
        std::fs::write(dir.path().join(name), "").unwrap();
    }
    let (class, reason) = judge(dir.path(), "rm *");
    assert_eq!(class, CommandClass::Dangerous, "rm *: {reason}");
    let (class, reason) = judge(dir.path(), "sort *");
    assert!(class >= CommandClass::Mutating, "sort *: {class} {reason}");
    let (class, reason) = judge(dir.path(), "cat *.txt");
    assert_eq!(class, CommandClass::ReadOnly, "cat *.txt: {reason}");
}

#[test]
fn on_request_writes_outside() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for command in [
        "ln -s /etc x; echo hi > x/y",
        "CDPATH=/ cd etc; touch y",
        "env --chdir=/tmp touch y",
        "env --ch=/tmp touch y",
        "cp a --target=/tmp",
        "cp a --target-directory=/tmp",
        "mv a --targ /tmp",
        "split big /tmp/piece",
        "mktemp -p /tmp",
        "mktemp --tmpdir=/tmp",
        "mktemp",
        "git bundle create /tmp/x.bundle HEAD",
        "git config --file /tmp/x a.b c",
        "bash /tmp/x.sh",
        "python3 /tmp/x.py",
        "time -o /tmp/x ls",
    ] {
        let (class, reason) = judge(root, command);
        assert!(
            class >= CommandClass::WritesOutside,
            "{command}: {class} ({reason})"
        );
    }
}

#[test]
fn reads_outside_through_options() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for command in [
        "date -f /etc/passwd",
        "date --file=/etc/passwd",
        "date --fi=/etc/passwd",
        "diff --from-file=/etc/passwd a",
        "diff --from=/etc/passwd a",
        "diff --to-f /etc/passwd a",
        "grep --fil=/etc/shadow a",
        "xargs -a /etc/passwd cat",
        "xargs --arg-file=/etc/passwd cat",
    ] {
        let (class, reason) = judge(root, command);
        assert!(
            class >= CommandClass::ReadsOutside,
            "{command}: {class} ({reason})"
        );
    }
}

#[test]
fn git_pointed_outside_by_its_environment() {
    let dir = tempfile::tempdir().unwrap();
    for command in [
        "GIT_DIR=/tmp/x git init",
        "GIT_WORK_TREE=/tmp git checkout -- a",
        "GIT_TRACE=/tmp/log git status",
    ] {
        let (class, reason) = judge(dir.path(), command);
        assert!(
            class >= CommandClass::WritesOutside,
            "{command}: {class} ({reason})"
        );
    }
}
