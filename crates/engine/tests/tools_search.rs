//! `list_dir`, `glob` and `grep` over real directory trees.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use tack_engine::tools::{
    GlobTool, GrepTool, ListDirTool, ToolContext, ToolHandler, ToolInput, ToolSet,
};
use tack_protocol::{ToolOutput, ToolStatus};

async fn call(tool: &dyn ToolHandler, dir: &Path, args: Value) -> ToolOutput {
    let ctx = ToolContext::new(dir);
    match tool.prepare(ToolInput::Json(args), &ctx) {
        Ok(prepared) => prepared.run(ctx).await,
        Err(out) => out,
    }
}

fn write(root: &Path, rel: &str, content: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

fn set_mtime(root: &Path, rel: &str, secs_ago: u64) {
    let f = std::fs::File::options()
        .write(true)
        .open(root.join(rel))
        .unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(secs_ago))
        .unwrap();
}

/// A small project: sources, an ignored build dir, a hidden dir.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "target/\n*.log\n");
    write(root, "Cargo.toml", "[package]\nname = \"demo\"\n");
    write(
        root,
        "src/main.rs",
        "fn main() {\n    println!(\"Hello\");\n}\n",
    );
    write(
        root,
        "src/lib.rs",
        "pub fn hello() -> &'static str {\n    \"hello\"\n}\n",
    );
    write(root, "src/util/mod.rs", "// helpers\n");
    write(root, "target/debug/out.rs", "fn hello() {}\n");
    write(root, "run.log", "hello from the log\n");
    write(root, ".github/ci.yml", "name: hello\n");
    dir
}

#[tokio::test]
async fn list_dir_is_a_sorted_tree_without_ignored_entries() {
    let dir = project();
    let out = call(&ListDirTool::new(), dir.path(), json!({})).await;
    assert_eq!(out.status, ToolStatus::Completed);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(
        out.text,
        format!(
            "{}/\n  .github/\n    ci.yml\n  .gitignore\n  Cargo.toml\n  src/\n    lib.rs\n    main.rs\n    util/\n",
            root.display()
        )
    );
    let out = call(
        &ListDirTool::new(),
        dir.path(),
        json!({"path": "src", "depth": 1}),
    )
    .await;
    assert!(
        out.text.ends_with("\n  lib.rs\n  main.rs\n  util/\n"),
        "{}",
        out.text
    );
}

#[tokio::test]
async fn list_dir_caps_entries_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..510 {
        write(dir.path(), &format!("f{i:03}"), "");
    }
    let out = call(&ListDirTool::new(), dir.path(), json!({})).await;
    assert!(
        out.text.ends_with(
            "… 10 more entries not shown (limit 500); list a subdirectory or use a smaller depth.\n"
        ),
        "{}",
        out.text
    );
}

#[tokio::test]
async fn list_dir_errors() {
    let dir = project();
    let out = call(
        &ListDirTool::new(),
        dir.path(),
        json!({"path": "Cargo.toml"}),
    )
    .await;
    assert!(
        out.text.contains("is a file, not a directory"),
        "{}",
        out.text
    );
    let out = call(&ListDirTool::new(), dir.path(), json!({"path": "missing"})).await;
    assert_eq!(out.status, ToolStatus::Failed);
    assert!(
        out.text.contains("no such file or directory"),
        "{}",
        out.text
    );
}

#[tokio::test]
async fn glob_matches_newest_first_and_skips_ignored_and_hidden() {
    let dir = project();
    set_mtime(dir.path(), "src/main.rs", 300);
    set_mtime(dir.path(), "src/lib.rs", 100);
    set_mtime(dir.path(), "src/util/mod.rs", 200);
    let out = call(&GlobTool::new(), dir.path(), json!({"pattern": "**/*.rs"})).await;
    assert_eq!(out.text, "src/lib.rs\nsrc/util/mod.rs\nsrc/main.rs\n");
    let out = call(
        &GlobTool::new(),
        dir.path(),
        json!({"pattern": "*.rs", "path": "src"}),
    )
    .await;
    assert_eq!(out.text, "src/lib.rs\nsrc/main.rs\n");
    let out = call(&GlobTool::new(), dir.path(), json!({"pattern": "**/*.yml"})).await;
    assert_eq!(out.text, "No files match under the workspace.");
    let out = call(
        &GlobTool::new(),
        dir.path(),
        json!({"pattern": ".github/*.yml"}),
    )
    .await;
    assert_eq!(out.text, ".github/ci.yml\n");
    let out = call(&GlobTool::new(), dir.path(), json!({"pattern": "src/[z"})).await;
    assert_eq!(out.status, ToolStatus::Failed);
    assert!(out.text.contains("not a valid glob"), "{}", out.text);
}

#[tokio::test]
async fn glob_caps_results_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..205 {
        write(dir.path(), &format!("f{i:03}.txt"), "");
    }
    let out = call(&GlobTool::new(), dir.path(), json!({"pattern": "*.txt"})).await;
    assert_eq!(out.text.lines().count(), 201);
    assert!(
        out.text
            .ends_with("… 5 more files not shown (205 matches); use a narrower pattern or path.\n")
    );
}

#[tokio::test]
async fn grep_prints_path_line_text_and_respects_ignores() {
    let dir = project();
    let out = call(&GrepTool::new(), dir.path(), json!({"pattern": "hello"})).await;
    assert_eq!(
        out.text,
        "src/lib.rs:1:pub fn hello() -> &'static str {\nsrc/lib.rs:2:    \"hello\"\n[2 matching lines in 1 file]\n"
    );
    let out = call(
        &GrepTool::new(),
        dir.path(),
        json!({"pattern": "hello", "case_insensitive": true, "glob": "*.rs"}),
    )
    .await;
    assert!(out.text.starts_with("src/lib.rs:1:"), "{}", out.text);
    assert!(
        out.text
            .contains("src/main.rs:2:    println!(\"Hello\");\n"),
        "{}",
        out.text
    );
}

#[tokio::test]
async fn grep_context_and_limits() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=20)
        .map(|i| {
            if i % 5 == 0 {
                format!("match {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    write(dir.path(), "f.txt", &body);
    let out = call(
        &GrepTool::new(),
        dir.path(),
        json!({"pattern": "^match", "context": 1, "max_results": 2}),
    )
    .await;
    assert_eq!(
        out.text,
        "f.txt-4-line 4\nf.txt:5:match 5\nf.txt-6-line 6\n--\nf.txt-9-line 9\nf.txt:10:match 10\n\
         [stopped at 2 matching lines (max_results); narrow the pattern, path or glob, or raise max_results]\n"
    );
}

#[tokio::test]
async fn grep_errors_and_no_matches() {
    let dir = project();
    let out = call(&GrepTool::new(), dir.path(), json!({"pattern": "("})).await;
    assert_eq!(out.status, ToolStatus::Failed);
    assert!(
        out.text.contains("`pattern` is not a valid regex"),
        "{}",
        out.text
    );
    let out = call(
        &GrepTool::new(),
        dir.path(),
        json!({"pattern": "zzz_nothing"}),
    )
    .await;
    assert_eq!(out.text, "No matches under the workspace.");
    let out = call(
        &GrepTool::new(),
        dir.path(),
        json!({"pattern": "x", "path": "nope"}),
    )
    .await;
    assert!(out.text.contains("does not exist"), "{}", out.text);
}

#[test]
fn the_builtin_set_has_every_tool_once() {
    let set = ToolSet::builtin();
    assert_eq!(
        set.names(),
        vec![
            "shell",
            "read_file",
            "write_file",
            "edit",
            "apply_patch",
            "list_dir",
            "glob",
            "grep",
            "todo_write",
            "ask_user",
            "terminal"
        ]
    );
    for name in set.names() {
        assert_eq!(set.get(name).unwrap().spec().name, name);
    }
    assert!(set.get("nope").is_none());
}
