//! `claude-code` and `claude-code-bare`: requests shaped like those of Anthropic's Claude Code
//! CLI, natively on the Messages wire and carried over Chat and Responses from the same
//! shaping.
//!
//! # Sources, and which one won
//! Two sources describe the CLI: the anchor (openinterpreter 0.0.40,
//! `codex-rs/core/src/harness/claude_code.rs` and `claude_code_prompt.rs`, an older emulation;
//! `docs/sources.md`) and a capture of the real CLI, Claude Code 2.1.332 (npm
//! `@anthropic-ai/claude-code`, one `claude -p` turn). Where they differ, the
//! capture wins:
//!
//! | topic | anchor | capture (followed) |
//! |---|---|---|
//! | system blocks | billing, identity, body with environment and git status | billing, identity, body with *model family facts only* |
//! | git status | inside the system body | a `<system-reminder>` block (`# gitStatus`) at the start of the first user message, followed by a commit/PR attribution reminder |
//! | environment, model name/id, knowledge cutoff, date | system body; date as a reminder in the first user message | one `role: "system"` message right after the first user message (allowed by the `mid-conversation-tool-changes` beta), cached, ending with "Today's date is …" |
//! | `max_tokens` | 64000 (Opus ≥ 4.6) / 32000 | 128000 for `claude-opus-5-5`; the 5.x row is added, the anchor's rows kept for older models |
//! | `thinking` | `{type: adaptive}` or enabled with a budget | `{type: adaptive, display: omitted}` |
//! | `output_config.effort` | only with a model catalog entry | `medium` by default |
//! | betas | six, incl. `prompt-caching-scope`, `advisor-tool` | the capture's eight (see [`request`]) |
//! | tools | Agent…Write incl. Glob, Grep, AskUserQuestion | Agent, Bash, Edit, ListAgents, Read, ReportFindings, ScheduleWakeup, Skill, ToolSearch, Workflow, DeferredToolPlaceholder, Write |
//! | extra requests | a `HEAD` preflight and a title request on the first turn | none: the single main request |
//!
//! # What Tack sends
//! - **System** (Messages): `[identity line, main prompt]`, both cached. The main prompt has the
//!   CLI's sections in its order (harness, tasks, tone, tools, session-specific guidance,
//!   memory, environment with model family facts, context management), in Tack's own words
//!   (`prompts/claude-code/`). The user's extra instructions close it, as `--append-system-prompt`
//!   would. The billing-attribution block is never sent (it exists to pass as the vendor's
//!   client).
//! - **First user message**: reminders before the user's text: project instructions
//!   (AGENTS.md, root first; the anchor dropped them), `# gitStatus` (branch, main branch,
//!   user, status or `(clean)`, recent commits — the snapshot taken at the session's first
//!   request, see [`snapshot`]) and the attribution reminder, the last two in a git repository.
//! - **Environment message**: `role: "system"` after the first user message, as captured: cwd,
//!   git yes/no, platform, shell, OS version, a note on untrusted downloads, model name and id,
//!   knowledge cutoff when known (never a guess), today's date. The capture's lists of deferred
//!   tools, agent types and skills are left out: Tack has none of them.
//! - **Messages**: the provider's few-shot examples (`Prompt.examples`) first, as earlier
//!   conversation, then the history; see [`messages`] (tool results buffered into call order,
//!   same-role merging, Edit input normalized, signed thinking replayed exactly, real images,
//!   one cache breakpoint on the last text block or tool result, the todo reminder).
//! - **Tools**: the CLI's tools that Tack can run, with the CLI's names, parameter names, types
//!   and required flags, in the CLI's order (alphabetical, `Write` last, as in the capture), in
//!   Anthropic encoding (`input_schema` with `$schema` draft 2020-12 and
//!   `additionalProperties: false`, as captured): `AskUserQuestion, Bash, Edit, Glob, Grep,
//!   Read, TodoWrite, Write`. `Bash, Edit, Read, Write` match the capture; the captured `-p`
//!   run does not show `Glob`/`Grep` (the native build searches through Bash),
//!   `AskUserQuestion` (not offered without a terminal) or `TodoWrite`, so those keep the
//!   anchor's schemas. A capture imported with `tack import-prompt` replaces the surface
//!   exactly (see [`tools`]). Nothing without a handler is advertised (no Agent, Skill,
//!   Workflow, Web*, Task*, Cron*).
//! - **Body** (Messages): `model` (the slug as configured), `max_tokens` and `thinking` from
//!   [`model`], `context_management` (`clear_thinking_20251015`, keep all) whenever thinking is
//!   on, `output_config.effort`, `metadata.user_id` (a JSON string with Tack's real session id
//!   only, see [`request::user_id`]), `stream: true`, query `?beta=true`. Extended thinking is
//!   left off for a request whose open tool loop started without a thinking block (history
//!   from another provider), which the API would reject (see
//!   [`messages::thinking_must_be_off`]). Keys go out in the captured order (`model,
//!   messages, system, tools, metadata, max_tokens, …`, [`request::BODY_KEY_ORDER`]), and the
//!   environment message stays a `system` turn inside `messages` rather than being folded into
//!   the user turn.
//! - **Headers**: `accept: application/json` (as captured, even though the reply streams),
//!   `anthropic-beta` and `anthropic-version` always; the CLI's identity headers only with
//!   `emulate_identity` (see [`request::headers`]).
//!
//! # Bare profile
//! The anchor's Bare profile (`claude_code.rs`; the capture has no bare run): only `Bash, Edit, Read` with short descriptions,
//! a short body (`CWD`, `Date`, the git snapshot; Tack adds the project instructions and the
//! user's extra instructions, which the anchor dropped), no reminders, no environment message,
//! no todo reminder, `output_config.effort: high`. Key order and headers as in the full
//! profile (the same client sends both).
//!
//! # Chat and Responses
//! The same shaping carried over OpenAI-style wires (the anchor's `claude_code.rs`): the same main prompt and
//! tools (flat function tools, `$schema` removed), the same first-message reminders and
//! message conversion, without the identity line (it names Claude, which these models are
//! not), thinking, betas or metadata. The environment becomes a second system block rather
//! than a mid-conversation system message, which many OpenAI-compatible servers refuse. Tool
//! results stay separate tool messages; reasoning is replayed only where the provider rules
//! say so; `tool_choice: auto`, `stream`, and a prompt cache key where accepted.

pub(crate) mod binding;
pub(crate) mod messages;
pub(crate) mod model;
pub(crate) mod prompt;
pub(crate) mod request;
pub(crate) mod snapshot;
pub(crate) mod tools;

use serde_json::{Map, Value, json};
use tack_protocol::{Item, Prompt, ToolOutput, ToolSpec, ToolSpecKind, Wire};
use tack_wire::{
    RenderOptions, RequestParams, ShapedMessage, ShapedRequest, ShapedRole, SystemBlock, Thinking,
    ToolChoice,
};

use crate::history::ReasoningReplay;
use crate::{BoundCall, Harness, ShapeEnv, ShapeError, Shaped, rules};

use binding::{Binder, CliTool, Dialect};
use messages::{Options as MessageOptions, TodoReminders};
use model::ModelFacts;
use prompt::{Extra, Renderer};
use snapshot::Snapshots;

/// The JSON Schema draft the CLI's tool schemas declare (`$schema` of every `input_schema`).
pub(crate) const SCHEMA_DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Which of the two CLI profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Profile {
    Full,
    Bare,
}

/// The tools of each profile.
const FULL_TOOLS: &[CliTool] = &CliTool::ALL;
const BARE_TOOLS: &[CliTool] = &[CliTool::Bash, CliTool::Edit, CliTool::Read];

/// The `claude-code` and `claude-code-bare` harnesses.
pub(crate) struct ClaudeCode {
    profile: Profile,
    snapshots: Snapshots,
}

impl ClaudeCode {
    /// The full profile (`claude-code`).
    pub(crate) fn full() -> Self {
        ClaudeCode {
            profile: Profile::Full,
            snapshots: Snapshots::default(),
        }
    }

    /// The bare profile (`claude-code-bare`).
    pub(crate) fn bare() -> Self {
        ClaudeCode {
            profile: Profile::Bare,
            snapshots: Snapshots::default(),
        }
    }

    fn binder(&self) -> Binder {
        Binder {
            dialect: Dialect::ClaudeCode,
            tools: match self.profile {
                Profile::Full => FULL_TOOLS,
                Profile::Bare => BARE_TOOLS,
            },
        }
    }
}

impl Harness for ClaudeCode {
    fn id(&self) -> &'static str {
        match self.profile {
            Profile::Full => "claude-code",
            Profile::Bare => "claude-code-bare",
        }
    }

    fn description(&self) -> &'static str {
        match self.profile {
            Profile::Full => {
                "Claude Code's request shape and tools (Messages; also Chat and Responses)"
            }
            Profile::Bare => "Claude Code's bare profile: short prompt, Bash/Edit/Read only",
        }
    }

    fn wires(&self) -> &'static [Wire] {
        &[Wire::Messages, Wire::Chat, Wire::Responses]
    }

    fn shape(&self, prompt: &Prompt, wire: Wire, env: &ShapeEnv<'_>) -> Result<Shaped, ShapeError> {
        let ctx = &prompt.context;
        let facts = ModelFacts::parse(&ctx.model);
        let binder = self.binder();
        let surface = tools::surface(self.id(), &binder, &prompt.tools, env.prompts)?;
        let snapshot = self.snapshots.git(&ctx.session_id, ctx.git.as_ref());
        let extra = Extra::new(prompt, &facts, surface.names(), snapshot);
        let mut r = Renderer::new(self.id(), env.prompts, prompt, extra);
        let full = self.profile == Profile::Full;

        let on_messages = wire == Wire::Messages;
        // The identity line names Claude: only sent where the model is addressed as Claude Code
        // would address it (Messages); see the module docs.
        let identity = if on_messages {
            r.render("identity.md")?
        } else {
            String::new()
        };
        let main = r.render("system.md")?;
        let main_source = r.source_of("system.md");
        let mut environment = None;
        let mut context = Vec::new();
        if full {
            environment = Some(r.render("environment.md")?);
            if r.has_project_docs() {
                context.push(r.render("project-docs.md")?);
            }
            if r.extra().git_snapshot.is_some() {
                context.push(r.render("git-status.md")?);
                context.push(r.render("attribution.md")?);
            }
        }
        let todo = if full && surface.has(CliTool::TodoWrite) {
            TodoReminders::OncePerList
        } else {
            TodoReminders::Off
        };
        let todo_template = match todo {
            TodoReminders::Off => None,
            _ => Some(r.template("todo-reminder.md")?),
        };
        let remind = |list: Option<&[tack_protocol::TodoEntry]>| match &todo_template {
            Some(t) => r.todo_reminder(t, list),
            None => Ok(String::new()),
        };

        let provider_rules = rules::for_provider(&ctx.provider);
        let opts = MessageOptions {
            reasoning: match wire {
                Wire::Messages => ReasoningReplay::SignedOnly,
                Wire::Chat if provider_rules.replay_reasoning => ReasoningReplay::Readable,
                _ => ReasoningReplay::Drop,
            },
            keep_images: facts.accepts_images(),
            merge: on_messages,
            todo,
            todo_reminder: &remind,
        };
        let mut messages = messages::build(&messages::conversation(prompt), &opts)?;
        messages::prepend_to_first_user(&mut messages, context.into_iter().map(text).collect());

        let request = if on_messages {
            let mut system = vec![cached(identity), cached(main)];
            if let Some(environment) = environment {
                messages::insert_after_first_user(
                    &mut messages,
                    ShapedMessage::new(ShapedRole::System, vec![text(environment)]),
                );
            }
            messages::cache_last_block(&mut messages);
            system.retain(|b| !b.text.is_empty());
            messages_request(
                self.profile,
                prompt,
                &facts,
                system,
                messages,
                &surface.specs,
                env,
            )
        } else {
            let mut system = vec![plain(main)];
            if let Some(environment) = environment {
                system.push(plain(environment));
            }
            system.retain(|b| !b.text.is_empty());
            openai_request(prompt, wire, system, messages, &surface.specs)
        };
        let prompt_source = r.prompt_source(&main_source, &surface.source);
        Ok(Shaped {
            tool_kinds: tack_wire::tool_kinds(&request.tools, wire),
            request,
            extra_requests: Vec::new(),
            postprocess: None,
            prompt_source,
        })
    }

    fn bind_call(&self, call: &Item) -> Result<BoundCall, ToolOutput> {
        self.binder().bind(call)
    }

    fn adapt_output(&self, call: &Item, output: ToolOutput) -> ToolOutput {
        self.binder().adapt(call, output)
    }
}

/// The Messages body (see the module docs for each field's source).
fn messages_request(
    profile: Profile,
    prompt: &Prompt,
    facts: &ModelFacts,
    system: Vec<SystemBlock>,
    messages: Vec<ShapedMessage>,
    tools: &[ToolSpec],
    env: &ShapeEnv<'_>,
) -> ShapedRequest {
    let ctx = &prompt.context;
    let max_tokens = facts.max_tokens();
    let thinking_on = !messages::thinking_must_be_off(&messages);
    let adaptive = facts.adaptive_thinking();
    let mut extra_body = Map::new();
    let thinking = thinking_on.then(|| {
        if adaptive {
            Thinking::Adaptive
        } else {
            Thinking::Enabled {
                budget_tokens: max_tokens.saturating_sub(1),
            }
        }
    });
    if thinking_on {
        if adaptive {
            // `display` has no neutral field; the capture sends it with adaptive thinking.
            extra_body.insert(
                "thinking".into(),
                json!({"type": "adaptive", "display": "omitted"}),
            );
        }
        extra_body.insert(
            "context_management".into(),
            json!({"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]}),
        );
    }
    let effort = match profile {
        Profile::Bare => Some("high"),
        Profile::Full => facts.supports_effort().then_some("medium"),
    };
    ShapedRequest {
        model: ctx.model.clone(),
        system,
        messages,
        tools: tools.iter().map(with_schema_url).collect(),
        cache_tools: false,
        params: RequestParams {
            stream: true,
            max_tokens: Some(max_tokens),
            thinking,
            reasoning_effort: effort.map(str::to_string),
            metadata: Some(json!({"user_id": request::user_id(&ctx.session_id)})),
            ..RequestParams::default()
        },
        options: RenderOptions {
            // The environment message stays a `system` turn, as captured (the request always
            // carries the beta that allows it).
            messages_system_role: true,
            field_order: request::BODY_KEY_ORDER.map(str::to_string).to_vec(),
            ..RenderOptions::default()
        },
        extra_body,
        headers: request::headers(&ctx.session_id, env.emulate_identity),
        query: vec![("beta".to_string(), "true".to_string())],
    }
}

/// The Chat or Responses body carrying the same shaping.
fn openai_request(
    prompt: &Prompt,
    wire: Wire,
    system: Vec<SystemBlock>,
    messages: Vec<ShapedMessage>,
    tools: &[ToolSpec],
) -> ShapedRequest {
    let ctx = &prompt.context;
    let rules = rules::for_provider(&ctx.provider);
    let tools: Vec<ToolSpec> = tools.iter().map(tools::without_schema_url).collect();
    ShapedRequest {
        model: ctx.model.clone(),
        system,
        messages,
        cache_tools: false,
        params: RequestParams {
            stream: true,
            include_usage: wire == Wire::Chat,
            tool_choice: (!tools.is_empty()).then_some(ToolChoice::Auto),
            cache_key: (rules.prompt_cache_key || wire == Wire::Responses)
                .then(|| ctx.session_id.clone()),
            store: (wire == Wire::Responses).then_some(false),
            ..RequestParams::default()
        },
        tools,
        options: RenderOptions {
            chat_tool_only_content: rules.tool_only_content,
            chat_reasoning_field: rules
                .replay_reasoning
                .then(|| "reasoning_content".to_string()),
            ..RenderOptions::default()
        },
        ..ShapedRequest::default()
    }
}

/// The tool with `$schema` as the first key of its schema, as the CLI sends it (kept as is
/// when the definition already names a draft, e.g. one imported from a capture).
pub(crate) fn with_schema_url(spec: &ToolSpec) -> ToolSpec {
    let mut spec = spec.clone();
    if let ToolSpecKind::Function {
        parameters: Value::Object(map),
        ..
    } = &mut spec.kind
        && !map.contains_key("$schema")
    {
        let mut with = Map::with_capacity(map.len() + 1);
        with.insert("$schema".into(), SCHEMA_DRAFT.into());
        with.extend(std::mem::take(map));
        *map = with;
    }
    spec
}

pub(crate) fn text(text: String) -> tack_wire::Block {
    tack_wire::Block::Text { text, cache: false }
}

pub(crate) fn cached(text: String) -> SystemBlock {
    SystemBlock { text, cache: true }
}

fn plain(text: String) -> SystemBlock {
    SystemBlock { text, cache: false }
}
