import type { PromptSource } from "./format";

/**
 * Where a request's prompt came from: a kind chip (`built-in`, `file`, `imported`) and the
 * template or path. `compact` shows the first source only, with a count of the others.
 */
export function PromptSourceLabel({ sources, compact = false }: { sources: readonly PromptSource[]; compact?: boolean }) {
  const shown = compact ? sources.slice(0, 1) : sources;
  return (
    <span className={`prompt-sources${compact ? " prompt-sources-compact" : ""}`} data-testid="prompt-source">
      {shown.map((source) => (
        <span key={source.raw} className="prompt-source" title={source.raw}>
          {source.kind && <span className={`prompt-kind prompt-kind-${source.kind.replace(/\W+/g, "")}`}>{source.kind}</span>}
          <span className="prompt-value mono">{source.value}</span>
        </span>
      ))}
      {compact && sources.length > 1 && <span className="prompt-more">+{sources.length - 1}</span>}
    </span>
  );
}
