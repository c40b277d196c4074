"""Run llama.cpp's HTTP server in this process, on loopback, for Tack's end-to-end tests.

Usage: serve_llama.py MODEL.gguf
Environment:
  TACK_LOCAL_LLM_PORT        port on 127.0.0.1 (default 8082)
  TACK_LOCAL_LLM_CTX         context size in tokens (default 8192)
  TACK_LOCAL_LLM_MAX_TOKENS  ceiling on generated tokens per request (default 256)
  TACK_LOCAL_LLM_THREADS     CPU threads (default 1)
  TACK_LOCAL_LLM_TEMPLATE    chat template (default local-llm/tools-chatml.jinja beside this file)

Started and stopped by scripts/local-llm.sh. The process serves until SIGTERM or SIGINT.
Every setting below is chosen so that a request gives the same tokens every time it is sent.
"""

import os
import pathlib
import signal
import sys
import time

import xllamacpp


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    model = pathlib.Path(sys.argv[1])
    port = int(os.environ.get("TACK_LOCAL_LLM_PORT", "8082"))
    n_ctx = int(os.environ.get("TACK_LOCAL_LLM_CTX", "8192"))
    max_tokens = int(os.environ.get("TACK_LOCAL_LLM_MAX_TOKENS", "256"))
    template = pathlib.Path(
        os.environ.get(
            "TACK_LOCAL_LLM_TEMPLATE",
            pathlib.Path(__file__).resolve().parent / "local-llm" / "tools-chatml.jinja",
        )
    )

    # Block the stop signals before llama.cpp starts its threads: they inherit this mask, so
    # the signal is delivered only to sigwait() below and shutdown is orderly.
    stop_signals = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)

    started = time.monotonic()
    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    # The name clients put in "model"; llama.cpp answers to it and reports it back.
    params.model_alias = {"smollm2-135m"}
    params.hostnames = ["127.0.0.1"]
    params.port = port
    # Room for a harness system prompt, the tools and a few-shot history; the model itself
    # was trained on 8192 tokens.
    params.n_ctx = n_ctx
    # A server-wide ceiling on each reply, applied even when a request sets no max_tokens.
    # After a tool result the 135M model writes its "Done: ..." line and then often rambles
    # until the context is full (7,500 tokens, four minutes here); tests must not wait
    # for that. A request's own smaller max_tokens still wins.
    params.n_predict = max_tokens
    # One slot: requests run one at a time, so one cannot change another's numbers.
    params.n_parallel = 1
    # HTTP threads are separate from the slot. llama.cpp's default here is 3, and every
    # streaming request holds one while it waits for the slot, so a fourth parallel test (or
    # a /health probe from `local-llm.sh ensure`) would not even be read until one finished.
    params.n_threads_http = 16
    # One thread by default, measured: on 2 busy cores (cargo builds beside us) two threads
    # collapsed to 4-10 tokens/s, because each layer waits at a barrier for the descheduled
    # thread; one thread stayed at 40-90 tokens/s. Greedy output was byte-identical with 1 and
    # 2 threads (ggml splits rows between threads, not the sums inside a row).
    threads = int(os.environ.get("TACK_LOCAL_LLM_THREADS", "1"))
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    # With the prompt cache on, the same request gave different greedy text depending on
    # which request came before it. Off, every request is computed from scratch.
    params.cache_prompt = False
    # Jinja is what makes llama.cpp read `tools` and parse `<tool_call>` replies back into
    # structured tool calls; the template inside the GGUF has no notion of tools.
    params.use_jinja = True
    params.chat_template = template.read_text(encoding="utf-8")
    # Never try to reach a model hub; the GGUF is a local file.
    params.offline = True

    server = xllamacpp.Server(params)
    print(
        f"listening on {server.listening_address} "
        f"(model {model.name}, n_ctx {n_ctx}, loaded in {time.monotonic() - started:.2f}s)",
        flush=True,
    )
    received = signal.sigwait(stop_signals)
    print(f"stopping on {signal.Signals(received).name}", flush=True)
    # Leave without running the server's destructor: it waits for llama.cpp's idle HTTP loop
    # and took 5-10 s or hung. The server keeps no state worth saving; the kernel frees the rest.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
