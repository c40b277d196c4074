import { describe, expect, it } from "vitest";
import { counted } from "./plural";

describe("counted", () => {
  it("uses the singular for exactly one", () => {
    expect(counted(1, "exchange")).toBe("1 exchange");
    expect(counted(0, "exchange")).toBe("0 exchanges");
    expect(counted(2, "item")).toBe("2 items");
    expect(counted(1200, "match", "matches")).toBe("1,200 matches");
    expect(counted(1, "match", "matches")).toBe("1 match");
  });
});
