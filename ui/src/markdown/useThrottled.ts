import { useEffect, useRef, useState } from "react";

/**
 * `value`, updated at most once per `intervalMs` while `active`; when inactive the latest
 * value passes straight through. The first change after a quiet period shows at once, so
 * throttling adds no latency to the first token.
 */
export function useThrottled<T>(value: T, intervalMs: number, active: boolean): T {
  const [shown, setShown] = useState(value);
  const lastShownAt = useRef(0);
  const latest = useRef(value);
  latest.current = value;

  useEffect(() => {
    if (!active) return;
    const wait = lastShownAt.current + intervalMs - Date.now();
    if (wait <= 0) {
      lastShownAt.current = Date.now();
      setShown(value);
      return;
    }
    const timer = setTimeout(() => {
      lastShownAt.current = Date.now();
      setShown(latest.current);
    }, wait);
    return () => clearTimeout(timer);
  }, [value, intervalMs, active]);

  return active ? shown : value;
}
