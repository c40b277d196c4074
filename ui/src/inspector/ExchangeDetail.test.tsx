import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { Exchange } from "../ipc";
import { ExchangeDetail } from "./ExchangeDetail";

const exchange: Exchange = {
  id: "ex-1",
  turn_id: "t1",
  purpose: "title",
  harness: "claude-code",
  wire: "messages",
  route: "messages/claude-code",
  prompt_source: "builtin:claude-code/system.md, file:/home/dev/.config/tack/prompts/claude-code/tools.json",
  provider: "anthropic",
  model: "claude-haiku-4-5",
  method: "POST",
  url: "https://api.anthropic.com/v1/messages",
  status: 200,
  started_at: "2026-11-29T10:00:00Z",
  attempt: 2,
  outcome: "ok",
  request_headers: [],
  request_body: '{"model":"claude-haiku-4-5"}',
  response_headers: [],
  response_chunks: [],
  events: [],
};

afterEach(() => clearMocks());

describe("exchange detail", () => {
  it("labels the request with its purpose, harness, route and prompt sources", async () => {
    mockIPC((cmd) => (cmd === "get_exchange" ? exchange : "curl …"));
    render(<ExchangeDetail sessionId="s" exchangeId="ex-1" />);
    const labels = await screen.findByLabelText("How this request was made");
    expect(labels).toHaveTextContent("purposetitle · attempt 2");
    expect(labels).toHaveTextContent("harnessclaude-code");
    expect(labels).toHaveTextContent("routemessages/claude-code");
    const sources = within(labels).getAllByTitle(/^(builtin|file):/);
    expect(sources.map((s) => s.textContent)).toEqual([
      "built-inclaude-code/system.md",
      "file/home/dev/.config/tack/prompts/claude-code/tools.json",
    ]);
  });
});
