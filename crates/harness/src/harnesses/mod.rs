//! One module per harness. Register new ones in [`builtin`].

use std::sync::Arc;

use crate::Harness;

mod claude_code;
mod generic;
mod minimal;
mod native;
mod zcode;

/// Every built-in harness, in menu order.
pub(crate) fn builtin() -> Vec<Arc<dyn Harness>> {
    vec![
        Arc::new(native::Native),
        Arc::new(minimal::Minimal),
        Arc::new(claude_code::ClaudeCode::full()),
        Arc::new(claude_code::ClaudeCode::bare()),
        Arc::new(zcode::Zcode::default()),
    ]
}
