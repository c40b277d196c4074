import { useId, useState } from "react";
import { describeFailure, shell, type KeyState, type ProviderView } from "../ipc";
import { Badge } from "../primitives/Badge";
import { Button } from "../primitives/Button";
import { KeyIcon } from "../primitives/icons";

export interface KeyFieldProps {
  provider: ProviderView;
  keychainAvailable: boolean;
  keychainMessage: string | null;
  onChange: (key: KeyState) => void;
}

/**
 * What the UI may say about a key: whether it is set, its last four characters, its source;
 * for a provider that takes no key (a local server), that none is needed.
 */
export function describeKey(key: KeyState, envKey: string | null): string {
  if (!key.set) return key.needed ? "not set" : "no key needed";
  const tail = key.last4 ? ` ••••${key.last4}` : "";
  const source = key.source === "env" ? ` (from $${envKey ?? "environment"})` : key.source === "keychain" ? " (in keychain)" : "";
  return `key set${tail}${source}`;
}

/**
 * The provider key: shows only "key set ••••1234" or "not set". The input is write-only: it
 * is a password field, its value goes straight to the keychain and is cleared after saving.
 * Without a keychain it explains the environment-variable route; it never offers to store a
 * key in plain text.
 */
export function KeyField({ provider, keychainAvailable, keychainMessage, onChange }: KeyFieldProps) {
  const [draft, setDraft] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();
  const statusId = useId();

  const save = async () => {
    if (!draft.trim()) return;
    setBusy(true);
    setError(null);
    try {
      const key = await shell.setProviderKey(provider.id, draft.trim());
      onChange(key);
    } catch (failure) {
      setError(describeFailure(failure).message);
    } finally {
      // The key leaves the page's state whether or not the save worked.
      setDraft("");
      setBusy(false);
    }
  };

  const clear = async () => {
    setBusy(true);
    setError(null);
    try {
      onChange(await shell.clearProviderKey(provider.id));
    } catch (failure) {
      setError(describeFailure(failure).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="key-field">
      <div className="key-status" id={statusId}>
        <KeyIcon />
        <span className="key-status-label">API key</span>
        <Badge tone={provider.key.set ? "success" : "neutral"} data-testid="key-status">
          {describeKey(provider.key, provider.envKey)}
        </Badge>
      </div>
      {keychainAvailable ? (
        <form
          className="key-form"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          <label htmlFor={inputId} className="sr-only">
            {provider.key.set ? "Replace key" : "Set key"}
          </label>
          <input
            id={inputId}
            className="input mono"
            type="password"
            autoComplete="off"
            spellCheck={false}
            placeholder={provider.key.set ? "Paste a new key to replace it" : provider.key.needed ? "Paste the key" : "Optional: this provider needs no key"}
            value={draft}
            aria-describedby={statusId}
            onChange={(event) => setDraft(event.target.value)}
          />
          <Button type="submit" variant="primary" disabled={busy || !draft.trim()}>
            {provider.key.set ? "Replace" : "Save key"}
          </Button>
          {provider.key.set && provider.key.source === "keychain" && (
            <Button variant="ghost" disabled={busy} onClick={() => void clear()}>
              Clear
            </Button>
          )}
        </form>
      ) : !provider.key.needed ? (
        <p className="key-note">
          This provider needs no key. If its server does want one, enter a variable name under{" "}
          <strong>Key environment variable</strong> below, set that variable in the environment Tack starts from, then restart
          Tack.
        </p>
      ) : (
        <div className="key-fallback" role="note">
          <p>
            <strong>The system keychain is not available here</strong>
            {keychainMessage ? <> ({keychainMessage})</> : null}. Tack never stores keys in plain text, so it reads this
            provider&apos;s key from an environment variable instead.
          </p>
          <p>
            Set <code>{provider.envKey}</code> in the environment Tack starts from (e.g. <code>export {provider.envKey}=…</code> in
            your shell profile), then restart Tack.
          </p>
        </div>
      )}
      {error && (
        <p className="key-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
