//! History → Chat request bytes: a ShapedRequest of N history items (per 5 items: one text
//! message, two tool calls, two tool outputs) with a realistic system prompt and tool set.

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

#[allow(dead_code)]
#[path = "support/decode_corpus.rs"]
mod decode_corpus;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use tack_protocol::{ToolSpec, Wire};
use tack_wire::{
    Block, Endpoint, ResultPart, ShapedMessage, ShapedRequest, ShapedRole, SystemBlock, render,
};

fn history(items: usize) -> ShapedRequest {
    let mut messages = Vec::new();
    let units = items / 5;
    for u in 0..units {
        let text = format!(
            "Step {u}: please look at src/module_{u}.rs and fix the failing test in it; \
             keep the public API unchanged and explain what you changed. {}",
            "Context line. ".repeat(12)
        );
        let role = if u % 2 == 0 {
            ShapedRole::User
        } else {
            ShapedRole::Assistant
        };
        messages.push(ShapedMessage::text(role, text));
        let calls = (0..2)
            .map(|k| Block::ToolCall {
                call_id: format!("call_{u}_{k}"),
                name: if k == 0 { "shell" } else { "read_file" }.into(),
                arguments: format!(
                    r#"{{"cmd":"rg -n \"fn test_{u}\" src/module_{u}.rs","timeout_ms":10000,"k":{k}}}"#
                ),
                custom_input: None,
            })
            .collect();
        messages.push(ShapedMessage::new(ShapedRole::Assistant, calls));
        let results = (0..2)
            .map(|k| Block::ToolResult {
                call_id: format!("call_{u}_{k}"),
                content: vec![ResultPart::Text {
                    text: format!(
                        "src/module_{u}.rs:{k}: fn test() {{\n\tassert_eq!(x, \"y\");\n}}\n"
                    )
                    .repeat(12),
                }],
                is_error: None,
                cache: false,
            })
            .collect();
        messages.push(ShapedMessage::new(ShapedRole::Tool, results));
    }
    let tools = (0..12)
        .map(|i| {
            ToolSpec::function(
                format!("tool_{i}"),
                "A tool with a typical schema and a description of a few sentences. ".repeat(3),
                json!({"type":"object","properties":{
                    "path":{"type":"string","description":"File path."},
                    "offset":{"type":"integer","minimum":0},
                    "limit":{"type":"integer","minimum":1}
                },"required":["path"],"additionalProperties":false}),
            )
        })
        .collect();
    let mut req = ShapedRequest {
        model: "gpt-4.1".into(),
        system: vec![SystemBlock {
            text: "You are a coding agent working in a repository. ".repeat(160),
            cache: false,
        }],
        messages,
        tools,
        ..ShapedRequest::default()
    };
    req.params.stream = true;
    req.params.include_usage = true;
    req.params.max_tokens = Some(8192);
    req
}

fn bench(c: &mut Criterion) {
    let endpoint = Endpoint::new("https://api.openai.com/v1");
    let mut group = c.benchmark_group("render_chat");
    for items in [100, 500, 2000] {
        let req = history(items);
        let size = render(&req, Wire::Chat, &endpoint)
            .map(|r| r.body.len())
            .unwrap_or(0);
        eprintln!("{items} items → {size} bytes");
        let (alone, with_send) = decode_corpus::interleaved_min(
            200,
            || {
                let _ = black_box(render(&req, Wire::Chat, &endpoint));
            },
            || {
                let rendered = render(&req, Wire::Chat, &endpoint);
                let _ = black_box(rendered.map(|r| tack_wire::client::bench::send_and_record(&r)));
            },
        );
        eprintln!(
            "interleaved min: render {alone:?}, render+send+record {with_send:?}: {:.2}x",
            with_send.as_secs_f64() / alone.as_secs_f64()
        );
        group.throughput(Throughput::Elements(items as u64));
        group.bench_with_input(BenchmarkId::from_parameter(items), &req, |b, req| {
            b.iter(|| black_box(render(black_box(req), Wire::Chat, &endpoint)))
        });
        // Bytes on the wire: rendering plus what one attempt does with the body besides the
        // socket write (prepared headers, the body handed to the HTTP client, the record).
        group.bench_with_input(
            BenchmarkId::new("render_send_record", items),
            &req,
            |b, req| {
                b.iter(|| {
                    let rendered = render(black_box(req), Wire::Chat, &endpoint);
                    black_box(rendered.map(|r| tack_wire::client::bench::send_and_record(&r)))
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
