//! The client against a real HTTP server on 127.0.0.1: statuses, retries, truncation,
//! cancellation, the non-streaming fallback, and exchange records that never hold the key.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use support::server::{Reply, TestServer, http, sse, sse_head_and_body};
use tack_protocol::{
    ErrorKind, Exchange, Item, ModelError, REDACTED, StopReason, StreamEvent, Wire,
};
use tack_wire::client::{
    Auth, ClientConfig, ExchangeMeta, ExchangeSink, ModelClient, ResponseStream, RetryPolicy,
    Sampling,
};
use tack_wire::{Endpoint, RenderedRequest, ShapedMessage, ShapedRequest, ShapedRole, ToolKinds};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

const CANARY: &str = "sk-canary-7f3a9c1e5b2d4086";

const STREAM: &[u8] = b"data: {\"id\":\"chatcmpl-1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n\
data: {\"id\":\"chatcmpl-1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n\
data: {\"id\":\"chatcmpl-1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
data: {\"id\":\"chatcmpl-1\",\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n\
data: [DONE]\n\n";

/// Collects every exchange the client records.
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

    /// Every record, serialized, must be free of the key.
    fn assert_no_canary(&self) {
        for exchange in self.all() {
            let text = serde_json::to_string(&exchange).unwrap();
            assert!(!text.contains(CANARY), "key leaked into {text}");
            assert!(
                !text.contains("canary-7f3a"),
                "part of the key leaked into {text}"
            );
        }
    }
}

fn request(base_url: &str, stream: bool) -> RenderedRequest {
    let mut shaped = ShapedRequest {
        model: "m".into(),
        messages: vec![ShapedMessage::text(ShapedRole::User, "hi")],
        ..ShapedRequest::default()
    };
    shaped.params.stream = stream;
    shaped.headers.push(("x-title".into(), "tack tests".into()));
    tack_wire::render(&shaped, Wire::Chat, &Endpoint::new(base_url)).unwrap()
}

fn client(max_attempts: u32) -> ModelClient {
    ModelClient::new(ClientConfig {
        retry: RetryPolicy {
            max_attempts,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_secs(5),
        },
        idle_timeout: Duration::from_secs(20),
        ..ClientConfig::default()
    })
    .unwrap()
}

async fn open(
    client: &ModelClient,
    req: &RenderedRequest,
    records: &Records,
    cancel: CancellationToken,
) -> Result<ResponseStream, ModelError> {
    let auth = Auth::bearer(CANARY);
    let kinds = ToolKinds::new();
    let origin = support::origin();
    let meta = ExchangeMeta {
        id: "ex".into(),
        turn_id: "turn-1".into(),
        purpose: "main".into(),
        harness: "minimal".into(),
        route: "chat/minimal".into(),
        prompt_source: None,
        provider: "test".into(),
        model: "m".into(),
    };
    let sampling = Sampling {
        request: req,
        auth: Some(&auth),
        wire: Wire::Chat,
        tool_kinds: &kinds,
        origin: &origin,
        meta: &meta,
    };
    client.open(sampling, records.sink(), cancel).await
}

async fn drain(stream: &mut ResponseStream) -> Vec<Result<StreamEvent, ModelError>> {
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    events
}

#[tokio::test]
async fn streams_events_and_records_the_exchange() {
    let server = TestServer::start(vec![Reply::Raw(sse(STREAM))]).await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let mut stream = open(&client(3), &req, &records, CancellationToken::new())
        .await
        .unwrap();
    let events = drain(&mut stream).await;
    let texts: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::TextDelta { text }) => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["Hel", "lo"]);
    assert!(matches!(
        events.last(),
        Some(Ok(StreamEvent::Completed {
            stop_reason: StopReason::EndTurn,
            ..
        }))
    ));

    let received = server.received();
    assert_eq!(received.len(), 1);
    assert_eq!(
        received[0].request_line,
        "POST /v1/chat/completions HTTP/1.1"
    );
    assert_eq!(
        received[0].header("authorization"),
        Some(format!("Bearer {CANARY}").as_str())
    );
    assert_eq!(received[0].header("accept"), Some("text/event-stream"));
    assert_eq!(received[0].body, req.body);

    drop(stream);
    let all = records.all();
    assert_eq!(all.len(), 1, "one attempt, recorded once");
    let ex = &all[0];
    assert_eq!(ex.summary.id, "ex-1");
    assert_eq!(ex.summary.attempt, 1);
    assert_eq!(ex.summary.outcome, "ok");
    assert_eq!(ex.summary.status, Some(200));
    assert_eq!(ex.summary.url, req.url);
    assert!(ex.summary.ttfb_ms.is_some() && ex.summary.total_ms.is_some());
    assert_eq!(ex.summary.usage.map(|u| u.input_tokens), Some(5));
    assert_eq!(ex.request_body.as_bytes(), &req.body[..]);
    let names: Vec<&str> = ex.request_headers.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "content-type",
            "accept",
            "x-title",
            "user-agent",
            "authorization"
        ]
    );
    assert_eq!(ex.request_headers[4].value, REDACTED);
    let cookie = ex
        .response_headers
        .iter()
        .find(|h| h.name == "set-cookie")
        .unwrap();
    assert_eq!(cookie.value, REDACTED);
    let body: String = ex.response_chunks.iter().map(|c| c.data.as_str()).collect();
    assert_eq!(body.as_bytes(), STREAM);
    // Consecutive text deltas are recorded joined ("Hel" + "lo"); the rest one for one.
    assert_eq!(ex.events.len(), events.len() - 1);
    assert!(
        ex.events
            .iter()
            .any(|e| matches!(e, StreamEvent::TextDelta { text } if text == "Hello"))
    );
    records.assert_no_canary();
}

#[tokio::test]
async fn unauthorized_is_auth_without_retry_and_without_the_key() {
    // The server echoes the key it got, as a careless proxy might.
    let body = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {CANARY}","type":"invalid_request_error","code":"invalid_api_key"}}}}"#
    );
    let server = TestServer::start(vec![
        Reply::Raw(http(
            "401 Unauthorized",
            &[("content-type", "application/json")],
            body.as_bytes(),
        )),
        Reply::Raw(sse(STREAM)),
    ])
    .await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let err = open(&client(4), &req, &records, CancellationToken::new())
        .await
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::Auth);
    assert_eq!(err.status, Some(401));
    assert!(!err.retryable);
    assert!(
        err.message.contains("Incorrect API key provided"),
        "{}",
        err.message
    );
    assert!(!err.message.contains(CANARY), "{}", err.message);
    assert!(err.hint.is_some());
    assert_eq!(server.received().len(), 1, "401 is never retried");
    let all = records.all();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].summary.outcome, "auth");
    records.assert_no_canary();
}

#[tokio::test]
async fn rate_limit_honours_retry_after_then_succeeds() {
    let server = TestServer::start(vec![
        Reply::Raw(http(
            "429 Too Many Requests",
            &[("retry-after", "1")],
            b"slow down",
        )),
        Reply::Raw(sse(STREAM)),
    ])
    .await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let mut stream = open(&client(3), &req, &records, CancellationToken::new())
        .await
        .unwrap();
    let events = drain(&mut stream).await;
    assert!(matches!(
        events.last(),
        Some(Ok(StreamEvent::Completed { .. }))
    ));
    assert_eq!(server.received().len(), 2);
    let all = records.all();
    assert_eq!(all.len(), 2, "both attempts are recorded");
    assert_eq!(all[0].summary.attempt, 1);
    assert_eq!(all[0].summary.outcome, "rate_limit");
    assert_eq!(all[0].summary.status, Some(429));
    assert_eq!(all[0].error.as_ref().unwrap().retry_after_ms, Some(1000));
    assert_eq!(all[1].summary.attempt, 2);
    assert_eq!(all[1].summary.id, "ex-2");
    assert_eq!(all[1].summary.outcome, "ok");
    records.assert_no_canary();
}

#[tokio::test]
async fn server_error_is_retried() {
    let server = TestServer::start(vec![
        Reply::Raw(http(
            "500 Internal Server Error",
            &[],
            b"{\"error\":{\"message\":\"boom\"}}",
        )),
        Reply::Raw(sse(STREAM)),
    ])
    .await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let mut stream = open(&client(3), &req, &records, CancellationToken::new())
        .await
        .unwrap();
    assert!(matches!(
        drain(&mut stream).await.last(),
        Some(Ok(StreamEvent::Completed { .. }))
    ));
    let outcomes: Vec<String> = records
        .all()
        .into_iter()
        .map(|e| e.summary.outcome)
        .collect();
    assert_eq!(outcomes, ["server_error", "ok"]);
    records.assert_no_canary();
}

#[tokio::test]
async fn context_length_is_not_retried() {
    let body = br#"{"error":{"message":"This model's maximum context length is 8192 tokens.","code":"context_length_exceeded"}}"#;
    let server = TestServer::start(vec![
        Reply::Raw(http("400 Bad Request", &[], body)),
        Reply::Raw(sse(STREAM)),
    ])
    .await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let err = open(&client(4), &req, &records, CancellationToken::new())
        .await
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::ContextLengthExceeded);
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn unreachable_port_is_unreachable() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let records = Records::default();
    let req = request(&format!("http://127.0.0.1:{port}/v1"), true);
    let err = open(&client(2), &req, &records, CancellationToken::new())
        .await
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::Unreachable);
    assert!(err.hint.as_deref().unwrap().contains("base URL"));
    assert!(
        !err.message.contains("127.0.0.1"),
        "no URL in messages: {}",
        err.message
    );
    let all = records.all();
    assert_eq!(all.len(), 2, "connection errors are retried");
    assert!(
        all.iter()
            .all(|e| e.summary.outcome == "unreachable" && e.summary.status.is_none())
    );
    records.assert_no_canary();
}

#[tokio::test]
async fn body_cut_mid_stream_is_truncated_and_not_retried() {
    let first_two = &STREAM[..STREAM.windows(2).position(|w| w == b"\n\n").unwrap() + 2];
    let cut = sse_head_and_body(STREAM.len(), first_two);
    let server = TestServer::start(vec![Reply::Raw(cut), Reply::Raw(sse(STREAM))]).await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let mut stream = open(&client(4), &req, &records, CancellationToken::new())
        .await
        .unwrap();
    let events = drain(&mut stream).await;
    assert!(matches!(events[0], Ok(StreamEvent::Created { .. })));
    assert!(matches!(&events[1], Ok(StreamEvent::TextDelta { text }) if text == "Hel"));
    let Some(Err(err)) = events.last() else {
        panic!("expected an error, got {events:?}");
    };
    assert_eq!(err.kind, ErrorKind::StreamTruncated);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Ok(StreamEvent::ItemDone { .. }))),
        "no item from a truncated response"
    );
    assert_eq!(
        server.received().len(),
        1,
        "never retried after the first byte"
    );
    drop(stream);
    let all = records.all();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].summary.outcome, "stream_truncated");
    records.assert_no_canary();
}

#[tokio::test]
async fn cancelling_mid_stream_closes_the_connection() {
    let first = &STREAM[..STREAM.windows(2).position(|w| w == b"\n\n").unwrap() + 2];
    let (closed_tx, closed_rx) = oneshot::channel();
    let server = TestServer::start(vec![Reply::Hold(
        sse_head_and_body(STREAM.len(), first),
        closed_tx,
    )])
    .await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let cancel = CancellationToken::new();
    let mut stream = open(&client(1), &req, &records, cancel.clone())
        .await
        .unwrap();
    assert!(matches!(
        stream.next().await,
        Some(Ok(StreamEvent::Created { .. }))
    ));
    assert!(matches!(
        stream.next().await,
        Some(Ok(StreamEvent::TextDelta { .. }))
    ));
    cancel.cancel();
    let Some(Err(err)) = stream.next().await else {
        panic!("expected the cancellation error");
    };
    assert_eq!(err.kind, ErrorKind::Cancelled);
    assert!(stream.next().await.is_none());
    // The server sees the client close its connection (a bound on the wait keeps a
    // regression from hanging the suite; it is not a timing assertion).
    tokio::time::timeout(Duration::from_secs(10), closed_rx)
        .await
        .expect("the connection was not closed")
        .unwrap();
    let all = records.all();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].summary.outcome, "cancelled");
    assert_eq!(all[0].events.len(), 2);
    records.assert_no_canary();
}

#[tokio::test]
async fn dropping_the_stream_records_a_cancelled_exchange() {
    let first = &STREAM[..STREAM.windows(2).position(|w| w == b"\n\n").unwrap() + 2];
    let (closed_tx, closed_rx) = oneshot::channel();
    let server = TestServer::start(vec![Reply::Hold(
        sse_head_and_body(STREAM.len(), first),
        closed_tx,
    )])
    .await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let stream = open(&client(1), &req, &records, CancellationToken::new())
        .await
        .unwrap();
    drop(stream);
    tokio::time::timeout(Duration::from_secs(10), closed_rx)
        .await
        .expect("the connection was not closed")
        .unwrap();
    let all = records.all();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].summary.outcome, "cancelled");
}

#[tokio::test]
async fn non_streaming_reply_becomes_the_same_events() {
    let reply = br#"{"id":"chatcmpl-9","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok","reasoning_content":"think","tool_calls":[{"id":"call_1","type":"function","function":{"name":"shell","arguments":"{\"cmd\":\"ls\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":9,"completion_tokens":4}}"#;
    let server = TestServer::start(vec![Reply::Raw(http(
        "200 OK",
        &[("content-type", "application/json")],
        reply,
    ))])
    .await;
    let records = Records::default();
    let req = request(&server.base_url(), false);
    assert!(!req.stream);
    let mut stream = open(&client(1), &req, &records, CancellationToken::new())
        .await
        .unwrap();
    let events: Vec<StreamEvent> = drain(&mut stream)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_ne!(
        server.received()[0].header("accept"),
        Some("text/event-stream")
    );
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match e {
            StreamEvent::Created { .. } => "created",
            StreamEvent::TextDelta { .. } => "text",
            StreamEvent::ReasoningDelta { .. } => "reasoning",
            StreamEvent::ToolCallStarted { .. } => "started",
            StreamEvent::ToolCallDelta { .. } => "delta",
            StreamEvent::ItemDone {
                item: Item::Reasoning(_),
            } => "reasoning_item",
            StreamEvent::ItemDone {
                item: Item::Message(_),
            } => "message_item",
            StreamEvent::ItemDone {
                item: Item::FunctionCall(_),
            } => "call_item",
            StreamEvent::ItemDone { .. } => "other_item",
            StreamEvent::Usage { .. } => "usage",
            StreamEvent::Completed { .. } => "completed",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "created",
            "reasoning",
            "text",
            "started",
            "delta",
            "reasoning_item",
            "message_item",
            "call_item",
            "usage",
            "completed"
        ]
    );
    assert!(matches!(
        events.last(),
        Some(StreamEvent::Completed {
            stop_reason: StopReason::ToolCalls,
            ..
        })
    ));
    records.assert_no_canary();
}

/// A CLI that asks for JSON while streaming (Claude Code's `accept: application/json`): the
/// SSE reply is decoded as a stream, chosen by its `content-type`.
#[tokio::test]
async fn a_stream_asked_for_with_accept_json_is_decoded_by_its_content_type() {
    let server = TestServer::start(vec![Reply::Raw(sse(STREAM))]).await;
    let records = Records::default();
    let mut shaped = ShapedRequest {
        model: "m".into(),
        messages: vec![ShapedMessage::text(ShapedRole::User, "hi")],
        ..ShapedRequest::default()
    };
    shaped.params.stream = true;
    shaped
        .headers
        .push(("accept".into(), "application/json".into()));
    let req = tack_wire::render(&shaped, Wire::Chat, &Endpoint::new(server.base_url())).unwrap();
    let mut stream = open(&client(1), &req, &records, CancellationToken::new())
        .await
        .unwrap();
    let events = drain(&mut stream).await;
    assert_eq!(
        server.received()[0].header("accept"),
        Some("application/json")
    );
    let texts: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::TextDelta { text }) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["Hel", "lo"]);
    assert!(matches!(
        events.last(),
        Some(Ok(StreamEvent::Completed {
            stop_reason: StopReason::EndTurn,
            ..
        }))
    ));
}

#[tokio::test]
async fn echoed_key_in_a_stream_is_scrubbed_from_the_record() {
    let body = format!(
        "data: {{\"id\":\"c\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"your key is {CANARY}\"}}}}]}}\n\n\
         data: {{\"id\":\"c\",\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"stop\"}}]}}\n\ndata: [DONE]\n\n"
    );
    let server = TestServer::start(vec![Reply::Raw(sse(body.as_bytes()))]).await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let mut stream = open(&client(1), &req, &records, CancellationToken::new())
        .await
        .unwrap();
    let events = drain(&mut stream).await;
    assert!(matches!(
        events.last(),
        Some(Ok(StreamEvent::Completed { .. }))
    ));
    records.assert_no_canary();
    let ex = &records.all()[0];
    assert!(ex.response_chunks.iter().any(|c| c.data.contains(REDACTED)));
}

fn client_with_idle(max_attempts: u32, idle: Duration) -> ModelClient {
    ModelClient::new(ClientConfig {
        retry: RetryPolicy {
            max_attempts,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_secs(5),
        },
        idle_timeout: idle,
        ..ClientConfig::default()
    })
    .unwrap()
}

#[tokio::test]
async fn a_silent_stream_times_out() {
    let first = &STREAM[..STREAM.windows(2).position(|w| w == b"\n\n").unwrap() + 2];
    let (closed_tx, closed_rx) = oneshot::channel();
    let server = TestServer::start(vec![Reply::Hold(
        sse_head_and_body(STREAM.len(), first),
        closed_tx,
    )])
    .await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let client = client_with_idle(3, Duration::from_millis(300));
    let mut stream = open(&client, &req, &records, CancellationToken::new())
        .await
        .unwrap();
    let events = drain(&mut stream).await;
    assert_eq!(last_kind(&events), Some(ErrorKind::Timeout));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Ok(StreamEvent::ItemDone { .. })))
    );
    tokio::time::timeout(Duration::from_secs(10), closed_rx)
        .await
        .expect("the connection was not closed")
        .unwrap();
    assert_eq!(records.all()[0].summary.outcome, "timeout");
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn a_timeout_after_sending_is_not_retried() {
    // The server takes the request and never answers: it may be working on it, so sending it
    // again could run (and bill) it twice.
    let (closed_tx, _closed_rx) = oneshot::channel();
    let server = TestServer::start(vec![Reply::Hold(Vec::new(), closed_tx)]).await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let client = client_with_idle(3, Duration::from_millis(300));
    let err = open(&client, &req, &records, CancellationToken::new())
        .await
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::Timeout);
    assert_eq!(server.received().len(), 1);
    assert_eq!(records.all().len(), 1);
}

#[tokio::test]
async fn redirects_are_reported_not_followed() {
    let server = TestServer::start(vec![
        Reply::Raw(http(
            "307 Temporary Redirect",
            &[("location", "https://elsewhere.example/v1/chat/completions")],
            b"",
        )),
        Reply::Raw(sse(STREAM)),
    ])
    .await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let err = open(&client(3), &req, &records, CancellationToken::new())
        .await
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::Config);
    assert!(
        err.message
            .contains("redirected to https://elsewhere.example/v1/chat/completions (not followed, so the key is never sent elsewhere)"),
        "{}",
        err.message
    );
    assert!(!err.hint.as_deref().unwrap().contains("model"), "{err:?}");
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn a_retry_after_beyond_the_cap_is_returned_to_the_caller() {
    let server = TestServer::start(vec![
        Reply::Raw(http(
            "429 Too Many Requests",
            &[("retry-after", "3600")],
            b"",
        )),
        Reply::Raw(sse(STREAM)),
    ])
    .await;
    let records = Records::default();
    let req = request(&server.base_url(), true);
    let err = open(&client(3), &req, &records, CancellationToken::new())
        .await
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::RateLimit);
    assert_eq!(err.retry_after_ms, Some(3_600_000));
    assert_eq!(server.received().len(), 1);
}

fn last_kind(events: &[Result<StreamEvent, ModelError>]) -> Option<ErrorKind> {
    match events.last() {
        Some(Err(e)) => Some(e.kind),
        _ => None,
    }
}
