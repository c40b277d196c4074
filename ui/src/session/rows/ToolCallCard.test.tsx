import { fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { useUiStore } from "../../app/uiStore";
import type { ToolOutput } from "../../ipc";
import type { ToolRow } from "../rows";
import { ToolCallCard } from "./ToolCallCard";
import { displayArgv, shellCommand } from "./toolCall";

function row(overrides: Partial<ToolRow>): ToolRow {
  return {
    kind: "tool",
    id: "call-c1",
    callId: "c1",
    turnId: "t",
    name: "shell",
    input: { kind: "function", arguments: JSON.stringify({ command: ["bash", "-lc", "cargo test 2>&1 | tail"] }), namespace: null },
    phase: "waiting",
    liveOutput: "",
    output: null,
    decision: null,
    startedAt: null,
    ...overrides,
  };
}

const output = (o: Partial<ToolOutput>): ToolOutput => ({ text: "", status: "completed", ...o });

describe("tool call card", () => {
  it("shows a running shell call: command prominent, live output with ANSI stripped", () => {
    render(<ToolCallCard row={row({ phase: "running", liveOutput: "\u001b[32mok\u001b[0m test one\n" })} />);
    const card = screen.getByRole("article", { name: "Tool call shell: running" });
    expect(within(card).getByLabelText("Command")).toHaveTextContent("cargo test 2>&1 | tail");
    expect(within(card).getByLabelText("Output").textContent).toBe("ok test one\n");
  });

  it.each([
    [{ phase: "streaming" as const }, "preparing"],
    [{ phase: "awaiting_approval" as const }, "needs approval"],
    [{ phase: "waiting" as const, question: "question-q1" }, "needs answer"],
    [{ phase: "ended" as const, output: output({ status: "completed", exit_code: 0, duration_ms: 1500 }) }, "completed"],
    [{ phase: "ended" as const, output: output({ status: "failed", exit_code: 2 }) }, "failed"],
    [{ phase: "ended" as const, output: output({ status: "denied", text: "denied" }) }, "denied"],
    [{ phase: "ended" as const, output: output({ status: "aborted" }) }, "aborted"],
    [{ phase: "ended" as const, output: output({ status: "timed_out" }) }, "timed out"],
    [{ phase: "ended" as const }, "aborted"],
  ])("badge for %o is %s", (overrides, badge) => {
    render(<ToolCallCard row={row(overrides)} />);
    expect(screen.getByRole("article", { name: `Tool call shell: ${badge}` })).toBeInTheDocument();
  });

  it("says the call is being written while its arguments stream", () => {
    render(<ToolCallCard row={row({ input: { kind: "pending" }, phase: "streaming" })} />);
    expect(screen.getByText(/The model is writing the call/)).toBeInTheDocument();
  });

  it("shows exit code, duration and the deny reason", () => {
    render(
      <ToolCallCard
        row={row({
          phase: "ended",
          output: output({ status: "failed", exit_code: 101, duration_ms: 2143, text: "boom" }),
          decision: { type: "approve_once" },
        })}
      />,
    );
    expect(screen.getByText("exit 101")).toBeInTheDocument();
    expect(screen.getByText("2.1 s")).toBeInTheDocument();
    expect(screen.getByText("Approved once.")).toBeInTheDocument();
  });

  it("pretty-prints function arguments for non-shell tools", () => {
    render(<ToolCallCard row={row({ name: "read_file", input: { kind: "function", arguments: '{"path":"src/a.rs","limit":20}', namespace: null }, phase: "running" })} />);
    expect(screen.getByLabelText("Arguments").textContent).toContain('"path": "src/a.rs"');
  });

  it("shows a todo list written by the call", () => {
    render(
      <ToolCallCard
        row={row({
          name: "TodoWrite",
          input: { kind: "function", arguments: "{}", namespace: null },
          phase: "ended",
          output: output({ status: "failed", details: { type: "todos", todos: [{ content: "Fix it", status: "in_progress" }] } }),
        })}
      />,
    );
    expect(screen.getByRole("listitem")).toHaveTextContent("Fix it (in progress)");
  });

  it("renders file changes as diffs", () => {
    const diff = "--- a/x.ts\n+++ b/x.ts\n@@ -1,1 +1,1 @@\n-old\n+new\n";
    render(
      <ToolCallCard
        row={row({
          name: "edit_file",
          input: { kind: "function", arguments: "{}", namespace: null },
          phase: "ended",
          output: output({ details: { type: "file_changes", changes: [{ path: "x.ts", kind: "update", diff }] } }),
        })}
      />,
    );
    expect(screen.getByRole("region", { name: "Changes to x.ts" })).toBeInTheDocument();
  });
});

describe("calls read out of the model's text", () => {
  it("a parsed shell command says so and links to its text", () => {
    render(<ToolCallCard row={row({ input: { kind: "shell", command: ["bash", "-lc", "ls -la"], workdir: null }, phase: "running", source: "item-raw1" })} />);
    expect(screen.getByLabelText("Command")).toHaveTextContent("ls -la");
    expect(screen.getByText("Tack read this command out of the model's text.")).toBeInTheDocument();
    fireEvent.click(screen.getByRole("button", { name: /from the model's text/ }));
    expect(useUiStore.getState().reveal).toMatchObject({ rowId: "item-raw1" });
  });

  it("a terminal call shows its keystrokes and waits", () => {
    render(
      <ToolCallCard
        row={row({
          name: "terminal",
          input: { kind: "function", arguments: JSON.stringify({ commands: [{ keystrokes: "ls -la\n", duration: 0.1 }, { keystrokes: "C-c", duration: 2 }], width: 160, height: 40 }), namespace: null },
          phase: "running",
          source: "item-raw2",
        })}
      />,
    );
    const keys = screen.getByRole("list", { name: "Keystrokes" });
    expect(within(keys).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["ls -la⏎wait 100 ms", "C-cwait 2.0 s"]);
    expect(screen.queryByLabelText("Arguments")).not.toBeInTheDocument();
  });

  it("a native call has no link", () => {
    render(<ToolCallCard row={row({ phase: "running" })} />);
    expect(screen.queryByRole("button", { name: /from the model's text/ })).not.toBeInTheDocument();
  });
});

describe("shell command display", () => {
  it("unwraps bash -lc and quotes other argv words", () => {
    expect(displayArgv(["bash", "-lc", "ls -la"])).toBe("ls -la");
    expect(displayArgv(["git", "commit", "-m", "fix it"])).toBe("git commit -m 'fix it'");
  });

  it("finds the command of shell-like tools only", () => {
    expect(shellCommand({ name: "Bash", input: { kind: "function", arguments: '{"command":"npm test"}', namespace: null }, output: null })).toBe("npm test");
    expect(shellCommand({ name: "search", input: { kind: "function", arguments: '{"command":"x"}', namespace: null }, output: null })).toBeNull();
  });
});
