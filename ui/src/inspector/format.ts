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
