import { memo, useId, useMemo, useState } from "react";
import { HighlightedCode } from "../../highlight/HighlightedCode";
import { Markdown } from "../../markdown/Markdown";
import { Badge } from "../../primitives/Badge";
import { BrainIcon, ChevronIcon } from "../../primitives/icons";
import { StreamingDots } from "../../primitives/Spinner";
import { InlineCode } from "../../text/InlineCode";
import type { AbortedRow, AssistantRow, ReasoningRow, UserRow } from "../rows";
import { counted } from "../../text/plural";

const USER_STATE_LABEL: Record<UserRow["state"], string | null> = {
  sent: null,
  pending: "sending",
  queued: "queued",
  failed: "not sent",
};

export const UserMessage = memo(function UserMessage({ row }: { row: UserRow }) {
  const label = USER_STATE_LABEL[row.state];
  return (
    <article className={`msg-user msg-user-${row.state}`} aria-label={label ? `Your message (${label})` : "Your message"}>
      <div className="msg-user-text">
        <InlineCode text={row.text} />
      </div>
      {label && (
        <Badge tone={row.state === "failed" ? "danger" : row.state === "queued" ? "accent" : "neutral"} className="msg-user-state">
          {label}
        </Badge>
      )}
    </article>
  );
});

export const AssistantMessage = memo(function AssistantMessage({ row }: { row: AssistantRow }) {
  const streaming = !row.final;
  if (row.parsedInto && !streaming) return <RawReply row={row} />;
  return (
    <article className="msg-assistant" aria-label="Assistant message" aria-busy={streaming}>
      <Markdown text={row.text} streaming={streaming} />
      {row.open && <StreamingDots label="Assistant is writing" />}
    </article>
  );
});

/**
 * A reply a text-protocol harness read an action out of: the model's raw text, labelled as
 * such (JSON replies shown as JSON), with the action on the tool card below it.
 */
function RawReply({ row }: { row: AssistantRow }) {
  const json = useMemo(() => asJson(row.text), [row.text]);
  return (
    <article className="msg-assistant msg-raw" aria-label="The model's text (an action was read from it)">
      <p className="msg-raw-caption">The model&apos;s reply, as written · Tack read the action below out of it</p>
      {json !== null ? <HighlightedCode code={json} grammar="json" className="msg-raw-json" /> : <Markdown text={row.text} streaming={false} />}
    </article>
  );
}

/** The text re-indented when it is a JSON object (terminus-2 replies), else null. */
function asJson(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return null;
  }
}

/** Reasoning, collapsed by default; a live indicator while it streams. */
export const ReasoningBlock = memo(function ReasoningBlock({ row }: { row: ReasoningRow }) {
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const streaming = !row.final;
  return (
    <section className="msg-reasoning" aria-label="Reasoning">
      <button
        type="button"
        className="reasoning-toggle"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen(!open)}
      >
        <ChevronIcon className={`chevron${open ? " chevron-open" : ""}`} />
        <BrainIcon />
        <span>{streaming ? "Thinking" : "Reasoning"}</span>
        {streaming && <StreamingDots label="Reasoning streams" />}
        {!open && !streaming && <span className="reasoning-size">{counted(wordCount(row.text), "word")}</span>}
      </button>
      {open && (
        <div className="reasoning-body" id={bodyId}>
          <Markdown text={row.text} streaming={streaming} />
        </div>
      )}
    </section>
  );
});

const ABORT_TEXT: Record<AbortedRow["reason"], string> = {
  interrupted: "Turn interrupted.",
  approval_aborted: "Turn aborted at an approval.",
  failed: "Turn stopped after an error.",
};

export const AbortNote = memo(function AbortNote({ row }: { row: AbortedRow }) {
  return (
    <p className="msg-note" role="note">
      <span className="msg-note-rule" aria-hidden="true" />
      {ABORT_TEXT[row.reason]}
      <span className="msg-note-rule" aria-hidden="true" />
    </p>
  );
});

function wordCount(text: string): number {
  const words = text.trim().split(/\s+/);
  return words[0] === "" ? 0 : words.length;
}
