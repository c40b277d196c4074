//! Turning sessions and exchanges into things people read or re-run: a session list, a
//! Markdown transcript, and a `curl` command for an exchange.

use std::path::{Path, PathBuf};

use tack_protocol::{ContentPart, Exchange, Item, REDACTED, Role, ToolStatus};

use crate::log::LoadedSession;

/// One row of the session list.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    /// Session id.
    pub id: String,
    /// Display title.
    pub title: String,
    /// Workspace.
    pub cwd: String,
    /// RFC 3339 creation time.
    pub created_at: String,
    /// RFC 3339 time of the log's last modification.
    pub updated_at: String,
    /// History items.
    pub item_count: u32,
    /// Log file.
    pub path: PathBuf,
}

/// Lists the session logs in `dir`, newest first, optionally only those of workspace `cwd`.
/// Unreadable or foreign files are skipped.
///
/// Logs record the workspace canonicalized, so `cwd` is canonicalized too; when that fails
/// (the folder was moved or deleted) it is compared as given, so the filter still holds and
/// only that folder's sessions are listed.
pub fn list_sessions(dir: &Path, cwd: Option<&Path>) -> Vec<SessionRow> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let cwd: Option<PathBuf> =
        cwd.map(|c| std::fs::canonicalize(c).unwrap_or_else(|_| c.to_path_buf()));
    let cwd = cwd.as_deref();
    let mut rows: Vec<SessionRow> = entries
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            let name = path.file_name()?.to_str()?;
            if !name.ends_with(".jsonl") || name.ends_with(".exchanges.jsonl") {
                return None;
            }
            let s = LoadedSession::read(&path).ok()?;
            if let Some(c) = cwd
                && Path::new(&s.settings.cwd) != c
            {
                return None;
            }
            let updated_at = entry
                .metadata()
                .and_then(|m| m.modified())
                .map(|t| chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339())
                .unwrap_or_else(|_| s.created_at.clone());
            Some(SessionRow {
                id: s.session_id.clone(),
                title: s.display_title(),
                cwd: s.settings.cwd.clone(),
                created_at: s.created_at.clone(),
                updated_at,
                item_count: u32::try_from(s.items.len()).unwrap_or(u32::MAX),
                path,
            })
        })
        .collect();
    rows.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
    rows
}

/// A Markdown transcript of a session: messages as sections, tool calls and outputs as fenced
/// blocks, reasoning as quoted text.
pub fn markdown(session: &LoadedSession) -> String {
    let mut out = format!(
        "# {}\n\n- Session: `{}`\n- Workspace: `{}`\n- Provider: {} · model `{}` · harness `{}` · wire `{}`\n- Started: {}\n",
        session.display_title(),
        session.session_id,
        session.settings.cwd,
        session.settings.provider,
        session.settings.model,
        session.settings.harness,
        session.settings.wire,
        session.created_at
    );
    for item in &session.items {
        out.push('\n');
        match item {
            Item::Message(m) => {
                let who = match m.role {
                    Role::User => "User",
                    Role::Assistant => "Assistant",
                    Role::Developer => "Developer",
                    Role::System => "System",
                };
                out.push_str(&format!("## {who}\n\n"));
                for part in &m.content {
                    match part {
                        ContentPart::Text { text } => {
                            out.push_str(text.trim_end());
                            out.push('\n');
                        }
                        ContentPart::Image { .. } => out.push_str("*(image)*\n"),
                    }
                }
            }
            Item::Reasoning(r) => {
                let text = r.readable_text();
                if !text.is_empty() {
                    out.push_str("> **Reasoning**\n>\n");
                    for line in text.lines() {
                        out.push_str(&format!("> {line}\n"));
                    }
                }
            }
            Item::FunctionCall(c) => {
                out.push_str(&format!(
                    "**Tool call** `{}` (`{}`)\n\n{}\n",
                    c.name,
                    c.call_id,
                    fence("json", &pretty_json(&c.arguments))
                ));
            }
            Item::CustomToolCall(c) => {
                out.push_str(&format!(
                    "**Tool call** `{}` (`{}`)\n\n{}\n",
                    c.name,
                    c.call_id,
                    fence("", &c.input)
                ));
            }
            Item::LocalShellCall(c) => {
                out.push_str(&format!(
                    "**Shell** (`{}`)\n\n{}\n",
                    c.call_id,
                    fence("sh", &crate_shell_text(&c.command))
                ));
            }
            Item::ToolOutput(o) => {
                let status = match o.output.status {
                    ToolStatus::Completed => "ok",
                    ToolStatus::Failed => "failed",
                    ToolStatus::TimedOut => "timed out",
                    ToolStatus::Denied => "denied",
                    ToolStatus::Aborted => "aborted",
                };
                let exit = o
                    .output
                    .exit_code
                    .map(|c| format!(", exit {c}"))
                    .unwrap_or_default();
                out.push_str(&format!(
                    "**Output** (`{}`, {status}{exit})\n\n{}\n",
                    o.call_id,
                    fence("", &o.output.text)
                ));
            }
        }
    }
    out
}

fn crate_shell_text(argv: &[String]) -> String {
    tack_harness::shell_command_text(argv)
}

fn pretty_json(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| text.to_string())
}

/// A fenced block whose fence is longer than any backtick run inside the text.
fn fence(lang: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest.max(2) + 1);
    format!("{ticks}{lang}\n{}\n{ticks}", text.trim_end_matches('\n'))
}

/// A `curl` command that re-sends an exchange's request. Credentials are never in an exchange
/// (they were redacted before it was recorded); the command references `$TACK_API_KEY`
/// where the key goes, so the user supplies it from their own shell.
pub fn curl_command(exchange: &Exchange) -> String {
    let mut cmd = format!(
        "curl -N -X {} {}",
        exchange.summary.method,
        shell_single_quote(&exchange.summary.url)
    );
    for h in &exchange.request_headers {
        let value = if h.value == REDACTED {
            match h.name.as_str() {
                "authorization" => "Bearer $TACK_API_KEY".to_string(),
                _ => "$TACK_API_KEY".to_string(),
            }
        } else {
            h.value.clone()
        };
        let header = format!("{}: {value}", h.name);
        // Double quotes only where the placeholder must expand.
        let quoted = if value.contains("$TACK_API_KEY") {
            format!("\"{}\"", header.replace('"', "\\\""))
        } else {
            shell_single_quote(&header)
        };
        cmd.push_str(&format!(" \\\n  -H {quoted}"));
    }
    cmd.push_str(&format!(
        " \\\n  --data-binary {}",
        shell_single_quote(&exchange.request_body)
    ));
    cmd
}

fn shell_single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::{ExchangeSummary, Header, Wire};

    #[test]
    fn curl_keeps_the_key_as_a_placeholder() {
        let ex = Exchange {
            summary: ExchangeSummary {
                id: "e".into(),
                turn_id: "t".into(),
                purpose: "main".into(),
                harness: "minimal".into(),
                wire: Wire::Chat,
                route: "chat/minimal".into(),
                prompt_source: None,
                provider: "p".into(),
                model: "m".into(),
                method: "POST".into(),
                url: "http://127.0.0.1:1/v1/chat/completions".into(),
                status: Some(200),
                started_at: "t".into(),
                ttfb_ms: None,
                total_ms: None,
                usage: None,
                attempt: 1,
                outcome: "ok".into(),
            },
            request_headers: vec![
                Header {
                    name: "authorization".into(),
                    value: REDACTED.into(),
                },
                Header {
                    name: "content-type".into(),
                    value: "application/json".into(),
                },
            ],
            request_body: r#"{"a":"it's"}"#.into(),
            response_headers: vec![],
            response_chunks: vec![],
            events: vec![],
            error: None,
        };
        let cmd = curl_command(&ex);
        assert!(
            cmd.contains("\"authorization: Bearer $TACK_API_KEY\""),
            "{cmd}"
        );
        assert!(cmd.contains(r#"'{"a":"it'\''s"}'"#), "{cmd}");
        assert!(!cmd.contains(REDACTED));
    }

    fn write_log(dir: &Path, id: &str, cwd: &str) {
        let started = crate::log::LogRecord::SessionStarted {
            version: crate::log::LOG_VERSION,
            session_id: id.into(),
            created_at: "2026-01-01T00:00:00Z".into(),
            settings: tack_protocol::SessionSettings {
                cwd: cwd.into(),
                provider: "local".into(),
                model: "m".into(),
                wire: Wire::Chat,
                harness: "minimal".into(),
                approval: tack_protocol::ApprovalPolicy::Untrusted,
                sandbox: Default::default(),
            },
            provider_url: None,
            seal: None,
        };
        crate::log::SessionLog::create(&dir.join(format!("{id}.jsonl")), &started).unwrap();
    }

    #[test]
    fn the_workspace_filter_holds_for_a_folder_that_no_longer_exists() {
        let root = tempfile::tempdir().unwrap();
        let sessions = root.path().join("sessions");
        let here = std::fs::canonicalize(root.path()).unwrap().join("here");
        std::fs::create_dir_all(&here).unwrap();
        let gone = root.path().join("moved-away");
        write_log(&sessions, "s-here", &here.display().to_string());
        write_log(&sessions, "s-gone", &gone.display().to_string());
        write_log(&sessions, "s-other", "/some/other/project");

        let ids = |cwd: Option<&Path>| -> Vec<String> {
            let mut ids: Vec<String> = list_sessions(&sessions, cwd)
                .into_iter()
                .map(|r| r.id)
                .collect();
            ids.sort();
            ids
        };
        assert_eq!(ids(None), ["s-gone", "s-here", "s-other"]);
        assert_eq!(ids(Some(&gone)), ["s-gone"]);
        assert_eq!(
            ids(Some(Path::new("/no/such/folder"))),
            Vec::<String>::new()
        );
        // An existing folder is compared canonicalized (a `..` detour still matches).
        assert_eq!(ids(Some(&here.join("..").join("here"))), ["s-here"]);
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert_eq!(fence("", "a ``` b"), "````\na ``` b\n````");
    }
}
