import { describe, expect, it } from "vitest";
import type { SandboxStatus } from "../ipc";
import { guardBadge, mechanismLine, ranWhere, runsWhere } from "./sandbox";

const bwrap: SandboxStatus = {
  mechanism: "bubblewrap",
  mode: "workspace-write",
  network: false,
  summary: "bubblewrap 0.8.0 (user, PID, mount, network namespaces; process limit by pids cgroup)",
};

describe("the sandbox in words", () => {
  it("the header badge names the policy, the mode and the network; neutral while commands are contained", () => {
    const badge = guardBadge("untrusted", bwrap);
    expect(badge.text).toBe("untrusted · workspace-write sandbox · network off");
    expect(badge.danger).toBe(false);
    expect(badge.title).toContain("bubblewrap 0.8.0");
    expect(badge.title).toContain("may not use the network");
    expect(guardBadge("on-request", { ...bwrap, mode: "read-only", network: true }).text).toBe("on-request · read-only sandbox · network on");
  });

  it("is red when commands run uncontained or without asking", () => {
    expect(guardBadge("on-request", { ...bwrap, mode: "danger-full-access" })).toMatchObject({ text: "on-request · no sandbox (full access)", danger: true });
    const none = guardBadge("untrusted", { ...bwrap, mechanism: "none", summary: "no sandbox: bwrap not found; every command asks" });
    expect(none).toMatchObject({ text: "untrusted · no sandbox on this machine", danger: true });
    expect(none.title).toContain("bwrap not found");
    expect(guardBadge("never", bwrap)).toMatchObject({ text: "never · workspace-write sandbox · network off", danger: true });
    // A session logged before sandboxes were recorded: the policy alone.
    expect(guardBadge("untrusted", undefined)).toMatchObject({ text: "untrusted", danger: false });
  });

  it("says where an approved command runs and where a finished one ran", () => {
    expect(runsWhere("workspace-write")).toBe("Runs in the workspace-write sandbox once approved.");
    expect(runsWhere(null)).toMatch(/^Runs WITHOUT a sandbox/);
    expect(runsWhere("danger-full-access")).toMatch(/^Runs WITHOUT a sandbox/);
    expect(ranWhere("read-only")).toBe("ran in the read-only sandbox");
    expect(ranWhere(undefined)).toBe("ran without a sandbox");
  });

  it("turns the probe's summary into a sentence", () => {
    expect(mechanismLine("bubblewrap", bwrap.summary)).toBe(bwrap.summary);
    expect(mechanismLine("none", "no sandbox: bwrap not found (install the `bubblewrap` package); every command asks")).toBe(
      "No sandbox on this machine: bwrap not found (install the `bubblewrap` package); every command asks",
    );
  });
});
