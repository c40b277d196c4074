/**
 * The answer being composed for one question: chosen options and/or the user's own text.
 */
import type { Question, QuestionAnswer } from "../ipc";

export interface Draft {
  /** Labels of the chosen options, in the order offered. */
  chosen: string[];
  /** The user's own answer (for a single-choice question it counts only while `own` is picked). */
  text: string;
  /** Single choice: the "own answer" entry is picked instead of an option. */
  own: boolean;
}

export const EMPTY_DRAFT: Draft = { chosen: [], text: "", own: false };

/** Whether the question offers options to pick from (else it takes typed text only). */
export function hasOptions(question: Question): boolean {
  return (question.options?.length ?? 0) > 0;
}

/** The answers a draft gives: chosen labels (offered order), then the typed text if any. */
export function answersOf(question: Question, draft: Draft): string[] {
  const text = draft.text.trim();
  if (!hasOptions(question)) return text ? [text] : [];
  if (question.multi_select) {
    const offered = (question.options ?? []).map((o) => o.label).filter((label) => draft.chosen.includes(label));
    return text ? [...offered, text] : offered;
  }
  if (draft.own) return text ? [text] : [];
  return draft.chosen.slice(0, 1);
}

/** The payload of `answerQuestion`, once every question has an answer; else null. */
export function collectAnswers(questions: readonly Question[], drafts: readonly Draft[]): QuestionAnswer[] | null {
  const answers = questions.map((question, i) => ({ question: question.question, answers: answersOf(question, drafts[i] ?? EMPTY_DRAFT) }));
  return answers.every((a) => a.answers.length > 0) ? answers : null;
}
