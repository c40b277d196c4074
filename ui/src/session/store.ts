/**
 * The open session: its settings, timeline, pending approvals and exchanges.
 *
 * Only one session is open at a time; events of other sessions are ignored by the caller
 * (see `live.ts`). Everything here is synchronous state; calls into the shell live in
 * `actions.ts`.
 */
import { create } from "zustand";
import type {
  EngineEvent,
  ExchangeSummary,
  SessionSettings,
  SessionView,
  Usage,
} from "../ipc";
import {
  addLocalInput,
  applyEvents,
  failLocalInput,
  emptyTimeline,
  timelineFromItems,
  type PendingApproval,
  type Timeline,
} from "./timeline";

export interface OpenSession {
  id: string;
  title: string;
  settings: SessionSettings;
  /** A turn is running (sending steers, Stop interrupts). */
  running: boolean;
  turnId: string | null;
  /** Usage of the last completed turn. */
  lastUsage: Usage | null;
}

export interface SessionState {
  session: OpenSession | null;
  timeline: Timeline;
  /** Oldest first; the dialog shows the first. */
  approvals: PendingApproval[];
  exchanges: ExchangeSummary[];

  open(view: SessionView): void;
  close(): void;
  receive(events: readonly EngineEvent[]): void;
  addLocalInput(text: string): string;
  failLocalInput(rowId: string): void;
  rename(title: string): void;
  dropApproval(approvalId: string): void;
  setExchanges(exchanges: ExchangeSummary[]): void;
}

export const useSessionStore = create<SessionState>()((set, get) => ({
  session: null,
  timeline: emptyTimeline(),
  approvals: [],
  exchanges: [],

  open(view) {
    set({
      session: {
        id: view.id,
        title: view.title,
        settings: view.settings,
        running: view.running,
        turnId: null,
        lastUsage: null,
      },
      timeline: timelineFromItems(view.items),
      approvals: [],
      exchanges: view.exchanges,
    });
  },

  close() {
    set({ session: null, timeline: emptyTimeline(), approvals: [], exchanges: [] });
  },

  receive(events) {
    const state = get();
    if (!state.session) return;
    let session = state.session;
    let approvals = state.approvals;
    let exchanges = state.exchanges;
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
          approvals = approvals.filter((a) => a.turnId !== event.turn_id);
          break;
        case "turn_aborted":
          session = { ...session, running: false, turnId: null };
          approvals = approvals.filter((a) => a.turnId !== event.turn_id);
          break;
        case "approval_requested":
          if (!approvals.some((a) => a.request.id === event.request.id)) {
            approvals = [...approvals, { turnId: event.turn_id, request: event.request }];
          }
          break;
        case "approval_resolved":
          approvals = approvals.filter((a) => a.request.id !== event.approval_id);
          break;
        case "exchange_recorded":
          if (!exchanges.some((x) => x.id === event.exchange.id)) {
            exchanges = [...exchanges, event.exchange];
          }
          break;
        default:
          break;
      }
    }
    set({ session, approvals, exchanges, timeline: applyEvents(state.timeline, events) });
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

  setExchanges(exchanges) {
    set({ exchanges });
  },
}));
