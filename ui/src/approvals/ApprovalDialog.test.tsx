import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalDecision } from "../ipc";
import type { PendingApproval } from "../session/timeline";
import { ApprovalDialog, ARMING_DELAY_MS } from "./ApprovalDialog";

const LONG = `cargo test --workspace -- ${"--skip slow_case ".repeat(40)}&& echo done`;
const pending: PendingApproval = {
  turnId: "t",
  request: {
    id: "appr-1",
    call_id: "c1",
    tool: "shell",
    action: { type: "exec", command: LONG, cwd: "/home/dev/tack" },
    reason: "`cargo` is not a known read-only command",
    risk: "medium",
  },
};

function setup(queued = 0, request: Partial<PendingApproval["request"]> = {}, workspace: string | null = "/home/dev/tack") {
  const onDecide = vi.fn<(id: string, d: ApprovalDecision) => Promise<boolean>>().mockResolvedValue(true);
  render(
    <ApprovalDialog pending={{ ...pending, request: { ...pending.request, ...request } }} queued={queued} onDecide={onDecide} workspace={workspace ?? undefined} />,
  );
  const dialog = screen.getByRole("alertdialog", { name: "Run this command?" });
  return { onDecide, dialog };
}

const arm = () =>
  act(() => {
    vi.advanceTimersByTime(ARMING_DELAY_MS);
  });

describe("approval dialog", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shows the full command, cwd, reason and risk; focus is on the dialog, not a button", () => {
    const { dialog } = setup(2);
    expect(screen.getByLabelText("Command").textContent).toBe(LONG);
    expect(screen.getByText("/home/dev/tack")).toBeInTheDocument();
    expect(screen.getByText("cargo")).toBeInTheDocument();
    expect(screen.getByText("medium risk")).toBeInTheDocument();
    expect(screen.getByText("+2 more waiting")).toBeInTheDocument();
    expect(document.activeElement).toBe(dialog);
  });

  it("ignores keys and clicks during the arming delay", () => {
    const { dialog, onDecide } = setup();
    for (const key of ["Enter", "y", "a", "n", "Escape"]) fireEvent.keyDown(dialog, { key });
    const approve = screen.getByRole("button", { name: /Approve once/ });
    expect(approve).toBeDisabled();
    fireEvent.click(approve);
    expect(onDecide).not.toHaveBeenCalled();
  });

  it("Enter never approves, even armed", () => {
    const { dialog, onDecide } = setup();
    arm();
    fireEvent.keyDown(dialog, { key: "Enter" });
    expect(onDecide).not.toHaveBeenCalled();
  });

  it.each([
    ["y", { type: "approve_once" }],
    ["a", { type: "approve_for_session" }],
    ["Escape", { type: "abort_turn" }],
  ])("%s decides %o once armed", (key, decision) => {
    const { dialog, onDecide } = setup();
    arm();
    fireEvent.keyDown(dialog, { key });
    expect(onDecide).toHaveBeenCalledWith("appr-1", decision);
  });

  it("ignores auto-repeat", () => {
    const { dialog, onDecide } = setup();
    arm();
    fireEvent.keyDown(dialog, { key: "y", repeat: true });
    expect(onDecide).not.toHaveBeenCalled();
  });

  it("denies with the typed reason; letters typed in the reason are not shortcuts", () => {
    const { dialog, onDecide } = setup();
    arm();
    const reason = screen.getByRole("textbox", { name: /Reason if you deny/ });
    fireEvent.keyDown(reason, { key: "y" });
    fireEvent.change(reason, { target: { value: "  use the existing helper  " } });
    expect(onDecide).not.toHaveBeenCalled();
    fireEvent.keyDown(reason, { key: "Escape" });
    expect(document.activeElement).toBe(dialog);
    fireEvent.keyDown(dialog, { key: "n" });
    expect(onDecide).toHaveBeenCalledWith("appr-1", { type: "deny", reason: "use the existing helper" });
  });

  it("buttons show their shortcuts", () => {
    setup();
    expect(screen.getByRole("button", { name: /Approve once/ })).toHaveAttribute("aria-keyshortcuts", "Y");
    expect(screen.getByRole("button", { name: /Approve for session/ })).toHaveAttribute("aria-keyshortcuts", "A");
    expect(screen.getByRole("button", { name: /Deny/ })).toHaveAttribute("aria-keyshortcuts", "N");
    expect(screen.getByRole("button", { name: /Abort turn/ })).toHaveAttribute("aria-keyshortcuts", "Esc");
  });

  describe("saved rules", () => {
    const withRule = { suggested_rule: ["cargo", "test"] };

    it("offers no rule when the engine suggests none", () => {
      setup();
      expect(screen.queryByRole("group", { name: "Save a rule" })).toBeNull();
      expect(screen.queryByRole("button", { name: /Always allow/ })).toBeNull();
      expect(screen.queryByRole("button", { name: /Always deny/ })).toBeNull();
    });

    it("shows the exact rule and its scope on the buttons, and answers with it", () => {
      const { onDecide } = setup(0, withRule);
      const allow = screen.getByRole("button", { name: "Always allow cargo test in this workspace" });
      expect(screen.getByRole("group", { name: "Save a rule" })).toHaveTextContent("/home/dev/tack");
      expect(allow).toBeDisabled();
      arm();
      fireEvent.click(allow);
      expect(onDecide).toHaveBeenCalledWith("appr-1", {
        type: "always_allow",
        rule: { decision: "allow", command: ["cargo", "test"], workspace: "/home/dev/tack" },
      });
    });

    it("all workspaces saves a rule without a workspace; deny saves a deny rule", () => {
      const { onDecide } = setup(0, withRule);
      arm();
      fireEvent.click(screen.getByRole("radio", { name: /all workspaces/ }));
      expect(screen.getByRole("button", { name: "Always allow cargo test in every workspace" })).toBeEnabled();
      fireEvent.click(screen.getByRole("button", { name: "Always deny cargo test in every workspace" }));
      expect(onDecide).toHaveBeenCalledWith("appr-1", {
        type: "always_deny",
        rule: { decision: "deny", command: ["cargo", "test"], workspace: null },
      });
    });

    it("quotes words with spaces so the rule reads as it will be saved", () => {
      setup(0, { suggested_rule: ["grep", "a b"] });
      expect(screen.getByRole("button", { name: "Always allow grep 'a b' in this workspace" })).toBeInTheDocument();
    });

    it("shows hidden characters of a suggested rule on the buttons, by name", () => {
      setup(0, { suggested_rule: ["make", "a\u202eb"] });
      const allow = screen.getByRole("button", { name: /^Always allow make/ });
      expect(allow.textContent).not.toContain("\u202e");
      expect(allow.textContent).toContain("U+202E");
    });

    it("without a known workspace only every workspace can be chosen", () => {
      setup(0, withRule, null);
      expect(screen.getByRole("radio", { name: /this workspace/ })).toBeDisabled();
      expect(screen.getByRole("button", { name: "Always allow cargo test in every workspace" })).toBeInTheDocument();
    });

    it("hides approve-for-session, and its shortcut does nothing, when it is not offered", () => {
      const { dialog, onDecide } = setup(0, { offer_session: false, risk: "high" });
      expect(screen.queryByRole("button", { name: /Approve for session/ })).toBeNull();
      arm();
      fireEvent.keyDown(dialog, { key: "a" });
      expect(onDecide).not.toHaveBeenCalled();
      fireEvent.keyDown(dialog, { key: "y" });
      expect(onDecide).toHaveBeenCalledWith("appr-1", { type: "approve_once" });
    });
  });
});
