/**
 * Splitting markdown into top-level blocks, incrementally.
 *
 * While a message streams, everything before the last block is settled: new text can only
 * extend (or re-shape) the last block. So each update re-parses only the tail starting at
 * the last block, and settled blocks keep their exact source string, which lets their
 * memoized renderers skip work entirely.
 */
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";

const parser = unified().use(remarkParse).use(remarkGfm);

export interface BlockSplit {
  /** The text this split was made from. */
  text: string;
  /** Sources of the blocks, in order; concatenated they give `text`. */
  blocks: string[];
  /** Offset in `text` where the last block starts (the part re-parsed next time). */
  tailStart: number;
}

export const EMPTY_SPLIT: BlockSplit = { text: "", blocks: [], tailStart: 0 };

/** Top-level blocks of `source`, each with its trailing blank lines. */
export function parseBlocks(source: string): string[] {
  if (!source) return [];
  const tree = parser.parse(source);
  const starts = tree.children
    .map((node) => node.position?.start.offset)
    .filter((offset): offset is number => offset !== undefined);
  if (starts.length === 0) return [source];
  starts[0] = 0;
  return starts.map((start, i) => source.slice(start, starts[i + 1] ?? source.length));
}

/**
 * Splits `text`, reusing `previous` when `text` extends it: only the text from the previous
 * last block on is parsed again.
 */
export function splitIncrementally(previous: BlockSplit, text: string): BlockSplit {
  if (text === previous.text) return previous;
  if (previous.blocks.length === 0 || !text.startsWith(previous.text)) {
    return fromBlocks(text, parseBlocks(text));
  }
  const settled = previous.blocks.slice(0, -1);
  const tail = parseBlocks(text.slice(previous.tailStart));
  return fromBlocks(text, settled.concat(tail), previous.tailStart, settled.length);
}

function fromBlocks(text: string, blocks: string[], knownOffset = 0, knownCount = 0): BlockSplit {
  let tailStart = knownOffset;
  for (let i = knownCount; i < blocks.length - 1; i++) tailStart += blocks[i]?.length ?? 0;
  return { text, blocks, tailStart };
}
