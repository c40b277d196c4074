//! Prompt templates: compiled in from `prompts/<harness>/`, overridable from the user's config
//! folder (`<config>/prompts/<harness>/<file>`).
//!
//! Templates use minijinja syntax (`{{ cwd }}`, `{% if git %}…{% endif %}`) and are filled from
//! the frozen [`StepContext`] at request time, so the date, git state and AGENTS.md are those of
//! the step being shaped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use tack_protocol::{GitState, ListingEntry, ProjectDoc, StepContext};

use crate::ShapeError;

/// Built-in templates: (harness, file name, text). Our own words; see `prompts/README.md`.
const BUILTIN: &[(&str, &str, &str)] = &[
    (
        "minimal",
        "system.md",
        include_str!("../../../prompts/minimal/system.md"),
    ),
    (
        "native",
        "system.md",
        include_str!("../../../prompts/native/system.md"),
    ),
    // Chat-native harnesses: kimi-cli, kimi-code, qwen-code, opencode, deepseek-tui.
    (
        "kimi-cli",
        "system.md",
        include_str!("../../../prompts/kimi-cli/system.md"),
    ),
    (
        "kimi-code",
        "system.md",
        include_str!("../../../prompts/kimi-code/system.md"),
    ),
    (
        "kimi-code",
        "permission-reminder.md",
        include_str!("../../../prompts/kimi-code/permission-reminder.md"),
    ),
    (
        "qwen-code",
        "system.md",
        include_str!("../../../prompts/qwen-code/system.md"),
    ),
    (
        "qwen-code",
        "startup.md",
        include_str!("../../../prompts/qwen-code/startup.md"),
    ),
    (
        "qwen-code",
        "date-reminder.md",
        include_str!("../../../prompts/qwen-code/date-reminder.md"),
    ),
    (
        "opencode",
        "system.md",
        include_str!("../../../prompts/opencode/system.md"),
    ),
    (
        "opencode",
        "system-gpt.md",
        include_str!("../../../prompts/opencode/system-gpt.md"),
    ),
    (
        "opencode",
        "environment.md",
        include_str!("../../../prompts/opencode/environment.md"),
    ),
    (
        "opencode",
        "title.md",
        include_str!("../../../prompts/opencode/title.md"),
    ),
    (
        "opencode",
        "title-request.md",
        include_str!("../../../prompts/opencode/title-request.md"),
    ),
    (
        "deepseek-tui",
        "system.md",
        include_str!("../../../prompts/deepseek-tui/system.md"),
    ),
    (
        "deepseek-tui",
        "turn-meta.md",
        include_str!("../../../prompts/deepseek-tui/turn-meta.md"),
    ),
    (
        "swe-agent",
        "system.md",
        include_str!("../../../prompts/swe-agent/system.md"),
    ),
    (
        "swe-agent",
        "instance.md",
        include_str!("../../../prompts/swe-agent/instance.md"),
    ),
    (
        "swe-agent",
        "format_error.md",
        include_str!("../../../prompts/swe-agent/format_error.md"),
    ),
    (
        "swe-agent",
        "submit_review.md",
        include_str!("../../../prompts/swe-agent/submit_review.md"),
    ),
    (
        "swe-agent",
        "tools.json",
        include_str!("../../../prompts/swe-agent/tools.json"),
    ),
    (
        "mini-swe-agent",
        "system.md",
        include_str!("../../../prompts/mini-swe-agent/system.md"),
    ),
    (
        "mini-swe-agent",
        "instance.md",
        include_str!("../../../prompts/mini-swe-agent/instance.md"),
    ),
    (
        "mini-swe-agent",
        "format_error.md",
        include_str!("../../../prompts/mini-swe-agent/format_error.md"),
    ),
    (
        "mini-swe-agent",
        "tools.json",
        include_str!("../../../prompts/mini-swe-agent/tools.json"),
    ),
    (
        "terminus-2",
        "instance.md",
        include_str!("../../../prompts/terminus-2/instance.md"),
    ),
    (
        "terminus-2",
        "parse_error.md",
        include_str!("../../../prompts/terminus-2/parse_error.md"),
    ),
    (
        "terminus-2",
        "completion_confirmation.md",
        include_str!("../../../prompts/terminus-2/completion_confirmation.md"),
    ),
    (
        "terminus-2",
        "summary.md",
        include_str!("../../../prompts/terminus-2/summary.md"),
    ),
    (
        "terminus-2",
        "questions.md",
        include_str!("../../../prompts/terminus-2/questions.md"),
    ),
    (
        "terminus-2",
        "answer_questions.md",
        include_str!("../../../prompts/terminus-2/answer_questions.md"),
    ),
    (
        "terminus-2",
        "handoff.md",
        include_str!("../../../prompts/terminus-2/handoff.md"),
    ),
    (
        "terminus-2",
        "settings.json",
        include_str!("../../../prompts/terminus-2/settings.json"),
    ),
    (
        "claude-code",
        "identity.md",
        include_str!("../../../prompts/claude-code/identity.md"),
    ),
    (
        "claude-code",
        "system.md",
        include_str!("../../../prompts/claude-code/system.md"),
    ),
    (
        "claude-code",
        "environment.md",
        include_str!("../../../prompts/claude-code/environment.md"),
    ),
    (
        "claude-code",
        "git-status.md",
        include_str!("../../../prompts/claude-code/git-status.md"),
    ),
    (
        "claude-code",
        "attribution.md",
        include_str!("../../../prompts/claude-code/attribution.md"),
    ),
    (
        "claude-code",
        "project-docs.md",
        include_str!("../../../prompts/claude-code/project-docs.md"),
    ),
    (
        "claude-code",
        "todo-reminder.md",
        include_str!("../../../prompts/claude-code/todo-reminder.md"),
    ),
    (
        "claude-code",
        "tools.json",
        include_str!("../../../prompts/claude-code/tools.json"),
    ),
    (
        "claude-code-bare",
        "identity.md",
        include_str!("../../../prompts/claude-code-bare/identity.md"),
    ),
    (
        "claude-code-bare",
        "system.md",
        include_str!("../../../prompts/claude-code-bare/system.md"),
    ),
    (
        "claude-code-bare",
        "tools.json",
        include_str!("../../../prompts/claude-code-bare/tools.json"),
    ),
    (
        "zcode",
        "identity.md",
        include_str!("../../../prompts/zcode/identity.md"),
    ),
    (
        "zcode",
        "rules.md",
        include_str!("../../../prompts/zcode/rules.md"),
    ),
    (
        "zcode",
        "environment.md",
        include_str!("../../../prompts/zcode/environment.md"),
    ),
    (
        "zcode",
        "context.md",
        include_str!("../../../prompts/zcode/context.md"),
    ),
    (
        "zcode",
        "date-reminder.md",
        include_str!("../../../prompts/zcode/date-reminder.md"),
    ),
    (
        "zcode",
        "todo-reminder.md",
        include_str!("../../../prompts/zcode/todo-reminder.md"),
    ),
    (
        "zcode",
        "tools.json",
        include_str!("../../../prompts/zcode/tools.json"),
    ),
];

/// Where templates come from: built-ins, optionally overridden by files in a folder.
#[derive(Debug, Clone, Default)]
pub struct PromptStore {
    override_dir: Option<PathBuf>,
    /// Templates set programmatically (e.g. imported from a captured request), by
    /// (harness, file). They win over files and built-ins.
    imported: BTreeMap<(String, String), String>,
}

/// A template's text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// Template text.
    pub text: String,
    /// `builtin:<harness>/<file>`, `file:<path>` or `import:<harness>/<file>`.
    pub source: String,
}

impl PromptStore {
    /// Built-ins only.
    pub fn builtin() -> Self {
        PromptStore::default()
    }

    /// Built-ins, overridden by `<dir>/<harness>/<file>` where such a file exists.
    pub fn with_override_dir(dir: impl Into<PathBuf>) -> Self {
        PromptStore {
            override_dir: Some(dir.into()),
            imported: BTreeMap::new(),
        }
    }

    /// Sets a template for (harness, file) from memory; it wins over files and built-ins.
    pub fn import(&mut self, harness: &str, file: &str, text: impl Into<String>) {
        self.imported
            .insert((harness.to_string(), file.to_string()), text.into());
    }

    /// Looks up a template.
    ///
    /// # Errors
    /// [`ShapeError::Template`] when neither an override nor a built-in exists, or an override
    /// file exists but cannot be read.
    pub fn get(&self, harness: &str, file: &str) -> Result<Template, ShapeError> {
        self.find(harness, file)?
            .ok_or_else(|| ShapeError::Template {
                name: format!("{harness}/{file}"),
                message: "no such template".into(),
            })
    }

    /// Like [`PromptStore::get`], but `Ok(None)` when there is neither an override nor a
    /// built-in (for optional files such as a `tools.json` override).
    ///
    /// # Errors
    /// [`ShapeError::Template`] when an override file exists but cannot be read.
    pub fn find(&self, harness: &str, file: &str) -> Result<Option<Template>, ShapeError> {
        if let Some(text) = self.imported.get(&(harness.to_string(), file.to_string())) {
            return Ok(Some(Template {
                text: text.clone(),
                source: format!("import:{harness}/{file}"),
            }));
        }
        if let Some(dir) = &self.override_dir {
            let path = dir.join(harness).join(file);
            if path.is_file() {
                return match std::fs::read_to_string(&path) {
                    Ok(text) => Ok(Some(Template {
                        text,
                        source: format!("file:{}", path.display()),
                    })),
                    Err(e) => Err(ShapeError::Template {
                        name: format!("{harness}/{file}"),
                        message: format!("cannot read override {}: {e}", path.display()),
                    }),
                };
            }
        }
        Ok(BUILTIN
            .iter()
            .find(|(h, f, _)| *h == harness && *f == file)
            .map(|(_, _, text)| Template {
                text: (*text).to_string(),
                source: format!("builtin:{harness}/{file}"),
            }))
    }

    /// The override folder, if any.
    pub fn override_dir(&self) -> Option<&Path> {
        self.override_dir.as_deref()
    }
}

/// The variables every template can use.
#[derive(Debug, Clone, Serialize)]
pub struct TemplateVars<'a> {
    /// Workspace folder.
    pub cwd: &'a str,
    /// Local date, `YYYY-MM-DD`.
    pub date: String,
    /// Local time, RFC 3339.
    pub now: &'a str,
    /// `linux`, `macos`, `windows`.
    pub os: &'a str,
    /// `uname -sr`.
    pub os_version: &'a str,
    /// Shell path.
    pub shell: &'a str,
    /// Shell name (basename).
    pub shell_name: &'a str,
    /// Git state, if a repository.
    pub git: Option<&'a GitState>,
    /// AGENTS.md and similar, root first.
    pub project_docs: &'a [ProjectDoc],
    /// Workspace listing.
    pub listing: &'a [ListingEntry],
    /// Model slug.
    pub model: &'a str,
    /// Approval policy name.
    pub approval: &'static str,
    /// Extra instructions from config or session.
    pub instructions: Option<&'a str>,
}

impl<'a> TemplateVars<'a> {
    /// Variables of a step.
    pub fn new(ctx: &'a StepContext, instructions: Option<&'a str>) -> Self {
        TemplateVars {
            cwd: &ctx.cwd,
            date: ctx.now.get(..10).unwrap_or(&ctx.now).to_string(),
            now: &ctx.now,
            os: &ctx.os,
            os_version: &ctx.os_version,
            shell: &ctx.shell,
            shell_name: ctx.shell.rsplit('/').next().unwrap_or(&ctx.shell),
            git: ctx.git.as_ref(),
            project_docs: &ctx.project_docs,
            listing: &ctx.listing,
            model: &ctx.model,
            approval: ctx.approval.as_str(),
            instructions,
        }
    }
}

/// Renders a template with the step's variables.
///
/// # Errors
/// [`ShapeError::Template`] with minijinja's message (line and cause) on a syntax or render
/// error; undefined variables are errors, so a typo in an override is reported, not silently
/// blank.
pub fn render(template: &Template, vars: &TemplateVars<'_>) -> Result<String, ShapeError> {
    render_context(template, vars)
}

/// Renders a template with the step's variables plus harness-specific ones (`extra`, a
/// serializable struct or map; its keys win over same-named step variables).
///
/// # Errors
/// As [`render`]; also when `extra` does not serialize to a JSON object.
pub fn render_with<E: Serialize>(
    template: &Template,
    vars: &TemplateVars<'_>,
    extra: &E,
) -> Result<String, ShapeError> {
    let fail = |message: String| ShapeError::Template {
        name: template.source.clone(),
        message,
    };
    let mut merged = match serde_json::to_value(vars) {
        Ok(serde_json::Value::Object(map)) => map,
        Ok(_) => return Err(fail("template variables are not an object".into())),
        Err(e) => return Err(fail(e.to_string())),
    };
    match serde_json::to_value(extra) {
        Ok(serde_json::Value::Object(map)) => merged.extend(map),
        Ok(_) => return Err(fail("extra template variables are not an object".into())),
        Err(e) => return Err(fail(e.to_string())),
    }
    render_context(template, &merged)
}

fn render_context<C: Serialize>(template: &Template, ctx: &C) -> Result<String, ShapeError> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(true);
    let err = |e: minijinja::Error| ShapeError::Template {
        name: template.source.clone(),
        message: e.to_string(),
    };
    env.add_template("t", &template.text).map_err(err)?;
    let tmpl = env.get_template("t").map_err(err)?;
    tmpl.render(ctx).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::{ApprovalPolicy, ProviderInfo, Wire};

    fn ctx() -> StepContext {
        StepContext {
            session_id: "s".into(),
            turn_id: "t".into(),
            step: 0,
            cwd: "/work/p".into(),
            now: "2026-11-29T12:00:00+00:00".into(),
            os: "linux".into(),
            os_version: "Linux 6.1".into(),
            shell: "/bin/bash".into(),
            git: None,
            project_docs: vec![],
            listing: vec![],
            model: "m".into(),
            provider: ProviderInfo {
                id: "p".into(),
                name: "P".into(),
                base_url: "http://x".into(),
                wire: Wire::Chat,
            },
            approval: ApprovalPolicy::Untrusted,
        }
    }

    #[test]
    fn override_file_wins_and_reports_its_source() {
        let dir = std::env::temp_dir().join(format!("tack-prompts-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("minimal")).unwrap();
        std::fs::write(
            dir.join("minimal/system.md"),
            "custom {{ cwd }} on {{ date }}",
        )
        .unwrap();
        let store = PromptStore::with_override_dir(&dir);
        let t = store.get("minimal", "system.md").unwrap();
        assert!(t.source.starts_with("file:"), "{}", t.source);
        let c = ctx();
        assert_eq!(
            render(&t, &TemplateVars::new(&c, None)).unwrap(),
            "custom /work/p on 2026-11-29"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn undefined_variable_is_a_clear_error() {
        let t = Template {
            text: "hello {{ nope }}".into(),
            source: "import:x/y".into(),
        };
        let c = ctx();
        let err = render(&t, &TemplateVars::new(&c, None)).unwrap_err();
        assert!(err.to_string().contains("import:x/y"), "{err}");
    }

    #[test]
    fn builtin_templates_render() {
        let store = PromptStore::builtin();
        let c = ctx();
        for h in ["minimal", "native"] {
            let t = store.get(h, "system.md").unwrap();
            let text = render(&t, &TemplateVars::new(&c, Some("be brief"))).unwrap();
            assert!(text.contains("/work/p"), "{h}: {text}");
        }
    }
}
