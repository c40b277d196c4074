//! Escape attempts against the real sandbox: every test runs `bwrap` on this machine and
//! checks what the contained command could and could not do. Without a working mechanism the
//! tests print "skipped: …" and pass — except under `CI=true`, where CI installs bubblewrap and
//! a missing sandbox is a failure.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use tack_sandbox::{
    Contained, ProcessLimit, SandboxMechanism, SandboxMode, SandboxPolicy, contain, denial, probe,
};

/// Whether the sandbox works here; prints why a test is skipped, and fails under CI.
fn sandbox_works() -> bool {
    let found = probe();
    if found.mechanism == SandboxMechanism::None {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI must have a working sandbox: {}",
            found.summary
        );
        println!("skipped: {}", found.summary);
        return false;
    }
    true
}

/// Folders outside /tmp (which is private inside the sandbox), so a write that escaped would
/// really land there.
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

struct Ran {
    out: String,
    code: Option<i32>,
}

/// Starts `script` under `bash -c` in the sandbox, stdout and stderr on one pipe, with a
/// minimal environment (as callers must pass).
fn start(
    policy: &SandboxPolicy,
    script: &str,
    cwd: &Path,
) -> (Child, std::io::PipeReader, Contained) {
    let argv = ["bash".to_string(), "-c".to_string(), script.to_string()];
    let mut contained = contain(policy, &argv, cwd).unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    let child = contained
        .command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", std::env::var_os("HOME").unwrap_or_default())
        .stdin(Stdio::null())
        .stdout(writer.try_clone().unwrap())
        .stderr(writer)
        .spawn()
        .unwrap();
    // `contained.command` still holds the pipe's write ends; replace it so EOF can come.
    contained.command = std::process::Command::new("true");
    (child, reader, contained)
}

/// Runs `script` to completion (killed after 60 s).
fn run(policy: &SandboxPolicy, script: &str, cwd: &Path) -> Ran {
    let (mut child, mut reader, contained) = start(policy, script, cwd);
    let reading = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = reader.read_to_string(&mut out);
        out
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = reading.join().unwrap();
    drop(contained);
    Ran {
        out,
        code: status.code(),
    }
}

fn write_policy(ws: &Path) -> SandboxPolicy {
    SandboxPolicy::new(SandboxMode::WorkspaceWrite, ws)
}

/// Pids of host processes whose argv is exactly `argv`.
fn processes_with_argv(argv: &[&str]) -> Vec<i32> {
    let wanted: Vec<u8> = argv.iter().flat_map(|a| a.bytes().chain([0])).collect();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == wanted)
                && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .unwrap_or_default()
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
        })
        .collect()
}

/// Waits (bounded) until no process has this argv.
fn gone(argv: &[&str]) -> bool {
    for _ in 0..300 {
        if processes_with_argv(argv).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// Runs this test binary's test `name` again with `env` added; it then takes its
/// `reexec_child` branch. The parent's environment is what is under test, and changing it in
/// this process would race with other threads.
fn reexec(name: &str, env: &[(&str, &str)]) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("TACK_ESCAPE_CHILD", "1")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("1 passed"), "the child ran no test: {text}");
}

fn reexec_child() -> bool {
    std::env::var_os("TACK_ESCAPE_CHILD").is_some()
}

#[test]
fn the_probe_names_bubblewrap_and_its_version() {
    if !sandbox_works() {
        return;
    }
    let found = probe();
    assert_eq!(found.mechanism, SandboxMechanism::Bubblewrap);
    let version = found.version.clone().unwrap();
    assert!(
        found
            .summary
            .starts_with(&format!("bubblewrap {version} (")),
        "{}",
        found.summary
    );
}

#[test]
fn writes_outside_the_workspace_fail_and_leave_nothing() {
    if !sandbox_works() {
        return;
    }
    let parent = scratch();
    let ws = parent.path().join("ws");
    let out = parent.path().join("out");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::os::unix::fs::symlink(&out, ws.join("link")).unwrap();
    let policy = write_policy(&ws);
    let out_s = out.display().to_string();
    let parent_s = parent.path().display().to_string();
    let attempts = [
        ("absolute", format!("echo x > {out_s}/absolute")),
        ("dotdot", "echo x > ../out/dotdot".to_string()),
        ("symlink", "echo x > link/symlink".to_string()),
        ("proc", "echo x > /proc/self/cwd/../out/proc".to_string()),
        (
            "cdpath",
            format!("CDPATH={parent_s}; cd out && echo x > cdpath"),
        ),
        ("mkdir", format!("mkdir {out_s}/mkdir")),
        ("etc", "touch /etc/tack-escape-test".to_string()),
        // Submounts are read-only too: no cgroup of its own to lift the process limit.
        (
            "cgroup",
            "mkdir /sys/fs/cgroup/pids/tack-escape".to_string(),
        ),
    ];
    for (name, script) in attempts {
        let ran = run(&policy, &script, &ws);
        assert_ne!(
            ran.code,
            Some(0),
            "{name}: `{script}` succeeded: {}",
            ran.out
        );
        assert!(
            ran.out.contains("Read-only file system"),
            "{name}: {}",
            ran.out
        );
        let said = denial(&policy, &ran.out, ran.code).unwrap_or_default();
        assert!(said.contains("read-only file system"), "{name}: {said}");
    }
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
    assert!(!Path::new("/etc/tack-escape-test").exists());
    assert!(!Path::new("/sys/fs/cgroup/pids/tack-escape").exists());
    let said = denial(
        &policy,
        &run(&policy, &format!("echo x > {out_s}/a"), &ws).out,
        Some(1),
    )
    .unwrap();
    assert_eq!(
        said,
        format!(
            "write to {out_s}/a refused: read-only file system (only the workspace and the \
             writable roots are writable)"
        )
    );
}

#[test]
fn the_workspace_is_writable_only_in_workspace_write_and_tmp_always() {
    if !sandbox_works() {
        return;
    }
    let ws = scratch();
    let script = "mkdir -p /tmp/t && echo tmp > /tmp/t/f && cat /tmp/t/f && echo ws > f && cat f";
    let ran = run(&write_policy(ws.path()), script, ws.path());
    assert_eq!(ran.code, Some(0), "{}", ran.out);
    assert_eq!(ran.out, "tmp\nws\n");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("f")).unwrap(),
        "ws\n"
    );
    // The private /tmp is gone with the command.
    assert!(
        !Path::new("/tmp/t/f").exists() || std::fs::read_to_string("/tmp/t/f").unwrap() != "tmp\n"
    );

    let ro = SandboxPolicy::new(SandboxMode::ReadOnly, ws.path());
    let ran = run(
        &ro,
        "echo tmp > /tmp/g && cat /tmp/g && echo ws > g",
        ws.path(),
    );
    assert_ne!(ran.code, Some(0));
    assert!(ran.out.starts_with("tmp\n"), "{}", ran.out);
    assert!(!ws.path().join("g").exists());
    assert_eq!(
        denial(&ro, &ran.out, ran.code).unwrap(),
        format!("write to g refused: read-only file system (the sandbox is read-only)")
    );
    // Reading the workspace works in read-only mode.
    let ran = run(&ro, "cat f", ws.path());
    assert_eq!(ran.out, "ws\n");
}

#[test]
fn a_workspace_under_tmp_stays_visible_and_writable() {
    if !sandbox_works() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("seen"), "yes\n").unwrap();
    let ran = run(
        &write_policy(ws.path()),
        "cat seen && echo w > written",
        ws.path(),
    );
    assert_eq!(ran.code, Some(0), "{}", ran.out);
    assert_eq!(ran.out, "yes\n");
    assert!(ws.path().join("written").exists());
}

#[test]
fn git_hooks_and_config_cannot_be_written() {
    if !sandbox_works() {
        return;
    }
    let ws = scratch();
    let git = |args: &[&str]| {
        let st = std::process::Command::new("git")
            .args(args)
            .current_dir(ws.path())
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success());
    };
    git(&["init", "-q"]);
    // A repository without a hooks folder: one must not be creatable inside.
    std::fs::remove_dir_all(ws.path().join(".git/hooks")).unwrap();
    let config_before = std::fs::read_to_string(ws.path().join(".git/config")).unwrap();
    let policy = write_policy(ws.path());
    for script in [
        "mkdir -p .git/hooks && echo 'touch /tmp/pwned' > .git/hooks/pre-commit",
        "echo '[core] hooksPath = /tmp' >> .git/config",
        "git config core.hooksPath /tmp",
        "rm -rf .git/hooks",
    ] {
        let ran = run(&policy, script, ws.path());
        assert_ne!(ran.code, Some(0), "`{script}`: {}", ran.out);
    }
    assert_eq!(
        std::fs::read_dir(ws.path().join(".git/hooks"))
            .unwrap()
            .count(),
        0
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join(".git/config")).unwrap(),
        config_before
    );
    // The rest of the repository stays usable.
    let ran = run(
        &policy,
        "echo a > a && git add a && git -c user.name=t -c user.email=t@t commit -qm a && git log --oneline | wc -l",
        ws.path(),
    );
    assert_eq!(ran.code, Some(0), "{}", ran.out);
    assert_eq!(ran.out.trim(), "1");
    let said = denial(
        &policy,
        &run(&policy, "echo x > .git/hooks/pre-commit", ws.path()).out,
        Some(1),
    )
    .unwrap();
    assert!(
        said.contains("git hooks and config stay read-only"),
        "{said}"
    );
}

#[test]
fn protected_folders_inside_the_workspace_cannot_be_written() {
    if !sandbox_works() {
        return;
    }
    let ws = scratch();
    let existing = ws.path().join("config/tack");
    std::fs::create_dir_all(&existing).unwrap();
    std::fs::write(existing.join("config.toml"), "safe = true\n").unwrap();
    let missing = ws.path().join("data/tack");
    let mut policy = write_policy(ws.path());
    policy.protected = vec![existing.clone(), missing.clone()];
    for script in [
        "echo 'safe = false' > config/tack/config.toml",
        "echo x > config/tack/new",
        "rm -rf config/tack",
        "mkdir -p data/tack && echo x > data/tack/sessions",
    ] {
        let ran = run(&policy, script, ws.path());
        assert_ne!(ran.code, Some(0), "`{script}`: {}", ran.out);
    }
    assert_eq!(
        std::fs::read_to_string(existing.join("config.toml")).unwrap(),
        "safe = true\n"
    );
    assert!(!existing.join("new").exists());
    assert!(
        missing.is_dir(),
        "a missing protected folder is created empty"
    );
    assert_eq!(std::fs::read_dir(&missing).unwrap().count(), 0);
    // Next to them the workspace is writable.
    assert_eq!(
        run(&policy, "echo x > config/other", ws.path()).code,
        Some(0)
    );
}

#[test]
fn a_hard_link_to_an_outside_file_cannot_be_made() {
    if !sandbox_works() {
        return;
    }
    let parent = scratch();
    let ws = parent.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let outside = parent.path().join("outside.txt");
    std::fs::write(&outside, "original\n").unwrap();
    let policy = write_policy(&ws);
    let ran = run(
        &policy,
        &format!("ln {} hl && echo changed > hl", outside.display()),
        &ws,
    );
    assert_ne!(ran.code, Some(0), "{}", ran.out);
    assert!(!ws.join("hl").exists());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "original\n");
    let said = denial(&policy, &ran.out, ran.code).unwrap();
    assert!(said.contains("hard link"), "{said}: {}", ran.out);
}

#[test]
fn the_network_is_off_unless_allowed() {
    if !sandbox_works() {
        return;
    }
    let ws = scratch();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepting = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut got = String::new();
        conn.read_to_string(&mut got).unwrap();
        got
    });
    let script = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo hello >&3 && echo sent");
    let mut policy = write_policy(ws.path());
    let ran = run(&policy, &script, ws.path());
    assert_ne!(ran.code, Some(0), "{}", ran.out);
    assert!(ran.out.contains("Connection refused"), "{}", ran.out);
    assert_eq!(
        denial(&policy, &ran.out, ran.code).as_deref(),
        Some("network is off in the sandbox")
    );
    let ran = run(
        &policy,
        "getent hosts example.com || echo unresolved",
        ws.path(),
    );
    assert!(ran.out.contains("unresolved"), "{}", ran.out);
    // What real clients print without a network.
    for client in [
        "curl -sS --max-time 5 http://example.com/",
        "wget -nv -T 5 -O /dev/null http://example.com/",
        "git ls-remote https://example.com/x.git",
    ] {
        let program = client.split(' ').next().unwrap();
        if run(&policy, &format!("command -v {program}"), ws.path()).code != Some(0) {
            println!("skipped {program}: not installed");
            continue;
        }
        let ran = run(&policy, client, ws.path());
        assert_ne!(ran.code, Some(0), "{client}: {}", ran.out);
        assert_eq!(
            denial(&policy, &ran.out, ran.code).as_deref(),
            Some("network is off in the sandbox"),
            "{client}: {}",
            ran.out
        );
    }

    policy.network = true;
    let ran = run(&policy, &script, ws.path());
    assert_eq!(ran.code, Some(0), "{}", ran.out);
    assert_eq!(accepting.join().unwrap(), "hello\n");
    assert_eq!(denial(&policy, "Connection refused", Some(1)), None);
}

#[test]
fn the_parents_environment_and_processes_are_invisible() {
    if !sandbox_works() {
        return;
    }
    if !reexec_child() {
        reexec(
            "the_parents_environment_and_processes_are_invisible",
            &[("TACK_CANARY_SECRET", "canary-4f1d9c")],
        );
        return;
    }
    let ws = scratch();
    let me = std::process::id();
    let script = format!(
        "cat /proc/$PPID/environ; cat /proc/1/environ; ps axeww; env; \
         if kill -0 {me}; then echo SIG\"\"NALLED; fi; \
         if test -e /proc/{me}; then echo VIS\"\"IBLE; fi; \
         ps ax --no-headers | wc -l"
    );
    let ran = run(&write_policy(ws.path()), &script, ws.path());
    assert!(!ran.out.contains("canary-4f1d9c"), "{}", ran.out);
    assert!(!ran.out.contains("TACK_CANARY_SECRET"), "{}", ran.out);
    assert!(!ran.out.contains("SIGNALLED"), "{}", ran.out);
    assert!(!ran.out.contains("VISIBLE"), "{}", ran.out);
    // bwrap's init, bash, ps and wc: nothing of the host.
    let count: usize = ran.out.lines().last().unwrap().trim().parse().unwrap();
    assert!(count <= 5, "{}", ran.out);
}

#[test]
fn the_session_bus_and_agent_sockets_are_unreachable() {
    if !sandbox_works() {
        return;
    }
    if !reexec_child() {
        let runtime = scratch();
        let agent = scratch();
        let bus = runtime.path().join("bus");
        let sock = agent.path().join("agent.sock");
        let _bus = std::os::unix::net::UnixListener::bind(&bus).unwrap();
        let _agent = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        reexec(
            "the_session_bus_and_agent_sockets_are_unreachable",
            &[
                ("XDG_RUNTIME_DIR", runtime.path().to_str().unwrap()),
                ("SSH_AUTH_SOCK", sock.to_str().unwrap()),
                (
                    "DBUS_SESSION_BUS_ADDRESS",
                    &format!("unix:path={}", bus.display()),
                ),
            ],
        );
        return;
    }
    let runtime = std::env::var("XDG_RUNTIME_DIR").unwrap();
    let sock = std::env::var("SSH_AUTH_SOCK").unwrap();
    assert!(Path::new(&format!("{runtime}/bus")).exists());
    let ws = scratch();
    let ran = run(
        &write_policy(ws.path()),
        &format!(
            "ls -A {runtime}; test -S {runtime}/bus && echo BUS; test -S {sock} && echo AGENT; \
             echo done"
        ),
        ws.path(),
    );
    assert_eq!(ran.out, "done\n");
}

#[test]
fn limits_are_set_inside() {
    if !sandbox_works() {
        return;
    }
    let ws = scratch();
    let mut policy = write_policy(ws.path());
    let ran = run(&policy, "ulimit -u; ulimit -v; ulimit -H -u", ws.path());
    assert_eq!(
        ran.out,
        format!(
            "512\n{}\n512\n",
            tack_sandbox::DEFAULT_MAX_MEMORY_BYTES / 1024
        )
    );
    policy.max_processes = None;
    policy.max_memory_bytes = Some(1 << 30);
    let ran = run(&policy, "ulimit -v; ulimit -v unlimited", ws.path());
    assert_ne!(ran.code, Some(0), "the limit cannot be raised again");
    assert!(ran.out.starts_with("1048576\n"), "{}", ran.out);
}

#[test]
fn a_fork_loop_stops_at_the_process_limit() {
    if !sandbox_works() {
        return;
    }
    if probe().process_limit == ProcessLimit::Unenforced {
        println!("skipped: {}", probe().summary);
        return;
    }
    let ws = scratch();
    let mut policy = write_policy(ws.path());
    policy.max_processes = Some(48);
    // Only builtins after the loop started: they need no fork, which would fail now.
    let script = "sleep 2 & s=$!; (while :; do sleep 100.4242 & done) 2>/dev/null & wait $s; \
                  n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo count=$n";
    let ran = run(&policy, script, ws.path());
    let count: u32 = ran
        .out
        .lines()
        .find_map(|l| l.strip_prefix("count="))
        .unwrap_or_else(|| panic!("{}", ran.out))
        .parse()
        .unwrap();
    assert!((24..=48).contains(&count), "{count}: {}", ran.out);
    // The loop died with the command.
    assert!(gone(&["sleep", "100.4242"]));
}

#[test]
fn setsid_and_double_fork_survivors_are_gone_after_the_call() {
    if !sandbox_works() {
        return;
    }
    let ws = scratch();
    let policy = write_policy(ws.path());
    let script = "setsid sleep 1001.77 >/dev/null 2>&1 </dev/null & \
                  ( ( sleep 1001.78 >/dev/null 2>&1 </dev/null & ) & ); \
                  nohup sleep 1001.79 >/dev/null 2>&1 & \
                  sleep 0.2; echo started";
    let ran = run(&policy, script, ws.path());
    assert_eq!(ran.out, "started\n");
    for arg in ["1001.77", "1001.78", "1001.79"] {
        assert!(gone(&["sleep", arg]), "sleep {arg} survived");
    }
}

#[test]
fn everything_dies_when_the_sandbox_is_killed() {
    if !sandbox_works() {
        return;
    }
    let ws = scratch();
    let policy = write_policy(ws.path());
    let (mut child, _reader, contained) = start(
        &policy,
        "setsid sleep 1002.5 >/dev/null 2>&1 & sleep 1002.6 & echo up; wait",
        ws.path(),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while processes_with_argv(&["sleep", "1002.5"]).is_empty()
        || processes_with_argv(&["sleep", "1002.6"]).is_empty()
    {
        assert!(Instant::now() < deadline, "the sleeps never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    // What an interrupted call does at worst: SIGKILL to bwrap, nothing else.
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(gone(&["sleep", "1002.5"]));
    assert!(gone(&["sleep", "1002.6"]));
    drop(contained);
}

#[test]
fn danger_full_access_runs_the_command_as_is() {
    let ws = scratch();
    let policy = SandboxPolicy::new(SandboxMode::DangerFullAccess, ws.path());
    let argv = ["echo".to_string(), "plain".to_string()];
    let contained = contain(&policy, &argv, ws.path()).unwrap();
    assert_eq!(contained.command.get_program(), "echo");
    assert!(!contained.guard.has_cgroup());
}

#[test]
fn bad_paths_are_errors() {
    if !sandbox_works() {
        return;
    }
    let ws = scratch();
    let policy = write_policy(ws.path());
    let argv = ["true".to_string()];
    let err = contain(&policy, &argv, &PathBuf::from("/nonexistent/dir")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("working directory /nonexistent/dir"),
        "{err}"
    );
    assert!(contain(&policy, &[], ws.path()).is_err());
}

#[test]
fn a_scratch_folder_is_the_commands_tmp_and_outlives_it() {
    if !sandbox_works() {
        return;
    }
    let ws = scratch();
    let tmp = scratch();
    for mode in [SandboxMode::ReadOnly, SandboxMode::WorkspaceWrite] {
        let mut policy = SandboxPolicy::new(mode, ws.path());
        policy.scratch = Some(tmp.path().to_path_buf());
        let wrote = run(&policy, &format!("echo {mode} > /tmp/note"), ws.path());
        assert_eq!(wrote.code, Some(0), "{mode}: {}", wrote.out);
        let read = run(&policy, "cat /tmp/note", ws.path());
        assert_eq!(read.out, format!("{mode}\n"), "the next command finds it");
        assert_eq!(
            std::fs::read_to_string(tmp.path().join("note")).unwrap(),
            format!("{mode}\n"),
            "it is the scratch folder, not the host's /tmp"
        );
    }
}
