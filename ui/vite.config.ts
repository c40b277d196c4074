/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

/**
 * The Content-Security-Policy the desktop window enforces (src-tauri/tauri.conf.json,
 * `app.security.csp`). `vite preview` serves the built UI with the same header so the
 * Playwright flows fail on anything the real window would block (inline scripts, eval,
 * remote fonts or fetches, form navigation).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: asset: http://asset.localhost",
  "font-src 'self' data:",
  "connect-src ipc: http://ipc.localhost",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export default defineConfig({
  plugins: [react()],
  clearScreen: false,
  build: {
    target: "es2022",
    // Shiki grammars are lazy chunks; the main bundle is what counts.
    chunkSizeWarningLimit: 900,
    sourcemap: false,
    // Fonts must be files: the CSP has no font-src data: (Vite would inline small ones).
    assetsInlineLimit: 0,
  },
  server: { host: "127.0.0.1", port: 5173, strictPort: true },
  preview: {
    host: "127.0.0.1",
    port: 4173,
    strictPort: true,
    headers: { "Content-Security-Policy": CONTENT_SECURITY_POLICY },
  },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    css: false,
  },
});
