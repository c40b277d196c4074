//! `tack decode`: a saved SSE stream on stdin → neutral events (JSON Lines) on stdout.
//!
//! Input without any SSE `data:` line is not a stream: a JSON body is decoded as the wire's
//! non-streaming reply (a `stream: false` response, or an error body), anything else is
//! reported as such rather than as a stream that was cut off.
//!
//! Besides the wire's neutral lines, what a postprocess adds is printed too: a call parsed from
//! text (`local_shell_call`) as a `tool_call` named `shell`, and a message Tack injected (a
//! format correction, a confirmation) as `{"type":"injected_message","label","text"}`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::Value;
use tack_harness::prompts::PromptStore;
use tack_harness::{Registry, ShapeEnv};
use tack_protocol::{ErrorKind, Item, ModelError, ReasoningOrigin, StreamEvent, ToolSpec, Wire};

/// Bytes handed to the decoder per push, like a network read.
const CHUNK: usize = 4096;

pub(crate) fn run(
    wire: Wire,
    harness: Option<String>,
    tools: Option<PathBuf>,
    recover_text_calls: bool,
) -> Result<ExitCode, String> {
    let specs = match &tools {
        Some(path) => read_tools(path)?,
        None => Vec::new(),
    };
    let kinds = tack_wire::tool_kinds(&specs, wire);
    let mut postprocess = match &harness {
        Some(id) => {
            let registry = Registry::builtin();
            let route = registry.route(wire, id).map_err(|e| e.to_string())?;
            let prompt = crate::shape::bare_prompt(
                &std::env::current_dir().unwrap_or_default(),
                wire,
                specs.clone(),
            );
            let prompts = PromptStore::builtin();
            route
                .harness
                .shape(
                    &prompt,
                    wire,
                    &ShapeEnv {
                        prompts: &prompts,
                        emulate_identity: false,
                    },
                )
                .map_err(|e| e.to_string())?
                .postprocess
        }
        None => None,
    };
    if recover_text_calls {
        let recovery: Box<dyn tack_harness::Postprocess> =
            Box::new(tack_harness::recovery::TextCallRecovery::new(&specs));
        postprocess = Some(match postprocess {
            Some(harness) => tack_harness::recovery::chain(recovery, harness),
            None => recovery,
        });
    }
    let origin = ReasoningOrigin {
        wire,
        provider: None,
        model: None,
    };
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| format!("reading stdin: {e}"))?;
    let results = if has_sse_data(&input) {
        let mut decoder = tack_wire::decoder(wire, kinds, origin);
        let mut results = Vec::new();
        for chunk in input.chunks(CHUNK) {
            decoder.push(chunk, &mut results);
        }
        decoder.finish(&mut results);
        results
    } else if serde_json::from_slice::<Value>(&input).is_ok() {
        // A saved body of a request sent with `stream: false`, or an error body: the wire's
        // reply decoder reads both.
        eprintln!(
            "tack: no SSE `data:` lines in the input, but it is JSON: decoding it as a non-streaming reply"
        );
        tack_wire::decode_reply(wire, kinds, origin, &input)
    } else {
        vec![Err(ModelError::new(
            ErrorKind::FormatError,
            "no SSE `data:` lines found in the input; is this a recorded stream?",
        ))]
    };

    let mut out = std::io::stdout().lock();
    let mut failed = false;
    let mut post_out: Vec<StreamEvent> = Vec::new();
    let emit = |ev: &StreamEvent, out: &mut std::io::StdoutLock<'_>| {
        if let Some(line) =
            postprocess_line(ev).or_else(|| tack_wire::neutral::to_neutral(&Ok(ev.clone())))
        {
            let _ = writeln!(out, "{line}");
        }
    };
    for result in results {
        match result {
            Ok(ev) => match postprocess.as_mut() {
                Some(p) => {
                    p.event(ev, &mut post_out);
                    for e in post_out.drain(..) {
                        emit(&e, &mut out);
                    }
                }
                None => emit(&ev, &mut out),
            },
            Err(e) => {
                failed = true;
                if let Some(line) = tack_wire::neutral::to_neutral(&Err(e)) {
                    let _ = writeln!(out, "{line}");
                }
            }
        }
    }
    if let Some(p) = postprocess.as_mut() {
        p.finish(&mut post_out);
        for e in post_out.drain(..) {
            emit(&e, &mut out);
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Whether `input` holds at least one SSE event with data (what every wire's stream is made
/// of), framed by the same rules the decoders use.
fn has_sse_data(input: &[u8]) -> bool {
    let mut framer = tack_wire::sse::SseFramer::new();
    let mut frames = 0usize;
    framer.push(input, &mut |_| frames += 1);
    framer.finish(&mut |_| frames += 1);
    frames > 0
}

/// Lines for the items only a postprocess produces (the wire's neutral schema has none).
fn postprocess_line(event: &StreamEvent) -> Option<Value> {
    match event {
        StreamEvent::ItemDone { item: Item::Message(m) } => m.injected_by.as_ref().map(|label| {
            serde_json::json!({"type": "injected_message", "label": label, "text": m.text()})
        }),
        StreamEvent::ItemDone { item: Item::LocalShellCall(c) } => {
            let mut arguments = serde_json::Map::new();
            arguments.insert("command".into(), tack_harness::shell_command_text(&c.command).into());
            if let Some(ms) = c.timeout_ms {
                arguments.insert("timeout_ms".into(), ms.into());
            }
            Some(serde_json::json!({"type": "tool_call", "call_id": c.call_id, "name": "shell", "arguments": arguments}))
        }
        _ => None,
    }
}

/// Tool specs from a file: a JSON list of Tack tool specs, or a request body whose `tools`
/// are in Chat (`{type:function, function:{name, description, parameters}}`), Responses
/// (`{type:function|custom, name, …}`) or Messages (`{name, description, input_schema}`) form.
fn read_tools(path: &PathBuf) -> Result<Vec<ToolSpec>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let list = match &value {
        Value::Array(a) => a.clone(),
        Value::Object(o) => match o.get("tools") {
            Some(Value::Array(a)) => a.clone(),
            _ => {
                return Err(format!(
                    "{}: expected a list of tools or an object with `tools`",
                    path.display()
                ));
            }
        },
        _ => return Err(format!("{}: expected a list of tools", path.display())),
    };
    list.iter()
        .map(tool_from_json)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn tool_from_json(v: &Value) -> Result<ToolSpec, String> {
    if let Ok(spec) = serde_json::from_value::<ToolSpec>(v.clone()) {
        return Ok(spec);
    }
    let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    if let Some(f) = v.get("function") {
        return Ok(ToolSpec::function(
            s(f.get("name")),
            s(f.get("description")),
            f.get("parameters").cloned().unwrap_or(Value::Null),
        ));
    }
    if v.get("type").and_then(Value::as_str) == Some("custom") {
        return Ok(ToolSpec::freeform(
            s(v.get("name")),
            s(v.get("description")),
        ));
    }
    if let Some(schema) = v.get("input_schema").or_else(|| v.get("parameters")) {
        return Ok(ToolSpec::function(
            s(v.get("name")),
            s(v.get("description")),
            schema.clone(),
        ));
    }
    Err(format!("not a tool definition: {v}"))
}
