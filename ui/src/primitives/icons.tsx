/**
 * The app's icons: 16 px strokes drawn on a 16-unit grid, coloured by `currentColor`.
 * Decorative by default (aria-hidden); the control that holds one carries the label.
 */
import type { SVGProps } from "react";

type IconProps = SVGProps<SVGSVGElement>;

function Svg({ children, ...rest }: IconProps) {
  return (
    <svg
      width="16"
      height="16"
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.4"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...rest}
    >
      {children}
    </svg>
  );
}

export const FolderIcon = (p: IconProps) => (
  <Svg {...p}><path d="M2 4.5A1.5 1.5 0 0 1 3.5 3h2.6l1.4 1.5h5A1.5 1.5 0 0 1 14 6v5.5a1.5 1.5 0 0 1-1.5 1.5h-9A1.5 1.5 0 0 1 2 11.5z" /></Svg>
);
export const FileIcon = (p: IconProps) => (
  <Svg {...p}><path d="M4 2h5l3 3v9H4z" /><path d="M9 2v3h3" /></Svg>
);
export const PlusIcon = (p: IconProps) => (
  <Svg {...p}><path d="M8 3v10M3 8h10" /></Svg>
);
export const GearIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M6.9 1.8h2.2l.4 1.7 1.2.6 1.5-.9 1.6 1.6-.9 1.5.5 1.2 1.7.4v2.2l-1.7.4-.5 1.2.9 1.5-1.6 1.6-1.5-.9-1.2.5-.4 1.7H6.9l-.4-1.7-1.2-.5-1.5.9-1.6-1.6.9-1.5-.5-1.2-1.7-.4V6.9l1.7-.4.5-1.2-.9-1.5 1.6-1.6 1.5.9 1.2-.6z" />
    <circle cx="8" cy="8" r="2" />
  </Svg>
);
export const InspectorIcon = (p: IconProps) => (
  <Svg {...p}><rect x="2" y="2.5" width="12" height="11" rx="1.5" /><path d="M10 2.5v11" /></Svg>
);
export const SendIcon = (p: IconProps) => (
  <Svg {...p}><path d="M8 13V3M3.5 7.5 8 3l4.5 4.5" /></Svg>
);
export const StopIcon = (p: IconProps) => (
  <Svg {...p}><rect x="4" y="4" width="8" height="8" rx="1" fill="currentColor" stroke="none" /></Svg>
);
export const ChevronIcon = (p: IconProps) => (
  <Svg {...p}><path d="m6 4 4 4-4 4" /></Svg>
);
export const ArrowDownIcon = (p: IconProps) => (
  <Svg {...p}><path d="M8 3v10M3.5 8.5 8 13l4.5-4.5" /></Svg>
);
export const TerminalIcon = (p: IconProps) => (
  <Svg {...p}><rect x="1.8" y="2.5" width="12.4" height="11" rx="1.5" /><path d="m4.5 6 2 2-2 2M8.5 10.5h3" /></Svg>
);
export const ToolIcon = (p: IconProps) => (
  <Svg {...p}><path d="M9.8 2.3a3 3 0 0 0-3.6 3.9L2.5 9.9a1.2 1.2 0 0 0 1.7 1.7l3.7-3.7a3 3 0 0 0 3.9-3.6L10 6.1 8.9 5 10.7 3.2z" /></Svg>
);
export const EditIcon = (p: IconProps) => (
  <Svg {...p}><path d="M10.5 2.5l3 3L6 13H3v-3z" /></Svg>
);
export const TrashIcon = (p: IconProps) => (
  <Svg {...p}><path d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.6 8.5h5.8l.6-8.5" /></Svg>
);
export const DownloadIcon = (p: IconProps) => (
  <Svg {...p}><path d="M8 2.5v8M4.5 7 8 10.5 11.5 7M3 13.5h10" /></Svg>
);
export const CopyIcon = (p: IconProps) => (
  <Svg {...p}><rect x="5" y="5" width="8.5" height="8.5" rx="1.3" /><path d="M3.5 10.5h-.2A1.3 1.3 0 0 1 2 9.2V3.3A1.3 1.3 0 0 1 3.3 2h5.9a1.3 1.3 0 0 1 1.3 1.3v.2" /></Svg>
);
export const AlertIcon = (p: IconProps) => (
  <Svg {...p}><path d="M8 2 14.5 13.5h-13z" /><path d="M8 6.5v3M8 11.6v.1" /></Svg>
);
export const BrainIcon = (p: IconProps) => (
  <Svg {...p}><path d="M6 3a2 2 0 0 0-2 2 2 2 0 0 0-1 3.5A2 2 0 0 0 5 12h1V3zM10 3a2 2 0 0 1 2 2 2 2 0 0 1 1 3.5 2 2 0 0 1-2 3.5h-1V3z" /></Svg>
);
export const CheckIcon = (p: IconProps) => (
  <Svg {...p}><path d="m3.5 8.5 3 3 6-7" /></Svg>
);
export const CloseIcon = (p: IconProps) => (
  <Svg {...p}><path d="m4 4 8 8M12 4l-8 8" /></Svg>
);
export const KeyIcon = (p: IconProps) => (
  <Svg {...p}><circle cx="5.5" cy="10.5" r="2.5" /><path d="m7.3 8.7 5.2-5.2M10.5 5.5l1.5 1.5" /></Svg>
);
export const BackIcon = (p: IconProps) => (
  <Svg {...p}><path d="M13 8H3M7.5 3.5 3 8l4.5 4.5" /></Svg>
);
/** A pushpin: Tack itself (messages Tack wrote on the user's behalf). */
export const TackIcon = (p: IconProps) => (
  <Svg {...p}><path d="M6 2.5h4M6.8 2.5v3.8L4.5 9h7l-2.3-2.7V2.5M8 9v4.5" /></Svg>
);
/** Todo states: open, in progress (half filled), done. */
export const TodoPendingIcon = (p: IconProps) => (
  <Svg {...p}><circle cx="8" cy="8" r="5.2" /></Svg>
);
export const TodoActiveIcon = (p: IconProps) => (
  <Svg {...p}><circle cx="8" cy="8" r="5.2" /><path d="M8 2.8a5.2 5.2 0 0 1 0 10.4z" fill="currentColor" stroke="none" /></Svg>
);
export const TodoDoneIcon = (p: IconProps) => (
  <Svg {...p}><circle cx="8" cy="8" r="5.2" fill="currentColor" stroke="none" /><path d="m5.6 8.2 1.7 1.7 3.2-3.6" stroke="var(--surface, #fff)" strokeWidth="1.5" /></Svg>
);
/** A speech bubble with an arrow: "go to the text this came from". */
export const TextSourceIcon = (p: IconProps) => (
  <Svg {...p}><path d="M3 3.5h10v6.5H7l-3 2.5V10H3z" /><path d="M6 6.8h4" /></Svg>
);
