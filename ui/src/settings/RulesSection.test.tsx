import { mockIPC, clearMocks } from "@tauri-apps/api/mocks";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { Rule, RuleInput } from "../ipc";
import { RulesSection } from "./RulesSection";
import { commandText, describeRule } from "./ruleText";

afterEach(() => clearMocks());

const NPM: Rule = { decision: "allow", command: ["npm", "test"], workspace: null };
const PUSH: Rule = { decision: "deny", command: ["git", "push"], workspace: "/home/dev/tack" };

/** A shell that keeps rules the way the real one does: by value, errors on fields. */
function fakeShell(initial: Rule[]) {
  let rules = [...initial];
  const calls: Array<{ cmd: string; args: unknown }> = [];
  mockIPC((cmd, args) => {
    calls.push({ cmd, args });
    if (cmd === "list_rules") return rules;
    if (cmd === "add_rule") {
      const input = (args as { input: RuleInput }).input;
      if (input.command.includes("'")) {
        throw { message: "the command `a 'b` does not split into words: missing closing quote", hint: null, field: "command" };
      }
      rules = [...rules, { decision: input.decision, command: input.command.split(" "), workspace: input.workspace }];
      return rules;
    }
    if (cmd === "delete_rule") {
      const rule = (args as { rule: Rule }).rule;
      rules = rules.filter((r) => describeRule(r) !== describeRule(rule));
      return rules;
    }
    return null;
  });
  return calls;
}

describe("rules section", () => {
  it("lists each rule's decision, command and scope", async () => {
    fakeShell([NPM, PUSH]);
    render(<RulesSection workspace="/home/dev/tack" />);
    const table = await screen.findByRole("table", { name: "Saved rules" });
    const npm = within(table).getByRole("row", { name: "allow `npm test` in every workspace" });
    expect(npm).toHaveTextContent("allow");
    expect(npm).toHaveTextContent("npm test");
    expect(npm).toHaveTextContent("every workspace");
    const push = within(table).getByRole("row", { name: "deny `git push` in /home/dev/tack" });
    expect(push).toHaveTextContent("/home/dev/tack");
  });

  it("deletes a rule by value and shows the list the shell answers with", async () => {
    const calls = fakeShell([NPM, PUSH]);
    render(<RulesSection workspace={null} />);
    fireEvent.click(await screen.findByRole("button", { name: "Delete the rule allow `npm test` in every workspace" }));
    await waitFor(() => expect(screen.queryByRole("row", { name: /npm test/ })).toBeNull());
    expect(calls.find((c) => c.cmd === "delete_rule")?.args).toEqual({ rule: NPM });
    expect(screen.getByRole("row", { name: /git push/ })).toBeInTheDocument();
  });

  it("adds a rule for this folder by default, or for every workspace", async () => {
    const calls = fakeShell([]);
    render(<RulesSection workspace="/home/dev/tack" />);
    await screen.findByTestId("rules-empty");
    const form = screen.getByRole("form", { name: "Add a rule" });
    expect(within(form).getByRole("button", { name: "Add rule" })).toBeDisabled();
    fireEvent.change(within(form).getByRole("textbox", { name: /Command/ }), { target: { value: "  make check " } });
    expect(within(form).getByRole("textbox", { name: "Folder" })).toHaveValue("/home/dev/tack");
    fireEvent.click(within(form).getByRole("button", { name: "Add rule" }));
    await screen.findByRole("row", { name: "allow `make check` in /home/dev/tack" });
    expect(calls.find((c) => c.cmd === "add_rule")?.args).toEqual({
      input: { decision: "allow", command: "make check", workspace: "/home/dev/tack" },
    });
    // The command field is cleared for the next one; a deny rule for every workspace.
    expect(within(form).getByRole("textbox", { name: /Command/ })).toHaveValue("");
    fireEvent.change(within(form).getByRole("combobox", { name: "Decision" }), { target: { value: "deny" } });
    fireEvent.click(within(form).getByRole("radio", { name: /every workspace/ }));
    expect(within(form).getByRole("textbox", { name: "Folder" })).toBeDisabled();
    fireEvent.change(within(form).getByRole("textbox", { name: /Command/ }), { target: { value: "curl" } });
    fireEvent.click(within(form).getByRole("button", { name: "Add rule" }));
    await screen.findByRole("row", { name: "deny `curl` in every workspace" });
  });

  it("shows the shell's refusal beside the command field", async () => {
    fakeShell([]);
    render(<RulesSection workspace={null} />);
    const form = screen.getByRole("form", { name: "Add a rule" });
    const command = within(form).getByRole("textbox", { name: /Command/ });
    fireEvent.change(command, { target: { value: "a 'b" } });
    fireEvent.click(within(form).getByRole("button", { name: "Add rule" }));
    expect(await within(form).findByRole("alert")).toHaveTextContent("missing closing quote");
    expect(command).toHaveAttribute("aria-invalid", "true");
    fireEvent.change(command, { target: { value: "a b" } });
    expect(within(form).queryByRole("alert")).toBeNull();
  });
});

describe("rule text", () => {
  it("quotes only the words that need it, so the shell splits them back the same", () => {
    expect(commandText(["npm", "test"])).toBe("npm test");
    expect(commandText(["grep", "-e", "a b"])).toBe("grep -e 'a b'");
    expect(commandText(["echo", "it's"])).toBe("echo 'it'\\''s'");
    expect(commandText(["cargo", "check", "-p", "tack-engine", "--features=x,y"])).toBe("cargo check -p tack-engine --features=x,y");
    expect(describeRule(PUSH)).toBe("deny `git push` in /home/dev/tack");
  });
});
