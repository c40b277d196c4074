//! The harness registry and the routing check (wire × harness → route or error).

use std::fmt;
use std::sync::Arc;

use tack_protocol::Wire;

use crate::Harness;
use crate::harnesses;

/// The harnesses Tack knows, by id.
#[derive(Clone)]
pub struct Registry {
    harnesses: Vec<Arc<dyn Harness>>,
}

/// What menus show about a harness.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HarnessInfo {
    /// Id.
    pub id: &'static str,
    /// Supported wires.
    pub wires: Vec<Wire>,
    /// One line.
    pub description: &'static str,
}

/// The resolved pair (wire, harness): which shaper and which decoder run.
#[derive(Clone)]
pub struct Route {
    /// The wire requests go over (selects the renderer and the stream decoder).
    pub wire: Wire,
    /// The harness that shapes them and post-processes the replies.
    pub harness: Arc<dyn Harness>,
}

impl Route {
    /// `wire/harness`, as the inspector shows it.
    pub fn name(&self) -> String {
        format!("{}/{}", self.wire, self.harness.id())
    }
}

impl fmt::Debug for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Why a (wire, harness) pair has no route.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    /// No harness has this id.
    #[error("unknown harness `{id}`; known harnesses: {known}")]
    UnknownHarness {
        /// The id asked for.
        id: String,
        /// Comma-separated known ids.
        known: String,
    },
    /// The harness exists but cannot shape for this wire.
    #[error(
        "harness `{harness}` does not support the `{wire}` wire (it supports: {supported}). \
         Set the provider's wire to one of those, or pick a harness that supports `{wire}`."
    )]
    UnsupportedWire {
        /// Harness id.
        harness: String,
        /// Wire asked for.
        wire: Wire,
        /// Comma-separated supported wires.
        supported: String,
    },
}

impl Registry {
    /// Every built-in harness.
    pub fn builtin() -> Self {
        Registry {
            harnesses: harnesses::builtin(),
        }
    }

    /// Adds (or replaces, by id) a harness; used by tests and embedders.
    pub fn with(mut self, harness: Arc<dyn Harness>) -> Self {
        self.harnesses.retain(|h| h.id() != harness.id());
        self.harnesses.push(harness);
        self
    }

    /// Looks a harness up by id.
    pub fn get(&self, id: &str) -> Option<Arc<dyn Harness>> {
        self.harnesses.iter().find(|h| h.id() == id).cloned()
    }

    /// All harnesses, in registration order.
    pub fn list(&self) -> Vec<HarnessInfo> {
        self.harnesses
            .iter()
            .map(|h| HarnessInfo {
                id: h.id(),
                wires: h.wires().to_vec(),
                description: h.description(),
            })
            .collect()
    }

    /// Resolves (wire, harness id) to a route.
    ///
    /// # Errors
    /// [`RouteError::UnknownHarness`] for an unknown id; [`RouteError::UnsupportedWire`] when
    /// the harness does not declare the wire. Unlike the anchor implementation, a harness is
    /// never silently replaced by generic shaping on a wire it doesn't support.
    pub fn route(&self, wire: Wire, harness: &str) -> Result<Route, RouteError> {
        let Some(h) = self.get(harness) else {
            return Err(RouteError::UnknownHarness {
                id: harness.to_string(),
                known: self
                    .harnesses
                    .iter()
                    .map(|h| h.id())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        if !h.wires().contains(&wire) {
            return Err(RouteError::UnsupportedWire {
                harness: h.id().to_string(),
                wire,
                supported: h
                    .wires()
                    .iter()
                    .map(|w| w.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Ok(Route { wire, harness: h })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ShapeEnv, ShapeError, Shaped};
    use tack_protocol::Prompt;

    struct ChatOnly;
    impl Harness for ChatOnly {
        fn id(&self) -> &'static str {
            "chat-only"
        }
        fn description(&self) -> &'static str {
            "test harness"
        }
        fn wires(&self) -> &'static [Wire] {
            &[Wire::Chat]
        }
        fn shape(&self, _: &Prompt, _: Wire, _: &ShapeEnv<'_>) -> Result<Shaped, ShapeError> {
            Err(ShapeError::Unsupported("test".into()))
        }
    }

    #[test]
    fn builtin_harnesses_route_on_their_wires() {
        let reg = Registry::builtin();
        for info in reg.list() {
            for wire in &info.wires {
                let route = reg.route(*wire, info.id).unwrap();
                assert_eq!(route.name(), format!("{wire}/{}", info.id));
            }
        }
        assert!(reg.get("minimal").is_some());
        assert!(reg.get("native").is_some());
    }

    #[test]
    fn unknown_harness_lists_known_ones() {
        let err = Registry::builtin().route(Wire::Chat, "nope").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("unknown harness `nope`"), "{text}");
        assert!(text.contains("minimal"), "{text}");
    }

    #[test]
    fn unsupported_wire_is_rejected_with_a_fix() {
        let reg = Registry::builtin().with(Arc::new(ChatOnly));
        let err = reg.route(Wire::Messages, "chat-only").unwrap_err();
        assert_eq!(
            err,
            RouteError::UnsupportedWire {
                harness: "chat-only".into(),
                wire: Wire::Messages,
                supported: "chat".into()
            }
        );
        assert!(err.to_string().contains("Set the provider's wire"));
        assert!(reg.route(Wire::Chat, "chat-only").is_ok());
    }
}
