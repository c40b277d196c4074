import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalDecision, ApprovalRequest } from "../ipc";
import { ApprovalDialog, ARMING_DELAY_MS } from "./ApprovalDialog";

const COMMAND = "python3 tools/cache_warm.py --out ~/.cache/tack-test/warm.txt";

function request(overrides: Partial<ApprovalRequest>): ApprovalRequest {
  return {
    id: "appr-1",
    call_id: "c1",
    tool: "shell",
    action: { type: "exec", command: COMMAND, cwd: "/home/dev/tack" },
    reason: "`python3` runs a program the classifier cannot see",
    risk: "medium",
    sandbox: "workspace-write",
    offer_session: true,
    ...overrides,
  };
}

function setup(req: ApprovalRequest, title: string) {
  const onDecide = vi.fn<(id: string, d: ApprovalDecision) => Promise<boolean>>().mockResolvedValue(true);
  render(<ApprovalDialog pending={{ turnId: "t", request: req }} queued={0} onDecide={onDecide} workspace="/home/dev/tack" />);
  return { onDecide, dialog: screen.getByRole("alertdialog", { name: title }) };
}

const arm = () =>
  act(() => {
    vi.advanceTimersByTime(ARMING_DELAY_MS);
  });

const ESCALATION = "a write to /home/dev/.cache/tack-test/warm.txt was refused: read-only file system";

describe("approval dialog and the sandbox", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("says the command runs in the sandbox once approved", () => {
    setup(request({}), "Run this command?");
    const line = screen.getByTestId("approval-sandbox");
    expect(line).toHaveTextContent("Runs in the workspace-write sandbox once approved.");
    expect(line).not.toHaveClass("approval-sandbox-none");
  });

  it("warns when the command would run without a sandbox", () => {
    setup(request({ sandbox: null, risk: "high", offer_session: false }), "Run this command?");
    const line = screen.getByTestId("approval-sandbox");
    expect(line).toHaveTextContent(/^Runs WITHOUT a sandbox once approved/);
    expect(line).toHaveClass("approval-sandbox-none");
  });

  it("an escalation asks to run outside the sandbox: the refusal, the full command, its own buttons, no session approval", () => {
    const { dialog, onDecide } = setup(
      request({
        sandbox: null,
        escalation: ESCALATION,
        offer_session: false,
        risk: "high",
        reason: `the sandbox refused this command (${ESCALATION}); run it again outside the sandbox?`,
      }),
      "Run outside the sandbox?",
    );
    const note = within(dialog).getByRole("note", { name: "The sandbox refused" });
    expect(note).toHaveTextContent(`The sandbox refused: ${ESCALATION}`);
    expect(within(dialog).getByLabelText("Command")).toHaveTextContent(COMMAND);
    expect(screen.getByTestId("approval-sandbox")).toHaveTextContent(/^Runs WITHOUT a sandbox/);
    expect(within(dialog).queryByRole("button", { name: /Approve for session/ })).not.toBeInTheDocument();
    // Nothing to tell the model: keeping the failure gives it the sandboxed run's output.
    expect(within(dialog).queryByRole("textbox", { name: /Reason if you deny/ })).not.toBeInTheDocument();
    arm();
    fireEvent.keyDown(dialog, { key: "a" });
    expect(onDecide).not.toHaveBeenCalled();
    fireEvent.click(within(dialog).getByRole("button", { name: /Run outside the sandbox/ }));
    expect(onDecide).toHaveBeenCalledWith("appr-1", { type: "approve_once" });
  });

  it.each([
    ["Keep the failure", { type: "deny", reason: "" }],
    ["Abort turn", { type: "abort_turn" }],
  ])("an escalation's %s button decides %o", (name, decision) => {
    const { dialog, onDecide } = setup(request({ sandbox: null, escalation: ESCALATION, offer_session: false, risk: "high" }), "Run outside the sandbox?");
    arm();
    fireEvent.click(within(dialog).getByRole("button", { name: new RegExp(name) }));
    expect(onDecide).toHaveBeenCalledWith("appr-1", decision);
  });

  it("a file write says nothing about a sandbox (Tack writes the files itself)", () => {
    setup(request({ action: { type: "file_write", paths: ["src/a.rs"], diff: "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-a\n+b\n" }, sandbox: null }), "Write these files?");
    expect(screen.queryByTestId("approval-sandbox")).not.toBeInTheDocument();
  });
});
