//! The approval gate: given the policy, the saved rules, the sandbox and what a prepared call
//! would do, run it (and where), ask, or refuse.
//!
//! Containment comes first, classification second: every command the model causes runs in
//! the session's OS sandbox ([`tack_protocol::SandboxStatus`]) unless the user chose
//! `danger-full-access`; the classifier ([`crate::command_safety`]) decides when to ask.
//! [`Gate::decide`] combines them:
//!
//! | action | `untrusted` (default) | `on-request` | `never` |
//! |---|---|---|---|
//! | read inside the workspace (file tools) | run | run | run |
//! | read outside the workspace (file tools) | ask | run | run |
//! | known read-only command reading only inside the workspace | run, **read-only sandbox** | run, session sandbox | run, session sandbox |
//! | known read-only command reading outside it (`cat ../x`, `ls /etc`, `cat ~/.aws/…`) | ask | run, session sandbox | run, session sandbox |
//! | other command | ask | run, session sandbox | run, session sandbox |
//! | command writing outside the workspace (`echo x >> ~/.bashrc`, `cp a ../b`, `> "$f"`) | ask | ask | run, session sandbox |
//! | dangerous command (`rm -r`, `sudo`, `git push --force`, …) | ask | ask | run, session sandbox |
//! | code the classifier cannot see (`$X args`, `… \| sh`, `python -c`, `perl -e`, …) | ask | ask | run, session sandbox |
//! | command asking for escalation (run outside the sandbox) | ask | ask | run, session sandbox |
//! | any command when no sandbox works on this machine | ask | ask | ask |
//! | file tool write inside the workspace (`write_file`, `edit`, `apply_patch`) | ask | run | run |
//! | file tool write outside the workspace, or to `.git` internals / Tack's folders | ask | ask | **ask** |
//!
//! "Session sandbox" is the session's mode (`workspace-write` by default, `read-only` if
//! chosen; none for `danger-full-access`). An approved command runs in the session's mode
//! too; only an approved escalation runs outside. When a contained command fails because the
//! sandbox refused something (a write, the network), the turn loop asks whether to run it
//! again outside — except under `never`, which never asks.
//!
//! Saved rules ([`crate::rules`]) come before the policy: a deny rule refuses without asking;
//! allow rules turn an ask into a run (inside the sandbox) only when they cover every part of
//! the command by themselves, and never widen (see [`tack_protocol::Rule`]).
//!
//! A compound command is judged by its most dangerous part (see
//! [`crate::command_safety::classify_in`], which also says which words of a read-only command
//! count as paths and how they are resolved against the working directory, and which words
//! of a command are the files it changes). File tool writes outside the workspace ask under
//! every policy: `never` means "don't ask about commands", not "let the model edit files
//! outside the project you opened without telling you". "Approve for this session"
//! remembers the exact command line (for commands) or the exact set of paths (for writes),
//! and is not offered for high-risk actions.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use tack_protocol::{ApprovalAction, ApprovalPolicy, Risk, Rule, SandboxMode, SandboxStatus};

use crate::command_safety::{CommandClass, CommandSite, classify_in};
use crate::rules::{RuleOutcome, RuleSet};
use crate::tools::ToolAction;

/// The gate's verdict for one prepared call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Run without asking.
    Run,
    /// Ask the user.
    Ask {
        /// What to show.
        action: ApprovalAction,
        /// The rule that asked, in words.
        reason: String,
        /// Risk estimate.
        risk: Risk,
        /// Key under which "approve for this session" remembers the decision.
        session_key: String,
    },
}

/// Session-scoped approvals ("approve for this session").
#[derive(Debug, Default, Clone)]
pub struct SessionApprovals {
    keys: HashSet<String>,
}

impl SessionApprovals {
    /// Remembers a key.
    pub fn insert(&mut self, key: String) {
        self.keys.insert(key);
    }
    /// Whether a key was approved.
    pub fn contains(&self, key: &str) -> bool {
        self.keys.contains(key)
    }
}

/// Decides whether a prepared call may run without asking.
pub fn assess(
    policy: ApprovalPolicy,
    action: &ToolAction,
    workspace: &Path,
    approved: &SessionApprovals,
) -> Verdict {
    let verdict = assess_policy(policy, action, workspace);
    match &verdict {
        Verdict::Ask { session_key, .. } if approved.contains(session_key) => Verdict::Run,
        _ => verdict,
    }
}

fn assess_policy(policy: ApprovalPolicy, action: &ToolAction, workspace: &Path) -> Verdict {
    match action {
        ToolAction::Internal => Verdict::Run,
        ToolAction::Read { paths } => {
            let outside: Vec<&PathBuf> =
                paths.iter().filter(|p| !is_inside(p, workspace)).collect();
            if outside.is_empty() || policy != ApprovalPolicy::Untrusted {
                return Verdict::Run;
            }
            let list = display_paths(&outside);
            Verdict::Ask {
                action: ApprovalAction::Exec {
                    command: format!("read {list}"),
                    cwd: workspace.display().to_string(),
                },
                reason: format!("reading outside the workspace ({list})"),
                risk: Risk::Medium,
                session_key: format!("read:{list}"),
            }
        }
        ToolAction::Exec {
            command,
            cwd,
            escalated,
        } => {
            let session_key = session_key(command, cwd);
            let ask = |reason: String, risk: Risk| Verdict::Ask {
                action: ApprovalAction::Exec {
                    command: command.clone(),
                    cwd: cwd.display().to_string(),
                },
                reason,
                risk,
                session_key: session_key.clone(),
            };
            if policy == ApprovalPolicy::Never {
                return Verdict::Run;
            }
            if *escalated {
                return ask(
                    "the call asks to run without restrictions".to_string(),
                    Risk::High,
                );
            }
            let home = dirs::home_dir();
            let site = CommandSite {
                workspace,
                cwd,
                home: home.as_deref(),
            };
            let assessment = classify_in(command, &site);
            match (policy, assessment.class) {
                (_, CommandClass::Dangerous | CommandClass::WritesOutside) => {
                    ask(assessment.reason, Risk::High)
                }
                (
                    ApprovalPolicy::Untrusted,
                    CommandClass::Mutating | CommandClass::ReadsOutside,
                ) => ask(assessment.reason, Risk::Medium),
                _ => Verdict::Run,
            }
        }
        ToolAction::Write { paths, changes } => {
            let outside: Vec<&PathBuf> =
                paths.iter().filter(|p| !is_inside(p, workspace)).collect();
            let list = display_paths(&paths.iter().collect::<Vec<_>>());
            let diff = changes
                .iter()
                .map(|c| c.diff.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            let action = ApprovalAction::FileWrite {
                paths: paths.iter().map(|p| p.display().to_string()).collect(),
                diff,
            };
            let session_key = format!("write:{list}");
            // `.git` internals and Tack's own folders ask under every policy (like writes
            // outside, and said first: the more specific reason).
            if let Some(reason) = paths
                .iter()
                .find_map(|p| crate::tools::protected_reason(p, workspace))
            {
                return Verdict::Ask {
                    action,
                    reason,
                    risk: Risk::High,
                    session_key,
                };
            }
            if !outside.is_empty() {
                return Verdict::Ask {
                    action,
                    reason: format!(
                        "writes outside the workspace ({}) always need approval",
                        display_paths(&outside)
                    ),
                    risk: Risk::High,
                    session_key,
                };
            }
            if policy == ApprovalPolicy::Untrusted {
                return Verdict::Ask {
                    action,
                    reason: "the `untrusted` policy asks before any file change".to_string(),
                    risk: Risk::Medium,
                    session_key,
                };
            }
            Verdict::Run
        }
    }
}

/// The gate's decision on one prepared call: the policy's verdict ([`assess`]), the saved
/// rules and the sandbox, together. This is what the turn loop acts on and what
/// `tack policy check` prints.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Run without asking.
    Run {
        /// Where: a sandbox mode, or `None` for outside any sandbox (file tools, which run
        /// in Tack's own process and are gated by path, and `danger-full-access`).
        sandbox: Option<SandboxMode>,
        /// Why it may run, in words.
        reason: String,
        /// How risky it looks.
        risk: Risk,
        /// The allow rule that decided, if one did.
        rule: Option<Rule>,
    },
    /// Ask the user.
    Ask(Box<AskRequest>),
    /// Refuse without asking: a deny rule matched.
    Reject {
        /// Why, naming the rule.
        reason: String,
        /// The deny rule.
        rule: Rule,
    },
}

/// What to ask, and where the call runs once approved.
#[derive(Debug, Clone, PartialEq)]
pub struct AskRequest {
    /// What to show.
    pub action: ApprovalAction,
    /// The rule that asked, in words.
    pub reason: String,
    /// Risk estimate.
    pub risk: Risk,
    /// Key under which "approve for this session" remembers the decision.
    pub session_key: String,
    /// Where the call runs once approved (`None`: outside any sandbox).
    pub sandbox: Option<SandboxMode>,
    /// Whether "approve for this session" is offered (never for high-risk actions).
    pub offer_session: bool,
    /// The prefix an "Always allow/deny" rule would save.
    pub suggested_rule: Option<Vec<String>>,
}

impl Decision {
    /// `run`, `ask` or `reject`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Decision::Run { .. } => "run",
            Decision::Ask(_) => "ask",
            Decision::Reject { .. } => "reject",
        }
    }
}

/// Everything the gate weighs for one session: policy, sandbox, saved rules and the
/// session's "approve for this session" answers.
#[derive(Debug, Clone, Copy)]
pub struct Gate<'a> {
    /// The approval policy.
    pub policy: ApprovalPolicy,
    /// The session's sandbox (mechanism, mode, network).
    pub sandbox: &'a SandboxStatus,
    /// The workspace root, symlinks resolved.
    pub workspace: &'a Path,
    /// Saved rules (config and this run's "Always …" answers).
    pub rules: &'a RuleSet,
    /// This session's "approve for this session" answers.
    pub approved: &'a SessionApprovals,
}

impl Gate<'_> {
    /// Decides on one prepared call, in this order: a deny rule refuses; the policy's verdict
    /// ([`assess`]) runs or asks; an ask is turned into a run when allow rules cover every
    /// part of the command or the session approved it; a command that would run is
    /// sandboxed (read-only for `untrusted`'s read-only commands, the session's mode
    /// otherwise) — and where no sandbox works and the user did not choose
    /// `danger-full-access`, it asks instead of running uncontained.
    pub fn decide(&self, action: &ToolAction) -> Decision {
        let ToolAction::Exec {
            command,
            cwd,
            escalated,
        } = action
        else {
            return match assess(self.policy, action, self.workspace, self.approved) {
                Verdict::Run => Decision::Run {
                    sandbox: None,
                    reason: format!("the `{}` policy runs this without asking", self.policy),
                    risk: Risk::Low,
                    rule: None,
                },
                Verdict::Ask {
                    action,
                    reason,
                    risk,
                    session_key,
                } => Decision::Ask(Box::new(AskRequest {
                    action,
                    reason,
                    risk,
                    session_key,
                    sandbox: None,
                    offer_session: risk != Risk::High,
                    suggested_rule: None,
                })),
            };
        };
        let home = dirs::home_dir();
        let site = CommandSite {
            workspace: self.workspace,
            cwd,
            home: home.as_deref(),
        };
        let assessment = classify_in(command, &site);
        let rules = self.rules.judge(&assessment, self.workspace);
        if let RuleOutcome::Denied { rule } = rules {
            return Decision::Reject {
                reason: format!("refused by the rule {}", rule.describe()),
                rule,
            };
        }
        let mode = self.sandbox.mode;
        let contained = self.sandbox.contains();
        // Where the command runs once it may run: outside only when the user chose
        // danger-full-access, or approved an escalation.
        let run_mode = |read_only: bool| -> Option<SandboxMode> {
            match mode {
                SandboxMode::DangerFullAccess => None,
                _ if read_only => Some(SandboxMode::ReadOnly),
                m => Some(m),
            }
        };
        let risk = assessment.class.risk();
        let verdict = assess(
            self.policy,
            action,
            self.workspace,
            &SessionApprovals::default(),
        );
        let read_only =
            self.policy == ApprovalPolicy::Untrusted && assessment.class == CommandClass::ReadOnly;
        let uncontained = |reason: String| {
            Decision::Ask(Box::new(AskRequest {
                action: ApprovalAction::Exec {
                    command: command.clone(),
                    cwd: cwd.display().to_string(),
                },
                reason,
                risk: Risk::High,
                session_key: session_key(command, cwd),
                sandbox: None,
                offer_session: false,
                suggested_rule: None,
            }))
        };
        match verdict {
            Verdict::Run => {
                // The policy would run it; a command that cannot be contained asks instead.
                if !contained && mode != SandboxMode::DangerFullAccess {
                    return uncontained(format!(
                        "{}; approve to run it without a sandbox",
                        self.sandbox.summary
                    ));
                }
                // Under `never` an escalation request is not asked about, so it stays in the
                // sandbox: only the user takes a command out.
                let sandbox = run_mode(read_only);
                let reason = match (self.policy, sandbox) {
                    (_, None) => format!(
                        "the `{}` policy runs this without asking, without a sandbox                          (danger-full-access)",
                        self.policy
                    ),
                    (ApprovalPolicy::Untrusted, Some(m)) => {
                        format!("{}; runs in the {m} sandbox", assessment.reason)
                    }
                    (policy, Some(m)) => {
                        format!("the `{policy}` policy runs this in the {m} sandbox")
                    }
                };
                Decision::Run {
                    sandbox,
                    reason,
                    risk,
                    rule: None,
                }
            }
            Verdict::Ask {
                action: ask_action,
                reason,
                risk,
                session_key,
            } => {
                let sandbox = if *escalated { None } else { run_mode(false) };
                if !escalated && let RuleOutcome::Allowed { rules } = rules {
                    if !contained && mode != SandboxMode::DangerFullAccess {
                        return uncontained(format!(
                            "{}; approve to run it without a sandbox",
                            self.sandbox.summary
                        ));
                    }
                    let names: Vec<String> = rules.iter().map(Rule::describe).collect();
                    return Decision::Run {
                        sandbox,
                        reason: format!("allowed by the rule {}", names.join(" and ")),
                        risk,
                        rule: rules.into_iter().next(),
                    };
                }
                if self.approved.contains(&session_key) {
                    return Decision::Run {
                        sandbox: if contained { sandbox } else { None },
                        reason: "approved for this session".to_string(),
                        risk,
                        rule: None,
                    };
                }
                let reason = if !contained && !escalated && mode != SandboxMode::DangerFullAccess {
                    format!(
                        "{reason} ({}, so it would run without one)",
                        self.sandbox.summary
                    )
                } else {
                    reason
                };
                Decision::Ask(Box::new(AskRequest {
                    action: ask_action,
                    reason,
                    risk,
                    session_key,
                    sandbox: if contained { sandbox } else { None },
                    offer_session: risk != Risk::High,
                    suggested_rule: if *escalated {
                        None
                    } else {
                        self.rules.suggest(&assessment)
                    },
                }))
            }
        }
    }
}

/// The key "approve for this session" remembers a command under.
fn session_key(command: &str, cwd: &Path) -> String {
    format!("exec:{}\u{0}{command}", cwd.display())
}

/// Whether `path` is inside `root`, comparing normalized absolute paths (`..` resolved
/// lexically; tools report symlink-resolved paths, so a link out of the workspace shows as
/// outside).
pub fn is_inside(path: &Path, root: &Path) -> bool {
    let p = normalize(path);
    let r = normalize(root);
    p.starts_with(&r)
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn display_paths(paths: &[&PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exec(cmd: &str) -> ToolAction {
        ToolAction::Exec {
            command: cmd.into(),
            cwd: "/w".into(),
            escalated: false,
        }
    }

    fn write(path: &str) -> ToolAction {
        ToolAction::Write {
            paths: vec![path.into()],
            changes: vec![],
        }
    }

    #[test]
    fn untrusted_runs_read_only_commands_and_asks_for_the_rest() {
        let ws = Path::new("/w");
        let none = SessionApprovals::default();
        assert_eq!(
            assess(ApprovalPolicy::Untrusted, &exec("ls -la"), ws, &none),
            Verdict::Run
        );
        assert_eq!(
            assess(
                ApprovalPolicy::Untrusted,
                &exec("git status && cat README.md"),
                ws,
                &none
            ),
            Verdict::Run
        );
        assert!(matches!(
            assess(ApprovalPolicy::Untrusted, &exec("ls && touch x"), ws, &none),
            Verdict::Ask {
                risk: Risk::Medium,
                ..
            }
        ));
        assert!(matches!(
            assess(
                ApprovalPolicy::Untrusted,
                &exec("ls; rm -rf build"),
                ws,
                &none
            ),
            Verdict::Ask {
                risk: Risk::High,
                ..
            }
        ));
    }

    #[test]
    fn on_request_asks_only_for_dangerous_commands() {
        let ws = Path::new("/w");
        let none = SessionApprovals::default();
        assert_eq!(
            assess(ApprovalPolicy::OnRequest, &exec("cargo test"), ws, &none),
            Verdict::Run
        );
        assert!(matches!(
            assess(
                ApprovalPolicy::OnRequest,
                &exec("cargo test | sudo tee /x"),
                ws,
                &none
            ),
            Verdict::Ask { .. }
        ));
        assert_eq!(
            assess(ApprovalPolicy::Never, &exec("sudo rm -rf /"), ws, &none),
            Verdict::Run
        );
    }

    #[test]
    fn writes_outside_the_workspace_always_ask() {
        let ws = Path::new("/w");
        let none = SessionApprovals::default();
        for policy in [
            ApprovalPolicy::Untrusted,
            ApprovalPolicy::OnRequest,
            ApprovalPolicy::Never,
        ] {
            assert!(
                matches!(
                    assess(policy, &write("/etc/hosts"), ws, &none),
                    Verdict::Ask {
                        risk: Risk::High,
                        ..
                    }
                ),
                "{policy}"
            );
            assert!(
                matches!(
                    assess(policy, &write("/w/../etc/x"), ws, &none),
                    Verdict::Ask { .. }
                ),
                "{policy}"
            );
        }
        assert_eq!(
            assess(ApprovalPolicy::OnRequest, &write("/w/src/a.rs"), ws, &none),
            Verdict::Run
        );
        assert!(matches!(
            assess(ApprovalPolicy::Untrusted, &write("/w/src/a.rs"), ws, &none),
            Verdict::Ask { .. }
        ));
    }

    #[track_caller]
    fn asks(policy: ApprovalPolicy, command: &str) -> Option<(String, Risk)> {
        match assess(
            policy,
            &exec(command),
            Path::new("/w"),
            &SessionApprovals::default(),
        ) {
            Verdict::Ask { reason, risk, .. } => Some((reason, risk)),
            Verdict::Run => None,
        }
    }

    #[test]
    fn on_request_asks_for_code_it_cannot_see() {
        for command in [
            "$(echo rm) -r d3",
            "${X} -r d",
            "echo cm0gLXIgZDY= | base64 -d | sh",
            "cat x | bash",
            "sh < x.sh",
            "python3 -c \"import shutil; shutil.rmtree('d5')\"",
            "perl -e 'system(\"rm -r d10\")'",
            "ruby -e 'x'",
            "node -e 'x'",
            "php -r 'x'",
            "lua -e 'x'",
            "osascript -e 'x'",
            "awk 'BEGIN { system(\"rm -r d\") }'",
            "echo 'print(1)' | python3",
        ] {
            for policy in [ApprovalPolicy::Untrusted, ApprovalPolicy::OnRequest] {
                assert!(
                    matches!(asks(policy, command), Some((_, Risk::High))),
                    "{policy} {command:?}"
                );
            }
            assert_eq!(asks(ApprovalPolicy::Never, command), None, "{command:?}");
        }
        for command in [
            "cargo test",
            "python3 script.py",
            "bash script.sh",
            "echo ls | bash",
        ] {
            assert_eq!(
                asks(ApprovalPolicy::OnRequest, command),
                None,
                "{command:?}"
            );
        }
    }

    #[test]
    fn untrusted_asks_for_reads_outside_the_workspace() {
        for command in [
            "cat ../outside.txt",
            "ls /etc/shadow",
            "cat ~/.aws/credentials",
            "cat $HOME/.aws/credentials",
            "grep -r key /etc",
            "cd /tmp && ls",
            "git -C ../other log",
            "cat < /etc/passwd",
        ] {
            assert!(
                matches!(
                    asks(ApprovalPolicy::Untrusted, command),
                    Some((_, Risk::Medium))
                ),
                "{command:?}"
            );
            assert_eq!(
                asks(ApprovalPolicy::OnRequest, command),
                None,
                "{command:?}"
            );
            assert_eq!(asks(ApprovalPolicy::Never, command), None, "{command:?}");
        }
        assert_eq!(
            asks(ApprovalPolicy::Untrusted, "ls /etc/shadow").map(|a| a.0),
            Some("reads outside the workspace: /etc/shadow".to_string())
        );
        assert_eq!(
            asks(ApprovalPolicy::Untrusted, "cat ../outside.txt").map(|a| a.0),
            Some("reads outside the workspace: /outside.txt".to_string())
        );
        for command in [
            "git log",
            "grep -rn foo .",
            "grep -rn 'a/b' .",
            "ls",
            "cat README.md",
            "sed -n 1,5p src/a.rs",
            "rg foo src",
            "find . -name x",
            "head -n 3 a.txt",
            "cat /dev/null",
            "echo /etc/shadow",
        ] {
            assert_eq!(
                asks(ApprovalPolicy::Untrusted, command),
                None,
                "{command:?}"
            );
        }
    }

    #[test]
    fn shell_writes_outside_the_workspace_ask_unless_never() {
        for command in [
            "echo hi >> ~/.bashrc_x",
            "cp README.md ../outx",
            "cp README.md /tmp/outx",
            "mv d3 ../d3moved",
            "tee ../outx < README.md",
            "touch ../outx",
            "mkdir ../d3moved",
            "install -D README.md ../outx",
            "tar cf - d3 | tar xf - -C ..",
            "echo x > \"$f\"",
            "cd /tmp && touch x",
        ] {
            for policy in [ApprovalPolicy::Untrusted, ApprovalPolicy::OnRequest] {
                let asked = asks(policy, command);
                assert!(
                    matches!(&asked, Some((reason, Risk::High)) if reason.contains("outside the workspace") || reason.contains("only known when it runs")),
                    "{policy} {command:?}: {asked:?}"
                );
            }
            assert_eq!(asks(ApprovalPolicy::Never, command), None, "{command:?}");
        }
        assert_eq!(
            asks(ApprovalPolicy::OnRequest, "cp README.md /tmp/outx").map(|a| a.0),
            Some("writes outside the workspace: /tmp/outx".to_string())
        );
        // Code read from a here-string by `make` cannot be checked.
        assert!(matches!(
            asks(
                ApprovalPolicy::OnRequest,
                "make -f /dev/stdin <<< \"all:;rm -r d3\""
            ),
            Some((_, Risk::High))
        ));
        for command in [
            "cp a.txt b.txt",
            "mkdir -p build",
            "echo x > out.txt",
            "cargo build",
            "npm install",
            "git commit -m x",
            "touch src/new.rs",
            "sed -i s/a/b/ src/x.rs",
            "echo x > /dev/null",
        ] {
            assert_eq!(
                asks(ApprovalPolicy::OnRequest, command),
                None,
                "{command:?}"
            );
        }
        assert_eq!(
            asks(ApprovalPolicy::OnRequest, "rm -rf target").map(|a| a.0),
            Some("`rm -r` deletes recursively".to_string())
        );
    }

    #[test]
    fn session_approval_is_for_the_exact_command() {
        let ws = Path::new("/w");
        let mut approved = SessionApprovals::default();
        let Verdict::Ask { session_key, .. } =
            assess(ApprovalPolicy::Untrusted, &exec("make test"), ws, &approved)
        else {
            panic!("should ask");
        };
        approved.insert(session_key);
        assert_eq!(
            assess(ApprovalPolicy::Untrusted, &exec("make test"), ws, &approved),
            Verdict::Run
        );
        assert!(matches!(
            assess(
                ApprovalPolicy::Untrusted,
                &exec("make test2"),
                ws,
                &approved
            ),
            Verdict::Ask { .. }
        ));
    }

    mod gate {
        use super::*;
        use tack_protocol::{RuleDecision, SandboxMechanism};

        fn status(mechanism: SandboxMechanism, mode: SandboxMode) -> SandboxStatus {
            SandboxStatus {
                mechanism,
                mode,
                network: false,
                summary: match mechanism {
                    SandboxMechanism::None => "no sandbox: bwrap not found".into(),
                    _ => "bubblewrap".into(),
                },
            }
        }

        fn decide(
            policy: ApprovalPolicy,
            sandbox: &SandboxStatus,
            rules: &RuleSet,
            action: &ToolAction,
        ) -> Decision {
            Gate {
                policy,
                sandbox,
                workspace: Path::new("/w"),
                rules,
                approved: &SessionApprovals::default(),
            }
            .decide(action)
        }

        fn ran_in(d: &Decision) -> Option<Option<SandboxMode>> {
            match d {
                Decision::Run { sandbox, .. } => Some(*sandbox),
                _ => None,
            }
        }

        const BWRAP: SandboxMechanism = SandboxMechanism::Bubblewrap;

        #[test]
        fn untrusted_runs_read_only_commands_in_the_read_only_sandbox() {
            let s = status(BWRAP, SandboxMode::WorkspaceWrite);
            let r = RuleSet::default();
            let d = decide(ApprovalPolicy::Untrusted, &s, &r, &exec("ls -la"));
            assert_eq!(ran_in(&d), Some(Some(SandboxMode::ReadOnly)), "{d:?}");
            // Everything else asks, and would run in the session's mode once approved.
            let Decision::Ask(ask) = decide(ApprovalPolicy::Untrusted, &s, &r, &exec("make"))
            else {
                panic!("should ask")
            };
            assert_eq!(ask.sandbox, Some(SandboxMode::WorkspaceWrite));
        }

        #[test]
        fn on_request_and_never_run_in_the_sessions_mode() {
            for mode in [SandboxMode::ReadOnly, SandboxMode::WorkspaceWrite] {
                let s = status(BWRAP, mode);
                let r = RuleSet::default();
                for policy in [ApprovalPolicy::OnRequest, ApprovalPolicy::Never] {
                    let d = decide(policy, &s, &r, &exec("cargo build"));
                    assert_eq!(ran_in(&d), Some(Some(mode)), "{policy} {mode}: {d:?}");
                }
                // `never` runs even a dangerous command without asking — contained.
                let d = decide(ApprovalPolicy::Never, &s, &r, &exec("rm -rf /"));
                assert_eq!(ran_in(&d), Some(Some(mode)));
            }
        }

        #[test]
        fn without_a_working_sandbox_every_command_asks() {
            let s = status(SandboxMechanism::None, SandboxMode::WorkspaceWrite);
            let r = RuleSet::default();
            for policy in [
                ApprovalPolicy::Untrusted,
                ApprovalPolicy::OnRequest,
                ApprovalPolicy::Never,
            ] {
                for command in ["ls", "cargo build", "rm -rf x"] {
                    let Decision::Ask(ask) = decide(policy, &s, &r, &exec(command)) else {
                        panic!("{policy} `{command}` must ask without a sandbox")
                    };
                    assert_eq!(ask.sandbox, None, "it would run uncontained: say so");
                    assert!(ask.reason.contains("no sandbox"), "{}", ask.reason);
                }
            }
        }

        #[test]
        fn danger_full_access_runs_uncontained_as_the_policy_says() {
            let s = status(BWRAP, SandboxMode::DangerFullAccess);
            let r = RuleSet::default();
            let d = decide(ApprovalPolicy::OnRequest, &s, &r, &exec("cargo build"));
            assert_eq!(ran_in(&d), Some(None));
            assert!(matches!(
                decide(ApprovalPolicy::OnRequest, &s, &r, &exec("rm -rf x")),
                Decision::Ask(_)
            ));
        }

        #[test]
        fn escalation_requests_ask_outside_the_sandbox_and_stay_inside_under_never() {
            let s = status(BWRAP, SandboxMode::WorkspaceWrite);
            let r = RuleSet::default();
            let escalated = ToolAction::Exec {
                command: "ls".into(),
                cwd: "/w".into(),
                escalated: true,
            };
            let Decision::Ask(ask) = decide(ApprovalPolicy::OnRequest, &s, &r, &escalated) else {
                panic!("an escalation asks")
            };
            assert_eq!(ask.sandbox, None);
            assert!(!ask.offer_session, "high risk: no approve-for-session");
            let d = decide(ApprovalPolicy::Never, &s, &r, &escalated);
            assert_eq!(ran_in(&d), Some(Some(SandboxMode::WorkspaceWrite)));
        }

        #[test]
        fn rules_decide_deny_first_and_allow_only_what_they_cover() {
            let s = status(BWRAP, SandboxMode::WorkspaceWrite);
            let rule = |decision, command: &str| tack_protocol::Rule {
                decision,
                command: command.split(' ').map(str::to_string).collect(),
                workspace: None,
            };
            let r = RuleSet::new([
                rule(RuleDecision::Allow, "npm test"),
                rule(RuleDecision::Deny, "npm publish"),
            ]);
            let d = decide(ApprovalPolicy::Untrusted, &s, &r, &exec("npm test"));
            assert!(
                matches!(
                    &d,
                    Decision::Run {
                        rule: Some(_),
                        sandbox: Some(SandboxMode::WorkspaceWrite),
                        ..
                    }
                ),
                "{d:?}"
            );
            assert!(matches!(
                decide(ApprovalPolicy::Never, &s, &r, &exec("npm publish")),
                Decision::Reject { .. }
            ));
            // The allowed prefix does not cover another part of the line.
            assert!(matches!(
                decide(
                    ApprovalPolicy::Untrusted,
                    &s,
                    &r,
                    &exec("npm test && curl x | sh")
                ),
                Decision::Ask(_)
            ));
        }

        #[test]
        fn high_risk_asks_do_not_offer_the_session() {
            let s = status(BWRAP, SandboxMode::WorkspaceWrite);
            let r = RuleSet::default();
            let Decision::Ask(ask) = decide(ApprovalPolicy::OnRequest, &s, &r, &exec("rm -rf x"))
            else {
                panic!()
            };
            assert!(!ask.offer_session);
            let Decision::Ask(ask) = decide(ApprovalPolicy::Untrusted, &s, &r, &exec("make"))
            else {
                panic!()
            };
            assert!(ask.offer_session);
        }
    }
}
