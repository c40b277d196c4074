//! Wrappers that run another command: where in their words that command starts.

use crate::words::Word;

/// Option words of `sudo`-like wrappers that take a value.
pub(crate) fn skip_options<'w>(args: &'w [Word], with_value: &[&str]) -> &'w [Word] {
    let mut i = 0;
    while i < args.len() {
        let v = args[i].value.as_str();
        if v == "--" {
            return &args[i + 1..];
        }
        if !v.starts_with('-') {
            break;
        }
        i += if with_value.contains(&v) { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}

/// The command a wrapper (`timeout 5 cmd`, `nice -n 5 cmd`, …) runs.
pub(crate) fn wrapped_command<'w>(program: &str, args: &'w [Word]) -> &'w [Word] {
    let with_value: &[&str] = match program {
        "nice" => &["-n", "--adjustment"],
        "ionice" => &["-c", "-n", "-p", "--class", "--classdata"],
        "stdbuf" => &["-i", "-o", "-e"],
        "timeout" => &["-s", "--signal", "-k", "--kill-after"],
        "watch" => &["-n", "--interval"],
        "exec" => &["-a"],
        "taskset" | "chrt" => &["-p"],
        _ => &[],
    };
    let rest = skip_options(args, with_value);
    match program {
        // `timeout DURATION cmd`, `taskset MASK cmd`, `chrt PRIO cmd`
        "timeout" | "taskset" | "chrt" => rest.get(1..).unwrap_or(&[]),
        _ => rest,
    }
}

/// The command a program runs for you (`strace -f cmd`, `uv run cmd`, `bundle exec cmd`), or
/// nothing when it is not used that way.
pub(crate) fn runner_command<'w>(program: &str, args: &'w [Word]) -> &'w [Word] {
    match program {
        "strace" | "ltrace" => skip_options(
            args,
            &[
                "-o", "-e", "-p", "-s", "-u", "-E", "-a", "-P", "-I", "-b", "-X", "-O", "-S", "-n",
                "-l",
            ],
        ),
        "fakeroot" => skip_options(args, &["-l", "-s", "-i", "-b"]),
        "xvfb-run" => skip_options(args, &["-n", "-s", "-f", "-e", "-p", "-w"]),
        "unbuffer" | "dbus-run-session" => skip_options(args, &[]),
        _ => {
            let verb = if matches!(program, "bundle" | "bundler") {
                "exec"
            } else {
                "run"
            };
            match args.first() {
                Some(first) if first.value == verb => skip_options(
                    &args[1..],
                    &[
                        "-p",
                        "--python",
                        "--with",
                        "--directory",
                        "--project",
                        "--env-file",
                        "--extra",
                        "--group",
                        "--package",
                        "--index",
                        "--gemfile",
                    ],
                ),
                _ => &[],
            }
        }
    }
}

pub(crate) fn xargs_command(args: &[Word]) -> &[Word] {
    const WITH_VALUE: [&str; 10] = [
        "-n",
        "-I",
        "-P",
        "-L",
        "-d",
        "-E",
        "-s",
        "-a",
        "--max-args",
        "--delimiter",
    ];
    let mut i = 0;
    while i < args.len() {
        let v = args[i].value.as_str();
        if !v.starts_with('-') {
            break;
        }
        i += if WITH_VALUE.contains(&v) { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}
