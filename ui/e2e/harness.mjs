// Shared setup for the Playwright flows and the perf harness: Debian's chromium, the mocked
// shell injected before the app loads, and a watch on CSP violations and page errors.
import { chromium } from "playwright-core";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const UI_DIR = fileURLToPath(new URL("..", import.meta.url));
export const MOCK_SCRIPT = path.join(UI_DIR, "e2e/dist/mock-ipc.js");
export const SCREENSHOTS = path.join(UI_DIR, "e2e/screenshots");
export const BASE_URL = process.env.TACK_UI_URL ?? "http://127.0.0.1:4173/";

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-dev-shm-usage",
];

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
}

/**
 * A page with the mock installed. `config` is the mock's MockConfig (recordings to play,
 * speed, keychain). `problems` collects CSP violations, page errors and console errors.
 */
export async function openApp(browser, { config = {}, colorScheme = "light", viewport = { width: 1360, height: 860 } } = {}) {
  const context = await browser.newContext({ viewport, colorScheme, deviceScaleFactor: 1 });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(BASE_URL).origin });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    const text = message.text();
    if (message.type() === "error" || /Content Security Policy/i.test(text)) problems.push(`console.${message.type()}: ${text}`);
  });
  await page.addInitScript((cfg) => {
    window.__TACK_MOCK_CONFIG__ = cfg;
    window.__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (e) => {
      window.__cspViolations.push(`${e.violatedDirective}: ${e.blockedURI}`);
    });
  }, config);
  await page.addInitScript({ path: MOCK_SCRIPT });
  // The window runs with tauri.conf.json's freezePrototype: true.
  await page.addInitScript(() => Object.freeze(Object.prototype));
  await page.goto(BASE_URL);
  return {
    page,
    context,
    problems,
    /** CSP violations seen by the page plus collected errors. */
    async violations() {
      const csp = await page.evaluate(() => window.__cspViolations);
      return [...csp.map((v) => `csp: ${v}`), ...problems];
    },
    calls: (cmd) => page.evaluate((c) => window.__tackMock.calls.filter((x) => !c || x.cmd === c), cmd),
    async shot(name) {
      await page.evaluate(async () => {
        await document.fonts.ready;
        // Finite animations (dialog fade-in, toasts) settle first; spinners run forever.
        const finite = document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity);
        await Promise.all(finite.map((a) => a.finished.catch(() => undefined)));
      });
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
    },
  };
}
