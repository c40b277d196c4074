import { useId, type ReactNode } from "react";
import { Button } from "./Button";
import { Modal } from "./Modal";

export interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Asks before a destructive action. Esc or Cancel backs out; nothing is pre-focused. */
export function ConfirmDialog({ title, children, confirmLabel, onConfirm, onCancel }: ConfirmDialogProps) {
  const titleId = useId();
  const textId = useId();
  return (
    <Modal labelledBy={titleId} describedBy={textId} role="alertdialog" onDismiss={onCancel} className="confirm">
      <div className="confirm-body">
        <h2 id={titleId}>{title}</h2>
        <div id={textId} className="confirm-text">
          {children}
        </div>
      </div>
      <footer className="confirm-actions">
        <Button onClick={onCancel}>Cancel</Button>
        <Button variant="danger" onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </footer>
    </Modal>
  );
}
