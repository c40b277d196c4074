/**
 * The session view's rows: what the message list renders, derived from history items and
 * live engine events. One row per user message, assistant message, reasoning block, tool
 * call (with its output folded in), message Tack wrote on the user's behalf, question, error
 * and turn-abort note.
 */
import type {
  AbortReason,
  ModelError,
  QuestionAnswer,
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
}

/**
 * A user-role message Tack wrote, not the person (`MessageItem.injected_by`): a format
 * correction, a confirmation question, a hand-off prompt. The model sees it as a user message;
 * the window shows it as Tack's note.
 */
export interface InjectedRow {
  kind: "injected";
  id: string;
  turnId: string | null;
  /** The rule that wrote it, e.g. `format_correction`. */
  label: string;
  text: string;
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
  /**
   * A harness parsed an action out of this text (text-protocol harnesses): the row id of
   * the first tool call it became, else null.
   */
  parsedInto?: string | null;
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
  /**
   * The assistant row this call was parsed from, when the harness read it out of the model's
   * text rather than receiving a native tool call; else null.
   */
  source?: string | null;
  /** The question row of the questions this call asks the user, if it asks any. */
  question?: string | null;
  /**
   * What the sandbox refused, when Tack asked to run the command again outside it (the
   * escalation request's text); the decision on that request is {@link decision}.
   */
  escalation?: string | null;
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

/**
 * Where a question stands: waiting for the user, answered or dismissed from this window, or
 * closed without an answer from here (the turn ended, or the call got its output).
 */
export type QuestionState = "waiting" | "answered" | "dismissed" | "closed";

/** Questions a tool call put to the user (`question_asked`). */
export interface QuestionRow {
  kind: "question";
  id: string;
  /** Null for a question found pending when the session was opened. */
  turnId: string | null;
  request: QuestionRequest;
  state: QuestionState;
  /** What the user answered, once `answered`. */
  answers: QuestionAnswer[] | null;
}

export type Row = UserRow | InjectedRow | AssistantRow | ReasoningRow | ToolRow | ErrorRow | AbortedRow | QuestionRow;

/** Longest live output kept per tool call; older output is dropped from the front. */
export const LIVE_OUTPUT_CAP = 256 * 1024;
