"""Send the few-shot seed to the local model on each wire and report the tool call it makes.

Usage: check_seed.py [BASE_URL] [--seed PATH] [--wire chat|responses|messages]...
                     [--tools shell,read_file,list_dir] [--system TEXT] [--repeat N]

BASE_URL defaults to http://127.0.0.1:8082 (start the server with scripts/local-llm.sh ensure).
Exits 0 when every request produced exactly the call in the seed's "expect", else 1.

This is the probe behind the findings in README.md beside this file. It turns the neutral seed
(tests/fixtures/local-llm/seed-history.json) into each wire's request body by hand, so that it
checks the model and the server, not Tack's own shaping.
"""

import argparse
import json
import pathlib
import sys
import time
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_SEED = REPO / "tests" / "fixtures" / "local-llm" / "seed-history.json"
MODEL = "smollm2-135m"


def chat_body(seed, system, tools):
    """OpenAI Chat Completions: tool calls ride on assistant messages, results are `tool` turns."""
    messages = [{"role": "system", "content": system}]
    for m in seed["messages"] + [{"role": "user", "content": seed["question"]}]:
        if m["role"] == "assistant" and m.get("tool_calls"):
            messages.append({
                "role": "assistant",
                "content": m.get("content"),
                "tool_calls": [
                    {"id": c["id"], "type": "function",
                     "function": {"name": c["name"], "arguments": c["arguments"]}}
                    for c in m["tool_calls"]
                ],
            })
        elif m["role"] == "tool":
            messages.append({"role": "tool", "tool_call_id": m["tool_call_id"], "content": m["content"]})
        else:
            messages.append({"role": m["role"], "content": m["content"]})
    return "/v1/chat/completions", {
        "model": MODEL, "stream": True, "temperature": 0, "max_tokens": 60,
        "tools": [{"type": "function", "function": t} for t in tools],
        "messages": messages,
    }


def responses_body(seed, system, tools):
    """OpenAI Responses: calls and outputs are items of their own, system text is `instructions`."""
    items = []
    for m in seed["messages"] + [{"role": "user", "content": seed["question"]}]:
        if m["role"] == "assistant" and m.get("tool_calls"):
            for c in m["tool_calls"]:
                items.append({"type": "function_call", "call_id": c["id"], "name": c["name"],
                              "arguments": c["arguments"]})
        elif m["role"] == "tool":
            items.append({"type": "function_call_output", "call_id": m["tool_call_id"],
                          "output": m["content"]})
        else:
            part = "output_text" if m["role"] == "assistant" else "input_text"
            # llama.cpp rejects a message item without an explicit "type" (400).
            items.append({"type": "message", "role": m["role"],
                          "content": [{"type": part, "text": m["content"]}]})
    return "/v1/responses", {
        "model": MODEL, "stream": True, "temperature": 0, "max_output_tokens": 60,
        "instructions": system,
        "tools": [{"type": "function", **t} for t in tools],
        "input": items,
    }


def messages_body(seed, system, tools):
    """Anthropic Messages: tool_use blocks in assistant turns, tool_result blocks in user turns."""
    turns = []
    for m in seed["messages"] + [{"role": "user", "content": seed["question"]}]:
        if m["role"] == "assistant" and m.get("tool_calls"):
            blocks = [{"type": "text", "text": m["content"]}] if m.get("content") else []
            blocks += [{"type": "tool_use", "id": c["id"], "name": c["name"],
                        "input": json.loads(c["arguments"])} for c in m["tool_calls"]]
            turns.append({"role": "assistant", "content": blocks})
        elif m["role"] == "tool":
            turns.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}]})
        else:
            turns.append({"role": m["role"], "content": m["content"]})
    return "/v1/messages", {
        "model": MODEL, "stream": True, "temperature": 0, "max_tokens": 60,
        "system": system,
        "tools": [{"name": t["name"], "description": t["description"], "input_schema": t["parameters"]}
                  for t in tools],
        "messages": turns,
    }


def stream_events(base, path, body):
    """POSTs the body and yields each SSE `data:` payload as JSON (skipping `[DONE]`)."""
    request = urllib.request.Request(
        base + path, json.dumps(body).encode(),
        {"content-type": "application/json", "anthropic-version": "2023-06-01"})
    with urllib.request.urlopen(request, timeout=600) as response:
        for raw in response:
            line = raw.decode("utf-8").rstrip("\r\n")
            if line.startswith("data: ") and line != "data: [DONE]":
                yield json.loads(line[len("data: "):])


def collect(wire, events):
    """Reduces a stream to (tool names, joined argument text, plain text, stop reason)."""
    names, args, text, stop = [], "", "", None
    for e in events:
        if wire == "chat":
            for choice in e.get("choices", []):
                delta = choice.get("delta", {})
                text += delta.get("content") or ""
                for call in delta.get("tool_calls") or []:
                    fn = call.get("function", {})
                    if fn.get("name"):
                        names.append(fn["name"])
                    args += fn.get("arguments") or ""
                stop = choice.get("finish_reason") or stop
        elif wire == "responses":
            kind = e.get("type")
            if kind == "response.output_item.added" and e["item"].get("type") == "function_call":
                names.append(e["item"]["name"])
            elif kind == "response.function_call_arguments.delta":
                args += e["delta"]
            elif kind == "response.output_text.delta":
                text += e["delta"]
            elif kind == "response.completed":
                stop = e["response"].get("status")
        else:
            kind = e.get("type")
            if kind == "content_block_start" and e["content_block"]["type"] == "tool_use":
                names.append(e["content_block"]["name"])
            elif kind == "content_block_delta":
                delta = e["delta"]
                args += delta.get("partial_json", "")
                text += delta.get("text", "")
            elif kind == "message_delta":
                stop = e["delta"].get("stop_reason")
    return names, args, text, stop


BODIES = {"chat": chat_body, "responses": responses_body, "messages": messages_body}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", nargs="?", default="http://127.0.0.1:8082")
    parser.add_argument("--seed", type=pathlib.Path, default=DEFAULT_SEED)
    parser.add_argument("--wire", action="append", choices=sorted(BODIES))
    parser.add_argument("--tools", help="comma-separated subset/order of the seed's tools")
    parser.add_argument("--system", help="replace the seed's system prompt")
    parser.add_argument("--repeat", type=int, default=1)
    opts = parser.parse_args()

    seed = json.loads(opts.seed.read_text(encoding="utf-8"))
    tools = seed["tools"]
    if opts.tools:
        by_name = {t["name"]: t for t in tools}
        tools = [by_name[n] for n in opts.tools.split(",")]
    system = seed["system"] if opts.system is None else opts.system
    expect = seed["expect"]

    ok = True
    for wire in opts.wire or ["chat", "responses", "messages"]:
        for _ in range(opts.repeat):
            path, body = BODIES[wire](seed, system, tools)
            started = time.monotonic()
            names, args, text, stop = collect(wire, stream_events(opts.base.rstrip("/"), path, body))
            try:
                parsed = json.loads(args) if args else None
            except json.JSONDecodeError:
                parsed = None
            good = names == [expect["name"]] and parsed == expect["arguments"]
            ok &= good
            print(f"{wire:<9} {'ok  ' if good else 'FAIL'} calls={names} args={args!r} "
                  f"stop={stop} text={text[:60]!r} {time.monotonic() - started:.1f}s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
