import { render, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { ApprovalDecision } from "../ipc";
import type { PendingApproval } from "../session/timeline";
import type { ToolRow } from "../session/rows";
import { ToolCallCard } from "../session/rows/ToolCallCard";
import { ApprovalDialog } from "./ApprovalDialog";

/** Erases its own line and draws a harmless one; hides an override and a zero-width space. */
const SPOOF = "rm -rf ~/projects #\u001b[2K\u001b[1A\r$ ls\n\u202etxt.exe\u200b\u00a0ok";
const SHOWN = "rm -rf ~/projects #⟨\\e⟩[2K⟨\\e⟩[1A⟨\\r⟩$ ls⟨\\n⟩\n⟨U+202E⟩txt.exe⟨U+200B⟩⟨U+00A0⟩ok";
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\u00a0\ufeff]/u;

function approval(request: Partial<PendingApproval["request"]>): PendingApproval {
  return {
    turnId: "t",
    request: {
      id: "appr-1",
      call_id: "c1",
      tool: "shell",
      action: { type: "exec", command: SPOOF, cwd: "/home/dev/\u202eevil" },
      reason: "`rm -rf\u001b[1A` is dangerous",
      risk: "high",
      ...request,
    },
  };
}

describe("hidden characters in approval displays", () => {
  it("the dialog shows the whole command with every hidden character as a styled token", () => {
    const onDecide = vi.fn<(id: string, d: ApprovalDecision) => Promise<boolean>>().mockResolvedValue(true);
    render(<ApprovalDialog pending={approval({})} queued={0} onDecide={onDecide} workspace="/home/dev" />);
    const dialog = screen.getByRole("alertdialog");
    const command = screen.getByLabelText("Command");
    expect(command.textContent).toBe(SHOWN);
    const tokens = [...command.querySelectorAll(".visible-token")].map((t) => t.textContent);
    expect(tokens).toEqual(["⟨\\e⟩", "⟨\\e⟩", "⟨\\r⟩", "⟨\\n⟩", "⟨U+202E⟩", "⟨U+200B⟩", "⟨U+00A0⟩"]);
    // Nothing the model wrote reaches the page as a control, bidi or invisible character:
    // not in the command, the folder or the reason.
    expect(HIDDEN.test(dialog.textContent ?? "")).toBe(false);
    expect(dialog.textContent).toContain("in /home/dev/⟨U+202E⟩evil");
    expect(dialog.textContent).toContain("rm -rf⟨\\e⟩[1A");
    // Laid out in stored order, left to right.
    expect(command.querySelector("bdi")?.getAttribute("dir")).toBe("ltr");
  });

  it("the dialog shows file paths the same way", () => {
    const onDecide = vi.fn<(id: string, d: ApprovalDecision) => Promise<boolean>>().mockResolvedValue(true);
    const pending = approval({
      tool: "write_file",
      action: { type: "file_write", paths: ["/w/notes\u202efdp.exe"], diff: "" },
    });
    render(<ApprovalDialog pending={pending} queued={0} onDecide={onDecide} workspace="/w" />);
    const files = screen.getByRole("list", { name: "Files" });
    expect(files.textContent).toBe("/w/notes⟨U+202E⟩fdp.exe");
  });

  it("the dialog's diff shows a bidi override in the changed code instead of applying it", () => {
    const onDecide = vi.fn<(id: string, d: ApprovalDecision) => Promise<boolean>>().mockResolvedValue(true);
    const diff = "--- a/auth.js\n+++ b/auth.js\n@@ -1 +1 @@\n-ok();\n+if (role != \"user\u202e \u2066// admin\u2069\u2066\") { grant(); }\n";
    const pending = approval({ tool: "edit", action: { type: "file_write", paths: ["/w/auth.js"], diff } });
    render(<ApprovalDialog pending={pending} queued={0} onDecide={onDecide} workspace="/w" />);
    const dialog = screen.getByRole("alertdialog");
    expect(HIDDEN.test(dialog.textContent ?? "")).toBe(false);
    expect(dialog.textContent).toContain("⟨U+202E⟩");
    expect(dialog.textContent).toContain("⟨U+2066⟩// admin⟨U+2069⟩");
  });

  it("the tool card shows the command the same way, folded and open", () => {
    const row: ToolRow = {
      kind: "tool",
      id: "call-c1",
      callId: "c1",
      turnId: "t",
      name: "shell",
      input: { kind: "function", arguments: JSON.stringify({ command: SPOOF }), namespace: null },
      phase: "awaiting_approval",
      liveOutput: "",
      output: null,
      decision: null,
      startedAt: null,
    };
    render(<ToolCallCard row={row} />);
    const card = screen.getByRole("article");
    expect(within(card).getByLabelText("Command").textContent).toBe(`$ ${SHOWN}`);
    expect(HIDDEN.test(card.textContent ?? "")).toBe(false);
  });
});
