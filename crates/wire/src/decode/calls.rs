//! Tool-call items shared by the Responses and Messages decoders: a call as it came back on
//! the wire → the [`Item`] the engine runs, using the [`ToolKinds`] recorded while shaping.

use std::borrow::Cow;

use tack_protocol::{CustomToolCallItem, FunctionCallItem, Item, ToolKind};

use super::chat_schema::CustomArguments;
use crate::tool_kinds::ToolKinds;

/// One complete function-style call as decoded from a stream.
pub(super) struct DecodedCall {
    /// Item id (the provider's `fc_…` on Responses, `<message id>-<index>` on Messages).
    pub id: String,
    /// The id tool outputs refer to (`call_…`, `toolu_…`).
    pub call_id: String,
    /// The name as the model called it (the wire name).
    pub name: String,
    /// A namespace the wire reported itself (Responses `function_call.namespace`).
    pub namespace: Option<String>,
    /// The arguments JSON text as received.
    pub arguments: String,
}

/// The item for `call`, looked up in `kinds` by wire name:
/// - a namespace on the call wins (Responses reports it natively);
/// - [`ToolKind::Custom`]: a freeform tool carried as a function → [`Item::CustomToolCall`]
///   with the `input` argument unwrapped;
/// - [`ToolKind::NamespacedFunction`]: a flattened name → [`Item::FunctionCall`] with the
///   original name and its namespace;
/// - anything else (including names the map does not know) → a plain function call.
pub(super) fn call_item(kinds: &ToolKinds, call: DecodedCall) -> Item {
    let DecodedCall {
        id,
        call_id,
        name,
        namespace,
        arguments,
    } = call;
    if namespace.is_some() {
        return Item::FunctionCall(FunctionCallItem {
            id,
            call_id,
            name,
            namespace,
            arguments,
        });
    }
    match kinds.get(&name) {
        Some(ToolKind::Custom) => Item::CustomToolCall(CustomToolCallItem {
            id,
            call_id,
            input: unwrap_input(&arguments),
            name,
        }),
        Some(ToolKind::NamespacedFunction { name, namespace }) => {
            Item::FunctionCall(FunctionCallItem {
                id,
                call_id,
                name: name.clone(),
                namespace: Some(namespace.clone()),
                arguments,
            })
        }
        Some(ToolKind::Function) | None => Item::FunctionCall(FunctionCallItem {
            id,
            call_id,
            name,
            namespace: None,
            arguments,
        }),
    }
}

/// The `input` of a freeform call's `{"input": "…"}` arguments, or the raw arguments when they
/// are not that shape (the model may have sent the text bare).
fn unwrap_input(arguments: &str) -> String {
    match serde_json::from_str::<CustomArguments<'_>>(arguments) {
        Ok(args) => Cow::into_owned(args.input),
        Err(_) => arguments.to_string(),
    }
}

/// Makes `candidate` unique among `taken` by appending `_2`, `_3`, … (the same rule the Chat
/// decoder applies to duplicate call ids).
pub(super) fn unique_call_id(candidate: String, taken: &[String]) -> String {
    if !taken.contains(&candidate) {
        return candidate;
    }
    (2..)
        .map(|n| format!("{candidate}_{n}"))
        .find(|c| !taken.contains(c))
        .unwrap_or(candidate)
}

/// Whether `arguments` is complete JSON (used to drop calls cut by an output limit).
pub(super) fn is_complete_json(arguments: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(arguments).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, namespace: Option<&str>, arguments: &str) -> DecodedCall {
        DecodedCall {
            id: "i".into(),
            call_id: "c".into(),
            name: name.into(),
            namespace: namespace.map(str::to_string),
            arguments: arguments.into(),
        }
    }

    #[test]
    fn kinds_decide_the_item() {
        let mut kinds = ToolKinds::new();
        kinds.insert("apply_patch".into(), ToolKind::Custom);
        kinds.insert(
            "gh_issue".into(),
            ToolKind::NamespacedFunction {
                name: "issue".into(),
                namespace: "gh".into(),
            },
        );
        match call_item(&kinds, call("apply_patch", None, r#"{"input":"p"}"#)) {
            Item::CustomToolCall(c) => assert_eq!(c.input, "p"),
            other => panic!("{other:?}"),
        }
        match call_item(&kinds, call("gh_issue", None, "{}")) {
            Item::FunctionCall(c) => {
                assert_eq!(
                    (c.name.as_str(), c.namespace.as_deref()),
                    ("issue", Some("gh"))
                )
            }
            other => panic!("{other:?}"),
        }
        match call_item(&kinds, call("issue", Some("gh"), "{}")) {
            Item::FunctionCall(c) => assert_eq!(c.namespace.as_deref(), Some("gh")),
            other => panic!("{other:?}"),
        }
        match call_item(&kinds, call("shell", None, "{")) {
            Item::FunctionCall(c) => assert_eq!(c.arguments, "{"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ids_are_made_unique() {
        let taken = vec!["a".to_string(), "a_2".to_string()];
        assert_eq!(unique_call_id("a".into(), &taken), "a_3");
        assert_eq!(unique_call_id("b".into(), &taken), "b");
    }
}
