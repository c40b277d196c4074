/**
 * Subscriptions to the shell's event stream (docs/ipc.md § Events).
 */
import { events } from "../bindings";
import type { EngineEventEnvelope, MenuAction, WorkspaceChanged } from "./types";

/** Stops a subscription. */
export type Unsubscribe = () => void;

/**
 * Calls `onEvent` for every engine event of every session, in arrival order. Returns a
 * function that stops listening (safe to call before the subscription is established).
 */
export function subscribeEngineEvents(onEvent: (envelope: EngineEventEnvelope) => void): Unsubscribe {
  return settle(events.engineEventEnvelope.listen((event) => onEvent(event.payload)));
}

/** Calls `onChange` when files change in a workspace outside Tack. */
export function subscribeWorkspaceChanges(onChange: (change: WorkspaceChanged) => void): Unsubscribe {
  return settle(events.workspaceChanged.listen((event) => onChange(event.payload)));
}

/** Calls `onAction` when the native menu is used (`new-session`, `open-folder`, `toggle-inspector`, `settings`, `about`). */
export function subscribeMenuActions(onAction: (action: MenuAction) => void): Unsubscribe {
  return settle(events.menuAction.listen((event) => onAction(event.payload)));
}

function settle(pending: Promise<() => void>): Unsubscribe {
  let stopped = false;
  let stop: (() => void) | null = null;
  pending
    .then((unlisten) => {
      if (stopped) unlisten();
      else stop = unlisten;
    })
    .catch(() => {
      // No shell behind the page (plain browser without a mock): nothing to unsubscribe.
    });
  return () => {
    stopped = true;
    stop?.();
  };
}
