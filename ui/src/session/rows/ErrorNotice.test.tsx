import { render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelError, ProviderView } from "../../ipc";
import { useCatalogStore } from "../../settings/catalogStore";
import { useSessionStore } from "../store";
import { ErrorNotice, nextStep } from "./ErrorNotice";

const auth: ModelError = { kind: "auth", message: "401 Unauthorized: invalid api key", retryable: false, status: 401 };

const deepseek: ProviderView = {
  id: "deepseek",
  name: "DeepSeek",
  baseUrl: "https://api.deepseek.com",
  wire: "chat",
  model: "deepseek-chat",
  harness: null,
  envKey: "DEEPSEEK_API_KEY",
  key: { set: true, last4: "a9f2", source: "env", needed: true },
  builtin: true,
  overridden: false,
  isDefault: false,
};

afterEach(() => {
  useCatalogStore.setState({ appInfo: null, providers: [] });
  useSessionStore.getState().close();
});

describe("what a refused key asks the user to do", () => {
  it("with a keychain: Settings, or the environment variable", () => {
    const step = nextStep(auth, { envKey: "DEEPSEEK_API_KEY", keychainAvailable: true });
    expect(step.text).toBe("Set the key in Settings, or set DEEPSEEK_API_KEY in the environment Tack starts from.");
    expect(step.action).toBe("settings");
  });

  it("without a keychain: only the environment variable, and no Settings button", () => {
    const step = nextStep(auth, { envKey: "DEEPSEEK_API_KEY", keychainAvailable: false });
    expect(step.text).toContain("Set DEEPSEEK_API_KEY to the key in the environment Tack starts from");
    expect(step.text).toContain("restart Tack");
    expect(step.text).not.toContain("Set the key in Settings");
    expect(step.action).toBeUndefined();
  });

  it("without a keychain or a variable name: name one in Settings", () => {
    const step = nextStep(auth, { envKey: null, keychainAvailable: false });
    expect(step.text).toContain("give this provider a key environment variable in Settings");
    expect(step.action).toBe("settings");
  });

  it("the card uses the session's provider and the keychain status", () => {
    useCatalogStore.setState({
      providers: [deepseek],
      appInfo: { version: "0", configPath: "", dataDir: "", keychain: { available: false, message: null }, configProblem: null, configWarnings: [] },
    });
    useSessionStore.getState().open({
      id: "s1",
      title: "t",
      settings: { cwd: "/w", provider: "deepseek", model: "deepseek-chat", wire: "chat", harness: "claude-code-bare", approval: "untrusted" },
      providerUrl: null,
      items: [],
      exchanges: [],
      running: false,
      pendingApprovals: [],
      pendingQuestions: [],
      readOnly: null,
    });
    render(<ErrorNotice row={{ kind: "error", id: "e1", turnId: "t1", error: auth }} />);
    const card = screen.getByRole("alert", { name: "Error: The provider refused the key" });
    expect(card).toHaveTextContent("Set DEEPSEEK_API_KEY to the key");
    expect(card).not.toHaveTextContent("Set the key in Settings");
    expect(screen.queryByRole("button", { name: "Open Settings" })).not.toBeInTheDocument();
  });
});
