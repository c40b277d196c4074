import { useUiStore } from "../app/uiStore";
import { Button } from "../primitives/Button";
import { FolderIcon, GearIcon, PlusIcon } from "../primitives/icons";
import { FileList } from "./FileList";
import { SessionList } from "./SessionList";
import { folderName, useWorkspaceStore } from "./workspaceStore";
import "./sidebar.css";

/** Left pane: workspace folder, its sessions, its files. */
export function Sidebar() {
  const cwd = useWorkspaceStore((s) => s.cwd);
  const show = useUiStore((s) => s.show);

  const pick = () => useWorkspaceStore.getState().pickFolder();

  return (
    <nav className="sidebar" aria-label="Workspace">
      <div className="sidebar-brand">
        <span className="brand-mark" aria-hidden="true">◆</span> Tack
      </div>
      <button type="button" className="workspace-button" onClick={() => void pick()} title={cwd ?? undefined} aria-label={cwd ? `Workspace ${cwd}. Change folder` : "Choose a workspace folder"}>
        <FolderIcon />
        <span className="workspace-name">{cwd ? folderName(cwd) : "Choose a folder…"}</span>
        {cwd && (
          <span className="workspace-path mono">
            <bdi>{cwd}</bdi>
          </span>
        )}
      </button>
      <Button variant="secondary" size="sm" icon={<PlusIcon />} className="new-session" onClick={() => show("start")} shortcut="Ctrl+N">
        New session
      </Button>
      <h2 className="sidebar-heading">Sessions</h2>
      <div className="sidebar-scroll scroll-thin">{cwd && <SessionList />}</div>
      {cwd && <FileList />}
      <div className="sidebar-footer">
        <Button variant="ghost" size="sm" icon={<GearIcon />} onClick={() => show("settings")}>
          Settings
        </Button>
      </div>
    </nav>
  );
}
