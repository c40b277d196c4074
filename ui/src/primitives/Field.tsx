import { useId, type ReactNode } from "react";
import "./primitives.css";

export interface FieldProps {
  label: ReactNode;
  /** Help under the control, announced as its description (not part of its name). */
  help?: ReactNode;
  className?: string;
  /** Renders the control with the id and description id to put on it. */
  children: (ids: { id: string; describedBy: string | undefined }) => ReactNode;
}

/** A labelled form control with optional help text. */
export function Field({ label, help, className, children }: FieldProps) {
  const id = useId();
  const helpId = useId();
  return (
    <div className={`field${className ? ` ${className}` : ""}`}>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      {children({ id, describedBy: help ? helpId : undefined })}
      {help && (
        <span id={helpId} className="field-help">
          {help}
        </span>
      )}
    </div>
  );
}
