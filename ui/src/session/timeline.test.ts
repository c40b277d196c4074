import { describe, expect, it } from "vitest";
import type { ApprovalRequest, EngineEvent, Item, QuestionRequest } from "../ipc";
import type { AssistantRow, ToolRow, UserRow } from "./rows";
import { addLocalInput, applyEvents, emptyTimeline, rowById, settleQuestion, timelineFromItems, toolRowId } from "./timeline";

const T = "turn-1";
const delta = (text: string): EngineEvent => ({ type: "text_delta", turn_id: T, text });
const done = (item: Item): EngineEvent => ({ type: "item_completed", turn_id: T, item });
const assistant = (id: string, text: string): Item => ({ type: "message", id, role: "assistant", content: [{ type: "text", text }] });

describe("timeline", () => {
  it("streams text into one row and replaces it with the completed item", () => {
    let tl = applyEvents(emptyTimeline(), [{ type: "turn_started", turn_id: T }, delta("Hel"), delta("lo")]);
    expect(tl.rows).toHaveLength(1);
    expect((tl.rows[0] as AssistantRow).text).toBe("Hello");
    expect((tl.rows[0] as AssistantRow).final).toBe(false);
    tl = applyEvents(tl, [done(assistant("msg-1", "Hello, world."))]);
    expect(tl.rows).toHaveLength(1);
    expect(tl.rows[0]).toMatchObject({ kind: "assistant", text: "Hello, world.", final: true, open: false });
  });

  it("keeps text before and after a tool call in order, without duplicates", () => {
    const tl = applyEvents(emptyTimeline(), [
      delta("Let me check."),
      { type: "tool_call_started", turn_id: T, call_id: "c1", name: "shell" },
      done(assistant("m1", "Let me check.")),
      done({ type: "function_call", id: "f1", call_id: "c1", name: "shell", arguments: '{"command":["ls"]}' }),
      { type: "tool_started", turn_id: T, call_id: "c1", tool: "shell" },
      { type: "tool_output_delta", turn_id: T, call_id: "c1", chunk: "a\n" },
      { type: "tool_output_delta", turn_id: T, call_id: "c1", chunk: "b\n" },
      done({ type: "tool_output", id: "o1", call_id: "c1", output: { text: "a\nb\n", status: "completed", exit_code: 0 } }),
      delta("Done."),
      done(assistant("m2", "Done.")),
      { type: "turn_completed", turn_id: T, usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 } },
    ]);
    expect(tl.rows.map((r) => r.kind)).toEqual(["assistant", "tool", "assistant"]);
    const tool = rowById(tl, toolRowId("c1")) as ToolRow;
    expect(tool.liveOutput).toBe("a\nb\n");
    expect(tool.phase).toBe("ended");
    expect(tool.output?.status).toBe("completed");
    expect((tl.rows[2] as AssistantRow).text).toBe("Done.");
  });

  it("tracks an approval on its tool call, and the decision", () => {
    const tl = applyEvents(emptyTimeline(), [
      done({ type: "function_call", id: "f1", call_id: "c1", name: "shell", arguments: "{}" }),
      {
        type: "approval_requested",
        turn_id: T,
        request: { id: "a1", call_id: "c1", tool: "shell", action: { type: "exec", command: "rm -rf x", cwd: "/w" }, reason: "rm", risk: "high" },
      },
    ]);
    expect((rowById(tl, toolRowId("c1")) as ToolRow).phase).toBe("awaiting_approval");
    const after = applyEvents(tl, [{ type: "approval_resolved", turn_id: T, approval_id: "a1", decision: { type: "deny", reason: "no" } }]);
    expect((rowById(after, toolRowId("c1")) as ToolRow).decision).toEqual({ type: "deny", reason: "no" });
  });

  it("confirms local input, marks steering as queued, and closes rows on abort", () => {
    let tl = addLocalInput(emptyTimeline(), "first").timeline;
    expect((tl.rows[0] as UserRow).state).toBe("pending");
    tl = applyEvents(tl, [
      { type: "turn_started", turn_id: T },
      done({ type: "message", id: "u1", role: "user", content: [{ type: "text", text: "first" }] }),
      delta("Work"),
    ]);
    expect(tl.rows).toHaveLength(2);
    expect((tl.rows[0] as UserRow).state).toBe("sent");
    tl = addLocalInput(tl, "also this").timeline;
    tl = applyEvents(tl, [{ type: "input_queued", turn_id: T, text: "also this" }]);
    expect((tl.rows[2] as UserRow).state).toBe("queued");
    tl = applyEvents(tl, [{ type: "turn_aborted", turn_id: T, reason: "interrupted" }]);
    expect(tl.rows.map((r) => r.kind)).toEqual(["user", "assistant", "user", "aborted"]);
    expect((tl.rows[1] as AssistantRow).final).toBe(true);
  });

  it("builds rows from history, folding outputs into their calls", () => {
    const tl = timelineFromItems([
      { type: "message", id: "u", role: "user", content: [{ type: "text", text: "hi" }] },
      { type: "message", id: "s", role: "system", content: [{ type: "text", text: "rules" }] },
      { type: "local_shell_call", id: "l", call_id: "c", command: ["bash", "-lc", "ls"] },
      { type: "tool_output", id: "o", call_id: "c", output: { text: "x", status: "failed", exit_code: 2 } },
      assistant("a", "ok"),
    ]);
    expect(tl.rows.map((r) => r.kind)).toEqual(["user", "tool", "assistant"]);
    expect((tl.rows[1] as ToolRow).output?.status).toBe("failed");
  });

  it("returns the same object when nothing changed", () => {
    const tl = emptyTimeline();
    expect(applyEvents(tl, [{ type: "turn_started", turn_id: T }])).toBe(tl);
  });
});

const usage = { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };
const question = (id: string, callId: string): QuestionRequest => ({
  id,
  call_id: callId,
  questions: [{ question: "Which crate?", options: [{ label: "wire" }, { label: "engine" }] }],
});

describe("timeline: questions and injected messages", () => {
  it("shows a message Tack wrote on the user's behalf as its own labelled row, not as the user's", () => {
    let tl = addLocalInput(emptyTimeline(), "Use the tool format.").timeline;
    tl = applyEvents(tl, [
      done({ type: "message", id: "u9", role: "user", content: [{ type: "text", text: "Use the tool format." }], injected_by: "format_correction" }),
    ]);
    expect(tl.rows.map((r) => r.kind)).toEqual(["user", "injected"]);
    // The person's own identical text stays unconfirmed: the injected item is not theirs.
    expect((tl.rows[0] as UserRow).state).toBe("pending");
    expect(tl.rows[1]).toMatchObject({ kind: "injected", label: "format_correction", text: "Use the tool format." });
  });

  it("a question waits, then records the answer given in this window", () => {
    let tl = applyEvents(emptyTimeline(), [
      done({ type: "function_call", id: "f9", call_id: "c9", name: "AskUserQuestion", arguments: "{}" }),
      { type: "question_asked", turn_id: T, request: question("q1", "c9") },
    ]);
    expect(rowById(tl, "question-q1")).toMatchObject({ kind: "question", state: "waiting", answers: null });
    expect(rowById(tl, toolRowId("c9"))).toMatchObject({ question: "question-q1" });
    const answers = [{ question: "Which crate?", answers: ["wire"] }];
    tl = settleQuestion(tl, "q1", "answered", answers);
    expect(rowById(tl, "question-q1")).toMatchObject({ state: "answered", answers });
    expect(settleQuestion(tl, "nope", "dismissed", null)).toBe(tl);
  });

  it("a question left waiting closes when its call gets an output or the turn ends", () => {
    const asked = applyEvents(emptyTimeline(), [
      { type: "question_asked", turn_id: T, request: question("q1", "c9") },
      { type: "question_asked", turn_id: T, request: question("q2", "c10") },
    ]);
    const answeredElsewhere = applyEvents(asked, [done({ type: "tool_output", id: "o9", call_id: "c9", output: { text: "answered", status: "completed" } })]);
    expect(rowById(answeredElsewhere, "question-q1")).toMatchObject({ state: "closed" });
    expect(rowById(answeredElsewhere, "question-q2")).toMatchObject({ state: "waiting" });
    const ended = applyEvents(answeredElsewhere, [{ type: "turn_aborted", turn_id: T, reason: "interrupted" }]);
    expect(rowById(ended, "question-q2")).toMatchObject({ state: "closed" });
  });
});

describe("timeline: todo lists", () => {
  const todoOutput = (id: string, callId: string, todos: Array<[string, string]>): Item => ({
    type: "tool_output",
    id,
    call_id: callId,
    output: { text: "ok", status: "completed", details: { type: "todos", todos: todos.map(([content, status]) => ({ content, status })) } },
  });

  it("keeps the latest list written, live and from history", () => {
    const first = todoOutput("o1", "t1", [["Read the decoder", "in_progress"], ["Fix the split frame", "pending"]]);
    const second = todoOutput("o2", "t2", [["Read the decoder", "completed"], ["Fix the split frame", "in_progress"]]);
    let tl = applyEvents(emptyTimeline(), [done({ type: "function_call", id: "f1", call_id: "t1", name: "todo_write", arguments: "{}" }), done(first)]);
    expect(tl.todos?.entries.map((e) => e.status)).toEqual(["in_progress", "pending"]);
    tl = applyEvents(tl, [done({ type: "function_call", id: "f2", call_id: "t2", name: "TodoWrite", arguments: "{}" }), done(second)]);
    expect(tl.todos).toMatchObject({ callId: "t2" });
    expect(tl.todos?.entries.map((e) => e.status)).toEqual(["completed", "in_progress"]);
    expect(timelineFromItems([first, second]).todos?.callId).toBe("t2");
    expect(timelineFromItems([assistant("a", "no todos")]).todos).toBeNull();
  });
});

describe("timeline: calls read out of the model's text", () => {
  const terminal = (id: string, callId: string): Item => ({
    type: "function_call",
    id,
    call_id: callId,
    name: "terminal",
    arguments: JSON.stringify({ commands: [{ keystrokes: "ls -la\n", duration: 0.1 }] }),
  });

  it("links each call of a text-protocol harness to the reply it was read from", () => {
    const tl = timelineFromItems(
      [
        { type: "message", id: "u", role: "user", content: [{ type: "text", text: "List the files" }] },
        assistant("raw1", '{"analysis": "look", "commands": [{"keystrokes": "ls -la\\n"}]}'),
        terminal("f1", "terminus-2-1"),
        { type: "tool_output", id: "o1", call_id: "terminus-2-1", output: { text: "screen", status: "completed" } },
        assistant("raw2", '{"analysis": "done", "task_complete": true}'),
        { type: "message", id: "c", role: "user", content: [{ type: "text", text: "Are you sure?" }], injected_by: "completion_confirmation" },
        terminal("f2", "terminus-2-2"),
      ],
      { textProtocol: true },
    );
    expect(tl.rows.map((r) => r.kind)).toEqual(["user", "assistant", "tool", "assistant", "injected", "tool"]);
    expect(rowById(tl, toolRowId("terminus-2-1"))).toMatchObject({ source: "item-raw1" });
    expect(rowById(tl, "item-raw1")).toMatchObject({ parsedInto: toolRowId("terminus-2-1") });
    // A note between the reply and the call: the call has no text of its own.
    expect((rowById(tl, toolRowId("terminus-2-2")) as ToolRow).source ?? null).toBeNull();
    expect((rowById(tl, "item-raw2") as AssistantRow).parsedInto ?? null).toBeNull();
  });

  it("links local shell calls and recovered calls on any harness, native calls never", () => {
    const tl = applyEvents(emptyTimeline(), [
      delta("THOUGHT: look first.\n```\nls\n```"),
      done(assistant("m1", "THOUGHT: look first.\n```\nls\n```")),
      done({ type: "local_shell_call", id: "l1", call_id: "swe-agent-1", command: ["bash", "-lc", "ls"] }),
      done({ type: "tool_output", id: "o1", call_id: "swe-agent-1", output: { text: "a", status: "completed" } }),
      done(assistant("m2", "Now the tests.")),
      done({ type: "function_call", id: "f2", call_id: "call_native", name: "shell", arguments: '{"command":"cargo test"}' }),
      done({ type: "function_call", id: "f3", call_id: "text_call_r1_0", name: "shell", arguments: '{"command":"ls"}' }),
    ]);
    expect(rowById(tl, toolRowId("swe-agent-1"))).toMatchObject({ source: "stream-text-1" });
    expect((rowById(tl, toolRowId("call_native")) as ToolRow).source ?? null).toBeNull();
    // Recovered from the same reply as the native call before it, which has no output yet.
    expect(rowById(tl, toolRowId("text_call_r1_0"))).toMatchObject({ source: "item-m2" });
  });
});

describe("timeline: a session opened mid-turn", () => {
  const approval: ApprovalRequest = {
    id: "a1",
    call_id: "c1",
    tool: "shell",
    action: { type: "exec", command: "cargo build", cwd: "/w" },
    reason: "`cargo` is not a known read-only command",
    risk: "medium",
  };
  const items: Item[] = [
    { type: "message", id: "u", role: "user", content: [{ type: "text", text: "build it" }] },
    { type: "function_call", id: "f1", call_id: "c1", name: "shell", arguments: '{"command":"cargo build"}' },
  ];

  it("keeps the waiting call open and asking; the next turn end closes it", () => {
    let tl = timelineFromItems(items, { running: true, pendingApprovals: [approval], pendingQuestions: [question("q1", "c2")] });
    expect(rowById(tl, toolRowId("c1"))).toMatchObject({ phase: "awaiting_approval" });
    expect(rowById(tl, "question-q1")).toMatchObject({ state: "waiting", turnId: null });
    tl = applyEvents(tl, [{ type: "approval_resolved", turn_id: "turn-9", approval_id: "a1", decision: { type: "approve_once" } }]);
    expect(rowById(tl, toolRowId("c1"))).toMatchObject({ phase: "waiting", decision: { type: "approve_once" } });
    tl = applyEvents(tl, [{ type: "turn_completed", turn_id: "turn-9", usage }]);
    expect(rowById(tl, toolRowId("c1"))).toMatchObject({ phase: "ended" });
    expect(rowById(tl, "question-q1")).toMatchObject({ state: "closed" });
  });

  it("a finished session's unanswered calls show as ended", () => {
    const tl = timelineFromItems(items);
    expect(rowById(tl, toolRowId("c1"))).toMatchObject({ phase: "ended", output: null });
  });
});
