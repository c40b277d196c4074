/**
 * The sandbox in words, the same everywhere in the window: the start panel's picker, the
 * session header's badge, the approval dialog's "runs in …" line and the tool card's
 * "ran in …" line. Modes and mechanisms are the protocol's (crates/protocol sandbox.rs).
 */
import type { ApprovalPolicy, SandboxMechanism, SandboxMode, SandboxStatus } from "../ipc";

export interface SandboxModeChoice {
  id: SandboxMode;
  title: string;
  text: string;
  /** Commands run uncontained: the picker marks it loudly. */
  dangerous: boolean;
}

/** The modes in the order the start panel offers them. */
export const SANDBOX_MODES: readonly SandboxModeChoice[] = [
  {
    id: "read-only",
    title: "Read-only",
    text: "Commands may read the disk but change nothing; only a private /tmp is writable.",
    dangerous: false,
  },
  {
    id: "workspace-write",
    title: "Workspace write",
    text: "Commands may change the workspace; the rest of the disk, .git hooks and config stay read-only.",
    dangerous: false,
  },
  {
    id: "danger-full-access",
    title: "Full access (dangerous)",
    text: "No sandbox: commands run with all your rights, network included.",
    dangerous: true,
  },
];

/** Whether commands really run contained: a mechanism works and the mode is not full access. */
export function contains(status: Pick<SandboxStatus, "mechanism" | "mode">): boolean {
  return status.mechanism !== "none" && status.mode !== "danger-full-access";
}

/** "the workspace-write sandbox", or "no sandbox" for commands that run outside one. */
export function sandboxName(mode: SandboxMode | null | undefined): string {
  if (!mode || mode === "danger-full-access") return "no sandbox";
  return `the ${mode} sandbox`;
}

/** Where an approved command will run (the approval dialog). */
export function runsWhere(mode: SandboxMode | null | undefined): string {
  if (!mode || mode === "danger-full-access") return "Runs WITHOUT a sandbox once approved: with all your rights, network included.";
  return `Runs in the ${mode} sandbox once approved.`;
}

/** Where a finished command ran (the tool card). */
export function ranWhere(mode: SandboxMode | null | undefined): string {
  if (!mode || mode === "danger-full-access") return "ran without a sandbox";
  return `ran in the ${mode} sandbox`;
}

/** The mechanism as a short name. */
export function mechanismName(mechanism: SandboxMechanism): string {
  switch (mechanism) {
    case "bubblewrap":
      return "bubblewrap";
    case "landlock-seccomp":
      return "Landlock + seccomp";
    case "none":
      return "no sandbox";
  }
}

/**
 * The probe's summary as a sentence for people: "bubblewrap 0.8.0 (…)" stays as it is; "no
 * sandbox: bwrap not found (…); every command asks" reads "No sandbox on this machine: bwrap
 * not found (…); every command asks".
 */
export function mechanismLine(mechanism: SandboxMechanism, summary: string): string {
  if (mechanism !== "none") return summary;
  const reason = summary.replace(/^no sandbox:\s*/i, "");
  return `No sandbox on this machine: ${reason}`;
}

export interface GuardBadge {
  /** "untrusted · workspace-write sandbox · network off". */
  text: string;
  /** Red: commands run uncontained (full access, or no mechanism) or without asking (`never`). */
  danger: boolean;
  /** The tooltip: the policy, the sandbox's summary and the network. */
  title: string;
}

const POLICY_WORDS: Record<ApprovalPolicy, string> = {
  untrusted: "asks before anything but reads",
  "on-request": "asks before risky actions",
  never: "never asks",
};

/** The session header's one badge for the approval policy and the sandbox together. */
export function guardBadge(approval: ApprovalPolicy, sandbox: SandboxStatus | null | undefined): GuardBadge {
  const policy = `Approval policy ${approval}: ${POLICY_WORDS[approval]}.`;
  if (!sandbox) return { text: approval, danger: approval === "never", title: policy };
  const network = `network ${sandbox.network ? "on" : "off"}`;
  let where: string;
  if (sandbox.mode === "danger-full-access") where = "no sandbox (full access)";
  else if (sandbox.mechanism === "none") where = "no sandbox on this machine";
  else where = `${sandbox.mode} sandbox · ${network}`;
  const contained = contains(sandbox);
  const networkNote = contained ? ` Sandboxed commands ${sandbox.network ? "may" : "may not"} use the network.` : "";
  return {
    text: `${approval} · ${where}`,
    danger: approval === "never" || !contained,
    title: `${policy} Sandbox: ${sandbox.summary.replace(/\.$/, "")}.${networkNote}`,
  };
}
