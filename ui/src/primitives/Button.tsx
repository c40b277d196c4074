import type { ButtonHTMLAttributes, ReactNode } from "react";
import "./primitives.css";

export type ButtonVariant = "primary" | "secondary" | "ghost" | "danger";

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: "sm" | "md";
  /** A keyboard shortcut shown on the button (also exposed as aria-keyshortcuts). */
  shortcut?: string;
  icon?: ReactNode;
}

export function Button({
  variant = "secondary",
  size = "md",
  shortcut,
  icon,
  className,
  children,
  type = "button",
  ...rest
}: ButtonProps) {
  return (
    <button
      type={type}
      className={`btn btn-${variant} btn-${size}${className ? ` ${className}` : ""}`}
      aria-keyshortcuts={shortcut}
      {...rest}
    >
      {icon && <span className="btn-icon" aria-hidden="true">{icon}</span>}
      {children && <span className="btn-label">{children}</span>}
      {shortcut && <kbd className="btn-kbd" aria-hidden="true">{shortcut}</kbd>}
    </button>
  );
}

export interface IconButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  label: string;
  pressed?: boolean;
}

/** A square button with only an icon; `label` is its accessible name and tooltip. */
export function IconButton({ label, pressed, className, children, type = "button", ...rest }: IconButtonProps) {
  return (
    <button
      type={type}
      className={`icon-btn${className ? ` ${className}` : ""}`}
      aria-label={label}
      title={label}
      aria-pressed={pressed}
      {...rest}
    >
      {children}
    </button>
  );
}
