import { useUiStore } from "../app/uiStore";
import type { ApprovalPolicy, InferredHarness, SessionSettings } from "../ipc";
import { Badge } from "../primitives/Badge";
import { IconButton } from "../primitives/Button";
import { GearIcon, InspectorIcon } from "../primitives/icons";
import { Spinner } from "../primitives/Spinner";
import { InlineCode } from "../text/InlineCode";

const POLICY_LABEL: Record<ApprovalPolicy, string> = {
  untrusted: "asks before anything but reads",
  "on-request": "asks before risky actions",
  never: "never asks",
};

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
 * approval policy is loud when it is `never`.
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
          {settings.approval === "never" ? (
            <Badge tone="danger" solid className="approval-never" title="Every tool call runs without asking" role="status">
              approval: never
            </Badge>
          ) : (
            <Badge tone="neutral" title={`Approval policy: ${POLICY_LABEL[settings.approval]}`}>
              approval: {settings.approval}
            </Badge>
          )}
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

function Setting({ term, value, mono }: { term: string; value: string; mono?: boolean }) {
  return (
    <div className="topbar-setting">
      <dt>{term}</dt>
      <dd className={mono ? "mono" : undefined} title={value}>{value}</dd>
    </div>
  );
}
