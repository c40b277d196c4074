/**
 * What "auto" picked, and why, for the sessions started from this window with the harness
 * left on auto. The shell records only the harness a session runs with, so the window keeps
 * the explanation itself (localStorage, by session id) to show it again when the session is
 * reopened.
 */
import type { InferredHarness } from "../ipc";

const KEY = "tack.autoHarness";
/** Oldest entries are dropped beyond this many sessions. */
const LIMIT = 200;

type Remembered = Record<string, InferredHarness>;

function load(): Remembered {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KEY) ?? "{}");
    return parsed && typeof parsed === "object" ? (parsed as Remembered) : {};
  } catch {
    return {};
  }
}

/** Remembers that `sessionId` was started on auto, which picked `inferred`. */
export function rememberAutoHarness(sessionId: string, inferred: InferredHarness): void {
  try {
    const all = load();
    delete all[sessionId];
    all[sessionId] = { harness: inferred.harness, reason: inferred.reason };
    const ids = Object.keys(all);
    for (const old of ids.slice(0, Math.max(0, ids.length - LIMIT))) delete all[old];
    localStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    // No storage: the explanation is shown until the window closes only.
  }
}

/** What auto picked for `sessionId`, if it was started on auto from this window. */
export function recallAutoHarness(sessionId: string): InferredHarness | null {
  return load()[sessionId] ?? null;
}
