/**
 * User actions on sessions: each calls the shell and updates the stores.
 * Failures become toasts carrying the shell's message and hint.
 */
import {
  describeFailure,
  shell,
  type ApprovalDecision,
  type InferredHarness,
  type QuestionAnswer,
  type StartSessionInput,
} from "../ipc";
import { useUiStore } from "../app/uiStore";
import { rememberAutoHarness } from "../harness/autoHarness";
import { toast } from "../toast/toastStore";
import { useWorkspaceStore } from "../workspace/workspaceStore";
import { useSessionStore } from "./store";

function fail(what: string, error: unknown): void {
  const { message, hint } = describeFailure(error);
  toast.error(`${what}: ${message}`, hint);
}

/**
 * Starts a session. `auto` is what the harness picker showed for "auto" when the harness was
 * left on auto; the session header keeps showing it (if the shell indeed picked that harness).
 */
export async function startSession(input: StartSessionInput, auto: InferredHarness | null = null): Promise<boolean> {
  try {
    const view = await shell.startSession(input);
    if (auto && input.harness === null && auto.harness === view.settings.harness) rememberAutoHarness(view.id, auto);
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

export async function resumeSession(sessionId: string, acceptChangedHeader = false): Promise<void> {
  try {
    const view = await shell.resumeSession(sessionId, acceptChangedHeader);
    useSessionStore.getState().open(view);
    useWorkspaceStore.getState().setCwd(view.settings.cwd);
    useUiStore.getState().show("session");
    // Shown, not live: say why (another process writes it, its provider is gone…).
    if (view.readOnly) toast.info("This session is read-only", view.readOnly);
  } catch (error) {
    const { message, hint, field } = describeFailure(error);
    // A log edited by hand: list the changes and open it only if the user accepts them.
    if (field === "header_changes" && !acceptChangedHeader) {
      if (window.confirm(`${message}\n\n${hint ?? ""}\n\nOpen the session with these settings?`)) {
        await resumeSession(sessionId, true);
      }
      return;
    }
    toast.error(`Could not open the session: ${message}`, hint);
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

/**
 * Answers a tool call's questions (`answers`), or dismisses them (`null`: the model is told
 * the user declined). Resolves to whether the shell took it.
 */
export async function answerQuestion(requestId: string, answers: QuestionAnswer[] | null): Promise<boolean> {
  const session = useSessionStore.getState().session;
  if (!session) return false;
  try {
    await shell.answerQuestion(session.id, requestId, answers);
    useSessionStore.getState().settleQuestion(requestId, answers);
    return true;
  } catch (error) {
    fail(answers === null ? "Could not dismiss the questions" : "Could not send the answers", error);
    return false;
  }
}
