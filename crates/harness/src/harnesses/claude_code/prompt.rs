//! Rendering the prompt templates of the Anthropic-style harnesses with the step's facts.

use serde::Serialize;
use tack_protocol::{Prompt, TodoEntry};

use super::model::ModelFacts;
use super::snapshot::GitSnapshot;
use crate::ShapeError;
use crate::prompts::{self, PromptStore, Template, TemplateVars};

/// Variables these harnesses add to [`TemplateVars`].
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Extra {
    /// Advertised tool names, for `{% if "TodoWrite" in tools %}`.
    pub(crate) tools: Vec<String>,
    /// `Claude Opus 4.6`, or the id for models Tack cannot name.
    pub(crate) model_name: String,
    /// The slug without provider prefix or tags.
    pub(crate) model_id: String,
    /// Published knowledge cutoff, when known.
    pub(crate) knowledge_cutoff: Option<&'static str>,
    /// `linux`, `darwin` or `win32` (the CLI's `process.platform` names).
    pub(crate) platform: String,
    /// The workspace is inside a git repository.
    pub(crate) is_git: bool,
    /// The session's git snapshot.
    pub(crate) git_snapshot: Option<GitSnapshot>,
    /// The todo list, for the todo reminder (`none` elsewhere, or when there is no list yet).
    pub(crate) todos: Option<Vec<TodoEntry>>,
}

impl Extra {
    pub(crate) fn new(
        prompt: &Prompt,
        facts: &ModelFacts,
        tools: Vec<String>,
        git_snapshot: Option<GitSnapshot>,
    ) -> Self {
        let ctx = &prompt.context;
        let platform = match ctx.os.as_str() {
            "macos" => "darwin",
            "windows" => "win32",
            other => other,
        };
        Extra {
            tools,
            model_name: facts.display_name(),
            model_id: facts.id.clone(),
            knowledge_cutoff: facts.knowledge_cutoff(),
            platform: platform.to_string(),
            is_git: ctx.git.is_some(),
            git_snapshot,
            todos: None,
        }
    }
}

/// Renders one harness's templates, remembering where each came from.
pub(crate) struct Renderer<'a> {
    harness: &'static str,
    store: &'a PromptStore,
    vars: TemplateVars<'a>,
    extra: Extra,
    /// Sources of the templates rendered so far, in order.
    sources: Vec<String>,
}

impl<'a> Renderer<'a> {
    pub(crate) fn new(
        harness: &'static str,
        store: &'a PromptStore,
        prompt: &'a Prompt,
        extra: Extra,
    ) -> Self {
        Renderer {
            harness,
            store,
            vars: TemplateVars::new(&prompt.context, prompt.instructions.as_deref()),
            extra,
            sources: Vec::new(),
        }
    }

    /// Renders `file`, without trailing whitespace.
    ///
    /// # Errors
    /// [`ShapeError::Template`] when the template is missing or fails to render.
    pub(crate) fn render(&mut self, file: &str) -> Result<String, ShapeError> {
        let template = self.store.get(self.harness, file)?;
        let text = self.render_template(&template, &self.extra)?;
        self.sources.push(template.source);
        Ok(text)
    }

    /// The template for `file`, for rendering several times (e.g. the todo reminder).
    ///
    /// # Errors
    /// [`ShapeError::Template`] when it is missing.
    pub(crate) fn template(&mut self, file: &str) -> Result<Template, ShapeError> {
        let template = self.store.get(self.harness, file)?;
        self.sources.push(template.source.clone());
        Ok(template)
    }

    /// Renders the todo reminder template for `todos`.
    ///
    /// # Errors
    /// [`ShapeError::Template`] when it fails to render.
    pub(crate) fn todo_reminder(
        &self,
        template: &Template,
        todos: Option<&[TodoEntry]>,
    ) -> Result<String, ShapeError> {
        let extra = Extra {
            todos: todos.map(<[TodoEntry]>::to_vec),
            ..self.extra.clone()
        };
        self.render_template(template, &extra)
    }

    fn render_template(&self, template: &Template, extra: &Extra) -> Result<String, ShapeError> {
        let text = prompts::render_with(template, &self.vars, extra)?;
        Ok(text.trim_end().to_string())
    }

    /// `prompt_source` for the inspector: the main template's source, then every other source
    /// that is not built in (an override or import the user should know is in use).
    pub(crate) fn prompt_source(&self, main: &str, tools: &str) -> String {
        let mut parts = vec![main.to_string()];
        for source in self.sources.iter().map(String::as_str).chain([tools]) {
            if !source.starts_with("builtin:") && !parts.iter().any(|p| p == source) {
                parts.push(source.to_string());
            }
        }
        parts.join(", ")
    }

    /// The source recorded for `file` (after it was rendered).
    pub(crate) fn source_of(&self, file: &str) -> String {
        self.sources
            .iter()
            .find(|s| s.ends_with(&format!("/{file}")))
            .cloned()
            .unwrap_or_else(|| format!("builtin:{}/{file}", self.harness))
    }

    /// Whether the step has project instruction files.
    pub(crate) fn has_project_docs(&self) -> bool {
        !self.vars.project_docs.is_empty()
    }

    /// The extra variables.
    pub(crate) fn extra(&self) -> &Extra {
        &self.extra
    }
}
