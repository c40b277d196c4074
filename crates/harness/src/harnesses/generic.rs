//! Shaping shared by the harnesses that use Tack's own tool surface (`native`, `minimal`):
//! a templated system prompt, the generic history conversion, and the engine's tools as
//! function tools.

use tack_protocol::{Prompt, Wire};
use tack_wire::{RenderOptions, RequestParams, ShapedRequest, SystemBlock, ToolChoice};

use crate::history::{self, DeveloperMode, HistoryOptions, ReasoningReplay};
use crate::prompts::{self, TemplateVars};
use crate::{rules, ShapeEnv, ShapeError, Shaped};

/// Shapes a request with the `system.md` template of `harness`.
pub(crate) fn shape(
    harness: &str,
    prompt: &Prompt,
    wire: Wire,
    env: &ShapeEnv<'_>,
) -> Result<Shaped, ShapeError> {
    let ctx = &prompt.context;
    let template = env.prompts.get(harness, "system.md")?;
    let system = prompts::render(&template, &TemplateVars::new(ctx, prompt.instructions.as_deref()))?;
    let rules = rules::for_provider(&ctx.provider);
    let reasoning = match wire {
        Wire::Chat if rules.replay_reasoning => ReasoningReplay::SameProvider(ctx.provider.id.clone()),
        Wire::Messages => ReasoningReplay::SignedOnly,
        _ => ReasoningReplay::Drop,
    };
    let messages = history::convert(
        &prompt.history,
        &HistoryOptions {
            developer: DeveloperMode::AsUser,
            keep_system: false,
            reasoning,
            keep_images: true,
        },
    );
    let tools = prompt.tools.clone();
    let tool_kinds = tack_wire::tool_kinds(&tools, wire);
    let request = ShapedRequest {
        model: ctx.model.clone(),
        system: vec![SystemBlock {
            text: system,
            cache: wire == Wire::Messages,
        }],
        messages,
        cache_tools: wire == Wire::Messages,
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
    };
    Ok(Shaped {
        request,
        tool_kinds,
        extra_requests: Vec::new(),
        postprocess: None,
        prompt_source: template.source,
    })
}
