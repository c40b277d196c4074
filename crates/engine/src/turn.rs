//! The turn loop.
//!
//! One turn: freeze the step context → shape (harness) → render (wire) → send and decode the
//! stream (events go to the UI as they arrive; complete items are persisted) → for each tool
//! call: bind (harness) → prepare (tool) → approval gate → run → persist the output → sample
//! again while the model asked for tools or the user queued input → `TurnCompleted`.
//!
//! Consistency rules: a tool call is recorded only once its arguments are complete (the
//! decoders guarantee this); a call that never ran (interrupt, failed stream, aborted turn,
//! crash) gets an `aborted` output before the turn ends; input queued while the turn runs is
//! recorded at the start of the next step, or when the turn ends, so nothing typed is lost.

use std::sync::Arc;
use std::time::Instant;

use tack_harness::recovery::{self, leaks_text_calls};
use tack_harness::{ShapeEnv, Shaped};
use tack_protocol::{
    AbortReason, ApprovalDecision, ApprovalRequest, EngineEvent, ErrorKind, Item, ModelError,
    Prompt, ReasoningOrigin, StepContext, StreamEvent, ToolOutput, ToolOutputItem, Usage,
};
use tack_wire::client::{Auth, AuthScheme, ExchangeMeta, ExchangeSink, Sampling, SecretString};
use tack_wire::{Endpoint, render};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::approval::{AskRequest, Decision, Gate};
use crate::context::{self, Environment};
use crate::log::{CutOff, LogRecord, ProgressStream, ProgressWriter};
use crate::policy_check::{PreparedToolCall, prepare_call};
use crate::session::{Session, lock, now};
use crate::tools::{OutputSink, ToolAction, ToolContext};

/// Default most sampling requests in one turn ([`crate::session::SessionOptions::max_steps`]);
/// a model stuck in a loop of tool calls is stopped there with `step_limit`.
pub const MAX_STEPS: u32 = 200;

/// How many times one turn lets the model make the same tool call (same tool, same arguments
/// as parsed JSON) that is denied each time, or that fails with the same output each time:
/// the last of them stops the turn with `repeated_tool_call`, and the one before it tells the
/// model so in the call's output. A small model whose call is denied without a user to ask
/// (a headless run) otherwise repeats it until the step limit.
pub const MAX_REPEATED_CALLS: u32 = 3;

/// Bytes of tool output returned to the model (head and tail kept).
pub const MAX_TOOL_OUTPUT_BYTES: usize = 30 * 1024;

/// Default command time limit.
pub const DEFAULT_TOOL_TIMEOUT_MS: u64 = 120_000;

/// Most consecutive samplings answered only by an injected message (a text-protocol harness's
/// format correction, say) before the turn fails instead of sampling again.
pub const MAX_CORRECTIONS: u32 = 3;

/// What one sampling request produced that the loop acts on.
struct Sampled {
    /// Recorded tool calls, in model order.
    calls: Vec<Item>,
    /// A postprocess injected a user message (correction, confirmation): sample again.
    injected: bool,
}

enum Outcome {
    Completed,
    Interrupted,
    ApprovalAborted,
    Failed(ModelError),
}

/// Runs a turn to its end and reports it. Never panics; every exit path closes the turn.
pub(crate) async fn run(session: Session, turn_id: String, cancel: CancellationToken) {
    let span = tracing::info_span!("turn", session = %session.id(), turn = %turn_id);
    async {
        let mut usage = Usage::default();
        let outcome = steps(&session, &turn_id, &cancel, &mut usage).await;
        let mut failure = None;
        let (status, event) = match outcome {
            Outcome::Completed => (
                "completed",
                EngineEvent::TurnCompleted {
                    turn_id: turn_id.clone(),
                    usage,
                },
            ),
            Outcome::Interrupted => (
                "interrupted",
                EngineEvent::TurnAborted {
                    turn_id: turn_id.clone(),
                    reason: AbortReason::Interrupted,
                },
            ),
            Outcome::ApprovalAborted => (
                "aborted",
                EngineEvent::TurnAborted {
                    turn_id: turn_id.clone(),
                    reason: AbortReason::ApprovalAborted,
                },
            ),
            Outcome::Failed(error) => {
                tracing::warn!(kind = %error.kind, message = %error.message, "turn failed");
                failure = Some(error.clone());
                session.emit(EngineEvent::Error {
                    turn_id: Some(turn_id.clone()),
                    error,
                });
                (
                    "failed",
                    EngineEvent::TurnAborted {
                        turn_id: turn_id.clone(),
                        reason: AbortReason::Failed,
                    },
                )
            }
        };
        let closing = close_turn(&session, &turn_id, status, usage, failure);
        if let Err(e) = closing {
            session.emit(EngineEvent::Error {
                turn_id: Some(turn_id.clone()),
                error: ModelError::new(
                    ErrorKind::Config,
                    format!("could not write the session log: {e}"),
                ),
            });
        }
        session.finish_turn();
        session.emit(event);
    }
    .instrument(span)
    .await;
}

fn close_turn(
    session: &Session,
    turn_id: &str,
    status: &str,
    usage: Usage,
    error: Option<ModelError>,
) -> Result<(), crate::session::EngineError> {
    session.close_unanswered_calls(Some(turn_id))?;
    for text in session.take_queued() {
        let item = session.new_user_item(text);
        session.record(Some(turn_id), item)?;
    }
    session.append_record(&LogRecord::TurnEnded {
        ts: now(),
        turn_id: turn_id.to_string(),
        status: status.to_string(),
        usage,
        error,
    })
}

async fn steps(
    session: &Session,
    turn_id: &str,
    cancel: &CancellationToken,
    usage: &mut Usage,
) -> Outcome {
    let cwd = session.inner.opts.cwd.clone();
    let env = match tokio::task::spawn_blocking(move || context::capture(&cwd)).await {
        Ok(env) => env,
        Err(e) => {
            tracing::warn!(error = %e, "environment capture failed");
            Environment::default()
        }
    };
    let mut corrections = 0;
    let mut repeats = CallRepeats::default();
    let max_steps = session.inner.opts.max_steps.max(1);
    for step in 0..max_steps {
        if cancel.is_cancelled() {
            return Outcome::Interrupted;
        }
        for text in session.take_queued() {
            let item = session.new_user_item(text);
            if let Err(e) = session.record(Some(turn_id), item) {
                return Outcome::Failed(log_error(e));
            }
        }
        let prompt = build_prompt(session, &env, turn_id, step);
        let engine = &session.inner.engine;
        let shape_env = ShapeEnv {
            prompts: &engine.prompts,
            emulate_identity: session.inner.opts.provider.emulate_identity,
        };
        let route = &session.inner.route;
        let shaped = match route.harness.shape(&prompt, route.wire, &shape_env) {
            Ok(s) => s,
            Err(e) => {
                return Outcome::Failed(
                    ModelError::new(ErrorKind::Config, e.to_string())
                        .with_hint("Fix or remove the prompt override named in the message."),
                );
            }
        };
        let mut shaped = shaped;
        if let Some(t) = session.inner.opts.provider.temperature {
            shaped.request.params.temperature = Some(t);
        }
        let provider = &session.inner.opts.provider;
        let recover = provider
            .recover_text_calls
            .unwrap_or_else(|| leaks_text_calls(&prompt.context.provider, &prompt.context.model));
        if recover {
            recovery::enable(&mut shaped);
        }
        let advertised: Vec<String> = shaped
            .request
            .tools
            .iter()
            .map(|t| t.name.clone())
            .collect();
        let Sampled { calls, injected } =
            match sample(session, turn_id, shaped, cancel, usage).await {
                Ok(s) => s,
                Err(outcome) => return outcome,
            };
        if calls.is_empty() && injected {
            corrections += 1;
            if corrections > MAX_CORRECTIONS {
                return Outcome::Failed(
                    ModelError::new(
                        ErrorKind::FormatError,
                        format!(
                            "the model's reply still had no usable action after {MAX_CORRECTIONS} corrections"
                        ),
                    )
                    .with_hint("Try a stronger model, or a harness with native tool calls."),
                );
            }
            continue;
        }
        corrections = 0;
        if calls.is_empty() && !session.has_queued() {
            return Outcome::Completed;
        }
        for call in calls {
            match execute(session, turn_id, &call, &advertised, cancel, &mut repeats).await {
                Ok(()) => {}
                Err(outcome) => return outcome,
            }
        }
    }
    Outcome::Failed(
        ModelError::new(
            ErrorKind::StepLimit,
            format!(
                "the turn stopped after {max_steps} model requests, the step limit, while the model was still calling tools"
            ),
        )
        .with_hint(
            "Send a new message to continue, or raise the limit (`tack exec --max-steps N`).",
        ),
    )
}

/// What the turn remembers about a tool call that came back denied or failed, keyed by the
/// call as the model wrote it.
#[derive(Default)]
struct CallRepeats {
    seen: Vec<Repeat>,
}

struct Repeat {
    /// Tool name as the model wrote it.
    name: String,
    /// Arguments as parsed JSON (a string when they were not JSON); objects compare without
    /// regard to key order.
    arguments: serde_json::Value,
    /// `None`: denied; `Some`: failed with this status, exit code and text.
    failure: Option<(tack_protocol::ToolStatus, Option<i32>, String)>,
    /// Times in this turn it ended this same way since it last ended another way.
    count: u32,
}

impl CallRepeats {
    /// Notes how `call` ended; returns how many times in this turn it has now ended this same
    /// way (denied, or failed with identical output), or 0 when it ran fine.
    fn observe(&mut self, call: &Item, output: &ToolOutput) -> u32 {
        let Some((name, arguments)) = call_key(call) else {
            return 0;
        };
        let slot = self
            .seen
            .iter()
            .position(|r| r.name == name && r.arguments == arguments);
        let failure = match output.status {
            tack_protocol::ToolStatus::Denied => None,
            tack_protocol::ToolStatus::Failed | tack_protocol::ToolStatus::TimedOut => {
                Some((output.status, output.exit_code, output.text.clone()))
            }
            tack_protocol::ToolStatus::Completed | tack_protocol::ToolStatus::Aborted => {
                if let Some(i) = slot {
                    self.seen.swap_remove(i);
                }
                return 0;
            }
        };
        match slot.map(|i| &mut self.seen[i]) {
            Some(r) if r.failure == failure => {
                r.count += 1;
                r.count
            }
            Some(r) => {
                r.failure = failure;
                r.count = 1;
                1
            }
            None => {
                self.seen.push(Repeat {
                    name,
                    arguments,
                    failure,
                    count: 1,
                });
                1
            }
        }
    }
}

/// A tool call's name and arguments as compared for repetition.
fn call_key(call: &Item) -> Option<(String, serde_json::Value)> {
    let parsed = |text: &str| {
        serde_json::from_str(text).unwrap_or_else(|_| serde_json::Value::String(text.to_string()))
    };
    match call {
        Item::FunctionCall(c) => Some((c.name.clone(), parsed(&c.arguments))),
        Item::CustomToolCall(c) => {
            Some((c.name.clone(), serde_json::Value::String(c.input.clone())))
        }
        Item::LocalShellCall(c) => Some((
            "local_shell".to_string(),
            serde_json::json!({"command": c.command, "workdir": c.workdir, "timeout_ms": c.timeout_ms}),
        )),
        _ => None,
    }
}

/// The call as the error message shows it: name and compact arguments, cut to a line.
fn call_label(call: &Item) -> String {
    const MAX_CHARS: usize = 200;
    let (name, arguments) = match call {
        Item::FunctionCall(c) => {
            let compact = serde_json::from_str::<serde_json::Value>(&c.arguments)
                .map(|v| v.to_string())
                .unwrap_or_else(|_| c.arguments.clone());
            (c.name.clone(), compact)
        }
        Item::CustomToolCall(c) => (c.name.clone(), c.input.clone()),
        Item::LocalShellCall(c) => ("local_shell".to_string(), c.command.join(" ")),
        _ => return String::new(),
    };
    let mut label = format!("{name} {}", arguments.replace('\n', " "));
    if label.chars().count() > MAX_CHARS {
        label = label.chars().take(MAX_CHARS).collect::<String>() + "…";
    }
    label
}

/// The note added to the output of the next-to-last allowed repetition, so the model can
/// still change course before the turn stops.
fn repeat_note(denied: bool, count: u32) -> String {
    if denied {
        format!(
            "\n\n[Tack: this exact call has now been denied {count} times in this turn. It will not run as is; making it again stops the turn. Do something else, or answer the user.]"
        )
    } else {
        format!(
            "\n\n[Tack: this exact call has now failed the same way {count} times in this turn; making it again stops the turn. Change the call, or answer the user.]"
        )
    }
}

/// The error that stops a turn on the last allowed repetition.
fn repeated_call_error(call: &Item, denied: bool, count: u32) -> ModelError {
    let label = call_label(call);
    if denied {
        ModelError::new(
            ErrorKind::RepeatedToolCall,
            format!("the model repeated the denied call `{label}` {count} times; the turn stopped"),
        )
        .with_hint("Approve it, change the approval policy, or rephrase the request.")
    } else {
        ModelError::new(
            ErrorKind::RepeatedToolCall,
            format!(
                "the model repeated the call `{label}` {count} times and it failed the same way each time; the turn stopped"
            ),
        )
        .with_hint("Rephrase the request, or try a stronger model.")
    }
}

fn log_error(e: crate::session::EngineError) -> ModelError {
    ModelError::new(
        ErrorKind::Config,
        format!("could not write the session log: {e}"),
    )
    .with_hint("Check free disk space and permissions of the data folder.")
}

fn build_prompt(session: &Session, env: &Environment, turn_id: &str, step: u32) -> Prompt {
    let opts = &session.inner.opts;
    let engine = &session.inner.engine;
    Prompt {
        examples: opts.examples.clone(),
        history: session.history(),
        tools: engine
            .tools
            .iter()
            .filter(|t| t.advertised())
            .filter(|t| {
                opts.provider
                    .tools
                    .as_ref()
                    .is_none_or(|allowed| allowed.iter().any(|a| a == t.name()))
            })
            .map(|t| t.spec())
            .collect(),
        instructions: opts.instructions.clone(),
        context: StepContext {
            session_id: session.id().to_string(),
            turn_id: turn_id.to_string(),
            step,
            cwd: opts.cwd.display().to_string(),
            now: chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
            os: context::os_name().to_string(),
            os_version: env.os_version.clone(),
            shell: env.shell.clone(),
            git: env.git.clone(),
            project_docs: env.project_docs.clone(),
            listing: env.listing.clone(),
            model: opts.model.clone(),
            provider: opts.provider.info(),
            approval: opts.approval,
        },
    }
}

/// Sends one sampling request (after any extra requests) and consumes its stream.
async fn sample(
    session: &Session,
    turn_id: &str,
    shaped: Shaped,
    cancel: &CancellationToken,
    usage: &mut Usage,
) -> Result<Sampled, Outcome> {
    let Shaped {
        request,
        tool_kinds,
        extra_requests,
        mut postprocess,
        prompt_source,
    } = shaped;
    let opts = &session.inner.opts;
    let route = &session.inner.route;
    let wire = route.wire;
    let endpoint = Endpoint::new(opts.provider.base_url.clone());
    // Anthropic Messages takes the key in `x-api-key`; every OpenAI-style server in `Bearer`.
    let auth = opts.api_key.as_ref().map(|k| Auth {
        scheme: if wire == tack_protocol::Wire::Messages {
            AuthScheme::XApiKey
        } else {
            AuthScheme::Bearer
        },
        key: SecretString::new(k.expose()),
    });
    let client = &session.inner.engine.client;
    let origin = ReasoningOrigin {
        wire,
        provider: Some(opts.provider.id.clone()),
        model: Some(opts.model.clone()),
    };
    let sink: ExchangeSink = {
        let s = session.clone();
        Arc::new(move |exchange| s.record_exchange(exchange))
    };
    let meta = |purpose: &str| ExchangeMeta {
        id: session.new_id("ex"),
        turn_id: turn_id.to_string(),
        purpose: purpose.to_string(),
        harness: route.harness.id().to_string(),
        route: route.name(),
        prompt_source: Some(prompt_source.clone()),
        provider: opts.provider.id.clone(),
        model: opts.model.clone(),
    };
    let no_kinds = tack_wire::ToolKinds::default();

    for extra in extra_requests {
        let rendered = match render(&extra.request, wire, &endpoint) {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(purpose = %extra.purpose, error = %e, "extra request not rendered");
                continue;
            }
        };
        let extra_meta = meta(&extra.purpose);
        let opened = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(Outcome::Interrupted),
            r = client.open(
                Sampling {
                    request: &rendered,
                    auth: auth.as_ref(),
                    wire,
                    tool_kinds: &no_kinds,
                    origin: &origin,
                    meta: &extra_meta,
                },
                sink.clone(),
                cancel.clone(),
            ) => r,
        };
        // An extra request's reply is read to the end and discarded; its failure does not
        // fail the turn (the real CLIs behave the same), but it is recorded as an exchange.
        if let Ok(mut stream) = opened {
            loop {
                tokio::select! {
                    biased;
                    () = cancel.cancelled() => return Err(Outcome::Interrupted),
                    ev = stream.next() => if ev.is_none() { break },
                }
            }
        }
    }

    let rendered = render(&request, wire, &endpoint)
        .map_err(|e| Outcome::Failed(ModelError::new(ErrorKind::Config, e.to_string())))?;
    let span = tracing::info_span!("sampling_request", route = %route.name(), model = %opts.model);
    let main_meta = meta("main");
    let opened = tokio::select! {
        biased;
        () = cancel.cancelled() => return Err(Outcome::Interrupted),
        r = client.open(
            Sampling {
                request: &rendered,
                auth: auth.as_ref(),
                wire,
                tool_kinds: &tool_kinds,
                origin: &origin,
                meta: &main_meta,
            },
            sink.clone(),
            cancel.clone(),
        ).instrument(span.clone()) => r,
    };
    let mut stream = opened.map_err(|e| Outcome::Failed(with_hint(e)))?;

    let mut sampled = Sampled {
        calls: Vec::new(),
        injected: false,
    };
    let mut completed = false;
    let mut buffer = Vec::new();
    // Streamed text reaches the log as it arrives, so an interrupt, a failed stream or a
    // crash keeps what the model said so far.
    let mut progress = ProgressWriter::new(turn_id);
    loop {
        let due = progress.due();
        let next = tokio::select! {
            biased;
            () = cancel.cancelled() => {
                return Err(cut_off(session, turn_id, &mut progress, Outcome::Interrupted));
            }
            // Text that waited its interval is written even while the stream stalls.
            () = tokio::time::sleep_until(due.map_or_else(tokio::time::Instant::now, Into::into)), if due.is_some() => {
                write_progress(session, progress.records())
                    .map_err(|e| Outcome::Failed(log_error(e)))?;
                continue;
            }
            // A front end that fell behind holds the stream here (the provider's TCP window
            // then fills) instead of the event queue growing.
            ev = async {
                session.event_room().await;
                stream.next().await
            }.instrument(span.clone()) => ev,
        };
        let event = match next {
            None => break,
            Some(Err(e)) => {
                return Err(cut_off(
                    session,
                    turn_id,
                    &mut progress,
                    Outcome::Failed(with_hint(e)),
                ));
            }
            Some(Ok(event)) => event,
        };
        match postprocess.as_mut() {
            Some(p) => p.event(event, &mut buffer),
            None => buffer.push(event),
        }
        for event in buffer.drain(..) {
            handle_event(
                session,
                turn_id,
                &origin,
                event,
                &mut sampled,
                &mut completed,
                usage,
                &mut progress,
            )
            .map_err(|e| Outcome::Failed(log_error(e)))?;
        }
    }
    if let Some(p) = postprocess.as_mut() {
        p.finish(&mut buffer);
        for event in buffer.drain(..) {
            handle_event(
                session,
                turn_id,
                &origin,
                event,
                &mut sampled,
                &mut completed,
                usage,
                &mut progress,
            )
            .map_err(|e| Outcome::Failed(log_error(e)))?;
        }
    }
    if !completed {
        let failed = Outcome::Failed(ModelError::new(
            ErrorKind::StreamTruncated,
            "the response ended without a completion event",
        ));
        return Err(cut_off(session, turn_id, &mut progress, failed));
    }
    Ok(sampled)
}

/// Appends coalesced progress records.
fn write_progress(
    session: &Session,
    records: Vec<LogRecord>,
) -> Result<(), crate::session::EngineError> {
    for record in records {
        session.append_record(&record)?;
    }
    Ok(())
}

/// A response ends before its items completed: what it streamed is recorded as a cut-off
/// answer (text plus a note saying so), so the history and the model's next request show an
/// incomplete answer rather than none, or one that passes for complete.
fn cut_off(
    session: &Session,
    turn_id: &str,
    progress: &mut ProgressWriter,
    outcome: Outcome,
) -> Outcome {
    let why = match outcome {
        Outcome::Interrupted | Outcome::ApprovalAborted => CutOff::Interrupted,
        _ => CutOff::Failed,
    };
    for item in progress.cut_off(why, &session.new_id("cut")) {
        if let Err(e) = session.record(Some(turn_id), item) {
            // The progress records already hold the text; reading the log rebuilds it.
            tracing::error!(error = %e, "could not record a cut-off answer");
        }
    }
    outcome
}

// The stream loop's state, passed apart so each piece stays a plain borrow of its own.
#[allow(clippy::too_many_arguments)]
fn handle_event(
    session: &Session,
    turn_id: &str,
    origin: &ReasoningOrigin,
    event: StreamEvent,
    sampled: &mut Sampled,
    completed: &mut bool,
    usage: &mut Usage,
    progress: &mut ProgressWriter,
) -> Result<(), crate::session::EngineError> {
    let turn_id_s = turn_id.to_string();
    match event {
        StreamEvent::Created { .. } | StreamEvent::ToolCallDelta { .. } => {}
        StreamEvent::TextDelta { text } => {
            write_progress(session, progress.push(ProgressStream::Text, &text))?;
            session.emit(EngineEvent::TextDelta {
                turn_id: turn_id_s,
                text,
            });
        }
        StreamEvent::ReasoningDelta { text, .. } => {
            write_progress(session, progress.push(ProgressStream::Reasoning, &text))?;
            session.emit(EngineEvent::ReasoningDelta {
                turn_id: turn_id_s,
                text,
            });
        }
        StreamEvent::ToolCallStarted { call_id, name } => {
            session.emit(EngineEvent::ToolCallStarted {
                turn_id: turn_id_s,
                call_id,
                name,
            });
        }
        StreamEvent::ItemDone { mut item } => {
            if let Item::Reasoning(r) = &mut item
                && r.origin.is_none()
            {
                r.origin = Some(origin.clone());
            }
            progress.superseded(&item);
            let recorded = session.record(Some(turn_id), item)?;
            if recorded.is_tool_call() {
                sampled.calls.push(recorded);
            } else if matches!(&recorded, Item::Message(m) if m.role == tack_protocol::Role::User) {
                sampled.injected = true;
            }
        }
        StreamEvent::Usage { usage: u } => usage.add(&u),
        StreamEvent::Completed { .. } => *completed = true,
    }
    Ok(())
}

fn with_hint(mut e: ModelError) -> ModelError {
    if e.hint.is_none() {
        let hint = match e.kind {
            ErrorKind::Auth => {
                Some("Check the provider's API key (Settings, or its environment variable).")
            }
            ErrorKind::Unreachable => {
                Some("Check the provider's base URL and that the server is running.")
            }
            ErrorKind::RateLimit => Some("The provider is rate limiting; wait and send again."),
            ErrorKind::QuotaExhausted => {
                Some("The account has no credit left; top it up or switch provider.")
            }
            ErrorKind::ContextLengthExceeded => Some(
                "The conversation is too long for this model; start a new session or pick a model with a larger context.",
            ),
            ErrorKind::Overloaded | ErrorKind::ServerError => {
                Some("The provider is having trouble; try again in a moment.")
            }
            ErrorKind::StreamTruncated => {
                Some("The connection dropped mid-answer; send again to retry.")
            }
            ErrorKind::BadRequest => Some(
                "The provider rejected the request; check the model name and the inspector's request body.",
            ),
            _ => None,
        };
        e.hint = hint.map(str::to_string);
    }
    e
}

/// Binds, gates and runs one tool call, recording its output.
async fn execute(
    session: &Session,
    turn_id: &str,
    call: &Item,
    advertised: &[String],
    cancel: &CancellationToken,
    repeats: &mut CallRepeats,
) -> Result<(), Outcome> {
    let Some(call_id) = call.call_id().map(str::to_string) else {
        return Ok(());
    };
    if cancel.is_cancelled() {
        return Err(Outcome::Interrupted);
    }
    let harness = session.inner.route.harness.clone();
    let engine = session.inner.engine.clone();
    let opts = &session.inner.opts;
    let mut record_output = |output: ToolOutput| -> Result<(), Outcome> {
        let mut output = harness.adapt_output(call, output);
        let count = repeats.observe(call, &output);
        let denied = output.status == tack_protocol::ToolStatus::Denied;
        if count + 1 == MAX_REPEATED_CALLS {
            output.text.push_str(&repeat_note(denied, count));
        }
        let item = Item::ToolOutput(ToolOutputItem {
            id: session.new_id("out"),
            call_id: call_id.clone(),
            output,
        });
        session
            .record(Some(turn_id), item)
            .map_err(|e| Outcome::Failed(log_error(e)))?;
        if count >= MAX_REPEATED_CALLS {
            return Err(Outcome::Failed(repeated_call_error(call, denied, count)));
        }
        Ok(())
    };

    let turn_for_sink = turn_id.to_string();
    let call_for_sink = call_id.clone();
    let events = session.clone();
    let output_sink: OutputSink = Arc::new(move |chunk: &str| {
        events.emit(EngineEvent::ToolOutputDelta {
            turn_id: turn_for_sink.clone(),
            call_id: call_for_sink.clone(),
            chunk: chunk.to_string(),
        });
    });
    let ctx = ToolContext {
        workspace: opts.cwd.clone(),
        call_id: call_id.clone(),
        output: output_sink,
        cancel: cancel.child_token(),
        max_output_bytes: MAX_TOOL_OUTPUT_BYTES,
        default_timeout_ms: DEFAULT_TOOL_TIMEOUT_MS,
        session_id: session.id().to_string(),
        sandbox: None,
        limits: opts.limits,
        output_room: {
            let session = session.clone();
            Arc::new(move || {
                let session = session.clone();
                Box::pin(async move { session.event_room().await })
            })
        },
        questions: opts.interactive.then(|| {
            Arc::new(SessionQuestions {
                session: session.clone(),
                turn_id: turn_id.to_string(),
            }) as crate::tools::QuestionChannel
        }),
    };
    let workspace_root = ctx.workspace_root();
    let PreparedToolCall {
        bound,
        handler,
        prepared,
    } = match prepare_call(harness.as_ref(), &engine, call, &ctx, advertised) {
        Ok(p) => p,
        Err(output) => return record_output(output),
    };

    let tool_name = match call {
        Item::FunctionCall(c) => c.name.clone(),
        Item::CustomToolCall(c) => c.name.clone(),
        _ => bound.tool.clone(),
    };
    let decision = {
        let state = lock(&session.inner.state);
        Gate {
            policy: opts.approval,
            sandbox: &opts.sandbox,
            workspace: &workspace_root,
            rules: &state.rules,
            approved: &state.approved,
        }
        .decide(prepared.action())
    };
    let sandbox = match decision {
        Decision::Run { sandbox, .. } => sandbox,
        Decision::Reject { reason, .. } => {
            return record_output(ToolOutput::denied(format!(
                "Not run: {reason}. Do not retry it as is; choose another way or ask the user."
            )));
        }
        Decision::Ask(ask) => {
            let sandbox = ask.sandbox;
            let asked = Asked {
                session,
                turn_id,
                call_id: &call_id,
                tool: &tool_name,
                cancel,
            };
            match asked.ask(*ask, prepared.action(), None).await? {
                Answer::Run => sandbox,
                Answer::Refused(output) => return record_output(output),
                Answer::Abort => return abort_call(&mut record_output),
            }
        }
    };

    session.emit(EngineEvent::ToolStarted {
        turn_id: turn_id.to_string(),
        call_id: call_id.clone(),
        tool: bound.tool.clone(),
    });
    let span = tracing::info_span!("tool_call", tool = %bound.tool, call_id = %call_id);
    let started = Instant::now();
    let retry_input = bound.input.clone();
    let action = prepared.action().clone();
    let contained_ctx = ToolContext {
        sandbox: sandbox.map(|mode| sandbox_policy(session, mode, &workspace_root)),
        ..ctx.clone()
    };
    let mut output = prepared.run(contained_ctx).instrument(span.clone()).await;
    // The sandbox refused something the command needed: offer to run it again outside,
    // never without asking (under `never` the refusal stands: that policy never asks).
    if sandbox.is_some()
        && opts.approval != tack_protocol::ApprovalPolicy::Never
        && !cancel.is_cancelled()
        && let Some(denial) = sandbox_denial(&output)
        && let ToolAction::Exec { command, cwd, .. } = &action
    {
        let ask = AskRequest {
            action: tack_protocol::ApprovalAction::Exec {
                command: command.clone(),
                cwd: cwd.display().to_string(),
            },
            reason: format!(
                "the sandbox refused this command ({denial}); run it again outside the sandbox?"
            ),
            risk: tack_protocol::Risk::High,
            session_key: String::new(),
            sandbox: None,
            offer_session: false,
            suggested_rule: None,
        };
        let asked = Asked {
            session,
            turn_id,
            call_id: &call_id,
            tool: &tool_name,
            cancel,
        };
        match asked.ask(ask, &action, Some(denial)).await? {
            Answer::Run => match handler.prepare(retry_input, &ctx) {
                Ok(again) => {
                    (ctx.output)("\n[running again outside the sandbox]\n");
                    output = again.run(ctx.clone()).instrument(span).await;
                }
                Err(failed) => output = failed,
            },
            // The first run's output (with the sandbox's note) stands.
            Answer::Refused(_) => {}
            Answer::Abort => {
                record_output(output)?;
                return Err(Outcome::ApprovalAborted);
            }
        }
    }
    if output.duration_ms.is_none() {
        output.duration_ms = Some(u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX));
    }
    let ends = harness.ends_turn(call, &output);
    record_output(output)?;
    if cancel.is_cancelled() {
        return Err(Outcome::Interrupted);
    }
    if ends {
        return Err(Outcome::Completed);
    }
    Ok(())
}

/// The user's answer to an approval, as the call goes on.
enum Answer {
    /// Run it.
    Run,
    /// Don't: this output (a denial the model reads) answers the call.
    Refused(ToolOutput),
    /// Stop the turn.
    Abort,
}

/// One approval asked for one call.
struct Asked<'a> {
    session: &'a Session,
    turn_id: &'a str,
    call_id: &'a str,
    tool: &'a str,
    cancel: &'a CancellationToken,
}

impl Asked<'_> {
    /// Asks, waits for the answer (or the interrupt), and acts on "for the session" and
    /// "always" answers: the session remembers the first, the config saves the second.
    async fn ask(
        &self,
        ask: AskRequest,
        action: &ToolAction,
        escalation: Option<String>,
    ) -> Result<Answer, Outcome> {
        let session = self.session;
        let approval_id = session.new_id("approval");
        let (tx, rx) = tokio::sync::oneshot::channel();
        let request = ApprovalRequest {
            id: approval_id.clone(),
            call_id: self.call_id.to_string(),
            tool: self.tool.to_string(),
            action: ask.action,
            reason: ask.reason,
            risk: ask.risk,
            sandbox: ask.sandbox,
            escalation,
            offer_session: ask.offer_session && !ask.session_key.is_empty(),
            suggested_rule: ask.suggested_rule,
        };
        lock(&session.inner.state)
            .approvals
            .insert(approval_id.clone(), (request.clone(), tx));
        session.emit(EngineEvent::ApprovalRequested {
            turn_id: self.turn_id.to_string(),
            request: request.clone(),
        });
        let decision = tokio::select! {
            biased;
            () = self.cancel.cancelled() => {
                lock(&session.inner.state).approvals.remove(&approval_id);
                return Err(Outcome::Interrupted);
            }
            d = rx => d.unwrap_or(ApprovalDecision::AbortTurn),
        };
        session.emit(EngineEvent::ApprovalResolved {
            turn_id: self.turn_id.to_string(),
            approval_id,
            decision: decision.clone(),
        });
        Ok(match decision {
            ApprovalDecision::ApproveOnce => Answer::Run,
            ApprovalDecision::ApproveForSession => {
                if request.offer_session {
                    lock(&session.inner.state).approved.insert(ask.session_key);
                }
                Answer::Run
            }
            ApprovalDecision::Deny { reason } => {
                let reason = reason.trim();
                Answer::Refused(ToolOutput::denied(if reason.is_empty() {
                    "The user denied this call. Do not retry it as is; choose another way or ask the user.".to_string()
                } else {
                    format!("The user denied this call: {reason}")
                }))
            }
            ApprovalDecision::AbortTurn => Answer::Abort,
            ApprovalDecision::AlwaysAllow { rule } => {
                self.save_rule(rule, action, true);
                Answer::Run
            }
            ApprovalDecision::AlwaysDeny { rule } => {
                let described = rule.describe();
                self.save_rule(rule, action, false);
                Answer::Refused(ToolOutput::denied(format!(
                    "The user denied this call and saved the rule {described}. Do not retry it; \
                     choose another way or ask the user."
                )))
            }
        })
    }

    /// Adds an "Always …" rule to the session's rules and saves it in config.toml. An allow
    /// rule that does not cover the command it answers is not saved (the call still runs
    /// this once, as approved): a rule must never allow more than the user saw.
    fn save_rule(&self, rule: tack_protocol::Rule, action: &ToolAction, allow: bool) {
        let session = self.session;
        if allow {
            let ToolAction::Exec { command, cwd, .. } = action else {
                return;
            };
            let home = dirs::home_dir();
            let site = crate::command_safety::CommandSite {
                workspace: &session.inner.opts.cwd,
                cwd,
                home: home.as_deref(),
            };
            let assessment = crate::command_safety::classify_in(command, &site);
            if let Err(why) = crate::rules::validate_allow(&rule, &assessment) {
                tracing::warn!(rule = %rule.describe(), "allow rule not saved: {why}");
                return;
            }
        }
        if let Err(err) = crate::rules::save_rule(&session.inner.engine.paths, &rule) {
            tracing::warn!(rule = %rule.describe(), "rule not saved to config: {err}");
        }
        lock(&session.inner.state).rules.add(rule);
    }
}

/// Records the aborted call's output and ends the turn as the user asked. The user's abort is
/// the reason the turn ends, even when this was also a repeated denied call; only a log
/// failure outranks it.
fn abort_call(
    record_output: &mut impl FnMut(ToolOutput) -> Result<(), Outcome>,
) -> Result<(), Outcome> {
    match record_output(ToolOutput::denied(
        "The user stopped the turn instead of running this call.",
    )) {
        Err(Outcome::Failed(e)) if e.kind != ErrorKind::RepeatedToolCall => Err(Outcome::Failed(e)),
        _ => Err(Outcome::ApprovalAborted),
    }
}

/// What the sandbox refused, when a contained command's failure looks like its doing.
fn sandbox_denial(output: &ToolOutput) -> Option<String> {
    match &output.details {
        Some(tack_protocol::ToolDetails::Exec { sandbox_denial, .. }) => sandbox_denial.clone(),
        _ => None,
    }
}

/// The containment a command of this session gets in `mode`.
fn sandbox_policy(
    session: &Session,
    mode: tack_protocol::SandboxMode,
    workspace: &std::path::Path,
) -> tack_sandbox::SandboxPolicy {
    let opts = &session.inner.opts;
    let paths = &session.inner.engine.paths;
    let mut policy = tack_sandbox::SandboxPolicy::new(mode, workspace.to_path_buf());
    policy.network = opts.sandbox.network;
    policy.writable_roots = opts.writable_roots.clone();
    policy.protected = vec![paths.config_dir.clone(), paths.data_dir.clone()];
    policy.scratch = session.scratch_dir();
    policy
}

/// Questions go to the front end as `QuestionAsked` events; [`Session::answer`] replies.
struct SessionQuestions {
    session: Session,
    turn_id: String,
}

impl crate::tools::UserQuestions for SessionQuestions {
    fn ask(
        &self,
        call_id: &str,
        questions: Vec<tack_protocol::Question>,
    ) -> futures::future::BoxFuture<'static, Option<Vec<tack_protocol::QuestionAnswer>>> {
        let id = self.session.new_id("question");
        let (tx, rx) = tokio::sync::oneshot::channel();
        let request = tack_protocol::QuestionRequest {
            id: id.clone(),
            call_id: call_id.to_string(),
            questions,
        };
        lock(&self.session.inner.state)
            .questions
            .insert(id, (request.clone(), tx));
        self.session.emit(EngineEvent::QuestionAsked {
            turn_id: self.turn_id.clone(),
            request,
        });
        Box::pin(async move { rx.await.ok().flatten() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::FunctionCallItem;

    fn call(arguments: &str) -> Item {
        Item::FunctionCall(FunctionCallItem {
            id: "fc".into(),
            call_id: "c".into(),
            name: "shell".into(),
            namespace: None,
            arguments: arguments.into(),
        })
    }

    #[test]
    fn repeats_count_the_same_ending_of_the_same_call() {
        let mut r = CallRepeats::default();
        let a = call(r#"{"command":"mkdir","timeout_ms":10}"#);
        let a_reordered = call(r#"{ "timeout_ms": 10, "command": "mkdir" }"#);
        let b = call(r#"{"command":"mkdir build"}"#);
        let denied = ToolOutput::denied("no");
        assert_eq!(r.observe(&a, &denied), 1);
        assert_eq!(r.observe(&b, &denied), 1, "other arguments: another call");
        assert_eq!(
            r.observe(&a_reordered, &denied),
            2,
            "same JSON, keys reordered"
        );
        // A failure after denials starts a new count; only identical failures add up.
        assert_eq!(r.observe(&a, &ToolOutput::error("exit 1")), 1);
        assert_eq!(r.observe(&a, &ToolOutput::error("exit 1")), 2);
        assert_eq!(r.observe(&a, &ToolOutput::error("exit 2")), 1);
        // Running fine forgets the call.
        assert_eq!(r.observe(&a, &ToolOutput::ok("done")), 0);
        assert_eq!(r.observe(&a, &denied), 1);
        assert_eq!(r.observe(&b, &denied), 2);
    }

    #[test]
    fn the_label_is_the_name_and_compact_arguments_on_one_line() {
        assert_eq!(
            call_label(&call("{ \"command\": \"mkdir\" }")),
            r#"shell {"command":"mkdir"}"#
        );
        assert_eq!(
            call_label(&call("not json\nat all")),
            "shell not json at all"
        );
        let long = call(&format!(r#"{{"command":"{}"}}"#, "x".repeat(500)));
        assert_eq!(call_label(&long).chars().count(), 201);
    }
}
