import { useEffect, useRef, useState } from "react";
import { describeFailure, shell, type Exchange, type Header, type StreamEvent } from "../ipc";
import { Badge } from "../primitives/Badge";
import { Button } from "../primitives/Button";
import { CopyIcon } from "../primitives/icons";
import { Spinner } from "../primitives/Spinner";
import { Tabs } from "../primitives/Tabs";
import { toast } from "../toast/toastStore";
import { formatMs, parsePromptSource } from "./format";
import { JsonTree } from "./JsonTree";
import { PromptSourceLabel } from "./PromptSourceLabel";
import { counted } from "../text/plural";

type Tab = "request" | "response" | "events";
const TABS = [
  { id: "request", label: "Request" },
  { id: "response", label: "Response" },
  { id: "events", label: "Events" },
] as const;

/** One exchange in full: request, raw response chunks, decoded events; copy as curl. */
export function ExchangeDetail({ sessionId, exchangeId }: { sessionId: string; exchangeId: string }) {
  const [exchange, setExchange] = useState<Exchange | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [tab, setTab] = useState<Tab>("request");
  // Fetched with the exchange: WebKit only lets the page write the clipboard during the
  // click itself, so the text must be at hand before the click, not fetched after it.
  const curl = useRef<Promise<string> | null>(null);

  useEffect(() => {
    let live = true;
    setExchange(null);
    setFailure(null);
    curl.current = shell.exchangeCurl(sessionId, exchangeId);
    curl.current.catch(() => undefined);
    shell
      .getExchange(sessionId, exchangeId)
      .then((x) => live && setExchange(x))
      .catch((error: unknown) => live && setFailure(describeFailure(error).message));
    return () => {
      live = false;
    };
  }, [sessionId, exchangeId]);

  const copyCurl = () => {
    const pending = curl.current ?? shell.exchangeCurl(sessionId, exchangeId);
    // A ClipboardItem with a promised blob is written within the gesture even when the
    // text arrives later; where that is unsupported, write the text once it is there.
    const write =
      typeof ClipboardItem !== "undefined" && "supports" in ClipboardItem
        ? navigator.clipboard.write([new ClipboardItem({ "text/plain": pending.then((text) => new Blob([text], { type: "text/plain" })) })])
        : pending.then((text) => navigator.clipboard.writeText(text));
    write
      .then(() => toast.success("Copied as curl", "The key is left as $TACK_API_KEY."))
      .catch((error: unknown) => {
        const { message, hint } = describeFailure(error);
        toast.error(`Could not copy: ${message}`, hint);
      });
  };

  const chunks = exchange?.response_chunks ?? [];
  const responseHeaders = exchange?.response_headers ?? [];
  const decoded = exchange?.events ?? [];

  if (failure) return <p className="inspector-empty">Could not load the exchange: {failure}</p>;
  if (!exchange) {
    return (
      <p className="inspector-empty">
        <Spinner label="Loading exchange" /> Loading…
      </p>
    );
  }
  return (
    <div className="exchange-detail">
      <div className="exchange-head">
        <span className="exchange-method mono">{exchange.method}</span>
        <span className="exchange-url mono" title={exchange.url}>{exchange.url}</span>
        <Button size="sm" icon={<CopyIcon />} onClick={copyCurl}>
          Copy as curl
        </Button>
      </div>
      <dl className="exchange-labels" aria-label="How this request was made">
        <div>
          <dt>purpose</dt>
          <dd>{exchange.purpose}{exchange.attempt > 1 ? ` · attempt ${exchange.attempt}` : ""}</dd>
        </div>
        <div>
          <dt>harness</dt>
          <dd>{exchange.harness}</dd>
        </div>
        <div>
          <dt>route</dt>
          <dd className="mono">{exchange.route}</dd>
        </div>
        <div>
          <dt>model</dt>
          <dd className="mono">{exchange.provider} · {exchange.model}</dd>
        </div>
        <div className="exchange-labels-wide">
          <dt>prompt</dt>
          <dd>
            {exchange.prompt_source ? (
              <PromptSourceLabel sources={parsePromptSource(exchange.prompt_source)} />
            ) : (
              <span className="muted">not shaped by a harness template</span>
            )}
          </dd>
        </div>
      </dl>
      {exchange.error && (
        <p className="exchange-error">
          <Badge tone="danger">{exchange.error.kind}</Badge> {exchange.error.message}
        </p>
      )}
      <Tabs label="Exchange" tabs={TABS} selected={tab} onSelect={setTab}>
        {tab === "request" && (
          <div className="exchange-section">
            <Headers title="Request headers" headers={exchange.request_headers} />
            <h3 className="inspector-h3">Body</h3>
            <JsonTree text={exchange.request_body} label="request body" />
          </div>
        )}
        {tab === "response" && (
          <div className="exchange-section">
            <p className="exchange-facts">
              status <strong>{exchange.status ?? "—"}</strong> · first byte {formatMs(exchange.ttfb_ms)} · total{" "}
              {formatMs(exchange.total_ms)} · {counted(chunks.length, "chunk")}
            </p>
            <Headers title="Response headers" headers={responseHeaders} />
            <h3 className="inspector-h3">Raw body, as received</h3>
            <ol className="sse-chunks" aria-label="Response chunks">
              {chunks.map((chunk, i) => (
                <li key={i} className="sse-chunk">
                  <span className="sse-time mono">+{chunk.t_ms} ms</span>
                  <pre className="sse-data mono">{chunk.data}</pre>
                </li>
              ))}
            </ol>
          </div>
        )}
        {tab === "events" && (
          <div className="exchange-section">
            <ol className="decoded-events" aria-label="Decoded events">
              {decoded.map((event, i) => (
                <li key={i} className="decoded-event">
                  <span className="decoded-type mono">{event.type}</span>
                  <span className="decoded-body mono">{eventBody(event)}</span>
                </li>
              ))}
            </ol>
          </div>
        )}
      </Tabs>
    </div>
  );
}

function Headers({ title, headers }: { title: string; headers: Header[] }) {
  if (headers.length === 0) return null;
  return (
    <>
      <h3 className="inspector-h3">{title}</h3>
      <table className="header-table">
        <tbody>
          {headers.map((h, i) => (
            <tr key={i}>
              <th scope="row" className="mono">{h.name}</th>
              <td className={`mono${h.value === "[REDACTED]" ? " redacted" : ""}`}>{h.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function eventBody(event: StreamEvent): string {
  const { type: _type, ...rest } = event;
  const text = JSON.stringify(rest);
  return text === "{}" ? "" : text;
}
