import { useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type WheelEvent } from "react";
import { VList, type VListHandle } from "virtua";
import { useUiStore } from "../app/uiStore";
import { Button } from "../primitives/Button";
import { ArrowDownIcon } from "../primitives/icons";
import { RowView } from "./rows/RowView";
import type { Row } from "./rows";
import "./session.css";

/** How close to the bottom (px) still counts as "at the latest". */
const BOTTOM_SLACK = 48;
const UP_KEYS = new Set(["ArrowUp", "PageUp", "Home"]);
const DOWN_KEYS = new Set(["ArrowDown", "PageDown", "End", " "]);
/** How long after a wheel, key or scrollbar press a scroll counts as the user's. */
const USER_SCROLL_WINDOW_MS = 800;

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

  const wrap = useRef<HTMLDivElement>(null);
  // A plain one-shot scroll of the element. The virtualizer's own scrollToIndex keeps
  // re-aiming while item sizes change, which during streaming never stops and would fight
  // the user's wheel; growth is followed instead from onResize below.
  const scrollToEnd = useCallback(() => {
    const scroller = wrap.current?.querySelector<HTMLElement>('[role="log"]');
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
  }, []);

  // A newly opened session starts at its latest message.
  useEffect(() => {
    setStuck(true);
  }, [sessionId, setStuck]);

  // "From the model's text" on a tool card: bring that row into view and flash it.
  const reveal = useUiStore((s) => s.reveal);
  const [highlight, setHighlight] = useState<string | null>(null);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  useEffect(() => {
    if (!reveal) return;
    const index = rowsRef.current.findIndex((row) => row.id === reveal.rowId);
    if (index < 0) return;
    setStuck(false);
    list.current?.scrollToIndex(index, { align: "center" });
    setHighlight(reveal.rowId);
  }, [reveal, setStuck]);

  useLayoutEffect(() => {
    if (stuck.current) scrollToEnd();
  }, [rows, scrollToEnd]);

  // Only the user re-attaches to the bottom, by scrolling down to it: programmatic scrolls
  // (ours, or the virtualizer settling measurements) can land at the bottom at any time and
  // must not undo a scroll up that just happened.
  const lastOffset = useRef(0);
  const userScrollUntil = useRef(0);
  const noteUserScroll = () => {
    userScrollUntil.current = performance.now() + USER_SCROLL_WINDOW_MS;
  };
  const onScroll = (offset: number) => {
    const handle = list.current;
    if (!handle) return;
    const movingDown = offset > lastOffset.current;
    lastOffset.current = offset;
    const atBottom = offset + handle.viewportSize >= handle.scrollSize - BOTTOM_SLACK;
    if (atBottom && movingDown && !stuck.current && performance.now() < userScrollUntil.current) setStuck(true);
  };

  const onWheel = (event: WheelEvent) => {
    if (event.deltaY > 0) {
      noteUserScroll();
    } else if (event.deltaY < 0) {
      userScrollUntil.current = 0;
      if (stuck.current) setStuck(false);
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (UP_KEYS.has(event.key)) {
      userScrollUntil.current = 0;
      if (stuck.current) setStuck(false);
    } else if (DOWN_KEYS.has(event.key)) {
      noteUserScroll();
    }
  };
  const onPointerDown = (event: React.PointerEvent) => {
    // A press on the scroller itself (not on a row) is the scrollbar.
    if (event.target !== event.currentTarget) return;
    noteUserScroll();
    if (stuck.current) setStuck(false);
  };

  return (
    <div className="message-list-wrap" ref={wrap}>
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
        onTouchMove={noteUserScroll}
        tabIndex={0}
        role="log"
        aria-label="Conversation"
        aria-live="off"
      >
        {(row) => (
          <div
            key={row.id}
            className={`row-frame${row.id === highlight ? " row-highlight" : ""}`}
            data-row-id={row.id}
            onAnimationEnd={
              row.id === highlight
                ? (event) => {
                    if (event.animationName === "row-highlight") setHighlight(null);
                  }
                : undefined
            }
          >
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
