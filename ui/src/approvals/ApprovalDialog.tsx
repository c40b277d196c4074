import { useId, useRef, useState, type KeyboardEvent } from "react";
import { DiffView } from "../diff/DiffView";
import type { ApprovalDecision, Risk } from "../ipc";
import { Badge, type BadgeTone } from "../primitives/Badge";
import { Button } from "../primitives/Button";
import { Modal } from "../primitives/Modal";
import { ArmingBar, useArmed } from "../primitives/arming";
import { decideApproval } from "../session/actions";
import { useSessionStore } from "../session/store";
import { commandText } from "../settings/ruleText";
import { runsWhere } from "../sandbox/sandbox";
import { InlineCode } from "../text/InlineCode";
import { Visible } from "../text/Visible";
import { visibleLines } from "../text/visible";
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
  /** The session's workspace, the scope of "this workspace" rules (default: the open session's). */
  workspace?: string;
}

/** Where an "Always …" rule applies. */
type RuleScope = "workspace" | "everywhere";

/**
 * Asks the user about one tool call: the full command (never truncated) or the diff, why
 * the policy asked, and the risk. Focus goes to the dialog itself, not to a button, and
 * nothing can be decided during the arming delay. Shortcuts: Y approve once, A approve for
 * the session (only when offered), N deny (with the reason typed, if any), Esc abort the turn.
 *
 * When the engine suggests a rule, "Always allow …" and "Always deny …" show the exact rule
 * they save (its words and scope: this workspace or every workspace) on the buttons
 * themselves; they have no shortcut, since a rule outlives the session.
 */
export function ApprovalDialog({ pending, queued, onDecide = decideApproval, workspace }: ApprovalDialogProps) {
  const { request } = pending;
  const sessionWorkspace = useSessionStore((s) => s.session?.settings.cwd);
  const ruleWorkspace = workspace ?? sessionWorkspace ?? null;
  const [ruleScope, setRuleScope] = useState<RuleScope>("workspace");
  const offerSession = request.offer_session !== false;
  const suggested = request.suggested_rule && request.suggested_rule.length > 0 ? request.suggested_rule : null;
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
    else if (key === "a") {
      if (offerSession) decide({ type: "approve_for_session" });
    }
    else if (key === "n") deny();
    else if (key === "escape") decide({ type: "abort_turn" });
    // Enter is deliberately not a shortcut: it is the key most likely to be in flight.
  };

  const action = request.action;
  // A second ask after the sandbox refused the command: run it again outside, or keep the failure.
  const escalation = request.escalation ?? null;
  // "This workspace" needs a workspace to name; without one only "every workspace" is offered.
  const scope: RuleScope = ruleWorkspace ? ruleScope : "everywhere";
  const ruleText = suggested ? commandText(suggested) : "";
  const scopeWords = scope === "workspace" ? "in this workspace" : "in every workspace";
  const rule = (decision: "allow" | "deny") => ({
    decision,
    command: suggested ?? [],
    workspace: scope === "workspace" ? ruleWorkspace : null,
  });
  return (
    <Modal labelledBy={titleId} describedBy={descriptionId} role="alertdialog" onKeyDown={onKeyDown} className="approval">
      <header className="approval-header">
        <h2 id={titleId}>{escalation !== null ? "Run outside the sandbox?" : action.type === "exec" ? "Run this command?" : "Write these files?"}</h2>
        <Badge tone={RISK_TONE[request.risk]} className="approval-risk">
          {request.risk} risk
        </Badge>
        {queued > 0 && <span className="approval-queue">+{queued} more waiting</span>}
      </header>
      <div className="approval-body scroll-thin">
        <p id={descriptionId} className="approval-reason">
          <span className="approval-tool mono">{request.tool}</span> — <InlineCode text={request.reason} />
        </p>
        {escalation !== null && (
          <div className="approval-escalation" role="note" aria-label="The sandbox refused">
            <p className="approval-escalation-denial">
              <strong>The sandbox refused:</strong> <InlineCode text={escalation} />
            </p>
            <p className="approval-escalation-what">
              Approving runs the same command again, outside any sandbox, with all your rights. Keeping the failure gives the
              model the sandboxed run&apos;s output.
            </p>
          </div>
        )}
        {action.type === "exec" ? (
          <>
            <pre className="approval-command mono" aria-label="Command" tabIndex={0}>
              <Visible text={action.command} />
            </pre>
            <p className="approval-cwd">
              in <span className="mono"><Visible text={action.cwd} /></span>
            </p>
            <p className={`approval-sandbox${request.sandbox ? "" : " approval-sandbox-none"}`} data-testid="approval-sandbox">
              {runsWhere(request.sandbox)}
            </p>
          </>
        ) : (
          <>
            <ul className="approval-paths" aria-label="Files">
              {action.paths.map((path) => (
                <li key={path} className="mono"><Visible text={path} /></li>
              ))}
            </ul>
            <DiffView diff={visibleLines(action.diff)} path={action.paths[0]} maxHeight={360} />
          </>
        )}
        {suggested && (
          <div className="approval-rule" role="group" aria-label="Save a rule">
            <p className="approval-rule-text">
              Save a rule for <code className="mono"><Visible text={ruleText} /></code>: commands that start with these words, without options
              that write files or run other programs.
            </p>
            <div className="approval-rule-scope" role="radiogroup" aria-label="Rule applies">
              <label>
                <input
                  type="radio"
                  name={`${titleId}-scope`}
                  checked={scope === "workspace"}
                  disabled={!ruleWorkspace}
                  onChange={() => setRuleScope("workspace")}
                />{" "}
                this workspace{ruleWorkspace && <span className="mono muted"> ({ruleWorkspace})</span>}
              </label>
              <label>
                <input type="radio" name={`${titleId}-scope`} checked={scope === "everywhere"} onChange={() => setRuleScope("everywhere")} />{" "}
                all workspaces
              </label>
            </div>
            <div className="approval-rule-actions">
              <Button variant="secondary" size="sm" disabled={!live} onClick={() => decide({ type: "always_deny", rule: rule("deny") })}>
                Always deny <code className="mono"><Visible text={ruleText} /></code> {scopeWords}
              </Button>
              <Button variant="secondary" size="sm" disabled={!live} onClick={() => decide({ type: "always_allow", rule: rule("allow") })}>
                Always allow <code className="mono"><Visible text={ruleText} /></code> {scopeWords}
              </Button>
            </div>
          </div>
        )}
        {escalation === null && (
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
        )}
      </div>
      <footer className="approval-actions">
        <ArmingBar armed={armed} />
        <Button variant="danger" size="md" shortcut="Esc" disabled={!live} onClick={() => decide({ type: "abort_turn" })}>
          Abort turn
        </Button>
        <span className="approval-spacer" />
        <Button variant="secondary" shortcut="N" disabled={!live} onClick={deny}>
          {escalation !== null ? "Keep the failure" : "Deny"}
        </Button>
        {offerSession && (
          <Button variant="secondary" shortcut="A" disabled={!live} onClick={() => decide({ type: "approve_for_session" })}>
            Approve for session
          </Button>
        )}
        <Button variant="primary" shortcut="Y" disabled={!live} onClick={() => decide({ type: "approve_once" })}>
          {escalation !== null ? "Run outside the sandbox" : "Approve once"}
        </Button>
      </footer>
    </Modal>
  );
}
