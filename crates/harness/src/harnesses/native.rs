//! `native`: Tack's own dialect. No CLI is emulated: Tack's system prompt, the engine's tools
//! under their own names, generic history conversion. Works on every wire.

use tack_protocol::{Prompt, Wire};

use crate::{Harness, ShapeEnv, ShapeError, Shaped};

pub(crate) struct Native;

impl Harness for Native {
    fn id(&self) -> &'static str {
        "native"
    }
    fn description(&self) -> &'static str {
        "Tack's own prompt and tools, on any wire"
    }
    fn wires(&self) -> &'static [Wire] {
        &Wire::ALL
    }
    fn shape(&self, prompt: &Prompt, wire: Wire, env: &ShapeEnv<'_>) -> Result<Shaped, ShapeError> {
        super::generic::shape(self.id(), prompt, wire, env, super::generic::ToolDocs::Full)
    }
}
