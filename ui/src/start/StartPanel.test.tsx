import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { ProviderView } from "../ipc";
import { useCatalogStore } from "../settings/catalogStore";
import { SettingsView } from "../settings/SettingsView";
import { useWorkspaceStore } from "../workspace/workspaceStore";
import { StartPanel } from "./StartPanel";

function provider(id: string, name: string, model: string, isDefault: boolean): ProviderView {
  return {
    id,
    name,
    baseUrl: `https://${id}.example/v1`,
    wire: "chat",
    model,
    harness: "minimal",
    envKey: null,
    key: { set: false, last4: null, source: "none", needed: false },
    builtin: true,
    overridden: false,
    isDefault,
  };
}

function withProviders(providers: ProviderView[]) {
  mockIPC((cmd) => {
    if (cmd === "infer_harness") return { harness: "minimal", reason: "the provider says so" };
    if (cmd === "sandbox_info") return { mechanism: "bubblewrap", summary: "bubblewrap 0.8.0", defaultMode: "workspace-write", defaultNetwork: false, writableRoots: [] };
    throw new Error(`unexpected ${cmd}`);
  });
  useWorkspaceStore.setState({ cwd: "/home/dev/tack" });
  useCatalogStore.setState({ appInfo: null, providers, harnesses: [], loaded: true });
}

afterEach(() => clearMocks());

describe("the default provider", () => {
  it("is preselected in the start panel, with its model", async () => {
    withProviders([provider("anthropic", "Anthropic", "claude", false), provider("deepseek", "DeepSeek", "deepseek-chat", true)]);
    render(<StartPanel />);
    await screen.findByText("bubblewrap 0.8.0");
    expect(screen.getByLabelText("Provider", { exact: true })).toHaveValue("deepseek");
    expect(screen.getByLabelText("Model")).toHaveValue("deepseek-chat");
  });

  it("falls back to the first provider when none is marked (default_provider names a missing one)", async () => {
    withProviders([provider("anthropic", "Anthropic", "claude", false), provider("deepseek", "DeepSeek", "deepseek-chat", false)]);
    render(<StartPanel />);
    await screen.findByText("bubblewrap 0.8.0");
    expect(screen.getByLabelText("Provider", { exact: true })).toHaveValue("anthropic");
  });

  it("is marked \"default\" in Settings' provider list", () => {
    withProviders([provider("anthropic", "Anthropic", "claude", false), provider("local", "Local model", "smollm2", true)]);
    render(<SettingsView />);
    const list = screen.getByRole("navigation", { name: "Providers" });
    expect(screen.getAllByText("default", { selector: ".badge" })).toHaveLength(1);
    expect(list.querySelector(".provider-item-default")?.closest("button")).toHaveTextContent(/^Local model/);
  });
});
