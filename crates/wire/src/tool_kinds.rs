//! Tool kinds: how a call to each advertised tool comes back on a wire, and the tool names a
//! wire sees.
//!
//! Shaping records, for every tool name the model can call on the wire, whether a call is a
//! plain function call, a flattened namespaced function (to be mapped back to `{name,
//! namespace}`) or a freeform tool carried as a function (whose `input` argument is unwrapped
//! into a custom tool call). Decoders look calls up by their wire name.
//!
//! Chat Completions and Anthropic Messages know neither namespaces nor freeform tools, so (on
//! both; Responses keeps names, see [`tool_kinds`]):
//! - a namespaced function `ns` / `name` is advertised as `<ns>_<name>` (no `_` is inserted when
//!   `ns` already ends with `_` or `name` starts with `_`), with every character outside
//!   `[A-Za-z0-9_-]` replaced by `_`, `tool` if nothing is left, cut to 64 characters (the
//!   OpenAI limit on `tools[].function.name`), and made unique against every other advertised
//!   name with `_2`, `_3`, … kept inside the 64 characters;
//! - a freeform tool is a function whose parameters are one required `input` string.

use std::collections::{BTreeMap, BTreeSet};

use tack_protocol::{ToolKind, ToolSpec, ToolSpecKind, Wire};

/// Wire tool name → how calls to it come back. Built by [`tool_kinds`] while shaping, handed
/// to the decoder (see [`crate::decoder`]). A name absent from the map decodes as a plain
/// function call.
pub type ToolKinds = BTreeMap<String, ToolKind>;

/// Longest tool name OpenAI accepts in `tools[].function.name`.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// The tool kinds of `tools` as advertised on `wire`, keyed by wire name (the name
/// [`wire_tool_names`] gives each tool).
///
/// On Chat and Messages: plain functions → [`ToolKind::Function`]; namespaced functions →
/// [`ToolKind::NamespacedFunction`] under their flattened name; freeform tools →
/// [`ToolKind::Custom`] (a namespaced freeform tool is flattened too and decodes as a custom
/// call without its namespace, since custom tool calls carry none).
///
/// On Responses, which has native namespaces (`{"type":"namespace"}` tools, calls with a
/// `namespace` field) and native freeform tools (`custom_tool_call` items), names are not
/// changed and the map is only a fallback: freeform tools → [`ToolKind::Custom`] (for a server
/// that returns a freeform call as a `function_call` with `{"input": …}`), plain functions →
/// [`ToolKind::Function`], and a namespaced function → [`ToolKind::NamespacedFunction`] under
/// its bare name only when no other advertised tool has that name (so a server that drops
/// `namespace` from the call still maps back; an ambiguous bare name is left out rather than
/// guessed).
pub fn tool_kinds(tools: &[ToolSpec], wire: Wire) -> ToolKinds {
    if wire == Wire::Responses {
        return responses_tool_kinds(tools);
    }
    let names = wire_tool_names(tools, wire);
    tools
        .iter()
        .zip(names)
        .map(|(tool, wire_name)| (wire_name, kind_of(tool)))
        .collect()
}

/// How a call to `tool` comes back when its name alone identifies it.
fn kind_of(tool: &ToolSpec) -> ToolKind {
    match (&tool.kind, &tool.namespace) {
        (ToolSpecKind::Freeform { .. }, _) => ToolKind::Custom,
        (ToolSpecKind::Function { .. }, Some(namespace)) => ToolKind::NamespacedFunction {
            name: tool.name.clone(),
            namespace: namespace.clone(),
        },
        (ToolSpecKind::Function { .. }, None) => ToolKind::Function,
    }
}

fn responses_tool_kinds(tools: &[ToolSpec]) -> ToolKinds {
    let mut kinds = ToolKinds::new();
    for tool in tools {
        let unique = tools.iter().filter(|t| t.name == tool.name).count() == 1;
        if tool.namespace.is_none() || unique {
            kinds
                .entry(tool.name.clone())
                .or_insert_with(|| kind_of(tool));
        }
    }
    kinds
}

/// The name each tool is advertised under on `wire`, in the order of `tools`.
///
/// Tools without a namespace keep their name on every wire (the harness chose it). On Chat
/// and Messages, namespaced tools are flattened as described in the module docs, in order,
/// after reserving every plain name, so a flattened name never takes a plain tool's name.
pub fn wire_tool_names(tools: &[ToolSpec], wire: Wire) -> Vec<String> {
    if wire == Wire::Responses {
        return tools.iter().map(|t| t.name.clone()).collect();
    }
    let mut used: BTreeSet<String> = tools
        .iter()
        .filter(|t| t.namespace.is_none())
        .map(|t| t.name.clone())
        .collect();
    tools
        .iter()
        .map(|tool| match &tool.namespace {
            None => tool.name.clone(),
            Some(namespace) => {
                let name = unique_name(&flat_name(namespace, &tool.name), &used);
                used.insert(name.clone());
                name
            }
        })
        .collect()
}

/// `<namespace>_<name>`, sanitized to `[A-Za-z0-9_-]`, `tool` if empty, at most
/// [`MAX_TOOL_NAME_LEN`] characters. Not yet de-duplicated.
pub fn flat_name(namespace: &str, name: &str) -> String {
    let joiner = if namespace.ends_with('_') || name.starts_with('_') {
        ""
    } else {
        "_"
    };
    let mut flat: String = [namespace, joiner, name]
        .concat()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if flat.is_empty() {
        flat.push_str("tool");
    }
    // Only ASCII is left, so byte length is character length.
    flat.truncate(MAX_TOOL_NAME_LEN);
    flat
}

/// `base` if unused, else the first free `base_2`, `base_3`, … with `base` cut so the whole
/// name stays within [`MAX_TOOL_NAME_LEN`].
fn unique_name(base: &str, used: &BTreeSet<String>) -> String {
    if !used.contains(base) {
        return base.to_string();
    }
    let mut n: u32 = 2;
    loop {
        let suffix = format!("_{n}");
        let keep = MAX_TOOL_NAME_LEN
            .saturating_sub(suffix.len())
            .min(base.len());
        // `base` is ASCII (see `flat_name`), so any byte index is a char boundary.
        let candidate = format!("{}{}", &base[..keep], suffix);
        if !used.contains(&candidate) {
            return candidate;
        }
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ns(namespace: &str, name: &str) -> ToolSpec {
        ToolSpec {
            namespace: Some(namespace.to_string()),
            ..ToolSpec::function(name, "d", json!({"type": "object"}))
        }
    }

    #[test]
    fn flattening_joins_sanitizes_and_truncates() {
        assert_eq!(flat_name("github", "create_issue"), "github_create_issue");
        assert_eq!(flat_name("mcp_", "x"), "mcp_x");
        assert_eq!(flat_name("mcp", "_x"), "mcp_x");
        assert_eq!(flat_name("my.server", "do it!"), "my_server_do_it_");
        assert_eq!(flat_name("", ""), "_");
        assert_eq!(flat_name("é", ""), "__");
        let long = flat_name(&"n".repeat(40), &"x".repeat(40));
        assert_eq!(long.len(), 64);
        assert!(long.starts_with(&"n".repeat(40)));
    }

    #[test]
    fn kinds_cover_function_namespaced_and_freeform() {
        let tools = vec![
            ToolSpec::function("shell", "run", json!({"type": "object"})),
            ToolSpec::freeform("apply_patch", "patch"),
            ns("github", "create_issue"),
        ];
        let kinds = tool_kinds(&tools, Wire::Chat);
        assert_eq!(kinds["shell"], ToolKind::Function);
        assert_eq!(kinds["apply_patch"], ToolKind::Custom);
        assert_eq!(
            kinds["github_create_issue"],
            ToolKind::NamespacedFunction {
                name: "create_issue".into(),
                namespace: "github".into()
            }
        );
    }

    #[test]
    fn collisions_get_numbered_suffixes_within_64_chars() {
        let long_ns = "s".repeat(70);
        let tools = vec![
            ToolSpec::function("a_b", "plain", json!({})),
            ns("a", "b"),
            ns("a", "b"),
            ns(&long_ns, "x"),
            ns(&long_ns, "y"),
        ];
        let names = wire_tool_names(&tools, Wire::Chat);
        assert_eq!(names[0], "a_b");
        assert_eq!(names[1], "a_b_2");
        assert_eq!(names[2], "a_b_3");
        assert_eq!(names[3], "s".repeat(64));
        assert_eq!(names[4], format!("{}_2", "s".repeat(62)));
        assert!(names.iter().all(|n| n.len() <= MAX_TOOL_NAME_LEN));
    }

    #[test]
    fn responses_keeps_names() {
        let tools = vec![ns("github", "create_issue")];
        assert_eq!(
            wire_tool_names(&tools, Wire::Responses),
            vec!["create_issue"]
        );
    }

    #[test]
    fn responses_kinds_keep_names_and_skip_ambiguous_namespaced_ones() {
        let tools = vec![
            ToolSpec::function("shell", "run", json!({"type": "object"})),
            ToolSpec::freeform("apply_patch", "patch"),
            ns("github", "create_issue"),
            ns("github", "search"),
            ns("gitlab", "search"),
            ns("tools", "shell"),
        ];
        let kinds = tool_kinds(&tools, Wire::Responses);
        assert_eq!(kinds["shell"], ToolKind::Function);
        assert_eq!(kinds["apply_patch"], ToolKind::Custom);
        assert_eq!(
            kinds["create_issue"],
            ToolKind::NamespacedFunction {
                name: "create_issue".into(),
                namespace: "github".into()
            }
        );
        assert!(!kinds.contains_key("search"));
        assert_eq!(kinds.len(), 3);
    }

    #[test]
    fn messages_flattens_like_chat() {
        let tools = vec![
            ToolSpec::freeform("apply_patch", "patch"),
            ns("github", "create_issue"),
        ];
        assert_eq!(
            tool_kinds(&tools, Wire::Messages),
            tool_kinds(&tools, Wire::Chat)
        );
    }
}
