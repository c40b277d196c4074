use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool as advertised to the model.
///
/// Harnesses build these (with their CLI's exact names and schemas); wires encode them (Chat
/// `tools[].function`, Responses `tools[]` of type `function`/`custom`/`namespace`, Messages
/// `tools[].input_schema`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolSpec {
    /// Tool name as the model sees it.
    pub name: String,
    /// Description shown to the model.
    pub description: String,
    /// How the model calls it.
    pub kind: ToolSpecKind,
    /// Namespace (e.g. an MCP server) for namespaced function tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

impl ToolSpec {
    /// A function tool with a JSON Schema for its arguments.
    pub fn function(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
    ) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            kind: ToolSpecKind::Function {
                parameters,
                strict: None,
            },
            namespace: None,
        }
    }

    /// A freeform tool whose input is raw text.
    pub fn freeform(name: impl Into<String>, description: impl Into<String>) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            kind: ToolSpecKind::Freeform { format: None },
            namespace: None,
        }
    }

    /// The JSON Schema of the arguments; a freeform tool is presented as `{input: string}`
    /// on wires that only know function tools.
    pub fn parameters(&self) -> Value {
        match &self.kind {
            ToolSpecKind::Function { parameters, .. } => parameters.clone(),
            ToolSpecKind::Freeform { .. } => serde_json::json!({
                "type": "object",
                "properties": {"input": {"type": "string"}},
                "required": ["input"],
                "additionalProperties": false
            }),
        }
    }
}

/// The calling convention of a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolSpecKind {
    /// JSON arguments validated by `parameters` (a JSON Schema object).
    Function {
        /// JSON Schema of the arguments object. Key order is kept as written, because real
        /// CLIs' schemas are compared byte for byte.
        parameters: Value,
        /// OpenAI `strict` flag, when the harness sets one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strict: Option<bool>,
    },
    /// Raw text input (Responses `type: "custom"`), optionally constrained by a grammar.
    Freeform {
        /// Responses `format` object (e.g. `{type: "grammar", syntax: "lark", definition}`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        format: Option<Value>,
    },
}

/// How a call to a given tool name comes back in a stream, recorded while shaping and used
/// while decoding (see `DESIGN.md`, "tool kinds").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolKind {
    /// A plain function call.
    Function,
    /// A function that was flattened from a namespace: the wire name maps back to these.
    NamespacedFunction {
        /// Original tool name inside the namespace.
        name: String,
        /// Namespace.
        namespace: String,
    },
    /// A freeform tool carried as a function with one `input` string argument on wires that
    /// lack freeform tools; decoding unwraps `input` into a custom tool call.
    Custom,
}

/// The input of a tool call once a harness has bound it to an engine tool: parsed JSON
/// arguments for function tools, raw text for freeform tools.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolInput {
    /// Parsed JSON arguments.
    Json(Value),
    /// Raw freeform input (e.g. a patch).
    Freeform(String),
}
