import { lazy, Suspense, useEffect } from "react";
import { hasShell, subscribeMenuActions, subscribeWorkspaceChanges } from "../ipc";
import { interruptTurn } from "../session/actions";
import { startLiveUpdates } from "../session/live";
import { SessionView } from "../session/SessionView";
import { useSessionStore } from "../session/store";
import { useCatalogStore } from "../settings/catalogStore";
import { StartPanel } from "../start/StartPanel";
import { Toaster } from "../toast/Toaster";
import { Sidebar } from "../workspace/Sidebar";
import { useWorkspaceStore } from "../workspace/workspaceStore";
import { useUiStore } from "./uiStore";
import "./app.css";

// Views not needed at startup load on first use.
const Inspector = lazy(() => import("../inspector/Inspector").then((m) => ({ default: m.Inspector })));
const SettingsView = lazy(() => import("../settings/SettingsView").then((m) => ({ default: m.SettingsView })));

/** The window: sidebar, main view, inspector; boot-time loading and global shortcuts. */
export function App() {
  const view = useUiStore((s) => s.view);
  const inspectorOpen = useUiStore((s) => s.inspectorOpen);
  const hasSession = useSessionStore((s) => s.session !== null);

  useEffect(() => {
    if (!hasShell()) return;
    void useCatalogStore.getState().load();
    void useWorkspaceStore.getState().restore();
    const stopLive = startLiveUpdates();
    const stopFiles = subscribeWorkspaceChanges((change) => {
      if (change.cwd === useWorkspaceStore.getState().cwd) void useWorkspaceStore.getState().refreshFiles();
    });
    const stopMenu = subscribeMenuActions(({ action }) => void runMenuAction(action));
    return () => {
      stopLive();
      stopFiles();
      stopMenu();
    };
  }, []);

  useGlobalShortcuts();

  if (!hasShell()) return <NoShell />;

  const main =
    view === "settings" ? <SettingsView /> : view === "session" && hasSession ? <SessionView /> : <StartPanel />;
  const showInspector = inspectorOpen && view === "session" && hasSession;
  return (
    <div className={`app${showInspector ? " with-inspector" : ""}`}>
      <Sidebar />
      <main className="main" aria-label={view === "settings" ? "Settings" : view === "session" ? "Session" : "Start"}>
        <Suspense fallback={null}>{main}</Suspense>
      </main>
      {showInspector && (
        <Suspense fallback={<aside className="inspector" aria-label="Inspector" />}>
          <Inspector />
        </Suspense>
      )}
      <Toaster />
    </div>
  );
}

/** What the native menu's items do (src-tauri sends their ids as `menu-action`). */
async function runMenuAction(action: string): Promise<void> {
  const ui = useUiStore.getState();
  switch (action) {
    case "new-session":
      ui.show("start");
      return;
    case "toggle-inspector":
      ui.toggleInspector();
      return;
    case "settings":
    case "about":
      ui.show("settings");
      return;
    case "open-folder":
      await useWorkspaceStore.getState().pickFolder();
      return;
  }
}

function useGlobalShortcuts() {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      const mod = event.ctrlKey || event.metaKey;
      const ui = useUiStore.getState();
      if (mod && !event.shiftKey && event.key.toLowerCase() === "i") {
        event.preventDefault();
        ui.toggleInspector();
      } else if (mod && event.key === ",") {
        event.preventDefault();
        ui.show("settings");
      } else if (mod && event.key.toLowerCase() === "n") {
        event.preventDefault();
        ui.show("start");
      } else if (event.key === "Escape" && !mod) {
        const session = useSessionStore.getState();
        // The approval and question dialogs own Esc while open; text fields handle their own.
        if (session.approvals.length > 0 || session.questions.length > 0 || isEditable(event.target)) return;
        if (ui.view === "settings") ui.closeSettings();
        else if (session.session?.running) void interruptTurn();
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, []);
}

function isEditable(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

function NoShell() {
  return (
    <div className="no-shell">
      <h1>Tack</h1>
      <p>
        This page is Tack&apos;s window and needs the desktop app behind it. Start it with <code>tack-desktop</code>, or run the UI
        with the mocked shell: <code>npm run dev</code>.
      </p>
    </div>
  );
}
