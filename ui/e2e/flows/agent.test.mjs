// Flows of what a turn can ask of the user and show: questions, todo lists, text-protocol
// harnesses, sessions opened mid-turn, the harness picker and prompt sources.
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
  await page.getByRole("button", { name: "Start session" }).and(page.locator(":enabled")).click();
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

test("answer the agent's questions with options and own words; the answers reach the shell and the timeline", async () => {
  const app = await openApp(browser, { config: { turns: ["question"] } });
  const { page } = app;
  await page.getByLabel("Provider", { exact: true }).selectOption("anthropic");
  await page.getByTestId("auto-harness").getByText("claude-code").waitFor();
  await startSession(app);
  await send(app, "Fix the SSE reader for frames split across reads");
  const dialog = page.getByRole("dialog", { name: "The agent has 2 questions" });
  await dialog.waitFor();
  // The composer's Enter, maybe still in flight, sends nothing; focus is on the dialog itself.
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("role")), "dialog");
  await dialog.getByText("Scope", { exact: true }).waitFor();
  await dialog.getByText("chat, responses and messages share the SSE reader.").waitFor();
  await dialog.getByRole("radio", { name: /all three wires/ }).check();
  await dialog.getByRole("checkbox", { name: /split frame/ }).check();
  await dialog.getByRole("checkbox", { name: /CRLF endings/ }).check();
  await dialog.getByRole("textbox", { name: "Also, in my own words" }).fill("a read of one byte at a time");
  await dialog.getByRole("button", { name: /Send answers/ }).and(page.locator(":enabled")).waitFor();
  await app.shot("19-question-dialog");
  assert.equal((await app.calls("answer_question")).length, 0, "nothing sent before the click");
  await dialog.getByRole("button", { name: /Send answers/ }).click();
  await dialog.waitFor({ state: "detached" });
  const [call] = await app.calls("answer_question");
  assert.deepEqual(call.args, {
    sessionId: "ses-new-1",
    questionId: "question-1",
    answers: [
      { question: "Which wires should the split-frame fix cover?", answers: ["all three wires"] },
      { question: "Which regression tests should I add?", answers: ["split frame", "CRLF endings", "a read of one byte at a time"] },
    ],
  });
  const card = page.getByRole("region", { name: "Questions from the agent" });
  await card.getByText("answered", { exact: true }).waitFor();
  await card.getByLabel("Your answer").filter({ hasText: "split frame, CRLF endings, a read of one byte at a time" }).waitFor();
  await page.getByText("Thanks — I'll keep the fix to what you picked").waitFor();
  const tool = page.getByRole("article", { name: "Tool call AskUserQuestion: completed" });
  await tool.getByRole("button", { name: /AskUserQuestion/ }).click();
  await tool.getByLabel("Output").getByText(/The user answered: "Which wires should the split-frame fix cover\?"="all three wires"/).waitFor();
  await app.shot("20-question-answered");

  // The inspector labels every request with its harness, route, purpose and prompt sources.
  await page.keyboard.press("Control+i");
  const inspector = page.getByRole("complementary", { name: "Inspector" });
  const row = inspector.getByRole("row", { name: /main/ }).first();
  await row.getByText("messages/claude-code").waitFor();
  await row.getByTestId("prompt-source").getByText("claude-code/system.md").waitFor();
  await row.click();
  const labels = inspector.getByLabel("How this request was made");
  await labels.getByText("claude-code", { exact: true }).waitFor();
  await labels.getByTitle("import:claude-code/system.md").getByText("imported").waitFor();
  await labels.getByTitle("file:/home/dev/.config/tack/prompts/claude-code/tools.json").waitFor();
  await app.shot("21-inspector-prompt-source");
  await assertClean(app);
  await app.context.close();
});

test("dismiss the questions: the shell gets null and the turn goes on without an answer", async () => {
  const app = await openApp(browser, { config: { turns: ["question"] } });
  const { page } = app;
  await startSession(app);
  await send(app, "Fix the SSE reader for frames split across reads");
  const dialog = page.getByRole("dialog", { name: "The agent has 2 questions" });
  await dialog.getByRole("button", { name: /Dismiss/ }).and(page.locator(":enabled")).waitFor();
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  const [call] = await app.calls("answer_question");
  assert.equal(call.args.answers, null);
  await page.getByRole("region", { name: "Questions from the agent" }).getByText("dismissed", { exact: true }).waitFor();
  await page.getByText("No answer, so I'll take the narrowest option").waitFor();
  assert.equal((await app.calls("interrupt")).length, 0, "Esc dismissed the questions, it did not stop the turn");
  await assertClean(app);
  await app.context.close();
});

test("the todo list stays in view and shows the latest list", async () => {
  const app = await openApp(browser, { config: { turns: ["todos"] } });
  const { page } = app;
  await startSession(app);
  await send(app, "Make the SSE reader keep partial frames");
  await page.getByText("Next: the regression test.").waitFor();
  const panel = page.getByRole("region", { name: "Todo list" });
  await panel.getByLabel("1 of 3 done").waitFor();
  const items = await panel.getByRole("listitem").allTextContents();
  assert.deepEqual(items, [
    "Read how the SSE reader buffers a frame (done)",
    "Keep partial frames across reads (in progress)",
    "Add a split-frame regression test (to do)",
  ]);
  await app.shot("22-todo-panel");
  await panel.getByRole("button", { name: /Todos/ }).click();
  await panel.getByRole("button", { name: /Todos/ }).getByText("Keep partial frames across reads").waitFor();
  assert.equal(await panel.getByRole("listitem").count(), 0);
  await assertClean(app);
  await app.context.close();
});

test("text protocol: commands read from the model's text link back to it; Tack's correction is a labelled note", async () => {
  const app = await openApp(browser, { config: { turns: ["text-protocol"] } });
  const { page } = app;
  const harness = page.getByLabel("Harness", { exact: true });
  // DeepSeek speaks chat: a Messages-only harness is offered but disabled, with the reason.
  const zcode = harness.locator("option[value=zcode]");
  // The options follow the provider, which is picked once the provider list has arrived.
  await harness.locator("option[value=zcode][disabled]").waitFor({ state: "attached" });
  assert.equal(await zcode.isDisabled(), true);
  assert.equal(await zcode.textContent(), "zcode — messages only; this provider speaks chat");
  await harness.selectOption("swe-agent");
  await page.getByText(/SWE-agent 1.1: bash, str_replace_editor and submit/).waitFor();
  await startSession(app);
  assert.equal((await app.calls("start_session"))[0].args.input.harness, "swe-agent");
  await send(app, "Check that a frame split across reads is kept");
  await page.getByText("Nothing to change.", { exact: false }).waitFor();
  await page.getByRole("button", { name: "Stop the turn" }).waitFor({ state: "detached" });

  const note = page.getByRole("complementary", { name: "Tack to the model: Format correction" });
  await note.getByText("Tack asked the model to answer again in the expected format").waitFor();
  assert.equal(await page.getByRole("article", { name: /Your message/ }).count(), 1, "only the person's own message is theirs");
  await note.getByRole("button", { name: "Show what Tack sent" }).click();
  await note.getByText(/Every reply must contain exactly one discussion/).waitFor();

  const first = page.getByRole("article", { name: "Tool call shell: completed" }).first();
  const toggle = first.getByRole("button", { name: /^shell/ });
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  await first.getByLabel("Command").getByText("ls crates/wire/src").waitFor();
  await first.getByText("Tack read this command out of the model's text.").waitFor();
  await page.getByRole("log", { name: "Conversation" }).hover();
  await page.mouse.wheel(0, -3000);
  await first.getByRole("button", { name: /from the model's text/ }).click();
  const source = page.locator(".row-highlight");
  await source.getByRole("article", { name: /The model's text/ }).getByText("The SSE reader lives in the wire crate").waitFor();
  await app.shot("23-text-protocol");
  await assertClean(app);
  await app.context.close();
});

test("a session opened mid-turn asks its pending approval again; approving finishes the turn", async () => {
  const app = await openApp(browser, { config: { midTurnSessions: true } });
  const { page } = app;
  await page.getByRole("button", { name: /Build the release binary/ }).click();
  const dialog = page.getByRole("alertdialog", { name: "Run this command?" });
  await dialog.waitFor();
  await dialog.getByLabel("Command").getByText("cargo build --release -p tack-app").waitFor();
  await page.getByRole("article", { name: "Tool call shell: needs approval" }).waitFor();
  await page.getByRole("button", { name: "Stop the turn" }).waitFor();
  await dialog.getByRole("button", { name: /Approve once/ }).and(page.locator(":enabled")).waitFor();
  await app.shot("24-resumed-pending-approval");
  await page.keyboard.press("y");
  await dialog.waitFor({ state: "detached" });
  const [call] = await app.calls("decide_approval");
  assert.deepEqual(call.args, { sessionId: "ses-pending", approvalId: "appr-pending", decision: { type: "approve_once" } });
  const card = page.getByRole("article", { name: "Tool call shell: completed" });
  await card.getByLabel("Output").getByText(/Finished `release` profile/).waitFor();
  await page.getByText("Built:").waitFor();
  await page.getByRole("button", { name: "Stop the turn" }).waitFor({ state: "detached" });
  await assertClean(app);
  await app.context.close();
});

test("harness picker: auto says what it picks and why; the session header keeps it", async () => {
  const app = await openApp(browser, { config: { turns: ["text-stream"] } });
  const { page } = app;
  const auto = page.getByTestId("auto-harness");
  await auto.getByText("minimal").waitFor();
  assert.equal(await auto.textContent(), "auto → minimal (set in the provider's settings)");
  await page.getByLabel("Provider", { exact: true }).selectOption("vllm-local");
  await auto.getByText("qwen-code").waitFor();
  assert.equal(await auto.textContent(), "auto → qwen-code (the model name contains qwen)");
  await page.getByText("no key needed").waitFor();
  assert.equal(await page.getByText("No key set").count(), 0);
  // Another model: auto is asked again.
  await page.getByLabel("Model", { exact: true }).fill("deepseek-v3.2");
  await auto.getByText("claude-code-bare").waitFor();
  assert.equal(await auto.textContent(), "auto → claude-code-bare (the model name contains deepseek)");
  await page.getByLabel("Model", { exact: true }).fill("kimi-k2-instruct");
  await auto.getByText("kimi-code").waitFor();
  await page.getByLabel("Model", { exact: true }).fill("Qwen/Qwen3-Coder-30B-A3B-Instruct");
  await auto.getByText("qwen-code").waitFor();
  await app.shot("25-harness-auto");
  // Asked once per provider and model; the answer for a model seen before is reused.
  const inferred = (await app.calls("infer_harness")).map((c) => `${c.args.providerId} ${c.args.model}`);
  assert.deepEqual(inferred.filter((c) => c.startsWith("vllm-local")), [
    "vllm-local Qwen/Qwen3-Coder-30B-A3B-Instruct",
    "vllm-local deepseek-v3.2",
    "vllm-local kimi-k2-instruct",
  ]);
  await startSession(app);
  assert.equal((await app.calls("start_session"))[0].args.input.harness, null);
  const header = page.getByTestId("session-harness");
  assert.equal(await header.textContent(), "auto → qwen-code (the model name contains qwen)");
  await send(app, "How does the SSE decoder handle a frame split across two reads?");
  await page.getByText("So nothing is lost when a provider flushes mid-frame.").waitFor();
  await app.shot("26-header-auto-harness");
  await assertClean(app);
  await app.context.close();
});

test("settings: a provider that needs no key says so", async () => {
  const app = await openApp(browser);
  const { page } = app;
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  await page.getByRole("button", { name: /llama\.cpp \(local\)/ }).click();
  await page.getByTestId("key-status").getByText("no key needed").waitFor();
  await page.getByRole("button", { name: /llama\.cpp \(local\)/ }).getByText("no key needed").waitFor();
  await page.getByRole("button", { name: /Anthropic/ }).getByText("not set").waitFor();
  await assertClean(app);
  await app.context.close();
});
