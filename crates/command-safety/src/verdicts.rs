//! Verdicts: what one simple command is judged to be, and what it gives its pipeline.

use crate::rules::is_shell;
use crate::{CommandClass, CommandPart};

/// What a stage writes, for `… | xargs cat`: whether its lines are paths inside the
/// workspace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Listing {
    /// Anything.
    #[default]
    Other,
    /// Paths it found inside the workspace (`find .`, `git ls-files`, `grep -l x src`).
    PathsInside,
    /// A selection of its input lines (`sort`, `head`, `grep x`): paths if its input was.
    InputLines,
}

/// What a command contributes to its pipeline, for rules that span stages.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stage {
    pub(crate) program: Option<String>,
    /// A shell or interpreter reading its program from stdin.
    pub(crate) runs_stdin: bool,
    /// The literal text an `echo`/`printf` stage writes, when a shell reading it would see
    /// exactly that text (no escapes or formats to interpret).
    pub(crate) literal_output: Option<String>,
    /// `xargs` giving a read-only program file names from its input.
    pub(crate) reads_input_paths: bool,
    /// `xargs` giving a file-changing program (`rm`, `sed -i`, …) file names from its input.
    pub(crate) writes_input_paths: bool,
    /// What its output lines are.
    pub(crate) listing: Listing,
}

/// The verdict on one simple command.
pub(crate) struct Judged {
    pub(crate) program: Option<String>,
    pub(crate) class: CommandClass,
    pub(crate) reason: String,
    /// See [`CommandPart::side_effect`].
    pub(crate) side_effect: Option<String>,
    pub(crate) stage: Stage,
}

impl Judged {
    pub(crate) fn new(
        program: Option<&str>,
        class: CommandClass,
        reason: impl Into<String>,
    ) -> Self {
        Judged {
            program: program.map(str::to_string),
            class,
            reason: reason.into(),
            side_effect: None,
            stage: Stage {
                program: program.map(str::to_string),
                ..Stage::default()
            },
        }
    }

    pub(crate) fn read_only(program: Option<&str>, reason: &str) -> Self {
        Judged::new(program, CommandClass::ReadOnly, reason)
    }

    /// The verdict with its reason as the side effect (see [`CommandPart::side_effect`]).
    pub(crate) fn effect(mut self) -> Self {
        self.side_effect = Some(self.reason.clone());
        self
    }
}

/// The first of the most severe verdicts.
pub(crate) fn worst(verdicts: Vec<(CommandClass, String)>) -> (CommandClass, String) {
    let max = verdicts
        .iter()
        .map(|(c, _)| *c)
        .max()
        .unwrap_or(CommandClass::ReadOnly);
    verdicts
        .into_iter()
        .find(|(c, _)| *c == max)
        .unwrap_or((CommandClass::ReadOnly, String::new()))
}

pub(crate) fn part(
    text: &str,
    program: Option<&str>,
    class: CommandClass,
    reason: impl Into<String>,
) -> CommandPart {
    CommandPart {
        text: text.trim().to_string(),
        program: program.map(str::to_string),
        class,
        reason: reason.into(),
        literal_words: None,
        side_effect: None,
    }
}

/// "script" for a shell, "program" for another interpreter.
pub(crate) fn script_or_program(program: &str) -> &'static str {
    if is_shell(program) {
        "script"
    } else {
        "program"
    }
}
