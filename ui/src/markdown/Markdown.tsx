import { memo, useMemo, useRef } from "react";
import { EMPTY_SPLIT, splitIncrementally, type BlockSplit } from "./blocks";
import { MarkdownBlock } from "./MarkdownBlock";
import { useThrottled } from "./useThrottled";
import "./markdown.css";

/** How often streamed markdown re-renders, in ms. */
export const STREAM_RENDER_INTERVAL_MS = 50;

export interface MarkdownProps {
  text: string;
  /** True while deltas still arrive: renders on a 50 ms cadence, re-parsing only the tail. */
  streaming?: boolean;
}

/**
 * Assistant markdown. Final text renders as one document; streaming text renders block by
 * block so that settled blocks are never parsed or rendered again.
 */
export const Markdown = memo(function Markdown({ text, streaming = false }: MarkdownProps) {
  const shown = useThrottled(text, STREAM_RENDER_INTERVAL_MS, streaming);
  const split = useRef<BlockSplit>(EMPTY_SPLIT);
  const blocks = useMemo(() => {
    if (!streaming) return null;
    split.current = splitIncrementally(split.current, shown);
    return split.current.blocks;
  }, [shown, streaming]);

  return (
    <div className="markdown">
      {blocks ? blocks.map((block, i) => <MarkdownBlock key={i} source={block} />) : <MarkdownBlock source={shown} />}
    </div>
  );
});
