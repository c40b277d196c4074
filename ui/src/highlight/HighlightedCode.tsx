import { memo, type CSSProperties } from "react";
import type { HighlightedLine } from "./highlighter";
import { useHighlight } from "./useHighlight";
import "./highlight.css";

/** The tokens of one line as spans (no HTML strings: nothing is injected). */
export const TokenLine = memo(function TokenLine({ tokens, fallback }: { tokens: HighlightedLine | undefined; fallback: string }) {
  if (!tokens) return <>{fallback}</>;
  return (
    <>
      {tokens.map((token, i) => (
        <span key={i} className="hl" style={token.htmlStyle as CSSProperties | undefined}>
          {token.content}
        </span>
      ))}
    </>
  );
});

export interface HighlightedCodeProps {
  code: string;
  grammar: string | null;
  className?: string;
  "aria-label"?: string;
}

/** A highlighted block of code (`<pre><code>`), plain until the grammar has loaded. */
export const HighlightedCode = memo(function HighlightedCode({ code, grammar, className, ...rest }: HighlightedCodeProps) {
  const lines = useHighlight(code, grammar);
  const text = code.endsWith("\n") ? code.slice(0, -1) : code;
  return (
    <pre className={`code-block${className ? ` ${className}` : ""}`} aria-label={rest["aria-label"]}>
      <code>
        {lines
          ? lines.map((tokens, i) => (
              <span key={i} className="code-line">
                <TokenLine tokens={tokens} fallback="" />
                {"\n"}
              </span>
            ))
          : text}
      </code>
    </pre>
  );
});
