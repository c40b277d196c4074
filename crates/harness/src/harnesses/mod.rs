//! One module per harness. Register new ones in [`builtin`].

use std::sync::Arc;

use crate::Harness;

mod generic;
mod minimal;
mod native;

/// Every built-in harness, in menu order.
pub(crate) fn builtin() -> Vec<Arc<dyn Harness>> {
    vec![Arc::new(native::Native), Arc::new(minimal::Minimal)]
}
