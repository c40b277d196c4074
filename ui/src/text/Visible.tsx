import { visibleParts } from "./visible";
import "./visible.css";

/**
 * Untrusted text shown exactly: control, bidi, zero-width and look-alike space characters as
 * tokens in a distinct style (see `visible.ts`), the rest laid out strictly left to right so
 * right-to-left letters can't reorder what is around them. The whole text, never shortened.
 */
export function Visible({ text }: { text: string }) {
  return (
    <bdi className="visible-text" dir="ltr">
      {visibleParts(text).map((part, i) =>
        part.token ? (
          <span key={i} className="visible-token" title="a hidden character, shown by name">
            {part.text}
          </span>
        ) : (
          part.text
        ),
      )}
    </bdi>
  );
}
