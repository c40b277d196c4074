import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { SessionSettings } from "../ipc";
import { TopBar } from "./TopBar";

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
});
