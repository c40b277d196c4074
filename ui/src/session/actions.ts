/**
 * User actions on sessions: each calls the shell and updates the stores.
 * Failures become toasts carrying the shell's message and hint.
 */
import {
  describeFailure,
  shell,
  type ApprovalDecision,
  type StartSessionInput,
} from "../ipc";
import { useUiStore } from "../app/uiStore";
import { toast } from "../toast/toastStore";
import { useWorkspaceStore } from "../workspace/workspaceStore";
import { useSessionStore } from "./store";

function fail(what: string, error: unknown): void {
  const { message, hint } = describeFailure(error);
  toast.error(`${what}: ${message}`, hint);
}

export async function startSession(input: StartSessionInput): Promise<boolean> {
  try {
    const view = await shell.startSession(input);
    useSessionStore.getState().open(view);
    useWorkspaceStore.getState().setCwd(input.cwd);
    useUiStore.getState().show("session");
    void useWorkspaceStore.getState().refreshSessions();
    return true;
  } catch (error) {
    fail("Could not start the session", error);
    return false;
  }
}

export async function resumeSession(sessionId: string): Promise<void> {
  try {
    const view = await shell.resumeSession(sessionId);
    useSessionStore.getState().open(view);
    useWorkspaceStore.getState().setCwd(view.settings.cwd);
    useUiStore.getState().show("session");
  } catch (error) {
    fail("Could not open the session", error);
  }
}

/** Sends text: starts a turn, or steers the running one (the engine queues it). */
export async function sendMessage(text: string): Promise<void> {
  const session = useSessionStore.getState().session;
  if (!session || !text.trim()) return;
  const rowId = useSessionStore.getState().addLocalInput(text);
  try {
    await shell.sendInput(session.id, text);
  } catch (error) {
    useSessionStore.getState().failLocalInput(rowId);
    fail("Message not sent", error);
  }
}

export async function interruptTurn(): Promise<void> {
  const session = useSessionStore.getState().session;
  if (!session?.running) return;
  try {
    await shell.interrupt(session.id);
  } catch (error) {
    fail("Could not stop the turn", error);
  }
}

/** Answers an approval; resolves to whether the shell accepted the decision. */
export async function decideApproval(approvalId: string, decision: ApprovalDecision): Promise<boolean> {
  const session = useSessionStore.getState().session;
  if (!session) return false;
  try {
    await shell.decideApproval(session.id, approvalId, decision);
    useSessionStore.getState().dropApproval(approvalId);
    return true;
  } catch (error) {
    fail("Could not send the decision", error);
    return false;
  }
}
