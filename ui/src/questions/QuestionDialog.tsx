import { useId, useState, type KeyboardEvent } from "react";
import type { Question, QuestionAnswer } from "../ipc";
import { Button } from "../primitives/Button";
import { Modal } from "../primitives/Modal";
import { ArmingBar, useArmed } from "../primitives/arming";
import { answerQuestion } from "../session/actions";
import type { PendingQuestion } from "../session/timeline";
import { answersOf, collectAnswers, EMPTY_DRAFT, hasOptions, type Draft } from "./answers";
import "./questions.css";

export interface QuestionDialogProps {
  pending: PendingQuestion;
  /** How many more question requests wait behind this one. */
  queued: number;
  /** Sends the answers (`null`: dismissed); resolves to whether the shell took them. */
  onAnswer?: (requestId: string, answers: QuestionAnswer[] | null) => Promise<boolean>;
}

/**
 * Asks the user a tool call's questions (one to four): each with its topic chip, its options
 * (with what choosing them means; one or several may be picked) and room for an answer of
 * their own. Like the approval dialog, focus lands on the dialog, not on a button, and
 * nothing can be sent during the arming delay; Enter never sends. Ctrl+Enter sends, Esc
 * dismisses (the model is told the user declined).
 */
export function QuestionDialog({ pending, queued, onAnswer = answerQuestion }: QuestionDialogProps) {
  const { request } = pending;
  const questions = request.questions;
  const armed = useArmed();
  const [busy, setBusy] = useState(false);
  const [drafts, setDrafts] = useState<Draft[]>(() => questions.map(() => EMPTY_DRAFT));
  const titleId = useId();
  const descriptionId = useId();

  const answers = collectAnswers(questions, drafts);
  const unanswered = questions.filter((q, i) => answersOf(q, drafts[i] ?? EMPTY_DRAFT).length === 0).length;
  const live = armed && !busy;

  const send = (payload: QuestionAnswer[] | null) => {
    if (!live) return;
    setBusy(true);
    void onAnswer(request.id, payload).then((accepted) => {
      if (!accepted) setBusy(false);
    });
  };
  const submit = () => {
    if (answers) send(answers);
  };

  const update = (index: number, change: (draft: Draft) => Draft) =>
    setDrafts((all) => all.map((draft, i) => (i === index ? change(draft) : draft)));

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const typing = event.target instanceof HTMLInputElement && event.target.type === "text";
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      event.stopPropagation();
      if (!event.repeat) submit();
      return;
    }
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      // In a text field Esc leaves the field; a second Esc dismisses.
      if (typing) event.currentTarget.focus();
      else if (!event.repeat) send(null);
      return;
    }
    // Enter is deliberately not a shortcut: it is the key most likely to be in flight.
    if (event.key === "Enter" && !typing) {
      event.preventDefault();
      event.stopPropagation();
    }
  };

  return (
    <Modal labelledBy={titleId} describedBy={descriptionId} role="dialog" onKeyDown={onKeyDown} className="question-dialog">
      <header className="question-dialog-header">
        <h2 id={titleId}>{questions.length === 1 ? "The agent has a question" : `The agent has ${questions.length} questions`}</h2>
        {queued > 0 && <span className="approval-queue">+{queued} more waiting</span>}
      </header>
      <p id={descriptionId} className="question-dialog-lede">
        The turn waits for you. Pick an option or write your own answer; it goes back to the model as the tool&apos;s result.
      </p>
      <div className="question-dialog-body scroll-thin">
        {questions.map((question, i) => (
          <QuestionFields key={i} index={i} question={question} draft={drafts[i] ?? EMPTY_DRAFT} onChange={(change) => update(i, change)} />
        ))}
      </div>
      <footer className="approval-actions">
        <ArmingBar armed={armed} />
        <Button variant="secondary" shortcut="Esc" disabled={!live} onClick={() => send(null)}>
          Dismiss
        </Button>
        <span className="approval-spacer" />
        {unanswered > 0 && (
          <span className="question-remaining" role="status">
            {unanswered === 1 ? "1 question needs an answer" : `${unanswered} questions need an answer`}
          </span>
        )}
        <Button variant="primary" shortcut="Ctrl+Enter" disabled={!live || !answers} onClick={submit}>
          Send {questions.length === 1 ? "answer" : "answers"}
        </Button>
      </footer>
    </Modal>
  );
}

function QuestionFields({
  index,
  question,
  draft,
  onChange,
}: {
  index: number;
  question: Question;
  draft: Draft;
  onChange: (change: (draft: Draft) => Draft) => void;
}) {
  const name = useId();
  const ownId = useId();
  const multi = question.multi_select ?? false;
  const options = question.options ?? [];

  if (!hasOptions(question)) {
    return (
      <fieldset className="q-fieldset">
        <Legend index={index} question={question} />
        <input
          type="text"
          className="input"
          aria-label="Your answer"
          placeholder="Your answer"
          value={draft.text}
          onChange={(event) => {
            const text = event.target.value;
            onChange((d) => ({ ...d, text }));
          }}
        />
      </fieldset>
    );
  }

  return (
    <fieldset className="q-fieldset">
      <Legend index={index} question={question} />
      {multi && <p className="q-hint">Pick any that apply.</p>}
      <div className="q-options" role={multi ? "group" : "radiogroup"} aria-label={question.header ?? question.question}>
        {options.map((option) => {
          const checked = multi ? draft.chosen.includes(option.label) : !draft.own && draft.chosen[0] === option.label;
          return (
            <label key={option.label} className={`q-option${checked ? " q-option-checked" : ""}`}>
              <input
                type={multi ? "checkbox" : "radio"}
                name={name}
                checked={checked}
                onChange={(event) => {
                  const on = event.target.checked;
                  onChange((d) =>
                    multi
                      ? { ...d, chosen: on ? [...d.chosen, option.label] : d.chosen.filter((l) => l !== option.label) }
                      : { ...d, chosen: [option.label], own: false },
                  );
                }}
              />
              <span className="q-option-text">
                <span className="q-option-label">{option.label}</span>
                {option.description && <span className="q-option-description">{option.description}</span>}
              </span>
            </label>
          );
        })}
        <div className={`q-option q-own${(multi ? draft.text.trim() !== "" : draft.own) ? " q-option-checked" : ""}`}>
          {!multi && (
            <input
              type="radio"
              name={name}
              aria-label="Answer in my own words"
              checked={draft.own}
              onChange={() => onChange((d) => ({ ...d, own: true }))}
            />
          )}
          <input
            id={ownId}
            type="text"
            className="input q-own-input"
            aria-label={multi ? "Also, in my own words" : "My own answer"}
            placeholder={multi ? "Something else (optional)…" : "Something else…"}
            value={draft.text}
            onFocus={() => {
              if (!multi && draft.text.trim()) onChange((d) => ({ ...d, own: true }));
            }}
            onChange={(event) => {
              const text = event.target.value;
              // Typing an answer of one's own picks it (single choice).
              onChange((d) => ({ ...d, text, own: multi ? d.own : text.trim() !== "" || d.own }));
            }}
          />
        </div>
      </div>
    </fieldset>
  );
}

function Legend({ index, question }: { index: number; question: Question }) {
  return (
    <legend className="q-legend">
      {question.header && <span className="q-chip">{question.header}</span>}
      <span className="q-text">
        <span className="sr-only">Question {index + 1}: </span>
        {question.question}
      </span>
    </legend>
  );
}
