//! Kinds of provider misbehaviour, each against the real client over loopback HTTP (the
//! replaying provider): bodies past the size caps, records past their caps, connections kept
//! alive without an answer, replies that are not the API's answer, invalid UTF-8, and error
//! statuses whose usual advice would mislead.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tack_protocol::{ErrorKind, Exchange, ModelError, StreamEvent, Wire};
use tack_tests::{ReplayProvider, ScriptedResponse};
use tack_wire::client::{
    ClientConfig, ExchangeMeta, ExchangeSink, ModelClient, RecordLimits, RetryPolicy, Sampling,
};
use tack_wire::sse::SseLimits;
use tack_wire::{Endpoint, RenderedRequest, ShapedMessage, ShapedRequest, ShapedRole, ToolKinds};
use tokio_util::sync::CancellationToken;

type Events = Vec<Result<StreamEvent, ModelError>>;

fn chat_chunk(content: &str) -> String {
    format!(
        "data: {{\"id\":\"c1\",\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{}}}}}]}}\n\n",
        serde_json::to_string(content).unwrap()
    )
}

const FINISH: &str = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

/// The same stream on each wire: `text` in one delta, complete.
fn stream_on(wire: Wire, text: &str) -> Vec<u8> {
    let t = serde_json::to_string(text).unwrap();
    match wire {
        Wire::Chat => format!("{}{FINISH}", chat_chunk(text)).into_bytes(),
        Wire::Responses => format!(
            "event: response.created\ndata: {{\"type\":\"response.created\",\"response\":{{\"id\":\"r1\",\"model\":\"m\",\"output\":[]}}}}\n\n\
event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"item_id\":\"m1\",\"output_index\":0,\"content_index\":0,\"delta\":{t}}}\n\n\
event: response.completed\ndata: {{\"type\":\"response.completed\",\"response\":{{\"id\":\"r1\",\"model\":\"m\",\"status\":\"completed\",\"output\":[{{\"type\":\"message\",\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":{t}}}]}}]}}}}\n\n"
        )
        .into_bytes(),
        Wire::Messages => format!(
            "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"id\":\"msg_1\",\"model\":\"m\",\"content\":[],\"usage\":{{\"input_tokens\":1,\"output_tokens\":0}}}}}}\n\n\
event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}\n\n\
event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":{t}}}}}\n\n\
event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n\
event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"end_turn\"}},\"usage\":{{\"output_tokens\":1}}}}\n\n\
event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
        )
        .into_bytes(),
    }
}

#[derive(Clone, Default)]
struct Records(Arc<Mutex<Vec<Exchange>>>);

impl Records {
    fn sink(&self) -> ExchangeSink {
        let records = self.0.clone();
        Arc::new(move |exchange| records.lock().unwrap().push(exchange))
    }

    fn all(&self) -> Vec<Exchange> {
        self.0.lock().unwrap().clone()
    }
}

fn request(provider: &ReplayProvider, wire: Wire) -> RenderedRequest {
    let mut shaped = ShapedRequest {
        model: "m".into(),
        messages: vec![ShapedMessage::text(ShapedRole::User, "hi")],
        ..ShapedRequest::default()
    };
    shaped.params.stream = true;
    tack_wire::render(&shaped, wire, &Endpoint::new(provider.url("/v1"))).unwrap()
}

fn config() -> ClientConfig {
    ClientConfig {
        retry: RetryPolicy::none(),
        idle_timeout: Duration::from_secs(20),
        ..ClientConfig::default()
    }
}

/// Opens the request on `wire` and drains the stream; the open error, if any, is the one
/// event.
async fn run(provider: &ReplayProvider, wire: Wire, config: ClientConfig) -> (Events, Records) {
    let client = ModelClient::new(config).unwrap();
    let records = Records::default();
    let req = request(provider, wire);
    let kinds = ToolKinds::new();
    let origin = support::origin_on(wire);
    let meta = ExchangeMeta {
        id: "ex".into(),
        ..ExchangeMeta::default()
    };
    let sampling = Sampling {
        request: &req,
        auth: None,
        wire,
        tool_kinds: &kinds,
        origin: &origin,
        meta: &meta,
    };
    let mut events = Vec::new();
    match client
        .open(sampling, records.sink(), CancellationToken::new())
        .await
    {
        Ok(mut stream) => {
            while let Some(event) = stream.next().await {
                events.push(event);
            }
        }
        Err(e) => events.push(Err(e)),
    }
    (events, records)
}

fn last_error(events: &Events) -> &ModelError {
    match events.last() {
        Some(Err(e)) => e,
        other => panic!("expected an error last, got {other:?}"),
    }
}

fn text_of(events: &Events) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::TextDelta { text }) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

const WIRES: [Wire; 3] = [Wire::Chat, Wire::Responses, Wire::Messages];

// ---- 1. size caps ----------------------------------------------------------------------------

#[tokio::test]
async fn a_line_past_the_cap_is_a_format_error_naming_cap_and_size_on_every_wire() {
    let limits = SseLimits {
        max_line: 64 * 1024,
        max_event: 64 * 1024,
        max_body: 16 * 1024 * 1024,
    };
    for wire in WIRES {
        // One SSE line of ~1 MiB, sent in 16 KiB pieces: the client must stop at the cap.
        let body = stream_on(wire, &"x".repeat(1024 * 1024));
        let provider = ReplayProvider::start([ScriptedResponse::sse(body).split_every(16 * 1024)]);
        let (events, records) = run(
            &provider,
            wire,
            ClientConfig {
                stream_limits: Some(limits),
                ..config()
            },
        )
        .await;
        let e = last_error(&events);
        assert_eq!(e.kind, ErrorKind::FormatError, "{wire}: {e:?}");
        assert!(
            e.message
                .contains("an SSE line is larger than the 64.0 KiB cap"),
            "{wire}: {}",
            e.message
        );
        assert!(e.message.contains("without a line end"), "{}", e.message);
        assert!(e.message.contains(wire.as_str()), "{}", e.message);
        assert!(!e.retryable);
        assert_eq!(records.all()[0].summary.outcome, "format_error");
    }
}

#[tokio::test]
async fn an_event_of_many_data_lines_past_the_cap_is_a_format_error() {
    let limits = SseLimits {
        max_line: 64 * 1024,
        max_event: 256 * 1024,
        max_body: 16 * 1024 * 1024,
    };
    let mut body = String::new();
    for _ in 0..10 {
        body.push_str(&format!("data: {}\n", "y".repeat(40 * 1024)));
    }
    body.push('\n');
    let provider = ReplayProvider::start([ScriptedResponse::sse(body).split_every(8 * 1024)]);
    let (events, _) = run(
        &provider,
        Wire::Chat,
        ClientConfig {
            stream_limits: Some(limits),
            ..config()
        },
    )
    .await;
    let e = last_error(&events);
    assert_eq!(e.kind, ErrorKind::FormatError);
    assert!(
        e.message
            .contains("an SSE event is larger than the 256.0 KiB cap"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn a_body_past_the_cap_is_a_format_error_streamed_or_json() {
    let limits = SseLimits {
        max_line: 64 * 1024,
        max_event: 64 * 1024,
        max_body: 200 * 1024,
    };
    let mut body = String::new();
    for i in 0..10_000 {
        body.push_str(&chat_chunk(&format!("w{i} ")));
    }
    body.push_str(FINISH);
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(body.clone()).split_every(4096),
        ScriptedResponse::new(200, format!("{{\"pad\":\"{}\"}}", "z".repeat(300 * 1024)))
            .with_header("content-type", "application/json"),
    ]);
    let cfg = || ClientConfig {
        stream_limits: Some(limits),
        ..config()
    };
    let (events, _) = run(&provider, Wire::Chat, cfg()).await;
    let e = last_error(&events);
    assert_eq!(e.kind, ErrorKind::FormatError);
    assert!(
        e.message
            .contains("the response body is larger than the 200.0 KiB cap"),
        "{}",
        e.message
    );
    // Deltas before the cap were shown; nothing runnable came out.
    assert!(!text_of(&events).is_empty());
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Ok(StreamEvent::ItemDone { .. })))
    );
    let (events, _) = run(&provider, Wire::Chat, cfg()).await;
    let errors: Vec<_> = events.iter().filter(|e| e.is_err()).collect();
    assert_eq!(errors.len(), 1, "one error, not one per piece: {errors:?}");
    assert!(
        last_error(&events).message.contains("200.0 KiB cap"),
        "{:?}",
        last_error(&events)
    );
}

#[tokio::test]
async fn many_tiny_events_keep_the_record_bounded_and_marked() {
    const N: usize = 200_000;
    let mut body = String::with_capacity(N * 60);
    for _ in 0..N {
        body.push_str("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n");
    }
    body.push_str(FINISH);
    let provider = ReplayProvider::start([ScriptedResponse::sse(body).split_every(1500)]);
    let limits = RecordLimits {
        max_body_bytes: 256 * 1024,
        max_chunks: 100,
        max_delta_events: 50,
        max_delta_bytes: 10_000,
    };
    let (events, records) = run(
        &provider,
        Wire::Chat,
        ClientConfig {
            record_limits: limits,
            ..config()
        },
    )
    .await;
    assert!(matches!(
        events.last(),
        Some(Ok(StreamEvent::Completed { .. }))
    ));
    assert_eq!(text_of(&events).len(), N, "the answer itself is whole");
    let ex = &records.all()[0];
    assert!(
        ex.response_chunks.len() <= 101,
        "{}",
        ex.response_chunks.len()
    );
    let kept: usize = ex.response_chunks.iter().map(|c| c.data.len()).sum();
    assert!(kept <= 256 * 1024 + 200, "{kept}");
    let marker = &ex.response_chunks.last().unwrap().data;
    assert!(
        marker.starts_with("\n: tack: not recorded (exchange record cap):"),
        "{marker}"
    );
    assert!(marker.contains("MiB of the body"), "{marker}");
    assert!(
        marker.contains("delta event(s) after the first 50"),
        "{marker}"
    );
    let recorded_text: usize = ex
        .events
        .iter()
        .map(|e| match e {
            StreamEvent::TextDelta { text } => text.len(),
            _ => 0,
        })
        .sum();
    assert!(recorded_text <= 10_000, "{recorded_text}");
    // The terminal events are always kept.
    assert!(matches!(
        ex.events.last(),
        Some(StreamEvent::Completed { .. })
    ));
    // The recorded body is still SSE: it decodes up to the cut, the marker is a comment.
    let joined: String = ex.response_chunks.iter().map(|c| c.data.as_str()).collect();
    let decoded = tack_wire::decode_all(
        Wire::Chat,
        ToolKinds::new(),
        support::origin(),
        joined.as_bytes(),
    );
    assert!(text_of(&decoded).len() > 1000);
}

// ---- 3. hangs --------------------------------------------------------------------------------

#[tokio::test]
async fn comments_without_events_end_in_no_progress() {
    // OpenRouter-style keep-alives, every 20 ms, for far longer than the test runs.
    let body = ": OPENROUTER PROCESSING\n\n".repeat(2000);
    let piece = ": OPENROUTER PROCESSING\n\n".len();
    let provider = ReplayProvider::start([ScriptedResponse::sse(body)
        .split_every(piece)
        .delay_between_chunks(Duration::from_millis(20))]);
    let (events, records) = run(
        &provider,
        Wire::Chat,
        ClientConfig {
            progress_timeout: Duration::from_millis(400),
            ..config()
        },
    )
    .await;
    let e = last_error(&events);
    assert_eq!(e.kind, ErrorKind::NoProgress, "{e:?}");
    assert!(
        e.message.contains("without sending any event"),
        "{}",
        e.message
    );
    assert!(e.hint.as_deref().unwrap().contains("no-progress timeout"));
    assert_eq!(records.all()[0].summary.outcome, "no_progress");
}

#[tokio::test]
async fn tiny_chunks_that_never_finish_an_event_end_in_no_progress() {
    // One event's line, a byte at a time, never ended.
    let body = chat_chunk(&"q".repeat(5000));
    let provider = ReplayProvider::start([ScriptedResponse::sse(body)
        .split_every(1)
        .delay_between_chunks(Duration::from_millis(5))]);
    let (events, _) = run(
        &provider,
        Wire::Chat,
        ClientConfig {
            progress_timeout: Duration::from_millis(400),
            ..config()
        },
    )
    .await;
    assert_eq!(last_error(&events).kind, ErrorKind::NoProgress);
}

#[tokio::test]
async fn a_stream_that_never_ends_hits_the_total_deadline() {
    // Real events every 20 ms: progress, but no end.
    let mut body = String::new();
    for _ in 0..2000 {
        body.push_str(&chat_chunk("tick "));
    }
    let piece = chat_chunk("tick ").len();
    let provider = ReplayProvider::start([ScriptedResponse::sse(body)
        .split_every(piece)
        .delay_between_chunks(Duration::from_millis(20))]);
    let (events, records) = run(
        &provider,
        Wire::Chat,
        ClientConfig {
            progress_timeout: Duration::from_millis(300),
            request_deadline: Duration::from_millis(700),
            ..config()
        },
    )
    .await;
    let e = last_error(&events);
    assert_eq!(e.kind, ErrorKind::DeadlineExceeded, "{e:?}");
    assert!(e.message.contains("0.7 s deadline"), "{}", e.message);
    assert!(text_of(&events).starts_with("tick tick"));
    assert_eq!(records.all()[0].summary.outcome, "deadline_exceeded");
}

#[tokio::test]
async fn the_deadline_also_bounds_waiting_for_headers() {
    let provider = ReplayProvider::start([ScriptedResponse::hang()]);
    let (events, _) = run(
        &provider,
        Wire::Chat,
        ClientConfig {
            request_deadline: Duration::from_millis(300),
            ..config()
        },
    )
    .await;
    assert_eq!(last_error(&events).kind, ErrorKind::DeadlineExceeded);
}

// ---- 4. replies that are not the API's answer ------------------------------------------------

#[tokio::test]
async fn an_html_page_with_200_says_what_arrived() {
    let page =
        "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>portal</body></html>";
    for wire in WIRES {
        for content_type in ["text/html; charset=utf-8", "text/plain", ""] {
            let mut reply = ScriptedResponse::new(200, page);
            if !content_type.is_empty() {
                reply = reply.with_header("content-type", content_type);
            }
            let provider = ReplayProvider::start([reply]);
            let (events, _) = run(&provider, wire, config()).await;
            let e = last_error(&events);
            assert_eq!(
                e.kind,
                ErrorKind::FormatError,
                "{wire} {content_type}: {e:?}"
            );
            assert!(
                e.message.contains("<!DOCTYPE html>\\n<html>"),
                "{}",
                e.message
            );
            if content_type.is_empty() {
                assert!(e.message.contains("no content-type"), "{}", e.message);
            } else {
                assert!(e.message.contains(content_type), "{}", e.message);
            }
            assert!(!e.message.contains("dropped"), "{}", e.message);
            assert!(e.hint.as_deref().unwrap().contains("base URL"));
        }
    }
}

#[tokio::test]
async fn a_json_request_answered_with_html_says_what_arrived() {
    let provider = ReplayProvider::start([ScriptedResponse::new(200, "<html>nope</html>")
        .with_header("content-type", "application/json")]);
    let client = ModelClient::new(config()).unwrap();
    let records = Records::default();
    let mut req = request(&provider, Wire::Chat);
    req.stream = false;
    let kinds = ToolKinds::new();
    let origin = support::origin();
    let meta = ExchangeMeta::default();
    let sampling = Sampling {
        request: &req,
        auth: None,
        wire: Wire::Chat,
        tool_kinds: &kinds,
        origin: &origin,
        meta: &meta,
    };
    let mut stream = client
        .open(sampling, records.sink(), CancellationToken::new())
        .await
        .unwrap();
    let mut events = Vec::new();
    while let Some(e) = stream.next().await {
        events.push(e);
    }
    let e = last_error(&events);
    assert_eq!(e.kind, ErrorKind::FormatError);
    assert!(e.message.contains("`<html>nope</html>`"), "{}", e.message);
}

#[tokio::test]
async fn a_compressed_body_the_client_cannot_decode_is_named() {
    for encoding in ["gzip", "br", "zstd"] {
        let provider = ReplayProvider::start([ScriptedResponse::sse(vec![
            0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3,
        ])
        .with_header("content-encoding", encoding)]);
        let (events, records) = run(&provider, Wire::Chat, config()).await;
        let e = last_error(&events);
        assert_eq!(e.kind, ErrorKind::FormatError);
        assert!(
            e.message.contains(&format!(
                "`{encoding}`-encoded body, which the client did not ask for"
            )),
            "{}",
            e.message
        );
        assert_eq!(provider.requests().len(), 1, "not retried");
        assert_eq!(records.all().len(), 1);
    }
}

#[tokio::test]
async fn binary_bytes_without_an_encoding_header_are_shown_escaped() {
    let provider =
        ReplayProvider::start([ScriptedResponse::sse(vec![0x1f, 0x8b, 0x08, 0, b'x', 0xff])]);
    let (events, _) = run(&provider, Wire::Chat, config()).await;
    let e = last_error(&events);
    assert_eq!(e.kind, ErrorKind::FormatError);
    assert!(
        e.message.contains(r"\u{1f}\x8b\u{8}\u{0}x\xff"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn invalid_utf8_inside_a_stream_is_replaced_and_the_answer_goes_on() {
    for wire in WIRES {
        // "caf\xC3" then "\xA9": a character cut in two *inside one event* (the provider split
        // a token), plus a lone continuation byte elsewhere.
        let mut body = stream_on(wire, "caf@@ ok");
        let at = body.windows(2).position(|w| w == b"@@").unwrap();
        body[at] = 0xC3;
        body[at + 1] = 0x28;
        let provider = ReplayProvider::start([ScriptedResponse::sse(body).split_every(7)]);
        let (events, records) = run(&provider, wire, config()).await;
        assert!(
            matches!(events.last(), Some(Ok(StreamEvent::Completed { .. }))),
            "{wire}: {events:?}"
        );
        assert_eq!(text_of(&events), "caf\u{FFFD}( ok", "{wire}");
        assert_eq!(records.all()[0].summary.outcome, "ok");
    }
}

#[tokio::test]
async fn a_413_says_the_request_was_too_large_with_its_size() {
    let provider = ReplayProvider::start([ScriptedResponse::new(413, "Request Entity Too Large")]);
    let (events, _) = run(&provider, Wire::Chat, config()).await;
    let e = last_error(&events);
    assert_eq!(e.kind, ErrorKind::BadRequest);
    assert_eq!(e.status, Some(413));
    assert!(
        e.message.contains("(the request body was "),
        "{}",
        e.message
    );
    assert!(e.message.contains("bytes)"), "{}", e.message);
    let hint = e.hint.as_deref().unwrap();
    assert!(hint.contains("larger than the provider accepts"), "{hint}");
    assert!(!hint.contains("model name"), "{hint}");
}

#[tokio::test]
async fn every_redirect_status_is_reported_with_its_target_and_never_followed() {
    for status in [301, 302, 303, 307, 308] {
        let provider = ReplayProvider::start([
            ScriptedResponse::new(status, "<html>moved</html>").with_header(
                "location",
                "https://api.example/v1/chat/completions?key=sk-x",
            ),
            ScriptedResponse::sse(stream_on(Wire::Chat, "should not be fetched")),
        ]);
        let (events, _) = run(&provider, Wire::Chat, config()).await;
        let e = last_error(&events);
        assert_eq!(e.kind, ErrorKind::Config, "{status}");
        assert!(
            e.message.contains(
                "the provider redirected to https://api.example/v1/chat/completions?key=[REDACTED] (not followed, so the key is never sent elsewhere)"
            ),
            "{}",
            e.message
        );
        assert!(!e.hint.as_deref().unwrap().contains("model name"));
        assert_eq!(provider.requests().len(), 1);
    }
}

#[tokio::test]
async fn retry_after_as_a_date_is_measured_on_the_servers_clock() {
    // The server's clock is years off the local one; the wait is still the 2 s it means.
    let provider = ReplayProvider::start([
        ScriptedResponse::new(429, "slow down")
            .with_header("date", "Sat, 01 Jan 2000 00:00:00 GMT")
            .with_header("retry-after", "Sat, 01 Jan 2000 00:00:02 GMT"),
        ScriptedResponse::new(429, "slow down")
            .with_header("date", "Sat, 01 Jan 2000 00:00:00 GMT")
            .with_header("retry-after", "Sat, 01 Jan 2000 06:00:00 GMT"),
    ]);
    for (expected, shown) in [
        (2000, None),
        (3_600_000, Some("wait 6.0 h; Tack counts 60 min at most")),
    ] {
        let (events, _) = run(&provider, Wire::Chat, config()).await;
        let e = last_error(&events);
        assert_eq!(e.retry_after_ms, Some(expected), "{e:?}");
        if let Some(shown) = shown {
            assert!(e.message.contains(shown), "{}", e.message);
        }
    }
}
