import { memo } from "react";
import { useUiStore } from "../../app/uiStore";
import type { ErrorKind, ModelError } from "../../ipc";
import { Button } from "../../primitives/Button";
import { AlertIcon } from "../../primitives/icons";
import type { ErrorRow } from "../rows";
import { useCatalogStore } from "../../settings/catalogStore";
import { keyAdvice } from "../../settings/keyAdvice";
import { useSessionStore } from "../store";
import { formatDuration } from "./toolCall";

type NextStep = { text: string; action?: "settings" | "inspector" };

const TITLES: Record<ErrorKind, string> = {
  stream_truncated: "The response was cut off",
  overloaded: "The provider is overloaded",
  rate_limit: "Rate limited",
  quota_exhausted: "No credit left",
  context_length_exceeded: "The conversation no longer fits the model's context",
  format_error: "The provider sent something unreadable",
  auth: "The provider refused the key",
  bad_request: "The provider rejected the request",
  server_error: "The provider failed",
  unreachable: "Could not reach the provider",
  timeout: "The provider stopped responding",
  deadline_exceeded: "The request took too long",
  no_progress: "The provider kept the connection open without answering",
  provider_error: "The provider reported an error",
  cancelled: "Cancelled",
  config: "Configuration problem",
  step_limit: "The turn reached its step limit",
  repeated_tool_call: "The model kept repeating the same call",
};

/** What the notice needs to know about where it is: the session's provider key setup. */
export interface NoticeContext {
  /** The provider's key environment variable, if it names one. */
  envKey: string | null;
  keychainAvailable: boolean;
}

/** What the user can do next, per kind (the engine's own hint, if any, is shown too). */
export function nextStep(error: ModelError, context: NoticeContext): NextStep {
  switch (error.kind) {
    case "auth": {
      const advice = keyAdvice(context.envKey, context.keychainAvailable);
      return advice.inSettings ? { text: advice.text, action: "settings" } : { text: advice.text };
    }
    case "unreachable":
      return { text: "Check the base URL in Settings — is the server running?", action: "settings" };
    case "rate_limit":
      return {
        text: error.retry_after_ms
          ? `The provider asks to wait ${formatDuration(error.retry_after_ms)} before retrying; send again after that.`
          : "Wait a moment, then send again.",
      };
    case "overloaded":
    case "server_error":
    case "timeout":
    case "deadline_exceeded":
    case "no_progress":
    case "stream_truncated":
      return { text: "This is usually temporary: send the message again." };
    case "quota_exhausted":
      return { text: "Add credit to the provider account, or switch provider in Settings.", action: "settings" };
    case "context_length_exceeded":
      return { text: "Start a new session, or ask for a shorter answer." };
    case "bad_request":
      return { text: "Check the model name and the provider settings; the inspector shows the exact request.", action: "inspector" };
    case "config":
      return { text: "Fix the provider configuration in Settings.", action: "settings" };
    case "format_error":
    case "provider_error":
      return { text: "The inspector shows the raw response.", action: "inspector" };
    case "cancelled":
      return { text: "Nothing to do." };
    case "step_limit":
      return { text: "Send a message to let it continue, or tell it what to do differently." };
    case "repeated_tool_call":
      return { text: "Rephrase the request, or approve the call if it was denied." };
  }
}

export const ErrorNotice = memo(function ErrorNotice({ row }: { row: ErrorRow }) {
  const { error } = row;
  const providerId = useSessionStore((s) => s.session?.settings.provider ?? null);
  const envKey = useCatalogStore((s) => s.providers.find((p) => p.id === providerId)?.envKey ?? null);
  const keychainAvailable = useCatalogStore((s) => s.appInfo?.keychain.available ?? true);
  const step = nextStep(error, { envKey, keychainAvailable });
  const show = useUiStore((s) => s.show);
  const setInspector = useUiStore((s) => s.setInspector);
  return (
    <section className="msg-error" role="alert" aria-label={`Error: ${TITLES[error.kind]}`}>
      <AlertIcon className="msg-error-icon" />
      <div className="msg-error-body">
        <div className="msg-error-title">
          {TITLES[error.kind]}
          {error.status ? <span className="msg-error-status mono">HTTP {error.status}</span> : null}
          <span className="msg-error-kind mono">{error.kind}</span>
        </div>
        <p className="msg-error-message">{error.message}</p>
        {error.hint && <p className="msg-error-hint">{error.hint}</p>}
        <p className="msg-error-next">
          {step.text}
          {step.action === "settings" && (
            <Button size="sm" variant="secondary" onClick={() => show("settings")}>
              Open Settings
            </Button>
          )}
          {step.action === "inspector" && (
            <Button size="sm" variant="secondary" onClick={() => setInspector(true)}>
              Open inspector
            </Button>
          )}
        </p>
      </div>
    </section>
  );
});
