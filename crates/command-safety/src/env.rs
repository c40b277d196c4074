//! Environment variables that change what later commands run or which files they read.

/// Variables that change which programs or libraries later commands run.
pub(crate) fn risky_variable(name: &str) -> Option<String> {
    matches!(
        name,
        "PATH"
            | "LD_PRELOAD"
            | "LD_LIBRARY_PATH"
            | "DYLD_INSERT_LIBRARIES"
            | "DYLD_LIBRARY_PATH"
            | "BASH_ENV"
            | "ENV"
            | "IFS"
            | "PROMPT_COMMAND"
            | "GIT_SSH_COMMAND"
            | "GIT_EXTERNAL_DIFF"
            | "PAGER"
            | "GIT_PAGER"
            | "EDITOR"
            | "SHELLOPTS"
            | "PYTHONSTARTUP"
    )
    .then(|| format!("setting `{name}` changes which programs later commands run"))
}
