// Flows of one session against the mocked shell: streaming, approvals, interrupt, errors.
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

async function startSession(app) {
  const { page } = app;
  await page.getByRole("button", { name: "Start session" }).click();
  await page.getByRole("textbox", { name: "Message to the agent" }).waitFor();
}

async function send(app, text) {
  const box = app.page.getByRole("textbox", { name: /Message to the agent|Steer the running turn/ });
  await box.fill(text);
  await box.press("Enter");
}

async function assertClean(app) {
  assert.deepEqual(await app.violations(), []);
}

test("send a message and see the answer stream in", async () => {
  const app = await openApp(browser, { config: { turns: ["text-stream"], speed: 1 } });
  const { page } = app;
  await page.getByRole("button", { name: "Start session" }).and(page.locator(":enabled")).waitFor();
  await page.getByTestId("auto-harness").waitFor();
  await app.shot("01-start-panel");
  await startSession(app);
  await send(app, "How does the SSE decoder handle a frame split across two reads?");
  // While streaming: the message is partly there and the turn is running.
  await page.getByRole("button", { name: "Stop the turn" }).waitFor();
  await page.getByText("line buffer per stream").waitFor();
  await app.shot("02-streaming");
  // Final: the completed item replaced the stream; code and table rendered.
  await page.getByText("So nothing is lost when a provider flushes mid-frame.").waitFor();
  await page.getByRole("button", { name: "Stop the turn" }).waitFor({ state: "detached" });
  assert.equal(await page.locator(".msg-assistant table").count(), 1);
  await page.locator(".msg-assistant .code-block .hl").first().waitFor();
  await page.getByRole("button", { name: /Reasoning/ }).click();
  await page.getByText("buffers bytes until a blank line").waitFor();
  const sent = await app.calls("send_input");
  assert.equal(sent.length, 1);
  assert.equal(sent[0].args.text, "How does the SSE decoder handle a frame split across two reads?");
  await app.shot("03-streamed-answer");
  await assertClean(app);
  await app.context.close();
});

test("approve a shell command once; its output streams in", async () => {
  const app = await openApp(browser, { config: { turns: ["shell-approve"] } });
  const { page } = app;
  await startSession(app);
  await send(app, "Run the SSE decoder tests");
  const dialog = page.getByRole("alertdialog", { name: "Run this command?" });
  await dialog.waitFor();
  await dialog.getByText("cargo test -p tack-wire --test sse_decode 2>&1 | tail -n 20").waitFor();
  await dialog.getByText("/home/dev/tack").waitFor();
  // Enter right as the dialog appears (the composer's send key, maybe in flight) decides
  // nothing. The arming delay for the letter shortcuts is covered by the component tests.
  await page.keyboard.press("Enter");
  await app.shot("04-approval-dialog");
  assert.equal((await app.calls("decide_approval")).length, 0, "Enter decided nothing");
  await dialog.getByRole("button", { name: /Approve once/ }).and(page.locator(":enabled")).waitFor();
  await page.keyboard.press("y");
  await dialog.waitFor({ state: "detached" });
  const decisions = await app.calls("decide_approval");
  assert.equal(decisions.length, 1);
  assert.deepEqual(decisions[0].args.decision, { type: "approve_once" });
  await page.getByText("All 6 decoder tests pass").waitFor();
  const card = page.getByRole("article", { name: "Tool call shell: completed" });
  await card.waitFor();
  const output = await card.getByLabel("Output").textContent();
  assert.match(output, /test result: ok\. 6 passed/);
  assert.doesNotMatch(output, /\u001b\[/, "ANSI escapes are stripped");
  await card.getByText("exit 0").waitFor();
  await app.shot("05-approved-output");
  await assertClean(app);
  await app.context.close();
});

test("deny with a reason; the reason reaches decideApproval and the card", async () => {
  const app = await openApp(browser, { config: { turns: ["shell-deny"] } });
  const { page } = app;
  await startSession(app);
  await send(app, "Clean and rebuild in release mode");
  const dialog = page.getByRole("alertdialog", { name: "Run this command?" });
  await dialog.waitFor();
  await dialog.getByText("high risk").waitFor();
  await dialog.getByRole("textbox", { name: /Reason if you deny/ }).fill("keep target/, an incremental build is enough");
  await dialog.getByRole("button", { name: /^Deny/ }).and(page.locator(":enabled")).click();
  await dialog.waitFor({ state: "detached" });
  const decisions = await app.calls("decide_approval");
  assert.deepEqual(decisions[0].args.decision, { type: "deny", reason: "keep target/, an incremental build is enough" });
  const card = page.getByRole("article", { name: "Tool call shell: denied" });
  await card.waitFor();
  await card.getByText("keep target/, an incremental build is enough").first().waitFor();
  await page.getByText("I won't delete").waitFor();
  await app.shot("06-denied");
  await assertClean(app);
  await app.context.close();
});

test("interrupt a streaming turn with Stop", async () => {
  const app = await openApp(browser, { config: { turns: ["interrupted"] } });
  const { page } = app;
  await startSession(app);
  await send(app, "Plan moving the retry policy into the wire crate");
  await page.getByText("Where things live today").waitFor();
  await page.getByRole("button", { name: "Stop the turn" }).click();
  await page.getByRole("note").getByText("Turn interrupted.").waitFor();
  assert.equal((await app.calls("interrupt")).length, 1);
  await page.getByRole("textbox", { name: "Message to the agent" }).waitFor();
  await app.shot("07-interrupted");
  await assertClean(app);
  await app.context.close();
});

test("steering while a turn runs queues the text", async () => {
  const app = await openApp(browser, { config: { turns: ["interrupted"] } });
  const { page } = app;
  await startSession(app);
  await send(app, "Plan moving the retry policy into the wire crate");
  await page.getByText("Where things live today").waitFor();
  await send(app, "also cover the inspector");
  await page.getByRole("article", { name: "Your message (queued)" }).getByText("also cover the inspector").waitFor();
  await page.keyboard.press("Escape");
  await page.getByText("Turn interrupted.").waitFor();
  await app.context.close();
});

test("a file edit asks with its diff; the diff toggles unified/split", async () => {
  const app = await openApp(browser, { config: { turns: ["file-edit"] } });
  const { page } = app;
  await startSession(app);
  await send(app, "Make the retry delay honour Retry-After");
  const dialog = page.getByRole("alertdialog", { name: "Write these files?" });
  await dialog.waitFor();
  await dialog.getByRole("region", { name: "Changes to crates/wire/src/retry.rs" }).waitFor();
  await dialog.locator(".hl").first().waitFor();
  await app.shot("08-file-write-approval");
  await dialog.getByRole("button", { name: /Approve once/ }).and(page.locator(":enabled")).click();
  const card = page.getByRole("article", { name: "Tool call edit_file: completed" });
  await card.getByRole("region", { name: "Changes to crates/wire/src/retry.rs" }).waitFor();
  await page.getByText("Callers pass").waitFor();
  await card.getByRole("button", { name: "Split" }).click();
  await card.locator('table[data-layout="split"]').waitFor();
  await app.shot("09-diff-split");
  await card.getByRole("button", { name: "Unified" }).click();
  await card.locator('table[data-layout="unified"]').waitFor();
  await assertClean(app);
  await app.context.close();
});

test("an auth error says what to do next", async () => {
  const app = await openApp(browser, { config: { turns: ["error-turn"] } });
  const { page } = app;
  await startSession(app);
  await send(app, "List the crates");
  const alert = page.getByRole("alert", { name: /The provider refused the key/ });
  await alert.waitFor();
  await alert.getByText("Set the key in Settings, or set DEEPSEEK_API_KEY in the environment Tack starts from.").waitFor();
  await alert.getByText("HTTP 401", { exact: true }).waitFor();
  await page.getByText("Turn stopped after an error.").waitFor();
  await app.shot("10-auth-error");
  await alert.getByRole("button", { name: "Open Settings" }).click();
  await page.getByRole("heading", { name: "Settings · Providers" }).waitFor();
  await assertClean(app);
  await app.context.close();
});

test("the list follows streaming until the user scrolls up; Jump to latest returns", async () => {
  const app = await openApp(browser, { config: { largeSession: 400 } });
  const { page } = app;
  await page.getByRole("button", { name: /Large session \(400 items\)/ }).click();
  await page.getByText("Attempt 79", { exact: false }).last().waitFor();
  const log = page.getByRole("log", { name: "Conversation" });
  const streaming = page.evaluate(() => window.__tackMock.streamTokens("ses-large", 200, 3));
  await page.waitForTimeout(400);
  const atBottom = () =>
    log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 60);
  assert.ok(await atBottom(), "follows the stream while at the bottom");
  await log.hover();
  await page.mouse.wheel(0, -1500);
  await page.getByRole("button", { name: "Jump to latest" }).waitFor();
  await page.waitForTimeout(400); // let the smooth wheel scroll finish
  const held = await log.evaluate((el) => el.scrollTop);
  await page.waitForTimeout(500);
  const later = await log.evaluate((el) => el.scrollTop);
  assert.ok(Math.abs(later - held) < 2, `stays where the user scrolled (${held} → ${later})`);
  await app.shot("18-jump-to-latest");
  await page.getByRole("button", { name: "Jump to latest" }).click();
  await page.getByRole("button", { name: "Jump to latest" }).waitFor({ state: "detached" });
  await streaming;
  await page.waitForTimeout(200);
  assert.ok(await atBottom(), "back at the latest");
  await app.context.close();
});
