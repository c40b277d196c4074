import JsonView from "@uiw/react-json-view";
import { useDeferredValue, useMemo, useState, type CSSProperties, type ReactNode } from "react";
import { searchJson, splitMatches, type Json } from "./jsonSearch";
import "./inspector.css";

export interface JsonTreeProps {
  /** JSON text (a request body). Text that is not JSON is shown as is. */
  text: string;
  label: string;
}

/** A collapsible JSON tree with a search box that filters to matching branches and marks hits. */
export function JsonTree({ text, label }: JsonTreeProps) {
  const parsed = useMemo<{ ok: true; value: Json } | { ok: false }>(() => {
    try {
      return { ok: true, value: JSON.parse(text) as Json };
    } catch {
      return { ok: false };
    }
  }, [text]);
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query);
  const result = useMemo(() => (parsed.ok ? searchJson(parsed.value, deferred) : null), [parsed, deferred]);

  if (!parsed.ok || !result) {
    return <pre className="inspector-raw mono">{text}</pre>;
  }
  const searching = deferred.trim() !== "";
  const root = result.value;
  return (
    <div className="json-tree">
      <div className="json-search">
        <input
          type="search"
          className="input"
          placeholder="Search keys and values"
          aria-label={`Search ${label}`}
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        {searching && (
          <span className="json-search-count" role="status">
            {result.matches === 0 ? "no matches" : `${result.matches} match${result.matches === 1 ? "" : "es"}`}
          </span>
        )}
      </div>
      {root !== null && typeof root === "object" ? (
        <JsonView
          key={searching ? `q:${deferred}` : "all"}
          value={root}
          // A number expands nodes up to that depth (a boolean means the opposite of its name in 1.12).
          collapsed={searching ? 64 : 2}
          displayDataTypes={false}
          enableClipboard={false}
          highlightUpdates={false}
          shortenTextAfterLength={searching ? 0 : 160}
          className="json-view"
          aria-label={label}
          style={JSON_THEME}
          components={{
            value: (props) => (
              <span className={props.className} style={props.style}>
                {highlight(String(props.children ?? ""), deferred)}
              </span>
            ),
            objectKey: ({ className, style, children }) => (
              <span className={className} style={style as CSSProperties}>
                {highlight(String(children ?? ""), deferred)}
              </span>
            ),
          }}
        />
      ) : (
        <pre className="inspector-raw mono">{JSON.stringify(root)}</pre>
      )}
    </div>
  );
}

function highlight(text: string, query: string): ReactNode {
  const parts = splitMatches(text, query);
  if (parts.length === 1 && !parts[0]?.match) return text;
  return parts.map((part, i) => (part.match ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>));
}

/** The library's CSS variables mapped onto the app's tokens (light and dark follow). */
const JSON_THEME = {
  "--w-rjv-font-family": "var(--font-mono)",
  "--w-rjv-color": "var(--text)",
  "--w-rjv-key-string": "var(--accent)",
  "--w-rjv-background-color": "transparent",
  "--w-rjv-line-color": "var(--border)",
  "--w-rjv-arrow-color": "var(--text-muted)",
  "--w-rjv-info-color": "var(--text-faint)",
  "--w-rjv-curlybraces-color": "var(--text-muted)",
  "--w-rjv-colon-color": "var(--text-muted)",
  "--w-rjv-brackets-color": "var(--text-muted)",
  "--w-rjv-quotes-color": "var(--accent)",
  "--w-rjv-quotes-string-color": "var(--success)",
  "--w-rjv-type-string-color": "var(--success)",
  "--w-rjv-type-int-color": "var(--warning)",
  "--w-rjv-type-float-color": "var(--warning)",
  "--w-rjv-type-boolean-color": "var(--danger)",
  "--w-rjv-type-null-color": "var(--text-faint)",
  "--w-rjv-ellipsis-color": "var(--text-muted)",
} as CSSProperties;
