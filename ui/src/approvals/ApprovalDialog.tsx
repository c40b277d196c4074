import { useId, useRef, useState, type KeyboardEvent } from "react";
import { DiffView } from "../diff/DiffView";
import type { ApprovalDecision, Risk } from "../ipc";
import { Badge, type BadgeTone } from "../primitives/Badge";
import { Button } from "../primitives/Button";
import { Modal } from "../primitives/Modal";
import { ArmingBar, useArmed } from "../primitives/arming";
import { decideApproval } from "../session/actions";
import { InlineCode } from "../text/InlineCode";
import type { PendingApproval } from "../session/timeline";
import "./approvals.css";

export { ARMING_DELAY_MS } from "../primitives/arming";

const RISK_TONE: Record<Risk, BadgeTone> = { low: "success", medium: "warning", high: "danger" };

export interface ApprovalDialogProps {
  pending: PendingApproval;
  /** How many more approvals wait behind this one. */
  queued: number;
  /** Sends the decision; resolves to whether it was accepted. */
  onDecide?: (approvalId: string, decision: ApprovalDecision) => Promise<boolean>;
}

/**
 * Asks the user about one tool call: the full command (never truncated) or the diff, why
 * the policy asked, and the risk. Focus goes to the dialog itself, not to a button, and
 * nothing can be decided during the arming delay. Shortcuts: Y approve once, A approve for
 * the session, N deny (with the reason typed, if any), Esc abort the turn.
 */
export function ApprovalDialog({ pending, queued, onDecide = decideApproval }: ApprovalDialogProps) {
  const { request } = pending;
  const armed = useArmed();
  const [busy, setBusy] = useState(false);
  const [reason, setReason] = useState("");
  const titleId = useId();
  const descriptionId = useId();
  const reasonRef = useRef<HTMLTextAreaElement>(null);

  const live = armed && !busy;

  const decide = (decision: ApprovalDecision) => {
    if (!live) return;
    setBusy(true);
    void onDecide(request.id, decision).then((accepted) => {
      if (!accepted) setBusy(false);
    });
  };

  const deny = () => decide({ type: "deny", reason: reason.trim() });

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const inReason = event.target === reasonRef.current;
    if (inReason) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        deny();
      } else if (event.key === "Escape") {
        // Leave the field; a second Esc aborts.
        event.preventDefault();
        (event.currentTarget as HTMLElement).focus();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key.toLowerCase();
    const handled = key === "y" || key === "a" || key === "n" || key === "escape" || key === "enter";
    if (!handled) return;
    // Swallow these keys even while disarmed: they must not reach anything behind the dialog.
    event.preventDefault();
    event.stopPropagation();
    if (event.repeat || !live) return;
    if (key === "y") decide({ type: "approve_once" });
    else if (key === "a") decide({ type: "approve_for_session" });
    else if (key === "n") deny();
    else if (key === "escape") decide({ type: "abort_turn" });
    // Enter is deliberately not a shortcut: it is the key most likely to be in flight.
  };

  const action = request.action;
  return (
    <Modal labelledBy={titleId} describedBy={descriptionId} role="alertdialog" onKeyDown={onKeyDown} className="approval">
      <header className="approval-header">
        <h2 id={titleId}>{action.type === "exec" ? "Run this command?" : "Write these files?"}</h2>
        <Badge tone={RISK_TONE[request.risk]} className="approval-risk">
          {request.risk} risk
        </Badge>
        {queued > 0 && <span className="approval-queue">+{queued} more waiting</span>}
      </header>
      <div className="approval-body scroll-thin">
        <p id={descriptionId} className="approval-reason">
          <span className="approval-tool mono">{request.tool}</span> — <InlineCode text={request.reason} />
        </p>
        {action.type === "exec" ? (
          <>
            <pre className="approval-command mono" aria-label="Command" tabIndex={0}>
              {action.command}
            </pre>
            <p className="approval-cwd">
              in <span className="mono">{action.cwd}</span>
            </p>
          </>
        ) : (
          <>
            <ul className="approval-paths" aria-label="Files">
              {action.paths.map((path) => (
                <li key={path} className="mono">{path}</li>
              ))}
            </ul>
            <DiffView diff={action.diff} path={action.paths[0]} maxHeight={360} />
          </>
        )}
        <label className="field approval-deny-field">
          <span className="field-label">Reason if you deny <span className="muted">(sent to the model)</span></span>
          <textarea
            ref={reasonRef}
            className="textarea"
            rows={2}
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            placeholder="e.g. don't touch the lockfile; use the existing helper instead"
          />
        </label>
      </div>
      <footer className="approval-actions">
        <ArmingBar armed={armed} />
        <Button variant="danger" size="md" shortcut="Esc" disabled={!live} onClick={() => decide({ type: "abort_turn" })}>
          Abort turn
        </Button>
        <span className="approval-spacer" />
        <Button variant="secondary" shortcut="N" disabled={!live} onClick={deny}>
          Deny
        </Button>
        <Button variant="secondary" shortcut="A" disabled={!live} onClick={() => decide({ type: "approve_for_session" })}>
          Approve for session
        </Button>
        <Button variant="primary" shortcut="Y" disabled={!live} onClick={() => decide({ type: "approve_once" })}>
          Approve once
        </Button>
      </footer>
    </Modal>
  );
}
