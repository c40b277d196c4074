import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useWorkspaceStore } from "./workspaceStore";

interface Call {
  cmd: string;
  args: Record<string, unknown>;
}

/** A shell that remembers `remembered` and records every call. */
function shellRemembering(remembered: string | null, answer?: Promise<void>): Call[] {
  const calls: Call[] = [];
  mockIPC(async (cmd, args) => {
    calls.push({ cmd, args: (args ?? {}) as Record<string, unknown> });
    switch (cmd) {
      case "last_workspace":
        await answer;
        return remembered;
      case "set_last_workspace":
        return null;
      case "list_sessions":
      case "workspace_files":
        return [];
      default:
        throw new Error(`unexpected ${cmd}`);
    }
  });
  return calls;
}

beforeEach(() => {
  localStorage.clear();
  useWorkspaceStore.setState({ cwd: null, sessions: [], files: [] });
});
afterEach(() => clearMocks());

describe("the workspace folder", () => {
  it("starts with none, then opens the folder the shell remembers", async () => {
    const calls = shellRemembering("/home/dev/tack");
    expect(useWorkspaceStore.getState().cwd).toBeNull();
    await useWorkspaceStore.getState().restore();
    expect(useWorkspaceStore.getState().cwd).toBe("/home/dev/tack");
    await waitFor(() => expect(calls.map((c) => c.cmd)).toEqual(expect.arrayContaining(["list_sessions", "workspace_files"])));
    // Reopening is not a change to remember.
    expect(calls.some((c) => c.cmd === "set_last_workspace")).toBe(false);
  });

  it("stays without a folder when the shell remembers none (fresh TACK_HOME, or the folder is gone)", async () => {
    const calls = shellRemembering(null);
    await useWorkspaceStore.getState().restore();
    expect(useWorkspaceStore.getState().cwd).toBeNull();
    expect(calls.map((c) => c.cmd)).toEqual(["last_workspace"]);
  });

  it("asks the shell to remember a folder opened, and keeps nothing in localStorage", async () => {
    const calls = shellRemembering(null);
    useWorkspaceStore.getState().setCwd("/srv/project");
    await waitFor(() => expect(calls).toContainEqual({ cmd: "set_last_workspace", args: { cwd: "/srv/project" } }));
    expect(useWorkspaceStore.getState().cwd).toBe("/srv/project");
    expect(localStorage.length).toBe(0);
  });

  it("keeps a folder picked while the shell was still answering", async () => {
    let release = () => undefined as void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    shellRemembering("/home/dev/old", answered);
    const restoring = useWorkspaceStore.getState().restore();
    useWorkspaceStore.getState().setCwd("/srv/new");
    release();
    await restoring;
    expect(useWorkspaceStore.getState().cwd).toBe("/srv/new");
  });
});
