import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { QuestionAnswer, QuestionRequest } from "../ipc";
import { ARMING_DELAY_MS } from "../primitives/arming";
import { answersOf, collectAnswers, EMPTY_DRAFT } from "./answers";
import { QuestionDialog } from "./QuestionDialog";

const request: QuestionRequest = {
  id: "q-1",
  call_id: "c1",
  questions: [
    {
      question: "Which wire should the fix cover?",
      header: "Scope",
      options: [
        { label: "chat", description: "OpenAI Chat Completions only" },
        { label: "all three", description: "chat, responses and messages" },
      ],
    },
    {
      question: "What should the tests cover?",
      header: "Tests",
      multi_select: true,
      options: [{ label: "split frames" }, { label: "CRLF" }, { label: "keep-alives" }],
    },
  ],
};

function setup(req: QuestionRequest = request, queued = 0) {
  const onAnswer = vi.fn<(id: string, answers: QuestionAnswer[] | null) => Promise<boolean>>().mockResolvedValue(true);
  render(<QuestionDialog pending={{ turnId: "t", request: req }} queued={queued} onAnswer={onAnswer} />);
  const dialog = screen.getByRole("dialog", { name: req.questions.length === 1 ? "The agent has a question" : `The agent has ${req.questions.length} questions` });
  return { onAnswer, dialog };
}

const arm = () =>
  act(() => {
    vi.advanceTimersByTime(ARMING_DELAY_MS);
  });

describe("question dialog", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shows every question with its chip, options and their descriptions; focus is on the dialog", () => {
    const { dialog } = setup(request, 1);
    expect(document.activeElement).toBe(dialog);
    expect(within(dialog).getByText("Scope")).toBeInTheDocument();
    expect(within(dialog).getByText("Which wire should the fix cover?")).toBeInTheDocument();
    expect(within(dialog).getByText("chat, responses and messages")).toBeInTheDocument();
    expect(within(dialog).getByRole("radiogroup", { name: "Scope" })).toBeInTheDocument();
    expect(within(dialog).getByRole("group", { name: "Tests" })).toBeInTheDocument();
    expect(within(dialog).getByText("Pick any that apply.")).toBeInTheDocument();
    expect(within(dialog).getByText("+1 more waiting")).toBeInTheDocument();
  });

  it("sends nothing until every question has an answer, and says how many are left", () => {
    setup();
    arm();
    const send = screen.getByRole("button", { name: /Send answers/ });
    expect(send).toBeDisabled();
    expect(screen.getByRole("status")).toHaveTextContent("2 questions need an answer");
    fireEvent.click(screen.getByRole("radio", { name: /all three/ }));
    expect(screen.getByRole("status")).toHaveTextContent("1 question needs an answer");
    fireEvent.click(screen.getByRole("checkbox", { name: /CRLF/ }));
    expect(send).toBeEnabled();
  });

  it("sends the picked options and the user's own words", () => {
    const { onAnswer } = setup();
    arm();
    fireEvent.click(screen.getByRole("radio", { name: /^chat/ }));
    fireEvent.click(screen.getByRole("checkbox", { name: /keep-alives/ }));
    fireEvent.click(screen.getByRole("checkbox", { name: /split frames/ }));
    fireEvent.change(screen.getByRole("textbox", { name: "Also, in my own words" }), { target: { value: "  a 1-byte read  " } });
    fireEvent.click(screen.getByRole("button", { name: /Send answers/ }));
    expect(onAnswer).toHaveBeenCalledWith("q-1", [
      { question: "Which wire should the fix cover?", answers: ["chat"] },
      { question: "What should the tests cover?", answers: ["split frames", "keep-alives", "a 1-byte read"] },
    ]);
  });

  it("typing an answer of one's own picks it instead of an option (single choice)", () => {
    const single: QuestionRequest = { id: "q-2", call_id: "c2", questions: [request.questions[0]!] };
    const { onAnswer, dialog } = setup(single);
    arm();
    fireEvent.click(screen.getByRole("radio", { name: /^chat/ }));
    const own = screen.getByRole("textbox", { name: "My own answer" });
    fireEvent.change(own, { target: { value: "chat and responses" } });
    expect(screen.getByRole("radio", { name: "Answer in my own words" })).toBeChecked();
    expect(screen.getByRole("radio", { name: /^chat/ })).not.toBeChecked();
    fireEvent.keyDown(own, { key: "Enter", ctrlKey: true });
    expect(onAnswer).toHaveBeenCalledWith("q-2", [{ question: "Which wire should the fix cover?", answers: ["chat and responses"] }]);
    expect(dialog).toBeInTheDocument();
  });

  it("ignores sending and dismissing during the arming delay; Enter never sends", () => {
    const single: QuestionRequest = { id: "q-3", call_id: "c3", questions: [request.questions[0]!] };
    const { onAnswer, dialog } = setup(single);
    // An option picked while arming is fine: picking decides nothing.
    fireEvent.click(screen.getByRole("radio", { name: /all three/ }));
    expect(screen.getByRole("button", { name: /Send answer/ })).toBeDisabled();
    expect(screen.getByRole("button", { name: /Dismiss/ })).toBeDisabled();
    fireEvent.keyDown(dialog, { key: "Enter", ctrlKey: true });
    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(onAnswer).not.toHaveBeenCalled();
    arm();
    fireEvent.keyDown(dialog, { key: "Enter" });
    fireEvent.keyDown(screen.getByRole("radio", { name: /all three/ }), { key: "Enter" });
    expect(onAnswer).not.toHaveBeenCalled();
    fireEvent.keyDown(dialog, { key: "Enter", ctrlKey: true, repeat: true });
    expect(onAnswer).not.toHaveBeenCalled();
    fireEvent.keyDown(dialog, { key: "Enter", ctrlKey: true });
    expect(onAnswer).toHaveBeenCalledWith("q-3", [{ question: "Which wire should the fix cover?", answers: ["all three"] }]);
  });

  it("Esc dismisses once armed; in a text field it first leaves the field", () => {
    const { onAnswer, dialog } = setup();
    arm();
    const own = screen.getByRole("textbox", { name: "Also, in my own words" });
    own.focus();
    fireEvent.keyDown(own, { key: "Escape" });
    expect(onAnswer).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(dialog);
    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(onAnswer).toHaveBeenCalledWith("q-1", null);
  });

  it("the Dismiss button sends null", () => {
    const { onAnswer } = setup();
    arm();
    fireEvent.click(screen.getByRole("button", { name: /Dismiss/ }));
    expect(onAnswer).toHaveBeenCalledWith("q-1", null);
  });

  it("a question without options takes typed text", () => {
    const open: QuestionRequest = { id: "q-4", call_id: "c4", questions: [{ question: "What should the branch be called?" }] };
    const { onAnswer } = setup(open);
    arm();
    fireEvent.change(screen.getByRole("textbox", { name: "Your answer" }), { target: { value: "fix/sse-split" } });
    fireEvent.click(screen.getByRole("button", { name: /Send answer/ }));
    expect(onAnswer).toHaveBeenCalledWith("q-4", [{ question: "What should the branch be called?", answers: ["fix/sse-split"] }]);
  });
});

describe("answers", () => {
  const [single, multi] = request.questions as [NonNullable<QuestionRequest["questions"][0]>, NonNullable<QuestionRequest["questions"][0]>];

  it("single choice: the option, or the own text when that is picked", () => {
    expect(answersOf(single, { chosen: ["chat"], text: "ignored", own: false })).toEqual(["chat"]);
    expect(answersOf(single, { chosen: ["chat"], text: " mine ", own: true })).toEqual(["mine"]);
    expect(answersOf(single, { chosen: [], text: "  ", own: true })).toEqual([]);
  });

  it("multi choice: options in the offered order, then the own text", () => {
    expect(answersOf(multi, { chosen: ["keep-alives", "split frames"], text: "", own: false })).toEqual(["split frames", "keep-alives"]);
    expect(collectAnswers([single, multi], [{ chosen: ["chat"], text: "", own: false }, EMPTY_DRAFT])).toBeNull();
  });
});
