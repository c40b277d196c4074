import { describe, expect, it } from "vitest";
import { visible, visibleLines, visibleParts } from "./visible";

/** Reads `visible`'s output back; that it always returns the input proves no two texts display the same. */
function decode(shown: string): string | null {
  let out = "";
  let rest = shown;
  for (;;) {
    const at = rest.indexOf("⟨");
    if (at < 0) return out + rest;
    out += rest.slice(0, at);
    const end = rest.indexOf("⟩", at);
    if (end < 0) return null;
    const token = rest.slice(at + 1, end);
    rest = rest.slice(end + 1);
    const named: Record<string, string> = { "\\e": "\u001b", "\\0": "\0", "\\n": "\n", "\\r": "\r", "\\t": "\t" };
    if (token in named) {
      out += named[token];
      if (token === "\\n") {
        if (!rest.startsWith("\n")) return null;
        rest = rest.slice(1);
      }
    } else if (token.startsWith("\\x")) {
      out += String.fromCodePoint(parseInt(token.slice(2), 16));
    } else if (token.startsWith("U+")) {
      out += String.fromCodePoint(parseInt(token.slice(2), 16));
    } else {
      return null;
    }
  }
}

const INTERESTING = [
  "\u001b", "\n", "\r", "\t", "\0", "\u0007", "\u007f", "\u009b", "\u0085", "\u202e", "\u2066", "\u200b",
  "\u200d", "\ufeff", "\u00a0", "⟨", "⟩", "\\", "#", "[", "x", "U", "+", "é", "😀", "\u{e0041}",
];

/** A deterministic pseudo-random generator, so a failure reproduces. */
function* strings(count: number): Generator<string> {
  let seed = 0x2f6b_1d35;
  const next = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed;
  };
  for (let n = 0; n < count; n++) {
    let s = "";
    const len = next() % 24;
    for (let i = 0; i < len; i++) {
      const r = next();
      s += r % 3 === 0 ? String.fromCodePoint(r % 0x3000) : INTERESTING[r % INTERESTING.length];
    }
    yield s;
  }
}

// Bidi controls and zero-width characters the display must never contain.
const FORBIDDEN = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b-\u200d\u2060\ufeff\u0080-\u009f]/u;

describe("visible", () => {
  it("spells out a command that would redraw a terminal prompt", () => {
    const cmd = "rm -rf ~ #\u001b[2K\u001b[1A\r$ ls\u0007";
    expect(visible(cmd)).toBe("rm -rf ~ #⟨\\e⟩[2K⟨\\e⟩[1A⟨\\r⟩$ ls⟨\\x07⟩");
    expect(visible("a\u202eb\u200bc\u009bd")).toBe("a⟨U+202E⟩b⟨U+200B⟩c⟨U+009B⟩d");
    expect(visible("x\ny\tz")).toBe("x⟨\\n⟩\ny⟨\\t⟩z");
    expect(visible("⟨\\e⟩")).toBe("⟨U+27E8⟩\\e⟩");
    expect(visible("ls -la ./src")).toBe("ls -la ./src");
    expect(visible("rm\u00a0-rf")).toBe("rm⟨U+00A0⟩-rf");
  });

  it("marks tokens apart from the text's own characters", () => {
    expect(visibleParts("a\u001bb\nc")).toEqual([
      { text: "a", token: false },
      { text: "⟨\\e⟩", token: true },
      { text: "b", token: false },
      { text: "⟨\\n⟩", token: true },
      { text: "\nc", token: false },
    ]);
  });

  it("never shows a control, bidi or zero-width character, and reads back to the input", () => {
    const seen = new Map<string, string>();
    for (const text of strings(1500)) {
      const shown = visible(text);
      const chars = [...shown];
      const bad = chars.filter((ch, i) => {
        const cp = ch.codePointAt(0) ?? 0;
        if (ch === "\n") return !chars.slice(0, i).join("").endsWith("⟨\\n⟩");
        return cp < 0x20 || cp === 0x7f || FORBIDDEN.test(ch);
      });
      expect(bad, JSON.stringify(shown)).toEqual([]);
      expect(decode(shown)).toBe(text);
      // Two different texts never display the same.
      const earlier = seen.get(shown);
      if (earlier !== undefined) expect(earlier).toBe(text);
      seen.set(shown, text);
    }
  });

  it("keeps a diff's line breaks and tabs but shows a bidi override in a line", () => {
    const diff = "@@ -1 +1 @@\n-\tok\n+\tif (role != \"user\u202e \u2066// admin\u2069\u2066\") {";
    expect(visibleLines(diff)).toBe("@@ -1 +1 @@\n-\tok\n+\tif (role != \"user⟨U+202E⟩ ⟨U+2066⟩// admin⟨U+2069⟩⟨U+2066⟩\") {");
  });
});
