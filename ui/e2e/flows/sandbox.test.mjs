// The sandbox in the window: the start panel shows this machine's mechanism beside the approval
// policy and sends the chosen mode and network; the session header's badge says both; a command
// the sandbox refuses shows the refusal on its card, the escalation dialog asks to run it outside,
// and once approved the card says it ran without a sandbox.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openApp } from "../harness.mjs";

const DENIAL = "write to /home/dev/.cache/tack-warm refused: read-only file system (only the workspace and the writable roots are writable)";

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test("a command the sandbox refuses asks to run outside; approved, it runs without a sandbox", async () => {
  const app = await openApp(browser, { config: { turns: ["shell-escalation"] } });
  const { page } = app;

  // The start panel: policy and sandbox together, the probe's mechanism line.
  const panel = page.getByRole("form", { name: "Start a session" });
  await panel.getByTestId("sandbox-mechanism").getByText(/^bubblewrap 0\.8\.0 \(user, PID, mount, network namespaces/).waitFor();
  await panel.getByText("On request").click();
  const modes = panel.getByRole("radiogroup", { name: "Sandbox mode" });
  assert.equal(await modes.getByRole("radio", { name: /Workspace write/ }).isChecked(), true, "workspace-write is the default");
  assert.equal(await panel.getByRole("checkbox", { name: /Network for sandboxed commands/ }).isChecked(), false, "network is off by default");
  const danger = modes.locator("label", { hasText: "Full access (dangerous)" });
  assert.equal(await danger.evaluate((el) => getComputedStyle(el.querySelector(".policy-title")).color), "rgb(201, 42, 42)", "full access is marked in red");
  await panel.getByTestId("sandbox-together").getByText(/^Commands that run without asking run in the workspace-write sandbox; when the sandbox refuses something, Tack asks/).waitFor();
  await app.shot("32-start-sandbox");

  await page.getByRole("button", { name: "Start session" }).and(page.locator(":enabled")).click();
  const badge = page.getByTestId("session-guard");
  await badge.getByText(/^on-request · workspace-write sandbox · network off/).waitFor();
  assert.match(await badge.getAttribute("title"), /Sandbox: bubblewrap 0\.8\.0/);
  assert.equal(await badge.evaluate((el) => el.classList.contains("badge-solid")), false, "contained: not loud");
  const [start] = await app.calls("start_session");
  assert.deepEqual(start.args.input, {
    cwd: "/home/dev/tack",
    providerId: "deepseek",
    model: null,
    harness: null,
    approval: "on-request",
    sandbox: "workspace-write",
    network: false,
  });
  await page.locator("header.topbar").screenshot({ path: new URL("../screenshots/33-header-sandbox-badge.png", import.meta.url).pathname });

  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill("Warm the build cache before the benchmarks");
  await box.press("Enter");

  // The escalation: the sandbox's refusal, the full command, its own buttons.
  const dialog = page.getByRole("alertdialog", { name: "Run outside the sandbox?" });
  await dialog.waitFor();
  await dialog.getByRole("note", { name: "The sandbox refused" }).getByText(DENIAL).waitFor();
  assert.equal(await dialog.getByLabel("Command").textContent(), "python3 tools/warm_cache.py");
  await dialog.getByTestId("approval-sandbox").getByText(/^Runs WITHOUT a sandbox once approved/).waitFor();
  assert.equal(await dialog.getByRole("button", { name: /Approve for session/ }).count(), 0, "no session approval for an escalation");
  await dialog.getByRole("button", { name: /Keep the failure/ }).waitFor();
  await dialog.getByRole("button", { name: /Abort turn/ }).waitFor();
  // Behind the dialog, the card already shows what the sandbox refused.
  const card = page.getByRole("article", { name: "Tool call shell: needs approval" });
  await card.getByRole("note").getByText(DENIAL).waitFor();
  const runOutside = dialog.getByRole("button", { name: /Run outside the sandbox/ });
  await runOutside.and(page.locator(":enabled")).waitFor();
  await app.shot("34-sandbox-escalation");
  assert.equal((await app.calls("decide_approval")).length, 0, "nothing decided before the click");
  await runOutside.click();
  await dialog.waitFor({ state: "detached" });
  const [decided] = await app.calls("decide_approval");
  assert.deepEqual(decided.args.decision, { type: "approve_once" });

  // The second run, outside: the card says where it ran and why.
  await page.getByText("The cache is warm: 214 entries").waitFor();
  const done = page.getByRole("article", { name: "Tool call shell: completed" });
  await done.getByText("Approved to run again outside the sandbox.").waitFor();
  await done.getByTestId("tool-sandbox").getByText("ran without a sandbox").waitFor();
  await done.getByRole("note").getByText(DENIAL).waitFor();
  assert.match(await done.getByLabel("Output").textContent(), /warmed 214 entries/);
  await app.shot("35-escalated-card");
  assert.deepEqual(await app.violations(), []);
  await app.context.close();
});

test("without a sandbox on the machine the start panel and the header say so, in red", async () => {
  const app = await openApp(browser, { config: { sandbox: "none" } });
  const { page } = app;
  const panel = page.getByRole("form", { name: "Start a session" });
  const line = panel.getByTestId("sandbox-mechanism");
  await line.getByText("No sandbox on this machine: bwrap not found (install the `bubblewrap` package); every command asks").waitFor();
  assert.equal(await line.evaluate((el) => getComputedStyle(el).color), "rgb(201, 42, 42)");
  await panel.getByTestId("sandbox-together").getByText("Every command asks first, and runs with all your rights once approved.").waitFor();
  assert.equal(await panel.getByRole("checkbox", { name: /Network for sandboxed commands/ }).isDisabled(), true);
  await app.shot("36-start-no-sandbox");
  await page.getByRole("button", { name: "Start session" }).and(page.locator(":enabled")).click();
  const badge = page.getByRole("status").filter({ hasText: "untrusted · no sandbox on this machine" });
  await badge.waitFor();
  assert.equal(await badge.evaluate((el) => getComputedStyle(el).backgroundColor), "rgb(212, 42, 42)");
  assert.match(await badge.getAttribute("title"), /bwrap not found/);
  assert.deepEqual(await app.violations(), []);
  await app.context.close();
});

test("full access is sent as chosen and the header badge is red", async () => {
  const app = await openApp(browser);
  const { page } = app;
  const panel = page.getByRole("form", { name: "Start a session" });
  await panel.getByTestId("sandbox-mechanism").getByText(/^bubblewrap/).waitFor();
  await panel.getByText("Full access (dangerous)").click();
  await panel.getByTestId("sandbox-together").getByText("Commands the policy lets through run with all your rights, outside any sandbox.").waitFor();
  await page.getByRole("button", { name: "Start session" }).and(page.locator(":enabled")).click();
  await page.getByRole("status").filter({ hasText: "untrusted · no sandbox (full access)" }).waitFor();
  const [start] = await app.calls("start_session");
  assert.equal(start.args.input.sandbox, "danger-full-access");
  assert.deepEqual(await app.violations(), []);
  await app.context.close();
});
