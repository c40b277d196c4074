import { useEffect, useRef, useState } from "react";
import { describeFailure, shell, type ExportFormat, type SessionSummary } from "../ipc";
import { Button, IconButton } from "../primitives/Button";
import { DownloadIcon, EditIcon, TrashIcon } from "../primitives/icons";
import { ConfirmDialog } from "../primitives/ConfirmDialog";
import { resumeSession } from "../session/actions";
import { useSessionStore } from "../session/store";
import { toast } from "../toast/toastStore";
import { useWorkspaceStore } from "./workspaceStore";
import { counted } from "../text/plural";

/** Past sessions of the workspace, newest first: open, rename, export, delete. */
export function SessionList() {
  const sessions = useWorkspaceStore((s) => s.sessions);
  const loading = useWorkspaceStore((s) => s.sessionsLoading);
  const activeId = useSessionStore((s) => s.session?.id ?? null);
  const [confirming, setConfirming] = useState<SessionSummary | null>(null);

  if (sessions.length === 0) {
    return <p className="sidebar-empty">{loading ? "Loading…" : "No sessions in this folder yet."}</p>;
  }
  return (
    <>
      <ul className="session-list" aria-label="Sessions">
        {sessions.map((session) => (
          <SessionItem key={session.id} session={session} active={session.id === activeId} onDelete={() => setConfirming(session)} />
        ))}
      </ul>
      {confirming && <ConfirmDelete session={confirming} onClose={() => setConfirming(null)} />}
    </>
  );
}

function SessionItem({ session, active, onDelete }: { session: SessionSummary; active: boolean; onDelete: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const [exporting, setExporting] = useState(false);
  return (
    <li className={`session-item${active ? " active" : ""}`}>
      {renaming ? (
        <RenameField session={session} onDone={() => setRenaming(false)} />
      ) : (
        <button type="button" className="session-open" aria-current={active ? "true" : undefined} onClick={() => void resumeSession(session.id)}>
          <span className="session-title">{session.title || "Untitled session"}</span>
          <span className="session-meta">
            {relativeTime(session.updatedAt)} · {counted(session.itemCount, "item")}
          </span>
        </button>
      )}
      {!renaming && (
        <span className="session-actions">
          <IconButton label={`Rename ${session.title}`} onClick={() => setRenaming(true)}>
            <EditIcon />
          </IconButton>
          <IconButton label={`Export ${session.title}`} aria-expanded={exporting} onClick={() => setExporting(!exporting)}>
            <DownloadIcon />
          </IconButton>
          <IconButton label={`Delete ${session.title}`} onClick={onDelete}>
            <TrashIcon />
          </IconButton>
        </span>
      )}
      {exporting && <ExportMenu session={session} onDone={() => setExporting(false)} />}
    </li>
  );
}

function RenameField({ session, onDone }: { session: SessionSummary; onDone: () => void }) {
  const [title, setTitle] = useState(session.title);
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    ref.current?.select();
  }, []);
  const save = async () => {
    const next = title.trim();
    onDone();
    if (!next || next === session.title) return;
    try {
      await shell.renameSession(session.id, next);
      if (useSessionStore.getState().session?.id === session.id) useSessionStore.getState().rename(next);
      await useWorkspaceStore.getState().refreshSessions();
    } catch (error) {
      const { message, hint } = describeFailure(error);
      toast.error(`Could not rename: ${message}`, hint);
    }
  };
  return (
    <input
      ref={ref}
      className="input session-rename"
      aria-label="Session title"
      value={title}
      onChange={(e) => setTitle(e.target.value)}
      onBlur={() => void save()}
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          void save();
        } else if (e.key === "Escape") {
          e.preventDefault();
          onDone();
        }
      }}
    />
  );
}

function ExportMenu({ session, onDone }: { session: SessionSummary; onDone: () => void }) {
  const run = async (format: ExportFormat) => {
    onDone();
    try {
      const path = await shell.exportSession(session.id, format);
      if (path) toast.success("Exported", path);
    } catch (error) {
      const { message, hint } = describeFailure(error);
      toast.error(`Could not export: ${message}`, hint);
    }
  };
  return (
    <div className="export-menu" role="group" aria-label="Export format">
      <Button size="sm" onClick={() => void run("jsonl")}>
        JSONL
      </Button>
      <Button size="sm" onClick={() => void run("markdown")}>
        Markdown
      </Button>
    </div>
  );
}

function ConfirmDelete({ session, onClose }: { session: SessionSummary; onClose: () => void }) {
  const remove = async () => {
    onClose();
    try {
      await shell.deleteSession(session.id);
      if (useSessionStore.getState().session?.id === session.id) useSessionStore.getState().close();
      await useWorkspaceStore.getState().refreshSessions();
      toast.success("Session deleted");
    } catch (error) {
      const { message, hint } = describeFailure(error);
      toast.error(`Could not delete: ${message}`, hint);
    }
  };
  return (
    <ConfirmDialog title="Delete this session?" confirmLabel="Delete" onConfirm={() => void remove()} onCancel={onClose}>
      “{session.title || "Untitled session"}” and its exchange records will be removed from disk. This cannot be undone.
    </ConfirmDialog>
  );
}

/** "just now", "5 min ago", "3 h ago", "yesterday", else the date. */
export function relativeTime(rfc3339: string, now = Date.now()): string {
  const t = new Date(rfc3339).getTime();
  if (Number.isNaN(t)) return rfc3339;
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 172_800) return "yesterday";
  return new Date(t).toLocaleDateString();
}
