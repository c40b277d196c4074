// Runs the Playwright flows against the built UI: starts `vite preview` (which serves the
// window's CSP header), runs the flows with node's test runner, and stops the server by PID.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";
import fs from "node:fs";

const UI_DIR = fileURLToPath(new URL("..", import.meta.url));
const PORT = process.env.TACK_UI_PORT ?? "4173";
const URL_BASE = `http://127.0.0.1:${PORT}/`;
const script = process.argv[2] ?? "flows";

const server = spawn(path.join(UI_DIR, "node_modules/.bin/vite"), ["preview", "--host", "127.0.0.1", "--port", PORT, "--strictPort"], {
  cwd: UI_DIR,
  stdio: ["ignore", "pipe", "inherit"],
});
const stop = () => {
  if (server.exitCode === null) {
    try {
      process.kill(server.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
};
process.on("exit", stop);
process.on("SIGINT", () => process.exit(130));
process.on("SIGTERM", () => process.exit(143));

async function waitForServer() {
  for (let i = 0; i < 100; i++) {
    try {
      const response = await fetch(URL_BASE);
      if (response.ok) return;
    } catch {
      // Not up yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`vite preview did not answer on ${URL_BASE}`);
}

try {
  await waitForServer();
  const env = { ...process.env, TACK_UI_URL: URL_BASE };
  const args =
    script === "perf"
      ? [path.join(UI_DIR, "e2e/perf-run.mjs")]
      : ["--test", "--test-concurrency=1", ...fs.readdirSync(path.join(UI_DIR, "e2e/flows")).filter((f) => f.endsWith(".test.mjs")).sort().map((f) => path.join(UI_DIR, "e2e/flows", f))];
  const child = spawn(process.execPath, args, { cwd: UI_DIR, env, stdio: "inherit" });
  const code = await new Promise((resolve) => child.on("exit", (c) => resolve(c ?? 1)));
  stop();
  process.exitCode = code;
} catch (error) {
  console.error(String(error));
  stop();
  process.exitCode = 1;
}
