/**
 * A scripted stand-in for the desktop shell, for `npm run dev` in a plain browser, the
 * Playwright flows and the perf harness.
 *
 * Commands answer from in-memory state. `sendInput` replays a *recording*: a JSON fixture of
 * the engine events one real turn produced (e2e/fixtures), with their relative times. The
 * replay waits for the user where the engine would: after `approval_requested` until
 * `decideApproval`, after `question_asked` until `answerQuestion`, and before
 * `turn_aborted{interrupted}` until `interrupt` (which also skips the rest of the streaming).
 * A past session may be saved mid-turn, waiting for an approval: opening it reports the
 * request as pending, and deciding it plays the rest of the turn. Every invoke is logged so
 * tests can assert arguments.
 */
import type {
  ApprovalDecision,
  ConfigProblem,
  ApprovalRequest,
  EngineEvent,
  Exchange,
  ExchangeSummary,
  HarnessInfo,
  InferredHarness,
  Item,
  KeyState,
  ProviderInput,
  ProviderView,
  QuestionAnswer,
  QuestionRequest,
  Rule,
  RuleInput,
  SandboxInfo,
  SessionSettings,
  SessionSummary,
  SessionView,
  StartSessionInput,
} from "../../src/ipc/types";

export interface RecordedEvent {
  /** Milliseconds since the start of the turn. */
  t: number;
  event: EngineEvent;
  /** Played only when the user answered the turn's questions, or only when they dismissed them. */
  when?: "answered" | "dismissed";
}

export interface Recording {
  description: string;
  events: RecordedEvent[];
  exchanges: Exchange[];
}

export interface PastSession {
  /** What the fixture shows, for its readers. */
  description?: string;
  summary: SessionSummary;
  settings: SessionSettings;
  items: Item[];
  exchanges: Exchange[];
  /** Saved mid-turn: the turn still runs and waits for these. */
  running?: boolean;
  pendingApprovals?: ApprovalRequest[];
  pendingQuestions?: QuestionRequest[];
  /** The recording that plays the rest of the turn once the pending request is answered. */
  continuation?: string;
}

export interface MockConfig {
  /** Recordings to play for successive `sendInput` calls; when empty, picked by keyword. */
  turns?: string[];
  /** Playback speed factor: 2 plays twice as fast. */
  speed?: number;
  keychainAvailable?: boolean;
  /** Folder `pickWorkspace` returns, and the initial one. */
  workspace?: string;
  /**
   * The folder the shell remembers from the last start (`lastWorkspace`): default
   * {@link workspace}; null = none (a fresh TACK_HOME, or a remembered folder since removed).
   */
  lastWorkspace?: string | null;
  /**
   * config.toml's `default_provider`: default "deepseek"; null = not set (the built-in `local`
   * is the default). A config file that does not load sets none.
   */
  defaultProvider?: string | null;
  /** Adds a generated session with this many history items (perf harness). */
  largeSession?: number;
  /** Adds the past sessions saved mid-turn (waiting for an approval) to the workspace. */
  midTurnSessions?: boolean;
  /** The config file does not load ({@link BROKEN_CONFIG}); the shell then refuses to write it. */
  brokenConfig?: boolean;
  /** config.toml's `[[rules]]` at start (default none). */
  rules?: Rule[];
  /**
   * What the sandbox probe finds (`sandboxInfo`): default bubblewrap 0.8.0; `"none"` is a
   * machine where no sandbox works (every command asks).
   */
  sandbox?: "bubblewrap" | "none";
}

/** The probe's answer on a machine with bubblewrap (crates/sandbox probe.rs wording). */
export const BWRAP_SANDBOX: SandboxInfo = {
  mechanism: "bubblewrap",
  summary: "bubblewrap 0.8.0 (user, PID, mount, network namespaces; process limit by pids cgroup)",
  defaultMode: "workspace-write",
  defaultNetwork: false,
  writableRoots: [],
};

/** The probe's answer where bwrap is missing. */
export const NO_SANDBOX: SandboxInfo = {
  ...BWRAP_SANDBOX,
  mechanism: "none",
  summary: "no sandbox: bwrap not found (install the `bubblewrap` package); every command asks",
};

/** What the shell reports for `default_provider = "local` (an unterminated string) on line 1. */
export const BROKEN_CONFIG: ConfigProblem = {
  path: "/home/dev/.config/tack/config.toml",
  line: 1,
  column: 26,
  summary: "invalid basic string, expected `\"`",
  details: 'TOML parse error at line 1, column 26\n  |\n1 | default_provider = "local\n  |                          ^\ninvalid basic string, expected `"`',
};

export interface InvokeCall {
  cmd: string;
  args: Record<string, unknown>;
}

type Emit = (event: string, payload: unknown) => void;

class ShellError {
  constructor(
    readonly message: string,
    readonly hint: string | null = null,
    readonly field: string | null = null,
  ) {}
}

/** The registry's harnesses in menu order, with their wires (crates/harness). */
const HARNESSES: HarnessInfo[] = [
  { id: "native", wires: ["chat", "responses", "messages"], description: "Tack's own prompt and tools, on any wire" },
  { id: "minimal", wires: ["chat", "responses", "messages"], description: "A short prompt and plain function tools (small and local models)" },
  { id: "claude-code", wires: ["messages", "chat", "responses"], description: "Claude Code's request shape and tools (Messages; also Chat and Responses)" },
  { id: "claude-code-bare", wires: ["messages", "chat", "responses"], description: "Claude Code's request shape without its identity and reminders" },
  { id: "zcode", wires: ["messages"], description: "ZCode's request shape and tools (Messages, GLM models)" },
  { id: "swe-agent", wires: ["chat"], description: "SWE-agent 1.1: bash, str_replace_editor and submit, with submit review" },
  { id: "mini-swe-agent", wires: ["chat"], description: "mini-swe-agent 2.4: one bash tool, every reply must call it" },
  { id: "terminus-2", wires: ["chat"], description: "Terminus-2: JSON keystrokes into a real tmux terminal" },
  { id: "kimi-cli", wires: ["chat"], description: "Kimi CLI 1.52 (Moonshot): Shell/ReadFile/StrReplaceFile tools, kosong message framing" },
  { id: "kimi-code", wires: ["chat"], description: "Kimi Code (Moonshot): Bash/Read/Edit tools, thinking kept, permission reminders" },
  { id: "qwen-code", wires: ["chat"], description: "Qwen Code 0.24 (Alibaba): run_shell_command/read_file/edit tools, startup context in the first message" },
  { id: "opencode", wires: ["chat"], description: "opencode 1.18 (AI SDK): bash/read/edit tools, a title request on the first turn" },
  { id: "deepseek-tui", wires: ["chat"], description: "DeepSeek TUI (CodeWhale): exec_shell/read_file/edit_file tools, <turn_meta> on the latest message" },
];

/**
 * What "auto" picks, in the order of the engine's rules (crates/engine `explain_inference`),
 * shortened to the cases the fixtures use.
 */
export function inferHarness(provider: ProviderView, model: string | null): InferredHarness {
  if (provider.harness) return { harness: provider.harness, reason: "set in the provider's settings" };
  const m = (model || provider.model).toLowerCase();
  const named = `${provider.id} ${provider.name}`.toLowerCase();
  if (provider.wire === "messages") return { harness: "claude-code", reason: "the provider speaks the Anthropic Messages wire" };
  for (const [needle, harness] of [["claude", "claude-code"], ["kimi", "kimi-code"], ["qwen", "qwen-code"], ["deepseek", "claude-code-bare"]] as const) {
    if (m.includes(needle)) return { harness, reason: `the model name contains \`${needle}\`` };
    if (named.includes(needle)) return { harness, reason: `the provider is named \`${needle}\`` };
  }
  return { harness: "native", reason: "no rule matched this provider and model" };
}

function key(set: boolean, last4: string | null, source: KeyState["source"], needed = true): KeyState {
  return { set, last4, source, needed };
}

function initialProviders(): ProviderView[] {
  return [
    { id: "deepseek", name: "DeepSeek", baseUrl: "https://api.deepseek.com/v1", wire: "chat", model: "deepseek-chat", harness: "minimal", envKey: "DEEPSEEK_API_KEY", key: key(true, "a9f2", "keychain"), builtin: true, overridden: false, isDefault: false },
    { id: "anthropic", name: "Anthropic", baseUrl: "https://api.anthropic.com/v1", wire: "messages", model: "claude-sonnet-4-5", harness: "claude-code", envKey: "ANTHROPIC_API_KEY", key: key(false, null, "none"), builtin: true, overridden: false, isDefault: false },
    { id: "openai", name: "OpenAI", baseUrl: "https://api.openai.com/v1", wire: "responses", model: "gpt-5-codex", harness: null, envKey: "OPENAI_API_KEY", key: key(true, "7Qx1", "env"), builtin: true, overridden: false, isDefault: false },
    { id: "llama-local", name: "llama.cpp (local)", baseUrl: "http://127.0.0.1:8080/v1", wire: "chat", model: "qwen2.5-coder-7b", harness: "minimal", envKey: null, key: key(false, null, "none", false), builtin: false, overridden: false, isDefault: false },
    { id: "local", name: "Local model (llama.cpp, embedded)", baseUrl: "http://127.0.0.1:8082/v1", wire: "chat", model: "smollm2-135m", harness: "minimal", envKey: null, key: key(false, null, "none", false), builtin: true, overridden: false, isDefault: false },
    { id: "vllm-local", name: "vLLM (local)", baseUrl: "http://127.0.0.1:8000/v1", wire: "chat", model: "Qwen/Qwen3-Coder-30B-A3B-Instruct", harness: null, envKey: null, key: key(false, null, "none", false), builtin: false, overridden: false, isDefault: false },
  ];
}

const WORKSPACE_FILES = [
  "Cargo.toml",
  "README.md",
  "crates/protocol/src/lib.rs",
  "crates/protocol/src/event.rs",
  "crates/protocol/src/item.rs",
  "crates/wire/src/lib.rs",
  "crates/wire/src/sse.rs",
  "crates/wire/src/retry.rs",
  "crates/engine/src/approval.rs",
  "crates/engine/src/session.rs",
  "crates/harness/src/registry.rs",
  "docs/ipc.md",
  "ui/src/app/App.tsx",
];

interface SessionState {
  summary: SessionSummary;
  settings: SessionSettings;
  /** The base URL of an ad-hoc provider (id `custom`). */
  providerUrl?: string | null;
  items: Item[];
  exchanges: Map<string, Exchange>;
  running: boolean;
  turn: Playback | null;
}

type Waiting =
  | { kind: "approval"; request: ApprovalRequest }
  | { kind: "question"; request: QuestionRequest }
  | { kind: "interrupt" };

/** One recording being replayed. */
class Playback {
  private at = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private waitingFor: Waiting | null = null;
  private decision: ApprovalDecision | null = null;
  private answers: QuestionAnswer[] | null | undefined = undefined;
  private elapsed = 0;
  readonly turnId: string;

  constructor(
    private readonly recording: Recording,
    private readonly input: string,
    private readonly speed: number,
    private readonly emit: (event: EngineEvent) => void,
    private readonly onExchange: (exchange: Exchange) => void,
    private readonly onItem: (item: Item) => void,
    private readonly onEnd: () => void,
  ) {
    const first = recording.events.find((e) => "turn_id" in e.event);
    this.turnId = first && "turn_id" in first.event ? String(first.event.turn_id) : "turn";
  }

  start(): void {
    this.schedule();
  }

  /** Starts paused at a request the user must answer first (a session saved mid-turn). */
  waitFor(waiting: Waiting): void {
    this.waitingFor = waiting;
  }

  /** The requests the turn waits for now. */
  pending(): { approvals: ApprovalRequest[]; questions: QuestionRequest[] } {
    const w = this.waitingFor;
    return { approvals: w?.kind === "approval" ? [w.request] : [], questions: w?.kind === "question" ? [w.request] : [] };
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  decide(approvalId: string, decision: ApprovalDecision): boolean {
    if (this.waitingFor?.kind !== "approval" || this.waitingFor.request.id !== approvalId) return false;
    this.decision = decision;
    this.waitingFor = null;
    this.schedule();
    return true;
  }

  answer(questionId: string, answers: QuestionAnswer[] | null): boolean {
    if (this.waitingFor?.kind !== "question" || this.waitingFor.request.id !== questionId) return false;
    this.answers = answers;
    this.waitingFor = null;
    this.schedule();
    return true;
  }

  interrupt(): void {
    this.stop();
    const abortAt = this.recording.events.findIndex((e, i) => i >= this.at && e.event.type === "turn_aborted");
    this.waitingFor = null;
    if (abortAt >= 0) {
      this.at = abortAt;
    } else {
      this.at = this.recording.events.length;
      this.emit({ type: "turn_aborted", turn_id: this.turnId, reason: "interrupted" });
      this.onEnd();
      return;
    }
    this.elapsed = this.recording.events[abortAt]?.t ?? this.elapsed;
    this.step();
  }

  private schedule(): void {
    // Branches for the other outcome of the turn's questions are skipped.
    const outcome = this.answers === undefined ? null : this.answers === null ? "dismissed" : "answered";
    while (this.recording.events[this.at]?.when && this.recording.events[this.at]?.when !== outcome) this.at++;
    const next = this.recording.events[this.at];
    if (!next) {
      this.onEnd();
      return;
    }
    if (next.event.type === "turn_aborted" && next.event.reason === "interrupted") {
      this.waitingFor = { kind: "interrupt" };
      return;
    }
    const delay = Math.max(0, (next.t - this.elapsed) / this.speed);
    this.timer = setTimeout(() => {
      this.elapsed = next.t;
      this.step();
    }, delay);
  }

  private step(): void {
    const entry = this.recording.events[this.at];
    if (!entry) {
      this.onEnd();
      return;
    }
    this.at++;
    const event = this.personalize(entry.event);
    if (event.type === "exchange_recorded") {
      const full = this.recording.exchanges.find((x) => x.id === event.exchange.id);
      if (full) this.onExchange(this.personalize(full));
    }
    if (event.type === "item_completed") this.onItem(event.item);
    this.emit(event);
    if (event.type === "approval_requested") {
      this.waitingFor = { kind: "approval", request: event.request };
      return;
    }
    if (event.type === "question_asked") {
      this.waitingFor = { kind: "question", request: event.request };
      return;
    }
    if (event.type === "turn_completed" || event.type === "turn_aborted") {
      this.onEnd();
      return;
    }
    this.schedule();
  }

  /** Fills the recording's placeholders with what this user actually did. */
  private personalize<T extends EngineEvent | Exchange>(value: T): T {
    const reason = this.decision?.type === "deny" ? (this.decision.reason ?? "") : "";
    if ("type" in value && value.type === "approval_resolved" && this.decision) {
      return { ...value, decision: this.decision.type === "deny" ? { type: "deny", reason } : this.decision };
    }
    const text = JSON.stringify(value);
    if (!text.includes("{{")) return value;
    const fill = (s: string) => JSON.stringify(s).slice(1, -1);
    return JSON.parse(
      text
        .replaceAll("{{input}}", fill(this.input))
        .replaceAll("{{deny_reason}}", fill(reason || "(no reason given)"))
        .replaceAll("{{answers}}", fill(describeAnswers(this.answers ?? []))),
    ) as T;
  }
}

/** The tool output an answered question gives the model (Claude Code's wording, shortened). */
function describeAnswers(answers: QuestionAnswer[]): string {
  const parts = answers.map((a) => `"${a.question}"="${a.answers.join(", ")}"`);
  return `The user answered: ${parts.join(". ")}.`;
}

export class MockShell {
  readonly calls: InvokeCall[] = [];
  private providers = initialProviders();
  private sessions = new Map<string, SessionState>();
  private sessionSeq = 0;
  private queue: string[];
  private readonly speed: number;
  private readonly keychainAvailable: boolean;
  private configProblem: ConfigProblem | null;
  private readonly defaultProvider: string;
  readonly workspace: string;
  /** What `setLastWorkspace` stored (the shell keeps it in `<TACK_HOME>/workspace.json`). */
  lastWorkspace: string | null;
  /** config.toml's `[[rules]]`: Settings edits them, "Always allow/deny" answers add to them. */
  private rules: Rule[];
  private readonly sandbox: SandboxInfo;

  constructor(
    private readonly recordings: Record<string, Recording>,
    past: PastSession[],
    private readonly emitRaw: Emit,
    config: MockConfig = {},
  ) {
    this.queue = [...(config.turns ?? [])];
    this.rules = [...(config.rules ?? [])];
    this.sandbox = config.sandbox === "none" ? NO_SANDBOX : BWRAP_SANDBOX;
    this.speed = config.speed ?? 1;
    this.keychainAvailable = config.keychainAvailable ?? true;
    this.configProblem = config.brokenConfig ? BROKEN_CONFIG : null;
    // A file that does not load contributes nothing: only the built-ins are offered.
    if (this.configProblem) this.providers = this.providers.filter((p) => p.builtin);
    this.workspace = config.workspace ?? "/home/dev/tack";
    this.lastWorkspace = config.lastWorkspace === undefined ? this.workspace : config.lastWorkspace;
    // Like the shell: without a loaded `default_provider`, the built-in `local` is the default.
    this.defaultProvider = (this.configProblem ? null : config.defaultProvider === undefined ? "deepseek" : config.defaultProvider) ?? "local";
    if (!this.keychainAvailable) {
      // Without a keychain the only source is the environment.
      this.providers = this.providers.map((p) =>
        p.key.source === "keychain" ? { ...p, key: p.envKey ? key(true, p.key.last4, "env") : key(false, null, "none") } : p,
      );
    }
    for (const p of past) {
      if (p.running && !config.midTurnSessions) continue;
      const session: SessionState = {
        summary: { ...p.summary },
        settings: p.settings,
        items: [...p.items],
        exchanges: new Map(p.exchanges.map((x) => [x.id, x])),
        running: false,
        turn: null,
      };
      this.sessions.set(p.summary.id, session);
      const waiting = p.pendingApprovals?.[0] ?? null;
      const question = p.pendingQuestions?.[0] ?? null;
      if (p.running && p.continuation && (waiting || question)) {
        const turn = this.playback(session, p.continuation, "");
        turn.waitFor(waiting ? { kind: "approval", request: waiting } : { kind: "question", request: question as QuestionRequest });
        session.running = true;
        session.turn = turn;
      }
    }
    if (config.largeSession) this.seedLargeSession(config.largeSession);
  }

  /** Adds a session with `count` generated history items (perf harness). */
  seedLargeSession(count: number): string {
    const id = "ses-large";
    const items: Item[] = [];
    for (let i = 0; i < count; i++) {
      const turn = Math.floor(i / 5);
      switch (i % 5) {
        case 0:
          items.push({ type: "message", id: `l-u${i}`, role: "user", content: [{ type: "text", text: `Step ${turn}: check the retry path for provider ${turn % 7} and report what changed.` }] });
          break;
        case 1:
          items.push({ type: "reasoning", id: `l-r${i}`, text: `Look at attempt ${turn}; compare the delay with the cap.` });
          break;
        case 2:
          items.push({ type: "function_call", id: `l-f${i}`, call_id: `l-c${i}`, name: "shell", arguments: JSON.stringify({ command: ["bash", "-lc", `cargo test -p tack-wire retry_${turn} -- --nocapture`] }) });
          break;
        case 3:
          items.push({ type: "tool_output", id: `l-o${i}`, call_id: `l-c${i - 1}`, output: { text: `running 1 test\ntest retry_${turn} ... ok\n\ntest result: ok. 1 passed; 0 failed`, status: "completed", exit_code: 0, duration_ms: 400 + (turn % 9) * 37 } });
          break;
        default:
          items.push({ type: "message", id: `l-a${i}`, role: "assistant", content: [{ type: "text", text: `Attempt **${turn}** passes. The delay is \`${(turn % 5) * 250} ms\`, under the cap.\n\n- backoff doubles\n- \`Retry-After\` wins when longer` }] });
      }
    }
    this.sessions.set(id, {
      summary: { id, title: `Large session (${count} items)`, cwd: this.workspace, createdAt: "2026-11-20T09:00:00Z", updatedAt: "2026-11-29T09:00:00Z", itemCount: count },
      settings: { cwd: this.workspace, provider: "deepseek", model: "deepseek-chat", wire: "chat", harness: "minimal", approval: "on-request" },
      items,
      exchanges: new Map(),
      running: false,
      turn: null,
    });
    return id;
  }

  /**
   * Streams `tokensPerSecond` text deltas for `seconds` into a session as one turn (perf
   * harness). Resolves when the turn completed.
   */
  streamTokens(sessionId: string, tokensPerSecond: number, seconds: number): Promise<void> {
    const turnId = `turn-perf-${Date.now()}`;
    const emit = (event: EngineEvent) => this.emitRaw("engine-event-envelope", { sessionId, event });
    emit({ type: "turn_started", turn_id: turnId });
    const words = ["The ", "retry ", "policy ", "caps ", "the ", "delay; ", "`Retry-After` ", "wins ", "when ", "longer. ", "Each ", "attempt ", "is ", "recorded.\n\n"];
    const total = tokensPerSecond * seconds;
    const start = performance.now();
    let sent = 0;
    return new Promise((resolve) => {
      const tick = () => {
        const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * tokensPerSecond));
        while (sent < due) {
          emit({ type: "text_delta", turn_id: turnId, text: words[sent % words.length] ?? " " });
          sent++;
        }
        if (sent >= total) {
          emit({ type: "turn_completed", turn_id: turnId, usage: { input_tokens: 1000, output_tokens: total, cached_input_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 } });
          resolve();
          return;
        }
        setTimeout(tick, 5);
      };
      tick();
    });
  }

  invoke(cmd: string, args: Record<string, unknown> = {}): unknown {
    this.calls.push({ cmd, args: structuredClone(args) });
    switch (cmd) {
      case "app_info":
        return {
          version: "0.1.0",
          configPath: "/home/dev/.config/tack/config.toml",
          dataDir: "/home/dev/.local/share/tack",
          keychain: this.keychainAvailable
            ? { available: true, message: null }
            : { available: false, message: "Secret Service: no result found" },
          configProblem: this.configProblem,
          configWarnings: [],
        };
      case "list_providers":
        return this.providers.map((p) => this.providerView(p));
      case "add_provider":
        return this.providerView(this.addProvider(args.input as ProviderInput));
      case "save_provider":
        return this.providerView(this.saveProvider(args.input as ProviderInput));
      case "delete_provider":
        return this.deleteProvider(String(args.id));
      case "set_provider_key":
        return this.setKey(String(args.id), String(args.key));
      case "clear_provider_key":
        return this.setKeyState(String(args.id), key(false, null, "none"));
      case "list_harnesses":
        return HARNESSES;
      case "infer_harness": {
        const provider = this.providers.find((p) => p.id === args.providerId);
        if (!provider) throw new ShellError(`unknown provider \`${String(args.providerId)}\``);
        return inferHarness(provider, (args.model as string | null) ?? null);
      }
      case "pick_workspace":
        return this.workspace;
      case "last_workspace":
        return this.lastWorkspace;
      case "set_last_workspace":
        this.lastWorkspace = (args.cwd as string | null) ?? null;
        return null;
      case "workspace_files":
        return WORKSPACE_FILES;
      case "start_session":
        return this.startSession(args.input as StartSessionInput);
      case "resume_session":
        return this.view(this.session(String(args.sessionId)));
      case "send_input":
        return this.sendInput(String(args.sessionId), String(args.text));
      case "interrupt":
        this.session(String(args.sessionId)).turn?.interrupt();
        return null;
      case "decide_approval": {
        const session = this.session(String(args.sessionId));
        const decision = args.decision as ApprovalDecision;
        if (!session.turn?.decide(String(args.approvalId), decision)) {
          throw new ShellError("No such pending approval.", "It may have been answered already.");
        }
        // The engine saves the rule of an "Always …" answer in config.toml.
        if (decision.type === "always_allow" || decision.type === "always_deny") this.saveRule(decision.rule);
        return null;
      }
      case "answer_question": {
        const session = this.session(String(args.sessionId));
        if (!session.turn?.answer(String(args.questionId), (args.answers as QuestionAnswer[] | null) ?? null)) {
          throw new ShellError("No such pending question.", "It may have been answered already.");
        }
        return null;
      }
      case "list_sessions":
        return [...this.sessions.values()]
          .map((s) => s.summary)
          .filter((s) => args.cwd === null || s.cwd === args.cwd)
          .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
      case "rename_session":
        this.session(String(args.sessionId)).summary.title = String(args.title);
        return null;
      case "delete_session":
        this.sessions.delete(String(args.sessionId));
        return null;
      case "export_session":
        return `/home/dev/Documents/${String(args.sessionId)}.${args.format === "markdown" ? "md" : "jsonl"}`;
      case "list_exchanges":
        return [...this.session(String(args.sessionId)).exchanges.values()].map(summarize);
      case "get_exchange": {
        const exchange = this.session(String(args.sessionId)).exchanges.get(String(args.exchangeId));
        if (!exchange) throw new ShellError("No such exchange.");
        return exchange;
      }
      case "sandbox_info":
        return this.sandbox;
      case "list_rules":
        return this.rules;
      case "add_rule":
        return this.addRule(args.input as RuleInput);
      case "delete_rule":
        return this.deleteRule(args.rule as Rule);
      case "exchange_curl": {
        const exchange = this.session(String(args.sessionId)).exchanges.get(String(args.exchangeId));
        if (!exchange) throw new ShellError("No such exchange.");
        return curlOf(exchange);
      }
      default:
        throw new ShellError(`unknown command ${cmd}`);
    }
  }

  /** Like the engine: an exact duplicate is not added again. */
  private saveRule(rule: Rule): void {
    const same = (r: Rule) => JSON.stringify([r.decision, r.command, r.workspace ?? null]) === JSON.stringify([rule.decision, rule.command, rule.workspace ?? null]);
    if (!this.rules.some(same)) this.rules = [...this.rules, { ...rule, workspace: rule.workspace ?? null }];
  }

  private addRule(input: RuleInput): Rule[] {
    if (this.configProblem) throw new ShellError(`Not saved: ${this.configProblem.path} has an error`, null);
    const words = splitWords(input.command.trim());
    if (words === null) throw new ShellError(`the command \`${input.command}\` does not split into words: missing closing quote`, null, "command");
    if (words.length === 0) throw new ShellError("a rule needs a command (at least one word)", null, "command");
    const workspace = input.workspace?.trim() || null;
    if (workspace !== null && !workspace.startsWith("/")) {
      throw new ShellError(`a rule's workspace must be an absolute path, not \`${workspace}\``, null, "workspace");
    }
    this.saveRule({ decision: input.decision, command: words, workspace });
    return this.rules;
  }

  private deleteRule(rule: Rule): Rule[] {
    const key = (r: Rule) => JSON.stringify([r.decision, r.command, r.workspace ?? null]);
    const left = this.rules.filter((r) => key(r) !== key(rule));
    if (left.length === this.rules.length) throw new ShellError("the config file has no such rule", "It may have been removed from the file already.");
    this.rules = left;
    return this.rules;
  }

  private session(id: string): SessionState {
    const session = this.sessions.get(id);
    if (!session) throw new ShellError(`No session ${id}.`, "It may have been deleted.");
    return session;
  }

  private view(session: SessionState): SessionView {
    return {
      id: session.summary.id,
      title: session.summary.title,
      settings: session.settings,
      providerUrl: session.providerUrl ?? null,
      items: session.items,
      exchanges: [...session.exchanges.values()].map(summarize),
      running: session.running,
      pendingApprovals: session.turn?.pending().approvals ?? [],
      pendingQuestions: session.turn?.pending().questions ?? [],
      readOnly: null,
    };
  }

  /** The file is fixed (or moved away): the shell reads it again on the next `appInfo`. */
  fixConfig(): void {
    this.configProblem = null;
    this.providers = initialProviders();
  }

  /** Like the shell: a config file that does not load is never written. */
  private refuseBrokenConfig(): void {
    const problem = this.configProblem;
    if (!problem) return;
    throw new ShellError(
      `Not saved: ${problem.path} has an error at line ${problem.line}, column ${problem.column} (${problem.summary}), and Tack does not overwrite a config file it cannot read.`,
      `Fix the file in an editor, or move it away (e.g. to ${problem.path}.broken) to start from the built-in settings, then save again.`,
    );
  }

  /** A provider as `listProviders` shows it: marked when it is the default one. */
  private providerView(provider: ProviderView): ProviderView {
    return { ...provider, isDefault: provider.id === this.defaultProvider };
  }

  /** A provider written into config.toml by hand: the shell sees it when it next reads the file. */
  addProviderByHand(provider: ProviderInput): void {
    this.providers = [...this.providers, { ...provider, key: key(false, null, "none"), builtin: false, overridden: false, isDefault: false }];
  }

  /** Like the shell: adding never replaces a provider (built in or in the file). */
  private addProvider(input: ProviderInput): ProviderView {
    this.refuseBrokenConfig();
    if (this.providers.some((p) => p.id === input.id) || initialProviders().some((p) => p.id === input.id)) {
      throw new ShellError(`a provider with id \`${input.id}\` already exists — edit it, or choose another id`, null, "id");
    }
    return this.saveProvider(input, true);
  }

  private saveProvider(input: ProviderInput, adding = false): ProviderView {
    this.refuseBrokenConfig();
    if (!input.id || !input.baseUrl) throw new ShellError("A provider needs an id and a base URL.");
    const existing = this.providers.find((p) => p.id === input.id);
    if (!existing && !adding) throw new ShellError(`Not saved: the config file has no provider \`${input.id}\` any more`);
    const builtin = initialProviders().find((p) => p.id === input.id && p.builtin);
    // A built-in saved as it is stays a plain built-in; changed, it is an override of it.
    const overridden =
      builtin !== undefined &&
      (Object.keys(input) as Array<keyof ProviderInput>).some((k) => (input[k] ?? null) !== (builtin[k] ?? null));
    const saved: ProviderView = { ...input, key: existing?.key ?? key(false, null, "none"), builtin: builtin !== undefined, overridden, isDefault: false };
    this.providers = existing ? this.providers.map((p) => (p.id === input.id ? saved : p)) : [...this.providers, saved];
    return saved;
  }

  private deleteProvider(id: string): null {
    this.refuseBrokenConfig();
    const provider = this.providers.find((p) => p.id === id);
    if (provider?.builtin) {
      if (!provider.overridden) throw new ShellError(`\`${id}\` is a built-in provider and cannot be deleted`, "Edit it instead, or leave it unused.");
      const original = initialProviders().find((p) => p.id === id);
      this.providers = this.providers.map((p) => (p.id === id && original ? { ...original, key: p.key } : p));
      return null;
    }
    this.providers = this.providers.filter((p) => p.id !== id);
    return null;
  }

  private setKey(id: string, secret: string): KeyState {
    if (!this.keychainAvailable) throw new ShellError("The system keychain is not available.", "Use the provider's environment variable.");
    // Like the real shell: only the last four characters ever come back.
    return this.setKeyState(id, key(true, secret.slice(-4), "keychain"));
  }

  private setKeyState(id: string, state: KeyState): KeyState {
    this.providers = this.providers.map((p) => (p.id === id ? { ...p, key: state } : p));
    return state;
  }

  private startSession(input: StartSessionInput): SessionView {
    const provider = this.providers.find((p) => p.id === input.providerId);
    if (!provider) throw new ShellError(`Unknown provider ${input.providerId}.`);
    this.sessionSeq++;
    const id = `ses-new-${this.sessionSeq}`;
    const now = new Date().toISOString();
    const settings: SessionSettings = {
      cwd: input.cwd,
      provider: provider.id,
      model: input.model ?? provider.model,
      wire: provider.wire,
      harness: input.harness ?? inferHarness(provider, input.model).harness,
      approval: input.approval,
      // Like the engine's sandbox_status: the probe's mechanism, the chosen mode and network.
      sandbox: {
        mechanism: this.sandbox.mechanism,
        mode: input.sandbox ?? this.sandbox.defaultMode,
        network: input.network ?? this.sandbox.defaultNetwork,
        summary: input.sandbox === "danger-full-access" ? "danger-full-access: commands run without a sandbox" : this.sandbox.summary,
      },
    };
    const session: SessionState = {
      summary: { id, title: "New session", cwd: input.cwd, createdAt: now, updatedAt: now, itemCount: 0 },
      settings,
      items: [],
      exchanges: new Map(),
      running: false,
      turn: null,
    };
    this.sessions.set(id, session);
    setTimeout(() => this.emitEngine(id, { type: "session_configured", session_id: id, settings }), 0);
    return this.view(session);
  }

  private sendInput(sessionId: string, text: string): null {
    const session = this.session(sessionId);
    if (session.turn) {
      const turnId = session.turn.turnId;
      setTimeout(() => this.emitEngine(sessionId, { type: "input_queued", turn_id: turnId, text }), 10);
      return null;
    }
    const name = this.queue.shift() ?? pickRecording(text);
    if (session.summary.title === "New session") session.summary.title = text.slice(0, 60);
    const playback = this.playback(session, name, text);
    session.running = true;
    session.turn = playback;
    setTimeout(() => playback.start(), 0);
    return null;
  }

  /** A replay of recording `name` into `session`, for the user's `input`. */
  private playback(session: SessionState, name: string, input: string): Playback {
    const recording = this.recordings[name];
    if (!recording) throw new ShellError(`No recording named ${name}.`);
    const sessionId = session.summary.id;
    return new Playback(
      recording,
      input,
      this.speed,
      (event) => this.emitEngine(sessionId, event),
      (exchange) => session.exchanges.set(exchange.id, exchange),
      (item) => {
        session.items.push(item);
        session.summary.itemCount = session.items.length;
      },
      () => {
        session.running = false;
        session.turn = null;
        session.summary.updatedAt = new Date().toISOString();
      },
    );
  }

  emitEngine(sessionId: string, event: EngineEvent): void {
    this.emitRaw("engine-event-envelope", { sessionId, event });
  }

  emitWorkspaceChange(paths: string[]): void {
    this.emitRaw("workspace-changed", { cwd: this.workspace, paths });
  }
}

/** Splits a command as a shell would (quotes, no expansions); null for an unclosed quote. */
function splitWords(text: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = null;
      else word = (word ?? "") + c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word = word ?? "";
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (quote) return null;
  if (word !== null) words.push(word);
  return words;
}

/** The recording `npm run dev` plays for a message, by keyword. */
export function pickRecording(text: string): string {
  const t = text.toLowerCase();
  if (/\b(ask|question|which)\b/.test(t)) return "question";
  if (/\b(todo|todos|steps)\b/.test(t)) return "todos";
  if (/\b(swe|text protocol|thought)\b/.test(t)) return "text-protocol";
  if (/\b(deny|delete|clean|rm)\b/.test(t)) return "shell-deny";
  if (/\b(edit|change|fix|patch)\b/.test(t)) return "file-edit";
  if (/\b(error|fail|401|auth)\b/.test(t)) return "error-turn";
  if (/\b(plan|long|stop)\b/.test(t)) return "interrupted";
  if (/\b(run|test|cargo|build)\b/.test(t)) return "shell-approve";
  return "text-stream";
}

function summarize(exchange: Exchange): ExchangeSummary {
  const { request_headers: _h, request_body: _b, response_headers: _rh, response_chunks: _c, events: _e, error: _x, ...summary } = exchange;
  return summary;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** What the shell's exchangeCurl returns: credentials replaced by the $TACK_API_KEY placeholder. */
function curlOf(exchange: Exchange): string {
  const lines = [`curl -N -X ${exchange.method} ${shellQuote(exchange.url)}`];
  for (const header of exchange.request_headers) {
    const value = header.value === "[REDACTED]" ? (header.name.toLowerCase() === "authorization" ? "Bearer $TACK_API_KEY" : "$TACK_API_KEY") : header.value;
    const quoted = value.includes("$TACK_API_KEY") ? `"${header.name}: ${value}"` : shellQuote(`${header.name}: ${value}`);
    lines.push(`  -H ${quoted}`);
  }
  lines.push(`  --data-raw ${shellQuote(exchange.request_body)}`);
  return lines.join(" \\\n");
}
