import { useId, useState } from "react";
import { ChevronIcon, FileIcon } from "../primitives/icons";
import { useWorkspaceStore } from "./workspaceStore";

/** Files of the workspace (collapsible); refreshed when the shell reports outside changes. */
export function FileList() {
  const files = useWorkspaceStore((s) => s.files);
  const [open, setOpen] = useState(false);
  const listId = useId();
  return (
    <section className="file-section">
      <button type="button" className="sidebar-heading-button" aria-expanded={open} aria-controls={listId} onClick={() => setOpen(!open)}>
        <ChevronIcon className={`chevron${open ? " chevron-open" : ""}`} />
        Files <span className="muted">{files.length}</span>
      </button>
      {open && (
        <ul className="file-list scroll-thin" id={listId} aria-label="Workspace files">
          {files.map((path) => (
            <li key={path} className="file-item mono" title={path}>
              <FileIcon />
              <span>{path}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
