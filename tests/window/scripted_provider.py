#!/usr/bin/env python3
"""A scripted Chat Completions provider for the real-window test: one shell call, then an answer.

The local 135M model can't be steered to an exact command, and the escalation step needs one the
sandbox refuses. This server plays the model's part over real HTTP on loopback, the way a
provider streams (`text/event-stream`, `chat.completion.chunk` frames, `data: [DONE]`):

- a request whose last message is not a tool result (and that offers tools) gets one `shell`
  call with `COMMAND` (`--command`);
- a request whose last message is a tool result, or that offers no tools (a title request),
  gets a short text answer (`ANSWER` after a tool result).

Stateless: each request is answered from its own body, so retries and a re-run after an
escalation need nothing special. Every request body is kept in `requests` (for assertions).

Standalone: `python3 tests/window/scripted_provider.py --port 8099 --command 'sh warm.sh'`
(then a provider with `base_url = "http://127.0.0.1:8099/v1"`, `wire = "chat"`).
"""

from __future__ import annotations

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "scripted"
ANSWER = "Done: the command ran."
CALL_ID = "call_scripted_1"


def chunk(delta: dict, finish: str | None = None) -> dict:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def usage_chunk() -> dict:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def reply_frames(body: dict, command: str) -> list[dict]:
    """The frames answering one request body."""
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    if last.get("role") == "tool" or not body.get("tools"):
        text = ANSWER if last.get("role") == "tool" else "Scripted session"
        return [
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": text}),
            chunk({}, "stop"),
            usage_chunk(),
        ]
    arguments = json.dumps({"command": command})
    return [
        chunk({"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": CALL_ID, "type": "function", "function": {"name": "shell", "arguments": ""}},
        ]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}),
        chunk({}, "tool_calls"),
        usage_chunk(),
    ]


class ScriptedProvider:
    """The server on 127.0.0.1:`port` (0: a free port), served from a daemon thread."""

    def __init__(self, command: str, port: int = 0):
        self.command = command
        self.requests: list[dict] = []
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self.send_json({"object": "list", "data": [{"id": MODEL, "object": "model"}]})
                else:
                    self.send_error(404)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self.send_error(404)
                    return
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    self.send_error(400)
                    return
                provider.requests.append(body)
                payload = "".join(f"data: {json.dumps(f)}\n\n" for f in reply_frames(body, provider.command))
                payload += "data: [DONE]\n\n"
                data = payload.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def send_json(self, value: object) -> None:
                data = json.dumps(value).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="scripted-provider", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def start(self) -> "ScriptedProvider":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--command", required=True, help="the shell command the scripted call runs")
    args = parser.parse_args()
    provider = ScriptedProvider(args.command, args.port)
    print(provider.base_url, flush=True)
    provider.server.serve_forever()


if __name__ == "__main__":
    main()
