import { useEffect, useRef, type KeyboardEvent, type ReactNode } from "react";
import "./primitives.css";

export interface ModalProps {
  /** id of the element naming the dialog. */
  labelledBy: string;
  describedBy?: string;
  /** `alertdialog` for decisions that interrupt work (approvals, confirmations). */
  role?: "dialog" | "alertdialog";
  onDismiss?: () => void;
  className?: string;
  children: ReactNode;
  /** Extra key handling on the dialog (runs before Tab trapping). */
  onKeyDown?: (event: KeyboardEvent<HTMLDivElement>) => void;
}

/**
 * A modal dialog: scrim, focus moved to the dialog *container* (never to a button, so a
 * keystroke in flight cannot press one), Tab kept inside, focus restored on close.
 */
export function Modal({ labelledBy, describedBy, role = "dialog", onDismiss, className, children, onKeyDown }: ModalProps) {
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    ref.current?.focus();
    return () => {
      if (previous && document.contains(previous)) previous.focus();
    };
  }, []);

  const handleKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    onKeyDown?.(event);
    if (event.defaultPrevented) return;
    if (event.key === "Escape" && onDismiss) {
      event.preventDefault();
      onDismiss();
      return;
    }
    if (event.key === "Tab") trapTab(event, ref.current);
  };

  return (
    <div className="modal-scrim">
      <div
        ref={ref}
        className={`modal${className ? ` ${className}` : ""}`}
        role={role}
        aria-modal="true"
        aria-labelledby={labelledBy}
        aria-describedby={describedBy}
        tabIndex={-1}
        onKeyDown={handleKeyDown}
      >
        {children}
      </div>
    </div>
  );
}

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function trapTab(event: KeyboardEvent<HTMLDivElement>, container: HTMLElement | null): void {
  if (!container) return;
  const items = Array.from(container.querySelectorAll<HTMLElement>(FOCUSABLE));
  if (items.length === 0) {
    event.preventDefault();
    return;
  }
  const first = items[0];
  const last = items[items.length - 1];
  const active = document.activeElement;
  if (event.shiftKey && (active === first || active === container)) {
    event.preventDefault();
    last?.focus();
  } else if (!event.shiftKey && active === last) {
    event.preventDefault();
    first?.focus();
  }
}
