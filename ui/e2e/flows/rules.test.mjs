// Saved approval rules: "Always allow …" in the approval dialog saves the exact rule it shows,
// and Settings lists it beside rules added there; a rule can be deleted.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openApp } from "../harness.mjs";

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test("Always allow saves the rule the dialog shows; Settings lists it, adds and deletes rules", async () => {
  const app = await openApp(browser, { config: { turns: ["shell-rule"] } });
  const { page } = app;
  await page.getByRole("button", { name: "Start session" }).and(page.locator(":enabled")).click();
  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill("Run the SSE decoder tests");
  await box.press("Enter");

  const dialog = page.getByRole("alertdialog", { name: "Run this command?" });
  await dialog.waitFor();
  const group = dialog.getByRole("group", { name: "Save a rule" });
  await group.getByText(/^Save a rule for cargo test:/).waitFor();
  await group.getByText("(/home/dev/tack)").waitFor();
  const allow = dialog.getByRole("button", { name: "Always allow cargo test in this workspace" });
  await allow.and(page.locator(":enabled")).waitFor();
  await app.shot("31-approval-always-allow");
  assert.equal((await app.calls("decide_approval")).length, 0, "nothing decided before the click");
  await allow.click();
  await dialog.waitFor({ state: "detached" });
  const [call] = await app.calls("decide_approval");
  assert.deepEqual(call.args.decision, {
    type: "always_allow",
    rule: { decision: "allow", command: ["cargo", "test"], workspace: "/home/dev/tack" },
  });
  await page.getByText("All 6 decoder tests pass").waitFor();

  await page.getByRole("button", { name: "Settings", exact: true }).click();
  await page.getByRole("button", { name: /Approval rules/ }).click();
  await page.getByRole("heading", { name: "Settings · Approval rules" }).waitFor();
  const table = page.getByRole("table", { name: "Saved rules" });
  await table.getByRole("row", { name: "allow `cargo test` in /home/dev/tack" }).waitFor();

  const form = page.getByRole("form", { name: "Add a rule" });
  await form.getByLabel("Decision", { exact: true }).selectOption("deny");
  await form.getByRole("textbox", { name: /Command/ }).fill("git push");
  await form.getByRole("radio", { name: /every workspace/ }).check();
  await form.getByRole("button", { name: "Add rule" }).click();
  await table.getByRole("row", { name: "deny `git push` in every workspace" }).waitFor();
  assert.deepEqual((await app.calls("add_rule"))[0].args, {
    input: { decision: "deny", command: "git push", workspace: null },
  });
  await form.getByRole("textbox", { name: /Command/ }).fill("npm run test:unit");
  await form.getByRole("radio", { name: /this folder/ }).check();
  await form.getByLabel("Decision", { exact: true }).selectOption("allow");
  await form.getByRole("button", { name: "Add rule" }).click();
  await table.getByRole("row", { name: "allow `npm run test:unit` in /home/dev/tack" }).waitFor();
  await app.shot("30-settings-rules");

  await page.getByRole("button", { name: "Delete the rule deny `git push` in every workspace" }).click();
  await table.getByRole("row", { name: /git push/ }).waitFor({ state: "detached" });
  assert.deepEqual((await app.calls("delete_rule"))[0].args, {
    rule: { decision: "deny", command: ["git", "push"], workspace: null },
  });
  assert.equal(await table.getByRole("row").count(), 3, "header and the two rules left");
  assert.deepEqual(await app.violations(), []);
  await app.context.close();
});
