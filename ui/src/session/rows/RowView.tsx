import { memo } from "react";
import type { Row } from "../rows";
import { ErrorNotice } from "./ErrorNotice";
import { InjectedNote } from "./InjectedNote";
import { AbortNote, AssistantMessage, ReasoningBlock, UserMessage } from "./MessageRows";
import { QuestionCard } from "./QuestionCard";
import { ToolCallCard } from "./ToolCallCard";
import "./rows.css";

/** One timeline row. Memoized on the row object: unchanged rows never re-render. */
export const RowView = memo(function RowView({ row }: { row: Row }) {
  switch (row.kind) {
    case "user":
      return <UserMessage row={row} />;
    case "injected":
      return <InjectedNote row={row} />;
    case "assistant":
      return <AssistantMessage row={row} />;
    case "reasoning":
      return <ReasoningBlock row={row} />;
    case "tool":
      return <ToolCallCard row={row} />;
    case "error":
      return <ErrorNotice row={row} />;
    case "aborted":
      return <AbortNote row={row} />;
    case "question":
      return <QuestionCard row={row} />;
  }
});
