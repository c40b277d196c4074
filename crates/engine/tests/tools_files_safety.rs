//! The file tools on files that are not what they seem: hard links to files outside the
//! workspace, special files (FIFOs, sockets, devices, `/proc`), path arguments with NUL bytes,
//! backslashes or Windows forms, and writes into `.git` or Tack's own folders.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use tack_engine::approval::{SessionApprovals, Verdict, assess};
use tack_engine::tools::{
    ApplyPatchTool, EditTool, ReadFileTool, ToolAction, ToolContext, ToolHandler, ToolInput,
    WriteFileTool,
};
use tack_protocol::{ApprovalPolicy, Risk, ToolOutput, ToolStatus};

/// Prepares and runs a call; a call that hangs fails the test instead of the test run.
async fn call(tool: &dyn ToolHandler, dir: &Path, args: Value) -> ToolOutput {
    let ctx = ToolContext::new(dir);
    let run = async {
        match tool.prepare(ToolInput::Json(args), &ctx) {
            Ok(prepared) => prepared.run(ctx.clone()).await,
            Err(out) => out,
        }
    };
    tokio::time::timeout(Duration::from_secs(20), run)
        .await
        .expect("the tool call hung")
}

fn failed_with(out: &ToolOutput, needle: &str) {
    assert_eq!(out.status, ToolStatus::Failed, "{}", out.text);
    assert!(
        out.text.contains(needle),
        "expected {needle:?} in {:?}",
        out.text
    );
}

/// A workspace and, beside it, an outside folder holding `secret.txt`, hard-linked into the
/// workspace as `link.txt`.
fn linked() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, "outside content\n").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::hard_link(&secret, ws.join("link.txt")).unwrap();
    assert_eq!(std::fs::metadata(&secret).unwrap().nlink(), 2);
    (root, ws, secret)
}

#[tokio::test]
async fn write_file_through_a_hard_link_replaces_the_name_not_the_outside_file() {
    let (_root, ws, secret) = linked();
    let out = call(
        &WriteFileTool::new(),
        &ws,
        json!({"path": "link.txt", "content": "new content\n"}),
    )
    .await;
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "outside content\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("link.txt")).unwrap(),
        "new content\n"
    );
    // Two files now, each with one name; the workspace one kept the permissions.
    let link = std::fs::metadata(ws.join("link.txt")).unwrap();
    assert_eq!(link.nlink(), 1);
    assert_eq!(std::fs::metadata(&secret).unwrap().nlink(), 1);
    assert_eq!(link.permissions().mode() & 0o7777, 0o640);
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(&ws)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["link.txt".to_string()]);
}

#[tokio::test]
async fn edit_and_apply_patch_through_a_hard_link_leave_the_outside_file_alone() {
    let (_root, ws, secret) = linked();
    let out = call(
        &EditTool::new(),
        &ws,
        json!({"path": "link.txt", "old_string": "outside", "new_string": "edited"}),
    )
    .await;
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "outside content\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("link.txt")).unwrap(),
        "edited content\n"
    );
    assert_eq!(
        std::fs::metadata(ws.join("link.txt"))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777,
        0o640
    );

    let (_root, ws, secret) = linked();
    let patch = "*** Begin Patch\n*** Update File: link.txt\n@@\n-outside content\n+patched content\n*** End Patch\n";
    let out = call(&ApplyPatchTool::new(), &ws, json!({"input": patch})).await;
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "outside content\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("link.txt")).unwrap(),
        "patched content\n"
    );
}

#[tokio::test]
async fn paths_with_nul_bytes_backslashes_or_windows_forms_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
    for (path, needle) in [
        ("a.txt\0.png", "`a.txt⟨\\0⟩.png` contains a NUL byte"),
        ("src\\main.rs", "`src\\main.rs` contains a backslash"),
        (
            "C:\\Users\\x.txt",
            "`C:\\Users\\x.txt` is a Windows path (drive `C:`)",
        ),
        ("c:/x.txt", "`c:/x.txt` is a Windows path"),
        (
            "\\\\server\\share\\x.txt",
            "`\\\\server\\share\\x.txt` is a Windows network (UNC) path",
        ),
    ] {
        let out = call(
            &WriteFileTool::new(),
            dir.path(),
            json!({"path": path, "content": "y"}),
        )
        .await;
        failed_with(&out, needle);
        let out = call(&ReadFileTool::new(), dir.path(), json!({"path": path})).await;
        failed_with(&out, needle);
        let out = call(
            &EditTool::new(),
            dir.path(),
            json!({"path": path, "old_string": "x", "new_string": "y"}),
        )
        .await;
        failed_with(&out, needle);
    }
    // Nothing was created under any of those names.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["a.txt".to_string()]);
    // A patch naming such a path is refused too.
    let patch = "*** Begin Patch\n*** Add File: docs\\new.md\n+hi\n*** End Patch\n";
    let out = call(&ApplyPatchTool::new(), dir.path(), json!({"input": patch})).await;
    failed_with(&out, "contains a backslash");
}

#[tokio::test]
async fn a_fifo_is_refused_promptly_by_every_file_tool() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let out = call(&ReadFileTool::new(), dir.path(), json!({"path": "pipe"})).await;
    failed_with(&out, "`pipe` is a FIFO (named pipe), not a regular file");
    let out = call(
        &WriteFileTool::new(),
        dir.path(),
        json!({"path": "pipe", "content": "x"}),
    )
    .await;
    failed_with(&out, "FIFO");
    let out = call(
        &EditTool::new(),
        dir.path(),
        json!({"path": "pipe", "old_string": "a", "new_string": "b"}),
    )
    .await;
    failed_with(&out, "FIFO");
    let patch = "*** Begin Patch\n*** Update File: pipe\n@@\n-a\n+b\n*** End Patch\n";
    let out = call(&ApplyPatchTool::new(), dir.path(), json!({"input": patch})).await;
    failed_with(&out, "FIFO");
    // Still a FIFO: nothing replaced it.
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

#[tokio::test]
async fn sockets_devices_and_proc_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(dir.path().join("sock")).unwrap();
    let out = call(&ReadFileTool::new(), dir.path(), json!({"path": "sock"})).await;
    failed_with(&out, "is a socket");
    let out = call(
        &ReadFileTool::new(),
        dir.path(),
        json!({"path": "/dev/zero"}),
    )
    .await;
    failed_with(&out, "is a character device");
    let out = call(
        &WriteFileTool::new(),
        dir.path(),
        json!({"path": "/dev/null", "content": "x"}),
    )
    .await;
    failed_with(&out, "is a character device");
    if Path::new("/proc/self/status").exists() {
        let out = call(
            &ReadFileTool::new(),
            dir.path(),
            json!({"path": "/proc/self/status"}),
        )
        .await;
        failed_with(&out, "is in /proc");
    }
}

fn write(path: PathBuf) -> ToolAction {
    ToolAction::Write {
        paths: vec![path],
        changes: vec![],
    }
}

#[test]
fn writes_to_git_internals_and_tack_folders_always_ask() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    let none = SessionApprovals::default();
    for rel in [
        ".git/hooks/pre-commit",
        ".git/config",
        ".GIT/Config",
        ".git/info/attributes",
        "sub/module/.Git/hooks/post-checkout",
        ".git",
        ".git./config",
        ".g\u{200c}it/config",
    ] {
        for policy in [
            ApprovalPolicy::Never,
            ApprovalPolicy::OnRequest,
            ApprovalPolicy::Untrusted,
        ] {
            match assess(policy, &write(ws.join(rel)), &ws, &none) {
                Verdict::Ask { reason, risk, .. } => {
                    assert_eq!(
                        reason,
                        format!("writes to git internals ({rel}) always need approval")
                    );
                    assert_eq!(risk, Risk::High);
                }
                other => panic!("{rel} under {policy:?}: {other:?}"),
            }
        }
    }
    let tack = tack_engine::config::Paths::from_env();
    for (file, what) in [
        (tack.config_dir.join("config.toml"), "Tack's config folder"),
        (tack.data_dir.join("sessions/x.jsonl"), "Tack's data folder"),
    ] {
        match assess(ApprovalPolicy::Never, &write(file.clone()), &ws, &none) {
            Verdict::Ask { reason, .. } => assert!(reason.contains(what), "{reason}"),
            other => panic!("{}: {other:?}", file.display()),
        }
    }
    // Look-alikes are ordinary files.
    for rel in [
        ".github/workflows/ci.yml",
        ".gitignore",
        "git/config",
        "x.git/config",
    ] {
        assert_eq!(
            assess(ApprovalPolicy::Never, &write(ws.join(rel)), &ws, &none),
            Verdict::Run,
            "{rel}"
        );
    }
}
