/**
 * Facts about harnesses the window needs: which wires a harness can shape for, and which
 * harnesses read actions out of the model's text instead of native tool calls.
 */
import type { HarnessInfo, Wire } from "../ipc";

/**
 * Harnesses whose model writes its action in prose or JSON text that the harness parses
 * (crates/harness `text_protocol`): their tool calls are linked to that text.
 */
const TEXT_PROTOCOL_HARNESSES = new Set(["swe-agent", "mini-swe-agent", "terminus-2"]);

/** Whether `harness` parses its actions out of the model's text. */
export function isTextProtocol(harness: string): boolean {
  return TEXT_PROTOCOL_HARNESSES.has(harness);
}

/** Whether a harness can shape requests for a provider's wire, and if not, why (one phrase). */
export type HarnessFit = { ok: true } | { ok: false; reason: string };

/**
 * A harness runs on the wires it lists; any other wire is a routing error (the engine never
 * downgrades a harness to another dialect), so the pickers disable it and say why.
 */
export function harnessFit(harness: Pick<HarnessInfo, "wires">, wire: Wire): HarnessFit {
  if (harness.wires.includes(wire)) return { ok: true };
  const only = harness.wires.length === 1 ? `${harness.wires[0]} only` : `only ${listWires(harness.wires)}`;
  return { ok: false, reason: `${only}; this provider speaks ${wire}` };
}

/** `chat, responses and messages`. */
export function listWires(wires: readonly Wire[]): string {
  if (wires.length <= 1) return wires.join("");
  return `${wires.slice(0, -1).join(", ")} and ${wires[wires.length - 1]}`;
}
