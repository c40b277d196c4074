//! Chat stream decoding throughput: Tack's decoder on the path the client uses versus a naive
//! baseline (split `data:` lines, parse each into `serde_json::Value`).
//!
//! The corpus is the real captures in `../shared/fixtures/wire/chat/` repeated back to back as
//! complete streams to about 32 MiB (a synthetic corpus of the same shape when `../shared` is
//! absent). The decoder side pushes each stream in 4 KiB pieces through a fresh decoder,
//! collecting events into a Vec that is drained after each push, as the client does.

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

#[allow(dead_code)]
#[path = "support/decode_corpus.rs"]
mod decode_corpus;

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tack_protocol::{ReasoningOrigin, Wire};
use tack_wire::{ToolKinds, decoder};

const TARGET_BYTES: usize = 32 * 1024 * 1024;
const PIECE: usize = 4096;

fn fixtures() -> Vec<Vec<u8>> {
    let shared = std::env::var_os("TACK_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let dir = shared.join("fixtures/wire/chat");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "sse"));
    files.sort();
    if files.is_empty() {
        eprintln!("no ../shared: using a synthetic corpus");
        return vec![synthetic_text(), synthetic_tool_call()];
    }
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

fn chunk(content: &str) -> String {
    format!(
        "data: {{\"id\":\"chatcmpl-synthetic\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\"system_fingerprint\":\"fp_1\",\"choices\":[{{\"index\":0,\"delta\":{{{content}}},\"logprobs\":null,\"finish_reason\":null}}],\"usage\":null,\"obfuscation\":\"abc\"}}\n\n"
    )
}

fn synthetic_text() -> Vec<u8> {
    let mut s = String::new();
    for i in 0..200 {
        s.push_str(&chunk(&format!(
            "\"reasoning_content\":\"step {i} of the plan\""
        )));
    }
    for i in 0..400 {
        s.push_str(&chunk(&format!("\"content\":\" word{i}\"")));
    }
    s.push_str("data: {\"id\":\"chatcmpl-synthetic\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
    s.push_str("data: {\"id\":\"chatcmpl-synthetic\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":600}}\n\ndata: [DONE]\n\n");
    s.into_bytes()
}

fn synthetic_tool_call() -> Vec<u8> {
    let mut s = chunk(
        "\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"shell\",\"arguments\":\"\"}}]",
    );
    for i in 0..100 {
        s.push_str(&chunk(&format!(
            "\"tool_calls\":[{{\"index\":0,\"function\":{{\"arguments\":\"part{i} \"}}}}]"
        )));
    }
    s.push_str("data: {\"id\":\"chatcmpl-synthetic\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    s.into_bytes()
}

/// Streams repeated until the corpus reaches [`TARGET_BYTES`].
fn corpus() -> (Vec<Vec<u8>>, usize) {
    let fixtures = fixtures();
    let mut streams = Vec::new();
    let mut total = 0;
    'fill: loop {
        for f in &fixtures {
            total += f.len();
            streams.push(f.clone());
            if total >= TARGET_BYTES {
                break 'fill;
            }
        }
    }
    (streams, total)
}

fn origin() -> ReasoningOrigin {
    ReasoningOrigin {
        wire: Wire::Chat,
        provider: None,
        model: None,
    }
}

/// Tack's path: a fresh decoder per stream, 4 KiB pushes, events drained after each push.
fn tack_decode(streams: &[Vec<u8>]) -> usize {
    let mut events = Vec::with_capacity(64);
    let mut count = 0;
    for stream in streams {
        let mut d = decoder(Wire::Chat, ToolKinds::new(), origin());
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

/// The baseline: split `data:` lines and parse each into a `Value`.
fn baseline(streams: &[Vec<u8>]) -> usize {
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
                black_box(value);
            }
        }
    }
    count
}

fn bench(c: &mut Criterion) {
    let (streams, total) = corpus();
    eprintln!(
        "corpus: {} streams, {:.1} MiB",
        streams.len(),
        total as f64 / (1024.0 * 1024.0)
    );
    let mut group = c.benchmark_group("chat_decode");
    group.throughput(Throughput::Bytes(total as u64));
    group.sample_size(10);
    group.bench_function("tack_decoder_4k_pushes", |b| {
        b.iter(|| black_box(tack_decode(black_box(&streams))))
    });
    let shared = decode_corpus::as_bytes(&streams);
    let (bare, recorded) = decode_corpus::interleaved_min(
        15,
        || {
            black_box(tack_decode(&streams));
        },
        || {
            black_box(decode_corpus::client_recorded(Wire::Chat, &shared));
        },
    );
    eprintln!(
        "interleaved min: bare {bare:?}, recorded {recorded:?}: recording costs {:+.1}%",
        (recorded.as_secs_f64() / bare.as_secs_f64() - 1.0) * 100.0
    );
    group.bench_function("client_path_recorded_4k_pushes", |b| {
        b.iter(|| {
            black_box(decode_corpus::client_recorded(
                Wire::Chat,
                black_box(&shared),
            ))
        })
    });
    group.bench_function("baseline_lines_to_value", |b| {
        b.iter(|| black_box(baseline(black_box(&streams))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
