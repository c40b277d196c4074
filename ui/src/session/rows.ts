/**
 * The session view's rows: what the message list renders, derived from history items and
 * live engine events. One row per user message, assistant message, reasoning block, tool
 * call (with its output folded in), error and turn-abort note.
 */
import type {
  AbortReason,
  ModelError,
  QuestionRequest,
  ResolvedDecision,
  ToolOutput,
} from "../ipc";

/** Where a user message stands: shown before the engine confirmed it, queued mid-turn, or not delivered. */
export type UserRowState = "pending" | "queued" | "sent" | "failed";

export interface UserRow {
  kind: "user";
  id: string;
  text: string;
  state: UserRowState;
  /** Set when Tack wrote the message on the user's behalf (the harness or engine rule). */
  injectedBy: string | null;
}

export interface AssistantRow {
  kind: "assistant";
  id: string;
  turnId: string | null;
  text: string;
  /** Deltas still append to this row. */
  open: boolean;
  /** The completed item arrived; `text` is final. */
  final: boolean;
}

export interface ReasoningRow {
  kind: "reasoning";
  id: string;
  turnId: string | null;
  text: string;
  open: boolean;
  final: boolean;
}

/** How the model asked for a tool. */
export type ToolInput =
  /** Arguments are still streaming. */
  | { kind: "pending" }
  /** A JSON-schema function tool; `arguments` is the raw JSON text (possibly invalid). */
  | { kind: "function"; arguments: string; namespace: string | null }
  /** A freeform tool; `input` is raw text (e.g. a patch). */
  | { kind: "custom"; input: string }
  /** A shell command parsed out of text by the harness. */
  | { kind: "shell"; command: string[]; workdir: string | null };

/**
 * Where a tool call stands, in order: arguments streaming → call complete, waiting → the user
 * is asked → running → ended (the output item arrived, or the turn ended without one).
 */
export type ToolPhase = "streaming" | "waiting" | "awaiting_approval" | "running" | "ended";

export interface ToolRow {
  kind: "tool";
  id: string;
  callId: string;
  turnId: string | null;
  /** Tool name as the model called it. */
  name: string;
  input: ToolInput;
  phase: ToolPhase;
  /** Output chunks received while running (raw, ANSI not yet stripped). */
  liveOutput: string;
  /** The final output, once the tool output item arrived. */
  output: ToolOutput | null;
  /** The user's (or a rule's) decision, if an approval was involved. */
  decision: ResolvedDecision | null;
  /** Wall-clock ms when the tool started running (for a live duration), else null. */
  startedAt: number | null;
}

export interface ErrorRow {
  kind: "error";
  id: string;
  turnId: string | null;
  error: ModelError;
}

export interface AbortedRow {
  kind: "aborted";
  id: string;
  turnId: string;
  reason: AbortReason;
}

/** Questions a tool call put to the user (`question_asked`). */
export interface QuestionRow {
  kind: "question";
  id: string;
  turnId: string;
  request: QuestionRequest;
}

export type Row = UserRow | AssistantRow | ReasoningRow | ToolRow | ErrorRow | AbortedRow | QuestionRow;

/** Longest live output kept per tool call; older output is dropped from the front. */
export const LIVE_OUTPUT_CAP = 256 * 1024;
