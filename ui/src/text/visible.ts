/**
 * Showing untrusted text (a command, a path, a reason) so that what is displayed is exactly
 * what it contains: the TypeScript twin of `tack_protocol::visible` (same tokens, same
 * characters), for the approval dialog and the tool cards.
 *
 * A browser does not run terminal escapes, but it does apply bidi controls (U+202E turns
 * `txt.exe` into `exe.txt`), hides zero-width characters and draws a no-break space like the
 * space that separates shell words. Every such character, and every control character
 * (C0, DEL, C1, so every ESC sequence), becomes a token that names it:
 * `⟨\e⟩`, `⟨\0⟩`, `⟨\r⟩`, `⟨\t⟩`, `⟨\n⟩` (followed by a real line break), `⟨\x07⟩` for other
 * C0 controls and DEL, `⟨U+202E⟩` for the rest, and `⟨U+27E8⟩` for a literal `⟨` so a token
 * can't be forged. Different texts never display the same.
 */

/** One run of the displayed text: plain characters, or one token standing for a hidden one. */
export interface VisiblePart {
  text: string;
  /** A token (shown in a distinct style), not the text's own characters. */
  token: boolean;
}

const NAMED: Record<number, string> = { 0x1b: "\\e", 0x00: "\\0", 0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t" };

/** Code point ranges shown as `⟨U+XXXX⟩`; kept equal to `is_hidden` in `crates/protocol/src/visible.rs`. */
const HIDDEN: ReadonlyArray<readonly [number, number]> = [
  [0x80, 0x9f], // C1 controls
  [0xa0, 0xa0], // no-break space
  [0xad, 0xad], // soft hyphen
  [0x34f, 0x34f], // combining grapheme joiner
  [0x61c, 0x61c], // Arabic letter mark
  [0x115f, 0x1160], // Hangul fillers
  [0x17b4, 0x17b5], // Khmer inherent vowels
  [0x180b, 0x180f], // Mongolian selectors, vowel separator
  [0x1680, 0x1680], // Ogham space mark
  [0x2000, 0x200a], // typographic spaces
  [0x200b, 0x200f], // zero-width space/joiners, LRM/RLM
  [0x2028, 0x202f], // line/paragraph separators, bidi embeddings/overrides, narrow no-break space
  [0x205f, 0x206f], // math space, word joiner, invisible operators, bidi isolates
  [0x27e8, 0x27e8], // ⟨ itself, so a token can't be forged
  [0x3000, 0x3000], // ideographic space
  [0x3164, 0x3164], // Hangul filler
  [0xfe00, 0xfe0f], // variation selectors
  [0xfeff, 0xfeff], // byte order mark
  [0xffa0, 0xffa0], // halfwidth Hangul filler
  [0xfff9, 0xfffb], // interlinear annotation
  [0x1d173, 0x1d17a], // musical format controls
  [0xe0000, 0xe007f], // tag characters
  [0xe0100, 0xe01ef], // variation selectors supplement
];

function isHidden(cp: number): boolean {
  return HIDDEN.some(([lo, hi]) => cp >= lo && cp <= hi);
}

/** The token for code point `cp`, or null when it is shown as itself. */
function tokenFor(cp: number): string | null {
  const named = NAMED[cp];
  if (named !== undefined) return `⟨${named}⟩`;
  if (cp < 0x20 || cp === 0x7f) return `⟨\\x${cp.toString(16).padStart(2, "0")}⟩`;
  // A lone surrogate (possible in a JS string, never in Rust's) is shown, not passed on.
  if (isHidden(cp) || (cp >= 0xd800 && cp <= 0xdfff)) {
    return `⟨U+${cp.toString(16).toUpperCase().padStart(4, "0")}⟩`;
  }
  return null;
}

/** `text` split into plain runs and tokens (see the module comment). */
export function visibleParts(text: string): VisiblePart[] {
  const parts: VisiblePart[] = [];
  let plain = "";
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    const token = tokenFor(cp);
    if (token === null) {
      plain += ch;
      continue;
    }
    if (plain) parts.push({ text: plain, token: false });
    plain = "";
    parts.push({ text: token, token: true });
    // A newline is also a line break, so a script keeps its shape.
    if (cp === 0x0a) plain = "\n";
  }
  if (plain) parts.push({ text: plain, token: false });
  return parts;
}

/** `text` with its hidden characters as tokens: the same string `tack_protocol::visible` gives. */
export function visible(text: string): string {
  return visibleParts(text)
    .map((p) => p.text)
    .join("");
}

/**
 * A multi-line text (a diff, file content) with each line through {@link visible}: its line
 * breaks and tabs stay what they are (they are its layout, and draw nothing misleading); every
 * other hidden character becomes a token, so a right-to-left override in a changed line
 * ("Trojan Source") shows instead of reordering the code the user approves.
 */
export function visibleLines(text: string): string {
  return text
    .split("\n")
    .map((line) => line.split("\t").map(visible).join("\t"))
    .join("\n");
}
