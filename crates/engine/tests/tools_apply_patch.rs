//! `apply_patch`: the shared conformance scenarios plus our own fixtures.
//!
//! A scenario folder holds `input/` (the files before; may be absent), `patch.txt` and
//! `expected/` (the complete folder after). The folder must equal `expected/` byte for byte.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::json;
use tack_engine::tools::{ApplyPatchTool, ToolAction, ToolContext, ToolHandler, ToolInput};
use tack_protocol::{FileChangeKind, ToolDetails, ToolOutput, ToolStatus};

fn shared_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TACK_SHARED") {
        return Some(PathBuf::from(dir));
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    dir.is_dir().then_some(dir)
}

fn files_under(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    if !root.is_dir() {
        return out;
    }
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(
                    path.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in files_under(from) {
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(dest, bytes).unwrap();
    }
}

async fn apply(dir: &Path, input: ToolInput) -> ToolOutput {
    let ctx = ToolContext::new(dir);
    match ApplyPatchTool::new().prepare(input, &ctx) {
        Ok(prepared) => prepared.run(ctx).await,
        Err(out) => out,
    }
}

/// Runs every scenario under `root`; returns how many ran.
async fn run_scenarios(root: &Path) -> usize {
    let mut names: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("patch.txt").is_file())
        .collect();
    names.sort();
    let mut failures = Vec::new();
    for scenario in &names {
        let name = scenario.file_name().unwrap().to_string_lossy().into_owned();
        let work = tempfile::tempdir().unwrap();
        copy_tree(&scenario.join("input"), work.path());
        let patch = std::fs::read_to_string(scenario.join("patch.txt")).unwrap();
        let out = apply(work.path(), ToolInput::Freeform(patch)).await;
        let expects_error = ["rejects", "fails", "failure", "requires"]
            .iter()
            .any(|w| name.contains(w));
        if expects_error && out.status == ToolStatus::Completed {
            failures.push(format!(
                "{name}: expected an error, got success:\n{}",
                out.text
            ));
        }
        if !expects_error && out.status != ToolStatus::Completed {
            failures.push(format!("{name}: expected success, got:\n{}", out.text));
        }
        let got = files_under(work.path());
        let want = files_under(&scenario.join("expected"));
        if got != want {
            failures.push(format!(
                "{name}: folder differs from expected/\n got: {:?}\nwant: {:?}\noutput: {}",
                got.iter()
                    .map(|(p, b)| (p, String::from_utf8_lossy(b)))
                    .collect::<Vec<_>>(),
                want.iter()
                    .map(|(p, b)| (p, String::from_utf8_lossy(b)))
                    .collect::<Vec<_>>(),
                out.text
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    names.len()
}

#[tokio::test]
async fn shared_conformance_scenarios() {
    let Some(shared) = shared_dir() else {
        tack_tests::no_shared();
        return;
    };
    let root = shared.join("fixtures/apply-patch");
    if !root.is_dir() {
        tack_tests::no_shared();
        return;
    }
    let ran = run_scenarios(&root).await;
    assert!(ran > 0);
    println!("{ran} shared apply-patch scenarios passed");
}

#[tokio::test]
async fn own_fixture_scenarios() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools_fixtures/apply_patch");
    let ran = run_scenarios(&root).await;
    assert!(ran >= 6, "{ran}");
}

#[tokio::test]
async fn prepare_writes_nothing_and_lists_every_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.txt"), "a\nb\n").unwrap();
    std::fs::write(dir.path().join("gone.txt"), "x\n").unwrap();
    let patch = "*** Begin Patch\n*** Add File: new/one.txt\n+1\n*** Delete File: gone.txt\n\
                 *** Update File: old.txt\n*** Move to: moved/old.txt\n@@\n a\n-b\n+B\n*** End Patch\n";
    let ctx = ToolContext::new(dir.path());
    let prepared = ApplyPatchTool::new()
        .prepare(ToolInput::Freeform(patch.to_string()), &ctx)
        .unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let ToolAction::Write { paths, changes } = prepared.action().clone() else {
        panic!()
    };
    assert_eq!(
        paths,
        vec![
            root.join("new/one.txt"),
            root.join("gone.txt"),
            root.join("old.txt"),
            root.join("moved/old.txt")
        ]
    );
    assert_eq!(changes.len(), 3);
    assert_eq!(changes[0].kind, FileChangeKind::Add);
    assert_eq!(changes[1].kind, FileChangeKind::Delete);
    assert_eq!(changes[2].move_to.as_deref(), Some("moved/old.txt"));
    assert!(changes[2].diff.contains("-b\n+B\n"), "{}", changes[2].diff);
    // Nothing happened yet.
    assert!(!dir.path().join("new").exists());
    assert!(dir.path().join("gone.txt").exists());
    let out = prepared.run(ctx).await;
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    assert_eq!(
        out.text,
        "Applied the patch:\nA new/one.txt\nD gone.txt\nM old.txt -> moved/old.txt"
    );
    assert!(
        matches!(out.details, Some(ToolDetails::FileChanges { ref changes }) if changes.len() == 3)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("moved/old.txt")).unwrap(),
        "a\nB\n"
    );
    assert!(!dir.path().join("old.txt").exists());
}

#[tokio::test]
async fn json_input_and_patch_alias_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch";
    let out = apply(dir.path(), ToolInput::Json(json!({"input": patch}))).await;
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    let patch = "*** Begin Patch\n*** Add File: b.txt\n+hi\n*** End Patch";
    let out = apply(dir.path(), ToolInput::Json(json!({"patch": patch}))).await;
    assert_eq!(out.status, ToolStatus::Completed, "{}", out.text);
    let out = apply(dir.path(), ToolInput::Json(json!({"diff": patch}))).await;
    assert_eq!(out.status, ToolStatus::Failed);
    assert!(out.text.contains("unknown field `diff`"), "{}", out.text);
}

#[tokio::test]
async fn rejected_patches_say_which_hunk_which_file_and_what_was_missing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "alpha\nbeta\ngamma\n").unwrap();
    let patch = "*** Begin Patch\n*** Update File: f.txt\n@@\n-alpha\n+ALPHA\n@@\n delta\n-gamma\n+GAMMA\n*** End Patch";
    let out = apply(dir.path(), ToolInput::Freeform(patch.to_string())).await;
    assert_eq!(out.status, ToolStatus::Failed);
    assert_eq!(
        out.text,
        "Operation 1 of 1 (Update File `f.txt`, patch line 2) failed: in `f.txt`, hunk 2 of 2 \
         (patch line 6): these lines were not found after line 1:\n    delta\n    gamma\nRead the \
         file again and copy the context lines exactly.\nNo file was changed."
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "alpha\nbeta\ngamma\n"
    );

    let patch =
        "*** Begin Patch\n*** Update File: f.txt\n@@ fn missing()\n-beta\n+BETA\n*** End Patch";
    let out = apply(dir.path(), ToolInput::Freeform(patch.to_string())).await;
    assert!(
        out.text
            .contains("the anchor line `@@ fn missing()` was not found"),
        "{}",
        out.text
    );

    let out = apply(
        dir.path(),
        ToolInput::Freeform("*** Begin Patch\n*** Update File: f.txt\n".into()),
    )
    .await;
    assert!(
        out.text
            .contains("the last line of the patch must be `*** End Patch`"),
        "{}",
        out.text
    );
}

#[tokio::test]
async fn a_later_failure_applies_the_earlier_operations_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let patch = "*** Begin Patch\n*** Add File: created.txt\n+hello\n*** Delete File: nope.txt\n*** End Patch";
    let out = apply(dir.path(), ToolInput::Freeform(patch.to_string())).await;
    assert_eq!(out.status, ToolStatus::Failed);
    assert!(
        out.text
            .starts_with("The patch was applied only in part.\nApplied:\nA created.txt\n"),
        "{}",
        out.text
    );
    assert!(out.text.contains("Operation 2 of 2 (Delete File `nope.txt`, patch line 4) failed: `nope.txt` does not exist"), "{}", out.text);
    assert!(dir.path().join("created.txt").exists());
}

#[tokio::test]
async fn a_file_changed_after_prepare_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "a\n").unwrap();
    let ctx = ToolContext::new(dir.path());
    let prepared = ApplyPatchTool::new()
        .prepare(
            ToolInput::Freeform(
                "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+b\n*** End Patch".into(),
            ),
            &ctx,
        )
        .unwrap();
    std::fs::write(dir.path().join("f.txt"), "changed\n").unwrap();
    let out = prepared.run(ctx).await;
    assert_eq!(out.status, ToolStatus::Failed);
    assert!(out.text.contains("changed on disk"), "{}", out.text);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "changed\n"
    );
}

#[tokio::test]
async fn a_symlink_escape_shows_the_outside_path() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
    let ctx = ToolContext::new(dir.path());
    let prepared = ApplyPatchTool::new()
        .prepare(
            ToolInput::Freeform(
                "*** Begin Patch\n*** Add File: out/x.txt\n+x\n*** End Patch".into(),
            ),
            &ctx,
        )
        .unwrap();
    let ToolAction::Write { paths, changes } = prepared.action().clone() else {
        panic!()
    };
    let real = std::fs::canonicalize(outside.path()).unwrap().join("x.txt");
    assert_eq!(paths, vec![real.clone()]);
    assert_eq!(changes[0].path, real.to_string_lossy());
}
