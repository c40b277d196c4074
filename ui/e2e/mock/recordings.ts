/** The recorded engine event streams (e2e/fixtures) the mock replays. */
import errorTurn from "../fixtures/error-turn.json";
import fileEdit from "../fixtures/file-edit.json";
import interrupted from "../fixtures/interrupted.json";
import pastSession from "../fixtures/past-session.json";
import pendingSession from "../fixtures/pending-session.json";
import question from "../fixtures/question.json";
import resumeApproval from "../fixtures/resume-approval.json";
import shellApprove from "../fixtures/shell-approve.json";
import shellDeny from "../fixtures/shell-deny.json";
import shellEscalation from "../fixtures/shell-escalation.json";
import shellRule from "../fixtures/shell-rule.json";
import textProtocol from "../fixtures/text-protocol.json";
import textStream from "../fixtures/text-stream.json";
import todos from "../fixtures/todos.json";
import type { PastSession, Recording } from "./backend";

export const RECORDINGS: Record<string, Recording> = {
  "text-stream": textStream as unknown as Recording,
  "shell-approve": shellApprove as unknown as Recording,
  "shell-deny": shellDeny as unknown as Recording,
  "shell-rule": shellRule as unknown as Recording,
  "shell-escalation": shellEscalation as unknown as Recording,
  interrupted: interrupted as unknown as Recording,
  "file-edit": fileEdit as unknown as Recording,
  "error-turn": errorTurn as unknown as Recording,
  question: question as unknown as Recording,
  todos: todos as unknown as Recording,
  "text-protocol": textProtocol as unknown as Recording,
  "resume-approval": resumeApproval as unknown as Recording,
};

export const PAST_SESSIONS: PastSession[] = [pastSession as unknown as PastSession, pendingSession as unknown as PastSession];
