import { describe, expect, it } from "vitest";
import type { EngineEvent, Item } from "../ipc";
import type { AssistantRow, ToolRow, UserRow } from "./rows";
import { addLocalInput, applyEvents, emptyTimeline, rowById, timelineFromItems, toolRowId } from "./timeline";

const T = "turn-1";
const delta = (text: string): EngineEvent => ({ type: "text_delta", turn_id: T, text });
const done = (item: Item): EngineEvent => ({ type: "item_completed", turn_id: T, item });
const assistant = (id: string, text: string): Item => ({ type: "message", id, role: "assistant", content: [{ type: "text", text }] });

describe("timeline", () => {
  it("streams text into one row and replaces it with the completed item", () => {
    let tl = applyEvents(emptyTimeline(), [{ type: "turn_started", turn_id: T }, delta("Hel"), delta("lo")]);
    expect(tl.rows).toHaveLength(1);
    expect((tl.rows[0] as AssistantRow).text).toBe("Hello");
    expect((tl.rows[0] as AssistantRow).final).toBe(false);
    tl = applyEvents(tl, [done(assistant("msg-1", "Hello, world."))]);
    expect(tl.rows).toHaveLength(1);
    expect(tl.rows[0]).toMatchObject({ kind: "assistant", text: "Hello, world.", final: true, open: false });
  });

  it("keeps text before and after a tool call in order, without duplicates", () => {
    const tl = applyEvents(emptyTimeline(), [
      delta("Let me check."),
      { type: "tool_call_started", turn_id: T, call_id: "c1", name: "shell" },
      done(assistant("m1", "Let me check.")),
      done({ type: "function_call", id: "f1", call_id: "c1", name: "shell", arguments: '{"command":["ls"]}' }),
      { type: "tool_started", turn_id: T, call_id: "c1", tool: "shell" },
      { type: "tool_output_delta", turn_id: T, call_id: "c1", chunk: "a\n" },
      { type: "tool_output_delta", turn_id: T, call_id: "c1", chunk: "b\n" },
      done({ type: "tool_output", id: "o1", call_id: "c1", output: { text: "a\nb\n", status: "completed", exit_code: 0 } }),
      delta("Done."),
      done(assistant("m2", "Done.")),
      { type: "turn_completed", turn_id: T, usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 } },
    ]);
    expect(tl.rows.map((r) => r.kind)).toEqual(["assistant", "tool", "assistant"]);
    const tool = rowById(tl, toolRowId("c1")) as ToolRow;
    expect(tool.liveOutput).toBe("a\nb\n");
    expect(tool.phase).toBe("ended");
    expect(tool.output?.status).toBe("completed");
    expect((tl.rows[2] as AssistantRow).text).toBe("Done.");
  });

  it("tracks an approval on its tool call, and the decision", () => {
    const tl = applyEvents(emptyTimeline(), [
      done({ type: "function_call", id: "f1", call_id: "c1", name: "shell", arguments: "{}" }),
      {
        type: "approval_requested",
        turn_id: T,
        request: { id: "a1", call_id: "c1", tool: "shell", action: { type: "exec", command: "rm -rf x", cwd: "/w" }, reason: "rm", risk: "high" },
      },
    ]);
    expect((rowById(tl, toolRowId("c1")) as ToolRow).phase).toBe("awaiting_approval");
    const after = applyEvents(tl, [{ type: "approval_resolved", turn_id: T, approval_id: "a1", decision: { type: "deny", reason: "no" } }]);
    expect((rowById(after, toolRowId("c1")) as ToolRow).decision).toEqual({ type: "deny", reason: "no" });
  });

  it("confirms local input, marks steering as queued, and closes rows on abort", () => {
    let tl = addLocalInput(emptyTimeline(), "first").timeline;
    expect((tl.rows[0] as UserRow).state).toBe("pending");
    tl = applyEvents(tl, [
      { type: "turn_started", turn_id: T },
      done({ type: "message", id: "u1", role: "user", content: [{ type: "text", text: "first" }] }),
      delta("Work"),
    ]);
    expect(tl.rows).toHaveLength(2);
    expect((tl.rows[0] as UserRow).state).toBe("sent");
    tl = addLocalInput(tl, "also this").timeline;
    tl = applyEvents(tl, [{ type: "input_queued", turn_id: T, text: "also this" }]);
    expect((tl.rows[2] as UserRow).state).toBe("queued");
    tl = applyEvents(tl, [{ type: "turn_aborted", turn_id: T, reason: "interrupted" }]);
    expect(tl.rows.map((r) => r.kind)).toEqual(["user", "assistant", "user", "aborted"]);
    expect((tl.rows[1] as AssistantRow).final).toBe(true);
  });

  it("builds rows from history, folding outputs into their calls", () => {
    const tl = timelineFromItems([
      { type: "message", id: "u", role: "user", content: [{ type: "text", text: "hi" }] },
      { type: "message", id: "s", role: "system", content: [{ type: "text", text: "rules" }] },
      { type: "local_shell_call", id: "l", call_id: "c", command: ["bash", "-lc", "ls"] },
      { type: "tool_output", id: "o", call_id: "c", output: { text: "x", status: "failed", exit_code: 2 } },
      assistant("a", "ok"),
    ]);
    expect(tl.rows.map((r) => r.kind)).toEqual(["user", "tool", "assistant"]);
    expect((tl.rows[1] as ToolRow).output?.status).toBe("failed");
  });

  it("returns the same object when nothing changed", () => {
    const tl = emptyTimeline();
    expect(applyEvents(tl, [{ type: "turn_started", turn_id: T }])).toBe(tl);
  });
});

describe("timeline: questions and injected messages", () => {
  it("adds a question row and labels messages Tack wrote on the user's behalf", () => {
    const tl = applyEvents(emptyTimeline(), [
      {
        type: "question_asked",
        turn_id: T,
        request: { id: "q1", call_id: "c9", questions: [{ question: "Which crate?", options: [{ label: "wire" }, { label: "engine" }] }] },
      },
      done({ type: "message", id: "u9", role: "user", content: [{ type: "text", text: "Use the tool format." }], injected_by: "format_correction" }),
    ]);
    expect(tl.rows.map((r) => r.kind)).toEqual(["question", "user"]);
    expect((tl.rows[1] as UserRow).injectedBy).toBe("format_correction");
  });
});
