//! `tack import-prompt --harness H CAPTURE [--config-dir DIR]`: takes the system prompt and
//! the tool definitions out of a captured request and installs them as the harness's prompt
//! overrides in the user's config folder (`<config>/prompts/<harness>/`), never in a
//! repository.
//!
//! CAPTURE is anything `tack diff-request` reads: a request body (Anthropic Messages, Chat or
//! Responses JSON), an exchange record, `tack shape` output or a captured request.
//!
//! - System prompt: Messages `system` (a string or text blocks), Responses `instructions`, or
//!   Chat's leading system messages. Claude Code's billing-attribution block is left out (Tack
//!   never sends it). Harnesses that split their system prompt into several templates get one
//!   block per template, in order (claude-code: `identity.md`, `system.md`; zcode:
//!   `identity.md`, `rules.md`, `environment.md`); a single block goes to the main template;
//!   extra blocks join the last one. Text that looks like template syntax is wrapped in
//!   `{% raw %}` so it is sent exactly as captured.
//! - Tools: every function tool with a schema, written to `tools.json` as
//!   `{name, description, input_schema}`. Shaping advertises only those Tack can run; this
//!   command shapes a request with the new files and reports which those are.
//!
//! Captured prompt text carries the capture's own facts (its working directory, its date):
//! it is used as is, so edit the files if those should follow the session.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};
use tack_engine::tools::builtin_tools;
use tack_harness::prompts::PromptStore;
use tack_harness::{Registry, ShapeEnv};

use crate::diff_request;

/// The first text of Claude Code's billing-attribution system block.
const BILLING_PREFIX: &str = "x-anthropic-billing-header";

/// The templates a harness's system prompt is split into, and the one a single block goes to.
fn templates(harness: &str) -> (&'static [&'static str], usize) {
    match harness {
        "claude-code" | "claude-code-bare" => (&["identity.md", "system.md"], 1),
        "zcode" => (&["identity.md", "rules.md", "environment.md"], 1),
        _ => (&["system.md"], 0),
    }
}

/// What a capture provides.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Imported {
    /// System prompt blocks, billing block removed.
    pub(crate) system: Vec<String>,
    /// Tool definitions `{name, description, input_schema}`.
    pub(crate) tools: Vec<Value>,
}

/// Extracts the system prompt and tools of a request body.
pub(crate) fn extract(body: &Value) -> Imported {
    let mut system: Vec<String> = match body.get("system") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_string))
            .collect(),
        _ => match body.get("instructions") {
            Some(Value::String(s)) => vec![s.clone()],
            _ => body
                .get("messages")
                .and_then(Value::as_array)
                .map(|msgs| {
                    msgs.iter()
                        .take_while(|m| {
                            matches!(
                                m.get("role").and_then(Value::as_str),
                                Some("system" | "developer")
                            )
                        })
                        .map(|m| match m.get("content") {
                            Some(Value::String(s)) => s.clone(),
                            Some(Value::Array(parts)) => parts
                                .iter()
                                .filter_map(|p| p.get("text").and_then(Value::as_str))
                                .collect::<Vec<_>>()
                                .join("\n\n"),
                            _ => String::new(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        },
    };
    system.retain(|s| !s.trim().is_empty() && !s.starts_with(BILLING_PREFIX));
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| {
                    // Chat wraps the definition in `function`; Responses and Messages do not.
                    let f = t.get("function").unwrap_or(t);
                    let name = f.get("name").and_then(Value::as_str)?;
                    let schema = f.get("input_schema").or_else(|| f.get("parameters"))?;
                    let description = f
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    Some(json!({"name": name, "description": description, "input_schema": schema}))
                })
                .collect()
        })
        .unwrap_or_default();
    Imported { system, tools }
}

/// (file name, text) for each template the blocks go to.
pub(crate) fn template_files(harness: &str, blocks: &[String]) -> Vec<(&'static str, String)> {
    let (names, main) = templates(harness);
    match blocks {
        [] => Vec::new(),
        [one] => vec![(names[main], literal(one))],
        many => {
            let last = names.len().min(many.len()) - 1;
            let mut out: Vec<(&'static str, String)> = many[..last]
                .iter()
                .zip(names)
                .map(|(b, n)| (*n, literal(b)))
                .collect();
            out.push((names[last], literal(&many[last..].join("\n\n"))));
            out
        }
    }
}

/// `text` as a template that renders to exactly `text`.
fn literal(text: &str) -> String {
    if text.contains("{{") || text.contains("{%") || text.contains("{#") {
        format!("{{% raw %}}{text}{{% endraw %}}")
    } else {
        text.to_string()
    }
}

/// The git work tree `dir` is in, if any.
fn repository_of(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// `tack import-prompt`.
pub(crate) fn run(
    harness: &str,
    capture: &Path,
    config_dir: Option<PathBuf>,
) -> Result<ExitCode, String> {
    let registry = Registry::builtin();
    let Some(h) = registry.get(harness) else {
        return Err(format!(
            "unknown harness `{harness}`; known harnesses: {}",
            registry
                .list()
                .iter()
                .map(|i| i.id)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    };
    let request = diff_request::load(&capture.display().to_string())?;
    let imported = extract(&request.body);
    if imported.system.is_empty() && imported.tools.is_empty() {
        return Err(format!(
            "{}: the request has neither a system prompt nor tools",
            capture.display()
        ));
    }

    let config_dir =
        config_dir.unwrap_or_else(|| tack_engine::config::Paths::from_env().config_dir);
    let prompts_dir = config_dir.join("prompts");
    let target = prompts_dir.join(harness);
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let absolute = if target.is_absolute() {
        target.clone()
    } else {
        cwd.join(&target)
    };
    if let Some(repo) = repository_of(&cwd) {
        let existing = absolute
            .ancestors()
            .find(|p| p.exists())
            .map(Path::to_path_buf);
        let resolved = existing.and_then(|p| std::fs::canonicalize(p).ok());
        let repo = std::fs::canonicalize(&repo).unwrap_or(repo);
        if resolved.is_some_and(|p| p.starts_with(&repo)) {
            return Err(format!(
                "{} is inside the repository {}; prompt overrides belong in your config folder (drop --config-dir, or point it outside the repository)",
                absolute.display(),
                repo.display()
            ));
        }
    }
    std::fs::create_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
    let mut written = Vec::new();
    for (name, text) in template_files(harness, &imported.system) {
        let path = target.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    if !imported.tools.is_empty() {
        let path = target.join("tools.json");
        let text = serde_json::to_string_pretty(&imported.tools).map_err(|e| e.to_string())?;
        std::fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    for path in &written {
        println!("wrote {}", path.display());
    }

    // Shape a request with the new files to report what is in use.
    let store = PromptStore::with_override_dir(&prompts_dir);
    let wire = h.wires()[0];
    let engine_tools = builtin_tools().iter().map(|t| t.spec()).collect();
    let prompt = crate::shape::bare_prompt(&cwd, wire, engine_tools);
    let shaped = h
        .shape(
            &prompt,
            wire,
            &ShapeEnv {
                prompts: &store,
                emulate_identity: false,
            },
        )
        .map_err(|e| format!("the imported files do not shape a request: {e}"))?;
    println!("prompt source: {}", shaped.prompt_source);
    let advertised: Vec<&str> = shaped
        .request
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    println!("tools advertised: {}", advertised.join(", "));
    let dropped: Vec<&str> = imported
        .tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .filter(|n| !advertised.contains(n))
        .collect();
    if !dropped.is_empty() {
        println!(
            "not advertised (Tack has no handler for them, or {harness} does not read tools.json): {}",
            dropped.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_capture_drops_the_billing_block_and_splits_per_template() {
        let body = json!({
            "system": [
                {"type": "text", "text": "x-anthropic-billing-header: cc_version=1;"},
                {"type": "text", "text": "Identity line."},
                {"type": "text", "text": "Main {{ not a variable }} prompt."}
            ],
            "tools": [
                {"name": "Bash", "description": "run", "input_schema": {"type": "object"}},
                {"type": "web_search_20250305", "name": "web_search"}
            ]
        });
        let imported = extract(&body);
        assert_eq!(imported.system.len(), 2);
        assert_eq!(
            imported.tools,
            vec![json!({"name": "Bash", "description": "run", "input_schema": {"type": "object"}})]
        );
        let files = template_files("claude-code", &imported.system);
        assert_eq!(files[0], ("identity.md", "Identity line.".to_string()));
        assert_eq!(
            files[1],
            (
                "system.md",
                "{% raw %}Main {{ not a variable }} prompt.{% endraw %}".to_string()
            )
        );
    }

    #[test]
    fn chat_and_responses_captures() {
        let chat = json!({"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "function": {"name": "Read", "parameters": {"type": "object"}}}]});
        let imported = extract(&chat);
        assert_eq!(imported.system, vec!["Be brief."]);
        assert_eq!(imported.tools[0]["name"], "Read");
        assert_eq!(
            template_files("claude-code", &imported.system),
            vec![("system.md", "Be brief.".to_string())]
        );
        let responses = json!({"instructions": "Do it.", "tools": [{"type": "function", "name": "Glob", "parameters": {}}]});
        let imported = extract(&responses);
        assert_eq!(
            template_files("native", &imported.system),
            vec![("system.md", "Do it.".to_string())]
        );
        assert_eq!(imported.tools[0]["input_schema"], json!({}));
        let three = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(
            template_files("claude-code", &three),
            vec![
                ("identity.md", "a".to_string()),
                ("system.md", "b\n\nc".to_string())
            ]
        );
    }
}
