/** Formatting of exchange figures for the inspector. */
import type { ExchangeSummary } from "../ipc";

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function formatTokens(summary: Pick<ExchangeSummary, "usage">): string {
  const usage = summary.usage;
  if (!usage) return "—";
  return `${usage.input_tokens.toLocaleString()} → ${usage.output_tokens.toLocaleString()}`;
}

/** `HH:MM:SS` of an RFC 3339 time, or the text itself when it does not parse. */
export function formatClock(rfc3339: string): string {
  const date = new Date(rfc3339);
  return Number.isNaN(date.getTime()) ? rfc3339 : date.toLocaleTimeString([], { hour12: false });
}

/** One source of a request's prompt, as the inspector shows it. */
export interface PromptSource {
  /** `built-in`, `file` (an override in the config folder), `imported` (from a capture), or the raw scheme. */
  kind: string;
  /** What follows the scheme: `minimal/system.md`, a path… */
  value: string;
  /** The source exactly as recorded. */
  raw: string;
}

const SOURCE_KINDS: Record<string, string> = { builtin: "built-in", file: "file", import: "imported" };

/**
 * `ExchangeSummary.prompt_source`: where the harness took the system prompt from (the main
 * template first, then every override or import also in use), comma-separated, e.g.
 * `builtin:claude-code/system.md, file:/home/me/.config/tack/prompts/claude-code/tools.json`.
 */
export function parsePromptSource(source: string | null | undefined): PromptSource[] {
  if (!source) return [];
  return source
    .split(/,\s+(?=[a-z]+:)/)
    .map((raw) => raw.trim())
    .filter(Boolean)
    .map((raw) => {
      const match = /^([a-z]+):(.*)$/.exec(raw);
      if (!match) return { kind: "", value: raw, raw };
      const scheme = match[1] ?? "";
      return { kind: SOURCE_KINDS[scheme] ?? scheme, value: match[2] ?? "", raw };
    });
}
