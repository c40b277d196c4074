import { describe, expect, it } from "vitest";
import { parsePromptSource } from "./format";

describe("prompt source", () => {
  it("reads built-in templates, overrides and imports", () => {
    expect(parsePromptSource("builtin:minimal/system.md")).toEqual([{ kind: "built-in", value: "minimal/system.md", raw: "builtin:minimal/system.md" }]);
    expect(
      parsePromptSource("import:claude-code/system.md, file:/home/dev/.config/tack/prompts/claude-code/tools.json").map((s) => [s.kind, s.value]),
    ).toEqual([
      ["imported", "claude-code/system.md"],
      ["file", "/home/dev/.config/tack/prompts/claude-code/tools.json"],
    ]);
  });

  it("keeps commas inside a path and unknown schemes", () => {
    expect(parsePromptSource("file:/tmp/a, b/system.md").map((s) => s.value)).toEqual(["/tmp/a, b/system.md"]);
    expect(parsePromptSource("remote:x")[0]).toMatchObject({ kind: "remote", value: "x" });
    expect(parsePromptSource(null)).toEqual([]);
  });
});
