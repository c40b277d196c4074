import { fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { JsonTree } from "./JsonTree";
import { searchJson, splitMatches } from "./jsonSearch";

const BODY = JSON.stringify({
  model: "deepseek-chat",
  stream: true,
  messages: [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Run the SSE decoder tests." },
  ],
  tools: [{ type: "function", function: { name: "shell", description: "Run a command" } }],
});

describe("json search", () => {
  it("keeps matching branches only", () => {
    const { value, matches } = searchJson(JSON.parse(BODY), "decoder");
    expect(value).toEqual({ messages: [{ content: "Run the SSE decoder tests." }] });
    expect(matches).toBe(1);
  });

  it("a matching key keeps its subtree", () => {
    const { value } = searchJson(JSON.parse(BODY), "tools");
    expect(value).toEqual({ tools: JSON.parse(BODY).tools });
  });

  it("splits text around matches case-insensitively", () => {
    expect(splitMatches("Run the SSE", "sse")).toEqual([
      { text: "Run the ", match: false },
      { text: "SSE", match: true },
    ]);
  });
});

describe("json tree", () => {
  it("filters the tree and marks the matches", async () => {
    const { container } = render(<JsonTree text={BODY} label="request body" />);
    expect(container.textContent).toContain("deepseek-chat");
    fireEvent.change(screen.getByRole("searchbox", { name: "Search request body" }), { target: { value: "decoder" } });
    await screen.findByText("1 match");
    expect(container.textContent).not.toContain("deepseek-chat");
    const marks = container.querySelectorAll("mark");
    expect(marks).toHaveLength(1);
    expect(marks[0]?.textContent).toBe("decoder");
    expect(within(container).getByText("decoder").tagName).toBe("MARK");
  });

  it("says so when nothing matches, and shows non-JSON as text", async () => {
    const { unmount } = render(<JsonTree text={BODY} label="request body" />);
    fireEvent.change(screen.getByRole("searchbox"), { target: { value: "zzz" } });
    await screen.findByText("no matches");
    unmount();
    render(<JsonTree text="plain text body" label="request body" />);
    expect(screen.getByText("plain text body")).toBeInTheDocument();
  });
});
