import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { ProviderView, SandboxInfo, StartSessionInput } from "../ipc";
import { useCatalogStore } from "../settings/catalogStore";
import { useWorkspaceStore } from "../workspace/workspaceStore";
import { StartPanel } from "./StartPanel";
import { together } from "./SandboxPicker";

const local: ProviderView = {
  id: "local",
  name: "Local model",
  baseUrl: "http://127.0.0.1:8082/v1",
  wire: "chat",
  model: "smollm2-135m",
  harness: "minimal",
  envKey: null,
  key: { set: false, last4: null, source: "none", needed: false },
  builtin: true,
  overridden: false,
  isDefault: true,
};

const BWRAP: SandboxInfo = {
  mechanism: "bubblewrap",
  summary: "bubblewrap 0.8.0 (user, PID, mount, network namespaces; process limit by pids cgroup)",
  defaultMode: "workspace-write",
  defaultNetwork: false,
  writableRoots: [],
};

/** The shell answers sandbox_info with `info` and records what start_session was sent. */
function withSandbox(info: SandboxInfo | Error) {
  const started: StartSessionInput[] = [];
  mockIPC((cmd, args) => {
    if (cmd === "infer_harness") return { harness: "minimal", reason: "set in the provider's settings" };
    if (cmd === "sandbox_info") {
      if (info instanceof Error) throw { message: info.message, hint: null, field: null };
      return info;
    }
    if (cmd === "start_session") {
      const input = (args as { input: StartSessionInput }).input;
      started.push(input);
      throw { message: "not in this test", hint: null, field: null };
    }
    throw new Error(`unexpected ${cmd}`);
  });
  useWorkspaceStore.setState({ cwd: "/home/dev/tack" });
  useCatalogStore.setState({ appInfo: null, providers: [local], harnesses: [], loaded: true });
  return started;
}

afterEach(() => clearMocks());

describe("the start panel's sandbox", () => {
  it("shows the mechanism the probe found and the config's default mode, network off", async () => {
    withSandbox(BWRAP);
    render(<StartPanel />);
    await screen.findByText(BWRAP.summary);
    const modes = screen.getByRole("radiogroup", { name: "Sandbox mode" });
    expect(within(modes).getByRole("radio", { name: /Workspace write/ })).toBeChecked();
    expect(screen.getByRole("checkbox", { name: /Network for sandboxed commands/ })).not.toBeChecked();
    expect(screen.getByTestId("sandbox-together")).toHaveTextContent(
      "Known read-only commands run in the read-only sandbox; the rest ask first, then run in the workspace-write sandbox; when the sandbox refuses something, Tack asks before running it again outside.",
    );
  });

  it("marks full access dangerous, and says what the policy and the sandbox do together", async () => {
    withSandbox(BWRAP);
    render(<StartPanel />);
    await screen.findByText(BWRAP.summary);
    const danger = screen.getByRole("radio", { name: /Full access \(dangerous\)/ });
    expect(danger.closest("label")).toHaveClass("policy-never");
    fireEvent.click(screen.getByRole("radio", { name: /On request/ }));
    fireEvent.click(danger);
    expect(screen.getByTestId("sandbox-together")).toHaveTextContent("Commands the policy lets through run with all your rights, outside any sandbox.");
    expect(screen.getByTestId("sandbox-together")).toHaveClass("start-warning");
    // The network is not restricted without a sandbox: the toggle says so and is off.
    const network = screen.getByRole("checkbox", { name: /Network for sandboxed commands/ });
    expect(network).toBeDisabled();
    expect(network.closest("label")).toHaveTextContent("not restricted without a sandbox");
  });

  it("sends the chosen mode and network with the session", async () => {
    const started = withSandbox({ ...BWRAP, defaultMode: "read-only" });
    render(<StartPanel />);
    await screen.findByText(BWRAP.summary);
    // The config's default is preselected.
    expect(screen.getByRole("radio", { name: /Read-only/ })).toBeChecked();
    fireEvent.click(screen.getByRole("radio", { name: /Workspace write/ }));
    fireEvent.click(screen.getByRole("checkbox", { name: /Network for sandboxed commands/ }));
    fireEvent.click(screen.getByRole("button", { name: "Start session" }));
    await waitFor(() => expect(started).toHaveLength(1));
    expect(started[0]).toMatchObject({ approval: "untrusted", sandbox: "workspace-write", network: true });
  });

  it("says plainly when this machine has no sandbox", async () => {
    withSandbox({ ...BWRAP, mechanism: "none", summary: "no sandbox: bwrap not found (install the `bubblewrap` package); every command asks" });
    render(<StartPanel />);
    const line = await screen.findByText("No sandbox on this machine: bwrap not found (install the `bubblewrap` package); every command asks");
    expect(line).toHaveClass("sandbox-mechanism-none");
    expect(screen.getByTestId("sandbox-together")).toHaveTextContent("Every command asks first, and runs with all your rights once approved.");
  });

  it("a failed probe query says so and still lets the session start", async () => {
    const started = withSandbox(new Error("internal task failed"));
    render(<StartPanel />);
    await screen.findByText("Could not check the sandbox: internal task failed");
    fireEvent.click(screen.getByRole("button", { name: "Start session" }));
    await waitFor(() => expect(started).toHaveLength(1));
    expect(started[0]).toMatchObject({ sandbox: "workspace-write", network: false });
  });

  it("lists the writable roots under workspace-write", async () => {
    withSandbox({ ...BWRAP, writableRoots: ["/home/dev/.cache/cargo"] });
    render(<StartPanel />);
    await screen.findByText("/home/dev/.cache/cargo");
    fireEvent.click(screen.getByRole("radio", { name: /Read-only/ }));
    expect(screen.queryByText("/home/dev/.cache/cargo")).not.toBeInTheDocument();
  });

  it("under never, a refusal stands", () => {
    expect(together("never", "workspace-write", false)).toBe("Commands that run without asking run in the workspace-write sandbox; a refusal by the sandbox stands.");
  });
});
