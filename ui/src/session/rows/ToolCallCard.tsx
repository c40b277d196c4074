import { memo, useId, useLayoutEffect, useMemo, useRef, useState } from "react";
import stripAnsi from "strip-ansi";
import { DiffView } from "../../diff/DiffView";
import { HighlightedCode } from "../../highlight/HighlightedCode";
import type { ResolvedDecision, ToolDetails } from "../../ipc";
import { useUiStore } from "../../app/uiStore";
import { Badge, type BadgeTone } from "../../primitives/Badge";
import { ChevronIcon, TerminalIcon, TextSourceIcon, ToolIcon } from "../../primitives/icons";
import { Spinner, StreamingDots } from "../../primitives/Spinner";
import { ranWhere } from "../../sandbox/sandbox";
import { TodoList } from "../../todos/TodoList";
import { doneCount } from "../../todos/todos";
import { Visible } from "../../text/Visible";
import { visibleLines } from "../../text/visible";
import type { ToolRow } from "../rows";
import {
  argumentSummary,
  formatDuration,
  prettyArguments,
  shellCommand,
  terminalKeystrokes,
  toolBadge,
  type Keystrokes,
  type ToolBadge,
} from "./toolCall";

const BADGE_TONE: Record<ToolBadge, BadgeTone> = {
  preparing: "neutral",
  pending: "neutral",
  "needs approval": "warning",
  "needs answer": "warning",
  running: "accent",
  completed: "success",
  failed: "danger",
  denied: "warning",
  aborted: "neutral",
  "timed out": "danger",
};

/** A tool call: what was asked, its status, live output, result, and file diffs. */
export const ToolCallCard = memo(function ToolCallCard({ row }: { row: ToolRow }) {
  const badge = toolBadge(row);
  const command = shellCommand(row);
  const changes = row.output?.details?.type === "file_changes" ? row.output.details.changes : null;
  // Open by default: anything not plainly successful, file edits (the diff is the point) and
  // calls that ran while the user watched, and calls the user let out of the sandbox.
  // Successful calls from history fold to one line.
  const [expanded, setExpanded] = useState<boolean | null>(null);
  // Questions are shown by their own card below, so their call stays folded.
  const open = expanded ?? (row.question ? badge !== "completed" && badge !== "needs answer" : badge !== "completed" || changes !== null || row.liveOutput !== "" || Boolean(row.escalation));
  const bodyId = useId();
  const keystrokes = useMemo(() => terminalKeystrokes(row), [row]);
  const details = row.output?.details;
  const summary =
    command ??
    (keystrokes
      ? keystrokesSummary(keystrokes)
      : details?.type === "todos"
        ? `${doneCount(details.todos)} of ${details.todos.length} done`
        : argumentSummary(row.input));

  return (
    <article className={`tool-card tool-${badge.replace(" ", "-")}`} aria-label={`Tool call ${row.name}: ${badge}`}>
      <header className="tool-header">
        <button
          type="button"
          className="tool-toggle"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => setExpanded(!open)}
        >
          <ChevronIcon className={`chevron${open ? " chevron-open" : ""}`} />
          <span className="tool-icon">{command !== null ? <TerminalIcon /> : <ToolIcon />}</span>
          <span className="tool-name">{row.name}</span>
          {summary && !open && <span className="tool-summary mono"><Visible text={summary} /></span>}
        </button>
        <span className="tool-meta">
          {row.source && <SourceLink source={row.source} />}
          {row.output?.exit_code !== undefined && row.output.exit_code !== null && (
            <span className={`tool-exit mono${row.output.exit_code === 0 ? "" : " tool-exit-bad"}`}>exit {row.output.exit_code}</span>
          )}
          {row.output?.duration_ms !== undefined && row.output.duration_ms !== null && (
            <span className="tool-duration">{formatDuration(row.output.duration_ms)}</span>
          )}
          <Badge tone={BADGE_TONE[badge]} className="tool-badge">
            {(badge === "running" || badge === "preparing") && <Spinner label={badge} />}
            {badge}
          </Badge>
        </span>
      </header>
      {open && (
        <div className="tool-body" id={bodyId}>
          {row.input.kind === "pending" && !row.output && (
            <p className="tool-note tool-writing">
              The model is writing the call <StreamingDots label="Arguments stream" />
            </p>
          )}
          {row.source && (
            <p className="tool-parsed">
              {row.input.kind === "shell" ? "Tack read this command out of the model's text." : "Tack read this action out of the model's text."}
            </p>
          )}
          {command !== null ? (
            <pre className="tool-command mono" aria-label="Command">
              <span className="tool-prompt" aria-hidden="true">$ </span>
              <Visible text={command} />
            </pre>
          ) : keystrokes ? (
            <KeystrokeList keystrokes={keystrokes} />
          ) : row.question ? (
            <p className="tool-note">The questions, and the answers, are in the card below.</p>
          ) : (
            // With file changes the diff says it better than the raw arguments.
            row.input.kind !== "pending" && changes === null && <ToolArguments row={row} />
          )}
          {/* Once the kept failure's output is in, its own denial line says it. */}
          {row.escalation && !(details?.type === "exec" && details.sandbox_denial) && <EscalationNote denial={row.escalation} />}
          {row.decision && <DecisionNote decision={row.decision} escalated={Boolean(row.escalation)} />}
          <ToolOutputView row={row} />
          {changes && (
            <div className="tool-diffs">
              {changes.map((change, i) => (
                <DiffView key={i} diff={visibleLines(change.diff)} path={change.move_to ?? change.path} />
              ))}
            </div>
          )}
          {row.output?.details && <DetailsNote details={row.output.details} />}
        </div>
      )}
    </article>
  );
});

function ToolArguments({ row }: { row: ToolRow }) {
  const text = useMemo(() => prettyArguments(row.input), [row.input]);
  if (!text || text === "{}") return null;
  const grammar = row.input.kind === "function" ? "json" : null;
  return <HighlightedCode code={text} grammar={grammar} className="tool-args" aria-label="Arguments" />;
}

/** The sandbox refused the command and Tack asked to run it again outside. */
function EscalationNote({ denial }: { denial: string }) {
  return (
    <p className="tool-sandbox-denial" role="note">
      The sandbox refused: <span className="mono"><Visible text={denial} /></span>
    </p>
  );
}

function DecisionNote({ decision, escalated = false }: { decision: ResolvedDecision; escalated?: boolean }) {
  switch (decision.type) {
    case "approve_once":
      return <p className="tool-decision">{escalated ? "Approved to run again outside the sandbox." : "Approved once."}</p>;
    case "approve_for_session":
      return <p className="tool-decision">Approved for this session.</p>;
    case "deny":
      if (escalated) return <p className="tool-decision tool-decision-deny">Kept the sandbox&apos;s failure: not run outside.</p>;
      return (
        <p className="tool-decision tool-decision-deny">
          Denied{decision.reason ? <>: <q>{decision.reason}</q></> : "."}
        </p>
      );
    case "abort_turn":
      return <p className="tool-decision tool-decision-deny">Turn aborted at approval.</p>;
  }
}

/** Live output while running; the final text afterwards. Monospace, ANSI stripped, tail-following. */
function ToolOutputView({ row }: { row: ToolRow }) {
  const raw = row.output ? row.output.text : row.liveOutput;
  const text = useMemo(() => stripAnsi(raw), [raw]);
  const ref = useRef<HTMLPreElement>(null);
  const follow = useRef(true);

  useLayoutEffect(() => {
    const el = ref.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [text]);

  if (!text) return null;
  return (
    <pre
      ref={ref}
      className="tool-output mono scroll-thin"
      aria-label="Output"
      tabIndex={0}
      onScroll={(event) => {
        const el = event.currentTarget;
        // Keep following the tail only while the reader is at it.
        follow.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 8;
      }}
    >
      {text}
    </pre>
  );
}

function DetailsNote({ details }: { details: ToolDetails }) {
  if (details.type === "exec") {
    const contained = Boolean(details.sandbox) && details.sandbox !== "danger-full-access";
    return (
      <>
        <p className="tool-note">
          in <span className="mono"><Visible text={details.cwd} /></span> ·{" "}
          <span className={`tool-sandbox${contained ? "" : " tool-sandbox-none"}`} data-testid="tool-sandbox">
            {ranWhere(details.sandbox)}
          </span>
          {details.truncated_bytes > 0 && <> · {details.truncated_bytes.toLocaleString()} bytes of output dropped</>}
        </p>
        {details.sandbox_denial && (
          <p className="tool-sandbox-denial" role="note">
            The sandbox refused: <span className="mono"><Visible text={details.sandbox_denial} /></span>
          </p>
        )}
      </>
    );
  }
  if (details.type === "todos") return <TodoList entries={details.todos} className="tool-todos" />;
  return null;
}

/** "From the model's text": scrolls to the assistant message the call was read from. */
function SourceLink({ source }: { source: string }) {
  const revealRow = useUiStore((s) => s.revealRow);
  return (
    <button type="button" className="tool-source" onClick={() => revealRow(source)} title="Show the model's text this call was read from">
      <TextSourceIcon />
      from the model&apos;s text
    </button>
  );
}

/** Keystrokes sent to a terminal (terminus-2), one command per line with its wait. */
function KeystrokeList({ keystrokes }: { keystrokes: Keystrokes }) {
  if (keystrokes.length === 0) return <p className="tool-note">No keystrokes: the call only reads the screen.</p>;
  return (
    <ol className="tool-keys mono" aria-label="Keystrokes">
      {keystrokes.map((k, i) => (
        <li key={i}>
          <span className="tool-key-text"><Visible text={showKeys(k.keys)} /></span>
          {k.duration !== null && <span className="tool-key-wait">wait {formatDuration(k.duration * 1000)}</span>}
        </li>
      ))}
    </ol>
  );
}

/** Control characters as readable marks: a newline is Enter (⏎), a tab ⇥. */
function showKeys(keys: string): string {
  return keys.replace(/\r?\n/g, "⏎").replace(/\t/g, "⇥");
}

function keystrokesSummary(keystrokes: Keystrokes): string | null {
  const first = keystrokes[0];
  if (!first) return null;
  const line = showKeys(first.keys);
  return keystrokes.length > 1 ? `${line} (+${keystrokes.length - 1})` : line;
}
