import type { HarnessInfo, ProviderView } from "../ipc";
import { Field } from "../primitives/Field";
import { InlineCode } from "../text/InlineCode";
import { harnessFit, listWires } from "./harnesses";
import type { Inference } from "./useInferredHarness";
import "./harness.css";

export interface HarnessFieldProps {
  provider: ProviderView | null;
  harnesses: readonly HarnessInfo[];
  /** The chosen harness id; "" is auto. */
  value: string;
  onChange: (harness: string) => void;
  /** What auto picks for the provider and model. */
  inference: Inference;
}

/**
 * The harness picker: "auto" shows what it picks and why; every harness shows its wires, and
 * the ones that can't shape requests for the provider's wire are disabled with the reason.
 */
export function HarnessField({ provider, harnesses, value, onChange, inference }: HarnessFieldProps) {
  const chosen = harnesses.find((h) => h.id === value) ?? null;
  return (
    <Field label="Harness" help={<HarnessHelp chosen={chosen} inference={inference} />}>
      {({ id, describedBy }) => (
        <select id={id} aria-describedby={describedBy} className="select" value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">{inference.status === "ready" ? `auto → ${inference.inferred.harness}` : "auto"}</option>
          {harnesses.map((h) => {
            const fit = provider ? harnessFit(h, provider.wire) : ({ ok: true } as const);
            return (
              <option key={h.id} value={h.id} disabled={!fit.ok} title={h.description}>
                {fit.ok ? `${h.id} · ${h.wires.join(", ")}` : `${h.id} — ${fit.reason}`}
              </option>
            );
          })}
        </select>
      )}
    </Field>
  );
}

function HarnessHelp({ chosen, inference }: { chosen: HarnessInfo | null; inference: Inference }) {
  if (chosen) {
    return (
      <span className="harness-help">
        {chosen.description} <span className="harness-wires">({listWires(chosen.wires)})</span>
      </span>
    );
  }
  switch (inference.status) {
    case "ready":
      return (
        <span className="harness-help" data-testid="auto-harness">
          auto → <strong className="harness-id">{inference.inferred.harness}</strong>{" "}
          <span className="harness-reason">
            (<InlineCode text={inference.inferred.reason} />)
          </span>
        </span>
      );
    case "failed":
      return <span className="harness-help">auto: the shell could not say which harness ({inference.message})</span>;
    default:
      return <span className="harness-help">auto: picked from the provider and model</span>;
  }
}
