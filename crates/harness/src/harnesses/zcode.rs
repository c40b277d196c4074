//! `zcode`: requests shaped like those of Z.AI's ZCode CLI (Anthropic Messages, for GLM
//! models behind Z.AI's Anthropic-compatible endpoint).
//!
//! Source: the anchor (openinterpreter 0.0.40, `codex-rs/core/src/harness/zcode.rs`,
//! `zcode_tools.json`, `core/src/client.rs@bee31912d` `zcode_headers`; `docs/sources.md`);
//! there is no capture of ZCode. What Tack sends:
//! - `model`: the slug with a `zai/` or `z.ai/` prefix removed; `max_tokens: 64000`,
//!   `stream: true`, `tool_choice: {type: auto}`; no thinking, `context_management`,
//!   `output_config`, metadata or temperature.
//! - `system`: three blocks, all cached: the identity line, the harness rules, and the
//!   environment (cwd, git yes/no, platform, shell, OS version, model, and the git status the
//!   session started with). That initial status is kept in memory per session only (see
//!   `claude_code::snapshot`): the anchor also wrote it to `.zcode/…` under the workspace, one
//!   of the anchor's workspace-pollution bugs.
//! - Messages: the provider's few-shot examples first, then the history, through the
//!   claude-code conversion (`claude_code::messages`: results buffered into
//!   call order, same-role merging, signed thinking only), with ZCode's todo reminder after
//!   every 10 tool results without a `TodoWrite`, a current-date `<system-reminder>` at the
//!   start of the first user message, and the cache breakpoint on the latest user text (which,
//!   with the three system blocks, uses the API's four breakpoints).
//! - ZCode puts an in-conversation `role: "system"` message after the first user message (its
//!   built-in skills list). Tack has no skills; that slot carries the project instructions
//!   (AGENTS.md) when there are any, so nothing is dropped. Z.AI accepts that role; the
//!   Anthropic API only under the `mid-conversation-tool-changes` beta, which is added when the
//!   provider is `api.anthropic.com` and such a message is present.
//! - Tools: ZCode's 14, minus those Tack has no handler for (Agent, EnterPlanMode,
//!   ExitPlanMode, Skill, TodoRead, WebFetch, SendMessage, ReadSessionContext), in ZCode's
//!   order: `AskUserQuestion, Bash, Edit, Read, TodoWrite, Write` (`TodoWrite` items carry
//!   `priority`, `Read` has no `pages`). Calls bind as in claude-code; an empty `Bash` result
//!   reads "Command executed successfully." (the anchor's `core/src/tools/handlers/harness_aliases.rs`).
//! - Headers: `anthropic-version` always. With `emulate_identity`: ZCode's user-agent,
//!   `x-zcode-agent`, `x-zcode-app-version`, `x-title` and `accept-language`. The anchor's
//!   `http-referer` (a port of the real client's local server) is not sent: it would claim a
//!   server that does not exist.
//! - Not implemented: the compaction request and `ReadSessionContext` side request (Tack's
//!   engine has no compaction yet), and completion-order tool execution (an engine concern).

use tack_protocol::{Item, Prompt, TodoEntry, ToolOutput, Wire};
use tack_wire::{RequestParams, ShapedMessage, ShapedRequest, ShapedRole, ToolChoice};

use super::claude_code::binding::{Binder, CliTool, Dialect};
use super::claude_code::messages::{self, TodoReminders};
use super::claude_code::model::ModelFacts;
use super::claude_code::prompt::{Extra, Renderer};
use super::claude_code::request::{ANTHROPIC_VERSION, MID_CONVERSATION_BETA};
use super::claude_code::snapshot::Snapshots;
use super::claude_code::{cached, text, tools};
use crate::history::ReasoningReplay;
use crate::{BoundCall, Harness, ShapeEnv, ShapeError, Shaped};

/// ZCode's `max_tokens`.
const MAX_TOKENS: u32 = 64_000;
/// The client version the identity headers name (the anchor's).
const APP_VERSION: &str = "0.14.8";

const TOOLS: &[CliTool] = &[
    CliTool::AskUserQuestion,
    CliTool::Bash,
    CliTool::Edit,
    CliTool::Read,
    CliTool::TodoWrite,
    CliTool::Write,
];

/// The `zcode` harness.
#[derive(Default)]
pub(crate) struct Zcode {
    snapshots: Snapshots,
}

impl Zcode {
    fn binder() -> Binder {
        Binder {
            dialect: Dialect::ZCode,
            tools: TOOLS,
        }
    }
}

/// The slug without Tack's `zai/` / `z.ai/` routing prefix.
fn model_slug(slug: &str) -> &str {
    for prefix in ["zai/", "z.ai/"] {
        if slug.len() > prefix.len() && slug[..prefix.len()].eq_ignore_ascii_case(prefix) {
            return &slug[prefix.len()..];
        }
    }
    slug
}

impl Harness for Zcode {
    fn id(&self) -> &'static str {
        "zcode"
    }

    fn description(&self) -> &'static str {
        "ZCode's request shape and tools (Messages, GLM models)"
    }

    fn wires(&self) -> &'static [Wire] {
        &[Wire::Messages]
    }

    fn shape(
        &self,
        prompt: &Prompt,
        _wire: Wire,
        env: &ShapeEnv<'_>,
    ) -> Result<Shaped, ShapeError> {
        let ctx = &prompt.context;
        let model = model_slug(&ctx.model);
        let facts = ModelFacts::parse(model);
        let binder = Self::binder();
        let surface = tools::surface(self.id(), &binder, &prompt.tools, env.prompts)?;
        let snapshot = self.snapshots.git(&ctx.session_id, ctx.git.as_ref());
        let extra = Extra::new(prompt, &facts, surface.names(), snapshot);
        let mut r = Renderer::new(self.id(), env.prompts, prompt, extra);

        let identity = r.render("identity.md")?;
        let rules = r.render("rules.md")?;
        let rules_source = r.source_of("rules.md");
        let environment = r.render("environment.md")?;
        let date = r.render("date-reminder.md")?;
        let project = if r.has_project_docs() {
            Some(r.render("context.md")?)
        } else {
            None
        };
        let todo = if surface.has(CliTool::TodoWrite) {
            TodoReminders::EveryTenResults
        } else {
            TodoReminders::Off
        };
        let todo_template = match todo {
            TodoReminders::Off => None,
            _ => Some(r.template("todo-reminder.md")?),
        };
        let remind = |list: Option<&[TodoEntry]>| match &todo_template {
            Some(t) => r.todo_reminder(t, list),
            None => Ok(String::new()),
        };
        let opts = messages::Options {
            reasoning: ReasoningReplay::SignedOnly,
            keep_images: facts.accepts_images(),
            merge: true,
            todo,
            todo_reminder: &remind,
        };
        let mut msgs = messages::build(&messages::conversation(prompt), &opts)?;
        messages::prepend_to_first_user(&mut msgs, vec![text(date)]);
        let has_system_message = project.is_some();
        if let Some(project) = project {
            messages::insert_after_first_user(
                &mut msgs,
                ShapedMessage::new(ShapedRole::System, vec![text(project)]),
            );
        }
        messages::cache_latest_user_text(&mut msgs);

        let mut headers = Vec::new();
        if env.emulate_identity {
            let h = |k: &str, v: &str| (k.to_string(), v.to_string());
            headers.push(h("user-agent", &format!("ZCode/{APP_VERSION}")));
            headers.push(h("x-zcode-agent", "glm"));
            headers.push(h("x-zcode-app-version", APP_VERSION));
            headers.push(h("x-title", "Z Code@cli"));
            headers.push(h("accept-language", "*"));
        }
        headers.push(("anthropic-version".into(), ANTHROPIC_VERSION.into()));
        if has_system_message && ctx.provider.base_url.contains("api.anthropic.com") {
            headers.push(("anthropic-beta".into(), MID_CONVERSATION_BETA.into()));
        }

        let tools: Vec<_> = surface.specs.clone();
        let request = ShapedRequest {
            model: model.to_string(),
            system: [identity, rules, environment]
                .into_iter()
                .filter(|t| !t.is_empty())
                .map(cached)
                .collect(),
            messages: msgs,
            params: RequestParams {
                stream: true,
                max_tokens: Some(MAX_TOKENS),
                tool_choice: (!tools.is_empty()).then_some(ToolChoice::Auto),
                ..RequestParams::default()
            },
            tools,
            headers,
            ..ShapedRequest::default()
        };
        let prompt_source = r.prompt_source(&rules_source, &surface.source);
        Ok(Shaped {
            tool_kinds: tack_wire::tool_kinds(&request.tools, Wire::Messages),
            request,
            extra_requests: Vec::new(),
            postprocess: None,
            prompt_source,
        })
    }

    fn bind_call(&self, call: &Item) -> Result<BoundCall, ToolOutput> {
        Self::binder().bind(call)
    }

    fn adapt_output(&self, call: &Item, output: ToolOutput) -> ToolOutput {
        Self::binder().adapt(call, output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routing_prefix_is_removed() {
        assert_eq!(model_slug("zai/glm-4.6"), "glm-4.6");
        assert_eq!(model_slug("Z.AI/glm-4.5"), "glm-4.5");
        assert_eq!(model_slug("glm-4.6"), "glm-4.6");
        assert_eq!(model_slug("zai/"), "zai/");
    }
}
