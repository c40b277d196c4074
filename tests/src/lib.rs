//! Test infrastructure shared by Tack's end-to-end suites.
//!
//! - [`ReplayProvider`]: a real HTTP server on `127.0.0.1` that plays a script of
//!   [`ScriptedResponse`]s (recorded SSE byte for byte, split into chunks, delayed, truncated,
//!   stalled or hung) and records every [`RecordedRequest`].
//! - [`chat_sse`], [`event_sse`], [`data_sse`]: build SSE bodies from JSON payloads.
//! - [`shared_dir`], [`shared_fixture`], [`shared_dir_or_skip!`], [`no_shared`]: the conformance
//!   folder `../shared` (or `$TACK_SHARED`), used from where it is and skipped when absent
//!   (a failure under `CI=true`, where it is always there).
//! - [`LocalLlm`], [`local_llm_or_skip!`], [`seed`]: the real local model server started by
//!   `scripts/local-llm.sh`, opt-in with `TACK_LOCAL_LLM=1`, and the few-shot seed that makes
//!   it call the `shell` tool.
//!
//! ```
//! use serde_json::json;
//! use tack_tests::{ReplayProvider, ScriptedResponse, chat_sse};
//!
//! let provider = ReplayProvider::start([ScriptedResponse::sse(chat_sse(&[
//!     json!({"choices": [{"index": 0, "delta": {"content": "hi"}}]}),
//! ]))
//! .split_every(7)]);
//! // ...point the client under test at provider.base_url(), run it, then:
//! assert_eq!(provider.remaining(), 1);
//! assert!(provider.requests().is_empty());
//! ```

mod local_llm;
mod replay;
mod shared;
mod sse;

pub use local_llm::{
    LOCAL_LLM_MODEL, LocalLlm, Seed, SeedCall, SeedMessage, SeedTool, SeedToolCall, seed, seed_path,
};
pub use replay::{RecordedRequest, ReplayProvider, ScriptedResponse};
pub use shared::{is_ci, no_shared, shared_dir, shared_fixture, workspace_dir};
pub use sse::{chat_sse, data_sse, event_sse};

/// Re-exported so tests can name [`RecordedRequest::headers`]' type without their own
/// dependency.
pub use axum::http;
