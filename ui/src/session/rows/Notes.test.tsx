import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { QuestionRow } from "../rows";
import { describeInjection, InjectedNote } from "./InjectedNote";
import { QuestionCard } from "./QuestionCard";

describe("message Tack wrote on the user's behalf", () => {
  it("is a labelled note in plain words, with the message itself folded", () => {
    render(<InjectedNote row={{ kind: "injected", id: "i1", turnId: "t", label: "format_correction", text: "Your reply must contain exactly one command." }} />);
    const note = screen.getByRole("complementary", { name: "Tack to the model: Format correction" });
    expect(note).toHaveTextContent("Tack asked the model to answer again");
    expect(screen.queryByText("Your reply must contain exactly one command.")).not.toBeInTheDocument();
    fireEvent.click(screen.getByRole("button", { name: "Show what Tack sent" }));
    expect(screen.getByText("Your reply must contain exactly one command.")).toBeInTheDocument();
    // Not styled or named as the user's own message.
    expect(screen.queryByRole("article", { name: /Your message/ })).not.toBeInTheDocument();
  });

  it.each([
    ["parse_error", "Parse error"],
    ["submit_confirmation", "Submit review"],
    ["completion_confirmation", "Completion check"],
    ["summary_request", "Summary request"],
    ["some_new_rule", "Some new rule"],
  ])("%s reads as %s", (label, title) => {
    expect(describeInjection(label).title).toBe(title);
  });
});

describe("question card", () => {
  const row: QuestionRow = {
    kind: "question",
    id: "question-q1",
    turnId: "t",
    request: {
      id: "q1",
      call_id: "c1",
      questions: [{ question: "Which wire?", header: "Scope", options: [{ label: "chat" }, { label: "messages" }] }],
    },
    state: "waiting",
    answers: null,
  };

  it("while waiting shows the question and its options", () => {
    render(<QuestionCard row={row} />);
    expect(screen.getByText("waiting for your answer")).toBeInTheDocument();
    expect(screen.getByRole("list", { name: "Options" })).toHaveTextContent("chatmessages");
  });

  it("once answered shows the answer instead of the options", () => {
    render(<QuestionCard row={{ ...row, state: "answered", answers: [{ question: "Which wire?", answers: ["messages", "and chat"] }] }} />);
    expect(screen.getByText("answered")).toBeInTheDocument();
    expect(screen.getByLabelText("Your answer")).toHaveTextContent("messages, and chat");
    expect(screen.queryByRole("list", { name: "Options" })).not.toBeInTheDocument();
  });

  it("dismissed and closed say so", () => {
    const { rerender } = render(<QuestionCard row={{ ...row, state: "dismissed" }} />);
    expect(screen.getByText("dismissed")).toBeInTheDocument();
    rerender(<QuestionCard row={{ ...row, state: "closed" }} />);
    expect(screen.getByText("not answered here")).toBeInTheDocument();
  });
});
