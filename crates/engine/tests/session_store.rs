//! The session store's robustness, on real files and over real HTTP against the replaying
//! provider: a torn last line (cut at every byte offset of a real log's tail, with or without
//! a newline, with NUL padding) is repaired on resume and kept in `<log>.torn`; a second
//! writer is refused while the first holds the log; streamed text survives a failed stream,
//! an interrupt and a process that stops mid-answer, as an answer marked cut off (keys
//! redacted); a hand-edited header is refused unless accepted.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tack_engine::config::{Config, Paths};
use tack_engine::events::EventReceiver;
use tack_engine::log::{LoadedSession, LogError, LogRecord, SessionLog, lock_path, torn_path};
use tack_engine::resolve::{SessionRequest, resolve};
use tack_engine::secrets::MemoryStore;
use tack_engine::session::{Engine, EngineError, Session, SessionOptions};
use tack_protocol::{ApprovalPolicy, EngineEvent, Item, Role};
use tack_tests::{ReplayProvider, ScriptedResponse, chat_sse};

struct Folders {
    _root: tempfile::TempDir,
    paths: Paths,
    workspace: PathBuf,
}

fn folders() -> Folders {
    let root = tempfile::tempdir().unwrap();
    let paths = Paths {
        config_dir: root.path().join("config"),
        data_dir: root.path().join("data"),
    };
    let workspace = root.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let workspace = std::fs::canonicalize(workspace).unwrap();
    Folders {
        _root: root,
        paths,
        workspace,
    }
}

fn options(f: &Folders, base_url: &str) -> SessionOptions {
    let request = SessionRequest {
        cwd: f.workspace.clone(),
        provider: Some(base_url.to_string()),
        model: Some("test-model".into()),
        harness: Some("minimal".into()),
        approval: Some(ApprovalPolicy::Untrusted),
        ..Default::default()
    };
    let engine = Engine::new(f.paths.clone()).unwrap();
    let mut options = resolve(
        &Config::default(),
        &engine.registry,
        &MemoryStore::default(),
        &request,
    )
    .unwrap()
    .options;
    options.interactive = false;
    options
}

/// A chat answer streamed as one delta per piece, then `stop`.
fn answer(id: &str, pieces: &[&str]) -> ScriptedResponse {
    let mut chunks = vec![
        json!({"id": id, "model": "test-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
    ];
    for p in pieces {
        chunks.push(json!({"id": id, "choices": [{"index": 0, "delta": {"content": p}}]}));
    }
    chunks.push(json!({"id": id, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    ScriptedResponse::sse(chat_sse(&chunks))
}

/// The SSE bytes of `answer` up to and including the frame holding `piece`.
fn bytes_through(response_pieces: &[&str], piece: &str) -> usize {
    let body = {
        let mut chunks = vec![
            json!({"id": "a", "model": "test-model", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
        ];
        for p in response_pieces {
            chunks.push(json!({"id": "a", "choices": [{"index": 0, "delta": {"content": p}}]}));
        }
        chat_sse(&chunks)
    };
    let text = String::from_utf8(body).unwrap();
    let at = text.find(piece).unwrap();
    at + text[at..].find("\n\n").unwrap() + 2
}

async fn run_turn(session: &Session, events: &mut EventReceiver, task: &str) -> Vec<EngineEvent> {
    session.submit(task).unwrap();
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        let end = matches!(
            event,
            EngineEvent::TurnCompleted { .. } | EngineEvent::TurnAborted { .. }
        );
        seen.push(event);
        if end {
            break;
        }
    }
    session.wait_idle().await;
    seen
}

/// A real log of two turns, written by a real session; returns its path.
async fn real_log(f: &Folders) -> PathBuf {
    let provider = ReplayProvider::start([
        answer("c1", &["First ", "answer, ", "in pieces."]),
        answer("c2", &["Second ", "answer."]),
    ]);
    let engine = Arc::new(Engine::new(f.paths.clone()).unwrap());
    let (session, mut events) = Session::create(engine, options(f, &provider.url("/v1"))).unwrap();
    run_turn(&session, &mut events, "hello").await;
    run_turn(&session, &mut events, "and again").await;
    let path = session.log_path();
    drop(session);
    path
}

/// End of the last complete line in `bytes` (0 if none).
fn last_line_end(bytes: &[u8]) -> usize {
    bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_torn_tail_is_cut_at_every_offset_and_kept_beside_the_log() {
    let f = folders();
    let path = real_log(&f).await;
    let original = std::fs::read(&path).unwrap();
    let header_end = original.iter().position(|b| *b == b'\n').unwrap() + 1;
    let full = LoadedSession::read(&path).unwrap();
    assert!(!full.torn_tail);

    // Every byte of the last three records, and every 7th byte before them.
    let lines: Vec<usize> = original
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect();
    let tail_from = lines[lines.len().saturating_sub(4)].max(header_end);
    let offsets: Vec<usize> = (header_end..tail_from)
        .step_by(7)
        .chain(tail_from..original.len())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for &k in &offsets {
        for suffix in [&b""[..], b"\n", b"\0\0\0\0"] {
            let p = dir.path().join(format!("s{k}-{}.jsonl", suffix.len()));
            let mut bytes = original[..k].to_vec();
            bytes.extend_from_slice(suffix);
            std::fs::write(&p, &bytes).unwrap();

            let (mut log, torn) = SessionLog::open_repairing(&p).unwrap();
            let repaired = std::fs::read(&p).unwrap();
            let cut = last_line_end(&original[..k]);
            let rest = &bytes[cut..];
            let whole =
                serde_json::from_slice::<LogRecord>(rest.strip_suffix(b"\n").unwrap_or(rest))
                    .is_ok();
            if rest.is_empty() || rest == b"\n" {
                assert_eq!(torn, None, "offset {k}");
                assert_eq!(repaired, bytes, "offset {k}");
            } else if whole {
                // A complete record without its newline: kept, newline added.
                assert_eq!(torn, None, "offset {k}");
                assert_eq!(repaired, original[..k + 1], "offset {k}");
            } else {
                let t = torn.unwrap_or_else(|| panic!("offset {k} suffix {suffix:?}: not cut"));
                assert_eq!(t.offset as usize, cut, "offset {k}");
                assert_eq!(repaired, original[..cut], "offset {k}");
                let mut kept = rest.to_vec();
                if !kept.ends_with(b"\n") {
                    kept.push(b'\n');
                }
                assert_eq!(std::fs::read(torn_path(&p)).unwrap(), kept, "offset {k}");
            }
            // Appending after the repair leaves a log every later read accepts.
            log.append(&LogRecord::Renamed {
                ts: "t".into(),
                title: "after the repair".into(),
            })
            .unwrap();
            drop(log);
            let loaded = LoadedSession::read(&p).unwrap();
            assert!(!loaded.torn_tail, "offset {k}");
            assert_eq!(loaded.title.as_deref(), Some("after the repair"));
            assert!(loaded.items.len() <= full.items.len() + 2, "offset {k}");
            checked += 1;
        }
    }
    assert!(checked > 300, "{checked}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_torn_session_resumes_and_takes_another_turn_and_tears_accumulate() {
    let f = folders();
    let path = real_log(&f).await;
    let original = std::fs::read(&path).unwrap();
    // Torn twice: the second tear is appended to the side file, not written over the first.
    let tear1 = br#"{"type":"item","ts":"2026-01-01T00:00:00Z","item":{"type":"mess"#;
    let tear2 = br#"{"type":"turn_sta"#;
    let mut torn = original.clone();
    torn.extend_from_slice(tear1);
    std::fs::write(&path, &torn).unwrap();
    drop(SessionLog::open(&path).unwrap());
    let mut torn = std::fs::read(&path).unwrap();
    assert_eq!(torn, original);
    torn.extend_from_slice(tear2);
    std::fs::write(&path, &torn).unwrap();

    let provider = ReplayProvider::start([answer("c3", &["Third."])]);
    let engine = Arc::new(Engine::new(f.paths.clone()).unwrap());
    let (session, mut events) =
        Session::resume(engine, &path, options(&f, &provider.url("/v1"))).unwrap();
    let seen = run_turn(&session, &mut events, "once more").await;
    assert!(
        matches!(seen.last(), Some(EngineEvent::TurnCompleted { .. })),
        "{seen:#?}"
    );
    drop(session);
    let loaded = LoadedSession::read(&path).unwrap();
    assert!(!loaded.torn_tail);
    assert_eq!(loaded.items.len(), 6);
    let mut kept = tear1.to_vec();
    kept.push(b'\n');
    kept.extend_from_slice(tear2);
    kept.push(b'\n');
    assert_eq!(std::fs::read(torn_path(&path)).unwrap(), kept);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_writer_is_refused_while_the_first_holds_the_log() {
    let f = folders();
    let path = real_log(&f).await;
    let first = SessionLog::open(&path).unwrap();
    assert_eq!(
        std::fs::read_to_string(lock_path(&path)).unwrap().trim(),
        std::process::id().to_string()
    );
    assert_eq!(SessionLog::writer(&path), Some(Some(std::process::id())));
    let err = SessionLog::open(&path).unwrap_err();
    assert!(matches!(err, LogError::Locked { pid: Some(p), .. } if p == std::process::id()));
    let id = path.file_stem().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        err.to_string(),
        format!(
            "session {id} is open in another process (pid {})",
            std::process::id()
        )
    );
    // Reading is never refused.
    LoadedSession::read(&path).unwrap();
    drop(first);
    assert!(!lock_path(&path).exists());
    assert_eq!(SessionLog::writer(&path), None);
    drop(SessionLog::open(&path).unwrap());
}

fn cut_off_message(items: &[Item]) -> String {
    items
        .iter()
        .rev()
        .find_map(|i| match i {
            Item::Message(m) if m.role == Role::Assistant => Some(m.text()),
            _ => None,
        })
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_stream_keeps_what_was_streamed_marked_cut_off() {
    let pieces = ["The fix ", "is in ", "parser.rs, ", "line 12"];
    let cut_at = bytes_through(&pieces, "parser.rs, ");
    let provider = ReplayProvider::start([
        answer("c1", &pieces).truncate_after(cut_at),
        answer("c2", &["Continuing."]),
    ]);
    let f = folders();
    let engine = Arc::new(Engine::new(f.paths.clone()).unwrap());
    let (session, mut events) = Session::create(engine, options(&f, &provider.url("/v1"))).unwrap();
    let seen = run_turn(&session, &mut events, "where is the bug?").await;
    assert!(
        matches!(seen.last(), Some(EngineEvent::TurnAborted { .. })),
        "{seen:#?}"
    );
    // Everything the window was shown is kept (the decoder may not have released the last
    // frame before the connection dropped).
    let streamed: String = seen
        .iter()
        .filter_map(|e| match e {
            EngineEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(streamed.starts_with("The fix is in "), "{streamed}");
    let text = cut_off_message(&session.history());
    assert!(text.starts_with(&streamed), "{text}");
    assert!(
        text.contains("cut off: the response stream failed"),
        "{text}"
    );
    let loaded = LoadedSession::read(&session.log_path()).unwrap();
    assert_eq!(cut_off_message(&loaded.items), text);
    assert_eq!(loaded.items.len(), 2);

    // The next request shows the model its answer was cut off.
    run_turn(&session, &mut events, "go on").await;
    let body = provider.requests()[1].body_text();
    assert!(body.contains(&streamed), "{body}");
    assert!(body.contains("cut off"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupted_answer_keeps_what_was_streamed() {
    let pieces = [
        "Reading ", "the ", "files ", "now ", "and ", "then ", "more.",
    ];
    let provider = ReplayProvider::start([answer("c1", &pieces)
        .split_every(40)
        .delay_between_chunks(Duration::from_millis(150))]);
    let f = folders();
    let engine = Arc::new(Engine::new(f.paths.clone()).unwrap());
    let (session, mut events) = Session::create(engine, options(&f, &provider.url("/v1"))).unwrap();
    session.submit("look around").unwrap();
    let mut streamed = String::new();
    while let Some(event) = events.recv().await {
        if let EngineEvent::TextDelta { text, .. } = &event {
            streamed.push_str(text);
            if streamed.len() >= 8 {
                session.interrupt();
            }
        }
        if matches!(event, EngineEvent::TurnAborted { .. }) {
            break;
        }
    }
    session.wait_idle().await;
    let text = cut_off_message(&session.history());
    assert!(text.starts_with(&streamed), "{text} / {streamed}");
    assert!(text.contains("the user interrupted it"), "{text}");
    let loaded = LoadedSession::read(&session.log_path()).unwrap();
    assert_eq!(cut_off_message(&loaded.items), text);
    assert_eq!(loaded.cut_off.len(), 1);
}

/// Polls the log until it holds a `text_progress` record (what a crash would keep).
async fn wait_for_progress(path: &Path) -> String {
    loop {
        let log = std::fs::read_to_string(path).unwrap_or_default();
        if log.contains("\"text_progress\"") {
            return log;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn streamed_text_reaches_the_log_while_the_stream_stalls_with_keys_redacted() {
    // The key is streamed split across deltas, the stream then stalls: the progress record
    // written during the stall holds the text, never the key nor its first half.
    let key = "sk-proj-abcdefghijklmnopqrstuvwx0123456789";
    // The decoder may release a frame only once the next one starts: stall one frame later.
    let pieces = ["Your key is ", &key[..12], &key[12..], " and more", "!"];
    let stall = bytes_through(&pieces, "\"!\"");
    let provider = ReplayProvider::start([answer("c1", &pieces).stall_after(stall)]);
    let f = folders();
    let engine = Arc::new(Engine::new(f.paths.clone()).unwrap());
    let mut opts = options(&f, &provider.url("/v1"));
    opts.api_key = Some(tack_engine::secrets::ApiKey::new(key));
    let (session, _events) = Session::create(engine, opts).unwrap();
    session.submit("what is my key").unwrap();
    let path = session.log_path();
    let mut log = wait_for_progress(&path).await;
    let give_up = std::time::Instant::now() + Duration::from_secs(60);
    while !log.contains("and more") {
        assert!(std::time::Instant::now() < give_up, "never written: {log}");
        tokio::time::sleep(Duration::from_millis(20)).await;
        log = std::fs::read_to_string(&path).unwrap();
    }
    assert!(!log.contains(&key[..12]), "{log}");
    assert!(!log.contains(&key[12..]), "{log}");
    // Read as a process that died here would leave it: the answer so far, marked cut off.
    let loaded = LoadedSession::read(&path).unwrap();
    let text = cut_off_message(&loaded.items);
    assert!(text.starts_with("Your key is "), "{text}");
    assert!(text.contains(" and more"), "{text}");
    assert!(text.contains("Tack stopped before it finished"), "{text}");
    assert!(!text.contains(&key[12..]), "{text}");
    session.interrupt();
    session.wait_idle().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hand_edited_header_is_refused_unless_accepted() {
    let f = folders();
    let path = real_log(&f).await;
    let log = std::fs::read_to_string(&path).unwrap();
    let edited = log.replacen("\"approval\":\"untrusted\"", "\"approval\":\"never\"", 1);
    assert_ne!(edited, log);
    std::fs::write(&path, edited).unwrap();
    let loaded = LoadedSession::read(&path).unwrap();
    assert_eq!(
        loaded.header_changes.len(),
        1,
        "{:?}",
        loaded.header_changes
    );
    let change = &loaded.header_changes[0];
    assert_eq!(change.field, "settings.approval");
    assert_eq!(change.written, "\"untrusted\"");
    assert_eq!(change.now, "\"never\"");

    let engine = Arc::new(Engine::new(f.paths.clone()).unwrap());
    let provider = ReplayProvider::start([]);
    let opts = options(&f, &provider.url("/v1"));
    let err = Session::resume(engine.clone(), &path, opts.clone())
        .err()
        .unwrap();
    assert!(
        matches!(&err, EngineError::HeaderChanged(c) if c.len() == 1),
        "{err}"
    );
    assert!(err.to_string().contains("settings.approval"), "{err}");
    // Refused means untouched: no `resumed` record, nobody holds the lock.
    assert_eq!(
        LoadedSession::read(&path).unwrap().records.len(),
        loaded.records.len()
    );
    let (session, _events) =
        Session::resume_accepting(engine.clone(), &path, opts.clone()).unwrap();
    drop(session);
    // Accepted once: the new `resumed` record seals the settings in force.
    assert!(
        LoadedSession::read(&path)
            .unwrap()
            .header_changes
            .is_empty()
    );
    drop(Session::resume(engine, &path, opts).unwrap());
}
