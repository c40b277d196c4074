/**
 * Whether a Tauri shell (or a mock of it) is behind this page. The production build opened
 * in a plain browser has none; the app then explains that instead of failing on every call.
 */
export function hasShell(): boolean {
  return typeof window !== "undefined" && "__TAURI_INTERNALS__" in window;
}
