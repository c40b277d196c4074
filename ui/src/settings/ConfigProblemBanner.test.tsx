import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AppInfo, ConfigProblem, ProviderView } from "../ipc";
import { useCatalogStore } from "./catalogStore";
import { SettingsView } from "./SettingsView";

const PROBLEM: ConfigProblem = {
  path: "/home/dev/.config/tack/config.toml",
  line: 1,
  column: 26,
  summary: "invalid basic string",
  details: 'TOML parse error at line 1, column 26\n  |\n1 | default_provider = "local\n  |                          ^\ninvalid basic string',
};

function info(configProblem: ConfigProblem | null): AppInfo {
  return {
    version: "0.1.0",
    configPath: PROBLEM.path,
    dataDir: "/home/dev/.local/share/tack",
    keychain: { available: true, message: null },
    configProblem,
  };
}

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
};

const REFUSAL = {
  message: `Not saved: ${PROBLEM.path} has an error at line 1, column 26 (invalid basic string), and Tack does not overwrite a config file it cannot read.`,
  hint: `Fix the file in an editor, or move it away (e.g. to ${PROBLEM.path}.broken) to start from the built-in settings, then save again.`,
};

beforeEach(() => {
  useCatalogStore.setState({ appInfo: info(PROBLEM), providers: [local], harnesses: [], loaded: true });
});
afterEach(() => clearMocks());

describe("a config file that does not load", () => {
  it("is explained in Settings: the file, where, why, and what to do", () => {
    render(<SettingsView />);
    const banner = screen.getByRole("alert", { name: "The config file has an error" });
    expect(banner).toHaveTextContent("Tack can't read its config file");
    expect(banner).toHaveTextContent(`${PROBLEM.path} has an error at line 1, column 26: invalid basic string`);
    expect(within(banner).getByLabelText("Parser message")).toHaveTextContent('1 | default_provider = "local');
    expect(banner).toHaveTextContent("only the built-in providers");
    expect(banner).toHaveTextContent("move the file away");
  });

  it("refuses a save with the shell's reason, and the banner goes once the file is fixed", async () => {
    let fixed = false;
    const calls: string[] = [];
    mockIPC((cmd) => {
      calls.push(cmd);
      if (cmd === "save_provider") return fixed ? { ...local, model: "other" } : Promise.reject(REFUSAL);
      if (cmd === "app_info") return info(fixed ? null : PROBLEM);
      if (cmd === "list_providers") return [local];
      return null;
    });
    render(<SettingsView />);
    fireEvent.click(screen.getByRole("button", { name: "Save changes" }));
    const error = await screen.findByText(/Not saved:/);
    expect(error).toHaveTextContent("does not overwrite a config file it cannot read");
    expect(error).toHaveTextContent("move it away");
    expect(calls).toContain("save_provider");

    fixed = true;
    fireEvent.click(screen.getByRole("button", { name: "Check again" }));
    await waitFor(() => expect(screen.queryByRole("alert", { name: "The config file has an error" })).not.toBeInTheDocument());
  });
});

describe("a built-in provider", () => {
  it("edited in config.toml still reads as built-in, and can be reset", async () => {
    const calls: Array<{ cmd: string; args: unknown }> = [];
    const edited = { ...local, model: "qwen2.5-coder", overridden: true };
    useCatalogStore.setState({ appInfo: info(null), providers: [edited] });
    mockIPC((cmd, args) => {
      calls.push({ cmd, args });
      if (cmd === "list_providers") return [local];
      return null;
    });
    render(<SettingsView />);
    const heading = screen.getByRole("heading", { level: 2 });
    expect(heading).toHaveTextContent("built-in");
    expect(heading).toHaveTextContent("edited");
    expect(screen.queryByRole("button", { name: "Delete provider" })).not.toBeInTheDocument();
    fireEvent.click(screen.getByRole("button", { name: "Reset to built-in" }));
    const dialog = await screen.findByRole("alertdialog", { name: "Reset Local model to the built-in settings?" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Reset to built-in" }));
    await waitFor(() => expect(calls.map((c) => c.cmd)).toContain("list_providers"));
    expect(calls[0]).toEqual({ cmd: "delete_provider", args: { id: "local" } });
    await waitFor(() => expect(screen.getByRole("heading", { level: 2, name: /^Local model/ })).not.toHaveTextContent("edited"));
    expect(screen.getByLabelText("Default model")).toHaveValue("smollm2-135m");
  });

  it("as shipped offers neither delete nor reset", () => {
    useCatalogStore.setState({ appInfo: info(null) });
    render(<SettingsView />);
    expect(screen.queryByRole("button", { name: "Delete provider" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Reset to built-in" })).not.toBeInTheDocument();
  });
});
