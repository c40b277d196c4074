import { memo } from "react";
import { Badge } from "../../primitives/Badge";
import type { QuestionRow } from "../rows";

/**
 * Questions a tool call put to the user, with their options. The desktop shell has no
 * command to answer them yet (docs/ipc.md lists none), so the card says so instead of
 * offering controls that would go nowhere.
 */
export const QuestionCard = memo(function QuestionCard({ row }: { row: QuestionRow }) {
  return (
    <section className="question-card" aria-label="Questions from the agent">
      <header className="question-header">
        <span>The agent asks</span>
        <Badge tone="warning">waiting for an answer</Badge>
      </header>
      {row.request.questions.map((q, i) => (
        <div key={i} className="question">
          {q.header && <div className="question-topic">{q.header}</div>}
          <p className="question-text">{q.question}</p>
          {q.options && q.options.length > 0 && (
            <ul className="question-options" aria-label={q.multi_select ? "Options (several may apply)" : "Options"}>
              {q.options.map((o, j) => (
                <li key={j}>
                  <span className="question-option">{o.label}</span>
                  {o.description && <span className="muted"> — {o.description}</span>}
                </li>
              ))}
            </ul>
          )}
        </div>
      ))}
      <p className="question-note">Answering questions from the window is not available yet; stop the turn and reply in a message.</p>
    </section>
  );
});
