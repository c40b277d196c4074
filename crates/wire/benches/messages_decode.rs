//! Messages stream decoding throughput: Tack's decoder on the path the client uses versus a
//! naive baseline (split `data:` lines, parse each into `serde_json::Value`).
//!
//! The corpus is the real captures in `../shared/fixtures/wire/messages/` repeated back to
//! back as complete streams to about 32 MiB (a synthetic stream of the same shape when
//! `../shared` is absent), pushed in 4 KiB pieces through a fresh decoder per stream.

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

#[path = "support/decode_corpus.rs"]
mod decode_corpus;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use decode_corpus::{
    as_bytes, baseline, client_recorded, corpus, fixtures, interleaved_min, tack_decode,
};
use tack_protocol::Wire;

/// Thinking, text, then a tool use, padded like Anthropic's frames.
fn synthetic() -> Vec<Vec<u8>> {
    let mut s = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n",
    );
    s.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n\n");
    for i in 0..200 {
        s.push_str(&format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"thinking_delta\",\"thinking\":\" step {i}\"}}}}   \n\n"));
    }
    s.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    );
    s.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    for i in 0..400 {
        s.push_str(&format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{{\"type\":\"text_delta\",\"text\":\" word{i}\"}}}}     \n\n"));
    }
    s.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
    );
    s.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Bash\",\"input\":{}}}\n\n");
    for i in 0..100 {
        s.push_str(&format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"part{i} \"}}}}\n\n"));
    }
    s.push_str("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":700}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    vec![s.into_bytes()]
}

fn bench(c: &mut Criterion) {
    let (streams, total) = corpus(&fixtures(Wire::Messages, synthetic));
    eprintln!(
        "corpus: {} streams, {:.1} MiB",
        streams.len(),
        total as f64 / (1024.0 * 1024.0)
    );
    let mut group = c.benchmark_group("messages_decode");
    group.throughput(Throughput::Bytes(total as u64));
    group.sample_size(10);
    group.bench_function("tack_decoder_4k_pushes", |b| {
        b.iter(|| black_box(tack_decode(Wire::Messages, black_box(&streams))))
    });
    let shared = as_bytes(&streams);
    let (bare, recorded) = interleaved_min(
        15,
        || {
            black_box(tack_decode(Wire::Messages, &streams));
        },
        || {
            black_box(client_recorded(Wire::Messages, &shared));
        },
    );
    eprintln!(
        "interleaved min: bare {bare:?}, recorded {recorded:?}: recording costs {:+.1}%",
        (recorded.as_secs_f64() / bare.as_secs_f64() - 1.0) * 100.0
    );
    group.bench_function("client_path_recorded_4k_pushes", |b| {
        b.iter(|| black_box(client_recorded(Wire::Messages, black_box(&shared))))
    });
    group.bench_function("baseline_lines_to_value", |b| {
        b.iter(|| black_box(baseline(black_box(&streams))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
