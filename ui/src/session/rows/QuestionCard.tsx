import { memo } from "react";
import { Badge, type BadgeTone } from "../../primitives/Badge";
import type { QuestionRow, QuestionState } from "../rows";

const STATE: Record<QuestionState, { text: string; tone: BadgeTone }> = {
  waiting: { text: "waiting for your answer", tone: "warning" },
  answered: { text: "answered", tone: "success" },
  dismissed: { text: "dismissed", tone: "neutral" },
  closed: { text: "not answered here", tone: "neutral" },
};

/**
 * Questions a tool call put to the user, in the timeline: while they wait, what is asked (the
 * dialog takes the answer); afterwards, what the user answered.
 */
export const QuestionCard = memo(function QuestionCard({ row }: { row: QuestionRow }) {
  const state = STATE[row.state];
  return (
    <section className={`question-card question-${row.state}`} aria-label="Questions from the agent">
      <header className="question-header">
        <span>{row.request.questions.length === 1 ? "The agent asked" : `The agent asked ${row.request.questions.length} questions`}</span>
        <Badge tone={state.tone}>{state.text}</Badge>
      </header>
      {row.request.questions.map((q, i) => {
        const answer = row.answers?.find((a) => a.question === q.question) ?? null;
        return (
          <div key={i} className="question">
            <p className="question-text">
              {q.header && <span className="question-topic">{q.header}</span>}
              {q.question}
            </p>
            {answer ? (
              <p className="question-answer" aria-label="Your answer">
                {answer.answers.join(", ")}
              </p>
            ) : (
              q.options &&
              q.options.length > 0 && (
                <ul className="question-options" aria-label={q.multi_select ? "Options (several may apply)" : "Options"}>
                  {q.options.map((o, j) => (
                    <li key={j}>{o.label}</li>
                  ))}
                </ul>
              )
            )}
          </div>
        );
      })}
    </section>
  );
});
