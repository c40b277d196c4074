import { useEffect, useState } from "react";
import { useUiStore } from "../app/uiStore";
import { describeFailure, shell, type ExchangeSummary } from "../ipc";
import { Badge } from "../primitives/Badge";
import { IconButton } from "../primitives/Button";
import { CloseIcon } from "../primitives/icons";
import { useSessionStore } from "../session/store";
import { ExchangeDetail } from "./ExchangeDetail";
import { formatMs, formatTokens, parsePromptSource } from "./format";
import { PromptSourceLabel } from "./PromptSourceLabel";
import "./inspector.css";
import { counted } from "../text/plural";

/** The right pane: every exchange of the session, and the selected one in full. */
export function Inspector() {
  const sessionId = useSessionStore((s) => s.session?.id ?? null);
  const exchanges = useSessionStore((s) => s.exchanges);
  const setExchanges = useSessionStore((s) => s.setExchanges);
  const close = () => useUiStore.getState().setInspector(false);
  const [selected, setSelected] = useState<string | null>(null);

  useEffect(() => {
    setSelected(null);
    if (!sessionId) return;
    let live = true;
    shell
      .listExchanges(sessionId)
      .then((list) => {
        if (!live) return;
        // Keep any recorded while the list was loading.
        const known = new Set(list.map((x) => x.id));
        setExchanges([...list, ...useSessionStore.getState().exchanges.filter((x) => !known.has(x.id))]);
      })
      .catch((error: unknown) => {
        if (live) console.warn("listExchanges failed:", describeFailure(error).message);
      });
    return () => {
      live = false;
    };
  }, [sessionId, setExchanges]);

  return (
    <aside className="inspector" aria-label="Inspector">
      <header className="pane-header">
        <h2>Inspector</h2>
        <span className="pane-count">{counted(exchanges.length, "exchange")}</span>
        <IconButton label="Close inspector" onClick={close}>
          <CloseIcon />
        </IconButton>
      </header>
      {!sessionId || exchanges.length === 0 ? (
        <p className="inspector-empty">Every request sent to the model shows up here, with the raw stream that came back.</p>
      ) : (
        <>
          <ExchangeList exchanges={exchanges} selected={selected} onSelect={setSelected} />
          {selected && <ExchangeDetail key={selected} sessionId={sessionId} exchangeId={selected} />}
        </>
      )}
    </aside>
  );
}

function ExchangeList({
  exchanges,
  selected,
  onSelect,
}: {
  exchanges: ExchangeSummary[];
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  return (
    <div className="exchange-list scroll-thin">
      <table className="exchange-table">
        <thead>
          <tr>
            <th scope="col">request</th>
            <th scope="col">status</th>
            <th scope="col">ttfb</th>
            <th scope="col">total</th>
            <th scope="col" title="tokens in → out">tokens</th>
          </tr>
        </thead>
        <tbody>
          {exchanges.map((x) => (
            <tr
              key={x.id}
              className={x.id === selected ? "selected" : undefined}
              aria-selected={x.id === selected}
              tabIndex={0}
              onClick={() => onSelect(x.id)}
              onKeyDown={(event) => {
                if (event.key === "Enter" || event.key === " ") {
                  event.preventDefault();
                  onSelect(x.id);
                }
              }}
            >
              <td className="exchange-request" title={`${x.purpose} request · harness ${x.harness} · wire ${x.wire}${x.prompt_source ? ` · prompt ${x.prompt_source}` : ""}`}>
                <span className="exchange-request-line">
                  <span className="exchange-purpose">{x.purpose}</span>
                  {x.attempt > 1 && <span className="muted">#{x.attempt}</span>}
                  <span className="mono exchange-route">{x.route}</span>
                </span>
                {x.prompt_source && <PromptSourceLabel sources={parsePromptSource(x.prompt_source)} compact />}
              </td>
              <td>
                <Badge tone={x.outcome === "ok" ? "success" : "danger"}>
                  {x.status ?? "—"} {x.outcome === "ok" ? "" : x.outcome}
                </Badge>
              </td>
              <td className="num">{formatMs(x.ttfb_ms)}</td>
              <td className="num">{formatMs(x.total_ms)}</td>
              <td className="num">{formatTokens(x)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
