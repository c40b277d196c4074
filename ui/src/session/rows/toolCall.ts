/**
 * Reading a tool call for display: which command a shell-like call runs, its arguments
 * pretty-printed, and the status to show.
 */
import type { ToolStatus } from "../../ipc";
import type { ToolInput, ToolRow } from "../rows";

/** Tool names (lower-cased) whose `command` argument is a shell command, across harnesses. */
const SHELL_TOOLS = new Set([
  "shell",
  "bash",
  "exec",
  "exec_command",
  "shell_command",
  "run_shell_command",
  "run_command",
  "run_terminal_cmd",
  "execute_command",
  "execute",
  "terminal",
  "local_shell",
]);

/** The parsed JSON arguments, or null when they are not a JSON object. */
export function parseArguments(input: ToolInput): Record<string, unknown> | null {
  if (input.kind !== "function") return null;
  try {
    const value: unknown = JSON.parse(input.arguments);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** argv as a person would type it: `bash -lc "x"` shows `x`; other words are quoted if needed. */
export function displayArgv(argv: readonly string[]): string {
  const [program, flag, script] = argv;
  if (argv.length === 3 && program && /(^|\/)(ba|z|da)?sh$/.test(program) && /^-l?c$/.test(flag ?? "") && script !== undefined) {
    return script;
  }
  return argv.map(quoteWord).join(" ");
}

function quoteWord(word: string): string {
  if (word !== "" && /^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command line a shell-like call runs, if this is one. */
export function shellCommand(row: Pick<ToolRow, "name" | "input" | "output">): string | null {
  const details = row.output?.details;
  if (details?.type === "exec") return displayArgv(details.command);
  if (row.input.kind === "shell") return displayArgv(row.input.command);
  if (!SHELL_TOOLS.has(row.name.toLowerCase())) return null;
  const args = parseArguments(row.input);
  const command = args?.command ?? args?.cmd;
  if (typeof command === "string") return command;
  if (Array.isArray(command) && command.every((w) => typeof w === "string")) return displayArgv(command as string[]);
  return null;
}

/** Keystrokes sent to a terminal, with how long to wait after each (seconds), if given. */
export type Keystrokes = ReadonlyArray<{ keys: string; duration: number | null }>;

/**
 * The keystrokes of a `terminal` call (the engine tool terminus-2 drives:
 * `{"commands": [{"keystrokes", "duration"}]}`), or null for any other call.
 */
export function terminalKeystrokes(row: Pick<ToolRow, "name" | "input">): Keystrokes | null {
  if (row.name !== "terminal") return null;
  const commands = parseArguments(row.input)?.commands;
  if (!Array.isArray(commands)) return null;
  const out: Array<{ keys: string; duration: number | null }> = [];
  for (const command of commands as unknown[]) {
    if (!command || typeof command !== "object") return null;
    const { keystrokes, duration } = command as { keystrokes?: unknown; duration?: unknown };
    if (typeof keystrokes !== "string") return null;
    out.push({ keys: keystrokes, duration: typeof duration === "number" ? duration : null });
  }
  return out;
}

/** Arguments as indented JSON when they parse, else the raw text. */
export function prettyArguments(input: ToolInput): string {
  if (input.kind === "function") {
    try {
      return JSON.stringify(JSON.parse(input.arguments), null, 2);
    } catch {
      return input.arguments;
    }
  }
  if (input.kind === "custom") return input.input;
  if (input.kind === "shell") return displayArgv(input.command);
  return "";
}

/** A short one-line summary for the card header (a path, a pattern…), if obvious. */
export function argumentSummary(input: ToolInput): string | null {
  const args = parseArguments(input);
  if (!args) return null;
  for (const key of ["path", "file_path", "filePath", "file", "pattern", "query", "url", "directory", "dir"]) {
    const value = args[key];
    if (typeof value === "string" && value) return value;
  }
  return null;
}

/** What the status badge says. */
export type ToolBadge =
  | "preparing"
  | "pending"
  | "needs approval"
  | "needs answer"
  | "running"
  | "completed"
  | "failed"
  | "denied"
  | "aborted"
  | "timed out";

const STATUS_BADGE: Record<ToolStatus, ToolBadge> = {
  completed: "completed",
  failed: "failed",
  denied: "denied",
  aborted: "aborted",
  timed_out: "timed out",
};

export function toolBadge(row: Pick<ToolRow, "phase" | "output" | "question">): ToolBadge {
  switch (row.phase) {
    case "streaming":
      return "preparing";
    case "waiting":
      return row.question ? "needs answer" : "pending";
    case "awaiting_approval":
      return "needs approval";
    case "running":
      return "running";
    case "ended":
      // A call that ended without an output item was cut off with its turn.
      return row.output ? STATUS_BADGE[row.output.status] : "aborted";
  }
}

/** Milliseconds as `850 ms`, `4.2 s`, `2 m 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} m ${String(seconds).padStart(2, "0")} s`;
}
