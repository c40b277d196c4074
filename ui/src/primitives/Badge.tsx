import type { HTMLAttributes } from "react";
import "./primitives.css";

export type BadgeTone = "neutral" | "accent" | "success" | "warning" | "danger";

export interface BadgeProps extends HTMLAttributes<HTMLSpanElement> {
  tone?: BadgeTone;
  /** A filled, louder badge (e.g. "approval: never"). */
  solid?: boolean;
}

export function Badge({ tone = "neutral", solid, className, ...rest }: BadgeProps) {
  return (
    <span
      className={`badge badge-${tone}${solid ? " badge-solid" : ""}${className ? ` ${className}` : ""}`}
      {...rest}
    />
  );
}
