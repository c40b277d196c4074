import { memo, type ComponentProps } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { grammarForName } from "../highlight/languages";
import { HighlightedCode } from "../highlight/HighlightedCode";

const REMARK_PLUGINS = [remarkGfm];

/**
 * Renders one piece of markdown. Remote content never loads: images become links (the
 * window's CSP blocks remote images anyway), and links open outside the app.
 */
const COMPONENTS: Components = {
  pre: ({ children }) => <>{children}</>,
  code: ({ className, children, node, ...rest }) => {
    const text = String(children ?? "");
    const fence = /language-([\w+#.-]+)/.exec(className ?? "")?.[1];
    const isBlock = fence !== undefined || text.includes("\n") || node?.position?.start.line !== node?.position?.end.line;
    if (!isBlock) {
      return (
        <code className="md-inline-code" {...rest}>
          {children}
        </code>
      );
    }
    return <HighlightedCode code={text.replace(/\n$/, "")} grammar={grammarForName(fence)} className="md-code" />;
  },
  a: ({ href, children, node: _node, ...rest }) => (
    <a href={href} target="_blank" rel="noreferrer noopener" {...rest}>
      {children}
    </a>
  ),
  img: ({ src, alt }) => (
    <a href={typeof src === "string" ? src : undefined} target="_blank" rel="noreferrer noopener" className="md-image-link">
      {alt || "image"}
    </a>
  ),
  table: ({ node: _node, ...rest }: ComponentProps<"table"> & { node?: unknown }) => (
    <div className="md-table-wrap">
      <table {...rest} />
    </div>
  ),
};

export const MarkdownBlock = memo(function MarkdownBlock({ source }: { source: string }) {
  return (
    <ReactMarkdown remarkPlugins={REMARK_PLUGINS} components={COMPONENTS}>
      {source}
    </ReactMarkdown>
  );
});
