//! How long recovering a torn session log takes: a log of 20,000 items (user and assistant
//! messages, as a long session writes them) torn mid-record, then what resuming does before
//! the first new record (lock + repair the tail + read the whole log). Prints figures;
//! asserts nothing.
//!
//! `cargo run -p tack-engine --example recover_torn [items] [runs]` (a debug build unless
//! `--release` is given: say which when quoting figures).

use std::io::Write;
use std::time::Instant;

use tack_engine::log::{LOG_VERSION, LoadedSession, LogRecord, SessionLog, torn_path};
use tack_protocol::{ApprovalPolicy, Item, Role, SessionSettings, Wire};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let items: usize = args.next().map_or(Ok(20_000), |a| a.parse())?;
    let runs: usize = args.next().map_or(Ok(5), |a| a.parse())?;
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("big.jsonl");
    let settings = SessionSettings {
        cwd: "/w".into(),
        provider: "local".into(),
        model: "m".into(),
        wire: Wire::Chat,
        harness: "minimal".into(),
        approval: ApprovalPolicy::Untrusted,
        sandbox: Default::default(),
    };
    // Written directly (not through SessionLog, whose per-record fsync would make building
    // the fixture the slow part); the records are the ones a session writes.
    let mut text = String::new();
    let header = LogRecord::SessionStarted {
        version: LOG_VERSION,
        session_id: "big".into(),
        created_at: "2026-01-01T00:00:00Z".into(),
        seal: Some(tack_engine::log::seal(&settings, None)),
        settings,
        provider_url: None,
    };
    text.push_str(&serde_json::to_string(&header)?);
    text.push('\n');
    let body = "Some answer text with a bit of code `let x = 1;` and a line or two. ".repeat(6);
    for i in 0..items {
        let role = if i % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        let record = LogRecord::Item {
            ts: "2026-01-01T00:00:00.000Z".into(),
            turn_id: Some(format!("turn_{}", i / 2)),
            item: Item::text(format!("msg_{i}"), role, format!("{i}: {body}")),
        };
        text.push_str(&serde_json::to_string(&record)?);
        text.push('\n');
    }
    let whole = text.into_bytes();
    let torn_tail = br#"{"type":"item","ts":"2026-01-01T00:00:00.000Z","item":{"type":"message","id":"m","role":"assistant","content":[{"type":"text","text":"half an ans"#;
    println!(
        "log: {items} items, {:.1} MiB, torn tail {} bytes; {runs} runs",
        whole.len() as f64 / (1024.0 * 1024.0),
        torn_tail.len()
    );
    let mut repair = Vec::new();
    let mut read = Vec::new();
    for _ in 0..runs {
        let mut f = std::fs::File::create(&path)?;
        f.write_all(&whole)?;
        f.write_all(torn_tail)?;
        f.sync_all()?;
        drop(f);
        let _ = std::fs::remove_file(torn_path(&path));

        let t0 = Instant::now();
        let (log, torn) = SessionLog::open_repairing(&path)?;
        let t1 = Instant::now();
        let loaded = LoadedSession::read(&path)?;
        let t2 = Instant::now();
        assert!(torn.is_some() && loaded.items.len() == items && !loaded.torn_tail);
        drop(log);
        repair.push((t1 - t0).as_secs_f64() * 1e3);
        read.push((t2 - t1).as_secs_f64() * 1e3);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (r, l) = (median(&mut repair), median(&mut read));
    println!("lock + repair the tail: median {r:.2} ms");
    println!("read the whole log:     median {l:.2} ms");
    println!("recover (both):         median {:.2} ms", r + l);
    Ok(())
}
