import { useUiStore } from "../app/uiStore";
import type { InferredHarness, SessionSettings } from "../ipc";
import { Badge } from "../primitives/Badge";
import { IconButton } from "../primitives/Button";
import { GearIcon, InspectorIcon } from "../primitives/icons";
import { Spinner } from "../primitives/Spinner";
import { guardBadge } from "../sandbox/sandbox";
import { InlineCode } from "../text/InlineCode";

export interface TopBarProps {
  title: string;
  settings: SessionSettings | null;
  /** The base URL of an ad-hoc provider (id `custom`): the header names it by its host. */
  providerUrl?: string | null;
  running: boolean;
  /** What "auto" picked and why, when the session was started on auto. */
  autoHarness?: InferredHarness | null;
}

/** The id the engine gives a provider that was given as a base URL (crates/engine resolve.rs). */
const AD_HOC_PROVIDER_ID = "custom";

/**
 * How the header names a provider: its id, or for an ad-hoc one (given as a base URL, id
 * `custom`) the host of that URL ("127.0.0.1:8082"), which says more than the placeholder id.
 */
export function providerLabel(provider: string, providerUrl: string | null): string {
  if (provider !== AD_HOC_PROVIDER_ID || !providerUrl) return provider;
  try {
    return new URL(providerUrl).host || provider;
  } catch {
    return provider;
  }
}

/**
 * Session title and settings in force; a harness picked by "auto" says so and why; the
 * approval policy and the sandbox share one badge ("untrusted · workspace-write sandbox ·
 * network off"), loud when commands run uncontained or without asking.
 */
export function TopBar({ title, settings, providerUrl = null, running, autoHarness = null }: TopBarProps) {
  const inspectorOpen = useUiStore((s) => s.inspectorOpen);
  const toggleInspector = useUiStore((s) => s.toggleInspector);
  const show = useUiStore((s) => s.show);
  return (
    <header className="topbar">
      <div className="topbar-title">
        <h1>{title || "New session"}</h1>
        {running && <Spinner label="Turn running" />}
      </div>
      {settings && (
        <dl className="topbar-settings" aria-label="Session settings">
          <Setting term="provider" value={providerLabel(settings.provider, providerUrl)} />
          <Setting term="model" value={settings.model} mono />
          {autoHarness ? (
            <div className="topbar-setting topbar-auto" title={`auto picked ${settings.harness}: ${autoHarness.reason}`}>
              <dt>harness</dt>
              <dd data-testid="session-harness">
                <span className="topbar-auto-tag">auto →</span> {settings.harness}
                {/* The why is in the tooltip; the start panel shows it in full. */}
                <span className="sr-only">
                  {" "}
                  (<InlineCode text={autoHarness.reason} />)
                </span>
              </dd>
            </div>
          ) : (
            <Setting term="harness" value={settings.harness} />
          )}
          <Setting term="wire" value={settings.wire} />
          <GuardBadge settings={settings} />
        </dl>
      )}
      <div className="topbar-actions">
        <IconButton label="Toggle inspector (Ctrl+I)" pressed={inspectorOpen} onClick={toggleInspector}>
          <InspectorIcon />
        </IconButton>
        <IconButton label="Settings (Ctrl+,)" onClick={() => show("settings")}>
          <GearIcon />
        </IconButton>
      </div>
    </header>
  );
}

/** The approval policy and the sandbox together; the tooltip has the probe's summary. */
function GuardBadge({ settings }: { settings: SessionSettings }) {
  const badge = guardBadge(settings.approval, settings.sandbox);
  return (
    <Badge
      tone={badge.danger ? "danger" : "neutral"}
      solid={badge.danger}
      className="session-guard"
      title={badge.title}
      role={badge.danger ? "status" : undefined}
      data-testid="session-guard"
    >
      {badge.text}
      <span className="sr-only"> ({badge.title})</span>
    </Badge>
  );
}

function Setting({ term, value, mono }: { term: string; value: string; mono?: boolean }) {
  return (
    <div className="topbar-setting">
      <dt>{term}</dt>
      <dd className={mono ? "mono" : undefined} title={value}>{value}</dd>
    </div>
  );
}
