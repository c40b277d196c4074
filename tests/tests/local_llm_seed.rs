//! The real local model, given the few-shot seed, calls `shell` with `{"command": "ls"}` on
//! every wire. Opt-in: runs with `TACK_LOCAL_LLM=1` (see `scripts/local-llm.sh`).
//!
//! The requests are written out by hand, not shaped by Tack, so a failure here points at the
//! model server or the seed, and a failure only in the engine's own end-to-end tests points at
//! Tack.

use serde_json::{Value, json};
use tack_tests::{LocalLlm, Seed, local_llm_or_skip, seed};

/// The seed's history with its question appended.
fn conversation(seed: &Seed) -> Vec<tack_tests::SeedMessage> {
    let mut messages = seed.messages.clone();
    messages.push(tack_tests::SeedMessage {
        role: "user".into(),
        content: Some(seed.question.clone()),
        tool_calls: Vec::new(),
        tool_call_id: None,
    });
    messages
}

/// POSTs `body` and returns the `data:` payloads of the SSE reply, parsed as JSON.
async fn stream(llm: &LocalLlm, path: &str, body: &Value) -> Vec<Value> {
    let response = reqwest::Client::new()
        .post(format!("{}{path}", llm.base_url()))
        .header("anthropic-version", "2023-06-01")
        .json(body)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(
        response.status().is_success(),
        "{path}: {}",
        response.status()
    );
    let text = response
        .text()
        .await
        .unwrap_or_else(|e| panic!("{path}: body: {e}"));
    text.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter(|data| *data != "[DONE]")
        .map(|data| serde_json::from_str(data).unwrap_or_else(|e| panic!("{path}: {data:?}: {e}")))
        .collect()
}

fn assert_expected_call(seed: &Seed, names: &[String], arguments: &str) {
    assert_eq!(
        names,
        std::slice::from_ref(&seed.expect.name),
        "tool names called"
    );
    let parsed: Value = serde_json::from_str(arguments)
        .unwrap_or_else(|e| panic!("arguments {arguments:?} are not JSON: {e}"));
    assert_eq!(parsed, seed.expect.arguments);
}

#[tokio::test]
async fn chat_wire_calls_shell_ls() {
    let llm = local_llm_or_skip!();
    let seed = seed();
    let messages: Vec<Value> = std::iter::once(json!({"role": "system", "content": seed.system}))
        .chain(conversation(&seed).into_iter().map(|m| match m.role.as_str() {
            "tool" => json!({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content}),
            _ if !m.tool_calls.is_empty() => json!({
                "role": "assistant",
                "content": m.content,
                "tool_calls": m.tool_calls.iter().map(|c| json!({
                    "id": c.id, "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                })).collect::<Vec<_>>(),
            }),
            role => json!({"role": role, "content": m.content}),
        }))
        .collect();
    let tools: Vec<Value> = seed
        .tools
        .iter()
        .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
        .collect();
    let body = json!({
        "model": llm.model(), "stream": true, "temperature": 0, "max_tokens": 60,
        "tools": tools, "messages": messages,
    });

    let events = stream(&llm, "/v1/chat/completions", &body).await;
    let deltas = events
        .iter()
        .flat_map(|e| e["choices"].as_array().cloned().unwrap_or_default());
    let (mut names, mut arguments, mut finish) = (Vec::new(), String::new(), None);
    for choice in deltas {
        for call in choice["delta"]["tool_calls"]
            .as_array()
            .cloned()
            .unwrap_or_default()
        {
            if let Some(name) = call["function"]["name"].as_str() {
                names.push(name.to_string());
            }
            arguments.push_str(call["function"]["arguments"].as_str().unwrap_or(""));
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            finish = Some(reason.to_string());
        }
    }
    assert_expected_call(&seed, &names, &arguments);
    assert_eq!(finish.as_deref(), Some("tool_calls"));
}

#[tokio::test]
async fn responses_wire_calls_shell_ls() {
    let llm = local_llm_or_skip!();
    let seed = seed();
    let mut input = Vec::new();
    for m in conversation(&seed) {
        match m.role.as_str() {
            "tool" => input.push(json!({"type": "function_call_output", "call_id": m.tool_call_id, "output": m.content})),
            _ if !m.tool_calls.is_empty() => input.extend(m.tool_calls.iter().map(|c| {
                json!({"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments})
            })),
            role => {
                let part = if role == "assistant" { "output_text" } else { "input_text" };
                // llama.cpp rejects message items without an explicit "type".
                input.push(json!({"type": "message", "role": role, "content": [{"type": part, "text": m.content}]}));
            }
        }
    }
    let tools: Vec<Value> = seed
        .tools
        .iter()
        .map(|t| json!({"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters}))
        .collect();
    let body = json!({
        "model": llm.model(), "stream": true, "temperature": 0, "max_output_tokens": 60,
        "instructions": seed.system, "tools": tools, "input": input,
    });

    let events = stream(&llm, "/v1/responses", &body).await;
    let mut names = Vec::new();
    let mut arguments = String::new();
    for event in &events {
        match event["type"].as_str() {
            Some("response.output_item.added") if event["item"]["type"] == "function_call" => {
                names.push(event["item"]["name"].as_str().unwrap_or("").to_string());
            }
            Some("response.function_call_arguments.delta") => {
                arguments.push_str(event["delta"].as_str().unwrap_or(""));
            }
            _ => {}
        }
    }
    assert_expected_call(&seed, &names, &arguments);
    assert_eq!(events.last().unwrap()["type"], "response.completed");
}

#[tokio::test]
async fn messages_wire_calls_shell_ls() {
    let llm = local_llm_or_skip!();
    let seed = seed();
    let messages: Vec<Value> = conversation(&seed)
        .into_iter()
        .map(|m| match m.role.as_str() {
            "tool" => json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content}]}),
            _ if !m.tool_calls.is_empty() => json!({
                "role": "assistant",
                "content": m.tool_calls.iter().map(|c| json!({
                    "type": "tool_use", "id": c.id, "name": c.name,
                    "input": serde_json::from_str::<Value>(&c.arguments).unwrap(),
                })).collect::<Vec<_>>(),
            }),
            role => json!({"role": role, "content": m.content}),
        })
        .collect();
    let tools: Vec<Value> = seed
        .tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}),
        )
        .collect();
    let body = json!({
        "model": llm.model(), "stream": true, "temperature": 0, "max_tokens": 60,
        "system": seed.system, "tools": tools, "messages": messages,
    });

    let events = stream(&llm, "/v1/messages", &body).await;
    let mut names = Vec::new();
    let mut arguments = String::new();
    let mut stop = None;
    for event in &events {
        match event["type"].as_str() {
            Some("content_block_start") if event["content_block"]["type"] == "tool_use" => {
                names.push(
                    event["content_block"]["name"]
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                );
            }
            Some("content_block_delta") => {
                arguments.push_str(event["delta"]["partial_json"].as_str().unwrap_or(""));
            }
            Some("message_delta") => {
                stop = event["delta"]["stop_reason"].as_str().map(str::to_string)
            }
            _ => {}
        }
    }
    assert_expected_call(&seed, &names, &arguments);
    assert_eq!(stop.as_deref(), Some("tool_use"));
}
