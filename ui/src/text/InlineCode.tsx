import { Visible } from "./Visible";

/**
 * Plain text where `backticked` spans render as code: engine reasons and hints are written
 * that way ("`rm` is not a known read-only command") but are not full markdown. They quote
 * commands and paths, so their hidden characters are shown ({@link Visible}).
 */
export function InlineCode({ text }: { text: string }) {
  const parts = text.split(/(`[^`\n]+`)/g);
  return (
    <>
      {parts.map((part, i) =>
        part.length > 2 && part.startsWith("`") && part.endsWith("`") ? (
          <code key={i} className="inline-code">
            <Visible text={part.slice(1, -1)} />
          </code>
        ) : (
          <Visible key={i} text={part} />
        ),
      )}
    </>
  );
}
