/**
 * The open session: its settings, timeline, pending approvals and questions, and exchanges.
 *
 * Only one session is open at a time; events of other sessions are ignored by the caller
 * (see `live.ts`). Everything here is synchronous state; calls into the shell live in
 * `actions.ts`.
 */
import { create } from "zustand";
import type {
  EngineEvent,
  ExchangeSummary,
  InferredHarness,
  QuestionAnswer,
  SessionSettings,
  SessionView,
  Usage,
} from "../ipc";
import { recallAutoHarness } from "../harness/autoHarness";
import { isTextProtocol } from "../harness/harnesses";
import {
  addLocalInput,
  applyEvents,
  failLocalInput,
  emptyTimeline,
  settleQuestion,
  timelineFromItems,
  type PendingApproval,
  type PendingQuestion,
  type Timeline,
} from "./timeline";

export interface OpenSession {
  id: string;
  title: string;
  settings: SessionSettings;
  /** The base URL of an ad-hoc provider (one given as a URL, id `custom`), else null. */
  providerUrl: string | null;
  /** A turn is running (sending steers, Stop interrupts). */
  running: boolean;
  turnId: string | null;
  /** Usage of the last completed turn. */
  lastUsage: Usage | null;
  /** What "auto" picked and why, when the session was started on auto from this window. */
  autoHarness: InferredHarness | null;
}

export interface SessionState {
  session: OpenSession | null;
  timeline: Timeline;
  /** Oldest first; the dialog shows the first. */
  approvals: PendingApproval[];
  /** Oldest first; shown once no approval waits. */
  questions: PendingQuestion[];
  exchanges: ExchangeSummary[];

  open(view: SessionView): void;
  close(): void;
  receive(events: readonly EngineEvent[]): void;
  addLocalInput(text: string): string;
  failLocalInput(rowId: string): void;
  rename(title: string): void;
  dropApproval(approvalId: string): void;
  /** The user answered (`answers`) or dismissed (`null`) a question request from this window. */
  settleQuestion(requestId: string, answers: QuestionAnswer[] | null): void;
  setExchanges(exchanges: ExchangeSummary[]): void;
}

export const useSessionStore = create<SessionState>()((set, get) => ({
  session: null,
  timeline: emptyTimeline(),
  approvals: [],
  questions: [],
  exchanges: [],

  open(view) {
    set({
      session: {
        id: view.id,
        title: view.title,
        settings: view.settings,
        providerUrl: view.providerUrl,
        running: view.running,
        turnId: null,
        lastUsage: null,
        autoHarness: matching(recallAutoHarness(view.id), view.settings.harness),
      },
      timeline: timelineFromItems(view.items, {
        textProtocol: isTextProtocol(view.settings.harness),
        running: view.running,
        pendingApprovals: view.pendingApprovals,
        pendingQuestions: view.pendingQuestions,
      }),
      // A window opened mid-turn asks again what the turn is waiting for.
      approvals: view.running ? view.pendingApprovals.map((request) => ({ turnId: null, request })) : [],
      questions: view.running ? view.pendingQuestions.map((request) => ({ turnId: null, request })) : [],
      exchanges: view.exchanges,
    });
  },

  close() {
    set({ session: null, timeline: emptyTimeline(), approvals: [], questions: [], exchanges: [] });
  },

  receive(events) {
    const state = get();
    if (!state.session) return;
    let session = state.session;
    let approvals = state.approvals;
    let questions = state.questions;
    let exchanges = state.exchanges;
    // Requests found pending on open have no turn id: they belong to whichever turn ends next.
    const ofOtherTurn = (turnId: string) => (pending: { turnId: string | null }) =>
      pending.turnId !== null && pending.turnId !== turnId;
    for (const event of events) {
      switch (event.type) {
        case "session_configured":
          session = { ...session, settings: event.settings };
          break;
        case "turn_started":
          session = { ...session, running: true, turnId: event.turn_id };
          break;
        case "turn_completed":
          session = { ...session, running: false, turnId: null, lastUsage: event.usage };
          approvals = approvals.filter(ofOtherTurn(event.turn_id));
          questions = questions.filter(ofOtherTurn(event.turn_id));
          break;
        case "turn_aborted":
          session = { ...session, running: false, turnId: null };
          approvals = approvals.filter(ofOtherTurn(event.turn_id));
          questions = questions.filter(ofOtherTurn(event.turn_id));
          break;
        case "approval_requested":
          if (!approvals.some((a) => a.request.id === event.request.id)) {
            approvals = [...approvals, { turnId: event.turn_id, request: event.request }];
          }
          break;
        case "approval_resolved":
          approvals = approvals.filter((a) => a.request.id !== event.approval_id);
          break;
        case "question_asked":
          if (!questions.some((q) => q.request.id === event.request.id)) {
            questions = [...questions, { turnId: event.turn_id, request: event.request }];
          }
          break;
        case "item_completed": {
          // The asking call got its output: the questions were settled (elsewhere, or timed out).
          const item = event.item;
          if (item.type === "tool_output" && questions.some((q) => q.request.call_id === item.call_id)) {
            questions = questions.filter((q) => q.request.call_id !== item.call_id);
          }
          break;
        }
        case "exchange_recorded":
          if (!exchanges.some((x) => x.id === event.exchange.id)) {
            exchanges = [...exchanges, event.exchange];
          }
          break;
        default:
          break;
      }
    }
    set({ session, approvals, questions, exchanges, timeline: applyEvents(state.timeline, events) });
  },

  addLocalInput(text) {
    const { timeline, rowId } = addLocalInput(get().timeline, text);
    set({ timeline });
    return rowId;
  },

  failLocalInput(rowId) {
    set({ timeline: failLocalInput(get().timeline, rowId) });
  },

  rename(title) {
    const session = get().session;
    if (session) set({ session: { ...session, title } });
  },

  dropApproval(approvalId) {
    set({ approvals: get().approvals.filter((a) => a.request.id !== approvalId) });
  },

  settleQuestion(requestId, answers) {
    const { questions, timeline } = get();
    set({
      questions: questions.filter((q) => q.request.id !== requestId),
      timeline: settleQuestion(timeline, requestId, answers === null ? "dismissed" : "answered", answers),
    });
  },

  setExchanges(exchanges) {
    set({ exchanges });
  },
}));

function matching(auto: InferredHarness | null, harness: string): InferredHarness | null {
  return auto && auto.harness === harness ? auto : null;
}
