import { useEffect, useState, type FormEvent } from "react";
import { describeFailure, shell, type HarnessInfo, type ProviderInput, type ProviderView, type Wire } from "../ipc";
import { Button } from "../primitives/Button";
import { ConfirmDialog } from "../primitives/ConfirmDialog";
import { Field } from "../primitives/Field";
import { harnessFit } from "../harness/harnesses";
import { useCatalogStore } from "./catalogStore";

const WIRES: ReadonlyArray<{ id: Wire; label: string }> = [
  { id: "chat", label: "chat — OpenAI Chat Completions" },
  { id: "responses", label: "responses — OpenAI Responses" },
  { id: "messages", label: "messages — Anthropic Messages" },
];

export interface ProviderFormProps {
  provider: ProviderView | null;
  harnesses: HarnessInfo[];
  onSaved: (provider: ProviderView) => void;
  onDeleted: (id: string) => void;
}

function toInput(provider: ProviderView | null): ProviderInput {
  return provider
    ? {
        id: provider.id,
        name: provider.name,
        baseUrl: provider.baseUrl,
        wire: provider.wire,
        model: provider.model,
        harness: provider.harness,
        envKey: provider.envKey,
      }
    : { id: "", name: "", baseUrl: "", wire: "chat", model: "", harness: null, envKey: null };
}

/** A failed save or delete, as the form shows it. */
interface FormError {
  message: string;
  hint: string | null;
  /** The field it is about ("id" is shown beside the Id field), or null. */
  field: string | null;
  /** Refused because config.toml did not load: it goes once the file loads again. */
  configProblem: boolean;
}

/** What the form says about an id that is taken (the shell says the same when it refuses). */
export function idTakenMessage(id: string): string {
  return `a provider with id \`${id}\` already exists — edit it, or choose another id`;
}

/** Add or edit a provider: endpoint, wire, default model, harness (or auto), env var name. */
export function ProviderForm({ provider, harnesses, onSaved, onDeleted }: ProviderFormProps) {
  const [input, setInput] = useState<ProviderInput>(() => toInput(provider));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<FormError | null>(null);
  const isNew = provider === null;
  const keychainAvailable = useCatalogStore((s) => s.appInfo?.keychain.available ?? true);
  const configProblem = useCatalogStore((s) => s.appInfo?.configProblem ?? null);
  const knownIds = useCatalogStore((s) => s.providers.map((p) => p.id).join("\n"));
  const set = <K extends keyof ProviderInput>(key: K, value: ProviderInput[K]) => {
    setInput((prev) => ({ ...prev, [key]: value }));
    // An error about this field is answered by changing it.
    setError((prev) => (prev?.field === key ? null : prev));
  };

  // A save refused because config.toml did not load is moot once it loads again ("Check again").
  useEffect(() => {
    if (configProblem === null) setError((prev) => (prev?.configProblem ? null : prev));
  }, [configProblem]);

  /** A failure, shown in the form; the window then reads the backend's state again. */
  const fail = async (failure: unknown) => {
    const described = describeFailure(failure);
    const catalog = useCatalogStore.getState();
    // A refusal may come from a file that broke, or gained a provider, since the window last looked.
    await catalog.refresh();
    setError({ ...described, configProblem: useCatalogStore.getState().appInfo?.configProblem != null });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const tidy = { ...input, envKey: input.envKey?.trim() || null };
      // Adding never replaces a provider; editing one is an update.
      onSaved(await (isNew ? shell.addProvider(tidy) : shell.saveProvider(tidy)));
    } catch (failure) {
      await fail(failure);
    } finally {
      setBusy(false);
    }
  };

  const [confirming, setConfirming] = useState(false);
  const remove = async () => {
    setConfirming(false);
    if (!provider) return;
    try {
      await shell.deleteProvider(provider.id);
      onDeleted(provider.id);
    } catch (failure) {
      await fail(failure);
    }
  };

  const idValid = /^[a-z0-9][a-z0-9_-]*$/.test(input.id);
  // Known taken ids are flagged as typed; the shell checks again against the file when saving.
  const idTaken = isNew && input.id !== "" && knownIds.split("\n").includes(input.id);
  const idError = error?.field === "id" ? error.message : idTaken ? idTakenMessage(input.id) : null;
  const formError = error && error.field !== "id" ? error : null;
  const chosenHarness = harnesses.find((h) => h.id === input.harness) ?? null;
  const misfit = chosenHarness ? harnessFit(chosenHarness, input.wire) : null;
  const harnessError = misfit && !misfit.ok ? `${chosenHarness?.id} can't run on this wire: ${misfit.reason}.` : null;
  return (
    <form className="provider-form" onSubmit={(e) => void submit(e)} aria-label={isNew ? "New provider" : `Edit ${provider.name}`}>
      <div className="form-grid">
        <Field
          label="Id"
          help={
            idError ? (
              <span className="form-field-error" role="alert">
                {idError}
              </span>
            ) : (
              "Lowercase letters, digits, - and _. Sessions refer to it."
            )
          }
        >
          {({ id, describedBy }) => (
            <input
              id={id}
              aria-describedby={describedBy}
              className="input mono"
              value={input.id}
              required
              readOnly={!isNew}
              aria-invalid={(input.id !== "" && !idValid) || idError !== null}
              onChange={(e) => set("id", e.target.value.trim())}
              placeholder="my-provider"
            />
          )}
        </Field>
        <Field label="Name">
          {({ id }) => (
            <input id={id} className="input" value={input.name} required onChange={(e) => set("name", e.target.value)} placeholder="My provider" />
          )}
        </Field>
        <Field label="Base URL" className="field-wide">
          {({ id }) => (
            <input
              id={id}
              className="input mono"
              type="url"
              value={input.baseUrl}
              required
              onChange={(e) => set("baseUrl", e.target.value)}
              placeholder="http://127.0.0.1:8080/v1"
            />
          )}
        </Field>
        <Field label="Wire">
          {({ id }) => (
            <select id={id} className="select" value={input.wire} onChange={(e) => set("wire", e.target.value as Wire)}>
              {WIRES.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Default model">
          {({ id }) => (
            <input id={id} className="input mono" value={input.model} required onChange={(e) => set("model", e.target.value)} placeholder="model-name" />
          )}
        </Field>
        <Field label="Harness" help={harnessError && <span className="form-field-error">{harnessError}</span>}>
          {({ id, describedBy }) => (
            <select
              id={id}
              aria-describedby={describedBy}
              aria-invalid={harnessError !== null}
              className="select"
              value={input.harness ?? ""}
              onChange={(e) => set("harness", e.target.value || null)}
            >
              <option value="">auto (picked from the provider and model)</option>
              {harnesses.map((h) => {
                const fit = harnessFit(h, input.wire);
                return (
                  <option key={h.id} value={h.id} disabled={!fit.ok && input.harness !== h.id} title={h.description}>
                    {fit.ok ? `${h.id} · ${h.wires.join(", ")}` : `${h.id} — ${fit.reason}`}
                  </option>
                );
              })}
            </select>
          )}
        </Field>
        <Field label="Key environment variable" help={keychainAvailable ? "Read when the keychain has no key." : "Where Tack reads this provider's key from."}>
          {({ id, describedBy }) => (
            <input
              id={id}
              aria-describedby={describedBy}
              className="input mono"
              value={input.envKey ?? ""}
              onChange={(e) => set("envKey", e.target.value)}
              placeholder="MY_PROVIDER_API_KEY"
            />
          )}
        </Field>
      </div>
      {formError && (
        <p className="form-error" role="alert">
          {formError.message}
          {formError.hint && <span className="muted"> — {formError.hint}</span>}
        </p>
      )}
      <div className="form-actions">
        {!isNew && !provider.builtin && (
          <Button variant="ghost" onClick={() => setConfirming(true)}>
            Delete provider
          </Button>
        )}
        {!isNew && provider.builtin && provider.overridden && (
          <Button variant="ghost" onClick={() => setConfirming(true)}>
            Reset to built-in
          </Button>
        )}
        <span className="approval-spacer" />
        <Button type="submit" variant="primary" disabled={busy || !idValid || idTaken || harnessError !== null}>
          {isNew ? "Add provider" : "Save changes"}
        </Button>
      </div>
      {confirming && provider?.builtin && (
        <ConfirmDialog
          title={`Reset ${provider.name} to the built-in settings?`}
          confirmLabel="Reset to built-in"
          onConfirm={() => void remove()}
          onCancel={() => setConfirming(false)}
        >
          Your changes to <code>{provider.id}</code> are removed from config.toml; its key stays as it is.
        </ConfirmDialog>
      )}
      {confirming && provider && !provider.builtin && (
        <ConfirmDialog
          title={`Delete ${provider.name}?`}
          confirmLabel="Delete provider"
          onConfirm={() => void remove()}
          onCancel={() => setConfirming(false)}
        >
          Sessions that use <code>{provider.id}</code> can no longer be resumed with it. Its key stays in the keychain until you clear it.
        </ConfirmDialog>
      )}
    </form>
  );
}
