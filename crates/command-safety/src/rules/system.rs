//! Destructive, privileged and system-wide programs (`rm -r`, `dd`, `mkfs`, `systemctl`,
//! `mount`, …), network senders, and package tools' publishing subcommands.

use crate::CommandClass;
use crate::rules::dangerous_write_target;
use crate::verdicts::Judged;

/// Rules that make a command dangerous (or, for some tools, read-only subcommands).
pub(crate) fn judge_dangerous(program: &str, values: &[&str]) -> Option<Judged> {
    use CommandClass::{Dangerous, Mutating};
    let p = Some(program);
    let danger = |reason: String| Some(Judged::new(p, Dangerous, reason));
    let opts_until_dashdash: Vec<&str> =
        values.iter().take_while(|v| **v != "--").copied().collect();
    let short_flag = |c: char| {
        opts_until_dashdash
            .iter()
            .any(|v| v.starts_with('-') && !v.starts_with("--") && v[1..].contains(c))
    };
    // GNU abbreviations: `--rec` is `--recursive`.
    let long_flag = |f: &str| {
        opts_until_dashdash.iter().any(|v| {
            let name = v.split('=').next().unwrap_or(v);
            *v == f || v.starts_with(&format!("{f}=")) || (name.len() >= 5 && f.starts_with(name))
        })
    };
    let positional: Vec<&str> = values
        .iter()
        .filter(|v| !v.starts_with('-'))
        .copied()
        .collect();
    match program {
        "rm" => {
            if short_flag('r') || short_flag('R') || long_flag("--recursive") {
                return danger("`rm -r` deletes recursively".to_string());
            }
            if long_flag("--no-preserve-root") {
                return danger("`rm --no-preserve-root` can delete the whole system".to_string());
            }
            if let Some(reason) = positional.iter().find_map(|t| dangerous_write_target(t)) {
                return danger(format!("`rm` {reason}"));
            }
            None
        }
        "shred" => danger("`shred` overwrites files so they cannot be recovered".to_string()),
        "dd" => danger("`dd` writes raw bytes to files or devices".to_string()),
        "wipefs" => danger("`wipefs` erases filesystem signatures".to_string()),
        "fdisk" | "sfdisk" | "cfdisk" | "gdisk" | "sgdisk" | "parted" => {
            danger(format!("`{program}` changes disk partitions"))
        }
        "mkswap" | "mke2fs" => danger(format!("`{program}` formats a device")),
        _ if program.starts_with("mkfs") => {
            danger(format!("`{program}` formats a filesystem, erasing it"))
        }
        "chmod" | "chown" | "chgrp" => {
            if short_flag('R') || long_flag("--recursive") {
                return danger(format!(
                    "`{program} -R` changes {} recursively",
                    if program == "chmod" {
                        "permissions"
                    } else {
                        "ownership"
                    }
                ));
            }
            positional
                .iter()
                .skip(1)
                .find_map(|t| dangerous_write_target(t))
                .map(|reason| Judged::new(p, Dangerous, format!("`{program}` {reason}")))
        }
        "mv" | "cp" | "ln" | "install" | "touch" | "mkdir" | "truncate" | "rsync" | "scp" => {
            if program == "mv" && positional.last() == Some(&"/dev/null") {
                return danger("`mv … /dev/null` destroys the file".to_string());
            }
            if program == "rsync"
                && opts_until_dashdash
                    .iter()
                    .any(|v| v.starts_with("--delete") || *v == "--remove-source-files")
            {
                return danger("`rsync --delete` deletes files at the destination".to_string());
            }
            let targets: Vec<&str> = if matches!(program, "touch" | "mkdir" | "truncate") {
                positional.clone()
            } else {
                positional.last().copied().into_iter().collect()
            };
            targets
                .iter()
                .find_map(|t| dangerous_write_target(t))
                .map(|reason| Judged::new(p, Dangerous, format!("`{program}` {reason}")))
        }
        "kill" => {
            let targets: Vec<&str> = values
                .iter()
                .skip_while(|v| v.starts_with('-') && **v != "-1" && **v != "--")
                .copied()
                .collect();
            if targets.contains(&"-1") {
                return danger("`kill -1` signals every process you may signal".to_string());
            }
            if targets.contains(&"1") {
                return danger("`kill 1` signals init, which stops the system".to_string());
            }
            None
        }
        "shutdown" | "reboot" | "halt" | "poweroff" => {
            danger(format!("`{program}` shuts the machine down or restarts it"))
        }
        "init" | "telinit" if positional.iter().any(|v| matches!(*v, "0" | "6")) => {
            danger(format!("`{program}` shuts the machine down or restarts it"))
        }
        "systemctl" => match positional.first().copied() {
            Some(
                "status" | "show" | "cat" | "is-active" | "is-enabled" | "is-failed" | "list-units"
                | "list-unit-files" | "list-timers",
            )
            | None => Some(Judged::read_only(p, "`systemctl` only shows status")),
            Some(verb @ ("poweroff" | "reboot" | "halt" | "suspend" | "hibernate" | "kexec")) => {
                danger(format!(
                    "`systemctl {verb}` shuts the machine down or restarts it"
                ))
            }
            Some(verb) => danger(format!("`systemctl {verb}` changes system services")),
        },
        "mount" | "umount" | "swapon" | "swapoff" | "modprobe" | "insmod" | "rmmod"
        | "iptables" | "ip6tables" | "nft" | "ufw" | "useradd" | "userdel" | "usermod"
        | "groupadd" | "groupdel" | "passwd" | "chpasswd" | "visudo" | "setenforce" | "chattr" => {
            if program == "mount" && values.is_empty() {
                return Some(Judged::read_only(
                    p,
                    "`mount` without arguments lists mounts",
                ));
            }
            danger(format!("`{program}` changes system configuration"))
        }
        "sysctl" if values.iter().any(|v| *v == "-w" || v.contains('=')) => {
            danger("`sysctl -w` changes kernel settings".to_string())
        }
        "sysctl" => Some(Judged::read_only(p, "`sysctl` only reads kernel settings")),
        "crontab" => {
            if short_flag('r') {
                danger("`crontab -r` deletes every cron job".to_string())
            } else if short_flag('l') {
                Some(Judged::read_only(p, "`crontab -l` lists cron jobs"))
            } else {
                Some(Judged::new(p, Mutating, "`crontab` changes scheduled jobs"))
            }
        }
        _ => judge_tools(program, values),
    }
}

/// Network senders (`curl -d`, `wget --post-data`) and package, container and cloud tools:
/// their publishing and deleting subcommands, and the ones that only show information.
fn judge_tools(program: &str, values: &[&str]) -> Option<Judged> {
    use CommandClass::{Dangerous, Mutating};
    let p = Some(program);
    let danger = |reason: String| Some(Judged::new(p, Dangerous, reason));
    let positional: Vec<&str> = values
        .iter()
        .filter(|v| !v.starts_with('-'))
        .copied()
        .collect();
    match program {
        "curl" | "wget" | "http" | "xh" => {
            let sends = values.iter().any(|v| {
                matches!(
                    *v,
                    "-d" | "-F"
                        | "-T"
                        | "--form"
                        | "--upload-file"
                        | "--post-data"
                        | "--post-file"
                        | "--body-data"
                        | "--body-file"
                ) || v.starts_with("--data")
                    || v.starts_with("--json")
                    || v.starts_with("-d")
            }) || method_writes(values);
            if !sends {
                return None;
            }
            let urls: Vec<&str> = values
                .iter()
                .filter(|v| v.contains("://") || v.starts_with("localhost"))
                .copied()
                .collect();
            if !urls.is_empty() && urls.iter().all(|u| is_loopback_url(u)) {
                return Some(Judged::new(
                    p,
                    Mutating,
                    format!("`{program}` sends data to a local server"),
                ));
            }
            danger(format!("`{program}` sends data to a server"))
        }
        "npm" | "pnpm" | "yarn"
            if positional
                .first()
                .is_some_and(|v| matches!(*v, "publish" | "unpublish" | "deprecate")) =>
        {
            danger(format!(
                "`{program} {}` publishes to the package registry",
                positional[0]
            ))
        }
        "npm" | "pnpm" | "yarn"
            if positional.first().is_some_and(|v| {
                matches!(
                    *v,
                    "ls" | "list" | "view" | "info" | "outdated" | "why" | "explain"
                )
            }) =>
        {
            Some(Judged::read_only(p, "only shows package information"))
        }
        "pip" | "pip3"
            if positional
                .first()
                .is_some_and(|v| matches!(*v, "list" | "show" | "freeze" | "check")) =>
        {
            Some(Judged::read_only(p, "only shows package information"))
        }
        "cargo" => match positional.first().copied() {
            Some("publish" | "yank" | "owner") => danger(format!(
                "`cargo {}` changes a package on the registry",
                positional[0]
            )),
            _ if values.is_empty()
                || values
                    .iter()
                    .all(|v| matches!(*v, "--list" | "-V" | "--version")) =>
            {
                Some(Judged::read_only(p, "`cargo` only prints information"))
            }
            _ => None,
        },
        "twine" | "gem"
            if positional
                .first()
                .is_some_and(|v| matches!(*v, "upload" | "push" | "yank")) =>
        {
            danger(format!(
                "`{program} {}` publishes to the package registry",
                positional[0]
            ))
        }
        "docker" | "podman" => match positional.first().copied() {
            Some("push") => danger(format!("`{program} push` publishes an image")),
            Some("system" | "volume" | "image" | "container" | "network" | "builder")
                if positional
                    .get(1)
                    .is_some_and(|v| matches!(*v, "prune" | "rm")) =>
            {
                danger(format!(
                    "`{program} {} {}` deletes data",
                    positional[0], positional[1]
                ))
            }
            Some("ps" | "images" | "inspect" | "logs" | "version" | "info") => {
                Some(Judged::read_only(p, "only shows information"))
            }
            _ => None,
        },
        "kubectl" if positional.first().is_some_and(|v| *v == "delete") => {
            danger("`kubectl delete` deletes cluster resources".to_string())
        }
        "kubectl"
            if positional.first().is_some_and(|v| {
                matches!(*v, "get" | "describe" | "logs" | "version" | "explain")
            }) =>
        {
            Some(Judged::read_only(p, "only shows cluster information"))
        }
        "terraform" | "tofu" if positional.first().is_some_and(|v| *v == "destroy") => {
            danger(format!("`{program} destroy` destroys infrastructure"))
        }
        "helm"
            if positional
                .first()
                .is_some_and(|v| matches!(*v, "uninstall" | "delete")) =>
        {
            danger("`helm uninstall` removes a release".to_string())
        }
        "gh" if positional
            .first()
            .is_some_and(|v| matches!(*v, "release" | "repo"))
            && positional
                .get(1)
                .is_some_and(|v| matches!(*v, "create" | "delete" | "upload")) =>
        {
            danger(format!(
                "`gh {} {}` publishes or deletes on GitHub",
                positional[0], positional[1]
            ))
        }
        _ => None,
    }
}

pub(crate) fn method_writes(values: &[&str]) -> bool {
    values.windows(2).any(|w| {
        matches!(w[0], "-X" | "--request" | "--method")
            && !matches!(
                w[1].to_ascii_uppercase().as_str(),
                "GET" | "HEAD" | "OPTIONS"
            )
    }) || values.iter().any(|v| {
        v.strip_prefix("-X")
            .or_else(|| v.strip_prefix("--request="))
            .or_else(|| v.strip_prefix("--method="))
            .is_some_and(|m| {
                !m.is_empty()
                    && !matches!(m.to_ascii_uppercase().as_str(), "GET" | "HEAD" | "OPTIONS")
            })
    })
}

pub(crate) fn is_loopback_url(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?']).next().unwrap_or("");
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split(']').next().map(|h| &h[1..]).unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    host == "localhost" || host.starts_with("127.") || host == "::1" || host == "0.0.0.0"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_urls() {
        assert!(is_loopback_url("http://localhost:3000/api"));
        assert!(is_loopback_url("http://127.0.0.1/x"));
        assert!(is_loopback_url("http://[::1]:8080/"));
        assert!(!is_loopback_url("https://example.com/"));
    }
}
