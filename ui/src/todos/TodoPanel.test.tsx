import { fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { TodoPanel } from "./TodoPanel";
import { todoStatus } from "./todos";

const entries = [
  { content: "Read the SSE decoder", status: "completed" },
  { content: "Handle a frame split across reads", status: "in_progress" },
  { content: "Add a regression test", status: "pending" },
];

describe("todo panel", () => {
  it("lists the entries with their status, and the progress", () => {
    render(<TodoPanel entries={entries} />);
    const panel = screen.getByRole("region", { name: "Todo list" });
    expect(within(panel).getByLabelText("1 of 3 done")).toHaveTextContent("1/3");
    const items = within(panel).getAllByRole("listitem");
    expect(items.map((li) => li.textContent)).toEqual([
      "Read the SSE decoder (done)",
      "Handle a frame split across reads (in progress)",
      "Add a regression test (to do)",
    ]);
    expect(items.map((li) => li.className)).toEqual(["todo todo-completed", "todo todo-in_progress", "todo todo-pending"]);
    for (const li of items) expect(li.querySelector("svg.todo-icon")).not.toBeNull();
  });

  it("folds to one line that still shows what is in progress", () => {
    render(<TodoPanel entries={entries} />);
    const toggle = screen.getByRole("button", { name: /Todos/ });
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByRole("listitem")).not.toBeInTheDocument();
    expect(toggle).toHaveTextContent("Handle a frame split across reads");
  });

  it("reads the spellings harnesses pass through", () => {
    expect(todoStatus({ status: "done" })).toBe("completed");
    expect(todoStatus({ status: "In Progress" })).toBe("in_progress");
    expect(todoStatus({ status: "in-progress" })).toBe("in_progress");
    expect(todoStatus({ status: "whatever" })).toBe("pending");
  });
});
