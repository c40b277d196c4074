//! `minimal`: a short system prompt and plain function tools, for small or local models where
//! every prompt token counts.

use tack_protocol::{Prompt, Wire};

use crate::{Harness, ShapeEnv, ShapeError, Shaped};

pub(crate) struct Minimal;

impl Harness for Minimal {
    fn id(&self) -> &'static str {
        "minimal"
    }
    fn description(&self) -> &'static str {
        "A short prompt and plain function tools (small and local models)"
    }
    fn wires(&self) -> &'static [Wire] {
        &Wire::ALL
    }
    fn shape(&self, prompt: &Prompt, wire: Wire, env: &ShapeEnv<'_>) -> Result<Shaped, ShapeError> {
        super::generic::shape(self.id(), prompt, wire, env, super::generic::ToolDocs::Lean)
    }
}
