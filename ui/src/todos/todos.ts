/**
 * Reading todo lists (`ToolDetails` `todos`: the engine's `todo_write`, and harness tools
 * mapped onto it such as claude-code's TodoWrite or kimi's SetTodoList).
 */
import type { TodoEntry } from "../ipc";

export type TodoStatus = "pending" | "in_progress" | "completed";

/**
 * The status of an entry. The engine writes `pending`, `in_progress` or `completed`; other
 * spellings a harness might pass through (`done`, `in-progress`, `active`) are read the same.
 */
export function todoStatus(entry: Pick<TodoEntry, "status">): TodoStatus {
  const status = entry.status.toLowerCase().replace(/[\s-]+/g, "_");
  if (status === "completed" || status === "done" || status === "complete") return "completed";
  if (status === "in_progress" || status === "active" || status === "doing") return "in_progress";
  return "pending";
}

export const STATUS_WORDS: Record<TodoStatus, string> = {
  pending: "to do",
  in_progress: "in progress",
  completed: "done",
};

/** How many entries are done. */
export function doneCount(entries: readonly TodoEntry[]): number {
  return entries.filter((e) => todoStatus(e) === "completed").length;
}
