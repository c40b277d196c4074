//! One module per program family. Shared here: which programs are shells, interpreters and
//! downloaders, and which write targets are harmless or belong to the system.

pub(crate) mod awk;
pub(crate) mod bash_eval;
pub(crate) mod coreutils;
pub(crate) mod find;
pub(crate) mod git;
pub(crate) mod interpreters;
pub(crate) mod sed;
pub(crate) mod shells;
pub(crate) mod system;
pub(crate) mod wrappers;

pub(crate) fn is_system_bin(path: &str) -> bool {
    [
        "/bin/",
        "/usr/bin/",
        "/usr/local/bin/",
        "/sbin/",
        "/usr/sbin/",
        "/opt/homebrew/bin/",
    ]
    .iter()
    .any(|dir| path.starts_with(dir) && !path[dir.len()..].contains('/'))
}

/// Names of a process's own standard input.
pub(crate) fn is_stdin_path(path: &str) -> bool {
    matches!(path, "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

pub(crate) fn is_shell(program: &str) -> bool {
    matches!(
        program,
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish" | "hush" | "yash"
    )
}

pub(crate) fn is_interpreter(program: &str) -> bool {
    matches!(
        program,
        "python"
            | "python2"
            | "python3"
            | "pypy"
            | "pypy3"
            | "node"
            | "nodejs"
            | "ruby"
            | "perl"
            | "php"
            | "lua"
            | "luajit"
            | "deno"
            | "bun"
            | "Rscript"
            | "julia"
            | "tclsh"
            | "pwsh"
            | "powershell"
            | "osascript"
    ) || program.starts_with("python3.")
        || program.starts_with("lua5.")
}

pub(crate) fn is_downloader(program: &str) -> bool {
    matches!(
        program,
        "curl" | "wget" | "fetch" | "aria2c" | "http" | "https" | "xh"
    )
}

pub(crate) fn is_harmless_sink(target: &str) -> bool {
    matches!(
        target,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
    ) || target
        .strip_prefix("/dev/fd/")
        .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
}

/// A reason when writing `target` would damage the system rather than a project.
pub(crate) fn dangerous_write_target(target: &str) -> Option<String> {
    const DISKS: [&str; 9] = [
        "/dev/sd",
        "/dev/hd",
        "/dev/vd",
        "/dev/xvd",
        "/dev/nvme",
        "/dev/mmcblk",
        "/dev/disk",
        "/dev/loop",
        "/dev/md",
    ];
    if DISKS.iter().any(|d| target.starts_with(d))
        || matches!(target, "/dev/mem" | "/dev/kmem" | "/dev/port")
    {
        return Some(format!(
            "writes directly to the device `{target}`, destroying its data"
        ));
    }
    const SYSTEM: [&str; 12] = [
        "/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/sys",
        "/proc", "/var/lib",
    ];
    SYSTEM
        .iter()
        .find(|dir| target == **dir || target.starts_with(&format!("{dir}/")))
        .map(|dir| format!("writes under `{dir}`, which belongs to the system"))
}
