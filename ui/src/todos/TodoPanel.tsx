import { useId, useState } from "react";
import type { TodoEntry } from "../ipc";
import { ChevronIcon } from "../primitives/icons";
import { TodoList } from "./TodoList";
import { doneCount, todoStatus } from "./todos";
import "./todos.css";

/**
 * The session's current todo list (the latest one the agent wrote), docked above the
 * composer so it stays in view while the timeline scrolls. Folds to one line showing
 * progress and the entry in progress.
 */
export function TodoPanel({ entries }: { entries: readonly TodoEntry[] }) {
  const [open, setOpen] = useState(true);
  const listId = useId();
  const done = doneCount(entries);
  const active = entries.find((e) => todoStatus(e) === "in_progress") ?? null;
  return (
    <section className={`todo-panel${open ? "" : " todo-panel-folded"}`} aria-label="Todo list">
      <button type="button" className="todo-panel-head" aria-expanded={open} aria-controls={listId} onClick={() => setOpen(!open)}>
        <ChevronIcon className={`chevron${open ? " chevron-open" : ""}`} />
        <span className="todo-panel-title">Todos</span>
        <span className="todo-panel-progress" aria-label={`${done} of ${entries.length} done`}>
          {done}/{entries.length}
        </span>
        <span className="todo-panel-bar" aria-hidden="true">
          <span style={{ width: `${entries.length ? (done / entries.length) * 100 : 0}%` }} />
        </span>
        {!open && active && <span className="todo-panel-active">{active.content}</span>}
      </button>
      {open && (
        <div id={listId} className="todo-panel-body scroll-thin">
          <TodoList entries={entries} />
        </div>
      )}
    </section>
  );
}
