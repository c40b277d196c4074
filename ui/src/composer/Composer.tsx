import { useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";
import { Button } from "../primitives/Button";
import { SendIcon, StopIcon } from "../primitives/icons";
import "./composer.css";

export interface ComposerProps {
  running: boolean;
  disabled?: boolean;
  /** Take focus when mounted (a session was just opened). */
  autoFocus?: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
}

const MAX_HEIGHT_PX = 240;

/**
 * The message box. Enter sends, Shift+Enter adds a line, and Enter that confirms an IME
 * composition never sends. While a turn runs, sending steers it (the engine queues the
 * text) and Stop (or Esc) interrupts.
 */
export function Composer({ running, disabled = false, autoFocus = false, onSend, onStop }: ComposerProps) {
  const [text, setText] = useState("");
  const ref = useRef<HTMLTextAreaElement>(null);
  const hintId = useId();

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, MAX_HEIGHT_PX)}px`;
  }, [text]);

  const send = () => {
    if (!text.trim() || disabled) return;
    onSend(text);
    setText("");
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // keyCode 229 is what WebKit reports for keys that belong to an IME composition.
    const composing = event.nativeEvent.isComposing || event.keyCode === 229;
    if (event.key === "Enter" && !event.shiftKey && !composing) {
      event.preventDefault();
      send();
    } else if (event.key === "Escape" && running && !composing) {
      event.preventDefault();
      onStop();
    }
  };

  return (
    <form
      className="composer"
      aria-label="Message"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <textarea
        ref={ref}
        className="composer-input"
        value={text}
        rows={1}
        disabled={disabled}
        autoFocus={autoFocus}
        aria-label={running ? "Steer the running turn" : "Message to the agent"}
        placeholder={running ? "Steer the running turn…" : "Ask for a change, a fix, an explanation…"}
        aria-describedby={hintId}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <span id={hintId} className="sr-only">
        {running ? "Enter queues the message for the running turn; Escape stops the turn." : "Enter sends; Shift+Enter adds a new line."}
      </span>
      <div className="composer-actions">
        {running && (
          <Button variant="secondary" size="sm" icon={<StopIcon />} shortcut="Esc" onClick={onStop} aria-label="Stop the turn">
            Stop
          </Button>
        )}
        <Button
          type="submit"
          variant="primary"
          size="sm"
          icon={<SendIcon />}
          disabled={disabled || !text.trim()}
          aria-label={running ? "Queue message" : "Send message"}
        >
          {running ? "Queue" : "Send"}
        </Button>
      </div>
    </form>
  );
}
