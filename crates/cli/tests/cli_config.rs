//! What `tack` says about its configuration: a missing key stops a run before anything is
//! sent, an unknown `default_provider` names config.toml, `tack providers` marks the default in
//! aligned columns, `tack sessions` says when there is nothing to list (also for a folder that
//! is gone), and `tack tool` lists the same tools in its help and its errors.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::{Env, Run, answer};
use tack_tests::{ReplayProvider, ScriptedResponse};

fn run(cmd: &mut std::process::Command) -> Run {
    Run::from(cmd.output().unwrap())
}

/// Replaces the env's config.toml.
fn write_config(env: &Env, text: &str) {
    std::fs::write(env.config.join("config.toml"), text).unwrap();
}

#[test]
fn a_provider_that_needs_a_key_fails_before_sending_when_there_is_none() {
    let provider = ReplayProvider::start([ScriptedResponse::sse(answer("a", "Hello there."))]);
    let env = Env::new(&provider.url("/v1"));
    let run = run(env
        .tack()
        .env_remove("TACK_TEST_KEY")
        .args(["exec", "--cwd"])
        .arg(&env.workspace)
        .arg("hi"));
    assert_eq!(run.status, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("provider `test` needs an API key")
            && run.stderr.contains("$TACK_TEST_KEY")
            && run.stderr.contains("keychain"),
        "{}",
        run.stderr
    );
    assert!(provider.requests().is_empty(), "a request was sent");
    assert!(run.events.is_empty(), "{}", run.stdout);
}

#[test]
fn a_builtin_provider_without_its_key_names_its_variable() {
    let env = Env::new("http://127.0.0.1:9/v1");
    let run = run(env
        .tack()
        .env_remove("OPENAI_API_KEY")
        .args(["exec", "--provider", "openai", "--cwd"])
        .arg(&env.workspace)
        .arg("hi"));
    assert_eq!(run.status, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("$OPENAI_API_KEY"), "{}", run.stderr);
    assert!(run.events.is_empty(), "{}", run.stdout);
}

#[test]
fn an_explicit_key_variable_that_is_unset_is_an_error_too() {
    let provider = ReplayProvider::start([ScriptedResponse::sse(answer("a", "Hello there."))]);
    let env = Env::new(&provider.url("/v1"));
    let run = run(env
        .tack()
        .env_remove("TACK_NO_SUCH_KEY_VAR")
        .args(["exec", "--api-key-env", "TACK_NO_SUCH_KEY_VAR", "--cwd"])
        .arg(&env.workspace)
        .arg("hi"));
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("$TACK_NO_SUCH_KEY_VAR"),
        "{}",
        run.stderr
    );
    assert!(provider.requests().is_empty());
}

#[test]
fn a_provider_without_keys_still_runs() {
    let provider = ReplayProvider::start([ScriptedResponse::sse(answer("a", "Hello there."))]);
    let env = Env::new(&provider.url("/v1"));
    write_config(
        &env,
        &format!(
            "default_provider = \"lan\"\n\n[[providers]]\nid = \"lan\"\nname = \"LAN\"\nbase_url = \"{}\"\nwire = \"chat\"\nmodel = \"m\"\nharness = \"minimal\"\n",
            provider.url("/v1")
        ),
    );
    let run = env.exec(&[], "hi");
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(provider.requests().len(), 1);
    assert_eq!(provider.requests()[0].header("authorization"), None);
}

#[test]
fn a_base_url_given_on_the_command_line_may_go_without_a_key() {
    let provider = ReplayProvider::start([ScriptedResponse::sse(answer("a", "Hello there."))]);
    let env = Env::new(&provider.url("/v1"));
    let run = run(env
        .tack()
        .env_remove("TACK_API_KEY")
        .args(["exec", "--provider", &provider.url("/v1"), "--model", "m"])
        .args(["--harness", "minimal", "--cwd"])
        .arg(&env.workspace)
        .arg("hi"));
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("requests will be sent without one"),
        "{}",
        run.stderr
    );
    assert_eq!(provider.requests().len(), 1);
}

#[test]
fn an_unknown_default_provider_is_blamed_on_config_toml() {
    let env = Env::new("http://127.0.0.1:9/v1");
    write_config(&env, "default_provider = \"nosuch\"\n");
    let config = env.config.join("config.toml");
    let exec = env.exec(&[], "hi");
    let shape = run(env.tack().args(["shape", "--prompt", "hi"]));
    for run in [exec, shape] {
        assert_eq!(run.status, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains("unknown provider `nosuch`")
                && run.stderr.contains("`default_provider`")
                && run.stderr.contains(&config.display().to_string()),
            "{}",
            run.stderr
        );
    }
    // A provider named on the command line is the user's own typo, not the config's.
    let flag = run(env
        .tack()
        .args(["exec", "--provider", "nosuch2", "--cwd"])
        .arg(&env.workspace)
        .arg("hi"));
    assert_eq!(flag.status, 2);
    assert!(flag.stderr.contains("unknown provider `nosuch2`"));
    assert!(!flag.stderr.contains("default_provider"), "{}", flag.stderr);
}

/// Where each column starts on a `tack providers` line (after the two-character marker).
fn column_starts(line: &str) -> Vec<usize> {
    let chars: Vec<char> = line.chars().collect();
    (2..chars.len())
        .filter(|&i| chars[i] != ' ' && (i == 2 || (chars[i - 1] == ' ' && chars[i - 2] == ' ')))
        .take(6)
        .collect()
}

#[test]
fn providers_marks_the_default_and_lines_up_every_column() {
    let env = Env::new("http://127.0.0.1:9/v1");
    let run = run(env.tack().arg("providers"));
    assert_eq!(run.status, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("  PROVIDER"), "{}", run.stdout);
    let header = column_starts(lines[0]);
    assert_eq!(header.len(), 6, "{}", lines[0]);
    for line in &lines[1..] {
        assert_eq!(column_starts(line), header, "misaligned:\n{}", run.stdout);
    }
    let marked: Vec<&&str> = lines.iter().filter(|l| l.starts_with("* ")).collect();
    assert_eq!(marked.len(), 1, "{}", run.stdout);
    assert!(marked[0].starts_with("* test "), "{}", run.stdout);
    // Every wire name appears, in its column.
    for wire in ["chat", "responses", "messages"] {
        assert!(
            lines.iter().any(|l| l
                .chars()
                .skip(header[1])
                .collect::<String>()
                .starts_with(wire)),
            "{wire}: {}",
            run.stdout
        );
    }
}

#[test]
fn sessions_says_when_there_are_none_and_finds_those_of_a_deleted_folder() {
    let provider = ReplayProvider::start([ScriptedResponse::sse(answer("a", "Hello there."))]);
    let env = Env::new(&provider.url("/v1"));
    let none = run(env.tack().arg("sessions"));
    assert_eq!(none.status, 0);
    assert!(none.stdout.is_empty());
    assert!(none.stderr.contains("no sessions"), "{}", none.stderr);

    let done = env.exec(&[], "hi");
    assert_eq!(done.status, 0, "{}", done.stderr);
    let id = tack_engine::log::LoadedSession::read(&env.session_log())
        .unwrap()
        .session_id;
    std::fs::remove_dir_all(&env.workspace).unwrap();
    let gone = run(env.tack().args(["sessions", "--cwd"]).arg(&env.workspace));
    assert_eq!(gone.status, 0, "{}", gone.stderr);
    assert!(
        gone.stdout.contains(&id),
        "{}\n{}",
        gone.stdout,
        gone.stderr
    );

    let elsewhere = env.root.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let elsewhere = std::fs::canonicalize(&elsewhere).unwrap();
    let empty = run(env.tack().args(["sessions", "--cwd"]).arg(&elsewhere));
    assert_eq!(empty.status, 0);
    assert!(empty.stdout.is_empty());
    assert!(
        empty
            .stderr
            .contains(&format!("no sessions for {}", elsewhere.display())),
        "{}",
        empty.stderr
    );
}

/// The names in a clap `[possible values: a, b, …]` list.
fn possible_values(text: &str) -> Vec<String> {
    let start = text.find("[possible values: ").unwrap() + "[possible values: ".len();
    let end = start + text[start..].find(']').unwrap();
    text[start..end].split(", ").map(str::to_string).collect()
}

#[test]
fn tool_help_and_tool_errors_list_the_same_tools() {
    let env = Env::new("http://127.0.0.1:9/v1");
    let help = run(env.tack().args(["tool", "--help"]));
    assert_eq!(help.status, 0);
    let error = run(env.tack().args(["tool", "nosuch"]));
    assert_eq!(error.status, 2);
    let engine: Vec<String> = tack_engine::tools::builtin_tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(possible_values(&help.stdout), engine, "{}", help.stdout);
    assert_eq!(possible_values(&error.stderr), engine, "{}", error.stderr);
}
