//! Shared by the decode benches: the corpus (real captures repeated to ~32 MiB), Tack's
//! decoding path as the client runs it, and the naive baseline it is compared with.

use std::hint::black_box;
use std::path::PathBuf;

use tack_protocol::{ReasoningOrigin, Wire};
use tack_wire::{ToolKinds, decoder};

/// Corpus size the fixtures are repeated to.
pub const TARGET_BYTES: usize = 32 * 1024 * 1024;
/// Bytes per push, like a network read.
pub const PIECE: usize = 4096;

/// `../shared/fixtures/wire/<wire>/*.sse` (or `$TACK_SHARED/…`), else `fallback`.
pub fn fixtures(wire: Wire, fallback: impl FnOnce() -> Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let shared = std::env::var_os("TACK_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let dir = shared.join("fixtures/wire").join(wire.as_str());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "sse"));
    files.sort();
    if files.is_empty() {
        eprintln!("no ../shared: using a synthetic corpus");
        return fallback();
    }
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// Whole streams, repeated until the corpus reaches [`TARGET_BYTES`], and its size.
pub fn corpus(fixtures: &[Vec<u8>]) -> (Vec<Vec<u8>>, usize) {
    let mut streams = Vec::new();
    let mut total = 0;
    'fill: loop {
        for f in fixtures {
            total += f.len();
            streams.push(f.clone());
            if total >= TARGET_BYTES {
                break 'fill;
            }
        }
    }
    (streams, total)
}

/// Tack's path: a fresh decoder per stream, 4 KiB pushes, events drained after each push
/// (as `ResponseStream` does). Returns the number of events.
pub fn tack_decode(wire: Wire, streams: &[Vec<u8>]) -> usize {
    let origin = ReasoningOrigin {
        wire,
        provider: None,
        model: None,
    };
    let mut events = Vec::with_capacity(64);
    let mut count = 0;
    for stream in streams {
        let mut d = decoder(wire, ToolKinds::new(), origin.clone());
        for piece in stream.chunks(PIECE) {
            d.push(piece, &mut events);
            count += events.len();
            for event in events.drain(..) {
                let _ = black_box(event);
            }
        }
        d.finish(&mut events);
        count += events.len();
        for event in events.drain(..) {
            let _ = black_box(event);
        }
    }
    count
}

/// The baseline: split `data:` lines and parse each into a `serde_json::Value`.
pub fn baseline(streams: &[Vec<u8>]) -> usize {
    let mut count = 0;
    for stream in streams {
        for line in stream.split(|&b| b == b'\n') {
            let Some(data) = line.strip_prefix(b"data:") else {
                continue;
            };
            let data = data.trim_ascii();
            if data == b"[DONE]" {
                continue;
            }
            if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) {
                count += 1;
                let _ = black_box(value);
            }
        }
    }
    count
}

/// The corpus as `Bytes` (what the HTTP client hands over), made once outside the timing.
#[allow(dead_code)]
pub fn as_bytes(streams: &[Vec<u8>]) -> Vec<bytes::Bytes> {
    streams
        .iter()
        .map(|s| bytes::Bytes::from(s.clone()))
        .collect()
}

/// The client's path with recording (`tack_wire::client::bench::decode_recorded`): the same
/// 4 KiB pieces and fresh decoder per stream as [`tack_decode`], plus the exchange record of
/// every stream (pieces, events, finished record). Returns the number of events.
#[allow(dead_code)]
pub fn client_recorded(wire: Wire, streams: &[bytes::Bytes]) -> usize {
    let request = tack_wire::RenderedRequest {
        method: "POST".into(),
        url: "https://example.invalid/v1".into(),
        headers: Vec::new(),
        body: bytes::Bytes::from_static(b"{\"model\":\"m\",\"stream\":true}"),
        stream: true,
    };
    let mut count = 0;
    for stream in streams {
        let pieces = (0..stream.len())
            .step_by(PIECE)
            .map(|at| stream.slice(at..(at + PIECE).min(stream.len())));
        let exchange = tack_wire::client::bench::decode_recorded(wire, &request, pieces, |e| {
            count += 1;
            let _ = black_box(e);
        });
        let _ = black_box(exchange);
    }
    count
}

/// The fastest of `rounds` runs of `a` and of `b`, alternated so that both see the same
/// machine load (the benches share their machine); min is the least load-sensitive figure.
/// Printed next to criterion's own figures as the ratio the budget is about.
#[allow(dead_code)]
pub fn interleaved_min(
    rounds: usize,
    mut a: impl FnMut(),
    mut b: impl FnMut(),
) -> (std::time::Duration, std::time::Duration) {
    let mut best = (std::time::Duration::MAX, std::time::Duration::MAX);
    for _ in 0..rounds {
        let t = std::time::Instant::now();
        a();
        best.0 = best.0.min(t.elapsed());
        let t = std::time::Instant::now();
        b();
        best.1 = best.1.min(t.elapsed());
    }
    best
}
