/** The only door to the desktop shell. Nothing outside `src/ipc/` imports `bindings.ts`. */
export { shell, IpcError, describeFailure } from "./client";
export { subscribeEngineEvents, subscribeMenuActions, subscribeWorkspaceChanges, type Unsubscribe } from "./events";
export { hasShell } from "./runtime";
export type * from "./types";
