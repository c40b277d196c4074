//! `read_file`, `write_file` and `edit` on real files in temp dirs.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::Path;

use serde_json::{Value, json};
use tack_engine::tools::{
    EditTool, ReadFileTool, ToolAction, ToolContext, ToolHandler, ToolInput, WriteFileTool,
};
use tack_protocol::{FileChangeKind, ToolDetails, ToolOutput, ToolStatus};

async fn call(tool: &dyn ToolHandler, dir: &Path, args: Value) -> ToolOutput {
    let ctx = ToolContext::new(dir);
    match tool.prepare(ToolInput::Json(args), &ctx) {
        Ok(prepared) => prepared.run(ctx).await,
        Err(out) => out,
    }
}

fn failed_with(out: &ToolOutput, needle: &str) {
    assert_eq!(out.status, ToolStatus::Failed, "{}", out.text);
    assert!(
        out.text.contains(needle),
        "expected {needle:?} in {:?}",
        out.text
    );
}

// ---------------------------------------------------------------- read_file

#[tokio::test]
async fn read_numbers_lines_like_cat_n() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\r\nbeta\ngamma").unwrap();
    let out = call(&ReadFileTool::new(), dir.path(), json!({"path": "a.txt"})).await;
    assert_eq!(out.status, ToolStatus::Completed);
    assert_eq!(out.text, "     1\talpha\n     2\tbeta\n     3\tgamma\n");
}

#[tokio::test]
async fn read_pages_with_offset_and_limit_and_says_what_remains() {
    let dir = tempfile::tempdir().unwrap();
    let content: String = (1..=10).map(|i| format!("l{i}\n")).collect();
    std::fs::write(dir.path().join("a.txt"), content).unwrap();
    let out = call(
        &ReadFileTool::new(),
        dir.path(),
        json!({"path": "a.txt", "offset": 3, "limit": 2}),
    )
    .await;
    assert_eq!(
        out.text,
        "     3\tl3\n     4\tl4\n… 6 more lines; use offset=5 to continue.\n"
    );
    let out = call(
        &ReadFileTool::new(),
        dir.path(),
        json!({"path": "a.txt", "offset": 10}),
    )
    .await;
    assert_eq!(out.text, "    10\tl10\n");
}

#[tokio::test]
async fn read_shortens_long_lines() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("long.txt"),
        format!("{}\n", "x".repeat(2500)),
    )
    .unwrap();
    let out = call(
        &ReadFileTool::new(),
        dir.path(),
        json!({"path": "long.txt"}),
    )
    .await;
    assert!(
        out.text
            .ends_with(" [… line shortened: 500 more characters]\n"),
        "{}",
        &out.text[2000..]
    );
}

#[tokio::test]
async fn read_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("bin"), b"\x7fELF\x00\x01").unwrap();
    std::fs::write(dir.path().join("two.txt"), "a\nb\n").unwrap();
    std::fs::write(dir.path().join("empty.txt"), "").unwrap();
    let tool = ReadFileTool::new();
    failed_with(
        &call(&tool, dir.path(), json!({"path": "nope.txt"})).await,
        "`nope.txt` does not exist",
    );
    failed_with(
        &call(&tool, dir.path(), json!({"path": "sub"})).await,
        "is a directory; use list_dir",
    );
    failed_with(
        &call(&tool, dir.path(), json!({"path": "bin"})).await,
        "is a binary file",
    );
    failed_with(
        &call(&tool, dir.path(), json!({"path": "two.txt", "offset": 5})).await,
        "offset 5 is past the end of `two.txt`, which has 2 lines",
    );
    failed_with(
        &call(&tool, dir.path(), json!({"path": "two.txt", "offset": 0})).await,
        "`offset`",
    );
    failed_with(
        &call(&tool, dir.path(), json!({"file_path": "two.txt"})).await,
        "`path` is missing",
    );
    let out = call(&tool, dir.path(), json!({"path": "empty.txt"})).await;
    assert_eq!(out.text, "`empty.txt` is empty.");
}

#[tokio::test]
async fn read_outside_the_workspace_is_visible_in_the_action() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "s\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        dir.path().join("link.txt"),
    )
    .unwrap();
    let ctx = ToolContext::new(dir.path());
    let prepared = ReadFileTool::new()
        .prepare(ToolInput::Json(json!({"path": "link.txt"})), &ctx)
        .unwrap();
    let real = std::fs::canonicalize(outside.path().join("secret.txt")).unwrap();
    assert_eq!(prepared.action(), &ToolAction::Read { paths: vec![real] });
}

// ---------------------------------------------------------------- write_file

#[tokio::test]
async fn write_creates_parents_and_reports_a_diff() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    let prepared = WriteFileTool::new()
        .prepare(
            ToolInput::Json(json!({"path": "a/b/new.txt", "content": "one\ntwo\n"})),
            &ctx,
        )
        .unwrap();
    let ToolAction::Write { paths, changes } = prepared.action().clone() else {
        panic!()
    };
    assert_eq!(
        paths,
        vec![
            std::fs::canonicalize(dir.path())
                .unwrap()
                .join("a/b/new.txt")
        ]
    );
    assert_eq!(changes[0].kind, FileChangeKind::Add);
    assert_eq!(changes[0].path, "a/b/new.txt");
    assert_eq!(
        changes[0].diff,
        "--- /dev/null\n+++ b/a/b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"
    );
    assert!(!dir.path().join("a").exists(), "prepare must not write");
    let out = prepared.run(ctx).await;
    assert_eq!(out.status, ToolStatus::Completed);
    assert_eq!(out.text, "Created `a/b/new.txt` (8 bytes).");
    assert!(matches!(out.details, Some(ToolDetails::FileChanges { .. })));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a/b/new.txt")).unwrap(),
        "one\ntwo\n"
    );
}

#[tokio::test]
async fn write_over_an_existing_file_diffs_against_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "one\ntwo\n").unwrap();
    let ctx = ToolContext::new(dir.path());
    let prepared = WriteFileTool::new()
        .prepare(
            ToolInput::Json(json!({"path": "f.txt", "content": "one\nTWO\n"})),
            &ctx,
        )
        .unwrap();
    let ToolAction::Write { changes, .. } = prepared.action().clone() else {
        panic!()
    };
    assert_eq!(changes[0].kind, FileChangeKind::Update);
    assert_eq!(
        changes[0].diff,
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
    );
    assert_eq!(prepared.run(ctx).await.text, "Replaced `f.txt` (8 bytes).");
}

#[tokio::test]
async fn write_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let tool = WriteFileTool::new();
    failed_with(
        &call(&tool, dir.path(), json!({"path": "d", "content": "x"})).await,
        "is a directory",
    );
    failed_with(
        &call(&tool, dir.path(), json!({"path": "x.txt"})).await,
        "`content` is missing",
    );
    failed_with(
        &call(&tool, dir.path(), json!({"path": "x.txt", "content": 5})).await,
        "`content`",
    );
}

#[tokio::test]
async fn write_refuses_when_the_file_changed_after_prepare() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "v1\n").unwrap();
    let ctx = ToolContext::new(dir.path());
    let prepared = WriteFileTool::new()
        .prepare(
            ToolInput::Json(json!({"path": "f.txt", "content": "mine\n"})),
            &ctx,
        )
        .unwrap();
    std::fs::write(dir.path().join("f.txt"), "user edit\n").unwrap();
    failed_with(
        &prepared.run(ctx).await,
        "changed on disk after this change was prepared",
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "user edit\n"
    );
}

// ---------------------------------------------------------------- edit

#[tokio::test]
async fn edit_replaces_one_exact_occurrence() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.rs"), "fn a() {}\nfn b() {}\n").unwrap();
    let out = call(
        &EditTool::new(),
        dir.path(),
        json!({"path": "f.rs", "old_string": "fn b() {}", "new_string": "fn b() { todo!() }"}),
    )
    .await;
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.rs")).unwrap(),
        "fn a() {}\nfn b() { todo!() }\n"
    );
    let Some(ToolDetails::FileChanges { changes }) = out.details else {
        panic!()
    };
    assert!(
        changes[0]
            .diff
            .contains("-fn b() {}\n+fn b() { todo!() }\n"),
        "{}",
        changes[0].diff
    );
}

#[tokio::test]
async fn edit_replace_all() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "x y x y x").unwrap();
    let out = call(
        &EditTool::new(),
        dir.path(),
        json!({"path": "f.txt", "old_string": "x", "new_string": "z", "replace_all": true}),
    )
    .await;
    assert_eq!(out.status, ToolStatus::Completed);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "z y z y z"
    );
}

#[tokio::test]
async fn edit_keeps_crlf_line_endings_and_other_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let original = b"\xEF\xBB\xBFfirst\r\nsecond\r\nthird\r\n\xFF tail without newline";
    std::fs::write(dir.path().join("w.txt"), original).unwrap();
    // The model sends LF text, as read_file shows it.
    let out = call(
        &EditTool::new(),
        dir.path(),
        json!({"path": "w.txt", "old_string": "second\nthird\n", "new_string": "2nd\n3rd\nmore\n"}),
    )
    .await;
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    assert_eq!(
        std::fs::read(dir.path().join("w.txt")).unwrap(),
        b"\xEF\xBB\xBFfirst\r\n2nd\r\n3rd\r\nmore\r\n\xFF tail without newline"
    );
}

#[tokio::test]
async fn edit_errors_tell_the_model_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "dup\ndup\n").unwrap();
    let tool = EditTool::new();
    failed_with(
        &call(
            &tool,
            dir.path(),
            json!({"path": "f.txt", "old_string": "nope", "new_string": "x"}),
        )
        .await,
        "was not found in `f.txt`; read the file again",
    );
    failed_with(
        &call(
            &tool,
            dir.path(),
            json!({"path": "f.txt", "old_string": "dup", "new_string": "x"}),
        )
        .await,
        "was found 2 times in `f.txt`; add surrounding lines to make it unique, or set replace_all",
    );
    failed_with(
        &call(
            &tool,
            dir.path(),
            json!({"path": "f.txt", "old_string": "dup", "new_string": "dup"}),
        )
        .await,
        "are identical",
    );
    failed_with(
        &call(
            &tool,
            dir.path(),
            json!({"path": "new.txt", "old_string": "a", "new_string": "b"}),
        )
        .await,
        "`new.txt` does not exist; use write_file to create it",
    );
    failed_with(
        &call(
            &tool,
            dir.path(),
            json!({"path": "f.txt", "old_string": "", "new_string": "b"}),
        )
        .await,
        "`old_string`",
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "dup\ndup\n"
    );
}
