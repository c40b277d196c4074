/**
 * One shared shiki highlighter with both themes, using shiki's JavaScript regex engine: the
 * window's CSP forbids `unsafe-eval` and `wasm-unsafe-eval`, which the Oniguruma (WASM)
 * engine needs. Grammars load on first use; results are cached.
 */
import type { HighlighterCore, ThemedToken } from "shiki/core";
import { GRAMMARS } from "./languages";

/** A highlighted line: tokens carrying `--shiki-light`/`--shiki-dark` colours. */
export type HighlightedLine = ThemedToken[];

let highlighter: Promise<HighlighterCore> | null = null;
const loading = new Map<string, Promise<void>>();
const cache = new Map<string, HighlightedLine[]>();
const CACHE_LIMIT = 400;

/** The highlighter, loaded on first use (shiki stays out of the startup bundle). */
function core(): Promise<HighlighterCore> {
  highlighter ??= Promise.all([import("shiki/core"), import("shiki/engine/javascript")]).then(
    ([{ createHighlighterCore }, { createJavaScriptRegexEngine }]) =>
      createHighlighterCore({
        themes: [import("@shikijs/themes/github-light"), import("@shikijs/themes/github-dark")],
        langs: [],
        engine: createJavaScriptRegexEngine({ forgiving: true }),
      }),
  );
  return highlighter;
}

async function ensureGrammar(hl: HighlighterCore, grammar: string): Promise<void> {
  if (hl.getLoadedLanguages().includes(grammar)) return;
  let pending = loading.get(grammar);
  if (!pending) {
    const load = GRAMMARS[grammar];
    if (!load) throw new Error(`no grammar ${grammar}`);
    pending = load().then((module) => hl.loadLanguage(...module.default));
    loading.set(grammar, pending);
  }
  await pending;
}

/** Cached result, if this exact code was highlighted already (lets renders skip a flash). */
export function cachedLines(code: string, grammar: string): HighlightedLine[] | undefined {
  return cache.get(`${grammar}\u0000${code}`);
}

/** Highlights `code` as `grammar` (an id from GRAMMARS), line by line. */
export async function highlightLines(code: string, grammar: string): Promise<HighlightedLine[]> {
  const key = `${grammar}\u0000${code}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const hl = await core();
  await ensureGrammar(hl, grammar);
  const { tokens } = hl.codeToTokens(code, {
    lang: grammar,
    themes: { light: "github-light", dark: "github-dark" },
    defaultColor: false,
  });
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(key, tokens);
  return tokens;
}
