import "@fontsource-variable/inter/wght.css";
import "@fontsource-variable/jetbrains-mono/wght.css";
import "./styles/tokens.css";
import "./styles/base.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

async function boot() {
  // `npm run dev` in a plain browser: install the scripted shell so the UI is usable. It
  // must be in place before the app's modules read anything (e.g. the remembered folder).
  // Production builds never contain it (the branch is removed at build time).
  if (import.meta.env.DEV && !("__TAURI_INTERNALS__" in window)) {
    const { installMockShell } = await import("../e2e/mock/install");
    installMockShell();
  }
  const { App } = await import("./app/App");
  const root = document.getElementById("root");
  if (!root) throw new Error("missing #root");
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}

void boot();
