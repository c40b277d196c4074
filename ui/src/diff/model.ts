/**
 * Unified diffs (the `diff` of FileChange and of file-write approvals) as rows to render.
 * Parsing is the `diff` library's; this module only lays lines out for the two views.
 */
import { diffWordsWithSpace, parsePatch } from "diff";

export type LineKind = "context" | "add" | "del";

export interface DiffLine {
  kind: LineKind;
  oldNo: number | null;
  newNo: number | null;
  text: string;
  /** Index of this line in the hunk's old-side / new-side text (for highlighting). */
  oldIndex: number | null;
  newIndex: number | null;
  /** For a changed line paired with its counterpart: the [start, end) spans that differ. */
  spans: Array<[number, number]> | null;
}

export interface DiffHunk {
  header: string;
  lines: DiffLine[];
  /** Old side (context + deletions) and new side (context + additions), one line each. */
  oldText: string;
  newText: string;
}

export interface DiffFile {
  oldPath: string | null;
  newPath: string | null;
  hunks: DiffHunk[];
  additions: number;
  deletions: number;
}

/** One row of the split view: the old line on the left, the new one on the right. */
export interface SplitRow {
  left: DiffLine | null;
  right: DiffLine | null;
}

function cleanPath(name: string | undefined): string | null {
  if (!name || name === "/dev/null") return null;
  return name.replace(/^[ab]\//, "");
}

/** Parses a unified diff with one or more files. Malformed input gives no files. */
export function parseDiff(text: string): DiffFile[] {
  let patches;
  try {
    patches = parsePatch(text);
  } catch {
    return [];
  }
  return patches
    .filter((p) => p.hunks.length > 0 || p.oldFileName || p.newFileName)
    .map((patch) => {
      let additions = 0;
      let deletions = 0;
      const hunks = patch.hunks.map((hunk) => {
        let oldNo = hunk.oldStart;
        let newNo = hunk.newStart;
        const oldSide: string[] = [];
        const newSide: string[] = [];
        const lines: DiffLine[] = [];
        for (const raw of hunk.lines) {
          const sign = raw[0];
          const body = raw.slice(1);
          if (sign === "\\") continue; // "\ No newline at end of file"
          if (sign === "+") {
            additions++;
            lines.push({ kind: "add", oldNo: null, newNo: newNo++, text: body, oldIndex: null, newIndex: newSide.length, spans: null });
            newSide.push(body);
          } else if (sign === "-") {
            deletions++;
            lines.push({ kind: "del", oldNo: oldNo++, newNo: null, text: body, oldIndex: oldSide.length, newIndex: null, spans: null });
            oldSide.push(body);
          } else {
            lines.push({
              kind: "context",
              oldNo: oldNo++,
              newNo: newNo++,
              text: body,
              oldIndex: oldSide.length,
              newIndex: newSide.length,
              spans: null,
            });
            oldSide.push(body);
            newSide.push(body);
          }
        }
        markWordChanges(lines);
        return {
          header: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
          lines,
          oldText: oldSide.join("\n"),
          newText: newSide.join("\n"),
        };
      });
      return { oldPath: cleanPath(patch.oldFileName), newPath: cleanPath(patch.newFileName), hunks, additions, deletions };
    });
}

/** Pairs each run of deletions with the additions that follow it, line by line. */
export function splitRows(lines: readonly DiffLine[]): SplitRow[] {
  const rows: SplitRow[] = [];
  let at = 0;
  while (at < lines.length) {
    const line = lines[at];
    if (!line) break;
    if (line.kind === "context") {
      rows.push({ left: line, right: line });
      at++;
      continue;
    }
    const dels: DiffLine[] = [];
    const adds: DiffLine[] = [];
    while (lines[at]?.kind === "del") dels.push(lines[at++] as DiffLine);
    while (lines[at]?.kind === "add") adds.push(lines[at++] as DiffLine);
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
      rows.push({ left: dels[i] ?? null, right: adds[i] ?? null });
    }
  }
  return rows;
}

/** Longest line pair that gets word-level marks (longer pairs cost more than they show). */
const WORD_DIFF_MAX_CHARS = 1000;

/**
 * Marks what changed inside each deletion/addition pair (runs paired line by line, as in
 * the split view). Pairs that share too little are left whole: marking nearly every word
 * says less than the line colour already does.
 */
export function markWordChanges(lines: DiffLine[]): void {
  for (const { left, right } of splitRows(lines)) {
    if (!left || !right || left.kind !== "del" || right.kind !== "add") continue;
    if (left.text.length + right.text.length > WORD_DIFF_MAX_CHARS) continue;
    const parts = diffWordsWithSpace(left.text, right.text);
    const oldSpans: Array<[number, number]> = [];
    const newSpans: Array<[number, number]> = [];
    let oldAt = 0;
    let newAt = 0;
    let common = 0;
    for (const part of parts) {
      const length = part.value.length;
      if (part.removed) {
        oldSpans.push([oldAt, oldAt + length]);
        oldAt += length;
      } else if (part.added) {
        newSpans.push([newAt, newAt + length]);
        newAt += length;
      } else {
        common += length;
        oldAt += length;
        newAt += length;
      }
    }
    const longest = Math.max(left.text.length, right.text.length);
    if (longest === 0 || common / longest < 0.4) continue;
    left.spans = oldSpans;
    right.spans = newSpans;
  }
}
