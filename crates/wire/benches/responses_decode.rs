//! Responses stream decoding throughput: Tack's decoder on the path the client uses versus a
//! naive baseline (split `data:` lines, parse each into `serde_json::Value`).
//!
//! The corpus is the real captures in `../shared/fixtures/wire/responses/` repeated back to
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

/// A text answer then a function call, with OpenAI's lifecycle events.
fn synthetic() -> Vec<Vec<u8>> {
    let mut s = String::new();
    let response = r#"{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-4.1","output":[],"tools":[],"usage":null}"#;
    s.push_str(&format!("event: response.created\ndata: {{\"type\":\"response.created\",\"response\":{response}}}\n\n"));
    s.push_str("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"msg_1\",\"role\":\"assistant\",\"content\":[]}}\n\n");
    for i in 0..400 {
        s.push_str(&format!("event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"output_index\":0,\"item_id\":\"msg_1\",\"content_index\":0,\"delta\":\" word{i}\",\"sequence_number\":{i}}}\n\n"));
    }
    s.push_str("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":1,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"shell\",\"arguments\":\"\"}}\n\n");
    for i in 0..100 {
        s.push_str(&format!("event: response.function_call_arguments.delta\ndata: {{\"type\":\"response.function_call_arguments.delta\",\"output_index\":1,\"item_id\":\"fc_1\",\"delta\":\"part{i} \"}}\n\n"));
    }
    s.push_str("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"status\":\"completed\",\"usage\":{\"input_tokens\":10,\"output_tokens\":500}}}\n\n");
    vec![s.into_bytes()]
}

fn bench(c: &mut Criterion) {
    let (streams, total) = corpus(&fixtures(Wire::Responses, synthetic));
    eprintln!(
        "corpus: {} streams, {:.1} MiB",
        streams.len(),
        total as f64 / (1024.0 * 1024.0)
    );
    let mut group = c.benchmark_group("responses_decode");
    group.throughput(Throughput::Bytes(total as u64));
    group.sample_size(10);
    group.bench_function("tack_decoder_4k_pushes", |b| {
        b.iter(|| black_box(tack_decode(Wire::Responses, black_box(&streams))))
    });
    let shared = as_bytes(&streams);
    let (bare, recorded) = interleaved_min(
        15,
        || {
            black_box(tack_decode(Wire::Responses, &streams));
        },
        || {
            black_box(client_recorded(Wire::Responses, &shared));
        },
    );
    eprintln!(
        "interleaved min: bare {bare:?}, recorded {recorded:?}: recording costs {:+.1}%",
        (recorded.as_secs_f64() / bare.as_secs_f64() - 1.0) * 100.0
    );
    group.bench_function("client_path_recorded_4k_pushes", |b| {
        b.iter(|| black_box(client_recorded(Wire::Responses, black_box(&shared))))
    });
    group.bench_function("baseline_lines_to_value", |b| {
        b.iter(|| black_box(baseline(black_box(&streams))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
