/**
 * The timeline reducer: history items and engine events in, rows out.
 *
 * Rows are immutable objects so memoized row components re-render only when their own row
 * changes; the rows array is copied at most once per applied batch. Streaming text goes to
 * the "open" assistant/reasoning row of the turn; the completed item later replaces it (the
 * first not-yet-final row of that kind in the turn), so a message is never shown twice even
 * when a tool call interrupts the text stream.
 */
import type {
  ApprovalRequest,
  EngineEvent,
  Item,
  ItemOf,
  QuestionAnswer,
  QuestionRequest,
  TodoEntry,
  ToolOutput,
} from "../ipc";
import { messageText, reasoningText } from "./items";
import {
  LIVE_OUTPUT_CAP,
  type AssistantRow,
  type QuestionRow,
  type QuestionState,
  type ReasoningRow,
  type Row,
  type ToolInput,
  type ToolRow,
  type UserRow,
} from "./rows";

export interface Timeline {
  readonly rows: readonly Row[];
  /** Row id → index in `rows`. Append-only, shared between versions of a timeline. */
  readonly index: ReadonlyMap<string, number>;
  /** Approval id → call id (`approval_resolved` names only the approval). Append-only, shared. */
  readonly approvalCalls: ReadonlyMap<string, string>;
  /** Row id of the assistant row receiving text deltas, if any. */
  readonly openAssistant: string | null;
  /** Row id of the reasoning row receiving reasoning deltas, if any. */
  readonly openReasoning: string | null;
  /** Counter for ids of rows the UI creates itself. */
  readonly seq: number;
  /** The latest todo list of the session (the last `todos` tool output wins), if any. */
  readonly todos: TodoList | null;
  /** The session's harness reads actions out of the model's text (see {@link TimelineOptions}). */
  readonly textProtocol: boolean;
}

/** A todo list and the call that wrote it. */
export interface TodoList {
  callId: string;
  entries: readonly TodoEntry[];
}

/** A pending approval and the turn it belongs to (null: found pending when the session opened). */
export interface PendingApproval {
  turnId: string | null;
  request: ApprovalRequest;
}

/** Pending questions and the turn they belong to (null: found pending when the session opened). */
export interface PendingQuestion {
  turnId: string | null;
  request: QuestionRequest;
}

export interface TimelineOptions {
  /**
   * The harness writes no native tool calls but parses actions out of the model's text
   * (swe-agent, mini-swe-agent, terminus-2): each call is linked to the assistant text it came
   * from. Calls of other harnesses are linked only when they are `local_shell_call` items or
   * calls recovered from text (`text_call_…` ids).
   */
  textProtocol?: boolean;
}

/** How a session stood when it was opened: a turn may be running and waiting for the user. */
export interface OpenState extends TimelineOptions {
  running?: boolean;
  pendingApprovals?: readonly ApprovalRequest[];
  pendingQuestions?: readonly QuestionRequest[];
}

/** A new, empty timeline (its maps are its own: timelines share maps only with their versions). */
export function emptyTimeline(options: TimelineOptions = {}): Timeline {
  return {
    rows: [],
    index: new Map(),
    approvalCalls: new Map(),
    openAssistant: null,
    openReasoning: null,
    seq: 0,
    todos: null,
    textProtocol: options.textProtocol ?? false,
  };
}

/**
 * Builds the timeline of an opened session from its history. A session opened mid-turn keeps
 * its unfinished calls open, shows the calls waiting for approval as such, and adds rows for
 * the questions still waiting for an answer.
 */
export function timelineFromItems(items: readonly Item[], state: OpenState = {}): Timeline {
  const draft = new Draft(emptyTimeline(state), true);
  for (const item of items) draft.completeItem(null, item);
  if (state.running) {
    for (const request of state.pendingApprovals ?? []) draft.requestApproval(null, request);
    for (const request of state.pendingQuestions ?? []) draft.askQuestion(null, request);
  } else {
    draft.closeTurn(null);
  }
  return draft.finish();
}

/** Applies engine events in order. Returns the same object when nothing changed. */
export function applyEvents(timeline: Timeline, events: readonly EngineEvent[]): Timeline {
  if (events.length === 0) return timeline;
  const draft = new Draft(timeline, false);
  for (const event of events) draft.apply(event);
  return draft.finish();
}

/** Adds the user's own message before the engine confirms it (`pending`). */
export function addLocalInput(timeline: Timeline, text: string): { timeline: Timeline; rowId: string } {
  const draft = new Draft(timeline, false);
  const rowId = draft.nextId("input");
  draft.append({ kind: "user", id: rowId, text, state: "pending" });
  return { timeline: draft.finish(), rowId };
}

/** The row with this id, if any. */
export function rowById(timeline: Timeline, id: string): Row | undefined {
  const at = timeline.index.get(id);
  return at === undefined ? undefined : timeline.rows[at];
}

/**
 * A mutable working copy used while applying one batch. The shared index map is only ever
 * appended to, so older timeline versions stay valid for their own (shorter) rows array.
 */
class Draft {
  private rows: Row[];
  private copied = false;
  private readonly index: Map<string, number>;
  private readonly approvalCalls: Map<string, string>;
  private openAssistant: string | null;
  private openReasoning: string | null;
  private seq: number;
  private todos: TodoList | null;
  private changed = false;

  constructor(
    private readonly base: Timeline,
    fresh: boolean,
  ) {
    this.rows = base.rows as Row[];
    this.index = fresh ? new Map() : (base.index as Map<string, number>);
    this.approvalCalls = fresh ? new Map() : (base.approvalCalls as Map<string, string>);
    if (fresh) {
      this.rows = [];
      this.copied = true;
    }
    this.openAssistant = base.openAssistant;
    this.openReasoning = base.openReasoning;
    this.seq = base.seq;
    this.todos = base.todos;
  }

  finish(): Timeline {
    if (!this.changed) return this.base;
    return {
      rows: this.rows,
      index: this.index,
      approvalCalls: this.approvalCalls,
      openAssistant: this.openAssistant,
      openReasoning: this.openReasoning,
      seq: this.seq,
      todos: this.todos,
      textProtocol: this.base.textProtocol,
    };
  }

  nextId(prefix: string): string {
    this.seq += 1;
    this.changed = true;
    return `${prefix}-${this.seq}`;
  }

  append(row: Row): void {
    this.ensureCopy();
    // A row id may repeat only if the engine re-sends an item; keep the first position.
    const existing = this.index.get(row.id);
    if (existing !== undefined && existing < this.rows.length) {
      this.rows[existing] = row;
    } else {
      this.index.set(row.id, this.rows.length);
      this.rows.push(row);
    }
    this.changed = true;
  }

  private replace(at: number, row: Row): void {
    this.ensureCopy();
    this.rows[at] = row;
    this.changed = true;
  }

  private ensureCopy(): void {
    if (!this.copied) {
      this.rows = this.rows.slice();
      this.copied = true;
    }
  }

  private find<K extends Row["kind"]>(id: string | null, kind: K): [number, Extract<Row, { kind: K }>] | null {
    if (id === null) return null;
    const at = this.index.get(id);
    if (at === undefined || at >= this.rows.length) return null;
    const row = this.rows[at];
    if (!row || row.kind !== kind) return null;
    return [at, row as Extract<Row, { kind: K }>];
  }

  apply(event: EngineEvent): void {
    switch (event.type) {
      case "session_configured":
      case "turn_started":
      case "exchange_recorded":
        return;
      case "text_delta":
        this.appendText("assistant", event.turn_id, event.text);
        return;
      case "reasoning_delta":
        this.appendText("reasoning", event.turn_id, event.text);
        return;
      case "tool_call_started":
        this.closeOpenText();
        this.upsertTool(event.call_id, event.turn_id, (row) => row, {
          name: event.name,
          input: { kind: "pending" },
          phase: "streaming",
        });
        return;
      case "item_completed":
        this.completeItem(event.turn_id, event.item);
        return;
      case "tool_started":
        this.upsertTool(event.call_id, event.turn_id, (row) => ({
          ...row,
          phase: "running",
          startedAt: row.startedAt ?? Date.now(),
        }));
        return;
      case "tool_output_delta":
        this.upsertTool(event.call_id, event.turn_id, (row) => ({
          ...row,
          phase: row.phase === "ended" ? row.phase : "running",
          liveOutput: capOutput(row.liveOutput + event.chunk),
        }));
        return;
      case "approval_requested":
        this.requestApproval(event.turn_id, event.request);
        return;
      case "approval_resolved": {
        const at = this.findToolByApproval(event.approval_id);
        if (at !== null) {
          const row = this.rows[at] as ToolRow;
          this.replace(at, {
            ...row,
            decision: event.decision,
            phase: row.phase === "awaiting_approval" ? "waiting" : row.phase,
          });
        }
        return;
      }
      case "turn_completed":
        this.closeTurn(event.turn_id);
        return;
      case "turn_aborted":
        this.closeTurn(event.turn_id);
        this.append({
          kind: "aborted",
          id: this.nextId("aborted"),
          turnId: event.turn_id,
          reason: event.reason,
        });
        return;
      case "error":
        this.closeOpenText();
        this.append({
          kind: "error",
          id: this.nextId("error"),
          turnId: event.turn_id ?? null,
          error: event.error,
        });
        return;
      case "input_queued":
        this.queueInput(event.text);
        return;
      case "question_asked":
        this.askQuestion(event.turn_id, event.request);
        return;
    }
  }

  requestApproval(turnId: string | null, request: ApprovalRequest): void {
    this.approvalCalls.set(request.id, request.call_id);
    this.changed = true;
    this.upsertTool(
      request.call_id,
      turnId,
      (row) =>
        row.phase === "ended"
          ? row
          : { ...row, phase: "awaiting_approval", ...(request.escalation ? { escalation: request.escalation } : {}) },
      { name: request.tool },
    );
  }

  askQuestion(turnId: string | null, request: QuestionRequest): void {
    this.closeOpenText();
    const id = questionRowId(request.id);
    const call = this.find(toolRowId(request.call_id), "tool");
    if (call) this.replace(call[0], { ...call[1], question: id });
    this.append({ kind: "question", id, turnId, request, state: "waiting", answers: null });
  }

  private findToolByApproval(approvalId: string): number | null {
    const callId = this.approvalCalls.get(approvalId);
    if (!callId) return null;
    const found = this.find(toolRowId(callId), "tool");
    return found ? found[0] : null;
  }

  completeItem(turnId: string | null, item: Item): void {
    switch (item.type) {
      case "message":
        if (item.role === "user" && item.injected_by) {
          this.closeOpenText();
          this.append({ kind: "injected", id: `item-${item.id}`, turnId, label: item.injected_by, text: messageText(item) });
        } else if (item.role === "user") this.confirmUserMessage(item);
        else if (item.role === "assistant") this.finalizeText("assistant", turnId, item.id, messageText(item));
        // Developer and system messages are instructions, not conversation.
        return;
      case "reasoning":
        this.finalizeText("reasoning", turnId, item.id, reasoningText(item));
        return;
      case "function_call":
        this.closeOpenText();
        this.completeCall(turnId, item.call_id, item.name, {
          kind: "function",
          arguments: item.arguments,
          namespace: item.namespace ?? null,
        });
        return;
      case "custom_tool_call":
        this.closeOpenText();
        this.completeCall(turnId, item.call_id, item.name, { kind: "custom", input: item.input });
        return;
      case "local_shell_call":
        this.closeOpenText();
        this.completeCall(turnId, item.call_id, "shell", {
          kind: "shell",
          command: item.command,
          workdir: item.workdir ?? null,
        });
        return;
      case "tool_output":
        this.completeOutput(turnId, item);
        return;
    }
  }

  private completeCall(turnId: string | null, callId: string, name: string, input: ToolInput): void {
    this.upsertTool(
      callId,
      turnId,
      (row) => ({ ...row, name, input, phase: row.phase === "streaming" ? "waiting" : row.phase }),
      { name, input, phase: "waiting" },
    );
    if (input.kind === "shell" || callId.startsWith(RECOVERED_CALL_PREFIX) || this.base.textProtocol) {
      this.linkSource(toolRowId(callId));
    }
  }

  /**
   * Links a call parsed out of text to the assistant message it came from: the nearest row
   * before it, passing over reasoning and over calls of the same reply (calls without an
   * output yet). Anything else in between (a person's message, a finished call) means the
   * call has no text of its own.
   */
  private linkSource(toolId: string): void {
    const found = this.find(toolId, "tool");
    if (!found) return;
    const [toolAt, tool] = found;
    for (let at = toolAt - 1; at >= Math.max(0, toolAt - 64); at--) {
      const row = this.rows[at];
      if (!row) return;
      if (row.kind === "reasoning" || (row.kind === "tool" && row.output === null)) continue;
      if (row.kind !== "assistant") return;
      this.replace(toolAt, { ...tool, source: row.id });
      if (!row.parsedInto) this.replace(at, { ...row, parsedInto: toolId });
      return;
    }
  }

  private completeOutput(turnId: string | null, item: ItemOf<"tool_output">): void {
    const output: ToolOutput = item.output;
    this.upsertTool(
      item.call_id,
      turnId,
      (row) => ({ ...row, phase: "ended", output }),
      { name: "tool", phase: "ended", output },
    );
    if (output.details?.type === "todos") {
      this.todos = { callId: item.call_id, entries: output.details.todos };
      this.changed = true;
    }
    // A question still waiting when its call has an output was settled elsewhere.
    for (let at = Math.max(0, this.rows.length - 512); at < this.rows.length; at++) {
      const row = this.rows[at];
      if (row?.kind === "question" && row.state === "waiting" && row.request.call_id === item.call_id) {
        this.replace(at, { ...row, state: "closed" });
      }
    }
  }

  private upsertTool(
    callId: string,
    turnId: string | null,
    update: (row: ToolRow) => ToolRow,
    seed: Partial<ToolRow> = {},
  ): void {
    const id = toolRowId(callId);
    const found = this.find(id, "tool");
    if (found) {
      this.replace(found[0], update(found[1]));
      return;
    }
    const fresh: ToolRow = {
      kind: "tool",
      id,
      callId,
      turnId,
      name: "tool",
      input: { kind: "pending" },
      phase: "waiting",
      liveOutput: "",
      output: null,
      decision: null,
      startedAt: null,
      ...seed,
    };
    this.append(seed.phase === "ended" ? fresh : update(fresh));
  }

  private appendText(kind: "assistant" | "reasoning", turnId: string, text: string): void {
    const openId = kind === "assistant" ? this.openAssistant : this.openReasoning;
    const found = this.find(openId, kind);
    if (found) {
      const [at, row] = found;
      this.replace(at, { ...row, text: row.text + text });
      return;
    }
    // Reasoning precedes the answer: a new reasoning block closes the open answer and
    // vice versa, so the two interleave in arrival order.
    if (kind === "assistant") this.openReasoning = null;
    else this.openAssistant = null;
    const id = this.nextId(kind === "assistant" ? "stream-text" : "stream-reasoning");
    const row: AssistantRow | ReasoningRow = { kind, id, turnId, text, open: true, final: false };
    this.append(row);
    if (kind === "assistant") this.openAssistant = id;
    else this.openReasoning = id;
  }

  private finalizeText(kind: "assistant" | "reasoning", turnId: string | null, itemId: string, text: string): void {
    // The first streamed row of this turn still waiting for its item is the one it completes.
    for (let at = this.firstCandidate(turnId); at < this.rows.length; at++) {
      const row = this.rows[at];
      if (row && row.kind === kind && !row.final && row.turnId === turnId) {
        this.replace(at, { ...row, text, final: true, open: false });
        if (this.openAssistant === row.id) this.openAssistant = null;
        if (this.openReasoning === row.id) this.openReasoning = null;
        return;
      }
    }
    this.append({ kind, id: `item-${itemId}`, turnId, text, open: false, final: true });
  }

  /** Streamed rows of a turn sit near the end; scanning from a bounded window keeps this O(1). */
  private firstCandidate(turnId: string | null): number {
    if (turnId === null) return this.rows.length;
    return Math.max(0, this.rows.length - 512);
  }

  private closeOpenText(): void {
    this.openAssistant = null;
    this.openReasoning = null;
  }

  closeTurn(turnId: string | null): void {
    this.closeOpenText();
    const from = Math.max(0, this.rows.length - 2048);
    for (let at = from; at < this.rows.length; at++) {
      const row = this.rows[at];
      // Rows without a turn id were open when the session was opened mid-turn: that turn.
      if (!row || (turnId !== null && "turnId" in row && row.turnId !== null && row.turnId !== turnId)) continue;
      if ((row.kind === "assistant" || row.kind === "reasoning") && (row.open || !row.final)) {
        this.replace(at, { ...row, open: false, final: true });
      } else if (row.kind === "tool" && row.phase !== "ended") {
        this.replace(at, { ...row, phase: "ended" });
      } else if (row.kind === "user" && row.state !== "sent") {
        this.replace(at, { ...row, state: "sent" });
      } else if (row.kind === "question" && row.state === "waiting") {
        this.replace(at, { ...row, state: "closed" });
      }
    }
  }

  private confirmUserMessage(item: ItemOf<"message">): void {
    const text = messageText(item);
    const at = this.findUnconfirmedInput(text);
    if (at !== null) {
      this.replace(at, { ...(this.rows[at] as UserRow), state: "sent" });
      return;
    }
    this.append({ kind: "user", id: `item-${item.id}`, text, state: "sent" });
  }

  private queueInput(text: string): void {
    const at = this.findUnconfirmedInput(text, "pending");
    if (at !== null) {
      this.replace(at, { ...(this.rows[at] as UserRow), state: "queued" });
      return;
    }
    this.append({ kind: "user", id: this.nextId("queued"), text, state: "queued" });
  }

  private findUnconfirmedInput(text: string, only?: UserRow["state"]): number | null {
    for (let at = Math.max(0, this.rows.length - 512); at < this.rows.length; at++) {
      const row = this.rows[at];
      if (row?.kind === "user" && row.state !== "sent" && (!only || row.state === only) && row.text === text) {
        return at;
      }
    }
    return null;
  }
}

/** The row id of a tool call. */
export function toolRowId(callId: string): string {
  return `call-${callId}`;
}

/** The row id of a question request. */
export function questionRowId(requestId: string): string {
  return `question-${requestId}`;
}

/** Call ids the harness gives calls it recovered from a model's text (harness `recovery`). */
const RECOVERED_CALL_PREFIX = "text_call_";

function capOutput(text: string): string {
  return text.length > LIVE_OUTPUT_CAP ? text.slice(text.length - LIVE_OUTPUT_CAP) : text;
}

/** Marks a locally added input as not delivered (the shell refused it). */
export function failLocalInput(timeline: Timeline, rowId: string): Timeline {
  const at = timeline.index.get(rowId);
  const row = at === undefined ? undefined : timeline.rows[at];
  if (at === undefined || !row || row.kind !== "user") return timeline;
  const rows = timeline.rows.slice();
  rows[at] = { ...row, state: "failed" };
  return { ...timeline, rows };
}

/** Records what became of a question in this window (answered or dismissed). */
export function settleQuestion(
  timeline: Timeline,
  requestId: string,
  state: Exclude<QuestionState, "waiting">,
  answers: QuestionAnswer[] | null,
): Timeline {
  const at = timeline.index.get(questionRowId(requestId));
  const row = at === undefined ? undefined : timeline.rows[at];
  if (at === undefined || !row || row.kind !== "question") return timeline;
  const rows = timeline.rows.slice();
  const settled: QuestionRow = { ...row, state, answers };
  rows[at] = settled;
  return { ...timeline, rows };
}
