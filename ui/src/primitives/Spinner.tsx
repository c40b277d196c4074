import "./primitives.css";

/** A small activity indicator; `label` is announced to screen readers. */
export function Spinner({ label = "Working" }: { label?: string }) {
  return <span className="spinner" role="img" aria-label={label} />;
}

/** Three pulsing dots for "streaming". */
export function StreamingDots({ label = "Streaming" }: { label?: string }) {
  return (
    <span className="streaming-dots" role="img" aria-label={label}>
      <span />
      <span />
      <span />
    </span>
  );
}
