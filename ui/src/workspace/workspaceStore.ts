/**
 * The workspace folder, its past sessions and its file list. The shell remembers the folder
 * across starts (under Tack's data folder, so each TACK_HOME has its own).
 */
import { create } from "zustand";
import { describeFailure, shell, type SessionSummary } from "../ipc";
import { toast } from "../toast/toastStore";

export interface WorkspaceState {
  cwd: string | null;
  sessions: SessionSummary[];
  sessionsLoading: boolean;
  files: string[];
  filesLoading: boolean;
  setCwd(cwd: string | null): void;
  /**
   * Opens the folder the shell remembers from the last start, unless a folder was opened
   * meanwhile. A remembered folder that no longer exists comes back as none: the start panel
   * then asks for one.
   */
  restore(): Promise<void>;
  /**
   * Asks for a folder with the native dialog and opens it. While a dialog is open, further
   * requests are ignored (the dialog is not modal on every platform; the shell guards too).
   */
  pickFolder(): Promise<void>;
  refreshSessions(): Promise<void>;
  refreshFiles(): Promise<void>;
}

/** A folder dialog is open. */
let picking = false;

/** Shows `cwd` (its sessions and files load) without remembering it. */
function open(cwd: string | null): void {
  useWorkspaceStore.setState({ cwd, sessions: [], files: [] });
  void useWorkspaceStore.getState().refreshSessions();
  void useWorkspaceStore.getState().refreshFiles();
}

export const useWorkspaceStore = create<WorkspaceState>()((set, get) => ({
  cwd: null,
  sessions: [],
  sessionsLoading: false,
  files: [],
  filesLoading: false,

  setCwd(cwd) {
    if (cwd === get().cwd) return;
    open(cwd);
    shell.setLastWorkspace(cwd).catch((error: unknown) => {
      // The folder is open either way; only the next start would not reopen it.
      const { message, hint } = describeFailure(error);
      toast.error(message, hint);
    });
  },

  async restore() {
    let remembered: string | null;
    try {
      remembered = await shell.lastWorkspace();
    } catch (error) {
      const { message, hint } = describeFailure(error);
      toast.error(`Could not read the last workspace: ${message}`, hint);
      return;
    }
    // A folder picked while the shell answered wins.
    if (remembered && get().cwd === null) open(remembered);
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
