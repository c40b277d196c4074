import { useState } from "react";
import { useUiStore } from "../app/uiStore";
import { Badge } from "../primitives/Badge";
import { Button, IconButton } from "../primitives/Button";
import { BackIcon, PlusIcon } from "../primitives/icons";
import { forgetInferences } from "../harness/useInferredHarness";
import { toast } from "../toast/toastStore";
import { useCatalogStore } from "./catalogStore";
import { describeKey, KeyField } from "./KeyField";
import { ConfigProblemBanner } from "./ConfigProblemBanner";
import { ProviderForm } from "./ProviderForm";
import { RulesSection } from "./RulesSection";
import { useWorkspaceStore } from "../workspace/workspaceStore";
import "./settings.css";

/** What the "default" badge means. */
const DEFAULT_TITLE = "New sessions start with this provider (default_provider in config.toml; without one, the local model)";

/** What the editor pane shows: a provider, the new-provider form, or the saved rules. */
type Selection = string | "new" | typeof RULES | null;

/** The nav entry of the rules editor (not a provider id: those have no spaces). */
const RULES = "approval rules";

/** Providers (list, add/edit, keys) and the saved approval rules. */
export function SettingsView() {
  const providers = useCatalogStore((s) => s.providers);
  const harnesses = useCatalogStore((s) => s.harnesses);
  const appInfo = useCatalogStore((s) => s.appInfo);
  const putProvider = useCatalogStore((s) => s.putProvider);
  // After a save or delete: the backend re-read config.toml, so read back what it has now
  // (providers added to the file by hand included), the same way "Check again" does.
  const refresh = useCatalogStore((s) => s.refresh);
  const closeSettings = useUiStore((s) => s.closeSettings);
  const workspace = useWorkspaceStore((s) => s.cwd);
  const [selected, setSelected] = useState<Selection>(providers[0]?.id ?? null);
  const provider = providers.find((p) => p.id === selected) ?? null;
  const keychain = appInfo?.keychain ?? { available: true, message: null };

  return (
    <div className="settings">
      <header className="topbar">
        <IconButton label="Back" onClick={closeSettings}>
          <BackIcon />
        </IconButton>
        <div className="topbar-title">
          <h1>Settings · {selected === RULES ? "Approval rules" : "Providers"}</h1>
        </div>
        {appInfo && <span className="settings-version muted">Tack {appInfo.version}</span>}
      </header>
      <ConfigProblemBanner />
      {/* About keys: beside a provider that takes none, it would only alarm. */}
      {!keychain.available && (selected === "new" || provider?.key.needed) && (
        <div className="settings-banner" role="note">
          <strong>The OS keychain is not available{keychain.message ? ` (${keychain.message})` : ""}.</strong> Set the
          provider&apos;s environment variable instead; Tack never stores keys in plain text.
        </div>
      )}
      <div className="settings-body">
        <nav className="provider-list" aria-label="Providers">
          <ul>
            {providers.map((p) => (
              <li key={p.id}>
                <button
                  type="button"
                  className="provider-item"
                  aria-current={p.id === selected ? "true" : undefined}
                  onClick={() => setSelected(p.id)}
                >
                  <span className="provider-item-name">
                    {p.name}
                    {p.isDefault && (
                      <Badge tone="accent" className="provider-item-default" title={DEFAULT_TITLE}>
                        default
                      </Badge>
                    )}
                  </span>
                  <span className="provider-item-meta mono">
                    {p.wire} · {p.model}
                  </span>
                  <span className={`provider-item-key${p.key.set ? " is-set" : ""}`}>{describeKey(p.key, p.envKey)}</span>
                </button>
              </li>
            ))}
          </ul>
          <Button variant="secondary" size="sm" icon={<PlusIcon />} onClick={() => setSelected("new")}>
            Add provider
          </Button>
          <button
            type="button"
            className="provider-item settings-rules-item"
            aria-current={selected === RULES ? "true" : undefined}
            onClick={() => setSelected(RULES)}
          >
            <span className="provider-item-name">Approval rules</span>
            <span className="provider-item-meta">Always allow / always deny</span>
          </button>
        </nav>
        <section className="provider-editor" aria-label={selected === RULES ? "Approval rules" : "Provider"}>
          {selected === RULES ? (
            <RulesSection workspace={workspace} />
          ) : selected === "new" ? (
            <>
              <h2>New provider</h2>
              <ProviderForm
                key="new"
                provider={null}
                harnesses={harnesses}
                onSaved={(saved) => {
                  forgetInferences();
                  putProvider(saved);
                  setSelected(saved.id);
                  void refresh();
                  toast.success(`Added ${saved.name}`);
                }}
                onDeleted={() => undefined}
              />
            </>
          ) : provider ? (
            <>
              <h2>
                {provider.name}
                {(provider.builtin || provider.isDefault) && (
                  <span className="provider-badges">
                    {provider.isDefault && (
                      <Badge tone="accent" title={DEFAULT_TITLE}>
                        default
                      </Badge>
                    )}
                    {provider.builtin && <Badge>built-in</Badge>}
                    {provider.overridden && (
                      <Badge tone="accent" title="Your settings in config.toml replace the built-in ones">
                        edited
                      </Badge>
                    )}
                  </span>
                )}
              </h2>
              <KeyField
                provider={provider}
                keychainAvailable={keychain.available}
                keychainMessage={keychain.message}
                onChange={(key) => putProvider({ ...provider, key })}
              />
              <ProviderForm
                key={`${provider.id}:${provider.overridden ? "edited" : "as-built"}`}
                provider={provider}
                harnesses={harnesses}
                onSaved={(saved) => {
                  forgetInferences();
                  putProvider(saved);
                  void refresh();
                  toast.success(`Saved ${saved.name}`);
                }}
                onDeleted={(id) => {
                  if (provider.builtin) {
                    // An override went: the built-in is back, with its own settings.
                    void refresh();
                    toast.success(`Reset ${provider.name} to the built-in settings`);
                    return;
                  }
                  setSelected(null);
                  void refresh();
                  toast.success(`Deleted ${id}`);
                }}
              />
            </>
          ) : (
            <p className="muted">Pick a provider, or add one.</p>
          )}
        </section>
      </div>
    </div>
  );
}
