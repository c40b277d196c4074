//! The session-facing tools: `todo_write` and `ask_user`.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::json;
use tack_engine::tools::{
    AskUserTool, TodoWriteTool, ToolContext, ToolHandler, ToolInput, UserQuestions,
};
use tack_protocol::{Question, QuestionAnswer, ToolDetails, ToolStatus};

async fn run(
    tool: &dyn ToolHandler,
    ctx: &ToolContext,
    args: serde_json::Value,
) -> tack_protocol::ToolOutput {
    match tool.prepare(ToolInput::Json(args), ctx) {
        Ok(p) => p.run(ctx.clone()).await,
        Err(out) => out,
    }
}

#[tokio::test]
async fn todo_write_reports_counts_and_carries_the_list_for_the_ui() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    let out = run(
        &TodoWriteTool::new(),
        &ctx,
        json!({"todos": [
            {"content": "read the failing test", "status": "completed"},
            {"content": "fix the parser", "status": "in_progress"},
            {"content": "run the suite", "status": "pending"}
        ]}),
    )
    .await;
    assert_eq!(out.status, ToolStatus::Completed);
    assert!(
        out.text
            .starts_with("Todo list updated: 1 pending, 1 in progress, 1 completed."),
        "{}",
        out.text
    );
    assert!(out.text.contains("2. [in_progress] fix the parser"));
    let Some(ToolDetails::Todos { todos }) = out.details else {
        panic!("no todo details")
    };
    assert_eq!(todos.len(), 3);
    let bad = run(
        &TodoWriteTool::new(),
        &ctx,
        json!({"todos": [{"content": "x", "status": "done"}]}),
    )
    .await;
    assert_eq!(bad.status, ToolStatus::Failed);
    assert!(bad.text.contains("status"), "{}", bad.text);
}

struct Scripted {
    asked: Mutex<Vec<Question>>,
    reply: Option<Vec<QuestionAnswer>>,
}

impl UserQuestions for Scripted {
    fn ask(
        &self,
        _call_id: &str,
        questions: Vec<Question>,
    ) -> BoxFuture<'static, Option<Vec<QuestionAnswer>>> {
        self.asked.lock().unwrap().extend(questions);
        let reply = self.reply.clone();
        Box::pin(async move { reply })
    }
}

#[tokio::test]
async fn ask_user_relays_answers_and_says_so_when_nobody_can_answer() {
    let dir = tempfile::tempdir().unwrap();
    let args = json!({"questions": [{"question": "Which database?", "header": "DB", "options": [{"label": "SQLite"}, {"label": "Postgres", "description": "needs a server"}]}]});
    let headless = ToolContext::new(dir.path());
    let out = run(&AskUserTool::new(), &headless, args.clone()).await;
    assert_eq!(out.status, ToolStatus::Failed);
    assert!(out.text.contains("No one can answer"), "{}", out.text);

    let user = Arc::new(Scripted {
        asked: Mutex::new(Vec::new()),
        reply: Some(vec![QuestionAnswer {
            question: "Which database?".into(),
            answers: vec!["SQLite".into()],
        }]),
    });
    let mut ctx = ToolContext::new(dir.path());
    ctx.questions = Some(user.clone());
    let out = run(&AskUserTool::new(), &ctx, args.clone()).await;
    assert_eq!(out.status, ToolStatus::Completed);
    assert_eq!(out.text, "The user answered:\n- Which database?: SQLite");
    {
        let asked = user.asked.lock().unwrap();
        assert_eq!(
            asked[0].options[1].description.as_deref(),
            Some("needs a server")
        );
    }

    let dismissing = Arc::new(Scripted {
        asked: Mutex::new(Vec::new()),
        reply: None,
    });
    ctx.questions = Some(dismissing);
    let out = run(&AskUserTool::new(), &ctx, args).await;
    assert!(out.text.contains("dismissed"), "{}", out.text);
}
