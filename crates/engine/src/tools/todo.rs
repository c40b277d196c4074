//! `todo_write`: the model's task list for the session, shown by the UI.
//!
//! The list lives in the call's output (`ToolDetails::Todos`), not in engine state: the UI
//! shows the latest list found in history, and a resumed session gets it back for free.

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::json;
use tack_protocol::{TodoEntry, ToolDetails, ToolOutput, ToolSpec};

use super::args::ArgsSchema;
use super::{PreparedCall, ToolAction, ToolContext, ToolHandler, ToolInput};

/// The `todo_write` tool. Arguments: `{todos: [{content: string, status: "pending" |
/// "in_progress" | "completed"}]}`; the whole list is replaced on every call.
pub struct TodoWriteTool {
    args: ArgsSchema,
}

impl Default for TodoWriteTool {
    fn default() -> Self {
        Self::new()
    }
}

impl TodoWriteTool {
    /// Engine name.
    pub const NAME: &'static str = "todo_write";

    /// Creates the tool.
    pub fn new() -> Self {
        TodoWriteTool {
            args: ArgsSchema::new(
                Self::NAME,
                json!({
                    "type": "object",
                    "properties": {
                        "todos": {
                            "type": "array",
                            "description": "The complete list, in order; replaces the previous one",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "content": {"type": "string", "minLength": 1, "description": "What to do"},
                                    "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                                },
                                "required": ["content", "status"],
                                "additionalProperties": false
                            }
                        }
                    },
                    "required": ["todos"],
                    "additionalProperties": false
                }),
            ),
        }
    }
}

#[derive(Deserialize)]
struct TodoArgs {
    todos: Vec<TodoEntry>,
}

struct PreparedTodo {
    todos: Vec<TodoEntry>,
    action: ToolAction,
}

impl ToolHandler for TodoWriteTool {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec::function(
            Self::NAME,
            "Keep a short task list for multi-step work: send the whole list each time, with each item pending, in_progress or completed. Keep at most one item in progress. The user sees the list.",
            self.args.schema().clone(),
        )
    }

    fn prepare(
        &self,
        input: ToolInput,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn PreparedCall>, ToolOutput> {
        let args: TodoArgs = self.args.parse(input)?;
        Ok(Box::new(PreparedTodo {
            todos: args.todos,
            action: ToolAction::Internal,
        }))
    }
}

impl PreparedCall for PreparedTodo {
    fn action(&self) -> &ToolAction {
        &self.action
    }

    fn run(self: Box<Self>, _ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let count = |s: &str| self.todos.iter().filter(|t| t.status == s).count();
            let mut text = format!(
                "Todo list updated: {} pending, {} in progress, {} completed.",
                count("pending"),
                count("in_progress"),
                count("completed")
            );
            for (i, t) in self.todos.iter().enumerate() {
                text.push_str(&format!("\n{}. [{}] {}", i + 1, t.status, t.content));
            }
            let mut out = ToolOutput::ok(text);
            out.details = Some(ToolDetails::Todos { todos: self.todos });
            out
        })
    }
}
