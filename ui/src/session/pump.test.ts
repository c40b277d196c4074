import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../ipc";
import { EventPump } from "./pump";

function manualScheduler() {
  const pending: Array<() => void> = [];
  return {
    schedule: (cb: () => void) => {
      pending.push(cb);
      return () => {
        const at = pending.indexOf(cb);
        if (at >= 0) pending.splice(at, 1);
      };
    },
    frame: () => pending.splice(0).forEach((cb) => cb()),
    pending,
  };
}

describe("event pump", () => {
  it("merges adjacent deltas and applies them once per frame", () => {
    const batches: EngineEvent[][] = [];
    const frames = manualScheduler();
    const pump = new EventPump((events) => batches.push(events), frames.schedule);
    for (const text of ["a", "b", "c"]) pump.push({ type: "text_delta", turn_id: "t", text });
    pump.push({ type: "tool_output_delta", turn_id: "t", call_id: "c", chunk: "1" });
    pump.push({ type: "tool_output_delta", turn_id: "t", call_id: "c", chunk: "2" });
    expect(batches).toHaveLength(0);
    expect(frames.pending).toHaveLength(1);
    frames.frame();
    expect(batches).toEqual([
      [
        { type: "text_delta", turn_id: "t", text: "abc" },
        { type: "tool_output_delta", turn_id: "t", call_id: "c", chunk: "12" },
      ],
    ]);
  });

  it("applies other events at once, after the deltas before them", () => {
    const batches: EngineEvent[][] = [];
    const frames = manualScheduler();
    const pump = new EventPump((events) => batches.push(events), frames.schedule);
    pump.push({ type: "text_delta", turn_id: "t", text: "x" });
    pump.push({ type: "turn_completed", turn_id: "t", usage: { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 } });
    expect(batches).toHaveLength(1);
    expect(batches[0]?.map((e) => e.type)).toEqual(["text_delta", "turn_completed"]);
    expect(frames.pending).toHaveLength(0);
  });
});
