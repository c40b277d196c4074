import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

/** Builds the mocked shell as one classic script (e2e/dist/mock-ipc.js) for addInitScript. */
export default defineConfig({
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL("../dist", import.meta.url)),
    emptyOutDir: true,
    minify: false,
    lib: {
      entry: fileURLToPath(new URL("./entry.ts", import.meta.url)),
      formats: ["iife"],
      name: "TackMockShell",
      fileName: () => "mock-ipc.js",
    },
  },
});
