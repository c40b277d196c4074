import type { TodoEntry } from "../ipc";
import { TodoActiveIcon, TodoDoneIcon, TodoPendingIcon } from "../primitives/icons";
import { STATUS_WORDS, todoStatus, type TodoStatus } from "./todos";
import "./todos.css";

const ICONS: Record<TodoStatus, typeof TodoPendingIcon> = {
  pending: TodoPendingIcon,
  in_progress: TodoActiveIcon,
  completed: TodoDoneIcon,
};

/** A todo list with a status icon per entry (its status also in words, for screen readers). */
export function TodoList({ entries, className }: { entries: readonly TodoEntry[]; className?: string }) {
  return (
    <ol className={`todo-list${className ? ` ${className}` : ""}`}>
      {entries.map((entry, i) => {
        const status = todoStatus(entry);
        const Icon = ICONS[status];
        return (
          <li key={i} className={`todo todo-${status}`}>
            <Icon className="todo-icon" />
            <span className="todo-text">{entry.content}</span>
            <span className="sr-only"> ({STATUS_WORDS[status]})</span>
          </li>
        );
      })}
    </ol>
  );
}
