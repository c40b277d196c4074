//! A minimal scripted HTTP/1.1 server on 127.0.0.1: each accepted request gets the next
//! scripted reply, written byte for byte, and is recorded.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// One scripted reply.
pub enum Reply {
    /// Write these bytes (status line, headers, body) and close the connection.
    Raw(Vec<u8>),
    /// Write these bytes, then keep the connection open until the client closes it, and
    /// report that on the channel.
    Hold(Vec<u8>, oneshot::Sender<()>),
}

/// A request as received.
#[derive(Debug, Clone)]
pub struct Received {
    pub request_line: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

pub struct TestServer {
    pub addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
}

impl TestServer {
    /// Starts a server that answers requests with `replies`, in order.
    pub async fn start(replies: Vec<Reply>) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = received.clone();
        let mut replies: VecDeque<Reply> = replies.into();
        tokio::spawn(async move {
            while let Some(reply) = replies.pop_front() {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let Some(request) = read_request(&mut socket).await else {
                    continue;
                };
                log.lock().unwrap().push(request);
                match reply {
                    Reply::Raw(bytes) => {
                        let _ = socket.write_all(&bytes).await;
                        let _ = socket.shutdown().await;
                    }
                    Reply::Hold(bytes, closed) => {
                        let _ = socket.write_all(&bytes).await;
                        let _ = socket.flush().await;
                        tokio::spawn(async move {
                            let mut buf = [0u8; 1024];
                            // Returns 0 (or an error) once the client has closed its side.
                            while let Ok(n) = socket.read(&mut buf).await {
                                if n == 0 {
                                    break;
                                }
                            }
                            let _ = closed.send(());
                        });
                    }
                }
            }
        });
        TestServer { addr, received }
    }

    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

async fn read_request(socket: &mut TcpStream) -> Option<Received> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let request_line = lines.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Received {
        request_line,
        headers,
        body,
    })
}

/// A complete HTTP/1.1 response.
pub fn http(status: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    )
    .into_bytes();
    for (n, v) in headers {
        out.extend_from_slice(format!("{n}: {v}\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

/// A 200 SSE response head announcing `length` body bytes, followed by `body` (which may be
/// shorter: the connection then closes mid-body).
pub fn sse_head_and_body(length: usize, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nset-cookie: session=abc\r\nconnection: close\r\ncontent-length: {length}\r\n\r\n"
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

/// A complete 200 SSE response.
pub fn sse(body: &[u8]) -> Vec<u8> {
    sse_head_and_body(body.len(), body)
}
