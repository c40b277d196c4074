//! Read-only programs whose options can make them write a file or run a program, as data:
//! for each, how it reads its options ([`OptionSpec`]) and which options (or operands) write
//! or run. Options are matched with [`ArgView`], so `--out=x`, `-ox` and `-rox` are `-o x`.

use crate::CommandClass;
use crate::args::{ArgView, OptionSpec};
use crate::rules::{dangerous_write_target, is_harmless_sink};
use crate::verdicts::Judged;
use crate::words::Word;

/// What an option does beyond reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Does {
    /// Writes a file or changes the system.
    Writes,
    /// Runs a program named by the option (or configuration that can name one).
    Runs,
}

/// One program family's options that write or run.
pub(crate) struct Family {
    /// The programs it applies to.
    pub(crate) programs: &'static [&'static str],
    /// How they read their options.
    pub(crate) spec: OptionSpec,
    /// Options (short and long forms) that write or run, and what they do, in words.
    pub(crate) options: &'static [(&'static [&'static str], Does, &'static str)],
    /// The operand (by position) the program writes (`uniq IN OUT`), if any.
    pub(crate) writes_operand: Option<usize>,
}

pub(crate) const fn spec(
    short_values: &'static str,
    long_values: &'static [&'static str],
    long_flags: &'static [&'static str],
) -> OptionSpec {
    OptionSpec {
        short_values,
        short_attached: "",
        long_values,
        long_flags,
        options_first: false,
    }
}

/// The families, one entry per program group.
pub(crate) const FAMILIES: &[Family] = &[
    Family {
        programs: &["sort"],
        spec: spec(
            "otkST",
            &[
                "output",
                "key",
                "field-separator",
                "buffer-size",
                "temporary-directory",
                "compress-program",
                "files0-from",
                "random-source",
                "parallel",
                "batch-size",
                "sort",
            ],
            &[
                "reverse",
                "numeric-sort",
                "unique",
                "ignore-case",
                "check",
                "merge",
                "stable",
                "debug",
                "zero-terminated",
                "human-numeric-sort",
                "general-numeric-sort",
                "month-sort",
                "version-sort",
                "random-sort",
                "dictionary-order",
                "ignore-leading-blanks",
                "ignore-nonprinting",
                "help",
                "version",
            ],
        ),
        options: &[
            (
                &["-o", "--output"],
                Does::Writes,
                "writes its output to a file",
            ),
            (
                &["--compress-program"],
                Does::Runs,
                "runs a compression program",
            ),
        ],
        writes_operand: None,
    },
    Family {
        programs: &["uniq"],
        spec: spec(
            "fsw",
            &[
                "skip-fields",
                "skip-chars",
                "check-chars",
                "all-repeated",
                "group",
            ],
            &[
                "count",
                "repeated",
                "unique",
                "ignore-case",
                "zero-terminated",
                "help",
                "version",
            ],
        ),
        options: &[],
        writes_operand: Some(1),
    },
    Family {
        programs: &["xxd"],
        spec: spec("cglsonC", &[], &[]),
        options: &[],
        writes_operand: Some(1),
    },
    Family {
        programs: &["tree"],
        spec: spec(
            "LPIHTo",
            &[
                "charset",
                "filelimit",
                "timefmt",
                "sort",
                "hintro",
                "hintro",
            ],
            &[],
        ),
        options: &[(&["-o"], Does::Writes, "writes its output to a file")],
        writes_operand: None,
    },
    Family {
        programs: &["date"],
        spec: spec(
            "dfrs",
            &["date", "file", "reference", "set", "iso-8601", "rfc-3339"],
            &["utc", "universal", "rfc-email", "debug", "help", "version"],
        ),
        options: &[(&["-s", "--set"], Does::Writes, "sets the system clock")],
        writes_operand: None,
    },
    Family {
        programs: &["hostname"],
        spec: spec(
            "F",
            &["file"],
            &[
                "boot",
                "fqdn",
                "short",
                "domain",
                "ip-address",
                "all-ip-addresses",
            ],
        ),
        options: &[(
            &["-F", "--file", "-b", "--boot"],
            Does::Writes,
            "sets the host name",
        )],
        writes_operand: Some(0),
    },
    Family {
        programs: &["file"],
        spec: spec(
            "emfFP",
            &[
                "magic-file",
                "files-from",
                "separator",
                "exclude",
                "parameter",
            ],
            &["compile", "brief", "mime", "dereference"],
        ),
        options: &[(
            &["-C", "--compile"],
            Does::Writes,
            "writes a compiled magic file",
        )],
        writes_operand: None,
    },
    Family {
        programs: &["rg"],
        spec: spec(
            "efgtTABCmMjdErV",
            &[
                "pre",
                "pre-glob",
                "hostname-bin",
                "regexp",
                "file",
                "glob",
                "iglob",
                "type",
                "type-not",
                "replace",
                "max-count",
                "context",
                "before-context",
                "after-context",
                "threads",
                "max-depth",
                "encoding",
                "sort",
                "sortr",
                "ignore-file",
                "colors",
                "engine",
                "max-filesize",
                "path-separator",
            ],
            &[
                "pretty",
                "passthru",
                "pcre2",
                "files",
                "hidden",
                "no-ignore",
                "search-zip",
            ],
        ),
        options: &[
            (
                &["--pre"],
                Does::Runs,
                "runs a preprocessor program on every file",
            ),
            (
                &["--hostname-bin"],
                Does::Runs,
                "runs a program to learn the host name",
            ),
        ],
        writes_operand: None,
    },
    Family {
        programs: &["man"],
        spec: spec(
            "PCMSsLmepRrEX",
            &[
                "pager",
                "config-file",
                "manpath",
                "sections",
                "locale",
                "systems",
                "extension",
                "preprocessor",
                "recode",
                "encoding",
                "html",
                "gxditview",
            ],
            &["local-file", "all", "where", "path"],
        ),
        options: &[
            (
                &["-P", "--pager"],
                Does::Runs,
                "runs the given text as its pager",
            ),
            (&["-H", "--html"], Does::Runs, "runs a browser program"),
            (&["-X", "--gxditview"], Does::Runs, "runs a display program"),
            (
                &["-C", "--config-file"],
                Does::Runs,
                "reads a configuration that can name the pager",
            ),
        ],
        writes_operand: None,
    },
    Family {
        programs: &["bat", "batcat"],
        spec: spec(
            "lHrm",
            &[
                "pager",
                "language",
                "highlight-line",
                "line-range",
                "map-syntax",
                "style",
                "theme",
                "tabs",
                "wrap",
                "terminal-width",
                "color",
                "decorations",
                "paging",
                "italic-text",
                "file-name",
            ],
            &["plain", "number", "show-all"],
        ),
        options: &[(&["--pager"], Does::Runs, "runs the given text as its pager")],
        writes_operand: None,
    },
    Family {
        programs: &["less", "more"],
        spec: spec(
            "bhjkoOpPtTxyz#",
            &[
                "log-file",
                "LOG-FILE",
                "lesskey-file",
                "lesskey-src",
                "tag",
                "pattern",
                "prompt",
                "tabs",
                "shift",
            ],
            &[
                "quit-at-eof",
                "RAW-CONTROL-CHARS",
                "chop-long-lines",
                "quit-if-one-screen",
            ],
        ),
        options: &[
            (
                &["-o", "--log-file", "-O", "--LOG-FILE"],
                Does::Writes,
                "copies its input to a log file",
            ),
            (
                &["-k", "--lesskey-file", "--lesskey-src"],
                Does::Runs,
                "reads key bindings that can set `LESSOPEN`",
            ),
        ],
        writes_operand: None,
    },
    Family {
        programs: &["jq"],
        spec: spec(
            "fL",
            &[
                "from-file",
                "indent",
                "arg",
                "argjson",
                "slurpfile",
                "rawfile",
            ],
            &[],
        ),
        options: &[],
        writes_operand: None,
    },
];

/// The family of `program`, if it has options that write or run.
pub(crate) fn family(program: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.programs.contains(&program))
}

/// The verdict on a read-only program's options (see [`FAMILIES`]); `None` when they only
/// read.
pub(crate) fn judge_options(program: &str, args: &[Word]) -> Option<Judged> {
    let p = Some(program);
    if program == "tee" {
        return judge_tee(args);
    }
    if matches!(program, "less" | "more") {
        // `+cmd` runs a less command at start, and less commands include `!shell` and `|`.
        if let Some(plus) = args.iter().find(|w| {
            w.value.starts_with('+')
                && !w.value[1..].chars().all(|c| c.is_ascii_digit())
                && !w.value.starts_with("+/")
        }) {
            return Some(
                Judged::new(
                    p,
                    CommandClass::Dangerous,
                    format!("`{program} {}` runs a {program} command at start, which can run shell commands", plus.value),
                )
                .effect(),
            );
        }
    }
    let family = family(program)?;
    let view = ArgView::parse(args, &family.spec);
    for (names, does, what) in family.options {
        if let Some(opt) = view.find(names).next() {
            let shown = match &opt.value {
                Some(v) => format!("{} {v}", opt.name),
                None => opt.name.clone(),
            };
            let class = match does {
                Does::Writes => CommandClass::Mutating,
                Does::Runs => CommandClass::Dangerous,
            };
            return Some(Judged::new(p, class, format!("`{program} {shown}` {what}")).effect());
        }
    }
    if let Some(at) = family.writes_operand
        && let Some(&index) = view.operands.get(at)
    {
        let target = &args[index].value;
        return Some(
            Judged::new(
                p,
                CommandClass::Mutating,
                format!("`{program}` with the operand `{target}` writes it"),
            )
            .effect(),
        );
    }
    if view.dynamic_option && !family.options.is_empty() {
        return Some(
            Judged::new(
                p,
                CommandClass::Mutating,
                format!("an argument of `{program}` is only known when it runs, and could be an option that writes or runs"),
            )
            .effect(),
        );
    }
    None
}

/// `tee FILE…` writes every operand (`--` included: `tee -- -x` writes `-x`).
fn judge_tee(args: &[Word]) -> Option<Judged> {
    let p = Some("tee");
    let view = ArgView::parse(
        args,
        &spec("", &["output-error"], &["append", "ignore-interrupts"]),
    );
    let targets: Vec<&str> = view
        .operands
        .iter()
        .map(|&i| args[i].value.as_str())
        .filter(|v| !is_harmless_sink(v))
        .collect();
    if targets.is_empty() {
        return None;
    }
    if let Some(reason) = targets.iter().find_map(|t| dangerous_write_target(t)) {
        return Some(Judged::new(p, CommandClass::Dangerous, reason).effect());
    }
    Some(
        Judged::new(
            p,
            CommandClass::Mutating,
            format!("`tee` writes `{}`", targets.join("`, `")),
        )
        .effect(),
    )
}
