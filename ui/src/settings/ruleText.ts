/**
 * Saved approval rules in words, the same way everywhere: the approval dialog shows the rule
 * before it is saved, and Settings lists it the same way.
 */
import type { Rule } from "../ipc";

/** Characters a shell word may have without quotes. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * A rule's words as one command line a person can read and type back: words that need it are
 * single-quoted, so `["grep", "-e", "a b"]` reads `grep -e 'a b'` (the shell splits it back
 * into the same words, as config.toml's `command = "…"` does).
 */
export function commandText(words: readonly string[]): string {
  return words.map((w) => (PLAIN_WORD.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`)).join(" ");
}

/** Where a rule applies, in words. */
export function scopeText(workspace: string | null | undefined): string {
  return workspace ? `in ${workspace}` : "in every workspace";
}

/** The whole rule in words ("allow `npm test` in every workspace"), as the engine names it. */
export function describeRule(rule: Rule): string {
  return `${rule.decision} \`${commandText(rule.command)}\` ${scopeText(rule.workspace)}`;
}
