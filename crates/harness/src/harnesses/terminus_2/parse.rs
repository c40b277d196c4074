//! Reading a terminus-2 reply: a JSON object with `analysis`, `plan`, `commands`
//! (`[{keystrokes, duration}]`) and `task_complete`, possibly wrapped in prose or a code fence.
//!
//! Rules and messages follow harbor's `TerminusJSONPlainParser` (the parser the captured agent
//! used, `parser_name="json"`), with its flaws fixed:
//! - **Finding the object.** The agent takes the first balanced `{…}` in the text, so a reply
//!   that says "I'll use `{x}`" before its JSON fails. Here every `{` is a candidate start; the
//!   first one that parses as a JSON object *and has one of the reply's fields* is the reply
//!   (strings and escapes are handled by the JSON parser itself, so braces inside strings never
//!   confuse it). Without such an object, the first object that parses is reported on.
//! - **Missing fields**: the optional ones take the agent's defaults (`duration` 1.0 with a
//!   warning, `task_complete` false); a missing required field (`analysis`, `plan`,
//!   `commands`) is the agent's "Missing required fields" error. Being lenient there was tried
//!   and is worse: a small model that drops `commands` then idles through empty turns until
//!   the step limit, where the error corrects it or ends the turn within the correction bound.
//! - **A cut-off object** (the model hit its output limit) is closed by adding the missing
//!   quotes and brackets — the agent's auto-fix adds only braces — and reported as corrected.
//! - Warnings the agent gives are kept (text around the object, field order, a command without
//!   a newline before the next one, unknown or missing command fields, a bad `task_complete`):
//!   the model sees them with its next observation, as with the real agent.
//!
//! `duration` is clamped to 0…60 seconds (the agent caps at 60).

use serde_json::{Map, Value};

/// Most candidate `{` positions tried, so a pathological reply cannot cost quadratic time.
const MAX_CANDIDATES: usize = 256;

/// The reply fields; an object with none of them is not a reply.
const FIELDS: [&str; 4] = ["analysis", "plan", "commands", "task_complete"];

/// Longest a command may wait, in seconds (the agent's cap).
pub(crate) const MAX_DURATION_S: f64 = 60.0;

/// One batch of keystrokes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Command {
    /// Sent verbatim (tmux key names such as `C-c` are keys).
    pub keystrokes: String,
    /// Seconds to wait after sending.
    pub duration: f64,
}

/// A reply that could be read.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Reply {
    /// The model's analysis.
    pub analysis: String,
    /// Its plan.
    pub plan: String,
    /// Keystrokes to send, in order.
    pub commands: Vec<Command>,
    /// The model says the task is done.
    pub task_complete: bool,
    /// Problems that did not stop the reply from being read.
    pub warnings: Vec<String>,
}

/// A reply that could not be read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParseError {
    /// What is wrong.
    pub error: String,
    /// Other problems found on the way.
    pub warnings: Vec<String>,
}

/// Reads a reply (see the module docs).
pub(crate) fn parse(text: &str) -> Result<Reply, ParseError> {
    let mut warnings = Vec::new();
    let found = find_object(text);
    let (map, start, end) = match found {
        Found::Reply(map, start, end) => (map, start, end),
        Found::Invalid(message) => {
            return Err(ParseError {
                error: message,
                warnings,
            });
        }
        Found::Other(..) | Found::Nothing => match (close_cut_off(text), found) {
            (Some((map, start)), _) => {
                warnings.push("AUTO-CORRECTED: the JSON object was cut off; the missing closing quotes and brackets were added. Send a complete object next time.".into());
                (map, start, text.len())
            }
            (None, Found::Other(map, start, end)) => (map, start, end),
            (None, _) => {
                return Err(ParseError {
                    error: "No valid JSON found in response".into(),
                    warnings: vec!["No valid JSON object found".into()],
                });
            }
        },
    };
    if !text[..start].trim().is_empty() {
        warnings.push("Extra text detected before JSON object".into());
    }
    if !text[end..].trim().is_empty() {
        warnings.push("Extra text detected after JSON object".into());
    }
    fields(&map, &text[start..end], warnings)
}

enum Found {
    /// An object with reply fields: (object, start, end).
    Reply(Map<String, Value>, usize, usize),
    /// The first object that parsed, without reply fields.
    Other(Map<String, Value>, usize, usize),
    /// Something brace-balanced that is not valid JSON.
    Invalid(String),
    /// No object at all.
    Nothing,
}

fn find_object(text: &str) -> Found {
    let mut other = None;
    let mut invalid = None;
    for (tried, (start, _)) in text.match_indices('{').enumerate() {
        if tried >= MAX_CANDIDATES {
            break;
        }
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(map))) => {
                let end = start + stream.byte_offset();
                if FIELDS.iter().any(|f| map.contains_key(*f)) {
                    return Found::Reply(map, start, end);
                }
                other.get_or_insert((map, start, end));
            }
            Some(Err(e))
                if invalid.is_none() && !e.is_eof() && balanced_end(&text[start..]).is_some() =>
            {
                let region =
                    balanced_end(&text[start..]).map_or("", |end| &text[start..start + end]);
                if FIELDS.iter().any(|f| region.contains(&format!("\"{f}\""))) {
                    let preview: String = region.chars().take(100).collect();
                    invalid = Some(format!("Invalid JSON: {e} | Content preview: {preview:?}"));
                }
            }
            _ => {}
        }
    }
    match (invalid, other) {
        (Some(message), _) => Found::Invalid(message),
        (None, Some((map, start, end))) => Found::Other(map, start, end),
        (None, None) => Found::Nothing,
    }
}

/// End (exclusive) of the brace-balanced region starting at `text[0] == '{'`, string-aware.
fn balanced_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// A reply object cut off before its end, closed: the first `{` whose completion parses as an
/// object with reply fields.
fn close_cut_off(text: &str) -> Option<(Map<String, Value>, usize)> {
    for (start, _) in text.match_indices('{').take(MAX_CANDIDATES) {
        let rest = &text[start..];
        let mut stack = Vec::new();
        let mut in_string = false;
        let mut escaped = false;
        for c in rest.chars() {
            if in_string {
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    '"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                '"' => in_string = true,
                '{' => stack.push('}'),
                '[' => stack.push(']'),
                '}' | ']' => {
                    stack.pop();
                }
                _ => {}
            }
        }
        if stack.is_empty() {
            continue;
        }
        let mut fixed = rest.trim_end().to_string();
        if escaped {
            fixed.pop();
        }
        if in_string {
            fixed.push('"');
        }
        let trimmed = fixed.trim_end();
        let mut fixed = trimmed.strip_suffix(',').unwrap_or(trimmed).to_string();
        while let Some(close) = stack.pop() {
            fixed.push(close);
        }
        if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&fixed)
            && FIELDS.iter().any(|f| map.contains_key(*f))
        {
            return Some((map, start));
        }
    }
    None
}

fn fields(
    map: &Map<String, Value>,
    json: &str,
    mut warnings: Vec<String>,
) -> Result<Reply, ParseError> {
    let missing: Vec<&str> = ["analysis", "plan", "commands"]
        .into_iter()
        .filter(|f| !map.contains_key(*f))
        .collect();
    if !missing.is_empty() {
        return Err(ParseError {
            error: format!("Missing required fields: {}", missing.join(", ")),
            warnings,
        });
    }
    let text_field = |name: &str, warnings: &mut Vec<String>| match map.get(name) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            warnings.push(format!("Field '{name}' should be a string"));
            other.to_string()
        }
    };
    let analysis = text_field("analysis", &mut warnings);
    let plan = text_field("plan", &mut warnings);
    let task_complete = match map.get("task_complete") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => {
            matches!(s.trim().to_ascii_lowercase().as_str(), "true" | "1" | "yes")
        }
        Some(_) => {
            warnings.push("Field 'task_complete' should be a boolean or string".into());
            false
        }
    };
    check_order(json, &mut warnings);
    let commands = match map.get("commands") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => match commands(list, &mut warnings) {
            Ok(commands) => commands,
            // With the task complete the agent lets a bad command list pass as a warning.
            Err(error) if task_complete => {
                warnings.push(error);
                Vec::new()
            }
            Err(error) => return Err(ParseError { error, warnings }),
        },
        Some(_) if task_complete => {
            warnings.push("Field 'commands' must be an array".into());
            Vec::new()
        }
        Some(_) => {
            return Err(ParseError {
                error: "Field 'commands' must be an array".into(),
                warnings,
            });
        }
    };
    Ok(Reply {
        analysis,
        plan,
        commands,
        task_complete,
        warnings,
    })
}

fn commands(list: &[Value], warnings: &mut Vec<String>) -> Result<Vec<Command>, String> {
    let mut out = Vec::with_capacity(list.len());
    for (i, entry) in list.iter().enumerate() {
        let n = i + 1;
        let Value::Object(cmd) = entry else {
            return Err(format!("Command {n} must be an object"));
        };
        let keystrokes = match cmd.get("keystrokes") {
            None => return Err(format!("Command {n} missing required 'keystrokes' field")),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(format!("Command {n} 'keystrokes' must be a string")),
        };
        let duration = match cmd.get("duration") {
            Some(Value::Number(d)) => d.as_f64().unwrap_or(1.0),
            Some(_) => {
                warnings.push(format!(
                    "Command {n}: Invalid duration value, using default 1.0"
                ));
                1.0
            }
            None => {
                warnings.push(format!(
                    "Command {n}: Missing duration field, using default 1.0"
                ));
                1.0
            }
        };
        let mut unknown: Vec<&str> = cmd
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "keystrokes" && *k != "duration")
            .collect();
        if !unknown.is_empty() {
            unknown.sort_unstable();
            warnings.push(format!(
                "Command {n}: Unknown fields: {}",
                unknown.join(", ")
            ));
        }
        if n < list.len() && !keystrokes.ends_with('\n') {
            warnings.push(format!(
                "Command {n} does not end with a newline but another command follows, so the two are typed onto the same line"
            ));
        }
        let duration = if duration.is_finite() {
            duration.clamp(0.0, MAX_DURATION_S)
        } else {
            1.0
        };
        out.push(Command {
            keystrokes,
            duration,
        });
    }
    Ok(out)
}

/// Warns when `analysis`, `plan`, `commands` appear out of order (as the agent does).
fn check_order(json: &str, warnings: &mut Vec<String>) {
    let position = |field: &str| {
        let key = format!("\"{field}\"");
        json.match_indices(&key)
            .find(|(i, _)| json[i + key.len()..].trim_start().starts_with(':'))
            .map(|(i, _)| i)
    };
    let mut present: Vec<(&str, usize)> = ["analysis", "plan", "commands"]
        .into_iter()
        .filter_map(|f| position(f).map(|p| (f, p)))
        .collect();
    if present.len() < 2 {
        return;
    }
    let expected: Vec<&str> = present.iter().map(|(f, _)| *f).collect();
    present.sort_by_key(|(_, p)| *p);
    let found: Vec<&str> = present.iter().map(|(f, _)| *f).collect();
    if found != expected {
        warnings.push(format!(
            "Fields appear in wrong order. Found: {}, expected: {}",
            found.join(" → "),
            expected.join(" → ")
        ));
    }
}

/// The agent's feedback block: `ERROR: …` and/or `WARNINGS: - …` lines.
pub(crate) fn feedback(error: Option<&str>, warnings: &[String]) -> String {
    let list = if warnings.is_empty() {
        String::new()
    } else {
        format!("- {}", warnings.join("\n- "))
    };
    match (error, list.is_empty()) {
        (Some(e), true) => format!("ERROR: {e}"),
        (Some(e), false) => format!("ERROR: {e}\nWARNINGS: {list}"),
        (None, false) => format!("WARNINGS: {list}"),
        (None, true) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ok(text: &str) -> Reply {
        parse(text).unwrap_or_else(|e| panic!("{e:?} for {text}"))
    }

    #[test]
    fn plain_reply() {
        let r = ok(
            r#"{"analysis":"a","plan":"p","commands":[{"keystrokes":"ls -la\n","duration":0.1}],"task_complete":false}"#,
        );
        assert_eq!(
            r.commands,
            vec![Command {
                keystrokes: "ls -la\n".into(),
                duration: 0.1
            }]
        );
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        assert!(!r.task_complete);
    }

    #[test]
    fn prose_with_braces_and_a_fence_around_the_reply() {
        let text = "I'll use a shell glob like {a,b} and a dict {\"k\": 1} first.\n```json\n{\"analysis\": \"the } in here is text\", \"plan\": \"use {x}\", \"commands\": [{\"keystrokes\": \"echo '{}'\\n\", \"duration\": 0.5}]}\n```\nDone.";
        let r = ok(text);
        assert_eq!(r.analysis, "the } in here is text");
        assert_eq!(r.commands[0].keystrokes, "echo '{}'\n");
        assert!(
            r.warnings
                .contains(&"Extra text detected before JSON object".to_string())
        );
        assert!(
            r.warnings
                .contains(&"Extra text detected after JSON object".to_string())
        );
    }

    #[test]
    fn missing_fields_take_defaults_or_are_errors() {
        let r = ok(r#"{"analysis":"","plan":"","commands":[{"keystrokes":"pwd\n"}]}"#);
        assert_eq!(r.commands[0].duration, 1.0);
        assert!(!r.task_complete);
        assert!(
            r.warnings.iter().any(|w| w.contains("Missing duration")),
            "{:?}",
            r.warnings
        );
        let done = ok(r#"{"analysis":"","plan":"","commands":[],"task_complete": "yes"}"#);
        assert!(done.task_complete && done.commands.is_empty());
        assert_eq!(
            parse(r#"{"analysis":"a","plan":"b"}"#).unwrap_err().error,
            "Missing required fields: commands"
        );
        assert_eq!(
            parse(r#"{"task_complete": true}"#).unwrap_err().error,
            "Missing required fields: analysis, plan, commands"
        );
    }

    #[test]
    fn errors_match_the_agents_messages() {
        assert_eq!(
            parse("no json here").unwrap_err().error,
            "No valid JSON found in response"
        );
        assert_eq!(
            parse(r#"{"x": 1}"#).unwrap_err().error,
            "Missing required fields: analysis, plan, commands"
        );
        assert_eq!(
            parse(r#"{"analysis":"a","plan":"b","commands":"ls"}"#)
                .unwrap_err()
                .error,
            "Field 'commands' must be an array"
        );
        assert!(
            parse(r#"{"analysis": "a", "plan": 'b', "commands": []}"#)
                .unwrap_err()
                .error
                .starts_with("Invalid JSON")
        );
        assert_eq!(
            parse(r#"{"analysis":"a","plan":"b","commands":[{"duration":1}]}"#)
                .unwrap_err()
                .error,
            "Command 1 missing required 'keystrokes' field"
        );
        // With the task complete, a bad command list is only a warning.
        let r = ok(r#"{"analysis":"a","plan":"b","commands":"oops","task_complete":true}"#);
        assert!(r.task_complete && r.commands.is_empty());
    }

    #[test]
    fn cut_off_objects_are_closed() {
        let r = ok(
            r#"{"analysis": "looking", "plan": "list", "commands": [{"keystrokes": "ls\n", "duration": 0.1}, {"keystrokes": "cat READ"#,
        );
        assert_eq!(r.commands.len(), 2);
        assert_eq!(r.commands[1].keystrokes, "cat READ");
        assert!(r.warnings[0].starts_with("AUTO-CORRECTED"));
    }

    #[test]
    fn command_warnings_and_clamping() {
        let r = ok(
            r#"{"analysis":"","plan":"","commands":[{"keystrokes":"vim x","duration":999,"extra":1},{"keystrokes":"C-c","duration":-1}]}"#,
        );
        assert_eq!(r.commands[0].duration, MAX_DURATION_S);
        assert_eq!(r.commands[1].duration, 0.0);
        assert!(
            r.warnings
                .iter()
                .any(|w| w.contains("Unknown fields: extra"))
        );
        assert!(
            r.warnings
                .iter()
                .any(|w| w.starts_with("Command 1 does not end with a newline"))
        );
        let r = ok(r#"{"plan":"","commands":[],"analysis":""}"#);
        assert!(
            r.warnings
                .iter()
                .any(|w| w.starts_with("Fields appear in wrong order")),
            "{:?}",
            r.warnings
        );
    }

    #[test]
    fn feedback_block() {
        assert_eq!(
            feedback(Some("E"), &["a".into(), "b".into()]),
            "ERROR: E\nWARNINGS: - a\n- b"
        );
        assert_eq!(feedback(None, &["a".into()]), "WARNINGS: - a");
    }

    fn reply_json() -> impl Strategy<Value = (String, Vec<(String, f64)>, bool)> {
        (
            "[a-zA-Z{}\\[\\]\" ,.:\\\\]{0,30}",
            proptest::collection::vec(("[a-z {}\"'\\\\\n]{0,12}", 0.0f64..100.0), 0..4),
            any::<bool>(),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1500))]

        /// Fuzz: never panics; always a reply or an error with a message.
        #[test]
        fn never_panics(text in "(?s).{0,400}") {
            match parse(&text) {
                Ok(_) => {}
                Err(e) => prop_assert!(!e.error.is_empty()),
            }
        }

        /// Fuzz with JSON-ish pieces so the object paths are exercised.
        #[test]
        fn never_panics_on_json_soup(parts in proptest::collection::vec(prop_oneof![
            Just("{"), Just("}"), Just("["), Just("]"), Just("\""), Just("\\"), Just(":"), Just(","),
            Just("\"analysis\""), Just("\"commands\""), Just("\"keystrokes\""), Just("\"task_complete\""),
            Just("true"), Just("1.5"), Just("```json\n"), Just("```"), Just("prose "), Just("é"),
        ], 0..60)) {
            let _ = parse(&parts.concat());
        }

        /// Any well-formed reply, with arbitrary strings (braces, quotes, backslashes) and prose
        /// containing braces around it, reads back exactly.
        #[test]
        fn well_formed_replies_round_trip(
            (analysis, commands, done) in reply_json(),
            before in "[a-z {}.]{0,20}",
            after in "[a-z {}.]{0,20}",
            fence in any::<bool>(),
        ) {
            let value = serde_json::json!({
                "analysis": analysis,
                "plan": "p",
                "commands": commands.iter().map(|(k, d)| serde_json::json!({"keystrokes": k, "duration": d})).collect::<Vec<_>>(),
                "task_complete": done,
            });
            let body = if fence { format!("```json\n{value}\n```") } else { value.to_string() };
            // Prose braces must not form an object with reply fields.
            let text = format!("{before}\n{body}\n{after}");
            let r = parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
            prop_assert_eq!(&r.analysis, &analysis);
            prop_assert_eq!(r.task_complete, done);
            prop_assert_eq!(r.commands.len(), commands.len());
            for (c, (k, d)) in r.commands.iter().zip(&commands) {
                prop_assert_eq!(&c.keystrokes, k);
                prop_assert!((c.duration - d.clamp(0.0, MAX_DURATION_S)).abs() < 1e-9);
            }
        }
    }
}
