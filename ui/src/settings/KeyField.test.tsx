import { mockIPC, clearMocks } from "@tauri-apps/api/mocks";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { ProviderView } from "../ipc";
import { describeKey, KeyField } from "./KeyField";

const SECRET = "sk-test-0123456789abcdefWXYZ";

const provider: ProviderView = {
  id: "deepseek",
  name: "DeepSeek",
  baseUrl: "https://api.deepseek.com/v1",
  wire: "chat",
  model: "deepseek-chat",
  harness: null,
  envKey: "DEEPSEEK_API_KEY",
  key: { set: false, last4: null, source: "none", needed: true },
  builtin: true,
  overridden: false,
  isDefault: false,
};

function Harness({ keychain = true, initial = provider }: { keychain?: boolean; initial?: ProviderView }) {
  const [p, setP] = useState(initial);
  return <KeyField provider={p} keychainAvailable={keychain} keychainMessage={keychain ? null : "no Secret Service"} onChange={(key) => setP({ ...p, key })} />;
}

afterEach(() => clearMocks());

describe("key field", () => {
  it("sends the key to the keychain, clears the input, and only ever shows the last four", async () => {
    const calls: Array<{ cmd: string; args: unknown }> = [];
    mockIPC((cmd, args) => {
      calls.push({ cmd, args });
      if (cmd === "set_provider_key") return { set: true, last4: "WXYZ", source: "keychain" };
      return null;
    });
    const { container } = render(<Harness />);
    expect(screen.getByTestId("key-status")).toHaveTextContent("not set");
    const input = screen.getByLabelText("Set key");
    expect(input).toHaveAttribute("type", "password");
    fireEvent.change(input, { target: { value: SECRET } });
    fireEvent.click(screen.getByRole("button", { name: "Save key" }));
    await waitFor(() => expect(screen.getByTestId("key-status")).toHaveTextContent("key set ••••WXYZ"));
    expect(calls).toEqual([{ cmd: "set_provider_key", args: { id: "deepseek", key: SECRET } }]);
    expect(screen.getByLabelText("Replace key")).toHaveValue("");
    // The key is nowhere in the document: not in text, not in attributes, not in input values.
    expect(container.innerHTML).not.toContain(SECRET);
    expect(container.innerHTML).not.toContain("0123456789");
    for (const el of container.querySelectorAll("input")) expect(el.value).not.toContain(SECRET.slice(0, 8));
  });

  it("clears the input even when saving fails", async () => {
    mockIPC(() => Promise.reject({ message: "keychain locked", hint: null }));
    render(<Harness />);
    fireEvent.change(screen.getByLabelText("Set key"), { target: { value: SECRET } });
    fireEvent.click(screen.getByRole("button", { name: "Save key" }));
    await screen.findByRole("alert");
    expect(screen.getByRole("alert")).toHaveTextContent("keychain locked");
    expect(screen.getByLabelText("Set key")).toHaveValue("");
  });

  it("without a keychain explains the environment variable and offers no key input", () => {
    render(<Harness keychain={false} />);
    expect(screen.queryByLabelText("Set key")).not.toBeInTheDocument();
    expect(screen.getByRole("note")).toHaveTextContent("never stores keys in plain text");
    expect(screen.getByRole("note")).toHaveTextContent("DEEPSEEK_API_KEY");
  });

  it("without a keychain, a provider that needs no key gets no keychain warning, and the words point down to the field", () => {
    const local: ProviderView = { ...provider, id: "local", name: "Local model", envKey: null, key: { set: false, last4: null, source: "none", needed: false } };
    const { container } = render(<Harness keychain={false} initial={local} />);
    expect(screen.getByTestId("key-status")).toHaveTextContent("no key needed");
    expect(screen.queryByRole("note")).not.toBeInTheDocument();
    expect(container).not.toHaveTextContent(/keychain/i);
    expect(container).toHaveTextContent("This provider needs no key");
    expect(container).toHaveTextContent("Key environment variable below");
    expect(container).not.toHaveTextContent("above");
  });
});

describe("key status words", () => {
  it("a provider that takes no key says no key is needed, not that one is missing", () => {
    expect(describeKey({ set: false, last4: null, source: "none", needed: false }, null)).toBe("no key needed");
    expect(describeKey({ set: false, last4: null, source: "none", needed: true }, "X_KEY")).toBe("not set");
    expect(describeKey({ set: true, last4: "WXYZ", source: "env", needed: true }, "X_KEY")).toBe("key set ••••WXYZ (from $X_KEY)");
    expect(describeKey({ set: true, last4: "abcd", source: "keychain", needed: false }, null)).toBe("key set ••••abcd (in keychain)");
  });
});
