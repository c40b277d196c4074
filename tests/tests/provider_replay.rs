//! The replaying test provider, exercised over real HTTP with reqwest.

use std::time::{Duration, Instant};

use serde_json::json;
use tack_tests::{ReplayProvider, ScriptedResponse, chat_sse, shared_dir_or_skip, shared_fixture};

/// Reads a response body chunk by chunk, as the client's HTTP stack hands it over.
async fn reads(response: &mut reqwest::Response) -> reqwest::Result<Vec<Vec<u8>>> {
    let mut reads = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        reads.push(chunk.to_vec());
    }
    Ok(reads)
}

fn client() -> reqwest::Client {
    // No pooling: each request gets a fresh connection, so a truncated or stalled response
    // cannot affect the next one through a reused socket.
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap_or_else(|e| panic!("cannot build a reqwest client: {e}"))
}

#[tokio::test]
async fn replays_status_headers_and_body_and_records_the_request_byte_for_byte() {
    let body = b"data: {\"x\":\"\xc3\xa9\"}\n\ndata: [DONE]\n\n".to_vec();
    let provider = ReplayProvider::start([ScriptedResponse::sse(body.clone())
        .with_status(201)
        .with_header("x-request-id", "req_123")
        .with_header("x-repeated", "a")
        .with_header("x-repeated", "b")]);

    // Deliberately not UTF-8 and not JSON: the recording must not reinterpret the bytes.
    let sent: Vec<u8> = vec![0x7b, 0x00, 0xff, 0xfe, b'\n', b'}'];
    let mut response = client()
        .post(provider.url("/v1/chat/completions?api-version=2&x=%20y"))
        .header("authorization", "Bearer sk-test")
        .header("content-type", "application/octet-stream")
        .body(sent.clone())
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 201);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert_eq!(response.headers()["x-request-id"], "req_123");
    let repeated: Vec<_> = response.headers().get_all("x-repeated").iter().collect();
    assert_eq!(repeated, ["a", "b"]);
    assert_eq!(reads(&mut response).await.unwrap().concat(), body);

    let requests = provider.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.index, 0);
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.query.as_deref(), Some("api-version=2&x=%20y"));
    assert_eq!(request.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(
        request.header("content-type"),
        Some("application/octet-stream")
    );
    assert_eq!(request.body.as_ref(), sent.as_slice());
    assert_eq!(provider.remaining(), 0);
}

#[tokio::test]
async fn json_request_bodies_parse_back() {
    let provider = ReplayProvider::start([ScriptedResponse::sse(chat_sse(&[]))]);
    let sent =
        json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    client()
        .post(provider.url("/v1/chat/completions"))
        .json(&sent)
        .send()
        .await
        .unwrap();
    assert_eq!(provider.requests()[0].body_json().unwrap(), sent);
}

#[tokio::test]
async fn split_chunks_arrive_as_separate_reads_after_the_delays() {
    let pause = Duration::from_millis(150);
    let provider =
        ReplayProvider::start([ScriptedResponse::sse("data: a\n\ndata: b\n\ndata: c\n\n")
            .split_at(&[4, 11, 20])
            .delay_between_chunks(pause)]);

    let started = Instant::now();
    let mut response = client().get(provider.url("/stream")).send().await.unwrap();
    let reads = reads(&mut response).await.unwrap();

    let reads: Vec<String> = reads
        .into_iter()
        .map(|r| String::from_utf8(r).unwrap())
        .collect();
    assert_eq!(reads, ["data", ": a\n\nda", "ta: b\n\nda", "ta: c\n\n"]);
    // Three pauses separate four chunks; a sleep never ends early, so this lower bound holds
    // on any machine (no upper bound is asserted).
    assert!(
        started.elapsed() >= pause * 3,
        "took only {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn split_every_can_cut_inside_a_utf8_character() {
    let body = "é€".as_bytes().to_vec(); // 2 + 3 bytes
    let provider = ReplayProvider::start([ScriptedResponse::sse(body.clone()).split_every(1)]);
    let mut response = client().get(provider.base_url()).send().await.unwrap();
    let reads = reads(&mut response).await.unwrap();
    assert_eq!(reads, body.iter().map(|b| vec![*b]).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_chunk_is_delivered_while_the_rest_is_still_unsent() {
    // The stall never sends more, so the first read can only succeed if the provider flushes
    // each chunk as it goes rather than buffering the body.
    let provider = ReplayProvider::start([ScriptedResponse::sse("data: first\n\ndata: never\n\n")
        .split_at(&[13])
        .stall_after(13)]);
    let mut response = client().get(provider.base_url()).send().await.unwrap();
    let first = response.chunk().await.unwrap().unwrap();
    assert_eq!(first.as_ref(), b"data: first\n\n");

    // Shutting the provider down closes the stalled connection: the read fails rather than
    // ending cleanly or yielding the unsent bytes.
    drop(provider);
    assert!(response.chunk().await.is_err());
}

#[tokio::test]
async fn truncation_closes_the_connection_mid_body() {
    let body = b"data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n";
    let provider = ReplayProvider::start([
        ScriptedResponse::sse(body.to_vec())
            .split_every(8)
            .truncate_after(20),
        ScriptedResponse::sse("data: [DONE]\n\n"),
    ]);

    let mut response = client().get(provider.url("/first")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let mut received = Vec::new();
    let error = loop {
        match response.chunk().await {
            Ok(Some(chunk)) => received.extend_from_slice(&chunk),
            Ok(None) => panic!("the body ended cleanly after {received:?}"),
            Err(e) => break e,
        }
    };
    assert_eq!(received, &body[..20]);
    assert!(
        error.is_body() || error.is_decode(),
        "unexpected error kind: {error:?}"
    );

    // The provider itself keeps serving.
    let next = client().get(provider.url("/second")).send().await.unwrap();
    assert_eq!(next.bytes().await.unwrap().as_ref(), b"data: [DONE]\n\n");
    let paths: Vec<_> = provider.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/first", "/second"]);
}

#[tokio::test]
async fn a_hung_response_sends_nothing_until_the_provider_is_dropped() {
    let provider = ReplayProvider::start([ScriptedResponse::hang()]);
    let url = provider.url("/v1/responses");
    let pending = tokio::spawn(async move { client().post(url).body("{}").send().await });

    // The request is recorded before the (never-coming) response; wait until it is.
    while provider.requests().is_empty() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!pending.is_finished());
    assert_eq!(provider.requests()[0].body.as_ref(), b"{}");

    drop(provider);
    let outcome = pending.await.unwrap();
    assert!(
        outcome.is_err(),
        "expected a connection error, got {outcome:?}"
    );
}

#[tokio::test]
async fn an_exhausted_script_answers_500_naming_the_request() {
    let provider = ReplayProvider::start([ScriptedResponse::json(
        429,
        &json!({"error": {"type": "rate_limit_error"}}),
    )
    .with_header("retry-after", "2")]);

    let first = client()
        .post(provider.url("/v1/messages"))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), 429);
    assert_eq!(first.headers()["retry-after"], "2");
    assert_eq!(first.headers()["content-type"], "application/json");
    assert_eq!(
        first.json::<serde_json::Value>().await.unwrap(),
        json!({"error": {"type": "rate_limit_error"}})
    );

    let extra = client()
        .post(provider.url("/v1/messages?beta=true"))
        .send()
        .await
        .unwrap();
    assert_eq!(extra.status(), 500);
    let text = extra.text().await.unwrap();
    assert!(
        text.contains("unexpected request #1 (POST /v1/messages?beta=true)")
            && text.contains("1 response(s)"),
        "{text}"
    );
    // The unexpected request is recorded too, so the test can show what was sent.
    assert_eq!(provider.requests().len(), 2);
}

#[tokio::test]
async fn concurrent_requests_pair_with_responses_in_arrival_order() {
    let script: Vec<_> = (0..8)
        .map(|i| ScriptedResponse::new(200, format!("{i}")))
        .collect();
    let provider = ReplayProvider::start(script);
    let client = client();
    let calls = (0..8).map(|i| {
        let request = client.post(provider.url(&format!("/call/{i}"))).send();
        async move { (i, request.await.unwrap().text().await.unwrap()) }
    });
    let answers = futures::future::join_all(calls).await;

    let requests = provider.requests();
    for (i, answer) in answers {
        // Whatever order they arrived in, the n-th recorded request got the n-th response.
        let recorded = requests
            .iter()
            .find(|r| r.path == format!("/call/{i}"))
            .unwrap();
        assert_eq!(answer, recorded.index.to_string());
    }
}

#[test]
fn works_without_an_async_runtime_in_the_test() {
    let provider = ReplayProvider::start([ScriptedResponse::new(200, "plain")]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let text = runtime.block_on(async {
        client()
            .get(provider.base_url())
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    });
    assert_eq!(text, "plain");
}

#[tokio::test]
async fn a_recorded_capture_replays_byte_for_byte_one_byte_per_chunk() {
    let _shared = shared_dir_or_skip!();
    let capture = shared_fixture("wire/chat/openai-tool-call.sse").unwrap();
    let provider = ReplayProvider::start([ScriptedResponse::sse(capture.clone()).split_every(1)]);
    let mut response = client()
        .post(provider.url("/v1/chat/completions"))
        .send()
        .await
        .unwrap();
    let reads = reads(&mut response).await.unwrap();
    assert_eq!(reads.len(), capture.len());
    assert_eq!(reads.concat(), capture);
}
