import { describe, expect, it } from "vitest";
import type { EngineEvent, Item } from "../ipc";
import type { ToolRow } from "./rows";
import { applyEvents, emptyTimeline, rowById, toolRowId } from "./timeline";

const T = "turn-1";
const done = (item: Item): EngineEvent => ({ type: "item_completed", turn_id: T, item });
const DENIAL = "a write to /home/dev/.cache/x was refused: read-only file system";

describe("timeline and the sandbox", () => {
  it("an escalation request puts the sandbox's refusal on the call; the approval and the second run follow", () => {
    const tl = applyEvents(emptyTimeline(), [
      done({ type: "function_call", id: "f1", call_id: "c1", name: "shell", arguments: '{"command":["bash","-lc","mkdir -p ~/.cache/x"]}' }),
      { type: "tool_started", turn_id: T, call_id: "c1", tool: "shell" },
      { type: "tool_output_delta", turn_id: T, call_id: "c1", chunk: "mkdir: cannot create directory: Read-only file system\n" },
      {
        type: "approval_requested",
        turn_id: T,
        request: {
          id: "a1",
          call_id: "c1",
          tool: "shell",
          action: { type: "exec", command: "mkdir -p ~/.cache/x", cwd: "/w" },
          reason: `the sandbox refused this command (${DENIAL}); run it again outside the sandbox?`,
          risk: "high",
          sandbox: null,
          escalation: DENIAL,
          offer_session: false,
        },
      },
    ]);
    expect(rowById(tl, toolRowId("c1"))).toMatchObject({ phase: "awaiting_approval", escalation: DENIAL });
    const after = applyEvents(tl, [
      { type: "approval_resolved", turn_id: T, approval_id: "a1", decision: { type: "approve_once" } },
      { type: "tool_output_delta", turn_id: T, call_id: "c1", chunk: "\n[running again outside the sandbox]\n" },
      done({
        type: "tool_output",
        id: "o1",
        call_id: "c1",
        output: { text: "", status: "completed", exit_code: 0, details: { type: "exec", command: ["bash", "-lc", "mkdir -p ~/.cache/x"], cwd: "/w", truncated_bytes: 0 } },
      }),
    ]);
    const row = rowById(after, toolRowId("c1")) as ToolRow;
    expect(row).toMatchObject({ phase: "ended", escalation: DENIAL, decision: { type: "approve_once" } });
  });

  it("an ordinary approval leaves no escalation", () => {
    const tl = applyEvents(emptyTimeline(), [
      {
        type: "approval_requested",
        turn_id: T,
        request: { id: "a1", call_id: "c1", tool: "shell", action: { type: "exec", command: "cargo test", cwd: "/w" }, reason: "cargo", risk: "medium", sandbox: "workspace-write" },
      },
    ]);
    expect((rowById(tl, toolRowId("c1")) as ToolRow).escalation).toBeUndefined();
  });
});
