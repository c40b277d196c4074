import { memo, useMemo } from "react";
import { TokenLine } from "../highlight/HighlightedCode";
import type { HighlightedLine } from "../highlight/highlighter";
import { grammarForPath } from "../highlight/languages";
import { useHighlight } from "../highlight/useHighlight";
import { useDiffLayout, type DiffLayout } from "./diffPrefs";
import { parseDiff, splitRows, type DiffFile, type DiffHunk, type DiffLine } from "./model";
import "./diff.css";

export interface DiffViewProps {
  /** A unified diff (one or more files). */
  diff: string;
  /** Path to show (and to pick the grammar) when the diff's own headers lack one. */
  path?: string;
  /** Cap on the height of the scroll area, in px. */
  maxHeight?: number;
}

/** A unified diff shown unified or split (the toggle is shared by all diffs), highlighted. */
export const DiffView = memo(function DiffView({ diff, path, maxHeight = 420 }: DiffViewProps) {
  const files = useMemo(() => parseDiff(diff), [diff]);
  const layout = useDiffLayout((s) => s.layout);
  const setLayout = useDiffLayout((s) => s.setLayout);

  if (files.length === 0) {
    return <pre className="diff-raw">{diff}</pre>;
  }
  return (
    <div className="diff-view">
      {files.map((file, i) => (
        <DiffFileView
          key={i}
          file={file}
          fallbackPath={path}
          layout={layout}
          toggle={i === 0 ? <LayoutToggle layout={layout} onChange={setLayout} /> : null}
          maxHeight={maxHeight}
        />
      ))}
    </div>
  );
});

function LayoutToggle({ layout, onChange }: { layout: DiffLayout; onChange: (l: DiffLayout) => void }) {
  return (
    <div className="diff-toggle" role="group" aria-label="Diff layout">
      {(["unified", "split"] as const).map((option) => (
        <button
          key={option}
          type="button"
          aria-pressed={layout === option}
          className="diff-toggle-btn"
          onClick={() => onChange(option)}
        >
          {option === "unified" ? "Unified" : "Split"}
        </button>
      ))}
    </div>
  );
}

function DiffFileView({
  file,
  fallbackPath,
  layout,
  toggle,
  maxHeight,
}: {
  file: DiffFile;
  fallbackPath: string | undefined;
  layout: DiffLayout;
  toggle: React.ReactNode;
  maxHeight: number;
}) {
  const path = file.newPath ?? file.oldPath ?? fallbackPath ?? "file";
  const grammar = grammarForPath(path);
  const label = file.oldPath === null ? "added" : file.newPath === null ? "deleted" : file.oldPath !== file.newPath ? `moved from ${file.oldPath}` : null;
  return (
    <section className="diff-file" aria-label={`Changes to ${path}`}>
      <header className="diff-file-header">
        <span className="diff-path mono">{path}</span>
        {label && <span className="diff-file-note">{label}</span>}
        <span className="diff-stat">
          <span className="diff-stat-add">+{file.additions}</span>
          <span className="diff-stat-del">−{file.deletions}</span>
        </span>
        {toggle}
      </header>
      <div className="diff-scroll scroll-thin" style={{ maxHeight }}>
        <table className={`diff-table diff-${layout}`} data-layout={layout}>
          {layout === "split" ? (
            <colgroup>
              <col className="diff-col-no" />
              <col />
              <col className="diff-col-no" />
              <col />
            </colgroup>
          ) : (
            <colgroup>
              <col className="diff-col-no" />
              <col className="diff-col-no" />
              <col className="diff-col-sign" />
              <col />
            </colgroup>
          )}
          {file.hunks.map((hunk, i) => (
            <HunkView key={i} hunk={hunk} grammar={grammar} layout={layout} />
          ))}
        </table>
      </div>
    </section>
  );
}

const HunkView = memo(function HunkView({ hunk, grammar, layout }: { hunk: DiffHunk; grammar: string | null; layout: DiffLayout }) {
  const oldTokens = useHighlight(hunk.oldText, grammar);
  const newTokens = useHighlight(hunk.newText, grammar);
  return (
    <tbody>
      <tr className="diff-hunk-header">
        <td colSpan={4} className="mono">{hunk.header}</td>
      </tr>
      {layout === "unified"
        ? hunk.lines.map((line, i) => (
            <tr key={i} className={`diff-line diff-${line.kind}`}>
              <td className="diff-no">{line.oldNo ?? ""}</td>
              <td className="diff-no">{line.newNo ?? ""}</td>
              <td className="diff-sign" aria-hidden="true">{sign(line)}</td>
              <td className="diff-code">
                <span className="sr-only">{srSign(line)}</span>
                <LineCode line={line} oldTokens={oldTokens} newTokens={newTokens} />
              </td>
            </tr>
          ))
        : splitRows(hunk.lines).map((row, i) => (
            <tr key={i} className="diff-line">
              <SplitCell line={row.left} side="old" oldTokens={oldTokens} newTokens={newTokens} />
              <SplitCell line={row.right} side="new" oldTokens={oldTokens} newTokens={newTokens} />
            </tr>
          ))}
    </tbody>
  );
});

function SplitCell({
  line,
  side,
  oldTokens,
  newTokens,
}: {
  line: DiffLine | null;
  side: "old" | "new";
  oldTokens: HighlightedLine[] | null;
  newTokens: HighlightedLine[] | null;
}) {
  if (!line) {
    return (
      <>
        <td className="diff-no diff-empty" />
        <td className="diff-code diff-empty" />
      </>
    );
  }
  const kind = line.kind;
  return (
    <>
      <td className={`diff-no diff-${kind}`}>{side === "old" ? line.oldNo : line.newNo}</td>
      <td className={`diff-code diff-${kind}`}>
        <span className="sr-only">{srSign(line)}</span>
        <LineCode line={line} oldTokens={oldTokens} newTokens={newTokens} prefer={side} />
      </td>
    </>
  );
}

function LineCode({
  line,
  oldTokens,
  newTokens,
  prefer,
}: {
  line: DiffLine;
  oldTokens: HighlightedLine[] | null;
  newTokens: HighlightedLine[] | null;
  prefer?: "old" | "new";
}) {
  const useOld = line.kind === "del" || (line.kind === "context" && prefer === "old");
  const tokens = useOld
    ? line.oldIndex !== null
      ? oldTokens?.[line.oldIndex]
      : undefined
    : line.newIndex !== null
      ? newTokens?.[line.newIndex]
      : undefined;
  if (!line.spans || line.spans.length === 0) return <TokenLine tokens={tokens} fallback={line.text} />;
  return <MarkedLine text={line.text} tokens={tokens} spans={line.spans} />;
}

/** A line whose changed spans are wrapped in marks, keeping the syntax colours. */
function MarkedLine({ text, tokens, spans }: { text: string; tokens: HighlightedLine | undefined; spans: Array<[number, number]> }) {
  const pieces = tokens ?? [{ content: text, offset: 0, htmlStyle: undefined }];
  const out: React.ReactNode[] = [];
  let at = 0;
  for (const token of pieces) {
    const start = at;
    const end = at + token.content.length;
    at = end;
    // Cut the token at every span edge inside it.
    const cuts = new Set([start, end]);
    for (const [a, b] of spans) {
      if (a > start && a < end) cuts.add(a);
      if (b > start && b < end) cuts.add(b);
    }
    const edges = [...cuts].sort((x, y) => x - y);
    for (let i = 0; i < edges.length - 1; i++) {
      const a = edges[i] as number;
      const b = edges[i + 1] as number;
      const piece = token.content.slice(a - start, b - start);
      const changed = spans.some(([s, e]) => a >= s && b <= e);
      const style = (token.htmlStyle ?? undefined) as React.CSSProperties | undefined;
      out.push(
        <span key={`${a}`} className={`${tokens ? "hl" : ""}${changed ? " diff-word" : ""}`} style={style}>
          {piece}
        </span>,
      );
    }
  }
  return <>{out}</>;
}

function sign(line: DiffLine): string {
  return line.kind === "add" ? "+" : line.kind === "del" ? "−" : " ";
}

function srSign(line: DiffLine): string {
  return line.kind === "add" ? "added: " : line.kind === "del" ? "removed: " : "";
}
