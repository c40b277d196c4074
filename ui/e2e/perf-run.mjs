// Perf harness (dev only; `npm run perf`): in headless Chromium with the mocked shell,
// opens a 5,000-item session (ms until its last message is on screen), then streams
// 200 tokens/s for 10 s into it and reports the longest main-thread task (longtask
// observer) and dropped frames (requestAnimationFrame gaps over 1.5 frames). It prints
// figures and asserts nothing about time.
import { launch, openApp } from "./harness.mjs";

const ITEMS = Number(process.env.PERF_ITEMS ?? 5000);
const RATE = Number(process.env.PERF_TOKENS_PER_S ?? 200);
const SECONDS = Number(process.env.PERF_SECONDS ?? 10);

const browser = await launch();
try {
  const app = await openApp(browser, { config: { largeSession: ITEMS }, viewport: { width: 1360, height: 860 } });
  const { page } = app;
  const entry = page.getByRole("button", { name: new RegExp(`Large session \\(${ITEMS} items\\)`) });
  await entry.waitFor();

  // Open: from the click to the last row being on screen.
  await page.evaluate(() => {
    window.__perfStart = performance.now();
  });
  await entry.click();
  const openMs = await page.waitForFunction(
    () => {
      const rows = document.querySelectorAll(".msg-assistant");
      const last = rows[rows.length - 1];
      if (!last || !last.textContent?.includes("Attempt 999")) return false;
      return performance.now() - window.__perfStart;
    },
    null,
    { polling: "raf", timeout: 60_000 },
  );
  const openedIn = await openMs.jsonValue();
  const mounted = await page.evaluate(() => document.querySelectorAll(".row-frame").length);

  // Stream.
  await page.evaluate(() => {
    window.__perf = { longtasks: [], frames: [] };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__perf.longtasks.push(e.duration);
    }).observe({ type: "longtask", buffered: false });
    let last = performance.now();
    const loop = (now) => {
      window.__perf.frames.push(now - last);
      last = now;
      if (!window.__perf.stop) requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  });
  const sessionId = "ses-large";
  const started = Date.now();
  await page.evaluate(([id, rate, seconds]) => window.__tackMock.streamTokens(id, rate, seconds), [sessionId, RATE, SECONDS]);
  const streamedMs = Date.now() - started;
  await page.waitForTimeout(300);
  const perf = await page.evaluate(() => {
    window.__perf.stop = true;
    return window.__perf;
  });
  const frames = perf.frames.slice(1);
  const sorted = [...frames].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 16.7;
  const frameBudget = Math.min(median, 1000 / 30);
  const dropped = frames.filter((f) => f > frameBudget * 1.5).length;
  const p95 = sorted[Math.floor(sorted.length * 0.95)] ?? 0;
  const longest = perf.longtasks.length ? Math.max(...perf.longtasks) : 0;
  const shownTail = await page.evaluate(() => {
    const rows = document.querySelectorAll(".msg-assistant");
    return rows[rows.length - 1]?.textContent?.slice(-60) ?? "";
  });

  console.log("perf: session open");
  console.log(`  items in session           ${ITEMS}`);
  console.log(`  open → last message shown  ${openedIn.toFixed(0)} ms`);
  console.log(`  rows mounted (virtualized) ${mounted}`);
  console.log(`perf: streaming ${RATE} tokens/s for ${SECONDS} s`);
  console.log(`  wall time                  ${streamedMs} ms`);
  console.log(`  frames observed            ${frames.length} (median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms)`);
  console.log(`  dropped frames (>1.5×)     ${dropped} (${((dropped / Math.max(1, frames.length)) * 100).toFixed(1)}%)`);
  console.log(`  long tasks (>50 ms)        ${perf.longtasks.length}, longest ${longest.toFixed(0)} ms`);
  console.log(`  tail on screen             …${JSON.stringify(shownTail)}`);
  const problems = await app.violations();
  if (problems.length) console.log(`  page problems: ${problems.join("; ")}`);
} finally {
  await browser.close();
}
