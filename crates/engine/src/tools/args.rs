//! Checking a call's arguments against its tool's JSON Schema.
//!
//! Models get arguments wrong in predictable ways (a misspelled field, a number sent as a
//! string, a missing required field). Each of those comes back as a [`ToolOutput`] error that
//! names the field, says what was wrong and what the tool expects there, so the model can fix
//! the call on its next step instead of failing the turn.

use jsonschema::Validator;
use jsonschema::error::ValidationErrorKind;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tack_protocol::ToolOutput;

use super::ToolInput;

/// A tool's argument schema with its compiled validator.
pub(crate) struct ArgsSchema {
    tool: &'static str,
    schema: Value,
    /// Compiled once; a schema that does not compile is a programming error, reported as a
    /// tool error rather than a panic.
    validator: Result<Validator, String>,
}

impl ArgsSchema {
    /// Compiles `schema` for the tool named `tool`.
    pub(crate) fn new(tool: &'static str, schema: Value) -> Self {
        let validator = jsonschema::validator_for(&schema).map_err(|e| e.to_string());
        ArgsSchema {
            tool,
            schema,
            validator,
        }
    }

    /// The JSON Schema as advertised to the model.
    pub(crate) fn schema(&self) -> &Value {
        &self.schema
    }

    /// Turns the call input into the JSON arguments object.
    ///
    /// Freeform input is accepted when it is a JSON object (some wires deliver function
    /// arguments as raw text).
    pub(crate) fn json_of(&self, input: ToolInput) -> Result<Value, ToolOutput> {
        match input {
            ToolInput::Json(value) => Ok(value),
            ToolInput::Freeform(text) => serde_json::from_str::<Value>(&text).map_err(|e| {
                ToolOutput::error(format!(
                    "`{}` takes a JSON object of arguments, but the input is not JSON ({e}).",
                    self.tool
                ))
            }),
        }
    }

    /// Validates the input against the schema and deserializes it.
    ///
    /// # Errors
    /// A model-readable error listing every problem found, one line per field.
    pub(crate) fn parse<T: DeserializeOwned>(&self, input: ToolInput) -> Result<T, ToolOutput> {
        let value = self.json_of(input)?;
        self.parse_value(value)
    }

    /// Like [`ArgsSchema::parse`] for an already decoded JSON value.
    pub(crate) fn parse_value<T: DeserializeOwned>(&self, value: Value) -> Result<T, ToolOutput> {
        let validator = self.validator.as_ref().map_err(|e| {
            ToolOutput::error(format!(
                "internal error: the schema of `{}` does not compile: {e}",
                self.tool
            ))
        })?;
        let problems: Vec<String> = validator
            .iter_errors(&value)
            .map(|err| self.describe(&err.kind, err.instance_path.as_str(), &err.to_string()))
            .collect();
        if !problems.is_empty() {
            return Err(ToolOutput::error(format!(
                "Invalid arguments for `{}`:\n{}",
                self.tool,
                problems.join("\n")
            )));
        }
        serde_json::from_value(value)
            .map_err(|e| ToolOutput::error(format!("Invalid arguments for `{}`: {e}", self.tool)))
    }

    /// One line for one validation problem: which field, what is wrong, what is expected.
    fn describe(&self, kind: &ValidationErrorKind, pointer: &str, message: &str) -> String {
        match kind {
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                format!("- `{name}` is missing; expected {}", self.expectation(name))
            }
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let names: Vec<String> = unexpected.iter().map(|n| format!("`{n}`")).collect();
                format!(
                    "- unknown field{} {}; the fields are: {}",
                    if names.len() == 1 { "" } else { "s" },
                    names.join(", "),
                    self.field_names().join(", ")
                )
            }
            _ => {
                let field = pointer.trim_start_matches('/');
                if field.is_empty() {
                    format!(
                        "- {message}; expected a JSON object with fields {}",
                        self.field_names().join(", ")
                    )
                } else {
                    let top = field.split('/').next().unwrap_or(field);
                    format!("- `{field}`: {message}; expected {}", self.expectation(top))
                }
            }
        }
    }

    /// "integer — time limit in milliseconds" for a top-level property.
    fn expectation(&self, name: &str) -> String {
        let Some(prop) = self.schema.pointer(&format!("/properties/{name}")) else {
            return "a known field".to_string();
        };
        let ty = match prop.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" or "),
            _ => "a value".to_string(),
        };
        match prop.get("description").and_then(Value::as_str) {
            Some(desc) => format!("{ty} ({desc})"),
            None => ty,
        }
    }

    fn field_names(&self) -> Vec<String> {
        let required: Vec<&str> = self
            .schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        self.schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .keys()
                    .map(|k| {
                        if required.contains(&k.as_str()) {
                            format!("`{k}` (required)")
                        } else {
                            format!("`{k}`")
                        }
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Args {
        command: String,
        timeout_ms: Option<u64>,
    }

    fn schema() -> ArgsSchema {
        ArgsSchema::new(
            "shell",
            json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "the command line"},
                    "timeout_ms": {"type": "integer", "description": "time limit in milliseconds"}
                },
                "required": ["command"],
                "additionalProperties": false
            }),
        )
    }

    #[test]
    fn names_the_missing_field_and_what_it_expects() {
        let err = schema()
            .parse::<Args>(ToolInput::Json(json!({})))
            .unwrap_err();
        assert!(err.text.contains("`command` is missing"), "{}", err.text);
        assert!(
            err.text.contains("string (the command line)"),
            "{}",
            err.text
        );
    }

    #[test]
    fn names_a_field_of_the_wrong_type() {
        let err = schema()
            .parse::<Args>(ToolInput::Json(json!({"command": "ls", "timeout_ms": "5"})))
            .unwrap_err();
        assert!(err.text.contains("`timeout_ms`"), "{}", err.text);
        assert!(
            err.text.contains("integer (time limit in milliseconds)"),
            "{}",
            err.text
        );
    }

    #[test]
    fn lists_unknown_fields_and_the_known_ones() {
        let err = schema()
            .parse::<Args>(ToolInput::Json(json!({"cmd": "ls"})))
            .unwrap_err();
        assert!(err.text.contains("unknown field `cmd`"), "{}", err.text);
        assert!(err.text.contains("`command` (required)"), "{}", err.text);
    }

    #[test]
    fn accepts_json_text_as_freeform_input() {
        let args: Args = schema()
            .parse(ToolInput::Freeform(r#"{"command":"ls"}"#.to_string()))
            .unwrap();
        assert_eq!(args.command, "ls");
    }
}
