import { useEffect, useId, useState } from "react";
import { useUiStore } from "../app/uiStore";
import type { ApprovalPolicy, SandboxMode } from "../ipc";
import { Button } from "../primitives/Button";
import { Field } from "../primitives/Field";
import { FolderIcon } from "../primitives/icons";
import { HarnessField } from "../harness/HarnessField";
import { harnessFit } from "../harness/harnesses";
import { useInferredHarness } from "../harness/useInferredHarness";
import { SandboxPicker, useSandboxInfo } from "./SandboxPicker";
import { startSession } from "../session/actions";
import { ConfigProblemBanner } from "../settings/ConfigProblemBanner";
import { describeKey } from "../settings/KeyField";
import { keyAdvice } from "../settings/keyAdvice";
import { useCatalogStore } from "../settings/catalogStore";
import { useWorkspaceStore } from "../workspace/workspaceStore";
import "./start.css";

const POLICIES: ReadonlyArray<{ id: ApprovalPolicy; title: string; text: string }> = [
  { id: "untrusted", title: "Untrusted", text: "Known read-only commands run; everything else asks first." },
  { id: "on-request", title: "On request", text: "Commands run unless they look risky or leave the workspace." },
  { id: "never", title: "Never ask", text: "Every tool call runs without asking. Use only in a sandbox." },
];

/** First screen of a session: folder, provider, model, harness, approval policy and sandbox. */
export function StartPanel() {
  const cwd = useWorkspaceStore((s) => s.cwd);
  const providers = useCatalogStore((s) => s.providers);
  const harnesses = useCatalogStore((s) => s.harnesses);
  const show = useUiStore((s) => s.show);
  const keychainAvailable = useCatalogStore((s) => s.appInfo?.keychain.available ?? true);
  const [providerId, setProviderId] = useState<string>("");
  const [model, setModel] = useState("");
  const [harness, setHarness] = useState<string>("");
  const [approval, setApproval] = useState<ApprovalPolicy>("untrusted");
  const sandboxInfo = useSandboxInfo();
  // Null until chosen here: the config's defaults (from the probe query) stand until then.
  const [sandboxChoice, setSandboxChoice] = useState<SandboxMode | null>(null);
  const [networkChoice, setNetworkChoice] = useState<boolean | null>(null);
  const defaults = sandboxInfo.status === "ready" ? sandboxInfo.info : null;
  const sandbox: SandboxMode = sandboxChoice ?? defaults?.defaultMode ?? "workspace-write";
  const network = networkChoice ?? defaults?.defaultNetwork ?? false;
  const [busy, setBusy] = useState(false);
  const titleId = useId();

  const provider = providers.find((p) => p.id === providerId) ?? null;
  const inference = useInferredHarness(provider?.id ?? null, model.trim() || null);
  const chosenHarness = harnesses.find((h) => h.id === harness) ?? null;
  const harnessFits = !chosenHarness || !provider || harnessFit(chosenHarness, provider.wire).ok;

  const choose = (id: string) => {
    setProviderId(id);
    // A new provider brings its own default model and harness.
    setModel(providers.find((p) => p.id === id)?.model ?? "");
    setHarness("");
  };

  // Providers arrive after the first render: once they do, preselect the default one (the
  // config's default_provider, else the local model), or the first when none is marked.
  useEffect(() => {
    const preferred = providers.find((p) => p.isDefault) ?? providers[0];
    if (!providerId && preferred) {
      setProviderId(preferred.id);
      setModel(preferred.model);
    }
  }, [providers, providerId]);

  const pick = () => useWorkspaceStore.getState().pickFolder();

  const start = async () => {
    if (!cwd || !provider) return;
    setBusy(true);
    await startSession(
      {
        cwd,
        providerId: provider.id,
        model: model.trim() && model.trim() !== provider.model ? model.trim() : null,
        harness: harness || null,
        approval,
        sandbox,
        network,
      },
      !harness && inference.status === "ready" ? inference.inferred : null,
    );
    setBusy(false);
  };

  return (
    <div className="start-wrap">
      <form
        className="start-panel"
        aria-labelledby={titleId}
        onSubmit={(event) => {
          event.preventDefault();
          void start();
        }}
      >
        <h1 id={titleId}>Start a session</h1>
        <p className="start-lede">Pick the folder the agent works in and the model it talks to.</p>
        <ConfigProblemBanner />

        <div className="field">
          <span className="field-label">Workspace</span>
          <button type="button" className="start-folder" onClick={() => void pick()}>
            <FolderIcon />
            <span className={cwd ? "mono" : "muted"}>{cwd ?? "Choose a folder…"}</span>
          </button>
        </div>

        <div className="start-row">
          <Field
            label="Provider"
            help={
              provider &&
              (provider.key.set || !provider.key.needed ? (
                describeKey(provider.key, provider.envKey)
              ) : (
                <span className="start-warning">
                  No key set. {keyAdvice(provider.envKey, keychainAvailable).text}{" "}
                  {keyAdvice(provider.envKey, keychainAvailable).inSettings && (
                    <button type="button" className="link-button" onClick={() => show("settings")}>
                      Open Settings
                    </button>
                  )}
                </span>
              ))
            }
          >
            {({ id, describedBy }) => (
              <select id={id} aria-describedby={describedBy} className="select" value={providerId} onChange={(e) => choose(e.target.value)}>
                {providers.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name} — {p.wire}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Model">
            {({ id }) => <input id={id} className="input mono" value={model} onChange={(e) => setModel(e.target.value)} placeholder={provider?.model} />}
          </Field>
          <HarnessField provider={provider} harnesses={harnesses} value={harness} onChange={setHarness} inference={inference} />
        </div>

        <fieldset className="start-policies">
          <legend className="field-label">Approval policy</legend>
          {POLICIES.map((policy) => (
            <label key={policy.id} className={`policy${approval === policy.id ? " policy-selected" : ""}${policy.id === "never" ? " policy-never" : ""}`}>
              <input type="radio" name="approval" value={policy.id} checked={approval === policy.id} onChange={() => setApproval(policy.id)} />
              <span className="policy-title">{policy.title}</span>
              <span className="policy-text">{policy.text}</span>
            </label>
          ))}
        </fieldset>

        <SandboxPicker
          mode={sandbox}
          network={network}
          probe={sandboxInfo}
          approval={approval}
          onMode={setSandboxChoice}
          onNetwork={setNetworkChoice}
        />

        <div className="start-actions">
          <Button type="submit" variant="primary" disabled={busy || !cwd || !provider || !harnessFits}>
            Start session
          </Button>
        </div>
      </form>
    </div>
  );
}
