/**
 * Searching a JSON value: keep only the branches where a key or a scalar value contains the
 * query (case-insensitive). A matching key keeps its whole subtree.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Sentinel for "nothing in here matches". */
const NO_MATCH = Symbol("no match");

export interface SearchResult {
  /** The pruned value (the whole value when the query is empty). */
  value: Json;
  /** Number of matching keys and scalar values. */
  matches: number;
}

export function searchJson(value: Json, query: string): SearchResult {
  const needle = query.trim().toLowerCase();
  if (!needle) return { value, matches: 0 };
  let matches = 0;

  const visit = (node: Json): Json | typeof NO_MATCH => {
    if (node === null || typeof node !== "object") {
      if (String(node).toLowerCase().includes(needle)) {
        matches++;
        return node;
      }
      return NO_MATCH;
    }
    if (Array.isArray(node)) {
      const kept: Json[] = [];
      for (const child of node) {
        const result = visit(child);
        if (result !== NO_MATCH) kept.push(result);
      }
      return kept.length > 0 ? kept : NO_MATCH;
    }
    const kept: { [key: string]: Json } = {};
    let any = false;
    for (const [key, child] of Object.entries(node)) {
      if (key.toLowerCase().includes(needle)) {
        matches++;
        kept[key] = child;
        any = true;
        continue;
      }
      const result = visit(child);
      if (result !== NO_MATCH) {
        kept[key] = result;
        any = true;
      }
    }
    return any ? kept : NO_MATCH;
  };

  const result = visit(value);
  return { value: result === NO_MATCH ? (Array.isArray(value) ? [] : {}) : result, matches };
}

/** Splits `text` around case-insensitive occurrences of `query`, for <mark> rendering. */
export function splitMatches(text: string, query: string): Array<{ text: string; match: boolean }> {
  const needle = query.trim().toLowerCase();
  if (!needle) return [{ text, match: false }];
  const parts: Array<{ text: string; match: boolean }> = [];
  const lower = text.toLowerCase();
  let at = 0;
  for (;;) {
    const found = lower.indexOf(needle, at);
    if (found < 0) break;
    if (found > at) parts.push({ text: text.slice(at, found), match: false });
    parts.push({ text: text.slice(found, found + needle.length), match: true });
    at = found + needle.length;
  }
  if (at < text.length) parts.push({ text: text.slice(at), match: false });
  return parts;
}
