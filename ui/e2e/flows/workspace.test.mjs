// Flows around sessions, the inspector and settings, against the mocked shell.
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

async function resumePast(app) {
  await app.page.getByRole("button", { name: "Approval gate asks for ls -la" }).click();
  await app.page.getByText("Fixed: the gate now judges the program").waitFor();
}

test("resume a past session; its history renders with the diff", async () => {
  const app = await openApp(browser);
  const { page } = app;
  await resumePast(app);
  await page.getByRole("article", { name: "Tool call edit_file: completed" }).getByRole("region", { name: "Changes to crates/engine/src/approval.rs" }).waitFor();
  await page.getByRole("heading", { name: "Approval gate asks for ls -la" }).waitFor();
  await app.shot("11-resumed-session");
  assert.deepEqual(await app.violations(), []);
  await app.context.close();
});

test("inspector: request body tree with search, raw SSE with times, events, copy as curl", async () => {
  const app = await openApp(browser);
  const { page } = app;
  await resumePast(app);
  await page.keyboard.press("Control+i");
  const inspector = page.getByRole("complementary", { name: "Inspector" });
  await inspector.waitFor();
  await inspector.getByText("1 exchange", { exact: true }).waitFor();
  await inspector.getByRole("row", { name: /main/ }).first().click();
  await inspector.getByText("https://api.deepseek.com/v1/chat/completions").waitFor();
  await inspector.getByText("[REDACTED]").first().waitFor();
  const tree = inspector.locator(".json-view");
  await tree.getByText('"deepseek-chat"').first().waitFor();
  await inspector.getByRole("searchbox", { name: "Search request body" }).fill("untrusted");
  await inspector.getByRole("status").getByText(/match/).waitFor();
  await app.shot("12-inspector-request");
  assert.ok((await tree.locator("mark").count()) >= 1, "matches are marked");
  await app.shot("12-inspector-request");

  await inspector.getByRole("tab", { name: "Response" }).click();
  const chunks = inspector.getByRole("list", { name: "Response chunks" });
  await chunks.getByText(/^\+\d+ ms$/).first().waitFor();
  await chunks.getByText(/data: \[DONE\]/).waitFor();
  await app.shot("13-inspector-response");

  await inspector.getByRole("tab", { name: "Events" }).click();
  await inspector.getByRole("list", { name: "Decoded events" }).getByText("completed", { exact: true }).waitFor();

  await inspector.getByRole("button", { name: "Copy as curl" }).click();
  await page.getByText("Copied as curl").waitFor();
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(clip, /^curl /);
  assert.match(clip, /\$TACK_API_KEY/);
  assert.doesNotMatch(clip, /REDACTED|sk-/);
  assert.deepEqual(await app.violations(), []);
  await app.context.close();
});

test("settings: a key is set write-only and shown only as its last four", async () => {
  const app = await openApp(browser);
  const { page } = app;
  const secret = "sk-live-9c1f0e7d5b3a2468ZQ42";
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  await page.getByRole("button", { name: /Anthropic/ }).click();
  await page.getByTestId("key-status").getByText("not set").waitFor();
  await page.getByLabel("Set key").fill(secret);
  await page.getByRole("button", { name: "Save key" }).click();
  await page.getByTestId("key-status").getByText("key set ••••ZQ42 (in keychain)").waitFor();
  assert.equal(await page.getByLabel("Replace key").inputValue(), "");
  const html = await page.content();
  assert.ok(!html.includes(secret) && !html.includes("9c1f0e7d"), "the key is not in the page");
  const calls = await app.calls("set_provider_key");
  assert.deepEqual(calls[0].args, { id: "anthropic", key: secret });
  await app.shot("14-settings-key");
  assert.deepEqual(await app.violations(), []);
  await app.context.close();
});

test("settings without a keychain explain the environment variable", async () => {
  const app = await openApp(browser, { config: { keychainAvailable: false } });
  const { page } = app;
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  const keychainNote = page.getByRole("note").filter({ hasText: "The OS keychain is not available" });
  await keychainNote.waitFor();
  assert.equal(
    (await keychainNote.innerText()).replace(/\s+/g, " ").trim(),
    "The OS keychain is not available (Secret Service: no result found). Set the provider's environment variable instead; Tack never stores keys in plain text.",
  );
  await page.getByRole("note").filter({ hasText: "DEEPSEEK_API_KEY" }).waitFor();
  assert.equal(await page.getByLabel("Set key").count(), 0);
  await app.shot("15-settings-no-keychain");
  await app.context.close();
});

test("without a keychain, a provider that needs no key gets no keychain warning", async () => {
  const app = await openApp(browser, { config: { keychainAvailable: false } });
  const { page } = app;
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  await page.getByRole("button", { name: /Local model \(llama\.cpp, embedded\)/ }).click();
  const editor = page.getByRole("region", { name: "Provider" });
  await editor.getByText("This provider needs no key.").waitFor();
  await editor.getByText("Key environment variable", { exact: true }).first().waitFor();
  assert.equal(await editor.getByText("The system keychain is not available here").count(), 0);
  assert.equal(await page.getByText("The OS keychain is not available").count(), 0);
  assert.equal(await editor.getByText(/above/).count(), 0);
  await app.shot("29-settings-no-keychain-local");
  assert.deepEqual(await app.violations(), []);
  await app.context.close();
});

test("a config file that does not load: the window opens, says where and what to do, and refuses to save", async () => {
  const app = await openApp(browser, { config: { brokenConfig: true } });
  const { page } = app;
  const banner = page.getByRole("alert", { name: "The config file has an error" });
  await banner.getByText("Tack can't read its config file").waitFor();
  await banner.getByText(/has an error at line 1, column 26/).waitFor();
  await banner.getByText("/home/dev/.config/tack/config.toml", { exact: true }).waitFor();
  // The start panel still offers the built-in providers.
  await page.getByLabel("Provider", { exact: true }).locator("option", { hasText: "Local model" }).waitFor({ state: "attached" });
  await app.shot("27-config-error-start");

  await page.getByRole("button", { name: "Settings", exact: true }).click();
  await banner.waitFor();
  await page.getByRole("button", { name: /^DeepSeek/ }).click();
  await page.getByLabel("Default model").fill("deepseek-reasoner");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.getByRole("alert").filter({ hasText: "Not saved:" }).getByText(/does not overwrite a config file it cannot read/).waitFor();
  await app.shot("28-config-error-settings");

  // Fixed outside Tack: "Check again" clears the banner and saving works.
  await page.evaluate(() => window.__tackMock.fixConfig());
  await banner.getByRole("button", { name: "Check again" }).click();
  await banner.waitFor({ state: "detached" });
  await page.getByRole("button", { name: /^DeepSeek/ }).click();
  await page.getByLabel("Default model").fill("deepseek-reasoner");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.getByRole("heading", { name: /DeepSeek/ }).getByText("edited").waitFor();
  await page.getByRole("button", { name: "Reset to built-in" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Reset to built-in" }).click();
  await page.getByRole("heading", { name: /DeepSeek/ }).getByText("edited").waitFor({ state: "detached" });
  assert.equal(await page.getByLabel("Default model").inputValue(), "deepseek-chat");
  assert.deepEqual(await app.violations(), []);
  await app.context.close();
});

test("a data folder that remembers no workspace opens on the start panel with no folder; the default provider is preselected", async () => {
  const app = await openApp(browser, { config: { lastWorkspace: null } });
  const { page } = app;
  await page.getByRole("button", { name: "Choose a folder…" }).waitFor();
  assert.equal(await page.getByLabel("Provider", { exact: true }).inputValue(), "deepseek");
  assert.equal((await app.calls("list_sessions")).length, 0, "no folder, no sessions listed");
  // The folder opened is handed to the shell to remember (not kept in the page's storage).
  await page.getByRole("button", { name: "Choose a folder…" }).click();
  await page.getByRole("button", { name: "Choose a folder…" }).waitFor({ state: "detached" });
  assert.deepEqual((await app.calls("set_last_workspace")).map((c) => c.args.cwd), ["/home/dev/tack"]);
  assert.equal(await page.evaluate(() => localStorage.getItem("tack.workspace")), null);
  await app.context.close();
});

test("without default_provider the built-in local model is preselected, and Settings marks it", async () => {
  const app = await openApp(browser, { config: { defaultProvider: null } });
  const { page } = app;
  await page.getByLabel("Provider", { exact: true }).locator("option", { hasText: "Local model" }).waitFor({ state: "attached" });
  assert.equal(await page.getByLabel("Provider", { exact: true }).inputValue(), "local");
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  const item = page.getByRole("navigation", { name: "Providers" }).getByRole("button", { name: /^Local model/ });
  await item.getByText("default", { exact: true }).waitFor();
  assert.equal(await page.getByRole("navigation", { name: "Providers" }).getByText("default", { exact: true }).count(), 1);
  await app.context.close();
});

test("rename, export and delete a session from the sidebar", async () => {
  const app = await openApp(browser);
  const { page } = app;
  const item = page.getByRole("listitem").filter({ hasText: "Approval gate asks for ls -la" });
  await item.hover();
  await item.getByRole("button", { name: /^Rename/ }).click();
  const field = page.getByRole("textbox", { name: "Session title" });
  await field.fill("ls -la approval fix");
  await field.press("Enter");
  await page.getByRole("button", { name: /^ls -la approval fix/ }).waitFor();
  assert.deepEqual((await app.calls("rename_session"))[0].args, { sessionId: "ses-past-approval", title: "ls -la approval fix" });

  const renamed = page.getByRole("listitem").filter({ hasText: "ls -la approval fix" });
  await renamed.hover();
  await renamed.getByRole("button", { name: /^Export/ }).click();
  await renamed.getByRole("button", { name: "Markdown" }).click();
  await page.getByText("/home/dev/Documents/ses-past-approval.md").waitFor();

  await renamed.hover();
  await renamed.getByRole("button", { name: /^Delete/ }).click();
  const confirm = page.getByRole("alertdialog", { name: "Delete this session?" });
  await confirm.waitFor();
  await app.shot("16-confirm-delete");
  await confirm.getByRole("button", { name: "Delete" }).click();
  await page.getByText("No sessions in this folder yet.").waitFor();
  assert.equal((await app.calls("delete_session")).length, 1);
  await app.context.close();
});

test("approval policy never shows a red badge; dark theme follows the system", async () => {
  const app = await openApp(browser, { colorScheme: "dark", config: { turns: ["file-edit"] } });
  const { page } = app;
  await page.getByText("Never ask").click();
  await page.getByRole("button", { name: "Start session" }).click();
  const badge = page.getByRole("status").filter({ hasText: "never · workspace-write sandbox · network off" });
  await badge.waitFor();
  const color = await badge.evaluate((el) => getComputedStyle(el).backgroundColor);
  assert.equal(color, "rgb(212, 42, 42)");
  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill("Make the retry delay honour Retry-After");
  await box.press("Enter");
  await page.getByRole("alertdialog").getByRole("button", { name: /Approve once/ }).and(page.locator(":enabled")).click();
  await page.getByText("Callers pass").waitFor();
  await page.keyboard.press("Control+i");
  await page.getByRole("complementary", { name: "Inspector" }).getByRole("row", { name: /main/ }).first().click();
  await page.getByRole("complementary", { name: "Inspector" }).locator(".json-view").waitFor();
  await app.shot("17-dark-never-inspector");
  assert.deepEqual(await app.violations(), []);
  await app.context.close();
});

test("add a provider; start a session with a chosen harness and policy", async () => {
  const app = await openApp(browser);
  const { page } = app;
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  await page.getByRole("button", { name: "Add provider" }).click();
  const form = page.getByRole("form", { name: "New provider" });
  await form.getByLabel("Id", { exact: true }).fill("vllm-box");
  await form.getByLabel("Name", { exact: true }).fill("vLLM on the box");
  await form.getByLabel("Base URL", { exact: true }).fill("http://127.0.0.1:8000/v1");
  await form.getByLabel("Wire", { exact: true }).selectOption("chat");
  await form.getByLabel("Default model", { exact: true }).fill("Qwen/Qwen2.5-Coder-32B-Instruct");
  await form.getByLabel("Harness", { exact: true }).selectOption("qwen-code");
  await form.getByLabel("Key environment variable", { exact: true }).fill("VLLM_API_KEY");
  await form.getByRole("button", { name: "Add provider" }).click();
  await page.getByText("Added vLLM on the box").waitFor();
  assert.deepEqual((await app.calls("add_provider"))[0].args, {
    input: {
      id: "vllm-box",
      name: "vLLM on the box",
      baseUrl: "http://127.0.0.1:8000/v1",
      wire: "chat",
      model: "Qwen/Qwen2.5-Coder-32B-Instruct",
      harness: "qwen-code",
      envKey: "VLLM_API_KEY",
    },
  });
  await page.getByRole("button", { name: "Back" }).click();
  await page.getByLabel("Provider", { exact: true }).selectOption("vllm-box");
  await page.getByLabel("Harness", { exact: true }).selectOption("opencode");
  await page.getByText("On request").click();
  await page.getByRole("button", { name: "Start session" }).click();
  await page.getByRole("textbox", { name: "Message to the agent" }).waitFor();
  assert.deepEqual((await app.calls("start_session"))[0].args, {
    input: { cwd: "/home/dev/tack", providerId: "vllm-box", model: null, harness: "opencode", approval: "on-request", sandbox: "workspace-write", network: false },
  });
  assert.deepEqual(await app.violations(), []);
  await app.context.close();
});

test("adding never replaces a provider written into config.toml by hand; saves read the file back", async () => {
  const app = await openApp(browser);
  const { page } = app;
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  // Written by hand while the window is open: the window does not know it yet.
  const dup = { id: "dup", name: "Dup by hand", baseUrl: "http://127.0.0.1:11/v1", wire: "chat", model: "hand", harness: null, envKey: null };
  await page.evaluate((p) => window.__tackMock.addProviderByHand(p), dup);
  const list = page.getByRole("navigation", { name: "Providers" });
  assert.equal(await list.getByText("Dup by hand").count(), 0);
  await page.getByRole("button", { name: "Add provider" }).click();
  const form = page.getByRole("form", { name: "New provider" });
  await form.getByLabel("Id", { exact: true }).fill("dup");
  await form.getByLabel("Name", { exact: true }).fill("Dup");
  await form.getByLabel("Base URL", { exact: true }).fill("http://127.0.0.1:12/v1");
  await form.getByLabel("Default model", { exact: true }).fill("new");
  await form.getByRole("button", { name: "Add provider" }).click();
  await form.getByText("a provider with id `dup` already exists — edit it, or choose another id").waitFor();
  assert.equal(await page.getByText("Added Dup").count(), 0);
  // The refusal read the providers back: the hand-written one is listed, unchanged.
  await list.getByText("Dup by hand").waitFor();
  await form.getByLabel("Id", { exact: true }).fill("dup-2");
  await form.getByRole("button", { name: "Add provider" }).click();
  await page.getByText("Added Dup").waitFor();

  // Another provider written by hand shows up after the next save, here and on the start panel.
  await page.evaluate((p) => window.__tackMock.addProviderByHand(p), { ...dup, id: "later", name: "Later by hand" });
  await page.getByLabel("Default model").fill("newer");
  await page.getByRole("button", { name: "Save changes" }).click();
  await list.getByText("Later by hand").waitFor();
  await page.getByRole("button", { name: "Back" }).click();
  await page.getByLabel("Provider", { exact: true }).locator("option", { hasText: "Later by hand" }).waitFor({ state: "attached" });
  assert.deepEqual(await app.violations(), []);
  await app.context.close();
});
