/**
 * The languages the app can highlight, each a lazily loaded grammar chunk, and how file
 * names and code-fence info strings map onto them. Anything else renders as plain text.
 */
import type { LanguageRegistration } from "shiki/core";

type GrammarModule = { default: LanguageRegistration[] };

/** Grammar id → loader. Vite turns each import into its own chunk, fetched on first use. */
export const GRAMMARS: Record<string, () => Promise<GrammarModule>> = {
  typescript: () => import("@shikijs/langs/typescript"),
  tsx: () => import("@shikijs/langs/tsx"),
  javascript: () => import("@shikijs/langs/javascript"),
  jsx: () => import("@shikijs/langs/jsx"),
  json: () => import("@shikijs/langs/json"),
  jsonc: () => import("@shikijs/langs/jsonc"),
  rust: () => import("@shikijs/langs/rust"),
  python: () => import("@shikijs/langs/python"),
  go: () => import("@shikijs/langs/go"),
  java: () => import("@shikijs/langs/java"),
  c: () => import("@shikijs/langs/c"),
  cpp: () => import("@shikijs/langs/cpp"),
  shellscript: () => import("@shikijs/langs/shellscript"),
  toml: () => import("@shikijs/langs/toml"),
  yaml: () => import("@shikijs/langs/yaml"),
  markdown: () => import("@shikijs/langs/markdown"),
  css: () => import("@shikijs/langs/css"),
  html: () => import("@shikijs/langs/html"),
  sql: () => import("@shikijs/langs/sql"),
  diff: () => import("@shikijs/langs/diff"),
  dockerfile: () => import("@shikijs/langs/dockerfile"),
  xml: () => import("@shikijs/langs/xml"),
  ruby: () => import("@shikijs/langs/ruby"),
};

const ALIASES: Record<string, string> = {
  ts: "typescript", mts: "typescript", cts: "typescript",
  js: "javascript", mjs: "javascript", cjs: "javascript",
  rs: "rust", py: "python", golang: "go",
  h: "c", hpp: "cpp", cc: "cpp", cxx: "cpp", "c++": "cpp",
  sh: "shellscript", bash: "shellscript", zsh: "shellscript", shell: "shellscript", console: "shellscript",
  yml: "yaml", md: "markdown", htm: "html", svg: "xml",
  patch: "diff", rb: "ruby", docker: "dockerfile", json5: "jsonc",
};

const FILE_NAMES: Record<string, string> = {
  dockerfile: "dockerfile",
  "cargo.lock": "toml",
  makefile: "shellscript",
  ".bashrc": "shellscript",
  ".zshrc": "shellscript",
};

/** The grammar for a fence info string or language name (`ts`, `rust`, `bash`…), if any. */
export function grammarForName(name: string | null | undefined): string | null {
  if (!name) return null;
  const id = name.trim().toLowerCase().split(/\s+/)[0] ?? "";
  if (id in GRAMMARS) return id;
  return ALIASES[id] ?? null;
}

/** The grammar for a file path, from its name or extension, if any. */
export function grammarForPath(path: string): string | null {
  const base = (path.split(/[\\/]/).pop() ?? path).toLowerCase();
  if (base in FILE_NAMES) return FILE_NAMES[base] ?? null;
  const dot = base.lastIndexOf(".");
  return dot >= 0 ? grammarForName(base.slice(dot + 1)) : null;
}
