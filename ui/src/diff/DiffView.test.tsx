import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { DiffView } from "./DiffView";
import { parseDiff, splitRows } from "./model";

const DIFF = `--- a/src/retry.ts
+++ b/src/retry.ts
@@ -1,4 +1,5 @@
 export function delay(n: number) {
-  return 100 * n;
+  const base = 100;
+  return base * 2 ** n;
 }
 
`;

describe("diff model", () => {
  it("numbers lines and counts changes", () => {
    const [file] = parseDiff(DIFF);
    expect(file?.newPath).toBe("src/retry.ts");
    expect(file?.additions).toBe(2);
    expect(file?.deletions).toBe(1);
    const lines = file?.hunks[0]?.lines ?? [];
    expect(lines.map((l) => [l.kind, l.oldNo, l.newNo])).toEqual([
      ["context", 1, 1],
      ["del", 2, null],
      ["add", null, 2],
      ["add", null, 3],
      ["context", 3, 4],
      ["context", 4, 5],
    ]);
  });

  it("pairs deletions with additions for the split view", () => {
    const [file] = parseDiff(DIFF);
    const rows = splitRows(file?.hunks[0]?.lines ?? []);
    expect(rows.map((r) => [r.left?.kind ?? null, r.right?.kind ?? null])).toEqual([
      ["context", "context"],
      ["del", "add"],
      [null, "add"],
      ["context", "context"],
      ["context", "context"],
    ]);
  });
});

describe("diff view", () => {
  it("toggles between unified and split layouts", () => {
    const { container } = render(<DiffView diff={DIFF} />);
    expect(screen.getByRole("region", { name: "Changes to src/retry.ts" })).toBeInTheDocument();
    expect(container.querySelector("table")).toHaveAttribute("data-layout", "unified");
    expect(screen.getByRole("button", { name: "Unified" })).toHaveAttribute("aria-pressed", "true");

    fireEvent.click(screen.getByRole("button", { name: "Split" }));
    expect(container.querySelector("table")).toHaveAttribute("data-layout", "split");
    expect(screen.getByRole("button", { name: "Split" })).toHaveAttribute("aria-pressed", "true");
    // Split rows carry old and new line side by side.
    const firstChange = container.querySelectorAll("tbody tr")[2];
    expect(firstChange?.textContent).toContain("return 100 * n;");
    expect(firstChange?.textContent).toContain("const base = 100;");

    fireEvent.click(screen.getByRole("button", { name: "Unified" }));
    expect(container.querySelector("table")).toHaveAttribute("data-layout", "unified");
  });

  it("shows unparseable input as raw text", () => {
    render(<DiffView diff="not a diff" />);
    expect(screen.getByText("not a diff")).toBeInTheDocument();
  });
});

describe("word-level changes", () => {
  it("marks only the words that changed in a similar pair", () => {
    const diff = "--- a/a.rs\n+++ b/a.rs\n@@ -1,1 +1,1 @@\n-let delay = base * factor;\n+let delay = base.saturating_mul(factor);\n";
    const [file] = parseDiff(diff);
    const [del, add] = file?.hunks[0]?.lines ?? [];
    expect(del?.spans?.map(([a, b]) => del.text.slice(a, b))).toEqual([" * "]);
    expect(add?.spans?.map(([a, b]) => add.text.slice(a, b))).toEqual([".saturating_mul(", ")"]);
    const { container } = render(<DiffView diff={diff} />);
    const marked = [...container.querySelectorAll(".diff-word")].map((el) => el.textContent).join("|");
    expect(marked).toContain(" * ");
  });

  it("leaves unrelated lines whole", () => {
    const [file] = parseDiff("--- a/a\n+++ b/a\n@@ -1,1 +1,1 @@\n-alpha beta gamma\n+completely different words here\n");
    expect(file?.hunks[0]?.lines.every((l) => l.spans === null)).toBe(true);
  });
});
