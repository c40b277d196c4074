import { useEffect, useState } from "react";
import { describeFailure, shell, type InferredHarness } from "../ipc";

/** How long the model field must stay unchanged before "auto" is asked again, in ms. */
const SETTLE_MS = 250;

const cache = new Map<string, InferredHarness>();

export type Inference =
  | { status: "idle" | "loading" }
  | { status: "ready"; inferred: InferredHarness }
  | { status: "failed"; message: string };

/**
 * What "auto" picks for a provider and model, and why (`inferHarness`), asked again when
 * either changes. `model` null or empty means the provider's default model.
 */
export function useInferredHarness(providerId: string | null, model: string | null): Inference {
  const key = providerId ? `${providerId}\u0000${model ?? ""}` : null;
  const [result, setResult] = useState<{ key: string; inference: Inference } | null>(null);

  useEffect(() => {
    if (!providerId || key === null || cache.has(key)) return;
    let live = true;
    const timer = setTimeout(() => {
      shell
        .inferHarness(providerId, model?.trim() ? model.trim() : null)
        .then((inferred) => {
          cache.set(key, inferred);
          if (live) setResult({ key, inference: { status: "ready", inferred } });
        })
        .catch((error: unknown) => {
          if (live) setResult({ key, inference: { status: "failed", message: describeFailure(error).message } });
        });
    }, SETTLE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [providerId, model, key]);

  if (key === null) return { status: "idle" };
  const cached = cache.get(key);
  if (cached) return { status: "ready", inferred: cached };
  return result?.key === key ? result.inference : { status: "loading" };
}

/** Forgets earlier answers (a provider was edited in Settings). */
export function forgetInferences(): void {
  cache.clear();
}
