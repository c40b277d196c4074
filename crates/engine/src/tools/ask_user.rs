//! `ask_user`: questions for the user, answered in a dialog.
//!
//! The engine supplies a [`UserQuestions`] channel in the [`ToolContext`] when someone can
//! answer (the desktop window; a terminal). Without one — a headless run — the call returns an
//! error telling the model to decide on its own, so the turn never hangs on a question nobody
//! will see.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::json;
use tack_protocol::{Question, QuestionAnswer, ToolOutput, ToolSpec};

use super::args::ArgsSchema;
use super::{PreparedCall, ToolAction, ToolContext, ToolHandler, ToolInput};

/// Someone who can answer questions. `None` from [`UserQuestions::ask`] means the user closed
/// the dialog without answering.
pub trait UserQuestions: Send + Sync {
    /// Asks and waits for the answers.
    fn ask(
        &self,
        call_id: &str,
        questions: Vec<Question>,
    ) -> BoxFuture<'static, Option<Vec<QuestionAnswer>>>;
}

/// A shared question channel.
pub type QuestionChannel = Arc<dyn UserQuestions>;

/// The `ask_user` tool. Arguments: `{questions: [{question, header?, options?: [{label,
/// description?}], multi_select?}]}` (1–4 questions).
pub struct AskUserTool {
    args: ArgsSchema,
}

impl Default for AskUserTool {
    fn default() -> Self {
        Self::new()
    }
}

impl AskUserTool {
    /// Engine name.
    pub const NAME: &'static str = "ask_user";

    /// Creates the tool.
    pub fn new() -> Self {
        AskUserTool {
            args: ArgsSchema::new(
                Self::NAME,
                json!({
                    "type": "object",
                    "properties": {
                        "questions": {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": 4,
                            "items": {
                                "type": "object",
                                "properties": {
                                    "question": {"type": "string", "minLength": 1},
                                    "header": {"type": "string", "description": "A two or three word label"},
                                    "options": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "properties": {
                                                "label": {"type": "string", "minLength": 1},
                                                "description": {"type": "string"}
                                            },
                                            "required": ["label"],
                                            "additionalProperties": false
                                        }
                                    },
                                    "multi_select": {"type": "boolean"}
                                },
                                "required": ["question"],
                                "additionalProperties": false
                            }
                        }
                    },
                    "required": ["questions"],
                    "additionalProperties": false
                }),
            ),
        }
    }
}

#[derive(Deserialize)]
struct AskArgs {
    questions: Vec<Question>,
}

struct PreparedAsk {
    questions: Vec<Question>,
    action: ToolAction,
}

impl ToolHandler for AskUserTool {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec::function(
            Self::NAME,
            "Ask the user up to four questions when a decision is theirs to make (a preference, an ambiguity you cannot settle by reading the code). Offer short options where you can; the user may also answer in their own words.",
            self.args.schema().clone(),
        )
    }

    fn prepare(
        &self,
        input: ToolInput,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn PreparedCall>, ToolOutput> {
        let args: AskArgs = self.args.parse(input)?;
        Ok(Box::new(PreparedAsk {
            questions: args.questions,
            action: ToolAction::Internal,
        }))
    }
}

impl PreparedCall for PreparedAsk {
    fn action(&self) -> &ToolAction {
        &self.action
    }

    fn run(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let Some(channel) = ctx.questions.clone() else {
                return ToolOutput::error(
                    "No one can answer questions in this session (it runs without a user interface). Make a reasonable choice yourself and say which one you made.",
                );
            };
            let asked = channel.ask(&ctx.call_id, self.questions.clone());
            let answers = tokio::select! {
                a = asked => a,
                () = ctx.cancel.cancelled() => return ToolOutput::aborted("aborted: the turn was interrupted while waiting for the user's answer"),
            };
            match answers {
                None => ToolOutput::error(
                    "The user dismissed the questions without answering. Continue with your best judgement or ask differently.",
                ),
                Some(answers) => {
                    let mut text = String::from("The user answered:");
                    for a in &answers {
                        let joined = if a.answers.is_empty() {
                            "(no answer)".to_string()
                        } else {
                            a.answers.join(", ")
                        };
                        text.push_str(&format!("\n- {}: {}", a.question, joined));
                    }
                    ToolOutput::ok(text)
                }
            }
        })
    }
}
