import { useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type WheelEvent } from "react";
import { VList, type VListHandle } from "virtua";
import { Button } from "../primitives/Button";
import { ArrowDownIcon } from "../primitives/icons";
import { RowView } from "./rows/RowView";
import type { Row } from "./rows";
import "./session.css";

/** How close to the bottom (px) still counts as "at the latest". */
const BOTTOM_SLACK = 48;
const UP_KEYS = new Set(["ArrowUp", "PageUp", "Home"]);

/**
 * The virtualized timeline. It follows new content while the user is at the bottom; once
 * they scroll up (wheel, keys, scrollbar) it stays put and offers "Jump to latest".
 */
export function MessageList({ rows, sessionId }: { rows: readonly Row[]; sessionId: string }) {
  const list = useRef<VListHandle>(null);
  const stuck = useRef(true);
  const [showJump, setShowJump] = useState(false);

  const setStuck = useCallback((value: boolean) => {
    stuck.current = value;
    setShowJump(!value);
  }, []);

  const scrollToEnd = useCallback(() => {
    const handle = list.current;
    if (handle && rows.length > 0) handle.scrollToIndex(rows.length - 1, { align: "end" });
  }, [rows.length]);

  // A newly opened session starts at its latest message.
  useEffect(() => {
    setStuck(true);
  }, [sessionId, setStuck]);

  useLayoutEffect(() => {
    if (stuck.current) scrollToEnd();
  }, [rows, scrollToEnd]);

  const onScroll = (offset: number) => {
    const handle = list.current;
    if (!handle) return;
    const atBottom = offset + handle.viewportSize >= handle.scrollSize - BOTTOM_SLACK;
    if (atBottom && !stuck.current) setStuck(true);
  };

  const onWheel = (event: WheelEvent) => {
    if (event.deltaY < 0 && stuck.current) setStuck(false);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (UP_KEYS.has(event.key) && stuck.current) setStuck(false);
  };
  const onPointerDown = (event: React.PointerEvent) => {
    // A press on the scroller itself (not on a row) is the scrollbar.
    if (event.target === event.currentTarget && stuck.current) setStuck(false);
  };

  return (
    <div className="message-list-wrap">
      <VList
        ref={list}
        data={rows as Row[]}
        className="message-list scroll-thin"
        style={{ height: "100%" }}
        onScroll={onScroll}
        onResize={() => {
          if (stuck.current) scrollToEnd();
        }}
        onWheel={onWheel}
        onKeyDown={onKeyDown}
        onPointerDown={onPointerDown}
        tabIndex={0}
        role="log"
        aria-label="Conversation"
        aria-live="off"
      >
        {(row) => (
          <div key={row.id} className="row-frame">
            <div className="row-inner">
              <RowView row={row} />
            </div>
          </div>
        )}
      </VList>
      {showJump && (
        <Button
          className="jump-latest"
          size="sm"
          icon={<ArrowDownIcon />}
          onClick={() => {
            setStuck(true);
            scrollToEnd();
          }}
        >
          Jump to latest
        </Button>
      )}
    </div>
  );
}
