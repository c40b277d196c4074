/**
 * Feeds the shell's engine events for the open session into the store, through the
 * coalescing pump. Started once at boot.
 */
import { subscribeEngineEvents, type Unsubscribe } from "../ipc";
import { EventPump } from "./pump";
import { useSessionStore } from "./store";

export function startLiveUpdates(): Unsubscribe {
  const pump = new EventPump((events) => useSessionStore.getState().receive(events));
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
