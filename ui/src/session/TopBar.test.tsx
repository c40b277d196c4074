import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { SandboxStatus, SessionSettings } from "../ipc";
import { providerLabel, TopBar } from "./TopBar";

const settings: SessionSettings = { cwd: "/w", provider: "vllm", model: "Qwen3-Coder", wire: "chat", harness: "qwen-code", approval: "untrusted" };

describe("session header", () => {
  it("a harness picked by auto says so and why", () => {
    render(<TopBar title="t" settings={settings} running={false} autoHarness={{ harness: "qwen-code", reason: "the model name contains `qwen`" }} />);
    expect(screen.getByTestId("session-harness")).toHaveTextContent("auto → qwen-code (the model name contains qwen)");
  });

  it("a chosen harness is just named", () => {
    render(<TopBar title="t" settings={settings} running={false} />);
    expect(screen.queryByTestId("session-harness")).not.toBeInTheDocument();
    expect(screen.getByText("qwen-code")).toBeInTheDocument();
  });

  it("an ad-hoc provider is named by the host of its base URL", () => {
    render(<TopBar title="t" settings={{ ...settings, provider: "custom" }} providerUrl="http://127.0.0.1:8082/v1" running={false} />);
    expect(screen.getByText("127.0.0.1:8082")).toBeInTheDocument();
    expect(screen.queryByText("custom")).not.toBeInTheDocument();
    expect(providerLabel("custom", "https://llm.example.com/v1")).toBe("llm.example.com");
    // A provider with an id of its own keeps it; a URL that doesn't parse leaves the id.
    expect(providerLabel("vllm", "http://127.0.0.1:8000/v1")).toBe("vllm");
    expect(providerLabel("custom", "not a url")).toBe("custom");
    expect(providerLabel("custom", null)).toBe("custom");
  });

  it("shows the policy and the sandbox in one badge, the summary in its tooltip", () => {
    const sandbox: SandboxStatus = { mechanism: "bubblewrap", mode: "workspace-write", network: false, summary: "bubblewrap 0.8.0 (user, PID, mount, network namespaces)" };
    render(<TopBar title="t" settings={{ ...settings, sandbox }} running={false} />);
    const badge = screen.getByTestId("session-guard");
    expect(badge).toHaveTextContent(/^untrusted · workspace-write sandbox · network off/);
    expect(badge).toHaveAttribute("title", expect.stringContaining("bubblewrap 0.8.0"));
    expect(badge).not.toHaveClass("badge-solid");
    expect(screen.queryByRole("status")).not.toBeInTheDocument();
  });

  it.each([
    [{ mechanism: "bubblewrap", mode: "danger-full-access", network: true, summary: "danger-full-access: commands run without a sandbox" }, "on-request · no sandbox (full access)"],
    [{ mechanism: "none", mode: "workspace-write", network: false, summary: "no sandbox: bwrap not found; every command asks" }, "on-request · no sandbox on this machine"],
  ] as const)("is red when commands run uncontained (%o)", (sandbox, text) => {
    render(<TopBar title="t" settings={{ ...settings, approval: "on-request", sandbox: { ...sandbox } }} running={false} />);
    const badge = screen.getByRole("status");
    expect(badge).toHaveTextContent(new RegExp(`^${text.replace(/[()]/g, "\\$&")}`));
    expect(badge).toHaveClass("badge-danger", "badge-solid");
    expect(badge).toHaveAttribute("title", expect.stringContaining(sandbox.summary));
  });
});
