//! The advertised tool surface, read from `tools.json`: the built-in one compiled in from
//! `prompts/<harness>/tools.json`, or the user's `<config>/prompts/<harness>/tools.json`
//! (written by hand or by `tack import-prompt`).
//!
//! The file is the whole surface, in its order: a list of `{name, description, input_schema}`
//! (or `parameters`; the OpenAI form `{type: "function", function: {…}}` is read too). Only
//! tools Tack can honour are advertised: the harness must know the name (see
//! [`super::binding`]) and the engine tool behind it must be available in this step. Anything
//! else is dropped with a warning, once per process and file, since advertising a tool with no
//! handler only teaches the model to call something that will fail (the anchor's mistake with
//! deepseek-tui: openinterpreter 0.0.40, `tools/src/deepseek_tui_tools.json`).

use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

use serde_json::{Map, Value};
use tack_protocol::ToolSpec;

use super::binding::{Binder, CliTool};
use crate::ShapeError;
use crate::prompts::PromptStore;

/// The tools to advertise and where their definitions came from.
#[derive(Debug, Clone)]
pub(crate) struct Surface {
    /// Definitions, in order.
    pub(crate) specs: Vec<ToolSpec>,
    /// `builtin:<harness>/tools.json`, `file:<path>` or `import:…`.
    pub(crate) source: String,
}

impl Surface {
    /// The advertised names, for templates (`{% if "TodoWrite" in tools %}`).
    pub(crate) fn names(&self) -> Vec<String> {
        self.specs.iter().map(|t| t.name.clone()).collect()
    }

    /// Whether a tool is advertised.
    pub(crate) fn has(&self, tool: CliTool) -> bool {
        self.specs.iter().any(|t| t.name == tool.name())
    }
}

/// Loads the surface of `harness` (see the module docs).
///
/// # Errors
/// [`ShapeError::Template`] when the file is missing from the built-ins, cannot be read, or is
/// not a list of tool definitions.
pub(crate) fn surface(
    harness: &str,
    binder: &Binder,
    engine_tools: &[ToolSpec],
    prompts: &PromptStore,
) -> Result<Surface, ShapeError> {
    let file = prompts.get(harness, "tools.json")?;
    let definitions = parse_definitions(&file.text).map_err(|message| ShapeError::Template {
        name: file.source.clone(),
        message,
    })?;
    let mut specs = Vec::with_capacity(definitions.len());
    for def in definitions {
        let Some(tool) = CliTool::from_name(&def.name).filter(|t| binder.tools.contains(t)) else {
            warn_once(&file.source, &def.name, "Tack has no handler for it");
            continue;
        };
        if !engine_tools.iter().any(|t| t.name == tool.engine()) {
            warn_once(&file.source, &def.name, "its engine tool is not available");
            continue;
        }
        if specs.iter().any(|s: &ToolSpec| s.name == def.name) {
            warn_once(&file.source, &def.name, "it is defined twice");
            continue;
        }
        specs.push(ToolSpec::function(def.name, def.description, def.schema));
    }
    Ok(Surface {
        specs,
        source: file.source,
    })
}

fn warn_once(source: &str, tool: &str, why: &str) {
    static SEEN: OnceLock<Mutex<BTreeSet<(String, String)>>> = OnceLock::new();
    let mut seen = SEEN
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if seen.insert((source.to_string(), tool.to_string())) {
        tracing::warn!(%source, %tool, "tool definition not advertised: {why}");
    }
}

/// One tool definition from a `tools.json`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Definition {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) schema: Value,
}

/// Reads a list of tool definitions.
///
/// # Errors
/// A message saying which entry is malformed.
pub(crate) fn parse_definitions(text: &str) -> Result<Vec<Definition>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let Value::Array(items) = value else {
        return Err("expected a JSON list of tool definitions".into());
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let Value::Object(obj) = item else {
                return Err(format!("entry {i} is not an object"));
            };
            // OpenAI Chat form: {type: "function", function: {name, description, parameters}}.
            let obj: &Map<String, Value> = match obj.get("function") {
                Some(Value::Object(inner)) => inner,
                _ => obj,
            };
            let Some(name) = obj.get("name").and_then(Value::as_str) else {
                return Err(format!("entry {i} has no `name`"));
            };
            let description = obj
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let schema = obj
                .get("input_schema")
                .or_else(|| obj.get("parameters"))
                .cloned()
                .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
            if !schema.is_object() {
                return Err(format!("the schema of `{name}` is not an object"));
            }
            Ok(Definition {
                name: name.to_string(),
                description: description.to_string(),
                schema,
            })
        })
        .collect()
}

/// `schema` without the top-level `$schema` key: it tells the Messages API which draft the
/// CLI's schemas use, and means nothing to (or is refused by some) OpenAI-style hosts.
pub(crate) fn without_schema_url(spec: &ToolSpec) -> ToolSpec {
    let mut spec = spec.clone();
    if let tack_protocol::ToolSpecKind::Function {
        parameters: Value::Object(map),
        ..
    } = &mut spec.kind
    {
        map.shift_remove("$schema");
    }
    spec
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harnesses::claude_code::binding::Dialect;
    use serde_json::json;

    #[test]
    fn definitions_in_both_forms() {
        let defs = parse_definitions(
            &json!([
                {"name": "Bash", "description": "run", "input_schema": {"type": "object"}},
                {"type": "function", "function": {"name": "Read", "parameters": {"type": "object"}}}
            ])
            .to_string(),
        )
        .unwrap();
        assert_eq!(defs[0].name, "Bash");
        assert_eq!(defs[1].name, "Read");
        assert_eq!(defs[1].description, "");
        assert!(parse_definitions("{}").unwrap_err().contains("list"));
        assert!(
            parse_definitions("[{\"description\": \"x\"}]")
                .unwrap_err()
                .contains("name")
        );
    }

    #[test]
    fn override_defines_the_surface_and_unknown_tools_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("claude-code")).unwrap();
        std::fs::write(
            dir.path().join("claude-code/tools.json"),
            json!([
                {"name": "Write", "description": "mine", "input_schema": {"type": "object"}},
                {"name": "WebFetch", "description": "no handler", "input_schema": {"type": "object"}},
                {"name": "Bash", "description": "shell", "input_schema": {"type": "object"}},
                {"name": "Grep", "description": "engine grep missing", "input_schema": {"type": "object"}}
            ])
            .to_string(),
        )
        .unwrap();
        let store = PromptStore::with_override_dir(dir.path());
        let binder = Binder {
            dialect: Dialect::ClaudeCode,
            tools: &CliTool::ALL,
        };
        let engine = vec![
            ToolSpec::function("shell", "", json!({})),
            ToolSpec::function("write_file", "", json!({})),
        ];
        let s = surface("claude-code", &binder, &engine, &store).unwrap();
        assert_eq!(s.names(), vec!["Write", "Bash"]);
        assert_eq!(s.specs[0].description, "mine");
        assert!(s.source.starts_with("file:"), "{}", s.source);
    }
}
