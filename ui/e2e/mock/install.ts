/**
 * Installs the scripted shell behind `@tauri-apps/api` (its `mockIPC`, with event mocking
 * on), so the unchanged app talks to it through `invoke` and `listen` as it would to Rust.
 * Exposes `window.__tackMock` for tests: the invoke log and a few controls.
 */
import { mockIPC } from "@tauri-apps/api/mocks";
import { MockShell, type MockConfig } from "./backend";
import { PAST_SESSIONS, RECORDINGS } from "./recordings";

declare global {
  interface Window {
    __TACK_MOCK_CONFIG__?: MockConfig;
    __tackMock?: MockShell;
    __TAURI_INTERNALS__: { invoke: (cmd: string, args?: unknown) => Promise<unknown> };
  }
}

export function installMockShell(config: MockConfig = window.__TACK_MOCK_CONFIG__ ?? {}): MockShell {
  const emit = (event: string, payload: unknown) => {
    void window.__TAURI_INTERNALS__.invoke("plugin:event|emit", { event, payload });
  };
  const shell = new MockShell(RECORDINGS, PAST_SESSIONS, emit, config);
  mockIPC(
    (cmd, args) => {
      try {
        return shell.invoke(cmd, (args ?? {}) as Record<string, unknown>);
      } catch (error) {
        // The real shell rejects with its AppError object ({message, hint, field}), not an Error.
        const { message, hint, field } = error as { message: string; hint: string | null; field?: string | null };
        return Promise.reject({ message, hint: hint ?? null, field: field ?? null });
      }
    },
    { shouldMockEvents: true },
  );
  window.__tackMock = shell;
  return shell;
}
