/** The recorded engine event streams (e2e/fixtures) the mock replays, each typed where it is written. */
import errorTurn from "../fixtures/error-turn";
import fileEdit from "../fixtures/file-edit";
import interrupted from "../fixtures/interrupted";
import pastSession from "../fixtures/past-session";
import pendingSession from "../fixtures/pending-session";
import question from "../fixtures/question";
import resumeApproval from "../fixtures/resume-approval";
import shellApprove from "../fixtures/shell-approve";
import shellDeny from "../fixtures/shell-deny";
import shellEscalation from "../fixtures/shell-escalation";
import shellHidden from "../fixtures/shell-hidden";
import shellRule from "../fixtures/shell-rule";
import textProtocol from "../fixtures/text-protocol";
import textStream from "../fixtures/text-stream";
import todos from "../fixtures/todos";
import type { PastSession, Recording } from "./backend";

export const RECORDINGS: Record<string, Recording> = {
  "text-stream": textStream,
  "shell-approve": shellApprove,
  "shell-deny": shellDeny,
  "shell-rule": shellRule,
  "shell-escalation": shellEscalation,
  "shell-hidden": shellHidden,
  interrupted: interrupted,
  "file-edit": fileEdit,
  "error-turn": errorTurn,
  question: question,
  todos: todos,
  "text-protocol": textProtocol,
  "resume-approval": resumeApproval,
};

export const PAST_SESSIONS: PastSession[] = [pastSession, pendingSession];
