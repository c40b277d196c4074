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

function info(configProblem: ConfigProblem | null, configWarnings: string[] = []): AppInfo {
  return {
    version: "0.1.0",
    configPath: PROBLEM.path,
    dataDir: "/home/dev/.local/share/tack",
    keychain: { available: true, message: null },
    configProblem,
    configWarnings,
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
  isDefault: false,
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
    // The refusal was about the file, which loads now: it goes too.
    expect(screen.queryByText(/Not saved:/)).not.toBeInTheDocument();
  });
});

describe("a config file that loads with warnings", () => {
  it("lists each warning, naming both providers, in the banner", () => {
    const warning = "line 9: provider `openai` (`Proxy`, http://proxy/v1) replaces the built-in provider `openai` (`OpenAI`, https://api.openai.com/v1)";
    useCatalogStore.setState({ appInfo: info(null, [warning]) });
    render(<SettingsView />);
    const banner = screen.getByRole("status", { name: "The config file has warnings" });
    expect(banner).toHaveTextContent(warning);
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

describe("adding a provider", () => {
  const dupByHand: ProviderView = { ...local, id: "dup", name: "Dup by hand", builtin: false, baseUrl: "http://127.0.0.1:11/v1" };

  async function fillNew(id: string) {
    fireEvent.click(screen.getByRole("button", { name: "Add provider" }));
    const form = screen.getByRole("form", { name: "New provider" });
    fireEvent.change(within(form).getByLabelText("Id"), { target: { value: id } });
    fireEvent.change(within(form).getByLabelText("Name"), { target: { value: "Dup" } });
    fireEvent.change(within(form).getByLabelText("Base URL"), { target: { value: "http://127.0.0.1:12/v1" } });
    fireEvent.change(within(form).getByLabelText("Default model"), { target: { value: "m" } });
    return form;
  }

  it("refuses an id the file already has, beside the Id field, and then lists that provider", async () => {
    // `dup` was written into config.toml by hand after the window listed the providers.
    useCatalogStore.setState({ appInfo: info(null), providers: [local] });
    const calls: string[] = [];
    mockIPC((cmd) => {
      calls.push(cmd);
      if (cmd === "add_provider")
        return Promise.reject({ message: "a provider with id `dup` already exists — edit it, or choose another id", hint: null, field: "id" });
      if (cmd === "app_info") return info(null);
      if (cmd === "list_providers") return [local, dupByHand];
      return null;
    });
    render(<SettingsView />);
    const form = await fillNew("dup");
    fireEvent.click(within(form).getByRole("button", { name: "Add provider" }));
    const id = within(form).getByLabelText("Id");
    await waitFor(() => expect(id).toHaveAccessibleDescription("a provider with id `dup` already exists — edit it, or choose another id"));
    expect(id).toHaveAttribute("aria-invalid", "true");
    expect(calls).toContain("add_provider");
    expect(calls).not.toContain("save_provider");
    // Nothing was replaced: the hand-written provider is listed, as the backend has it.
    expect(screen.getByRole("navigation", { name: "Providers" })).toHaveTextContent("Dup by hand");
    // Another id answers the error.
    fireEvent.change(id, { target: { value: "dup-2" } });
    expect(id).not.toHaveAttribute("aria-invalid", "true");
    expect(within(form).getByRole("button", { name: "Add provider" })).toBeEnabled();
  });

  it("flags an id that is listed already before sending anything", async () => {
    useCatalogStore.setState({ appInfo: info(null), providers: [local, dupByHand] });
    const calls: string[] = [];
    mockIPC((cmd) => {
      calls.push(cmd);
      return null;
    });
    render(<SettingsView />);
    const form = await fillNew("dup");
    expect(within(form).getByLabelText("Id")).toHaveAccessibleDescription("a provider with id `dup` already exists — edit it, or choose another id");
    expect(within(form).getByRole("button", { name: "Add provider" })).toBeDisabled();
    expect(calls).toEqual([]);
  });

  it("after a save, reads the providers back, so ones added to the file by hand appear", async () => {
    useCatalogStore.setState({ appInfo: info(null), providers: [local] });
    const added: ProviderView = { ...dupByHand, id: "mine", name: "Mine" };
    mockIPC((cmd) => {
      if (cmd === "add_provider") return added;
      if (cmd === "app_info") return info(null);
      if (cmd === "list_providers") return [local, dupByHand, added];
      return null;
    });
    render(<SettingsView />);
    const form = await fillNew("mine");
    fireEvent.click(within(form).getByRole("button", { name: "Add provider" }));
    const list = screen.getByRole("navigation", { name: "Providers" });
    await waitFor(() => expect(list).toHaveTextContent("Dup by hand"));
    expect(useCatalogStore.getState().providers.map((p) => p.id)).toEqual(["local", "dup", "mine"]);
  });
});
