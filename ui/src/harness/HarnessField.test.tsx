import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { HarnessInfo, ProviderView } from "../ipc";
import { harnessFit, isTextProtocol } from "./harnesses";
import { HarnessField } from "./HarnessField";
import { forgetInferences, useInferredHarness } from "./useInferredHarness";

const harnesses: HarnessInfo[] = [
  { id: "native", wires: ["chat", "responses", "messages"], description: "Tack's own prompt and tools, on any wire" },
  { id: "qwen-code", wires: ["chat"], description: "Qwen Code 0.24" },
  { id: "zcode", wires: ["messages"], description: "ZCode's request shape and tools" },
  { id: "claude-code", wires: ["messages", "chat", "responses"], description: "Claude Code's request shape and tools" },
];

const provider: ProviderView = {
  id: "vllm",
  name: "vLLM",
  baseUrl: "http://127.0.0.1:8000/v1",
  wire: "chat",
  model: "Qwen/Qwen3-Coder-30B-A3B-Instruct",
  harness: null,
  envKey: null,
  key: { set: false, last4: null, source: "none", needed: false },
  builtin: false,
  overridden: false,
  isDefault: false,
};

function Picker({ model = provider.model }: { model?: string }) {
  const [value, setValue] = useState("");
  const inference = useInferredHarness(provider.id, model);
  return <HarnessField provider={provider} harnesses={harnesses} value={value} onChange={setValue} inference={inference} />;
}

afterEach(() => {
  clearMocks();
  forgetInferences();
});

describe("harness picker", () => {
  it("auto shows what it picks and why, asked for this provider and model", async () => {
    const calls: unknown[] = [];
    mockIPC((cmd, args) => {
      calls.push({ cmd, args });
      if (cmd === "infer_harness") return { harness: "qwen-code", reason: "the model name contains `qwen`" };
      return null;
    });
    render(<Picker />);
    const help = await screen.findByTestId("auto-harness");
    expect(help).toHaveTextContent("auto → qwen-code (the model name contains qwen)");
    expect(within(help).getByText("qwen").closest("code")).toHaveClass("inline-code");
    expect(screen.getByRole("option", { name: "auto → qwen-code" })).toBeInTheDocument();
    expect(calls).toEqual([{ cmd: "infer_harness", args: { providerId: "vllm", model: "Qwen/Qwen3-Coder-30B-A3B-Instruct" } }]);
  });

  it("lists each harness with its wires and disables the ones that can't run on the provider's wire", async () => {
    mockIPC(() => ({ harness: "native", reason: "no rule matched this provider and model" }));
    render(<Picker />);
    await screen.findByTestId("auto-harness");
    const options = screen.getAllByRole("option");
    expect(options.map((o) => [o.textContent, (o as HTMLOptionElement).disabled])).toEqual([
      ["auto → native", false],
      ["native · chat, responses, messages", false],
      ["qwen-code · chat", false],
      ["zcode — messages only; this provider speaks chat", true],
      ["claude-code · messages, chat, responses", false],
    ]);
  });

  it("a chosen harness shows its description and wires", async () => {
    mockIPC(() => ({ harness: "native", reason: "no rule matched" }));
    render(<Picker />);
    fireEvent.change(screen.getByLabelText("Harness"), { target: { value: "claude-code" } });
    expect(screen.getByText(/Claude Code's request shape and tools/)).toHaveTextContent("(messages, chat and responses)");
  });

  it("says so when the shell can't tell", async () => {
    mockIPC(() => Promise.reject({ message: "unknown provider `vllm`", hint: null }));
    render(<Picker />);
    await waitFor(() => expect(screen.getByText(/the shell could not say which harness/)).toHaveTextContent("unknown provider `vllm`"));
  });
});

describe("harness facts", () => {
  it("fit by wire", () => {
    expect(harnessFit({ wires: ["chat"] }, "chat")).toEqual({ ok: true });
    expect(harnessFit({ wires: ["messages", "chat"] }, "responses")).toEqual({ ok: false, reason: "only messages and chat; this provider speaks responses" });
  });

  it("text-protocol harnesses", () => {
    expect(["swe-agent", "mini-swe-agent", "terminus-2", "minimal", "claude-code"].map(isTextProtocol)).toEqual([true, true, true, false, false]);
  });
});
