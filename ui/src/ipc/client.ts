/**
 * Typed calls into the desktop shell.
 *
 * Every command in `bindings.ts` returns `{status:"ok",data}|{status:"error",error}`. The UI
 * mostly wants "the data, or an exception carrying the shell's message and hint", so each
 * call is unwrapped here into a promise that rejects with an {@link IpcError}.
 */
import { commands } from "../bindings";
import type {
  AppError,
  AppInfo,
  ApprovalDecision,
  Exchange,
  ExchangeSummary,
  ExportFormat,
  HarnessInfo,
  InferredHarness,
  KeyState,
  ProviderInput,
  ProviderView,
  QuestionAnswer,
  Rule,
  RuleInput,
  SandboxInfo,
  SessionSummary,
  SessionView,
  StartSessionInput,
} from "./types";

/** A failed command: the shell's message, its hint for the user, and the form field it is about. */
export class IpcError extends Error {
  readonly hint: string | null;
  /** The form field the error is about (e.g. "id"), or null for the whole request. */
  readonly field: string | null;

  constructor(error: AppError) {
    super(error.message);
    this.name = "IpcError";
    this.hint = error.hint;
    this.field = error.field ?? null;
  }
}

type CommandResult<T> = { status: "ok"; data: T } | { status: "error"; error: AppError };

async function unwrap<T>(pending: Promise<CommandResult<T>>): Promise<T> {
  const result = await pending;
  if (result.status === "error") throw new IpcError(result.error);
  return result.data;
}

/** The shell's commands, unwrapped (see the module doc). Names follow docs/ipc.md. */
export const shell = {
  appInfo: (): Promise<AppInfo> => unwrap(commands.appInfo()),
  listProviders: (): Promise<ProviderView[]> => unwrap(commands.listProviders()),
  /** Adds a new provider; an id that exists is refused (error on the `id` field). */
  addProvider: (input: ProviderInput): Promise<ProviderView> => unwrap(commands.addProvider(input)),
  /** Updates an existing provider. */
  saveProvider: (input: ProviderInput): Promise<ProviderView> => unwrap(commands.saveProvider(input)),
  deleteProvider: (id: string): Promise<null> => unwrap(commands.deleteProvider(id)),
  setProviderKey: (id: string, key: string): Promise<KeyState> =>
    unwrap(commands.setProviderKey(id, key)),
  clearProviderKey: (id: string): Promise<KeyState> => unwrap(commands.clearProviderKey(id)),
  listHarnesses: (): Promise<HarnessInfo[]> => unwrap(commands.listHarnesses()),
  pickWorkspace: (): Promise<string | null> => unwrap(commands.pickWorkspace()),
  /** The folder open last (kept by the shell under its data folder), or null when none or gone. */
  lastWorkspace: (): Promise<string | null> => unwrap(commands.lastWorkspace()),
  /** Remembers the open folder for the next start; null forgets it. */
  setLastWorkspace: (cwd: string | null): Promise<null> => unwrap(commands.setLastWorkspace(cwd)),
  workspaceFiles: (cwd: string): Promise<string[]> => unwrap(commands.workspaceFiles(cwd)),
  startSession: (input: StartSessionInput): Promise<SessionView> =>
    unwrap(commands.startSession(input)),
  /** `acceptChangedHeader`: open a log whose header was edited by hand, after the user saw the changes. */
  resumeSession: (sessionId: string, acceptChangedHeader = false): Promise<SessionView> =>
    unwrap(commands.resumeSession(sessionId, acceptChangedHeader ? true : null)),
  sendInput: (sessionId: string, text: string): Promise<null> =>
    unwrap(commands.sendInput(sessionId, text)),
  interrupt: (sessionId: string): Promise<null> => unwrap(commands.interrupt(sessionId)),
  decideApproval: (sessionId: string, approvalId: string, decision: ApprovalDecision): Promise<null> =>
    unwrap(commands.decideApproval(sessionId, approvalId, decision)),
  /** `answers: null` dismisses the questions (the model is told the user declined). */
  answerQuestion: (sessionId: string, questionId: string, answers: QuestionAnswer[] | null): Promise<null> =>
    unwrap(commands.answerQuestion(sessionId, questionId, answers)),
  inferHarness: (providerId: string, model: string | null): Promise<InferredHarness> =>
    unwrap(commands.inferHarness(providerId, model)),
  listSessions: (cwd: string | null): Promise<SessionSummary[]> =>
    unwrap(commands.listSessions(cwd)),
  renameSession: (sessionId: string, title: string): Promise<null> =>
    unwrap(commands.renameSession(sessionId, title)),
  deleteSession: (sessionId: string): Promise<null> => unwrap(commands.deleteSession(sessionId)),
  exportSession: (sessionId: string, format: ExportFormat): Promise<string | null> =>
    unwrap(commands.exportSession(sessionId, format)),
  listExchanges: (sessionId: string): Promise<ExchangeSummary[]> =>
    unwrap(commands.listExchanges(sessionId)),
  getExchange: (sessionId: string, exchangeId: string): Promise<Exchange> =>
    unwrap(commands.getExchange(sessionId, exchangeId)),
  exchangeCurl: (sessionId: string, exchangeId: string): Promise<string> =>
    unwrap(commands.exchangeCurl(sessionId, exchangeId)),
  /** This machine's sandbox mechanism (probed once) and the config's defaults for a new session. */
  sandboxInfo: (): Promise<SandboxInfo> => unwrap(commands.sandboxInfo()),
  /** The saved approval rules (config.toml's `[[rules]]`), in file order. */
  listRules: (): Promise<Rule[]> => unwrap(commands.listRules()),
  /** Saves a rule (the command as typed); returns the rules after the change. */
  addRule: (input: RuleInput): Promise<Rule[]> => unwrap(commands.addRule(input)),
  /** Deletes a rule by value; returns the rules after the change. */
  deleteRule: (rule: Rule): Promise<Rule[]> => unwrap(commands.deleteRule(rule)),
};

/** The message to show for any failure of a shell call. */
export function describeFailure(error: unknown): { message: string; hint: string | null; field: string | null } {
  if (error instanceof IpcError) return { message: error.message, hint: error.hint, field: error.field };
  if (error instanceof Error) return { message: error.message, hint: null, field: null };
  return { message: String(error), hint: null, field: null };
}
