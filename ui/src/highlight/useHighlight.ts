import { useEffect, useState } from "react";
import { cachedLines, highlightLines, type HighlightedLine } from "./highlighter";

/**
 * Highlighted lines of `code`, or null while the grammar loads (render plain text then) or
 * when there is no grammar. Stale results for older `code` are never returned.
 */
export function useHighlight(code: string, grammar: string | null): HighlightedLine[] | null {
  const [state, setState] = useState<{ code: string; grammar: string | null; lines: HighlightedLine[] } | null>(null);

  useEffect(() => {
    if (!grammar || cachedLines(code, grammar)) return;
    let live = true;
    highlightLines(code, grammar)
      .then((lines) => {
        if (live) setState({ code, grammar, lines });
      })
      .catch(() => {
        // A grammar that fails to load leaves the code as plain text.
      });
    return () => {
      live = false;
    };
  }, [code, grammar]);

  if (!grammar) return null;
  const cached = cachedLines(code, grammar);
  if (cached) return cached;
  return state && state.code === code && state.grammar === grammar ? state.lines : null;
}
