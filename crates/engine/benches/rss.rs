//! Peak memory (RSS) of a session under heavy load: a benchmark that prints figures, not a test.
//!
//! Each case runs in a process of its own, so the figure is that case's alone: the kernel's
//! high-water mark of resident memory (`VmHWM` in `/proc/self/status`) once the case is over.
//! The replaying provider runs in a child process (this binary again, `serve …`), so the bodies
//! it holds are not counted. Run it through `scripts/bench-rss.sh`, which builds it and runs
//! every case; by hand: `cargo bench -p tack-engine --bench rss -- <case> [options]`.
//!
//! Cases:
//! - `tool-output`: the model calls `shell` with `yes | head -c <bytes>` (default 1 GiB), then
//!   answers; everything streams through the session's event channel to a front end.
//! - `tiny-deltas`: one reply of `<n>` one-character text deltas (default 1,000,000).
//! - `sessions`: `<n>` sessions (default 20) at once, each streaming a reply for `<seconds>`
//!   (default 120), a delta every 5 ms.
//!
//! The front end is simulated the way the desktop forwards events: each event is serialised to
//! JSON and written out, then the reader waits `--reader-us` microseconds (default 1000: a web
//! view's IPC and render per event), which is what makes a reader slower than a producer. A
//! case ends when its turns end in the engine, whatever the reader still has to read: what it
//! has not read yet is part of the peak, which is the point.
//! Options: `--bytes N`, `--n N`, `--seconds N`, `--reader-us N`.
// A benchmark binary: a failed setup step is a failed run, said plainly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use tack_engine::config::{Config, Paths};
use tack_engine::resolve::{SessionRequest, resolve, sandbox_status};
use tack_engine::secrets::MemoryStore;
use tack_engine::session::{Engine, Session};
use tack_protocol::{ApprovalPolicy, EngineEvent, SandboxMode};
use tack_tests::{ReplayProvider, ScriptedResponse, chat_sse};

struct Options {
    bytes: u64,
    n: usize,
    seconds: u64,
    reader: Duration,
}

fn options(args: &[String]) -> Options {
    let mut o = Options {
        bytes: 1 << 30,
        n: 0,
        seconds: 120,
        reader: Duration::from_micros(1000),
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        // Anything else (the case name, cargo's `--bench`) has no value to take.
        if !matches!(
            flag.as_str(),
            "--bytes" | "--n" | "--seconds" | "--reader-us"
        ) {
            continue;
        }
        let value = it.next().map(String::as_str).unwrap_or_default();
        match flag.as_str() {
            "--bytes" => o.bytes = value.parse().expect("--bytes N"),
            "--n" => o.n = value.parse().expect("--n N"),
            "--seconds" => o.seconds = value.parse().expect("--seconds N"),
            _ => o.reader = Duration::from_micros(value.parse().expect("--reader-us N")),
        }
    }
    o
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(case) = args.first().cloned() else {
        eprintln!(
            "usage: rss <tool-output|tiny-deltas|sessions> [--bytes N] [--n N] [--seconds N] [--reader-us N]"
        );
        std::process::exit(2);
    };
    let o = options(&args[1..]);
    if case == "serve" {
        serve(&args[1..], &o);
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let started = Instant::now();
    let detail = runtime.block_on(async {
        match case.as_str() {
            "tool-output" => tool_output(&o).await,
            "tiny-deltas" => tiny_deltas(&o).await,
            "sessions" => sessions(&o).await,
            other => panic!("unknown case `{other}`"),
        }
    });
    println!(
        "{case}: peak RSS {:.1} MiB ({detail}; {:.1} s)",
        peak_rss_kib() as f64 / 1024.0,
        started.elapsed().as_secs_f64()
    );
}

/// The kernel's high-water mark of this process's resident memory, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// Child-process mode: serves the case's script on loopback, prints the URL, and stays up
/// until its stdin closes.
fn serve(args: &[String], o: &Options) {
    let kind = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .cloned()
        .unwrap_or_default();
    let script: Vec<ScriptedResponse> = match kind.as_str() {
        "tool-output" => vec![
            tool_call(&format!("yes | head -c {}", o.bytes)),
            ScriptedResponse::sse(reply(&["Done."])),
        ],
        "tiny-deltas" => {
            let pieces = vec!["x"; o.n];
            vec![ScriptedResponse::sse(reply(&pieces))]
        }
        "sessions" => {
            let every = Duration::from_millis(5);
            let count = (o.seconds * 1000 / 5) as usize;
            let pieces = vec!["tok "; count];
            let body = reply(&pieces);
            // One chunk per SSE frame, so the deltas arrive one by one over the whole time.
            let frames: Vec<usize> = body
                .windows(6)
                .enumerate()
                .filter(|(_, w)| *w == b"data: ")
                .map(|(i, _)| i)
                .collect();
            (0..o.n)
                .map(|_| {
                    ScriptedResponse::sse(body.clone())
                        .split_at(&frames)
                        .delay_between_chunks(every)
                })
                .collect()
        }
        other => panic!("serve: unknown script `{other}`"),
    };
    let provider = ReplayProvider::start(script);
    println!("{}", provider.url("/v1"));
    std::io::stdout().flush().expect("stdout");
    // Serve until the parent is done (it closes our stdin, or dies).
    let mut line = String::new();
    while std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map(|n| n > 0)
        .unwrap_or(false)
    {}
}

/// Starts the provider child for `kind`; returns it and its base URL.
fn provider(kind: &str, extra: &[String]) -> (Child, String) {
    let mut child = Command::new(std::env::current_exe().expect("current exe"))
        .arg("serve")
        .arg(kind)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("provider child");
    let mut url = String::new();
    std::io::BufReader::new(child.stdout.take().expect("child stdout"))
        .read_line(&mut url)
        .expect("provider URL");
    (child, url.trim().to_string())
}

/// A chat reply streaming `pieces` as text deltas.
fn reply(pieces: &[&str]) -> Vec<u8> {
    let mut chunks = vec![
        json!({"id": "r", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
    ];
    chunks.extend(
        pieces
            .iter()
            .map(|p| json!({"id": "r", "choices": [{"index": 0, "delta": {"content": p}}]})),
    );
    chunks
        .push(json!({"id": "r", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    chat_sse(&chunks)
}

/// A chat reply calling `shell` with `command`.
fn tool_call(command: &str) -> ScriptedResponse {
    let args = json!({"command": command}).to_string();
    ScriptedResponse::sse(chat_sse(&[
        json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "shell", "arguments": args}}]}}]}),
        json!({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ]))
}

struct Folders {
    _root: tempfile::TempDir,
    paths: Paths,
    workspace: PathBuf,
}

fn folders() -> Folders {
    let root = tempfile::tempdir().expect("temp dir");
    let paths = Paths {
        config_dir: root.path().join("config"),
        data_dir: root.path().join("data"),
    };
    let workspace = root.path().join("workspace");
    std::fs::create_dir_all(&workspace).expect("workspace");
    Folders {
        _root: root,
        paths,
        workspace,
    }
}

/// Starts a session on `url` (minimal harness, nothing asked, no sandbox: the figure is Tack's
/// memory, not containment's) and a simulated front end reading its events. The returned task
/// counts the events the front end read.
fn start(
    engine: &Arc<Engine>,
    f: &Folders,
    url: &str,
    task: &str,
    reader: Duration,
) -> (Session, FrontEnd) {
    let request = SessionRequest {
        cwd: f.workspace.clone(),
        provider: Some(url.to_string()),
        model: Some("m".into()),
        harness: Some("minimal".into()),
        approval: Some(ApprovalPolicy::Never),
        ..Default::default()
    };
    let mut opts = resolve(
        &Config::default(),
        &engine.registry,
        &MemoryStore::default(),
        &request,
    )
    .expect("resolve")
    .options;
    opts.interactive = false;
    opts.sandbox = sandbox_status(SandboxMode::DangerFullAccess, false);
    let (session, mut events) = Session::create(engine.clone(), opts).expect("session");
    session.submit(task).expect("submit");
    let read = Arc::new(AtomicU64::new(0));
    let counter = read.clone();
    let task = tokio::spawn(async move {
        let mut out = std::io::sink();
        while let Some(event) = events.recv().await {
            counter.fetch_add(1, Ordering::Relaxed);
            if let EngineEvent::Error { error, .. } = &event {
                eprintln!("rss: the session reported: {}", error.message);
            }
            serde_json::to_writer(&mut out, &event).expect("serialise");
            if !reader.is_zero() {
                tokio::time::sleep(reader).await;
            }
            if matches!(
                event,
                EngineEvent::TurnCompleted { .. } | EngineEvent::TurnAborted { .. }
            ) {
                break;
            }
        }
    });
    (session, FrontEnd { read, task })
}

/// A simulated front end: how many events it has read so far.
struct FrontEnd {
    read: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

/// Waits for the session's turn to end in the engine, then stops its front end; returns how
/// many events that one had read.
async fn finish(session: &Session, front_end: FrontEnd) -> u64 {
    session.wait_idle().await;
    front_end.task.abort();
    // A case that did not do its work measures nothing: say so instead of printing a figure.
    let history = session.history();
    let answered = history.last().is_some_and(|item| {
        matches!(item, tack_protocol::Item::Message(m) if m.role == tack_protocol::Role::Assistant)
    });
    assert!(
        answered,
        "the turn did not end with an answer: {:?}",
        history.last()
    );
    front_end.read.load(Ordering::Relaxed)
}

async fn tool_output(o: &Options) -> String {
    let (mut child, url) = provider("tool-output", &["--bytes".into(), o.bytes.to_string()]);
    let f = folders();
    let engine = Arc::new(Engine::new(f.paths.clone()).expect("engine"));
    let (session, front_end) = start(&engine, &f, &url, "Print a lot.", o.reader);
    let events = finish(&session, front_end).await;
    let _ = child.kill();
    format!("{} MiB of output, {events} events read", o.bytes >> 20)
}

async fn tiny_deltas(o: &Options) -> String {
    let n = if o.n == 0 { 1_000_000 } else { o.n };
    let (mut child, url) = provider("tiny-deltas", &["--n".into(), n.to_string()]);
    let f = folders();
    let engine = Arc::new(Engine::new(f.paths.clone()).expect("engine"));
    let (session, front_end) = start(&engine, &f, &url, "Say x many times.", o.reader);
    let events = finish(&session, front_end).await;
    let _ = child.kill();
    format!("{n} deltas, {events} events read")
}

async fn sessions(o: &Options) -> String {
    let n = if o.n == 0 { 20 } else { o.n };
    let (mut child, url) = provider(
        "sessions",
        &[
            "--n".into(),
            n.to_string(),
            "--seconds".into(),
            o.seconds.to_string(),
        ],
    );
    let f = folders();
    let engine = Arc::new(Engine::new(f.paths.clone()).expect("engine"));
    let mut running = Vec::new();
    for _ in 0..n {
        running.push(start(&engine, &f, &url, "Talk.", o.reader));
    }
    let mut events = 0;
    for (session, front_end) in running {
        events += finish(&session, front_end).await;
    }
    let _ = child.kill();
    format!("{n} sessions × {} s, {events} events read", o.seconds)
}
