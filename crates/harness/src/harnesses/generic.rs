//! Shaping shared by the harnesses that use Tack's own tool surface (`native`, `minimal`):
//! a templated system prompt, the generic history conversion, and the engine's tools as
//! function tools.

use serde_json::Value;
use tack_protocol::{Prompt, ToolSpec, ToolSpecKind, Wire};
use tack_wire::{RenderOptions, RequestParams, ShapedRequest, SystemBlock, ToolChoice};

use crate::history::{self, DeveloperMode, HistoryOptions, ReasoningReplay};
use crate::prompts::{self, TemplateVars};
use crate::{ShapeEnv, ShapeError, Shaped, rules};

/// How much of each tool's documentation to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolDocs {
    /// Descriptions and parameter docs as the engine wrote them.
    Full,
    /// The first sentence of each description, no per-parameter descriptions: a fraction of
    /// the tokens, for small models with small context windows (and slow prefill).
    Lean,
}

/// Shapes a request with the `system.md` template of `harness`.
pub(crate) fn shape(
    harness: &str,
    prompt: &Prompt,
    wire: Wire,
    env: &ShapeEnv<'_>,
    docs: ToolDocs,
) -> Result<Shaped, ShapeError> {
    let ctx = &prompt.context;
    let template = env.prompts.get(harness, "system.md")?;
    let system = prompts::render(
        &template,
        &TemplateVars::new(ctx, prompt.instructions.as_deref()),
    )?;
    let rules = rules::for_provider(&ctx.provider);
    let reasoning = match wire {
        Wire::Chat if rules.replay_reasoning => ReasoningReplay::Readable,
        Wire::Messages => ReasoningReplay::SignedOnly,
        _ => ReasoningReplay::Drop,
    };
    // Examples (few-shot priming for small models) go first, as earlier conversation.
    let mut items = prompt.examples.clone();
    items.extend(prompt.history.iter().cloned());
    let messages = history::convert(
        &items,
        &HistoryOptions {
            developer: DeveloperMode::AsUser,
            keep_system: false,
            reasoning,
            keep_images: true,
        },
    );
    let tools: Vec<ToolSpec> = match docs {
        ToolDocs::Full => prompt.tools.clone(),
        ToolDocs::Lean => prompt.tools.iter().map(lean).collect(),
    };
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

/// A tool with its description cut to the first sentence and parameter descriptions removed.
fn lean(tool: &ToolSpec) -> ToolSpec {
    let mut t = tool.clone();
    t.description = first_sentence(&tool.description).to_string();
    if let ToolSpecKind::Function { parameters, .. } = &mut t.kind {
        strip_descriptions(parameters);
    }
    t
}

fn first_sentence(text: &str) -> &str {
    let end = text
        .char_indices()
        .find(|(i, c)| *c == '.' && text[i + 1..].chars().next().is_none_or(char::is_whitespace))
        .map_or(text.len(), |(i, _)| i + 1);
    text[..end].trim()
}

/// Removes the descriptions of every property, at any depth of `properties` / `items`.
/// Iterative: a schema comes from a tool server, and its depth is not Tack's to choose.
fn strip_descriptions(schema: &mut Value) {
    let mut stack = vec![schema];
    while let Some(schema) = stack.pop() {
        let Value::Object(map) = schema else {
            continue;
        };
        let mut next = Vec::new();
        for (key, value) in map.iter_mut() {
            match (key.as_str(), value) {
                ("properties", Value::Object(props)) => {
                    for prop in props.values_mut() {
                        if let Some(obj) = prop.as_object_mut() {
                            obj.remove("description");
                        }
                        next.push(prop);
                    }
                }
                ("items", items) => next.push(items),
                _ => {}
            }
        }
        stack.extend(next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_are_stripped_at_any_depth_without_recursion() {
        let mut schema = serde_json::json!({"type": "string", "description": "leaf"});
        // 100 levels (300 deep): serde_json's own Drop and Serialize of a `Value` recurse,
        // which is why parsed values are held to its 128-level parse limit; this schema is
        // built, not parsed, so it stays shallow enough for them.
        for _ in 0..100 {
            schema = serde_json::json!({"type": "array", "items": {"type": "object",
                "properties": {"p": schema}, "description": "d"}});
        }
        strip_descriptions(&mut schema);
        let text = serde_json::to_string(&schema).unwrap();
        // Every property's description is gone, at every depth; the `items` schemas' own
        // descriptions are not a property's and stay (as before the walk was iterative).
        assert!(!text.contains("leaf"));
        assert_eq!(text.matches("description").count(), 100);
    }

    #[test]
    fn lean_tools_keep_names_types_and_required_but_drop_prose() {
        let tool = ToolSpec::function(
            "shell",
            "Run a command. Each call starts a fresh shell (v1.2 semantics).",
            serde_json::json!({"type": "object", "required": ["command"], "properties": {
                "command": {"type": "string", "description": "the line"},
                "todos": {"type": "array", "items": {"type": "object", "properties": {
                    "x": {"type": "string", "description": "d"}}}}}}),
        );
        let l = lean(&tool);
        assert_eq!(l.description, "Run a command.");
        assert_eq!(
            l.parameters(),
            serde_json::json!({"type": "object", "required": ["command"], "properties": {
                "command": {"type": "string"},
                "todos": {"type": "array", "items": {"type": "object", "properties": {
                    "x": {"type": "string"}}}}}})
        );
        assert_eq!(first_sentence("v1.2 is out. More."), "v1.2 is out.");
    }
}
