#!/usr/bin/env python3
"""Real-window smoke test: the built desktop app, driven over WebDriver, against a real local model.

What it does (see tests/window/README.md):
  1. starts WebKitWebDriver (TAURI_WEBVIEW_AUTOMATION=true; or tauri-driver, see --driver) on a
     free port, and through it the app binary, with TACK_HOME / TACK_CONFIG_DIR / XDG_* in a temp
     folder, a config whose `local` provider points at the local llama.cpp server, and
     TACK_TEST_PICK_FOLDER pointing at a temp workspace with a few files;
  2. picks the folder in the start panel, opens a session seeded with the few-shot examples the
     135M model needs to call a tool (see "Seeding" below), sends "List the files in the current
     directory.", follows the `shell` tool card to its output and the final answer;
  3. opens the inspector: the request body holds the user's text, the raw response holds SSE
     `data:` lines;
  4. approves a call in the dialog: the first turn's, if it asked, else the call of "Make a
     directory named build." in the same session, and checks what it did;
  5. prints the cold start to an interactive window (ms) and the resident memory of the app and
     its WebKit processes at idle (MB); screenshots go to target/window-smoke/screenshots/
     (--screenshots docs/screenshots refreshes the README's).

Examples: SmolLM2-135M only calls tools after seeing earlier calls. The test's config gives the
`local` provider what the built-in one has: few-shot `examples` (prompts/examples/tool-use.jsonl
plus one closer to the question), the three tools they use, and temperature 0, so a new session
gets `ls` every time. With --seeded-sessions the examples live in session logs the test writes
and opens from the sidebar instead; a turn without a tool call there is tried again in the next
seeded session, and a call other than `ls` is accepted as long as it ran and its output shows.

Approval: `ls` is a known read-only command, so it runs without asking under every policy
(crates/engine/src/approval.rs); step 4 asks for something that writes. When the model's call
there doesn't ask either, the step says what the model did and the run still passes.

Exit status: 0 when every assertion held, or with `skipped: <why>` when a prerequisite is
missing (no DISPLAY, no WebKitWebDriver, no app binary, no local model); non-zero on failure.
Every process it started is stopped by PID before it exits (also on SIGTERM). Uses ONE
persistent HTTP connection to the WebDriver server: tauri-driver drops connections that close
after each request.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from scripted_provider import ScriptedProvider  # noqa: E402  (beside this file)
USER_TEXT = "List the files in the current directory."
APPROVAL_TEXT = "Make a directory named build."
ESCALATION_TEXT = "Warm the cache."
# The scripted provider's call: a script in the workspace that writes outside it. The gate runs
# `sh warm.sh` under on-request in the workspace-write sandbox (tack policy check says "run"), and
# the sandbox refuses the write (read-only file system). The folder it writes to is under the
# repo's target/, not /tmp: the sandbox's /tmp is private, so a write there would not be refused.
ESCALATION_COMMAND = "sh warm.sh"
# Seeded sessions, used in turn: the model is sampled, so a turn without a tool call is tried
# again in a fresh one (one failed attempt in the history makes the next one likelier to fail).
SEEDED_SESSIONS = 3
# One more example than prompts/examples/tool-use.jsonl, closer to the test's question: with it
# the model called `shell` 7 times in 8 (3 in 8 without), measured with `tack exec`.
EXTRA_EXAMPLE = [
    {"type": "message", "id": "example_3_ask", "role": "user", "content": [{"type": "text", "text": "List the files in the src directory."}]},
    {"type": "function_call", "id": "example_3_call", "call_id": "call_example_3", "name": "shell", "arguments": "{\"command\": \"ls src\"}"},
    {"type": "tool_output", "id": "example_3_out", "call_id": "call_example_3", "output": {"text": "lib.rs\nmain.rs", "status": "completed", "exit_code": 0}},
    {"type": "message", "id": "example_3_done", "role": "assistant", "content": [{"type": "text", "text": "Done: lib.rs main.rs"}]},
]




def seeded_title(n: int) -> str:
    return f"Tool-use examples {n}"


# WebKit can return a screenshot of the previous frame right after a DOM change.
SCREENSHOT_SETTLE_S = 0.7
TURN_TIMEOUT_S = 240.0
UI_TIMEOUT_S = 30.0
# How often a click is tried again when the element is stale or not yet interactable.
CLICK_TRIES = 5
# The W3C WebDriver key that marks a web element reference in script arguments.
ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"


class Skip(Exception):
    """A prerequisite is missing: print `skipped: …` and exit 0."""


class Failure(Exception):
    """An assertion about the app failed."""


def log(message: str) -> None:
    print(f"[window] {message}", flush=True)


# ---------------------------------------------------------------------------------------------
# WebDriver client (W3C), one persistent connection


class WebDriverError(Exception):
    def __init__(self, status: int, error: str, message: str):
        super().__init__(f"{status} {error}: {message}")
        self.error = error


class WebDriver:
    """A minimal W3C WebDriver client over one keep-alive HTTP connection."""

    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=float(os.environ.get("TACK_WEBDRIVER_TIMEOUT", "300")))
        self.session: str | None = None

    def call(self, method: str, path: str, body: object | None = None) -> object:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        raw = response.read()
        payload = json.loads(raw) if raw else {}
        value = payload.get("value") if isinstance(payload, dict) else None
        if response.status >= 400:
            error = value or {}
            raise WebDriverError(response.status, str(error.get("error", "")), str(error.get("message", ""))[:500])
        return value

    def s(self, method: str, path: str, body: object | None = None) -> object:
        return self.call(method, f"/session/{self.session}{path}", body)

    def start(self, capabilities: dict) -> None:
        value = self.call("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})
        assert isinstance(value, dict)
        self.session = value["sessionId"]

    def quit(self) -> None:
        if self.session:
            try:
                self.call("DELETE", f"/session/{self.session}")
            finally:
                self.session = None

    def script(self, source: str, *args: object) -> object:
        return self.s("POST", "/execute/sync", {"script": source, "args": list(args)})

    def find_all(self, css: str | None = None, xpath: str | None = None) -> list[str]:
        using, value = ("css selector", css) if css is not None else ("xpath", xpath)
        found = self.s("POST", "/elements", {"using": using, "value": value})
        assert isinstance(found, list)
        return [next(iter(e.values())) for e in found]

    def click(self, element: str) -> None:
        self.s("POST", f"/element/{element}/click", {})

    def type(self, element: str, text: str) -> None:
        self.s("POST", f"/element/{element}/value", {"text": text})

    def text(self, element: str) -> str:
        return str(self.s("GET", f"/element/{element}/text"))

    def attribute(self, element: str, name: str) -> str | None:
        value = self.s("GET", f"/element/{element}/attribute/{name}")
        return None if value is None else str(value)

    def enabled(self, element: str) -> bool:
        return bool(self.s("GET", f"/element/{element}/enabled"))

    def screenshot(self, path: Path) -> None:
        time.sleep(SCREENSHOT_SETTLE_S)
        data = self.s("GET", "/screenshot")
        path.write_bytes(base64.b64decode(str(data)))
        log(f"screenshot {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")

    def wait(self, what: str, probe, timeout: float = UI_TIMEOUT_S, every: float = 0.15):
        """Polls `probe()` until it returns something truthy; fails after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            try:
                value = probe()
                if value:
                    return value
            except WebDriverError as e:  # stale element while React re-renders
                last_error = e
            time.sleep(every)
        raise Failure(f"timed out after {timeout:.0f} s waiting for {what}" + (f" (last error: {last_error})" if last_error else ""))

    def wait_for(self, what: str, css: str | None = None, xpath: str | None = None, timeout: float = UI_TIMEOUT_S) -> str:
        return self.wait(what, lambda: next(iter(self.find_all(css=css, xpath=xpath)), None), timeout)

    def click_on(self, what: str, css: str | None = None, xpath: str | None = None) -> None:
        """Clicks the element the selector finds, scrolled to the middle of its scroller first.

        The transcript is virtualized and follows the stream, so a card found a moment ago may
        have been re-rendered or be off screen ("element not interactable"); the element is
        looked up again and scrolled into view on each of a few tries.
        """
        last: Exception | None = None
        for _ in range(CLICK_TRIES):
            element = self.wait_for(what, css=css, xpath=xpath)
            try:
                self.script("arguments[0].scrollIntoView({block: 'center'});", {ELEMENT_KEY: element})
                time.sleep(0.2)
                self.click(element)
                return
            except WebDriverError as e:
                last = e
                time.sleep(0.3)
        raise Failure(f"could not click {what} after {CLICK_TRIES} tries: {last}")

    def wait_gone(self, what: str, css: str | None = None, xpath: str | None = None, timeout: float = UI_TIMEOUT_S) -> None:
        self.wait(what, lambda: not self.find_all(css=css, xpath=xpath), timeout)


# ---------------------------------------------------------------------------------------------
# Processes


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children_of() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The command name is in parentheses and may contain spaces: split after the last ')'.
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def descendants(pid: int) -> list[int]:
    tree = children_of()
    out, todo = [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def proc_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "?"


def rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


@dataclass
class Started:
    """Processes this run started, stopped by PID (process group) at the end."""

    procs: list[subprocess.Popen] = field(default_factory=list)

    def spawn(self, argv: list[str], env: dict[str, str], log_path: Path) -> subprocess.Popen:
        out = open(log_path, "wb")
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(proc)
        return proc

    def stop_all(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is not None:
                continue
            # Everything under the driver (the app, WebKit's processes) goes with it.
            tree = descendants(proc.pid)
            for pid in [proc.pid, *tree]:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            for pid in [proc.pid, *tree]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                log(f"warning: process {proc.pid} did not exit")


# ---------------------------------------------------------------------------------------------
# Setup


def model_base_url() -> str:
    return os.environ.get("TACK_LOCAL_LLM_URL", "http://127.0.0.1:8082/v1").rstrip("/")


def model_is_up(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/models", timeout=5) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


def write_examples(path: Path) -> list[dict]:
    """The few-shot examples: the built-in ones plus EXTRA_EXAMPLE, as JSON Lines of items."""
    items = [json.loads(line) for line in (REPO / "prompts" / "examples" / "tool-use.jsonl").read_text().splitlines() if line.strip()]
    items += EXTRA_EXAMPLE
    path.write_text("".join(json.dumps(i) + "\n" for i in items))
    return items


def write_config(config_dir: Path, base: str, examples: Path, scripted: str) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.toml").write_text(
        f"""# Written by tests/window/smoke.py
default_provider = "local"
approval = "untrusted"

[[providers]]
id = "local"
name = "llama.cpp (local)"
base_url = "{base}"
wire = "chat"
model = "smollm2-135m"
harness = "minimal"
# Few-shot examples put before every conversation (SmolLM2-135M calls tools only after
# seeing some), the tools those examples use, and greedy sampling, as the built-in `local`
# provider has them (crates/engine/src/config.rs).
examples = "{examples}"
tools = ["shell", "read_file", "list_dir"]
temperature = 0.0

# The escalation step's model: tests/window/scripted_provider.py (one `shell` call, then an
# answer), so the command is exactly the one the sandbox refuses.
[[providers]]
id = "scripted"
name = "Scripted (escalation test)"
base_url = "{scripted}"
wire = "chat"
model = "scripted"
harness = "minimal"
tools = ["shell"]
"""
    )


def write_workspace(root: Path) -> None:
    root.mkdir(parents=True)
    (root / "README.md").write_text("# Demo\n\nA folder for Tack's real-window smoke test.\n")
    (root / "hello.txt").write_text("hello\n")
    (root / "src").mkdir()
    (root / "src" / "main.rs").write_text('fn main() {\n    println!("hello");\n}\n')


def seed_session(data_dir: Path, workspace: Path, session_id: str, title: str, examples: list[dict]) -> None:
    """A session log holding the few-shot examples (the engine's own log format)."""
    sessions = data_dir / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    settings = {"cwd": str(workspace), "provider": "local", "model": "smollm2-135m", "wire": "chat", "harness": "minimal", "approval": "untrusted"}
    records = [{"type": "session_started", "version": 1, "session_id": session_id, "created_at": now, "settings": settings}]
    for item in examples:
        records.append({"type": "item", "ts": now, "item": item})
    records.append({"type": "renamed", "ts": now, "title": title})
    (sessions / f"{session_id}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


# ---------------------------------------------------------------------------------------------
# The run


PROVIDER_PICKED = """
const form = document.querySelector('form.start-panel');
const provider = form && form.querySelector('select');
const model = form && form.querySelector('input.input');
return !!(provider && provider.options.length > 0 && model && model.value);
"""


# The latest tool card that is not one of the seeded examples (their call ids are
# `call_example_<n>`): its status label, command and output. Rows carry `data-row-id`.
NEW_CALL = """
const frames = [...document.querySelectorAll('.row-frame[data-row-id^="call-"]')]
  .filter((f) => !f.dataset.rowId.startsWith('call-call_example_'));
const frame = frames[frames.length - 1];
if (!frame) return null;
const card = frame.querySelector('article.tool-card');
const text = (sel) => { const el = card && card.querySelector(sel); return el ? el.textContent : null; };
const toggle = card && card.querySelector('button.tool-toggle');
return card && {
  row: frame.dataset.rowId,
  label: card.getAttribute('aria-label'),
  open: !!toggle && toggle.getAttribute('aria-expanded') === 'true',
  command: text('pre[aria-label="Command"]'),
  output: text('pre[aria-label="Output"]'),
};
"""

# Labels of a call that ran (an output item arrived), as ToolCallCard names them.
RAN = ("Tool call shell: completed", "Tool call shell: failed")

# The text of the last timeline row when it is an assistant message, else null.
LAST_ANSWER = """
const frames = [...document.querySelectorAll('.row-frame')];
const last = frames[frames.length - 1];
const answer = last && last.querySelector('article.msg-assistant');
return answer ? answer.textContent : null;
"""


def xpath_text(tag: str, text: str) -> str:
    return f"//{tag}[contains(normalize-space(.), {json.dumps(text)})]"


def measure_rss(driver_pid: int) -> tuple[int, list[str]]:
    pids = descendants(driver_pid)
    total = 0
    parts = []
    for pid in pids:
        kib = rss_kib(pid)
        if kib:
            total += kib
            parts.append(f"{proc_name(pid)}={kib / 1024:.0f}")
    return total, parts


def run_turn(wd: WebDriver, text: str) -> None:
    box = wd.wait_for("the message box", css='textarea[aria-label="Message to the agent"]')
    wd.type(box, text + "\ue007")  # Enter sends


class Shots:
    """The run's screenshots, in one folder; `once` takes a name only the first time."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.taken: set[str] = set()
        folder.mkdir(parents=True, exist_ok=True)
        # Screenshots of an earlier run must not pass for this run's.
        for old in folder.glob("[01][0-9]-*.png"):
            old.unlink()

    def take(self, wd: WebDriver, name: str) -> None:
        wd.screenshot(self.folder / name)
        self.taken.add(name)

    def once(self, wd: WebDriver, name: str) -> None:
        if name not in self.taken:
            self.take(wd, name)


def command_of(call: dict) -> str:
    return (call.get("command") or "").lstrip("$ ").strip()


@dataclass
class Turn:
    """The new tool call of a turn (`NEW_CALL`'s shape) and the final answer."""

    call: dict
    answer: str


def agent_turn(
    wd: WebDriver,
    text: str,
    shots: "Shots",
    approvals: list[tuple[str, str]],
    sessions: list[str],
    wanted=lambda call: True,
    need_call: bool = True,
) -> Turn:
    """Opens the next seeded session (or uses the open one when `sessions` is empty), sends
    `text` and follows the turn to its end; returns the turn's new tool call (opened, so its
    output shows) and the final answer.

    The first new tool card is screenshotted (`02-tool-call.png`, once per run). An approval
    dialog, if the call asks, is screenshotted (`06-approval.png`), approved once when armed, and
    what the call then became is screenshotted (`07-approved.png`) and appended to `approvals`.
    The model is sampled: a reply without a tool call, or with a call `wanted` rejects, is tried
    again in the next seeded session; when none is left, the last call that ran is returned.
    """
    attempts = max(1, len(sessions))
    fallback: Turn | None = None
    for attempt in range(1, attempts + 1):
        if sessions:
            open_seeded(wd, sessions.pop(0))
        run_turn(wd, text)
        seen_running = False
        asked: str | None = None
        deadline = time.monotonic() + TURN_TIMEOUT_S
        while True:
            if time.monotonic() > deadline:
                raise Failure(f"the turn for {text!r} did not end within {TURN_TIMEOUT_S:.0f} s")
            try:
                dialogs = wd.find_all(css='[role="alertdialog"]')
                if dialogs:
                    # WebDriver reads only visible text: while the dialog fades in it reads "".
                    command_css = '[role="alertdialog"] pre[aria-label="Command"]'
                    try:
                        asked = wd.wait("the command to approve", lambda: wd.text(wd.wait_for("the command", css=command_css)).strip(), timeout=5)
                    except Failure:
                        asked = ""
                    approve = wd.wait_for("Approve once", xpath="//div[@role='alertdialog']//button[contains(., 'Approve once')]")
                    wd.wait("the dialog to arm", lambda: wd.enabled(approve))
                    # The enabled check can pass before the arming bar's last frame is painted.
                    time.sleep(1.0)
                    shots.once(wd, "06-approval.png")
                    wd.click(approve)
                    wd.wait_gone("the dialog to close", css='[role="alertdialog"]')
                    continue
                call = wd.script(NEW_CALL)
                if call:
                    shots.once(wd, "02-tool-call.png")
                running = bool(wd.find_all(css='button[aria-label="Stop the turn"]'))
            except WebDriverError:  # an element went stale while React re-rendered
                time.sleep(0.15)
                continue
            seen_running = seen_running or running
            if seen_running and not running:
                break
            time.sleep(0.15)
        call = wd.script(NEW_CALL)
        if call and not call["open"]:
            # Calls that finished without printing while the user watched start folded.
            wd.click_on("the call's card", css=f'.row-frame[data-row-id="{call["row"]}"] button.tool-toggle')
            call = wd.script(NEW_CALL)
        if asked is not None:
            shots.once(wd, "07-approved.png")
            approvals.append((asked, (call or {}).get("label")))
        answer = wd.wait("the final answer", lambda: wd.script(LAST_ANSWER)) if call else ""
        turn = Turn(call or {}, answer or "")
        if not need_call or (call and wanted(call)):
            return turn
        if call and call["label"] in RAN:
            fallback = turn
        what = f"called `{(call['command'] or '').lstrip('$ ').strip()}` ({call['label']})" if call else "answered without a tool call"
        log(f"attempt {attempt}: the model {what}" + ("; trying the next seeded session" if sessions else ""))
    if fallback is not None:
        return fallback
    raise Failure(f"the model made no tool call that ran for {text!r} in {attempts} attempts")


# The escalation step's tool card (the scripted call's id is fixed): label, notes, sandbox line.
SCRIPTED_CARD = """
const frame = document.querySelector('.row-frame[data-row-id="call-call_scripted_1"]');
const card = frame && frame.querySelector('article.tool-card');
if (!card) return null;
const text = (sel) => { const el = card.querySelector(sel); return el ? el.textContent : null; };
const toggle = card.querySelector('button.tool-toggle');
return {
  label: card.getAttribute('aria-label'),
  open: !!toggle && toggle.getAttribute('aria-expanded') === 'true',
  refused: text('.tool-sandbox-denial'),
  decision: text('.tool-decision'),
  sandbox: text('[data-testid="tool-sandbox"]'),
  output: text('pre[aria-label="Output"]'),
};
"""


def select_option(wd: WebDriver, what: str, select_css: str, value: str) -> None:
    """Picks `value` in a <select> as a user does: a click on the option."""
    selected = f"const s = document.querySelector({json.dumps(select_css)}); return !!s && s.value === {json.dumps(value)};"
    wd.click_on(what, css=f"{select_css} option[value={json.dumps(value)}]")
    try:
        wd.wait(f"{what} to be selected", lambda: wd.script(selected), timeout=3)
    except Failure:
        # Some WebDriver builds don't select an <option> on click: set it as the browser
        # would (the native setter, then the change event React listens to).
        wd.script(
            "const s = document.querySelector(arguments[0]);"
            "Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(s, arguments[1]);"
            "s.dispatchEvent(new Event('change', {bubbles: true}));",
            select_css,
            value,
        )
        wd.wait(f"{what} to be selected", lambda: wd.script(selected))


def escalation_step(wd: WebDriver, shots: "Shots", workspace: Path, outside: Path) -> str:
    """A command the sandbox refuses, in a new session on the scripted provider under
    on-request: the start panel shows the sandbox (08), the header badge says policy and sandbox,
    the refusal shows on the card and the escalation dialog asks to run it outside (09);
    approved, the command runs outside (the file exists) and the card says so (10)."""
    t0 = time.monotonic()
    # The script the scripted call runs, written only now: the earlier steps' `ls` (and so the
    # local model's answer at temperature 0) see the workspace they always saw.
    (workspace / "warm.sh").write_text(f"mkdir -p '{outside.parent}' && echo escalated > '{outside}'\n")
    wd.click_on("New session", css="button.new-session")
    wd.wait_for("the start panel", css="form.start-panel")
    select_option(wd, "the scripted provider", "form.start-panel select", "scripted")
    wd.click_on("the On request policy", xpath="//label[contains(@class,'policy')][.//span[normalize-space(.)='On request']]")
    mechanism = wd.wait(
        "the sandbox mechanism line",
        lambda: (lambda t: t if t and not t.startswith("Checking") else None)(wd.text(wd.wait_for("the mechanism", css='[data-testid="sandbox-mechanism"]')).strip()),
    )
    if not mechanism.startswith("bubblewrap") and not mechanism.startswith("Landlock"):
        raise Failure(f"the start panel should name this machine's sandbox, it says {mechanism!r}")
    checked = wd.script("const r = document.querySelector('input[name=\\'sandbox\\']:checked'); return r && r.value;")
    if checked != "workspace-write":
        raise Failure(f"workspace-write should be the default sandbox, {checked!r} is checked")
    network = wd.script("const c = document.querySelector('.sandbox-network input'); return c && c.checked;")
    if network:
        raise Failure("the network toggle should start off")
    shots.take(wd, "08-start-sandbox.png")
    wd.click_on("Start session", xpath=xpath_text("button", "Start session"))
    badge = wd.wait(
        "the header's policy and sandbox badge",
        lambda: (lambda t: t if "on-request" in t else None)(wd.text(wd.wait_for("the badge", css='[data-testid="session-guard"]'))),
    )
    if "on-request · workspace-write sandbox · network off" not in badge:
        raise Failure(f"the header badge should say the policy and the sandbox, it says {badge!r}")
    log(f"escalation: start panel {mechanism!r}; header {badge.split(' (')[0]!r}")

    run_turn(wd, ESCALATION_TEXT)
    title_xpath = "//div[@role='alertdialog']//h2[normalize-space(.)='Run outside the sandbox?']"
    wd.wait_for("the escalation dialog", xpath=title_xpath, timeout=60)
    refusal = wd.wait(
        "the sandbox's refusal in the dialog",
        lambda: wd.text(wd.wait_for("the refusal", css='[role="alertdialog"] .approval-escalation-denial')).strip(),
    )
    if "read-only file system" not in refusal:
        raise Failure(f"the dialog should say what the sandbox refused, it says {refusal!r}")
    command = wd.text(wd.wait_for("the command", css='[role="alertdialog"] pre[aria-label="Command"]')).strip()
    if command != ESCALATION_COMMAND:
        raise Failure(f"the dialog should show the full command {ESCALATION_COMMAND!r}, it shows {command!r}")
    where = wd.text(wd.wait_for("where it runs", css='[role="alertdialog"] [data-testid="approval-sandbox"]')).strip()
    if not where.startswith("Runs WITHOUT a sandbox"):
        raise Failure(f"the dialog should warn that the command runs without a sandbox, it says {where!r}")
    if wd.find_all(xpath="//div[@role='alertdialog']//button[contains(., 'Approve for session')]"):
        raise Failure("an escalation must not offer approval for the session")
    card = wd.script(SCRIPTED_CARD) or {}
    if "read-only file system" not in (card.get("refused") or ""):
        raise Failure(f"the tool card should show the sandbox's refusal while the dialog asks: {card!r}")
    if outside.exists():
        raise Failure(f"{outside} exists before the escalation was approved: the sandbox let the write through")
    run_outside = wd.wait_for("Run outside the sandbox", xpath="//div[@role='alertdialog']//button[contains(., 'Run outside the sandbox')]")
    wd.wait("the dialog to arm", lambda: wd.enabled(run_outside))
    time.sleep(1.0)  # the arming bar's last frame
    shots.take(wd, "09-escalation.png")
    wd.click(run_outside)
    wd.wait_gone("the dialog to close", css='[role="alertdialog"]')

    def finished() -> dict | None:
        card = wd.script(SCRIPTED_CARD)
        running = wd.find_all(css='button[aria-label="Stop the turn"]')
        return card if card and not running and card["label"] != "Tool call shell: running" and wd.script(LAST_ANSWER) else None

    card = wd.wait("the command to run outside and the turn to end", finished, timeout=60)
    if not card["open"]:
        wd.click_on("the call's card", css='.row-frame[data-row-id="call-call_scripted_1"] button.tool-toggle')
        card = wd.script(SCRIPTED_CARD)
    if card["label"] != "Tool call shell: completed":
        raise Failure(f"the command should have completed outside the sandbox: {card!r}")
    if (card.get("sandbox") or "") != "ran without a sandbox":
        raise Failure(f"the card should say the command ran without a sandbox: {card!r}")
    if "Approved to run again outside the sandbox" not in (card.get("decision") or ""):
        raise Failure(f"the card should say the user let it out of the sandbox: {card!r}")
    if not outside.is_file() or outside.read_text().strip() != "escalated":
        raise Failure(f"the command approved outside the sandbox should have written {outside}")
    shots.take(wd, "10-escalated.png")
    return f"refused ({refusal.removeprefix('The sandbox refused:').strip()}), approved outside, wrote {outside.name}; {time.monotonic() - t0:.1f} s"


def open_seeded(wd: WebDriver, title: str) -> None:
    item = wd.wait_for(
        f"the seeded session {title!r} in the sidebar",
        xpath=f"//ul[@aria-label='Sessions']//button[span[@class='session-title'][normalize-space(.)={json.dumps(title)}]]",
    )
    wd.click(item)
    wd.wait_for("the session's history", xpath=f"//header//h1[normalize-space(.)={json.dumps(title)}]")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app", default=os.environ.get("TACK_APP_BIN", str(REPO / "target/debug/tack-app")), help="app binary built with --features custom-protocol")
    parser.add_argument("--screenshots", default=str(REPO / "target/window-smoke/screenshots"), help="where the PNGs go (docs/screenshots refreshes the README's)")
    parser.add_argument("--driver", choices=["webkit", "tauri-driver"], default=os.environ.get("TACK_WINDOW_DRIVER", "webkit"))
    parser.add_argument("--seeded-sessions", action="store_true", help="open sessions seeded with the examples instead of starting a new one (the examples then come from the session log)")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (config, sessions, logs)")
    parser.add_argument("--escalation-only", action="store_true", help="only the sandbox escalation step (scripted provider; no local model needed)")
    args = parser.parse_args()

    app = Path(args.app).resolve()
    base = model_base_url()
    if not os.environ.get("DISPLAY"):
        raise Skip("no DISPLAY (run under Xvfb: tests/window/run.sh)")
    webkit = shutil.which("WebKitWebDriver")
    if not webkit:
        raise Skip("WebKitWebDriver not found (apt-get install webkit2gtk-driver)")
    tauri_driver = shutil.which("tauri-driver") if args.driver == "tauri-driver" else None
    if args.driver == "tauri-driver" and not tauri_driver:
        raise Skip("tauri-driver not found (cargo install tauri-driver --version 2.1.0 --locked)")
    if not app.is_file() or not os.access(app, os.X_OK):
        raise Skip(f"no app binary at {app} (cargo build -p tack-app --features custom-protocol)")
    if not args.escalation_only and not model_is_up(base):
        raise Skip(f"no local model at {base} (scripts/local-llm.sh ensure, or set TACK_LOCAL_LLM_URL)")

    shots = Shots(Path(args.screenshots))
    tmp = Path(tempfile.mkdtemp(prefix="tack-window-"))
    started = Started()
    wd: WebDriver | None = None
    ok = False
    scripted = ScriptedProvider(ESCALATION_COMMAND).start()
    # Outside the workspace and outside /tmp (private in the sandbox), removed at the end.
    outside_root = REPO / "target" / "window-smoke" / f"escalation-{os.getpid()}"
    outside = outside_root / "outside" / "warm.txt"
    try:
        home, config_dir, workspace = tmp / "home", tmp / "config", tmp / "workspace"
        examples = write_examples(tmp / "examples.jsonl")
        write_config(config_dir, base, tmp / "examples.jsonl", scripted.base_url)
        write_workspace(workspace)
        outside_root.mkdir(parents=True, exist_ok=True)
        sessions: list[str] = []
        if args.seeded_sessions:
            for n in range(1, SEEDED_SESSIONS + 1):
                seed_session(home, workspace, f"20260101-000000-5eed000{n}", seeded_title(n), examples)
                sessions.append(seeded_title(n))
        env = dict(os.environ)
        env.update(
            TAURI_WEBVIEW_AUTOMATION="true",
            TACK_HOME=str(home),
            TACK_CONFIG_DIR=str(config_dir),
            TACK_TEST_PICK_FOLDER=str(workspace),
            TACK_TEST_SAVE_DIR=str(tmp / "exports"),
            # The window state plugin and WebKit write under XDG folders: keep them out of $HOME.
            XDG_CONFIG_HOME=str(tmp / "xdg-config"),
            XDG_DATA_HOME=str(tmp / "xdg-data"),
            XDG_CACHE_HOME=str(tmp / "xdg-cache"),
            NO_AT_BRIDGE="1",
        )
        # With the DMA-BUF renderer off, WebKitGTK 2.50's WebDriver screenshot never returns
        # once the page has changed (measured here); the window renders fine without it.
        env.pop("WEBKIT_DISABLE_DMABUF_RENDERER", None)
        port = free_port()
        if tauri_driver:
            native = free_port()
            driver = started.spawn([tauri_driver, "--port", str(port), "--native-port", str(native)], env, tmp / "driver.log")
            capabilities = {"tauri:options": {"application": str(app)}}
        else:
            driver = started.spawn([webkit, f"--port={port}"], env, tmp / "driver.log")
            capabilities = {"webkitgtk:browserOptions": {"binary": str(app), "args": []}}
        wd = WebDriver(port)

        def driver_up() -> bool:
            try:
                probe = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                probe.request("GET", "/status")
                up = probe.getresponse().status == 200
                probe.close()
                return up
            except OSError:
                return driver.poll() is None and False

        deadline = time.monotonic() + 20
        while not driver_up():
            if driver.poll() is not None or time.monotonic() > deadline:
                raise Failure(f"the WebDriver server did not start (log: {tmp / 'driver.log'})")
            time.sleep(0.1)

        # --- cold start: launch to an interactive start panel (providers loaded)
        t0 = time.monotonic()
        wd.start(capabilities)
        t_session = time.monotonic()
        url = str(wd.s("GET", "/url"))
        if url.startswith("http://127.0.0.1:5173") or url.startswith("http://localhost:5173"):
            raise Failure(f"the app loads the dev server ({url}): build it with --features custom-protocol")
        # Interactive: the start panel shows the providers and has picked one (its model is filled in).
        wd.wait("the start panel with its providers", lambda: wd.script(PROVIDER_PICKED), timeout=60, every=0.05)
        t_ready = time.monotonic()
        cold_ms = (t_ready - t0) * 1000
        log(f"cold start to interactive window: {cold_ms:.0f} ms (WebDriver session ready after {(t_session - t0) * 1000:.0f} ms)")

        # --- 01: pick the folder in the start panel
        wd.click_on("the folder button", css="button.start-folder")
        wd.wait_for("the picked folder", xpath=f"//button[contains(@class,'start-folder')]//span[normalize-space(.)={json.dumps(str(workspace))}]")
        help_text = wd.text(wd.wait_for("the provider's key status", css="form.start-panel .field-help"))
        if "no key needed" not in help_text:
            raise Failure(f"the local provider should need no key, the start panel says {help_text!r}")
        wd.wait_for("the harness picked by auto", css='[data-testid="auto-harness"]')
        idle_start_kib, _ = measure_rss(driver.pid)
        shots.take(wd, "01-start.png")
        approvals: list[tuple[str, str]] = []

        if args.escalation_only:
            escalation = escalation_step(wd, shots, workspace, outside)
            print()
            print(f"cold start to interactive window: {cold_ms:.0f} ms")
            print(f"escalation: {escalation}")
            ok = True
            return 0

        # --- 02/03: the turn (and 06/07 if the model's call asks for approval)
        if not args.seeded_sessions:
            wd.click_on("Start session", xpath=xpath_text("button", "Start session"))
        t_send = time.monotonic()
        turn = agent_turn(wd, USER_TEXT, shots, approvals, sessions, wanted=lambda c: command_of(c).split()[:1] == ["ls"])
        call = turn.call
        if call["label"] not in RAN:
            raise Failure(f"the model's shell call should have run: {call!r}")
        command = command_of(call)
        if not command:
            raise Failure(f"the card should show the command: {call!r}")
        if command.split()[:1] == ["ls"]:
            for name in ("README.md", "hello.txt"):
                if name not in (call["output"] or ""):
                    raise Failure(f"`{command}` should list {name}: {call['output']!r}")
        log(f"turn done in {(time.monotonic() - t_send):.1f} s: `{command}` printed {call['output']!r} → answer {turn.answer[:80]!r}")
        shots.take(wd, "03-answer.png")

        # --- 04/05: the inspector
        wd.click_on("the inspector button", css='button[aria-label="Toggle inspector (Ctrl+I)"]')
        wd.click_on("the first exchange", css="aside[aria-label='Inspector'] .exchange-table tbody tr td")
        search = wd.wait_for("the request body search", css='input[aria-label="Search request body"]')
        wd.type(search, USER_TEXT)
        status = wd.wait(
            "the user's text in the request body",
            lambda: next((t for t in (wd.text(e) for e in wd.find_all(css=".json-search-count")) if t and t != "no matches"), None),
        )
        log(f"request body search for the user's text: {status}")
        prompt = wd.text(wd.wait_for("the prompt source", css='[aria-label="How this request was made"] [data-testid="prompt-source"]'))
        log(f"inspector labels: prompt {prompt!r}")
        shots.take(wd, "04-inspector-request.png")
        wd.click_on("the Response tab", xpath="//button[@role='tab'][normalize-space(.)='Response']")
        chunks = wd.wait("raw SSE chunks", lambda: [wd.text(e) for e in wd.find_all(css='ol[aria-label="Response chunks"] .sse-data')])
        if not any(c.lstrip().startswith("data:") for c in chunks):
            raise Failure(f"the raw response should show SSE `data:` lines, got {chunks[:2]!r}")
        log(f"raw response: {len(chunks)} chunks with data: lines")
        shots.take(wd, "05-inspector-response.png")
        wd.click_on("the inspector button", css='button[aria-label="Toggle inspector (Ctrl+I)"]')

        # --- idle memory, after a turn, with nothing running
        time.sleep(2)
        idle_kib, parts = measure_rss(driver.pid)

        # --- 06/07: a call that needs approval, unless the first turn's call already asked
        if not approvals:
            # In the open session when it is a new one; in the next seeded one otherwise.
            second = agent_turn(wd, APPROVAL_TEXT, shots, approvals, sessions[:1], need_call=False)
            if not approvals:
                log(f"approval: no dialog this run; the model's call did not need one ({second.call!r})")
        for asked, result in approvals:
            log(f"approval: the dialog asked for `{asked}`; approved once; then {result!r}")
            if asked.strip() == "mkdir build" and result == "Tool call shell: completed" and not (workspace / "build").is_dir():
                raise Failure("the approved `mkdir build` completed but the folder is not there")
        approval = f"asked for `{approvals[0][0]}`, approved, then {approvals[0][1]!r}" if approvals else "no dialog this run (see above)"

        # --- 08/09/10: a command the sandbox refuses, escalated and approved outside
        escalation = escalation_step(wd, shots, workspace, outside)

        print()
        print(f"cold start to interactive window: {cold_ms:.0f} ms")
        print(f"idle RSS after start: {idle_start_kib / 1024:.0f} MB; after a turn: {idle_kib / 1024:.0f} MB ({', '.join(parts)})")
        print(f"approval: {approval}")
        print(f"escalation: {escalation}")
        ok = True
        return 0
    except (Failure, WebDriverError):
        # What the window showed when it failed, for the person reading the log.
        if wd is not None and wd.session:
            try:
                wd.screenshot(tmp / "failure.png")
                (tmp / "failure.html").write_text(str(wd.script("return document.body.outerHTML")))
            except (OSError, WebDriverError, http.client.HTTPException):
                pass
        raise
    finally:
        if wd is not None:
            try:
                wd.quit()
            except (OSError, WebDriverError, http.client.HTTPException) as e:
                log(f"closing the WebDriver session: {e}")
            wd.conn.close()
        started.stop_all()
        scripted.stop()
        shutil.rmtree(outside_root, ignore_errors=True)
        if ok and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            log(f"kept {tmp} (driver.log, config, sessions)")


def stop_on_signal(signum: int, _frame: object) -> None:
    # Raising runs main()'s cleanup: the driver, the app and WebKit's processes are stopped.
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, stop_on_signal)
    signal.signal(signal.SIGHUP, stop_on_signal)
    try:
        sys.exit(main())
    except Skip as skip:
        print(f"skipped: {skip}")
        sys.exit(0)
    except (Failure, WebDriverError) as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
