import { act, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EMPTY_SPLIT, parseBlocks, splitIncrementally } from "./blocks";
import { Markdown, STREAM_RENDER_INTERVAL_MS } from "./Markdown";

describe("block splitting", () => {
  it("splits top-level blocks and keeps every character", () => {
    const text = "# Title\n\nA paragraph.\n\n- one\n- two\n\n```rust\nfn x() {}\n```\n";
    const blocks = parseBlocks(text);
    expect(blocks).toHaveLength(4);
    expect(blocks.join("")).toBe(text);
  });

  it("re-parses only from the last block as text grows", () => {
    const first = splitIncrementally(EMPTY_SPLIT, "Intro paragraph.\n\nSecond");
    expect(first.blocks).toEqual(["Intro paragraph.\n\n", "Second"]);
    const next = splitIncrementally(first, "Intro paragraph.\n\nSecond paragraph.\n\n```\ncode");
    // The settled block is the very same string; the tail grew into two blocks.
    expect(next.blocks[0]).toBe(first.blocks[0]);
    expect(next.blocks).toHaveLength(3);
    expect(next.blocks.join("")).toBe("Intro paragraph.\n\nSecond paragraph.\n\n```\ncode");
  });

  it("starts over when the text is not an extension", () => {
    const first = splitIncrementally(EMPTY_SPLIT, "abc\n\ndef");
    const other = splitIncrementally(first, "xyz");
    expect(other.blocks).toEqual(["xyz"]);
  });
});

describe("streaming cadence", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("renders the first delta at once, then at most once per interval, and settled blocks stay mounted", () => {
    const { rerender, container } = render(<Markdown text="First paragraph." streaming />);
    expect(screen.getByText("First paragraph.")).toBeInTheDocument();

    rerender(<Markdown text={"First paragraph.\n\nSecond"} streaming />);
    const firstNode = screen.getByText("First paragraph.");
    rerender(<Markdown text={"First paragraph.\n\nSecond par"} streaming />);
    rerender(<Markdown text={"First paragraph.\n\nSecond paragraph"} streaming />);
    // Within the interval nothing new shows yet…
    expect(screen.queryByText("Second paragraph")).not.toBeInTheDocument();

    act(() => {
      vi.advanceTimersByTime(STREAM_RENDER_INTERVAL_MS);
    });
    // …then the latest text shows, in one render.
    expect(screen.getByText("Second paragraph")).toBeInTheDocument();
    expect(screen.queryByText("Second par")).not.toBeInTheDocument();
    // The settled first block is the same DOM node: it was not re-rendered from scratch.
    expect(screen.getByText("First paragraph.")).toBe(firstNode);
    expect(container.querySelectorAll("p")).toHaveLength(2);
  });

  it("shows the final text immediately when streaming ends", () => {
    const { rerender } = render(<Markdown text="Partial" streaming />);
    rerender(<Markdown text="Partial answer" streaming />);
    rerender(<Markdown text="Partial answer, complete." streaming={false} />);
    expect(screen.getByText("Partial answer, complete.")).toBeInTheDocument();
  });

  it("renders links that open outside and images as links (no remote loads)", () => {
    render(<Markdown text={"[docs](https://example.com) ![diagram](https://example.com/x.png)"} />);
    expect(screen.getByRole("link", { name: "docs" })).toHaveAttribute("target", "_blank");
    expect(screen.queryByRole("img")).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: "diagram" })).toBeInTheDocument();
  });
});
