//! What Tack derives from a model slug for the Anthropic-style harnesses: family, version,
//! display name, and the request constants that depend on them.
//!
//! Slugs come in many spellings for the same model, so parsing is deliberately loose:
//! `claude-opus-4-6`, `claude-opus-4.6`, `anthropic/claude-opus-4-6` (OpenRouter),
//! `claude-sonnet-4-5@20250929` (Vertex), `us.anthropic.claude-sonnet-4-5-20250929-v1:0`
//! (Bedrock), `claude-3-7-sonnet-20250219` (the older version-first order), `opus4.6`. An
//! eight-digit token is a date stamp, never a minor version.
//!
//! Sources for the constants: the anchor (openinterpreter 0.0.40,
//! `codex-rs/core/src/harness/claude_code.rs`, request constants; see `docs/sources.md`:
//! adaptive thinking for Opus/Sonnet ≥ 4.6 and `claude-mythos-preview`, otherwise enabled
//! thinking with `budget_tokens = max_tokens - 1`; `max_tokens` 64000 for Opus ≥ 4.6 else
//! 32000) and a captured request of Claude Code 2.1.332 (npm `@anthropic-ai/claude-code`:
//! `claude-opus-5-5` gets `max_tokens` 128000, adaptive thinking and `effort: medium`). Where
//! they overlap, the capture wins; it only adds the 5.x row.

/// A Claude model family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Opus,
    Sonnet,
    Haiku,
    /// `claude-mythos-preview`.
    Mythos,
}

impl Family {
    fn name(self) -> &'static str {
        match self {
            Family::Opus => "Opus",
            Family::Sonnet => "Sonnet",
            Family::Haiku => "Haiku",
            Family::Mythos => "Mythos",
        }
    }

    fn parse(token: &str) -> Option<(Family, &str)> {
        for (prefix, family) in [
            ("opus", Family::Opus),
            ("sonnet", Family::Sonnet),
            ("haiku", Family::Haiku),
            ("mythos", Family::Mythos),
        ] {
            if let Some(rest) = token.strip_prefix(prefix)
                && rest.bytes().all(|b| b.is_ascii_digit())
            {
                return Some((family, rest));
            }
        }
        None
    }
}

/// Facts about the model a request goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModelFacts {
    /// The slug without a `provider/` prefix, `:tag`, `@date` or `[…]` suffix, as the
    /// environment section reports it.
    pub id: String,
    /// Claude family, when the slug names one.
    pub family: Option<Family>,
    /// `(major, minor)`, when the slug carries a version.
    pub version: Option<(u32, u32)>,
}

impl ModelFacts {
    /// Parses a slug (see the module docs for the spellings understood).
    pub(crate) fn parse(slug: &str) -> Self {
        let base = slug.rsplit('/').next().unwrap_or(slug);
        let cut = base.find([':', '@', '[']).unwrap_or(base.len());
        let id = base[..cut].to_string();
        let lower = id.to_ascii_lowercase();
        // Bedrock ids put a region and vendor in front (`us.anthropic.claude-…`).
        let tail = lower.find("claude").map_or(lower.as_str(), |i| &lower[i..]);
        let tokens: Vec<&str> = tail
            .split(['-', '.', '_'])
            .filter(|t| !t.is_empty())
            .collect();
        let mut family = None;
        let mut version = None;
        for (i, token) in tokens.iter().enumerate() {
            let Some((f, inline)) = Family::parse(token) else {
                continue;
            };
            family = Some(f);
            let after: Vec<&str> = if inline.is_empty() {
                tokens[i + 1..].to_vec()
            } else {
                std::iter::once(inline)
                    .chain(tokens[i + 1..].iter().copied())
                    .collect()
            };
            version = version_of(&after).or_else(|| {
                // Version-first names: `claude-3-7-sonnet`.
                let before: Vec<&str> = tokens[..i]
                    .iter()
                    .copied()
                    .skip_while(|t| *t == "claude")
                    .collect();
                version_of(&before)
            });
            break;
        }
        ModelFacts {
            id,
            family,
            version,
        }
    }

    /// Whether this is a Claude model of `family` at `major.minor` or later.
    fn at_least(&self, family: Family, major: u32, minor: u32) -> bool {
        self.family == Some(family) && self.version.is_some_and(|v| v >= (major, minor))
    }

    /// Any Claude family at major version 5 or later.
    fn fifth_generation(&self) -> bool {
        self.family.is_some() && self.version.is_some_and(|(major, _)| major >= 5)
    }

    /// Human name, e.g. `Claude Opus 4.6`; the id for models Tack cannot name.
    pub(crate) fn display_name(&self) -> String {
        match (self.family, self.version) {
            (Some(Family::Mythos), _) => "Claude Mythos (preview)".to_string(),
            (Some(f), Some((major, 0))) => format!("Claude {} {major}", f.name()),
            (Some(f), Some((major, minor))) => format!("Claude {} {major}.{minor}", f.name()),
            (Some(f), None) => format!("Claude {}", f.name()),
            (None, _) => self.id.clone(),
        }
    }

    /// The reliable knowledge cutoff Anthropic publishes for the model (models overview
    /// page), for the few models Tack knows it for. Unknown models get none rather than a
    /// guess: the anchor's hard-coded cutoff was wrong for every other model (`claude_code_prompt.rs`).
    pub(crate) fn knowledge_cutoff(&self) -> Option<&'static str> {
        match (self.family?, self.version?) {
            (Family::Opus, (4, 1)) | (Family::Sonnet, (4, 5)) => Some("January 2025"),
            (Family::Haiku, (4, 5)) => Some("February 2025"),
            (Family::Opus, (4, 5)) => Some("May 2025"),
            _ => None,
        }
    }

    /// `thinking: {type: "adaptive"}` rather than an explicit budget.
    pub(crate) fn adaptive_thinking(&self) -> bool {
        self.family == Some(Family::Mythos)
            || self.at_least(Family::Opus, 4, 6)
            || self.at_least(Family::Sonnet, 4, 6)
            || self.fifth_generation()
    }

    /// The CLI's `max_tokens` for this model.
    pub(crate) fn max_tokens(&self) -> u32 {
        if self.family == Some(Family::Mythos) || self.at_least(Family::Opus, 5, 0) {
            128_000
        } else if self.at_least(Family::Opus, 4, 6) {
            64_000
        } else {
            32_000
        }
    }

    /// Whether the model takes `output_config.effort` (introduced with Opus 4.5 under the
    /// `effort-2025-11-24` beta; every later generation has it).
    pub(crate) fn supports_effort(&self) -> bool {
        self.family == Some(Family::Mythos)
            || self.at_least(Family::Opus, 4, 5)
            || self.at_least(Family::Sonnet, 4, 6)
            || self.fifth_generation()
    }

    /// Whether user images can be sent as image blocks. Every Claude model since Claude 3
    /// reads images; of the other models seen behind Anthropic-style endpoints, DeepSeek's
    /// and the text-only GLM models do not (GLM's vision models end in `v`, e.g. `glm-4.5v`).
    /// Anything else is assumed to, as the generic conversion does.
    pub(crate) fn accepts_images(&self) -> bool {
        if self.family.is_some() {
            return true;
        }
        let id = self.id.to_ascii_lowercase();
        if id.contains("deepseek") {
            return false;
        }
        if let Some(rest) = id.strip_prefix("glm-") {
            return rest.split('-').next().is_some_and(|v| v.ends_with('v'));
        }
        true
    }
}

/// `(major, minor)` from the leading numeric tokens: `["4", "6", "20260101"]` → `(4, 6)`;
/// `["4", "20250514"]` → `(4, 0)`.
fn version_of(tokens: &[&str]) -> Option<(u32, u32)> {
    let small = |t: &&str| t.len() <= 2 && t.bytes().all(|b| b.is_ascii_digit());
    let mut numbers = tokens.iter().take_while(|t| small(t));
    let major = numbers.next()?.parse().ok()?;
    let minor = numbers.next().and_then(|t| t.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(slug: &str) -> (Option<Family>, Option<(u32, u32)>) {
        let f = ModelFacts::parse(slug);
        (f.family, f.version)
    }

    #[test]
    fn slugs_in_every_spelling_parse() {
        assert_eq!(facts("claude-opus-4-6"), (Some(Family::Opus), Some((4, 6))));
        assert_eq!(facts("claude-opus-4.6"), (Some(Family::Opus), Some((4, 6))));
        assert_eq!(
            facts("anthropic/claude-sonnet-4.5"),
            (Some(Family::Sonnet), Some((4, 5)))
        );
        assert_eq!(
            facts("claude-sonnet-4-5@20250929"),
            (Some(Family::Sonnet), Some((4, 5)))
        );
        assert_eq!(
            facts("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            (Some(Family::Sonnet), Some((4, 5)))
        );
        assert_eq!(
            facts("claude-opus-4-20250514"),
            (Some(Family::Opus), Some((4, 0)))
        );
        assert_eq!(
            facts("claude-3-7-sonnet-20250219"),
            (Some(Family::Sonnet), Some((3, 7)))
        );
        assert_eq!(facts("opus4.6"), (Some(Family::Opus), Some((4, 6))));
        assert_eq!(facts("claude-opus-5-5"), (Some(Family::Opus), Some((5, 5))));
        assert_eq!(facts("claude-mythos-preview").0, Some(Family::Mythos));
        assert_eq!(facts("deepseek-chat"), (None, None));
        assert_eq!(
            ModelFacts::parse("openrouter/claude-opus-4-6:beta").id,
            "claude-opus-4-6"
        );
    }

    #[test]
    fn thinking_mode_follows_family_and_version() {
        // The anchor's claude_code.rs tests (thinking by model family): adaptive for Opus/Sonnet ≥ 4.6, mythos and (capture) 5.x.
        for slug in [
            "claude-opus-4-6",
            "anthropic/claude-sonnet-4.6",
            "claude-mythos-preview",
            "claude-opus-5-5",
            "claude-haiku-5-0",
        ] {
            assert!(ModelFacts::parse(slug).adaptive_thinking(), "{slug}");
        }
        for slug in [
            "claude-opus-4-5",
            "claude-sonnet-4-5",
            "claude-haiku-4-5",
            "deepseek-chat",
        ] {
            assert!(!ModelFacts::parse(slug).adaptive_thinking(), "{slug}");
        }
    }

    #[test]
    fn max_tokens_by_model() {
        assert_eq!(ModelFacts::parse("claude-opus-5-5").max_tokens(), 128_000);
        assert_eq!(ModelFacts::parse("claude-opus-4-6").max_tokens(), 64_000);
        assert_eq!(ModelFacts::parse("claude-sonnet-4-6").max_tokens(), 32_000);
        assert_eq!(ModelFacts::parse("smollm2-135m").max_tokens(), 32_000);
    }

    #[test]
    fn names_and_images() {
        assert_eq!(
            ModelFacts::parse("claude-opus-4-6").display_name(),
            "Claude Opus 4.6"
        );
        assert_eq!(
            ModelFacts::parse("claude-opus-4-20250514").display_name(),
            "Claude Opus 4"
        );
        assert_eq!(ModelFacts::parse("glm-4.6").display_name(), "glm-4.6");
        assert!(!ModelFacts::parse("glm-4.6").accepts_images());
        assert!(ModelFacts::parse("glm-4.5v").accepts_images());
        assert!(!ModelFacts::parse("deepseek-chat").accepts_images());
        assert!(ModelFacts::parse("claude-haiku-4-5").accepts_images());
        assert_eq!(
            ModelFacts::parse("claude-opus-5-5").knowledge_cutoff(),
            None
        );
    }
}
