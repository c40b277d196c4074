/**
 * Coalesces engine events before they reach the store.
 *
 * A model can stream hundreds of deltas a second; rendering each one would re-render the
 * list that often. Deltas (text, reasoning, tool output) are buffered, merged when adjacent,
 * and applied once per animation frame (or after 50 ms when frames are throttled, e.g. a
 * hidden window). Any other event flushes the buffer first and is applied at once, so order
 * is kept and approvals or errors never wait for a frame.
 */
import type { EngineEvent } from "../ipc";

/** Schedules one callback; returns a function that cancels it. */
export type Scheduler = (callback: () => void) => () => void;

/** Next animation frame, or 50 ms, whichever comes first. */
export const nextFrame: Scheduler = (callback) => {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
    callback();
  };
  const frame = requestAnimationFrame(run);
  const timer = setTimeout(run, FLUSH_FALLBACK_MS);
  return () => {
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
};

/** Longest time a delta waits when animation frames do not fire. */
export const FLUSH_FALLBACK_MS = 50;

export class EventPump {
  private buffer: EngineEvent[] = [];
  private cancel: (() => void) | null = null;

  constructor(
    private readonly apply: (events: EngineEvent[]) => void,
    private readonly schedule: Scheduler = nextFrame,
  ) {}

  push(event: EngineEvent): void {
    if (isDelta(event)) {
      mergeInto(this.buffer, event);
      if (!this.cancel) this.cancel = this.schedule(() => this.flush());
      return;
    }
    this.buffer.push(event);
    this.flush();
  }

  /** Applies everything buffered now. */
  flush(): void {
    this.cancel?.();
    this.cancel = null;
    if (this.buffer.length === 0) return;
    const events = this.buffer;
    this.buffer = [];
    this.apply(events);
  }

  /** Drops buffered events (the session was closed). */
  dispose(): void {
    this.cancel?.();
    this.cancel = null;
    this.buffer = [];
  }
}

type DeltaEvent = Extract<EngineEvent, { type: "text_delta" | "reasoning_delta" | "tool_output_delta" }>;

function isDelta(event: EngineEvent): event is DeltaEvent {
  return event.type === "text_delta" || event.type === "reasoning_delta" || event.type === "tool_output_delta";
}

function mergeInto(buffer: EngineEvent[], event: DeltaEvent): void {
  const last = buffer[buffer.length - 1];
  if (last && last.type === event.type && last.turn_id === event.turn_id) {
    if (last.type === "tool_output_delta" && event.type === "tool_output_delta") {
      if (last.call_id === event.call_id) {
        buffer[buffer.length - 1] = { ...last, chunk: last.chunk + event.chunk };
        return;
      }
    } else if (last.type !== "tool_output_delta" && event.type !== "tool_output_delta") {
      buffer[buffer.length - 1] = { ...last, text: last.text + event.text };
      return;
    }
  }
  buffer.push(event);
}
