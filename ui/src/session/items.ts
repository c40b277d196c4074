/**
 * Reading protocol items for display.
 */
import type { ContentPart, MessageItem, ReasoningItem } from "../ipc";

/** All text parts of a message, joined without separator (as the protocol crate does). */
export function messageText(message: Pick<MessageItem, "content">): string {
  let text = "";
  for (const part of message.content as ContentPart[]) {
    if (part.type === "text") text += part.text;
  }
  return text;
}

/** Raw reasoning text if any, else the summary parts separated by blank lines. */
export function reasoningText(reasoning: Pick<ReasoningItem, "text" | "summary">): string {
  if (reasoning.text) return reasoning.text;
  return (reasoning.summary ?? []).join("\n\n");
}
