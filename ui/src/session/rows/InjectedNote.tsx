import { memo, useId, useState } from "react";
import { ChevronIcon, TackIcon } from "../../primitives/icons";
import type { InjectedRow } from "../rows";

/** Plain words for the rules that write messages on the user's behalf (harness labels). */
const LABELS: Record<string, { title: string; text: string }> = {
  format_correction: {
    title: "Format correction",
    text: "The reply had no action Tack could read, so Tack asked the model to answer again in the expected format.",
  },
  parse_error: {
    title: "Parse error",
    text: "Tack could not parse the reply and sent the model the error.",
  },
  submit_confirmation: {
    title: "Submit review",
    text: "Before accepting the submission, Tack asked the model to review its changes.",
  },
  completion_confirmation: {
    title: "Completion check",
    text: "The model said the task is done; Tack asked it to confirm.",
  },
  summary_request: {
    title: "Summary request",
    text: "The conversation is close to the context limit; Tack asked for a summary to hand the work on.",
  },
  handoff_questions: {
    title: "Hand-off questions",
    text: "In a fresh context, Tack asked what the next agent needs to know.",
  },
  answer_questions: {
    title: "Hand-off answers",
    text: "Tack put the next agent's questions to the agent that did the work.",
  },
  handoff: {
    title: "Hand-off",
    text: "Tack handed the work on to a fresh context.",
  },
};

/** The title and explanation shown for an injection label. */
export function describeInjection(label: string): { title: string; text: string } {
  const known = LABELS[label];
  if (known) return known;
  const words = label.replace(/[_-]+/g, " ").trim();
  return { title: words ? words[0]!.toUpperCase() + words.slice(1) : "Note", text: "Tack sent this to the model on your behalf." };
}

/**
 * A message Tack wrote to the model on the user's behalf: a labelled note, set apart from
 * what the person typed; the message itself folds open.
 */
export const InjectedNote = memo(function InjectedNote({ row }: { row: InjectedRow }) {
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const { title, text } = describeInjection(row.label);
  return (
    <aside className="msg-injected" aria-label={`Tack to the model: ${title}`} data-label={row.label}>
      <div className="msg-injected-head">
        <TackIcon className="msg-injected-icon" />
        <span className="msg-injected-title">{title}</span>
        <span className="msg-injected-explain">{text}</span>
      </div>
      <button type="button" className="reasoning-toggle msg-injected-toggle" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen(!open)}>
        <ChevronIcon className={`chevron${open ? " chevron-open" : ""}`} />
        {open ? "Hide what Tack sent" : "Show what Tack sent"}
      </button>
      {open && (
        <pre className="msg-injected-text" id={bodyId}>
          {row.text}
        </pre>
      )}
    </aside>
  );
});
