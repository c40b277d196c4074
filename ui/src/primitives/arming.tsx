import { useEffect, useState } from "react";
import "./primitives.css";

/**
 * How long a dialog that asks the user to decide ignores every decision after it appears, in
 * ms. A person typing in the composer when the request arrives must not decide it with their
 * next keystroke or click.
 */
export const ARMING_DELAY_MS = 600;

/** False for the first {@link ARMING_DELAY_MS} after mount, then true. */
export function useArmed(): boolean {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setArmed(true), ARMING_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);
  return armed;
}

/** A thin bar filling up while a dialog arms; place it in a `position: relative` footer. */
export function ArmingBar({ armed }: { armed: boolean }) {
  return <div className={`arming${armed ? " arming-done" : ""}`} aria-hidden="true" />;
}
