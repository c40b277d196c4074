import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { SandboxMode, ToolOutput } from "../../ipc";
import type { ToolRow } from "../rows";
import { ToolCallCard } from "./ToolCallCard";

const DENIAL = "a write to /home/dev/.cache/tack-test/warm.txt was refused: read-only file system";

function row(overrides: Partial<ToolRow>): ToolRow {
  return {
    kind: "tool",
    id: "call-c1",
    callId: "c1",
    turnId: "t",
    name: "shell",
    input: { kind: "function", arguments: JSON.stringify({ command: ["bash", "-lc", "python3 warm.py"] }), namespace: null },
    phase: "ended",
    liveOutput: "",
    output: null,
    decision: null,
    startedAt: null,
    ...overrides,
  };
}

function exec(sandbox: SandboxMode | null, extra: Partial<ToolOutput> = {}, denial: string | null = null): ToolOutput {
  return {
    text: "done",
    status: "completed",
    exit_code: 0,
    details: { type: "exec", command: ["bash", "-lc", "python3 warm.py"], cwd: "/home/dev/tack", truncated_bytes: 0, sandbox, sandbox_denial: denial },
    ...extra,
  };
}

describe("tool card and the sandbox", () => {
  it("says which sandbox the command ran in", () => {
    render(<ToolCallCard row={row({ output: exec("read-only", { status: "failed", exit_code: 1 }) })} />);
    const line = screen.getByTestId("tool-sandbox");
    expect(line).toHaveTextContent("ran in the read-only sandbox");
    expect(line).not.toHaveClass("tool-sandbox-none");
  });

  it("says so when it ran without a sandbox", () => {
    render(<ToolCallCard row={row({ output: exec(null, { status: "failed", exit_code: 1 }) })} />);
    const line = screen.getByTestId("tool-sandbox");
    expect(line).toHaveTextContent("ran without a sandbox");
    expect(line).toHaveClass("tool-sandbox-none");
  });

  it("shows what the sandbox refused", () => {
    render(<ToolCallCard row={row({ output: exec("workspace-write", { status: "failed", exit_code: 1 }, DENIAL) })} />);
    const card = screen.getByRole("article", { name: "Tool call shell: failed" });
    expect(within(card).getByRole("note")).toHaveTextContent(`The sandbox refused: ${DENIAL}`);
  });

  it("while Tack asks to run it outside: the refusal is on the card", () => {
    render(<ToolCallCard row={row({ phase: "awaiting_approval", escalation: DENIAL, liveOutput: "PermissionError: [Errno 30] Read-only file system\n" })} />);
    const card = screen.getByRole("article", { name: "Tool call shell: needs approval" });
    expect(within(card).getByRole("note")).toHaveTextContent(`The sandbox refused: ${DENIAL}`);
  });

  it("approved outside: the refusal, the decision, and where it ran the second time", () => {
    render(<ToolCallCard row={row({ escalation: DENIAL, decision: { type: "approve_once" }, output: exec(null) })} />);
    const card = screen.getByRole("article", { name: "Tool call shell: completed" });
    expect(within(card).getByRole("note")).toHaveTextContent(`The sandbox refused: ${DENIAL}`);
    expect(within(card).getByText("Approved to run again outside the sandbox.")).toBeInTheDocument();
    expect(within(card).getByTestId("tool-sandbox")).toHaveTextContent("ran without a sandbox");
  });

  it("the failure kept: one refusal line, and the decision says so", () => {
    render(<ToolCallCard row={row({ escalation: DENIAL, decision: { type: "deny", reason: "" }, output: exec("workspace-write", { status: "failed", exit_code: 1 }, DENIAL) })} />);
    const card = screen.getByRole("article", { name: "Tool call shell: failed" });
    expect(within(card).getAllByRole("note")).toHaveLength(1);
    expect(within(card).getByText("Kept the sandbox's failure: not run outside.")).toBeInTheDocument();
    expect(within(card).getByTestId("tool-sandbox")).toHaveTextContent("ran in the workspace-write sandbox");
  });
});
