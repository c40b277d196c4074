import { useEffect, useId, useState } from "react";
import { describeFailure, shell } from "../ipc";
import type { ApprovalPolicy, SandboxInfo, SandboxMode } from "../ipc";
import { mechanismLine, SANDBOX_MODES } from "../sandbox/sandbox";

export type SandboxProbe =
  | { status: "loading" }
  | { status: "ready"; info: SandboxInfo }
  | { status: "error"; message: string };

/** This machine's sandbox (`sandboxInfo`: the engine's probe and the config's defaults). */
export function useSandboxInfo(): SandboxProbe {
  const [probe, setProbe] = useState<SandboxProbe>({ status: "loading" });
  useEffect(() => {
    let live = true;
    shell
      .sandboxInfo()
      .then((info) => live && setProbe({ status: "ready", info }))
      .catch((error: unknown) => live && setProbe({ status: "error", message: describeFailure(error).message }));
    return () => {
      live = false;
    };
  }, []);
  return probe;
}

export interface SandboxPickerProps {
  mode: SandboxMode;
  network: boolean;
  probe: SandboxProbe;
  /** The approval policy picked beside it: the summary says what the two do together. */
  approval: ApprovalPolicy;
  onMode: (mode: SandboxMode) => void;
  onNetwork: (network: boolean) => void;
}

/**
 * The sandbox of the new session: the mode (full access marked dangerous), network for
 * sandboxed commands (off by default), what this machine contains commands with, and one
 * sentence saying what the approval policy and the sandbox do together.
 */
export function SandboxPicker({ mode, network, probe, approval, onMode, onNetwork }: SandboxPickerProps) {
  const lineId = useId();
  const togetherId = useId();
  const info = probe.status === "ready" ? probe.info : null;
  const noMechanism = info?.mechanism === "none";
  const uncontained = noMechanism || mode === "danger-full-access";
  return (
    <fieldset className="start-sandbox" aria-describedby={`${lineId} ${togetherId}`}>
      <legend className="field-label">Sandbox</legend>
      <p id={lineId} className={`sandbox-mechanism${noMechanism || probe.status === "error" ? " sandbox-mechanism-none" : ""}`} data-testid="sandbox-mechanism">
        {probe.status === "loading" && <span className="muted">Checking which sandbox this machine has…</span>}
        {probe.status === "error" && <>Could not check the sandbox: {probe.message}</>}
        {info && mechanismLine(info.mechanism, info.summary)}
      </p>
      <div className="start-sandbox-modes" role="radiogroup" aria-label="Sandbox mode">
        {SANDBOX_MODES.map((choice) => (
          <label
            key={choice.id}
            className={`policy${mode === choice.id ? " policy-selected" : ""}${choice.dangerous ? " policy-never" : ""}`}
          >
            <input type="radio" name="sandbox" value={choice.id} checked={mode === choice.id} onChange={() => onMode(choice.id)} />
            <span className="policy-title">{choice.title}</span>
            <span className="policy-text">{choice.text}</span>
          </label>
        ))}
      </div>
      <label className="sandbox-network">
        <input type="checkbox" checked={network && !uncontained} disabled={uncontained} onChange={(e) => onNetwork(e.target.checked)} />
        <span>
          Network for sandboxed commands{" "}
          <span className="muted">{uncontained ? "(not restricted without a sandbox)" : network ? "(on)" : "(off)"}</span>
        </span>
      </label>
      {info && info.writableRoots.length > 0 && mode === "workspace-write" && (
        <p className="sandbox-roots">
          Also writable: {info.writableRoots.map((root, i) => (
            <span key={root}>
              {i > 0 && ", "}
              <span className="mono">{root}</span>
            </span>
          ))}
        </p>
      )}
      <p id={togetherId} className={`sandbox-together${uncontained ? " start-warning" : ""}`} data-testid="sandbox-together">
        {together(approval, mode, noMechanism)}
      </p>
    </fieldset>
  );
}

/** What the approval policy and the sandbox do together, in one sentence. */
export function together(approval: ApprovalPolicy, mode: SandboxMode, noMechanism: boolean): string {
  if (noMechanism) {
    return approval === "never"
      ? "Without a sandbox every command still asks first, and runs with all your rights once approved."
      : "Every command asks first, and runs with all your rights once approved.";
  }
  if (mode === "danger-full-access") {
    return approval === "never"
      ? "Every command runs at once with all your rights: nothing asks, nothing contains it."
      : "Commands the policy lets through run with all your rights, outside any sandbox.";
  }
  const inside = `run in the ${mode} sandbox`;
  const escalation = approval === "never" ? "a refusal by the sandbox stands" : "when the sandbox refuses something, Tack asks before running it again outside";
  if (approval === "untrusted") return `Known read-only commands run in the read-only sandbox; the rest ask first, then ${inside}; ${escalation}.`;
  return `Commands that run without asking ${inside}; ${escalation}.`;
}
