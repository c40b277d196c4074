//! A test provider on loopback that replays scripted HTTP responses and records the requests.
//!
//! End-to-end tests point Tack's HTTP client at [`ReplayProvider::base_url`] instead of a real
//! provider. Each incoming request, whatever its path, takes the next [`ScriptedResponse`] in
//! order; the test then asserts on [`ReplayProvider::requests`] (which path, which headers,
//! which body bytes went out). Bodies are sent byte for byte, so a recorded SSE capture from
//! `../shared/fixtures/wire/` reaches the client exactly as the real provider sent it, and the
//! chunking, delays and failure modes below reproduce what networks do to streams.
//!
//! The server runs on its own thread and Tokio runtime, so it serves the same way under a
//! synchronous test, a current-thread `#[tokio::test]`, or a test that drives a child process.

use std::collections::VecDeque;
use std::fmt;
use std::net::{SocketAddr, TcpListener as StdTcpListener};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use axum::serve::ListenerExt;
use futures::stream::{self, BoxStream, StreamExt};
use tokio_util::sync::CancellationToken;

/// One scripted HTTP response: status, headers, body bytes, and how the bytes are delivered.
///
/// Built with [`ScriptedResponse::sse`], [`ScriptedResponse::json`] or [`ScriptedResponse::new`]
/// and refined with the `with_*`, `split_*`, `truncate_after`, `stall_after` and
/// `delay_between_chunks` builders. By default the whole body goes out as one chunk.
#[derive(Clone)]
pub struct ScriptedResponse {
    status: StatusCode,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Bytes,
    split: Split,
    delay: Duration,
    ending: Ending,
}

/// Where the body is cut into separately written chunks.
#[derive(Clone, Debug, PartialEq)]
enum Split {
    Whole,
    Every(usize),
    At(Vec<usize>),
}

/// How the exchange ends.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ending {
    /// The body is sent in full and the response completes normally.
    Complete,
    /// After this many body bytes the connection is closed without finishing the response.
    TruncateAfter(usize),
    /// After this many body bytes nothing more is sent, and the connection stays open until
    /// the client gives up or the provider is dropped.
    StallAfter(usize),
    /// The request is read and recorded, but no status line is ever sent.
    Hang,
}

impl ScriptedResponse {
    /// A response with the given status and body and no headers beyond what HTTP/1.1 framing
    /// adds (`transfer-encoding: chunked`, `date`).
    pub fn new(status: u16, body: impl Into<Bytes>) -> Self {
        ScriptedResponse {
            status: status_code(status),
            headers: Vec::new(),
            body: body.into(),
            split: Split::Whole,
            delay: Duration::ZERO,
            ending: Ending::Complete,
        }
    }

    /// `200 OK` with `content-type: text/event-stream` and the given bytes, typically a
    /// recorded SSE capture or the output of [`crate::chat_sse`] / [`crate::event_sse`].
    pub fn sse(body: impl Into<Bytes>) -> Self {
        Self::new(200, body).with_header("content-type", "text/event-stream")
    }

    /// A JSON body with `content-type: application/json`, e.g. a provider's error object with
    /// status 429 or 500.
    pub fn json(status: u16, body: &serde_json::Value) -> Self {
        Self::new(status, body.to_string()).with_header("content-type", "application/json")
    }

    /// A response that never comes: the request is recorded, then the connection stays open
    /// with no status line until the client gives up or the provider is dropped. For
    /// connect/first-byte timeout and cancellation tests.
    pub fn hang() -> Self {
        let mut response = Self::new(200, Bytes::new());
        response.ending = Ending::Hang;
        response
    }

    /// Replaces the status code.
    ///
    /// # Panics
    /// If `status` is not a valid HTTP status code (100–999).
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = status_code(status);
        self
    }

    /// Adds a header (repeat the call for repeated headers, e.g. two `set-cookie`).
    ///
    /// # Panics
    /// If the name or value is not valid in an HTTP header; scripts are test code, and a
    /// typo should fail where it was written.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        let parsed_name = HeaderName::from_bytes(name.as_bytes())
            .unwrap_or_else(|e| panic!("invalid header name {name:?}: {e}"));
        let parsed_value = HeaderValue::from_str(value)
            .unwrap_or_else(|e| panic!("invalid value for header {name}: {value:?}: {e}"));
        self.headers.push((parsed_name, parsed_value));
        self
    }

    /// Sends the body in chunks of `n` bytes (the last one may be shorter). Each chunk is one
    /// write and one HTTP/1.1 chunk on the wire; with [`Self::delay_between_chunks`] the client
    /// sees each as a separate read. Splits may fall inside a UTF-8 character or an SSE line,
    /// which is the point.
    ///
    /// # Panics
    /// If `n` is 0.
    pub fn split_every(mut self, n: usize) -> Self {
        assert!(n > 0, "split_every(0): chunks must be at least one byte");
        self.split = Split::Every(n);
        self
    }

    /// Cuts the body before each of these byte offsets (offsets of 0, at or past the end, and
    /// duplicates are ignored; order does not matter).
    pub fn split_at(mut self, offsets: &[usize]) -> Self {
        self.split = Split::At(offsets.to_vec());
        self
    }

    /// Waits this long before each chunk after the first.
    pub fn delay_between_chunks(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Sends only the first `n` body bytes (cutting a chunk if needed), then closes the
    /// connection without ending the response: the client sees an incomplete body, as when a
    /// provider or proxy drops a stream.
    pub fn truncate_after(mut self, n: usize) -> Self {
        self.ending = Ending::TruncateAfter(n);
        self
    }

    /// Sends only the first `n` body bytes, then goes silent with the connection open: the
    /// client sees a stream that stops moving (idle-timeout and cancellation tests).
    pub fn stall_after(mut self, n: usize) -> Self {
        self.ending = Ending::StallAfter(n);
        self
    }

    /// The body cut into the chunks that will be written, after truncation or stalling.
    fn chunks(&self) -> Vec<Bytes> {
        let len = match self.ending {
            Ending::TruncateAfter(n) | Ending::StallAfter(n) => n.min(self.body.len()),
            Ending::Complete => self.body.len(),
            Ending::Hang => 0,
        };
        let mut cuts: Vec<usize> = match &self.split {
            Split::Whole => Vec::new(),
            Split::Every(n) => (1..).map(|i| i * n).take_while(|&c| c < len).collect(),
            Split::At(offsets) => offsets.clone(),
        };
        cuts.retain(|&c| c > 0 && c < len);
        cuts.sort_unstable();
        cuts.dedup();
        let mut chunks = Vec::with_capacity(cuts.len() + 1);
        let mut start = 0;
        for cut in cuts.into_iter().chain(std::iter::once(len)) {
            if cut > start {
                chunks.push(self.body.slice(start..cut));
            }
            start = cut;
        }
        chunks
    }
}

impl fmt::Debug for ScriptedResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedResponse")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .field("body_len", &self.body.len())
            .field("split", &self.split)
            .field("delay", &self.delay)
            .field("ending", &self.ending)
            .finish()
    }
}

fn status_code(status: u16) -> StatusCode {
    StatusCode::from_u16(status).unwrap_or_else(|e| panic!("invalid HTTP status {status}: {e}"))
}

/// One request as the provider received it.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    /// Position in arrival order, from 0.
    pub index: usize,
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Path without the query, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Raw query string without `?`, if any.
    pub query: Option<String>,
    /// All request headers (names lower-cased by HTTP parsing, values as sent).
    pub headers: HeaderMap,
    /// The body exactly as received (after HTTP/1.1 de-chunking, before any decompression).
    pub body: Bytes,
}

impl RecordedRequest {
    /// The header's value if present and visible ASCII; for repeated headers, the first.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body parsed as JSON.
    ///
    /// # Errors
    /// The body is not valid JSON.
    pub fn body_json(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::from_slice(&self.body)
    }

    /// The body as text, with invalid UTF-8 replaced.
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// State shared by the handler and the test.
struct Script {
    /// One lock for both, so the n-th recorded request is always the one that got the n-th
    /// scripted response, even when requests arrive concurrently.
    log: Mutex<Log>,
    total: usize,
    shutdown: CancellationToken,
}

struct Log {
    pending: VecDeque<ScriptedResponse>,
    received: Vec<RecordedRequest>,
}

/// The test provider: a real HTTP/1.1 server on `127.0.0.1`, on a port the OS picked.
///
/// Dropping it shuts the server down and closes every open connection (hung and stalled
/// ones included).
pub struct ReplayProvider {
    addr: SocketAddr,
    script: Arc<Script>,
    thread: Option<JoinHandle<()>>,
}

impl ReplayProvider {
    /// Starts serving `script`, one response per request in order. Once the script is used
    /// up, every further request gets `500` with a text body naming that request, so an
    /// unexpected extra call fails loudly in the client under test.
    ///
    /// # Panics
    /// If no loopback port can be bound or the server thread cannot start (the test cannot
    /// run at all then).
    pub fn start(script: impl IntoIterator<Item = ScriptedResponse>) -> ReplayProvider {
        let pending: VecDeque<ScriptedResponse> = script.into_iter().collect();
        let script = Arc::new(Script {
            total: pending.len(),
            log: Mutex::new(Log {
                pending,
                received: Vec::new(),
            }),
            shutdown: CancellationToken::new(),
        });
        // Bound here, synchronously, so the address is known (and connectable: the kernel
        // queues connections) before `start` returns.
        let listener = StdTcpListener::bind("127.0.0.1:0")
            .unwrap_or_else(|e| panic!("ReplayProvider: cannot bind 127.0.0.1:0: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("ReplayProvider: no local address: {e}"));
        listener.set_nonblocking(true).unwrap_or_else(|e| {
            panic!("ReplayProvider: cannot make the listener non-blocking: {e}")
        });

        let served = Arc::clone(&script);
        let thread = std::thread::Builder::new()
            .name(format!("replay-provider-{}", addr.port()))
            .spawn(move || serve(listener, served))
            .unwrap_or_else(|e| panic!("ReplayProvider: cannot spawn the server thread: {e}"));
        ReplayProvider {
            addr,
            script,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `base_url()` followed by `path` (which should start with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url())
    }

    /// The socket address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, in arrival order. A request is recorded in full before
    /// its response starts, so once a client has seen any part of a response (or its
    /// failure), its request is here.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.script.log).received.clone()
    }

    /// How many scripted responses have not been served yet.
    pub fn remaining(&self) -> usize {
        lock(&self.script.log).pending.len()
    }
}

impl Drop for ReplayProvider {
    fn drop(&mut self) {
        self.script.shutdown.cancel();
        if let Some(thread) = self.thread.take() {
            // A panic on the server thread has already been printed; nothing to add here.
            let _ = thread.join();
        }
    }
}

impl fmt::Debug for ReplayProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReplayProvider")
            .field("addr", &self.addr)
            .field("scripted", &self.script.total)
            .field("remaining", &self.remaining())
            .finish()
    }
}

/// A poisoned lock only means another handler panicked; the data is still what was recorded.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The server thread: runs until the provider is dropped, then drops its runtime, which
/// drops every connection task and so closes their sockets.
fn serve(listener: StdTcpListener, script: Arc<Script>) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => panic!("ReplayProvider: cannot build a Tokio runtime: {e}"),
    };
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::from_std(listener) {
            Ok(listener) => listener,
            Err(e) => panic!("ReplayProvider: cannot register the listener: {e}"),
        };
        // Without TCP_NODELAY, a small chunk written right after another can sit in the
        // kernel waiting for an ACK, which blurs the chunk timing tests rely on.
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let shutdown = script.shutdown.clone();
        let app = Router::new().fallback(respond).with_state(script);
        tokio::select! {
            result = axum::serve(listener, app) => {
                if let Err(e) = result {
                    eprintln!("ReplayProvider: server stopped: {e}");
                }
            }
            () = shutdown.cancelled() => {}
        }
    });
}

/// Records the request, then plays the next scripted response.
async fn respond(State(script): State<Arc<Script>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    // No size limit: a long history is a legitimate request body.
    let body = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(body) => body,
        Err(e) => {
            return plain(
                StatusCode::BAD_REQUEST,
                format!("ReplayProvider: could not read the request body: {e}"),
            );
        }
    };
    let index;
    let line = format!("{} {}", parts.method, parts.uri);
    let next = {
        let mut log = lock(&script.log);
        index = log.received.len();
        log.received.push(RecordedRequest {
            index,
            method: parts.method.to_string(),
            path: parts.uri.path().to_string(),
            query: parts.uri.query().map(str::to_string),
            headers: parts.headers,
            body,
        });
        log.pending.pop_front()
    };
    let Some(scripted) = next else {
        return plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!(
                "ReplayProvider: unexpected request #{index} ({line}): the script had {} response(s) and all were used\n",
                script.total
            ),
        );
    };
    play(scripted, script.shutdown.clone()).await
}

fn plain(status: StatusCode, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Why a body stream ended early; hyper answers an error from the body by closing the
/// connection without the final chunk, which is exactly a truncated response.
#[derive(Debug)]
struct CutOff(&'static str);

impl fmt::Display for CutOff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for CutOff {}

async fn play(scripted: ScriptedResponse, shutdown: CancellationToken) -> Response {
    if scripted.ending == Ending::Hang {
        shutdown.cancelled().await;
        // Only reached while the provider shuts down; the runtime drops this task anyway.
        return plain(StatusCode::SERVICE_UNAVAILABLE, String::new());
    }
    let chunks = scripted.chunks();
    let delay = scripted.delay;
    let paced: BoxStream<'static, Result<Bytes, CutOff>> =
        stream::iter(chunks.into_iter().enumerate())
            .then(move |(i, chunk)| async move {
                if i > 0 && !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                Ok(chunk)
            })
            .boxed();
    let body = match scripted.ending {
        Ending::Complete | Ending::Hang => paced,
        Ending::TruncateAfter(_) => paced
            .chain(stream::once(async {
                // Let the last written chunk leave before the connection is torn down.
                tokio::task::yield_now().await;
                Err(CutOff("scripted truncation"))
            }))
            .boxed(),
        Ending::StallAfter(_) => paced
            .chain(stream::once(async move {
                shutdown.cancelled().await;
                Err(CutOff("provider shut down while stalled"))
            }))
            .boxed(),
    };
    let mut response = Response::new(Body::from_stream(body));
    *response.status_mut() = scripted.status;
    for (name, value) in scripted.headers {
        response.headers_mut().append(name, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(response: &ScriptedResponse) -> Vec<String> {
        response
            .chunks()
            .iter()
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect()
    }

    #[test]
    fn whole_body_is_one_chunk() {
        assert_eq!(cut(&ScriptedResponse::sse("abcdef")), ["abcdef"]);
    }

    #[test]
    fn split_every_leaves_a_short_tail() {
        assert_eq!(
            cut(&ScriptedResponse::sse("abcdefg").split_every(3)),
            ["abc", "def", "g"]
        );
    }

    #[test]
    fn split_at_ignores_useless_offsets() {
        let response = ScriptedResponse::sse("abcdef").split_at(&[4, 0, 2, 2, 6, 99]);
        assert_eq!(cut(&response), ["ab", "cd", "ef"]);
    }

    #[test]
    fn truncation_cuts_inside_a_chunk() {
        let response = ScriptedResponse::sse("abcdefg")
            .split_every(3)
            .truncate_after(5);
        assert_eq!(cut(&response), ["abc", "de"]);
    }

    #[test]
    fn truncation_past_the_end_keeps_everything() {
        assert_eq!(
            cut(&ScriptedResponse::sse("abc").truncate_after(10)),
            ["abc"]
        );
    }

    #[test]
    fn truncation_at_zero_sends_nothing() {
        assert!(
            ScriptedResponse::sse("abc")
                .truncate_after(0)
                .chunks()
                .is_empty()
        );
    }
}
