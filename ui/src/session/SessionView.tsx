import { ApprovalDialog } from "../approvals/ApprovalDialog";
import { Composer } from "../composer/Composer";
import { QuestionDialog } from "../questions/QuestionDialog";
import { TodoPanel } from "../todos/TodoPanel";
import { interruptTurn, sendMessage } from "./actions";
import { MessageList } from "./MessageList";
import type { Usage } from "../ipc";
import { useSessionStore } from "./store";
import { TopBar } from "./TopBar";
import "./session.css";

/**
 * The open session: top bar, timeline, the todo list, composer, and the dialog of whatever
 * the turn waits for (approvals first, then questions).
 */
export function SessionView() {
  const session = useSessionStore((s) => s.session);
  const rows = useSessionStore((s) => s.timeline.rows);
  const todos = useSessionStore((s) => s.timeline.todos);
  const approvals = useSessionStore((s) => s.approvals);
  const questions = useSessionStore((s) => s.questions);
  if (!session) return null;
  return (
    <div className="session-view">
      <TopBar
        title={session.title}
        settings={session.settings}
        providerUrl={session.providerUrl}
        running={session.running}
        autoHarness={session.autoHarness}
      />
      {rows.length === 0 ? (
        <div className="session-empty">
          <p>Describe what you want done in <span className="mono">{session.settings.cwd}</span>.</p>
        </div>
      ) : (
        <MessageList rows={rows} sessionId={session.id} />
      )}
      <div className="composer-dock">
        {todos && todos.entries.length > 0 && <TodoPanel entries={todos.entries} />}
        <Composer key={session.id} autoFocus running={session.running} onSend={(text) => void sendMessage(text)} onStop={() => void interruptTurn()} />
        <div className="composer-footer">
          <span className="composer-keys" aria-hidden="true">
            {session.running ? (
              <>
                <kbd>Enter</kbd> queue · <kbd>Esc</kbd> stop
              </>
            ) : (
              <>
                <kbd>Enter</kbd> send · <kbd>Shift</kbd>+<kbd>Enter</kbd> new line
              </>
            )}
          </span>
          {session.lastUsage && <UsageLine usage={session.lastUsage} />}
        </div>
      </div>
      {approvals[0] ? (
        <ApprovalDialog key={approvals[0].request.id} pending={approvals[0]} queued={approvals.length - 1 + questions.length} />
      ) : (
        questions[0] && <QuestionDialog key={questions[0].request.id} pending={questions[0]} queued={questions.length - 1} />
      )}
    </div>
  );
}

/** Tokens of the last completed turn, quietly under the composer. */
function UsageLine({ usage }: { usage: Usage }) {
  const cached = usage.cached_input_tokens ?? 0;
  const reasoning = usage.reasoning_tokens ?? 0;
  return (
    <p className="usage-line" aria-label="Tokens used by the last turn">
      last turn: {usage.input_tokens.toLocaleString()} in{cached > 0 && <> ({cached.toLocaleString()} cached)</>} ·{" "}
      {usage.output_tokens.toLocaleString()} out{reasoning > 0 && <> ({reasoning.toLocaleString()} reasoning)</>}
    </p>
  );
}
