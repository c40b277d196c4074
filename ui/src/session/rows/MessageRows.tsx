import { memo, useId, useState } from "react";
import { Markdown } from "../../markdown/Markdown";
import { Badge } from "../../primitives/Badge";
import { BrainIcon, ChevronIcon } from "../../primitives/icons";
import { StreamingDots } from "../../primitives/Spinner";
import { InlineCode } from "../../text/InlineCode";
import type { AbortedRow, AssistantRow, ReasoningRow, UserRow } from "../rows";

const USER_STATE_LABEL: Record<UserRow["state"], string | null> = {
  sent: null,
  pending: "sending",
  queued: "queued",
  failed: "not sent",
};

export const UserMessage = memo(function UserMessage({ row }: { row: UserRow }) {
  const label = USER_STATE_LABEL[row.state];
  return (
    <article
      className={`msg-user msg-user-${row.state}${row.injectedBy ? " msg-user-injected" : ""}`}
      aria-label={row.injectedBy ? `Message added by Tack (${row.injectedBy})` : label ? `Your message (${label})` : "Your message"}
    >
      {row.injectedBy && <div className="msg-user-injected-by">added by Tack · {row.injectedBy.replace(/_/g, " ")}</div>}
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
  return (
    <article className="msg-assistant" aria-label="Assistant message" aria-busy={streaming}>
      <Markdown text={row.text} streaming={streaming} />
      {row.open && <StreamingDots label="Assistant is writing" />}
    </article>
  );
});

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
        {!open && !streaming && <span className="reasoning-size">{wordCount(row.text)} words</span>}
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
