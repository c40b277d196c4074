/**
 * The workspace folder, its past sessions and its file list.
 */
import { create } from "zustand";
import { describeFailure, shell, type SessionSummary } from "../ipc";
import { toast } from "../toast/toastStore";

const STORAGE_KEY = "tack.workspace";

export interface WorkspaceState {
  cwd: string | null;
  sessions: SessionSummary[];
  sessionsLoading: boolean;
  files: string[];
  filesLoading: boolean;
  setCwd(cwd: string | null): void;
  /**
   * Asks for a folder with the native dialog and opens it. While a dialog is open, further
   * requests are ignored (the dialog is not modal on every platform; the shell guards too).
   */
  pickFolder(): Promise<void>;
  refreshSessions(): Promise<void>;
  refreshFiles(): Promise<void>;
}

function storedCwd(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** A folder dialog is open. */
let picking = false;

export const useWorkspaceStore = create<WorkspaceState>()((set, get) => ({
  cwd: storedCwd(),
  sessions: [],
  sessionsLoading: false,
  files: [],
  filesLoading: false,

  setCwd(cwd) {
    if (cwd === get().cwd) return;
    try {
      if (cwd) localStorage.setItem(STORAGE_KEY, cwd);
      else localStorage.removeItem(STORAGE_KEY);
    } catch {
      // Storage can be unavailable (private mode); the folder is then only remembered in memory.
    }
    set({ cwd, sessions: [], files: [] });
    void get().refreshSessions();
    void get().refreshFiles();
  },

  async pickFolder() {
    if (picking) return;
    picking = true;
    try {
      const folder = await shell.pickWorkspace();
      if (folder) get().setCwd(folder);
    } catch (error) {
      const { message, hint } = describeFailure(error);
      toast.error(`Could not open the folder dialog: ${message}`, hint);
    } finally {
      picking = false;
    }
  },

  async refreshSessions() {
    const cwd = get().cwd;
    if (!cwd) return;
    set({ sessionsLoading: true });
    try {
      const sessions = await shell.listSessions(cwd);
      if (get().cwd === cwd) set({ sessions });
    } catch (error) {
      const { message, hint } = describeFailure(error);
      toast.error(`Could not list sessions: ${message}`, hint);
    } finally {
      set({ sessionsLoading: false });
    }
  },

  async refreshFiles() {
    const cwd = get().cwd;
    if (!cwd) return;
    set({ filesLoading: true });
    try {
      const files = await shell.workspaceFiles(cwd);
      if (get().cwd === cwd) set({ files });
    } catch (error) {
      const { message, hint } = describeFailure(error);
      toast.error(`Could not list files: ${message}`, hint);
    } finally {
      set({ filesLoading: false });
    }
  },
}));

/** The last path segment of a folder, for compact display. */
export function folderName(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, "");
  const at = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
  return at >= 0 ? trimmed.slice(at + 1) || trimmed : trimmed;
}
