//! Environment variables that change what later commands run or which files they read.
//!
//! A variable set before a command (`GIT_PAGER=x git log`), with `env VAR=…`, `export`,
//! `declare -x`, `local`, `readonly` is judged here: a variable that names a program to run,
//! or points a program at other configuration, libraries or files, makes the command
//! Mutating, never read-only. The table is data so that tests can walk it.

use crate::CommandClass;

/// What setting a variable does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariableRisk {
    /// Names a program or shell code that a later command runs.
    Runs,
    /// Points programs at other configuration, libraries, search paths or files.
    Redirects,
}

/// Variables matched by name: (name, what it does, why).
pub const RISKY_NAMES: &[(&str, VariableRisk, &str)] = &[
    (
        "PATH",
        VariableRisk::Runs,
        "chooses which program each name runs",
    ),
    (
        "HOME",
        VariableRisk::Redirects,
        "points programs at another home directory's configuration (`.gitconfig`, rc files)",
    ),
    ("PAGER", VariableRisk::Runs, "names the pager programs run"),
    ("MANPAGER", VariableRisk::Runs, "names the pager `man` runs"),
    ("MANOPT", VariableRisk::Redirects, "adds options to `man`"),
    (
        "SYSTEMD_PAGER",
        VariableRisk::Runs,
        "names the pager systemd tools run",
    ),
    (
        "BAT_PAGER",
        VariableRisk::Runs,
        "names the pager `bat` runs",
    ),
    (
        "BAT_CONFIG_PATH",
        VariableRisk::Redirects,
        "points `bat` at another configuration",
    ),
    (
        "EDITOR",
        VariableRisk::Runs,
        "names the editor programs run",
    ),
    (
        "VISUAL",
        VariableRisk::Runs,
        "names the editor programs run",
    ),
    (
        "BROWSER",
        VariableRisk::Runs,
        "names the browser programs run",
    ),
    (
        "BASH_ENV",
        VariableRisk::Runs,
        "names a script every non-interactive bash runs first",
    ),
    ("ENV", VariableRisk::Runs, "names a script `sh` runs first"),
    (
        "ZDOTDIR",
        VariableRisk::Runs,
        "points zsh at other startup scripts",
    ),
    (
        "INPUTRC",
        VariableRisk::Redirects,
        "points readline at another configuration",
    ),
    (
        "SHELLOPTS",
        VariableRisk::Runs,
        "turns on shell options in every bash started",
    ),
    (
        "BASHOPTS",
        VariableRisk::Runs,
        "turns on shell options in every bash started",
    ),
    (
        "IFS",
        VariableRisk::Runs,
        "changes how the shell splits words, so commands mean something else",
    ),
    (
        "PS4",
        VariableRisk::Runs,
        "is expanded (running its substitutions) for every traced command",
    ),
    (
        "PS1",
        VariableRisk::Runs,
        "is expanded (running its substitutions) at every prompt",
    ),
    (
        "PROMPT_COMMAND",
        VariableRisk::Runs,
        "is run before every prompt",
    ),
    (
        "CDPATH",
        VariableRisk::Redirects,
        "makes `cd NAME` go to a directory elsewhere",
    ),
    (
        "FPATH",
        VariableRisk::Runs,
        "points zsh/ksh at other function definitions",
    ),
    (
        "HISTFILE",
        VariableRisk::Redirects,
        "names the file the shell writes its history to",
    ),
    (
        "NODE_OPTIONS",
        VariableRisk::Runs,
        "adds options (`--require`) to every node process",
    ),
    (
        "RUBYOPT",
        VariableRisk::Runs,
        "adds options (`-r`) to every ruby process",
    ),
    (
        "RUBYLIB",
        VariableRisk::Runs,
        "chooses which ruby libraries load",
    ),
    (
        "PERLLIB",
        VariableRisk::Runs,
        "chooses which perl libraries load",
    ),
    (
        "JAVA_TOOL_OPTIONS",
        VariableRisk::Runs,
        "adds options (agents) to every JVM",
    ),
    (
        "_JAVA_OPTIONS",
        VariableRisk::Runs,
        "adds options (agents) to every JVM",
    ),
    (
        "GCONV_PATH",
        VariableRisk::Runs,
        "makes glibc load character-set modules from elsewhere",
    ),
    (
        "MAKEFLAGS",
        VariableRisk::Runs,
        "adds options to every `make`",
    ),
    (
        "RIPGREP_CONFIG_PATH",
        VariableRisk::Runs,
        "adds options (`--pre`) to every `rg`",
    ),
    (
        "GREP_OPTIONS",
        VariableRisk::Redirects,
        "adds options to every `grep`",
    ),
    (
        "FZF_DEFAULT_COMMAND",
        VariableRisk::Runs,
        "names the command `fzf` runs",
    ),
    (
        "FZF_DEFAULT_OPTS",
        VariableRisk::Runs,
        "adds options (`--preview`) to `fzf`",
    ),
    (
        "TAR_OPTIONS",
        VariableRisk::Runs,
        "adds options (`--to-command`) to every `tar`",
    ),
    (
        "SSH_ASKPASS",
        VariableRisk::Runs,
        "names a program ssh runs",
    ),
    (
        "SUDO_ASKPASS",
        VariableRisk::Runs,
        "names a program sudo runs",
    ),
    (
        "WGETRC",
        VariableRisk::Redirects,
        "points wget at another configuration",
    ),
    (
        "CURL_HOME",
        VariableRisk::Redirects,
        "points curl at another configuration",
    ),
    (
        "TMPDIR",
        VariableRisk::Redirects,
        "moves where programs write their temporary files",
    ),
    (
        "POSIXLY_CORRECT",
        VariableRisk::Redirects,
        "changes how programs read their options",
    ),
    (
        "SHELL",
        VariableRisk::Runs,
        "names the shell programs start",
    ),
    (
        "TERMINFO",
        VariableRisk::Redirects,
        "points programs at another terminal description",
    ),
];

/// Variables matched by prefix: (prefix, what it does, why).
pub const RISKY_PREFIXES: &[(&str, VariableRisk, &str)] = &[
    (
        "GIT_",
        VariableRisk::Runs,
        "changes which configuration, repository, pager, diff or ssh program git uses",
    ),
    (
        "XDG_",
        VariableRisk::Redirects,
        "points programs at another configuration directory",
    ),
    (
        "LESS",
        VariableRisk::Runs,
        "sets what `less` runs on its input (`LESSOPEN`, `LESSCLOSE`) or its options",
    ),
    (
        "LD_",
        VariableRisk::Runs,
        "makes the dynamic loader load other libraries",
    ),
    (
        "DYLD_",
        VariableRisk::Runs,
        "makes the dynamic loader load other libraries",
    ),
    (
        "BASH_FUNC_",
        VariableRisk::Runs,
        "exports a shell function that stands in for a command",
    ),
    (
        "PYTHON",
        VariableRisk::Runs,
        "changes which code python loads (`PYTHONSTARTUP`, `PYTHONPATH`)",
    ),
    (
        "PERL5",
        VariableRisk::Runs,
        "changes which code perl loads (`PERL5OPT`, `PERL5LIB`)",
    ),
    ("PERL_", VariableRisk::Runs, "changes how perl runs"),
    ("RUBY", VariableRisk::Runs, "changes which code ruby loads"),
    ("NODE_", VariableRisk::Runs, "changes which code node loads"),
    (
        "NPM_CONFIG_",
        VariableRisk::Runs,
        "changes npm's configuration (scripts, registries)",
    ),
    (
        "JQ_",
        VariableRisk::Redirects,
        "changes jq's library path or colours",
    ),
    (
        "GNUPG",
        VariableRisk::Redirects,
        "points gpg at another home",
    ),
    ("DIFF", VariableRisk::Redirects, "changes diff's options"),
    (
        "SSH_",
        VariableRisk::Runs,
        "changes how ssh connects and which programs it runs",
    ),
    (
        "CARGO_",
        VariableRisk::Runs,
        "changes cargo's configuration (runners, rustc wrappers)",
    ),
    ("RUSTC", VariableRisk::Runs, "names the compiler cargo runs"),
];

/// The verdict on setting `name`: how risky and why; `None` for a variable that changes
/// nothing a later command runs or reads.
pub fn risky_variable(name: &str) -> Option<(CommandClass, String)> {
    let found = RISKY_NAMES
        .iter()
        .find(|(n, _, _)| *n == name)
        .or_else(|| RISKY_PREFIXES.iter().find(|(p, _, _)| name.starts_with(p)))?;
    let (_, risk, why) = found;
    // Both kinds are Mutating: the program that then runs is one the user's machine already
    // has (`PATH=… ls` picks a program, it does not write one), and setting them is common
    // (`PATH=$PATH:bin cargo test`); the approval shows which variable and why.
    let _ = risk;
    Some((CommandClass::Mutating, format!("setting `{name}` {why}")))
}
