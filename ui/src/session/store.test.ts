import { beforeEach, describe, expect, it } from "vitest";
import type { ApprovalRequest, QuestionRequest, SessionView } from "../ipc";
import { useSessionStore } from "./store";

const approval: ApprovalRequest = {
  id: "a1",
  call_id: "c1",
  tool: "shell",
  action: { type: "exec", command: "cargo build", cwd: "/w" },
  reason: "`cargo` is not a known read-only command",
  risk: "medium",
};
const question: QuestionRequest = { id: "q1", call_id: "c2", questions: [{ question: "Which crate?", options: [{ label: "wire" }] }] };

function view(overrides: Partial<SessionView> = {}): SessionView {
  return {
    id: "s1",
    title: "Build",
    settings: { cwd: "/w", provider: "local", model: "m", wire: "chat", harness: "minimal", approval: "untrusted" },
    providerUrl: null,
    items: [{ type: "function_call", id: "f1", call_id: "c1", name: "shell", arguments: '{"command":"cargo build"}' }],
    exchanges: [],
    running: true,
    pendingApprovals: [approval],
    pendingQuestions: [question],
    readOnly: null,
    ...overrides,
  };
}

const usage = { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };

describe("session store", () => {
  beforeEach(() => useSessionStore.getState().close());

  it("a session opened mid-turn asks again what the turn waits for", () => {
    useSessionStore.getState().open(view());
    const state = useSessionStore.getState();
    expect(state.approvals).toEqual([{ turnId: null, request: approval }]);
    expect(state.questions).toEqual([{ turnId: null, request: question }]);
    expect(state.session?.running).toBe(true);
  });

  it("requests found pending on open end with the next turn end", () => {
    useSessionStore.getState().open(view());
    useSessionStore.getState().receive([{ type: "turn_completed", turn_id: "turn-7", usage }]);
    expect(useSessionStore.getState().approvals).toEqual([]);
    expect(useSessionStore.getState().questions).toEqual([]);
  });

  it("a session that is not running has nothing pending", () => {
    useSessionStore.getState().open(view({ running: false }));
    expect(useSessionStore.getState().approvals).toEqual([]);
    expect(useSessionStore.getState().questions).toEqual([]);
  });

  it("questions queue, settle from the window, or drop when their call gets an output", () => {
    useSessionStore.getState().open(view({ pendingApprovals: [], pendingQuestions: [] }));
    const second: QuestionRequest = { ...question, id: "q2", call_id: "c3" };
    useSessionStore.getState().receive([
      { type: "question_asked", turn_id: "t", request: question },
      { type: "question_asked", turn_id: "t", request: question },
      { type: "question_asked", turn_id: "t", request: second },
    ]);
    expect(useSessionStore.getState().questions.map((q) => q.request.id)).toEqual(["q1", "q2"]);
    useSessionStore.getState().settleQuestion("q1", [{ question: "Which crate?", answers: ["wire"] }]);
    expect(useSessionStore.getState().questions.map((q) => q.request.id)).toEqual(["q2"]);
    expect(useSessionStore.getState().timeline.rows.find((r) => r.id === "question-q1")).toMatchObject({ state: "answered" });
    useSessionStore.getState().receive([
      { type: "item_completed", turn_id: "t", item: { type: "tool_output", id: "o3", call_id: "c3", output: { text: "x", status: "completed" } } },
    ]);
    expect(useSessionStore.getState().questions).toEqual([]);
  });

  it("a text-protocol harness links calls to their text", () => {
    useSessionStore.getState().open(
      view({
        running: false,
        settings: { cwd: "/w", provider: "local", model: "m", wire: "chat", harness: "terminus-2", approval: "untrusted" },
        items: [
          { type: "message", id: "a", role: "assistant", content: [{ type: "text", text: '{"commands": []}' }] },
          { type: "function_call", id: "f", call_id: "terminus-2-1", name: "terminal", arguments: '{"commands":[]}' },
        ],
      }),
    );
    expect(useSessionStore.getState().timeline.rows[1]).toMatchObject({ kind: "tool", source: "item-a" });
  });
});
