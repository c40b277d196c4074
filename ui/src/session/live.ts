/**
 * Feeds the shell's engine events for the open session into the store, through the
 * coalescing pump. Started once at boot.
 */
import { subscribeEngineEvents, type Unsubscribe } from "../ipc";
import { useWorkspaceStore } from "../workspace/workspaceStore";
import { EventPump } from "./pump";
import { useSessionStore } from "./store";

export function startLiveUpdates(): Unsubscribe {
  const pump = new EventPump((events) => {
    useSessionStore.getState().receive(events);
    if (events.some((e) => e.type === "turn_completed" || e.type === "turn_aborted")) void syncSummary();
  });
  let sessionId = useSessionStore.getState().session?.id ?? null;
  const stopWatching = useSessionStore.subscribe((state) => {
    const next = state.session?.id ?? null;
    if (next !== sessionId) {
      pump.dispose();
      sessionId = next;
    }
  });
  const stopListening = subscribeEngineEvents((envelope) => {
    if (envelope.sessionId === sessionId) pump.push(envelope.event);
  });
  return () => {
    stopListening();
    stopWatching();
    pump.dispose();
  };
}

/**
 * After a turn the shell may have retitled the session and its item count changed: reload
 * the workspace's session list and take the open session's title from it.
 */
async function syncSummary(): Promise<void> {
  await useWorkspaceStore.getState().refreshSessions();
  const session = useSessionStore.getState().session;
  const summary = useWorkspaceStore.getState().sessions.find((s) => s.id === session?.id);
  if (summary && session && summary.title !== session.title) useSessionStore.getState().rename(summary.title);
}
